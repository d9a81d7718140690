"""The per-device spellings PyTorch deprecated (``torch.cpu.amp.autocast``,
``torch.cuda.amp.GradScaler``, ...): subclasses that warn PyTorch's FutureWarning and fix the
device argument."""

from __future__ import annotations

import inspect
import warnings

from .. import _dtype as D
from .autocast_mode import autocast as _autocast
from .autocast_mode import custom_bwd, custom_fwd
from .grad_scaler import GradScaler as _GradScaler


def _warn(old: str, new: str, device: str) -> None:
    warnings.warn(
        f"`torch.{device}.amp.{old}(args...)` is deprecated. "
        f"Please use `torch.amp.{new}('{device}', args...)` instead.",
        FutureWarning,
        stacklevel=3,
    )


def _autocast_for(device: str, default_dtype: D.dtype, name: str) -> type:
    """``torch.<device>.amp.autocast``: ``torch.autocast(device, ...)`` with a FutureWarning."""

    class DeviceAutocast(_autocast):
        def __init__(
            self, enabled: bool = True, dtype: D.dtype = default_dtype, cache_enabled: bool = True
        ) -> None:
            _warn("autocast", "autocast", device)
            super().__init__(device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    DeviceAutocast.__name__ = DeviceAutocast.__qualname__ = name
    DeviceAutocast.__doc__ = f"``torch.{device}.amp.autocast``: ``torch.autocast({device!r}, ...)`` with a FutureWarning."
    return DeviceAutocast


# torch.amp.GradScaler's parameters without ``device``, which the deprecated spelling fixes
_SCALER_SIGNATURE = inspect.signature(_GradScaler.__init__).replace(
    parameters=[
        p for p in inspect.signature(_GradScaler.__init__).parameters.values() if p.name != "device"
    ]
)


def _grad_scaler_for(device: str, name: str) -> type:
    """``torch.<device>.amp.GradScaler``: ``torch.amp.GradScaler(device, ...)`` with a FutureWarning
    (for CUDA also PyTorch's "CUDA is not available" warning and disabling without a GPU)."""

    class DeviceGradScaler(_GradScaler):
        def __init__(self, *args, **kwargs) -> None:
            _warn("GradScaler", "GradScaler", device)
            try:
                bound = _SCALER_SIGNATURE.bind(self, *args, **kwargs)
            except TypeError as e:  # as Python words it for PyTorch's explicit parameters
                raise TypeError(f"GradScaler.__init__() {e}") from None
            super().__init__(device, *bound.args[1:], **bound.kwargs)

        __init__.__signature__ = _SCALER_SIGNATURE

    DeviceGradScaler.__name__ = DeviceGradScaler.__qualname__ = name
    DeviceGradScaler.__doc__ = f"``torch.{device}.amp.GradScaler``, with a FutureWarning."
    return DeviceGradScaler


CPUAutocast = _autocast_for("cpu", D.bfloat16, "CPUAutocast")
CUDAAutocast = _autocast_for("cuda", D.float16, "CUDAAutocast")
CPUGradScaler = _grad_scaler_for("cpu", "CPUGradScaler")
CUDAGradScaler = _grad_scaler_for("cuda", "CUDAGradScaler")


def _warn_cuda_custom(kind: str) -> None:
    warnings.warn(
        f"`torch.cuda.amp.custom_{kind}(args...)` is deprecated. "
        f"Please use `torch.amp.custom_{kind}(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=3,
    )


def cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.cuda.amp.custom_fwd``: ``torch.amp.custom_fwd(..., device_type="cuda")``, warning."""
    _warn_cuda_custom("fwd")
    return custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd):
    """``torch.cuda.amp.custom_bwd``: ``torch.amp.custom_bwd(..., device_type="cuda")``, warning."""
    _warn_cuda_custom("bwd")
    return custom_bwd(bwd, device_type="cuda")
