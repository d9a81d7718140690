"""``torch.Size``: a tuple of ints with PyTorch's repr."""

from __future__ import annotations


class Size(tuple):
    __module__ = "taimatsu"  # <class 'taimatsu.Size'>, as PyTorch's <class 'torch.Size'>
    _tp_name = "torch.Size"  # the name PyTorch's messages give its C type (type_name)
    __slots__ = ()

    def __new__(cls, sizes=()):
        t = tuple.__new__(cls, sizes)
        for s in t:
            if s.__class__ is not int:
                return _checked(cls, t)
        return t

    @classmethod
    def _of(cls, shape) -> Size:
        """A Size of an array's shape (ints already): without the constructor's checks."""
        return tuple.__new__(cls, shape)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):  # PyTorch's text (Python's names the class 'Size')
            raise TypeError(
                f"can only concatenate tuple (not {type(other).__name__}) to torch.Size"
            )
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


def _checked(cls, sizes: tuple) -> Size:
    """PyTorch's items for ``torch.Size``: bools become ints, an integer tensor its value,
    other integer types (NumPy's) are kept; anything else is PyTorch's TypeError."""
    items = []
    for i, s in enumerate(sizes):
        if isinstance(s, bool):
            s = int(s)
        elif not isinstance(s, int):
            from ._tensor.core import Tensor

            if isinstance(s, Tensor) and not s.is_floating_point() and not s.is_complex():
                s = s.__index__()
            elif isinstance(s, Tensor) or not hasattr(type(s), "__index__"):
                raise TypeError(
                    f"torch.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')"
                )
        items.append(s)
    return tuple.__new__(cls, items)
