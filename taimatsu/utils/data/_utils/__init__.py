"""Helpers behind the DataLoader (``torch.utils.data._utils``)."""

from . import collate  # noqa: F401
