"""Process-wide switches PyTorch keeps in its global context: deterministic algorithms, the
float32 matmul precision, warn-always, the default device and tensor type, flush-denormal.

taimatsu's kernels are NumPy's, which are deterministic and always compute float32 matmuls in
full float32 precision, so the deterministic and precision settings are recorded and reported
exactly as PyTorch reports them but change no result. ``set_flush_denormal`` switches the CPU's
flush-to-zero mode (``backend/denormals.py``).
"""

from __future__ import annotations

import os
import sys
import warnings

from . import _device
from . import _dtype as D

_state = {
    "deterministic": False,
    "warn_only": False,
    "matmul_precision": "highest",
    "warn_always": False,
}
_warned_once: set = set()


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` for a ``warnings.warn`` in the calling function that names the first
    frame outside taimatsu: PyTorch's C++ warnings point at the user's line, however many of
    taimatsu's Python frames (Tensor methods, wrappers) lie between."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    return level


def warn_once(key: str, message: str, stacklevel: int | None = None) -> None:
    """PyTorch's TORCH_WARN_ONCE: once per process, or every time under ``set_warn_always(True)``;
    at the user's line unless ``stacklevel`` (counted from here) says otherwise."""
    if _state["warn_always"] or key not in _warned_once:
        _warned_once.add(key)
        level = user_stacklevel() if stacklevel is None else stacklevel
        warnings.warn(message, UserWarning, stacklevel=level)


# ---- deterministic algorithms ------------------------------------------------------------------------
def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    for arg, value in (("mode' (position 1)", mode), ("warn_only'", warn_only)):
        if not isinstance(value, bool):
            raise TypeError(
                f"_set_deterministic_algorithms(): argument '{arg} must be bool, not {type(value).__name__}"
            )
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """0 / "default": off; 1 / "warn": on, warn only; 2 / "error": on."""
    if isinstance(debug_mode, str):
        names = ("default", "warn", "error")
        if debug_mode not in names:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = names.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


# ---- float32 matmul precision --------------------------------------------------------------------------
def set_float32_matmul_precision(precision: str) -> None:
    if not isinstance(precision, str):
        msg = f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        raise RuntimeError(msg)  # noqa: TRY004 (PyTorch's type)
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)",
            UserWarning,
            stacklevel=2,
        )
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _state["matmul_precision"]


# ---- warn always ----------------------------------------------------------------------------------------
def set_warn_always(b: bool) -> None:
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")  # noqa: TRY004 (PyTorch's type)
    _state["warn_always"] = b


def is_warn_always_enabled() -> bool:
    return _state["warn_always"]


# ---- flush denormal -------------------------------------------------------------------------------------
def set_flush_denormal(mode: bool) -> bool:
    """Flush denormal floats to zero (x86-64: the CPU's FTZ and DAZ modes) in the calling thread,
    and in threads it starts later; threads already running (NumPy's BLAS, taimatsu's helpers)
    keep denormals. Returns whether the mode could be set (False off x86-64/glibc)."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")  # noqa: TRY004 (PyTorch's type)
    from .backend.denormals import set_flush_denormal as _set  # ctypes: loaded on first use

    return _set(mode)


# ---- default device and tensor type --------------------------------------------------------------------
def set_default_device(device) -> None:
    """Factory functions without ``device=`` allocate on ``device`` (None: back to the CPU)."""
    if device is None:
        _device._default_device[0] = None
        return
    if isinstance(device, int) and not isinstance(device, bool):
        # an index means the current accelerator: PyTorch's error on a machine without one
        raise RuntimeError("Cannot access accelerator device when none is available.")  # noqa: TRY004
    d = _device.as_device(device if isinstance(device, _device.device) else _device.device(device))
    _device._default_device[0] = None if d.type == "cpu" else d


def get_default_device():
    return _device.as_device(None)


def set_default_tensor_type(t, /) -> None:
    """Deprecated in PyTorch 2.1 (warns once): sets the default dtype from a legacy tensor type."""
    warn_once(
        "set_default_tensor_type",
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
        "and torch.set_default_device() as alternatives. (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)",
    )
    from ._tensor import legacy_types as _legacy

    device_type = "cpu"
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "torch.cuda"):
            raise ModuleNotFoundError(f"No module named '{module or t}'")
        device_type = "cuda" if module == "torch.cuda" else "cpu"
        dt = getattr(_legacy, name, None)._legacy_dtype if hasattr(_legacy, name) else None
    elif isinstance(t, _legacy._LegacyMeta):
        dt, device_type = t._legacy_dtype, t._device_type
    else:
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if dt not in (D.float32, D.float64, D.float16, D.bfloat16):
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(dt)
    if device_type == "cuda":
        set_default_device("cuda")


# ---- anomaly mode -----------------------------------------------------------------------------------------
def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """The switch behind ``autograd.set_detect_anomaly``, without its context manager."""
    from .autograd.anomaly_mode import state

    for arg, value, pos in (("enabled", enabled, 1), ("check_nan", check_nan, 2)):
        if not isinstance(value, bool):
            raise TypeError(
                f"set_anomaly_enabled(): argument '{arg}' (position {pos}) must be bool, not {type(value).__name__}"
            )
    state.enabled, state.check_nan = enabled, check_nan
