"""``torch.signal``: window functions for signal processing (``torch.signal.windows``)."""

from . import windows

__all__ = ["windows"]
