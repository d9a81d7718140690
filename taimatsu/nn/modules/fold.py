"""PyTorch's path ``torch.nn.modules.fold``: ``Fold`` and ``Unfold`` live in ``misc_layers.py``."""

from .misc_layers import Fold, Unfold

__all__ = ["Fold", "Unfold"]
