"""``torch.autograd.Variable``: a deprecated alias that returns plain Tensors."""

from __future__ import annotations


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from .._tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(t, requires_grad=...)`` returns ``t`` itself (as in PyTorch >= 0.4)."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from .._tensor import Tensor

        if data is None:
            from ..ops.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad:
            data.requires_grad_(True)
        return data
