"""PyTorch's argument-parser type checks: the TypeErrors its C++ bindings raise before an op runs.

taimatsu's ops check values; a wrongly typed argument (a float kernel size, a bool stride) would
otherwise be read as a number and answered, or refused later with a value error. Each check
here raises the parser's TypeError with its text: ``fn(): argument 'name' (position n) must be
tuple of ints, not float``.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor.core import Tensor


def _is_int(v) -> bool:
    # a tensor passes as PyTorch's parser takes it: 0-d, of an integer type
    if isinstance(v, Tensor):
        return v._data.ndim == 0 and v._dtype.category == D.INT
    return isinstance(v, (int, np.integer))


def _where(name: str, pos: int | None) -> str:
    return f"argument '{name}'" + (f" (position {pos})" if pos else "")


def _list_element(v) -> bool:
    """An element of an int list as PyTorch's parser reads it, through ``__index__``: an int or
    NumPy integer, or an integer or bool tensor of one element, of any dims."""
    if isinstance(v, Tensor):
        return one_integer(v)
    return isinstance(v, (int, np.integer))


def _plain(value):
    """An int-list argument with its one-element tensors read as ints."""
    if isinstance(value, Tensor):
        return int(value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(int(v) if isinstance(v, Tensor) else v for v in value)
    return value


def int_list(fn: str, name: str, pos: int | None, value, optional: bool = False, one=True):
    """An IntArrayRef argument: a sequence of ints, or (``one``) a single int, never a bool;
    ``None`` only where the argument is optional. As PyTorch's parser does, the first element
    decides whether a sequence matches at all (a bool there is refused); the others are then
    unpacked (a bool passes as an int, a float fails). An integer (or bool) tensor of one
    element, of any dims, passes as an int, alone or as an element. Returns the value with
    such tensors read as ints."""
    if value is None and optional:
        return value
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if i == 0 and (isinstance(v, bool) or not _list_element(v)):
                raise TypeError(
                    f"{fn}(): {_where(name, pos)} must be tuple of ints, but found element of type "
                    f"{type(v).__name__} at pos 0"
                )
            if not _list_element(v):
                raise TypeError(
                    f"{fn}(): argument '{name}' failed to unpack the object at pos {i + 1} with error "
                    f'"type must be tuple of ints,but got {type(v).__name__}"'
                )
        return _plain(value)
    if not one or isinstance(value, bool) or not _list_element(value):
        raise TypeError(
            f"{fn}(): {_where(name, pos)} must be tuple of ints, not {type(value).__name__}"
        )
    return _plain(value)


def integer(fn: str, name: str, pos: int | None, value) -> None:
    """An int argument (a dim, a count): an int, a NumPy integer or a tensor, never a bool."""
    if isinstance(value, bool) or not _is_int(value):
        raise TypeError(f"{fn}(): {_where(name, pos)} must be int, not {type(value).__name__}")


def one_integer(value, any_dims: bool = True) -> bool:
    """Whether ``value`` is an integer (or bool) tensor of one element, which PyTorch's parser
    reads as an int through ``__index__`` (``any_dims=False``: 0-d only)."""
    return (
        isinstance(value, Tensor) and value._data.size == 1
        and (any_dims or value._data.ndim == 0)
        and value._dtype.category not in (D.FLOAT, D.COMPLEX)
    )  # fmt: skip


def as_int(fn: str, name: str, pos: int | None, value, any_dims: bool = True) -> int:
    """``value`` of an int argument as a Python int, with the parser's TypeError otherwise: an
    int or NumPy integer (never a bool), or an integer (or bool) tensor of one element, which
    PyTorch's parser reads through ``__index__``: of any dims for most ops, 0-d only for others
    (``any_dims=False``: PyTorch refuses ``torch.tensor([2])`` there). A float tensor, or one
    of several elements, is refused."""
    if type(value) is int:
        return value
    if one_integer(value, any_dims) or (
        isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    ):
        return int(value)
    raise TypeError(f"{fn}(): {_where(name, pos)} must be int, not {type(value).__name__}")


def int_or_ints(fn: str, name: str, pos: int | None, value) -> tuple:
    """An int[] argument that also takes a single int, as a tuple of ints (an integer tensor of
    one element reads as its int); ``int_list``'s TypeError otherwise."""
    value = int_list(fn, name, pos, value)
    if isinstance(value, (list, tuple)):
        return tuple(int(v) for v in value)
    return (int(value),)


def _int_array(value, strings: bool = False) -> bool:
    if strings and isinstance(value, str):
        return True
    if isinstance(value, (list, tuple)):
        return all(map(_list_element, value)) and not (value and isinstance(value[0], bool))
    return _list_element(value) and not isinstance(value, bool)


def conv_args(fn: str, input, weight, bias, stride, padding, dilation, groups) -> tuple:
    """conv{1,2,3}d's parser: tensors for input and weight (bias a tensor or None),
    stride/padding/dilation ints or sequences of ints (padding also a string), groups an int;
    otherwise no overload matches (PyTorch's invalid-combination text). Returns stride,
    padding and dilation with their one-element tensors read as ints."""
    if (
        isinstance(input, Tensor) and isinstance(weight, Tensor)
        and (bias is None or isinstance(bias, Tensor))
        and _int_array(stride) and _int_array(padding, strings=True) and _int_array(dilation)
        and _is_int(groups) and not isinstance(groups, bool)
    ):  # fmt: skip
        return _plain(stride), _plain(padding), _plain(dilation)
    got = ", ".join(
        type(v).__name__ for v in (input, weight, bias, stride, padding, dilation, groups)
    )
    raise TypeError(
        f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints "
        "padding = 0, tuple of ints dilation = 1, int groups = 1)\n"
        " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "
        '"valid", tuple of ints dilation = 1, int groups = 1)\n'
    )


def split_size(value) -> None:
    """Tensor.split sends anything but an int (or an integer tensor of one element) to
    split_with_sizes, whose parser wants a sequence of ints."""
    if not one_integer(value):
        int_list("split_with_sizes", "split_sizes", 2, value, one=False)


def python_int_range(value) -> None:
    """PyTorch's Scalar from a Python int: int64 or uint64 only (its OverflowErrors otherwise)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value >= 1 << 64:
            raise OverflowError("int too big to convert")
        if value < -(1 << 63):
            raise OverflowError("can't convert negative int to unsigned")


def boolean(fn: str, name: str, pos: int | None, value) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}(): {_where(name, pos)} must be bool, not {type(value).__name__}")


def pool_args(fn: str, kernel_size, stride, padding, dilation=1, ceil_mode=False) -> tuple:
    """The parser checks of max/avg_pool{1,2,3}d's leading arguments, in their order; returns
    (kernel_size, stride, padding, dilation) with one-element tensors read as ints."""
    kernel_size = int_list(fn, "kernel_size", 2, kernel_size)
    stride = int_list(fn, "stride", 3, stride, optional=True)
    padding = int_list(fn, "padding", 4, padding)
    if fn.startswith("max"):
        dilation = int_list(fn, "dilation", 5, dilation)
        boolean(fn, "ceil_mode", 6, ceil_mode)
    else:
        boolean(fn, "ceil_mode", 5, ceil_mode)
    return kernel_size, stride, padding, dilation


def avg_pool_args(
    fn: str, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None
):
    """avg_pool{1,2,3}d's parser checks (avg_pool1d has no divisor_override; PyTorch names
    its position only when it is passed by position, which a Python function cannot tell: the
    keyword form's text, the usual spelling). Returns (kernel_size, stride, padding) with
    one-element tensors read as ints."""
    kernel_size, stride, padding, _ = pool_args(
        fn, kernel_size, stride, padding, ceil_mode=ceil_mode
    )
    boolean(fn, "count_include_pad", 6, count_include_pad)
    if divisor_override is not None and (
        isinstance(divisor_override, bool) or not _is_int(divisor_override)
    ):
        raise TypeError(
            f"{fn}(): argument 'divisor_override' must be int, not {type(divisor_override).__name__}"
        )
    return kernel_size, stride, padding
