"""``torch.testing``: ``assert_close`` (and the deprecated ``assert_allclose``) with PyTorch's
tolerances and messages, and ``make_tensor`` (PyTorch's draws). ``FileCheck`` is not provided."""

from __future__ import annotations

from .comparison import assert_allclose, assert_close
from .creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
