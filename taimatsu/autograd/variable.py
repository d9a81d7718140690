"""``torch.autograd.Variable``: a deprecated alias that returns plain Tensors."""

from __future__ import annotations


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from .._tensor.core import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(t, requires_grad=...)`` returns ``t.detach()`` with ``requires_grad`` set, as in
    PyTorch >= 0.4: a new leaf sharing ``t``'s memory and version counter; ``t`` is left alone."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from .._tensor.core import Tensor

        if data is None:
            from ..ops.creation.factories import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            import warnings

            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                stacklevel=2,
            )
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            # the legacy constructor words this with a capital O (requires_grad_ does not)
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        return data.detach().requires_grad_(requires_grad)
