"""``torch.optim.adamw`` (the class lives with Adam, which it specialises)."""

from .adam import AdamW

__all__ = ["AdamW"]
