"""PyTorch's path ``torch.nn.modules.instancenorm``: the eager classes live in ``batchnorm.py``
(they share its ``_NormBase``), the lazy ones in ``lazy.py``."""

from .batchnorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d

__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "_InstanceNorm",
]
