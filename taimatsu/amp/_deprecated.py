"""The per-device spellings PyTorch deprecated (``torch.cpu.amp.autocast``,
``torch.cuda.amp.GradScaler``, ...): subclasses that warn PyTorch's FutureWarning and fix the
device argument."""

from __future__ import annotations

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


class CPUAutocast(_autocast):
    """``torch.cpu.amp.autocast``: ``torch.autocast("cpu", ...)`` with a FutureWarning."""

    def __init__(
        self, enabled: bool = True, dtype: D.dtype = D.bfloat16, cache_enabled: bool = True
    ) -> None:
        _warn("autocast", "autocast", "cpu")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CUDAAutocast(_autocast):
    """``torch.cuda.amp.autocast``: ``torch.autocast("cuda", ...)`` with a FutureWarning."""

    def __init__(
        self, enabled: bool = True, dtype: D.dtype = D.float16, cache_enabled: bool = True
    ) -> None:
        _warn("autocast", "autocast", "cuda")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CPUGradScaler(_GradScaler):
    """``torch.cpu.amp.GradScaler``: ``torch.amp.GradScaler("cpu", ...)`` with a FutureWarning."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _warn("GradScaler", "GradScaler", "cpu")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class CUDAGradScaler(_GradScaler):
    """``torch.cuda.amp.GradScaler``: ``torch.amp.GradScaler("cuda", ...)`` with a FutureWarning
    (and PyTorch's "CUDA is not available" warning and disabling without a GPU)."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _warn("GradScaler", "GradScaler", "cuda")
        super().__init__(
            "cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )


def cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.cuda.amp.custom_fwd``: ``torch.amp.custom_fwd(..., device_type="cuda")``, warning."""
    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. "
        "Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd):
    """``torch.cuda.amp.custom_bwd``: ``torch.amp.custom_bwd(..., device_type="cuda")``, warning."""
    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. "
        "Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return custom_bwd(bwd, device_type="cuda")
