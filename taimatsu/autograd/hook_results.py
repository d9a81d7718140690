"""What a backward hook may return, checked as PyTorch's engine checks it.

A tensor hook (``Tensor.register_hook``) returns None or a tensor; a node's hook
(``grad_fn.register_hook``) or pre-hook (``register_prehook``) returns None or a tuple of as
many values as it was given. Each returned tensor must keep the type (dtype, device type,
layout) and the size of the gradient it replaces; a None gradient cannot be replaced. The
errors name the hook by its ``__name__`` (``'<lambda>'``; ``'<unknown>'`` for an object
without one), as PyTorch's messages do.
"""

from __future__ import annotations


def hook_name(hook) -> str:
    return getattr(hook, "__name__", "<unknown>")


def _type_name(t) -> str:
    try:
        return t.type()
    except RuntimeError:  # a layout without a legacy type name (CSR)
        return f"{t.layout}({t.dtype})"


def checked_tensor(name: str, original, result):
    """``result`` of the hook called ``name`` in place of the gradient ``original``, after
    PyTorch's checks."""
    if result is None:
        return None
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    from .._tensor.core import Tensor  # (the engine, which imports this, loads before Tensor)

    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    was, got = _type_name(original), _type_name(result)
    if was != got:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {was} got {got})")
    if result._data.shape != original._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return result


def checked_tuple(name: str, originals, result) -> tuple:
    """The ``result`` of a node's hook or pre-hook called ``name`` in place of the gradients
    ``originals``."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(originals)})"
        )
    return tuple(checked_tensor(name, o, r) for o, r in zip(originals, result))
