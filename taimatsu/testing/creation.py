"""``torch.testing.make_tensor``: a tensor of random values for tests, drawn from the global
generator as PyTorch's draws them (the same values after the same seed, and the same stream
afterwards).

What PyTorch's function does, and so this one:

- bool: ``randint(low, high)`` in [0, 2); integer types: ``randint`` on [low, high) (default
  [-9, 10), clamped to the type's range, the bounds rounded up); floating and complex types:
  ``uniform_(low, high)`` on an ``empty`` tensor (default [-9, 9]; a complex one through its
  real view; halved and doubled again when ``high - low`` overflows the type);
- ``noncontiguous``: drawn twice as long along the last dim, every second element kept;
  ``memory_format``: the drawn tensor cloned into that format;
- ``exclude_zero``: zeros replaced by 1 (integers) or the type's smallest normal number;
- errors (ValueError) for NaN bounds, ``low >= high``, bounds outside the type's range,
  ``requires_grad`` on a bool or integer type, ``noncontiguous`` with ``memory_format``.
"""

from __future__ import annotations

import math
import warnings

from .. import _dtype as D

_LOW_HIGH_EQUAL = (
    "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
    "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead."
)


def make_tensor(
    *shape, dtype, device, low=None, high=None, requires_grad: bool = False,
    noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None,
):  # fmt: skip
    from ..ops.creation.factories import empty
    from ..ops.creation.random import randint
    from ..ops.pointwise.complex import view_as_real

    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    integral = dtype is D.bool or dtype.category == D.INT
    if requires_grad and integral:
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            f"dtype={dtype}"
        )
    spread = noncontiguous and math.prod(shape) > 1
    drawn = (*shape[:-1], 2 * shape[-1]) if spread else shape
    if dtype is D.bool:
        low, high = _bounds(low, high, dtype, 0, 2, 0, 2)
        result = randint(low, high, drawn, device=device, dtype=dtype)
    elif integral:
        info = D.iinfo(dtype)
        low, high = _bounds(low, high, dtype, info.min, info.max + 1, -9, 10)
        result = randint(low, high, drawn, device=device, dtype=dtype)
    else:
        info = D.finfo(dtype)
        low, high = _bounds(low, high, dtype, info.min, info.max, -9, 9)
        result = empty(drawn, device=device, dtype=dtype)
        target = view_as_real(result) if dtype.category == D.COMPLEX else result
        if high - low >= info.max:  # uniform_ wants to - from within the type's range
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    if spread:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else D.finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result


def _bounds(low, high, dtype, lowest, highest, default_low, default_high):
    """PyTorch's checks and clamping of ``low`` and ``high`` (integer types: rounded up)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype.category >= D.FLOAT:
        warnings.warn(_LOW_HIGH_EQUAL, FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
            f"supports [{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype is D.bool or dtype.category == D.INT:
        return math.ceil(low), math.ceil(high)
    return low, high
