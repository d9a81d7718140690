"""``torch.cuda.amp``: PyTorch's deprecated CUDA spellings of ``torch.amp``."""

from __future__ import annotations

from ...amp._deprecated import CUDAAutocast as autocast
from ...amp._deprecated import CUDAGradScaler as GradScaler
from ...amp._deprecated import cuda_custom_bwd as custom_bwd
from ...amp._deprecated import cuda_custom_fwd as custom_fwd

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]
