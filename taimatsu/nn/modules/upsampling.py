"""PyTorch's path ``torch.nn.modules.upsampling``: the classes live in ``pixelshuffle.py``."""

from .pixelshuffle import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
