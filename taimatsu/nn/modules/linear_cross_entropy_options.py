"""PyTorch's path ``torch.nn.modules.linear_cross_entropy_options``: the options class lives with
the functional it configures, in ``nn/_functional/linear_ce.py``."""

from .._functional.linear_ce import LinearCrossEntropyOptions

__all__ = ["LinearCrossEntropyOptions"]
