"""PyTorch's path ``torch.nn.modules.distance``: the classes live in ``pixelshuffle.py``."""

from .pixelshuffle import CosineSimilarity, PairwiseDistance

__all__ = ["CosineSimilarity", "PairwiseDistance"]
