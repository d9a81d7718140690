"""``torch.autocast`` / ``torch.amp.autocast`` and the ``torch.*autocast*`` state functions.

Matches PyTorch 2.x: a context manager and decorator that enables autocast for one device type
(``"cpu"`` defaults to bfloat16, ``"cuda"`` to float16), nests, restores the previous state on
exit and drops the weight-cast cache when the outermost region exits. Which ops cast, and to what,
is declared on the ops themselves (see ``taimatsu/_autocast.py``). CUDA autocast is disabled with
PyTorch's warning when no GPU is present; on the CPU only bfloat16 and float16 are accepted.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings

import numpy as np

from .. import _autocast as A
from .. import _dtype as D

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]


def _device_type(device_type: str, fn: str | None = None) -> str:
    """The autocast slot for a device string (``"cuda:0"`` -> ``"cuda"``), PyTorch's errors
    (``fn``: the function whose parser refuses a non-string, as PyTorch's does)."""
    if fn is not None and not isinstance(device_type, str):
        raise TypeError(
            f"{fn}(): argument 'device_type' (position 1) must be str, not {type(device_type).__name__}"
        )
    kind = device_type.split(":", 1)[0]
    if kind in A.DEFAULT_DTYPES:
        return kind
    if kind in A.OTHER_DEVICE_TYPES:
        raise RuntimeError(
            "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
        )
    names = (
        "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
        "vulkan, mps, meta, hpu, mtia, privateuseone"
    )
    raise RuntimeError(
        f"Expected one of {names} device type at start of device string: {device_type}"
    )


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast exists for ``device_type`` (PyTorch's list of autocast backends)."""
    try:
        _device_type(device_type)
    except RuntimeError:
        if device_type.split(":", 1)[0] in A.OTHER_DEVICE_TYPES:
            return False
        raise
    return True


# ---- the torch.* state functions ----------------------------------------------------------------------
def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """With no argument PyTorch answers for CUDA."""
    return A.state.enabled.get(_device_type(device_type, "is_autocast_enabled"), False)


def set_autocast_enabled(device_type, enabled=None) -> None:
    """``set_autocast_enabled(device_type, enabled)``, or the legacy ``set_autocast_enabled(enabled)``
    for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    if not isinstance(enabled, bool):
        raise TypeError(
            "set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
            f"{type(enabled).__name__}"
        )
    A.set_enabled(_device_type(device_type), enabled)


def get_autocast_dtype(device_type: str) -> D.dtype:
    return A.state.dtype[_device_type(device_type, "get_autocast_dtype")]


def set_autocast_dtype(device_type: str, dtype: D.dtype) -> None:
    A.state.dtype[_device_type(device_type)] = dtype


def is_autocast_cache_enabled() -> bool:
    return A.state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    A.state.cache_enabled = enabled


def clear_autocast_cache() -> None:
    A.clear_cache()


def autocast_increment_nesting() -> int:
    A.state.nesting += 1
    return A.state.nesting


def autocast_decrement_nesting() -> int:
    A.state.nesting -= 1
    return A.state.nesting


def _deprecated(old: str, new: str, line: int, fn):
    # PyTorch's C++ TORCH_WARN_DEPRECATION text for the per-device legacy accessors; ``old``
    # is the call as the text writes it, ``line`` the init.cpp line the text names.
    @functools.wraps(fn)
    def legacy(*args):
        warnings.warn(
            f"torch.{old} is deprecated. Please use torch.{new} instead. (Triggered internally "
            f"at /__w/pytorch/pytorch/torch/csrc/autograd/init.cpp:{line}.)",
            DeprecationWarning,
            stacklevel=2,
        )
        return fn(*args)

    legacy.__name__ = old.split("(")[0]
    return legacy


is_autocast_cpu_enabled = _deprecated(
    "is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')", 883,
    lambda: is_autocast_enabled("cpu"),
)  # fmt: skip
set_autocast_cpu_enabled = _deprecated(
    "set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)", 874,
    lambda enabled: set_autocast_enabled("cpu", enabled),
)  # fmt: skip
get_autocast_cpu_dtype = _deprecated(
    "get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')", 1016,
    lambda: get_autocast_dtype("cpu"),
)  # fmt: skip
set_autocast_cpu_dtype = _deprecated(
    "set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)", 967,
    lambda dtype: set_autocast_dtype("cpu", dtype),
)  # fmt: skip
get_autocast_gpu_dtype = _deprecated(
    "get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')", 1007,
    lambda: get_autocast_dtype("cuda"),
)  # fmt: skip
set_autocast_gpu_dtype = _deprecated(
    "set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)", 952,
    lambda dtype: set_autocast_dtype("cuda", dtype),
)  # fmt: skip


# ---- the context manager ------------------------------------------------------------------------------
class autocast:
    """``with torch.autocast("cpu"):`` / ``@torch.autocast("cuda")``: run listed ops in lower
    precision in this region (see the module docstring for what matches PyTorch)."""

    def __init__(
        self,
        device_type: str,
        dtype: D.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")  # noqa: TRY004 (PyTorch's type)
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'"
            )
        self._cache_enabled = (
            is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
        if enabled:
            enabled = self._check_supported()
        self._enabled = enabled

    def _check_supported(self) -> bool:
        if self.device == "cuda":
            from .. import cuda

            if not cuda.is_available():
                warnings.warn(
                    "CUDA is not available or torch_xla is imported. Disabling autocast.",
                    stacklevel=3,
                )
                return False
            if self.fast_dtype is D.bfloat16 and not cuda.is_bf16_supported():
                raise RuntimeError(
                    "Current CUDA Device does not support bfloat16. Please switch dtype to float16."
                )
            return True
        supported = (D.bfloat16, D.float16)
        if self.fast_dtype not in supported:
            name = self.device.upper()
            warnings.warn(
                f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                stacklevel=3,
            )
            return False
        return True

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        A.set_enabled(_device_type(self.device), bool(self._enabled))
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        A.state.cache_enabled = bool(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> bool:
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        A.set_enabled(_device_type(self.device), self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        A.state.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)"
            )

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorated


# ---- custom autograd functions ------------------------------------------------------------------------
def _cast(value, device_type: str, dtype: D.dtype):
    """Cast floating tensors on ``device_type`` (not float64) inside containers, as PyTorch's
    ``custom_fwd(cast_inputs=...)`` does; strings and NumPy arrays pass through."""
    from .._tensor.core import Tensor

    if isinstance(value, Tensor):
        ok = (
            value.is_floating_point()
            and value.device.type == device_type
            and value.dtype is not D.float64
        )
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {
            _cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()
        }
    if isinstance(value, collections.abc.Iterable):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs: D.dtype | None = None):
    """Decorate a custom Function's ``forward``: with ``cast_inputs``, inside an autocast region
    cast floating inputs to it and run ``forward`` with autocast off (PyTorch's behaviour)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")  # noqa: TRY004 (PyTorch's type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(
                *_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs)
            )

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate a custom Function's ``backward`` to run with the autocast state of its forward."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")  # noqa: TRY004 (PyTorch's type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
