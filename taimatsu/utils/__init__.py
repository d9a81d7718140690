"""``torch.utils``."""

from . import _pytree, checkpoint, data  # noqa: F401
