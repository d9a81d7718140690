"""The ``torch.sym_*`` helpers on plain numbers and the eager forms of ``torch.cond`` /
``torch.while_loop``: what code written for ``torch.compile`` calls, run eagerly."""

from __future__ import annotations

from .._tensor.core import Tensor


def sym_int(a) -> int:
    return int(a)


def sym_float(a) -> float:
    return float(a)


def sym_max(a, b):
    r = max(a, b)
    return float(r) if isinstance(a, float) or isinstance(b, float) else r


def sym_min(a, b):
    r = min(a, b)
    return float(r) if isinstance(a, float) or isinstance(b, float) else r


def sym_not(a) -> bool:
    return not a


def sym_sqrt(a) -> float:
    import math

    return math.sqrt(a)


def sym_ite(b, t, f):
    return t if b else f


def sym_sum(args):
    return sum(args)


# ---- control flow: eager forms of torch.cond / torch.while_loop ----------------------------------------------
def _truth(pred) -> bool:
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(
                f"Expected pred to be bool or single-element tensor, but got {pred!r}."
            )
        return bool(pred.item())
    return bool(pred)


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)`` (run eagerly: one branch)."""
    return (true_fn if _truth(pred) else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Apply ``body_fn`` to the carried values while ``cond_fn`` holds; returns them as a tuple."""
    carried = tuple(carried_inputs)
    while _truth(cond_fn(*carried)):
        carried = tuple(body_fn(*carried))
    return carried
