"""``torch.cpu.amp``: PyTorch's deprecated CPU spellings of ``torch.amp``."""

from __future__ import annotations

from ...amp._deprecated import CPUAutocast as autocast
from ...amp._deprecated import CPUGradScaler as GradScaler

__all__ = ["GradScaler", "autocast"]
