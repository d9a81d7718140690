"""Comparing and combining elementwise: maximum/minimum/fmax/fmin, comparisons, logical and
bitwise ops, equal/allclose/isclose. They are declared with ``binary`` (``binary.py``).
"""

from __future__ import annotations

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from .._dispatch import binary_operands, check_broadcast, scalar_name, xp_for
from .binary import _ga, _gb, _tensor_operands, binary, cast_first
from .common import _FLOAT, checks, no_complex, not_implemented
from .select import where


def _extremum_vjp(node, g, a_loses, b_loses):
    # PyTorch's rule: ties share g, a side gets g unless it compares as the loser, so a NaN
    # (which compares false) passes the whole gradient to both sides.
    a, b = node.saved()
    shared = where(a == b, g / 2, g)
    ga = shared.masked_fill(a_loses(a, b), 0) if _ga(node) else None
    gb = shared.masked_fill(b_loses(a, b), 0) if _gb(node) else None
    return ga, gb


def _max_vjp(node, g):
    return _extremum_vjp(node, g, lambda a, b: a < b, lambda a, b: a > b)


def _min_vjp(node, g):
    return _extremum_vjp(node, g, lambda a, b: a > b, lambda a, b: a < b)


def _fmax_pick_a(a, b):
    return (a >= b) | b.isnan()


def _fmin_pick_a(a, b):
    return (a <= b) | b.isnan()


def _fextremum_vjp(node, g, pick_a):
    # fmax/fmin: the whole gradient to the side the result came from (a on ties and NaN pairs)
    a, b = node.saved()
    take = pick_a(a, b)
    z = g.new_zeros(())
    return (g.where(take, z) if _ga(node) else None), (z.where(take, g) if _gb(node) else None)


def _fmax_vjp(node, g):
    return _fextremum_vjp(node, g, _fmax_pick_a)


def _fmin_vjp(node, g):
    return _fextremum_vjp(node, g, _fmin_pick_a)


def _blend_tangent(weight_a, ta, tb, out):
    # PyTorch's formula: tb + w * (ta - tb), with w = 1/2 where the operands tie.
    z = out.new_zeros(())
    ta = z if ta is None else ta
    tb = z if tb is None else tb
    return tb + weight_a * (ta - tb)


def _tie_weight(a, b, pick_a):
    return where(
        a == b, 0.5, pick_a.to(a.dtype if a._dtype.category >= _FLOAT else D.get_default_dtype())
    )


# NumPy returns the second operand of a tie (-0. vs 0.), PyTorch the first: hence (b, a)
maximum, _ = _tensor_operands(
    "maximum",
    *binary(
        "maximum",
        lambda xp, a, b: xp.maximum(b, a),
        _max_vjp,
        lambda a, b, o, ta, tb: _blend_tangent(_tie_weight(a, b, a > b), ta, tb, o),
        check=checks(
            no_complex("maximum not implemented for complex tensors.", RuntimeError),
            not_implemented("maximum_cpu", D.SHELL_UINT),
        ),
    ),
)
minimum, _ = _tensor_operands(
    "minimum",
    *binary(
        "minimum",
        lambda xp, a, b: xp.minimum(b, a),
        _min_vjp,
        lambda a, b, o, ta, tb: _blend_tangent(_tie_weight(a, b, a < b), ta, tb, o),
        check=checks(
            no_complex("minimum not implemented for complex tensors.", RuntimeError),
            not_implemented("minimum_cpu", D.SHELL_UINT),
        ),
    ),
)
fmax, _ = _tensor_operands(
    "fmax",
    *binary(
        "fmax",
        lambda xp, a, b: xp.fmax(a, b),
        _fmax_vjp,
        lambda a, b, o, ta, tb: _blend_tangent(_fmax_pick_a(a, b), ta, tb, o),
        check=no_complex("fmax not implemented for complex tensors.", RuntimeError),
    ),
)
fmin, _ = _tensor_operands(
    "fmin",
    *binary(
        "fmin",
        lambda xp, a, b: xp.fmin(a, b),
        _fmin_vjp,
        lambda a, b, o, ta, tb: _blend_tangent(_fmin_pick_a(a, b), ta, tb, o),
        check=no_complex("fmin not implemented for complex tensors.", RuntimeError),
    ),
)


# Comparisons: computed in the promoted dtype, result bool, no gradient.
eq, eq_ = binary("eq", lambda xp, a, b: xp.equal(a, b), kind="bool")
ne, ne_ = binary("ne", lambda xp, a, b: xp.not_equal(a, b), kind="bool")
lt, lt_ = binary(
    "lt",
    lambda xp, a, b: xp.less(a, b),
    kind="bool",
    check=not_implemented("lt_cpu", D.COMPLEX, D.SHELL_UINT),
)
le, le_ = binary(
    "le",
    lambda xp, a, b: xp.less_equal(a, b),
    kind="bool",
    check=not_implemented("le_cpu", D.COMPLEX, D.SHELL_UINT),
)
gt, gt_ = binary(
    "gt",
    lambda xp, a, b: xp.greater(a, b),
    kind="bool",
    check=not_implemented("gt_cpu", D.COMPLEX, D.SHELL_UINT),
)
ge, ge_ = binary(
    "ge",
    lambda xp, a, b: xp.greater_equal(a, b),
    kind="bool",
    check=not_implemented("ge_cpu", D.COMPLEX, D.SHELL_UINT),
)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and, logical_and_ = _tensor_operands(
    "logical_and",
    *binary(
        "logical_and",
        lambda xp, a, b: xp.logical_and(a, b),
        kind="bool",
        check=not_implemented("logical_and_cpu", D.SHELL_UINT),
    ),
)
logical_or, logical_or_ = _tensor_operands(
    "logical_or",
    *binary(
        "logical_or",
        lambda xp, a, b: xp.logical_or(a, b),
        kind="bool",
        check=not_implemented("logical_or_cpu", D.SHELL_UINT),
    ),
)
logical_xor, logical_xor_ = _tensor_operands(
    "logical_xor",
    *binary(
        "logical_xor",
        lambda xp, a, b: xp.logical_xor(a, b),
        kind="bool",
        check=not_implemented("logical_xor_cpu", D.SHELL_UINT),
    ),
)


def _bitwise(name, ufunc, kernel=None):
    kernel = kernel or name + "_cpu"
    # PyTorch's and/or/xor take uint16/32/64, its shifts do not. The check runs on the promoted
    # dtype, after broadcasting (a shape error wins over a dtype error, as in PyTorch).
    # Shifts refuse bool too.
    refused = (
        (D.FLOAT, D.COMPLEX) if "shift" not in name else (D.BOOL, D.FLOAT, D.COMPLEX, D.SHELL_UINT)
    )
    check = not_implemented(kernel, *refused)
    op, op_ = binary(name, lambda xp, a, b: getattr(xp, ufunc)(a, b), ufunc=ufunc, check=check)
    return op, cast_first(op_)


bitwise_and, bitwise_and_ = _bitwise("bitwise_and", "bitwise_and")
bitwise_or, bitwise_or_ = _bitwise("bitwise_or", "bitwise_or")
bitwise_xor, bitwise_xor_ = _bitwise("bitwise_xor", "bitwise_xor")
bitwise_left_shift, bitwise_left_shift_ = _bitwise("bitwise_left_shift", "left_shift", "lshift_cpu")
bitwise_right_shift, bitwise_right_shift_ = _bitwise(
    "bitwise_right_shift", "right_shift", "rshift_cpu"
)


def equal(input, other) -> bool:
    """True if same shape and same values."""
    if not isinstance(other, Tensor):  # (the guard words PyTorch's text)
        raise TypeError("equal(): other must be a Tensor")
    return input.shape == other.shape and bool((input == other).all())


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    # PyTorch's checks: two tensors of one dtype (no promotion), non-negative tolerances
    for name, pos, t in (("input", 1, input), ("other", 2, other)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"isclose(): argument '{name}' (position {pos}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{scalar_name(input._dtype)} did not match {scalar_name(other._dtype)}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol}")
    check_broadcast(input._data.shape, other._data.shape)
    xa, xb, dt = binary_operands(input, other)
    xp = xp_for(input)
    return _wrap(
        xp.isclose(xa, xb, rtol=rtol, atol=atol, equal_nan=equal_nan), D.bool, input._device
    )
