"""``torch._dynamo``: the pieces training scripts touch (``reset``, ``config``, ``disable``,
``list_backends``, ``OptimizedModule``). ``torch.compile`` runs string backends
eagerly and hands callable backends an FX graph; see ``taimatsu.compiler``."""

from __future__ import annotations

from . import config, exc
from .backends import list_backends
from .eval_frame import OptimizedModule, disable, is_compiling

__all__ = ["OptimizedModule", "config", "disable", "exc", "is_compiling", "list_backends", "reset"]


def reset() -> None:
    """Drop the compiled-code caches: the next call of a function compiled with a callable backend
    calls the backend again, as in PyTorch."""
    from ..compiler import _LIVE_CALLERS

    for caller in _LIVE_CALLERS:
        caller.cache.clear()
