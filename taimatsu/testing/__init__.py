"""``torch.testing``: ``assert_close`` (and the deprecated ``assert_allclose``) with PyTorch's
tolerances and messages. ``make_tensor`` and ``FileCheck`` are not provided."""

from __future__ import annotations

from .comparison import assert_allclose, assert_close

__all__ = ["assert_allclose", "assert_close"]
