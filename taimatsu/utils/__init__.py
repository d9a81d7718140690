"""``torch.utils``."""

from . import checkpoint, data  # noqa: F401
