"""Helpers the sparse tests share: run an expression with taimatsu and with PyTorch, and read
an expression's exception as (type name, message)."""

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


def both(fn):
    """``fn(lib)`` run with taimatsu and with PyTorch."""
    return fn(tm), fn(torch)


def error(fn):
    """``(type name, message)`` of what ``fn()`` raises, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None
