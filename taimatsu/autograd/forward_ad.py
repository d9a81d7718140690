"""Forward-mode AD: ``dual_level``, ``make_dual``, ``unpack_dual``.

A dual tensor is an ordinary Tensor whose ``_fw`` slot holds its tangent. Ops compute the
output tangent from their JVP only while a dual level is active and an input has a tangent.
One level at a time, as in PyTorch.
"""

from __future__ import annotations

from collections import namedtuple


class _State:
    level = 0  # number of active dual levels (0 or 1)
    duals: list = []  # tensors carrying tangents, cleared when the level exits


state = _State()

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level() -> int:
    if state.level:
        raise RuntimeError(
            "Nested forward mode AD is not supported at the moment"
        )
    state.level = 1
    state.duals = []
    return 0


def exit_dual_level(*, level=None) -> None:
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


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` whose tangent is ``tangent`` (same shape required)."""
    import weakref

    if not state.level:
        raise RuntimeError(
            "To create a dual Tensor, you must first enter a dual level with "
            "`with torch.autograd.forward_ad.dual_level():`"
        )
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            f"Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
            f"forward gradient is of size {list(tangent.shape)}."
        )
    from ..ops.shape import alias

    dual = alias(tensor)
    dual._fw = tangent if tangent.dtype is tensor.dtype else tangent.to(tensor.dtype)
    state.duals.append(weakref.ref(dual))
    return dual


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    if tensor._fw is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(tensor.detach() if not tensor._rg else tensor.view_as(tensor), tensor._fw)


def _register(t) -> None:
    """Remember a tensor that got a tangent, so exiting the level can clear it."""
    import weakref

    state.duals.append(weakref.ref(t))
