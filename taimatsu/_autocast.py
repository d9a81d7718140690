"""Autocast state and the cast policies ops declare (PyTorch's Autocast dispatch keys).

PyTorch keeps autocast per thread: an enabled flag and a lower-precision dtype per device type,
a cache switch and a nesting depth. An op on one of its lists casts its floating inputs before it
runs: ``LOWER`` to the device's autocast dtype (matmul, conv, linear, ...), ``FP32`` to float32
(losses, linalg, fft, ...), ``PROMOTE`` to the widest floating input (cat, stack, ...), and
``FP32_OPT_DTYPE`` (CUDA's softmax, sum, ...) sets ``dtype=float32`` unless the caller gave one.

Ops declare their policy with :func:`cast_policy`; when autocast is off the wrapper costs one
attribute read. While a policy runs, autocast is switched off, as PyTorch's excluded dispatch key
does, so an op built from other listed ops casts once (``linear`` does not recast in ``addmm``).
Float64 tensors, non-floating tensors and tensors on another device are never cast; calls with an
``out=`` tensor run as written (PyTorch registers only the out-of-place overloads).

Lower-precision casts of float32 leaves that require grad are cached until the outermost autocast
region exits, as PyTorch does, so a weight used several times is cast once.
"""

from __future__ import annotations

import functools
import threading

from . import _dtype as D

LOWER, FP32, PROMOTE, FP32_OPT_DTYPE = "lower", "fp32", "promote", "fp32_set_opt_dtype"
BANNED = "banned"  # CUDA's binary_cross_entropy: PyTorch refuses it under autocast
_BCE_BANNED = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast."
)

# Device types PyTorch accepts for autocast, with their default lower-precision dtype.
DEFAULT_DTYPES = {
    "cpu": D.bfloat16, "cuda": D.float16, "ipu": D.float16, "xpu": D.float16, "maia": D.bfloat16,
    "xla": D.bfloat16, "mps": D.float16, "hpu": D.bfloat16, "mtia": D.float16,
    "privateuseone": D.float16,
}  # fmt: skip
# Valid device type names that have no autocast (PyTorch's device-string parser knows them).
OTHER_DEVICE_TYPES = (
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "lazy",
    "vulkan",
    "meta",
)


class _State(threading.local):
    """Per-thread autocast state; ``on`` is the one flag every listed op reads."""

    def __init__(self) -> None:
        self.on = False  # some device type has autocast enabled in this thread
        self.enabled: dict = {}
        self.dtype = dict(DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0


state = _State()
_cache: dict = {}  # id(float32 leaf) -> (leaf, its lower-precision cast); cleared at the outermost exit
_cache_lock = threading.Lock()


def set_enabled(device_type: str, enabled: bool) -> None:
    state.enabled[device_type] = enabled
    state.on = any(state.enabled.values())


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


# ---- the policy wrapper ---------------------------------------------------------------------------
def cast_policy(policy: str, devices: tuple = ("cpu", "cuda")):
    """Decorate an op so that, under autocast on one of ``devices``, its inputs are cast by
    ``policy`` first. ``devices`` lists the device types whose PyTorch op list holds the op."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not state.on or kwargs.get("out") is not None:
                return fn(*args, **kwargs)
            return _run(fn, policy, devices, args, kwargs)

        wrapper.__wrapped_autocast__ = policy
        return wrapper

    return decorate


def applies(devices: tuple, *tensors) -> bool:
    """The inline form of :func:`cast_policy`, for ops that warn at a fixed stack level (a wrapper
    frame would make their warnings point into this file): whether autocast casts an op on
    ``devices`` called with these tensors. Use as
    ``if autocast.state.on and autocast.applies(devices, x): return autocast.run(op, policy, args, kwargs)``.
    """
    dt = _device_type_of(tensors, {})
    return dt is not None and dt in devices and bool(state.enabled.get(dt))


def run(fn, policy: str, args: tuple, kwargs: dict):
    """Cast ``args``/``kwargs`` by ``policy`` and call ``fn`` with autocast off (after :func:`applies`)."""
    return _cast_and_call(fn, policy, _device_type_of(args, kwargs), args, kwargs)


def _run(fn, policy, devices, args, kwargs):
    device_type = _device_type_of(args, kwargs)
    if device_type is None or device_type not in devices or not state.enabled.get(device_type):
        return fn(*args, **kwargs)
    return _cast_and_call(fn, policy, device_type, args, kwargs)


def _cast_and_call(fn, policy, device_type, args, kwargs):
    lower = state.dtype[device_type]
    if policy == BANNED:
        raise RuntimeError(_BCE_BANNED)
    if policy == FP32_OPT_DTYPE:
        if kwargs.get("dtype") is None and args and _eligible(args[0], device_type):
            kwargs = {**kwargs, "dtype": D.float32}
        return _without_autocast(fn, args, kwargs)
    if policy == LOWER:
        to = lower
    elif policy == FP32:
        to = D.float32
    else:
        to = _widest(args, kwargs, device_type, lower)
    args = tuple([_cast(a, to, device_type, lower) for a in args])
    kwargs = {k: _cast(v, to, device_type, lower) for k, v in kwargs.items()}
    return _without_autocast(fn, args, kwargs)


def _without_autocast(fn, args, kwargs):
    state.on = False
    try:
        return fn(*args, **kwargs)
    finally:
        state.on = any(state.enabled.values())


def _tensors(args, kwargs):
    from ._tensor.core import Tensor

    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, Tensor))


def _device_type_of(args, kwargs):
    for t in _tensors(args, kwargs):
        return t._device.type
    return None


def _eligible(t, device_type: str) -> bool:
    from ._tensor.core import Tensor

    return (
        isinstance(t, Tensor)
        and t._device.type == device_type
        and t._dtype.category == D.FLOAT
        and t._dtype is not D.float64
    )


def _widest(args, kwargs, device_type, lower):
    """PyTorch's promote rule: float32 if any eligible input is float32, else the lower dtype."""
    for t in _tensors(args, kwargs):
        if _eligible(t, device_type) and t._dtype is D.float32:
            return D.float32
    return lower


def _cast(a, to, device_type, lower):
    if isinstance(a, (list, tuple)):
        return type(a)(_cast(t, to, device_type, lower) for t in a)
    if not _eligible(a, device_type) or a._dtype is to:
        return a
    if (
        to is lower
        and a._dtype is D.float32
        and a._rg
        and a.grad_fn is None
        and a._base is None
        and state.cache_enabled
    ):
        with _cache_lock:
            hit = _cache.get(id(a))
            if hit is None or hit[0] is not a:
                hit = _cache[id(a)] = (a, a.to(to))
        return hit[1]
    return a.to(to)
