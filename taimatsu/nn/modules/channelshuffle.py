"""PyTorch's path ``torch.nn.modules.channelshuffle``: ``ChannelShuffle`` lives in ``misc_layers.py``."""

from .misc_layers import ChannelShuffle

__all__ = ["ChannelShuffle"]
