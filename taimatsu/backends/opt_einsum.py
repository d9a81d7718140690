"""``torch.backends.opt_einsum``: whether the ``opt_einsum`` package is importable, PyTorch's
``enabled`` (defaults to that) and ``strategy`` ("auto" when available, else None). taimatsu's
einsum contracts through NumPy either way, so the settings change no result."""

from __future__ import annotations

import importlib.util

__all__ = ["enabled", "get_opt_einsum", "is_available", "strategy"]


def is_available() -> bool:
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The ``opt_einsum`` module, or None when it is not installed."""
    if not is_available():
        return None
    import opt_einsum

    return opt_einsum


enabled = is_available()
strategy = "auto" if enabled else None
