"""Forward-mode AD: ``dual_level``, ``make_dual``, ``unpack_dual``.

A dual tensor is an ordinary Tensor whose ``_fw`` slot holds its tangent. Ops compute the
output tangent from their JVP only while a dual level is active and an input has a tangent.
A JVP formula is evaluated with ``on_primals`` (no tangents inside), so that a formula that
uses the dual input (``cos(x)`` for ``sin``) does not itself propagate tangents. One level at
a time, as in PyTorch; tangents are dropped when the level exits.
"""

from __future__ import annotations

import weakref
from collections import namedtuple


class _State:
    level = 0  # number of active dual levels (0 or 1)
    duals: list = []  # weak references to tensors that got a tangent, cleared at exit  # noqa: RUF012


state = _State()

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level() -> int:
    """Open the (only) forward-AD level; returns its index, 0."""
    if state.level:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.level = 1
    state.duals = []
    return 0


def exit_dual_level(*, level=None) -> None:
    """Close the level: every tangent created inside it is dropped."""
    if not state.level:
        raise RuntimeError("Dual level must be a positive number.")
    for ref in state.duals:
        t = ref()
        if t is not None:
            t._fw = None
    state.duals = []
    state.level = 0


class dual_level:
    """Context manager for a forward-AD level; tangents are dropped when it exits."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def on_primals(fn, *args):
    """Call ``fn(*args)`` with tangent propagation off: JVP formulas see only primal values."""
    prev = state.level
    state.level = 0
    try:
        return fn(*args)
    finally:
        state.level = prev


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` whose tangent is ``tangent`` (kept as is, same shape required)."""
    if not state.level:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if tensor._dtype.category < 2:
        raise RuntimeError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if tangent._dtype.category < 2:
        raise RuntimeError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
            f"forward gradient is of size {list(tangent.shape)}."
        )
    dual = on_primals(tensor.view_as, tensor)
    dual._fw = tangent
    _register(dual)
    return dual


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """``(primal, tangent)``: the primal is a view of ``tensor`` that carries no tangent."""
    if tensor._fw is None:
        return UnpackedDualTensor(tensor, None)
    from ..ops.shape.view_ops import alias

    return UnpackedDualTensor(on_primals(alias, tensor), tensor._fw)


def _register(t) -> None:
    """Remember a tensor that got a tangent, so exiting the level can clear it."""
    state.duals.append(weakref.ref(t))


__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]
