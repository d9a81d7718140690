"""``torch.amp``: automatic mixed precision (autocast regions and gradient scaling)."""

from __future__ import annotations

from . import autocast_mode, grad_scaler  # noqa: F401  (torch.amp.autocast_mode, ...)
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
