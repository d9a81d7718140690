"""``torch.random``: the global CPU generator's functions and ``fork_rng``.

The seeding functions are the ones ``torch`` itself exports (ops/creation/random.py);
``fork_rng`` saves the CPU generator's state and the states of the chosen accelerator
devices' generators (CUDA: taimatsu/cuda/random.py), and restores them all on exit, as
PyTorch's does -- including its one-time warning when the devices are not named on a machine
with more than one GPU.
"""

from __future__ import annotations

import contextlib
import warnings

from .ops.creation.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
    "manual_seed", "seed", "set_rng_state",
]  # fmt: skip

_fork_rng_warned_already = False


def _device_module(device_type: str):
    """``torch.get_device_module(device_type)``: the module of a device type, PyTorch's
    RuntimeError for a string that names no device type."""
    import importlib

    from ._device import device

    device(device_type)  # PyTorch's error for an unknown type
    try:
        return importlib.import_module(f"taimatsu.{device_type}")
    except ImportError:
        raise RuntimeError(
            f"torch has no module of `{device_type}`, you should register "
            "a module by `torch._register_device_module`."
        ) from None


def _many_devices_warning(device_type: str, n: int, caller: str, devices_kw: str) -> str:
    t = device_type.upper()
    return (
        f"{t} reports that you have {n} available devices, and you have used {caller} without "
        f"explicitly specifying which devices are being used. For safety, we initialize *every* "
        f"{t} device by default, which can be quite slow if you have a lot of {t}s. If you know "
        f"that you are only making use of a few {t} devices, set the environment variable "
        f"{t}_VISIBLE_DEVICES or the '{devices_kw}' keyword argument of {caller} with the set of "
        "devices you are actually using. For example, if you are using CPU only, set "
        "device.upper()_VISIBLE_DEVICES= or devices=[]; if you are using device 0 only, set "
        f"{t}_VISIBLE_DEVICES=0 or devices=[0].  To initialize all devices and suppress this "
        f"warning, set the '{devices_kw}' keyword argument to "
        f"`range(torch.{device_type}.device_count())`."
    )


@contextlib.contextmanager
def fork_rng(
    devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None
):
    """Restore the CPU generator and the ``devices``' generators on exit (all devices of
    ``device_type`` when ``devices`` is None; the current accelerator's type, else "cuda")."""
    global _fork_rng_warned_already
    if device_type == "meta":
        yield
        return
    if device_type is None:
        from .accelerator import current_accelerator

        acc = current_accelerator()
        device_type = acc.type if acc is not None else "cuda"
    module = _device_module(device_type)
    if not enabled:
        yield
        return
    if devices is None:
        n = module.device_count()
        if n > 1 and not _fork_rng_warned_already:
            warnings.warn(_many_devices_warning(device_type, n, _caller, _devices_kw), stacklevel=2)
            _fork_rng_warned_already = True
        devices = list(range(n))
    else:
        devices = list(devices)  # a generator would be spent by the first pass
    cpu_state = get_rng_state()
    if devices and not hasattr(module, "get_rng_state"):  # torch.cpu has none either
        raise AttributeError(f"module 'torch.{device_type}' has no attribute 'get_rng_state'")
    device_states = [module.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, device_states):
            module.set_rng_state(state, d)
