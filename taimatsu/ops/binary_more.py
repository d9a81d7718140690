"""Binary elementwise ops, continued: maximum/minimum/fmax/fmin, comparisons, logical and bitwise
ops, equal/allclose/isclose, and pow/float_power.

Split out of ``binary.py`` (house size limit), which declares the ``binary`` factory these use and
re-exports every name defined here, so ``ops.binary.<name>`` still reaches them.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._device import cpu
from ..autograd.forward_ad import _register
from ..autograd.forward_ad import on_primals as _on_primals
from ..autograd.grad_mode import state as _gm
from ._dispatch import (
    Tensor,
    _fw_state,
    _wrap,
    binary_operands,
    inplace,
    node_class,
    record,
    result_dtype,
    write_out,
    xp_for,
)
from ._elementwise import (
    _F32,
    _FLOAT,
    _conj,
    _scalar,
    checks,
    in_float64,
    no_complex,
    not_implemented,
)
from .binary import _binary_tangent, _check_inplace_broadcast, _ga, _gb, _run, binary
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
    return where(a == b, 0.5, pick_a.to(a.dtype if a._dtype.category >= _FLOAT else D.get_default_dtype()))


# NumPy returns the second operand of a tie (-0. vs 0.), PyTorch the first: hence (b, a)
maximum, _ = binary("maximum", lambda xp, a, b: xp.maximum(b, a), _max_vjp, lambda a, b, o, ta, tb: _blend_tangent(_tie_weight(a, b, a > b), ta, tb, o),
                  check=checks(no_complex("maximum not implemented for complex tensors.", RuntimeError), not_implemented("maximum_cpu", D.SHELL_UINT)))
minimum, _ = binary("minimum", lambda xp, a, b: xp.minimum(b, a), _min_vjp, lambda a, b, o, ta, tb: _blend_tangent(_tie_weight(a, b, a < b), ta, tb, o),
                  check=checks(no_complex("minimum not implemented for complex tensors.", RuntimeError), not_implemented("minimum_cpu", D.SHELL_UINT)))
fmax, _ = binary("fmax", lambda xp, a, b: xp.fmax(a, b), _fmax_vjp, lambda a, b, o, ta, tb: _blend_tangent(_fmax_pick_a(a, b), ta, tb, o),
               check=no_complex("fmax not implemented for complex tensors.", RuntimeError))
fmin, _ = binary("fmin", lambda xp, a, b: xp.fmin(a, b), _fmin_vjp, lambda a, b, o, ta, tb: _blend_tangent(_fmin_pick_a(a, b), ta, tb, o),
               check=no_complex("fmin not implemented for complex tensors.", RuntimeError))


# Comparisons: computed in the promoted dtype, result bool, no gradient.
eq, eq_ = binary("eq", lambda xp, a, b: xp.equal(a, b), kind="bool")
ne, ne_ = binary("ne", lambda xp, a, b: xp.not_equal(a, b), kind="bool")
lt, lt_ = binary("lt", lambda xp, a, b: xp.less(a, b), kind="bool", check=not_implemented("lt_cpu", D.COMPLEX, D.SHELL_UINT))
le, le_ = binary("le", lambda xp, a, b: xp.less_equal(a, b), kind="bool", check=not_implemented("le_cpu", D.COMPLEX, D.SHELL_UINT))
gt, gt_ = binary("gt", lambda xp, a, b: xp.greater(a, b), kind="bool", check=not_implemented("gt_cpu", D.COMPLEX, D.SHELL_UINT))
ge, ge_ = binary("ge", lambda xp, a, b: xp.greater_equal(a, b), kind="bool", check=not_implemented("ge_cpu", D.COMPLEX, D.SHELL_UINT))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and, logical_and_ = binary("logical_and", lambda xp, a, b: xp.logical_and(a, b), kind="bool", check=not_implemented("logical_and_cpu", D.SHELL_UINT))
logical_or, logical_or_ = binary("logical_or", lambda xp, a, b: xp.logical_or(a, b), kind="bool", check=not_implemented("logical_or_cpu", D.SHELL_UINT))
logical_xor, logical_xor_ = binary("logical_xor", lambda xp, a, b: xp.logical_xor(a, b), kind="bool", check=not_implemented("logical_xor_cpu", D.SHELL_UINT))


_SHELL_NP = tuple(d.np for d in D._SHELL_UINTS)


def _bitwise(name, ufunc, kernel=None):
    kernel = kernel or name + "_cpu"
    shell_ok = "shift" not in name  # PyTorch's and/or/xor take uint16/32/64, its shifts do not

    def forward(xp, a, b):
        if getattr(a, "dtype", np.dtype(int)).kind not in "iub" or (not shell_ok and a.dtype in _SHELL_NP):
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_float_name(a)}\'')
        return getattr(xp, ufunc)(a, b)

    return binary(name, forward, ufunc=ufunc)


def _float_name(a):
    return _scalar(D.from_numpy_dtype(a.dtype))


bitwise_and, bitwise_and_ = _bitwise("bitwise_and", "bitwise_and")
bitwise_or, bitwise_or_ = _bitwise("bitwise_or", "bitwise_or")
bitwise_xor, bitwise_xor_ = _bitwise("bitwise_xor", "bitwise_xor")
bitwise_left_shift, bitwise_left_shift_ = _bitwise("bitwise_left_shift", "left_shift", "lshift_cpu")
bitwise_right_shift, bitwise_right_shift_ = _bitwise("bitwise_right_shift", "right_shift", "rshift_cpu")


def equal(input, other) -> bool:
    """True if same shape and same values."""
    return input.shape == other.shape and bool((input == other).all())


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    xa, xb, dt = binary_operands(input, other)
    xp = xp_for(input)
    return _wrap(xp.isclose(xa, xb, rtol=rtol, atol=atol, equal_nan=equal_nan), D.bool, input._device)


# ---- pow ---------------------------------------------------------------------------------------------
def _pow_scalar_vjp(node, g):
    (x, _) = node.saved()
    e = node.exponent
    if e == 0:  # zeros, not g * 0: x ** 0 is constant even at x = 0 or a NaN/inf g
        return (g.new_zeros(g.shape),)
    return (g * _conj(x.pow(e - 1) * e),)


def _pow_tensor_vjp(node, g):
    a, b, out = node.saved()
    a, b = _as_result(a, b, out)
    ga = gb = None
    real = a._dtype.category != D.COMPLEX
    if _ga(node):  # PyTorch: 0 where the exponent is 0 (not 0 * inf at a = 0)
        ga = g * _conj(b * a.pow(b - 1))
        ga = ga.masked_fill(b == 0, 0) if real else ga
    if _gb(node):  # ... and 0 at a = 0 for exponents >= 0 (where a ** b is 0 or 1)
        d = out * a.log()
        gb = g * _conj(d.masked_fill((a == 0) & (b >= 0), 0) if real else d)
    return ga, gb


def _rpow_vjp(node, g):
    (_, out) = node.saved()
    if node.base != 0:
        return (g * _conj(out * math.log(node.base)),)
    # 0 ** y: PyTorch's gradient is 0 for y >= 0 (finite results) and g * out * log(0) otherwise
    return (g * (out * -math.inf).masked_fill(out.isfinite(), 0),)


_PowScalar = node_class("PowBackward0", _pow_scalar_vjp)
_PowTensor = node_class("PowBackward1", _pow_tensor_vjp)
_PowRev = node_class("PowBackward2", _rpow_vjp)


def _pow_arrays(xp, a, b):
    a_dt = getattr(a, "dtype", None)
    if a_dt is not None and a_dt == np.bool_:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if a_dt is not None and a_dt.kind in "iu":
        if isinstance(b, (int, np.integer)) and not isinstance(b, bool) and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if hasattr(b, "dtype") and b.dtype.kind in "iu" and xp.any(b < 0):
            # Tensor exponents: C integer semantics (1 -> 1, -1 -> +-1, anything else -> 0).
            safe = xp.power(a, xp.where(b < 0, 0, b))
            odd = (b % 2) != 0
            neg = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0)).astype(safe.dtype)
            return xp.where(b < 0, neg, safe)
    elif a_dt is None and isinstance(a, (int, np.integer)) and hasattr(b, "dtype") and b.dtype.kind in "iu":
        return _pow_arrays(xp, xp.asarray(a, b.dtype), b)
    b_dt = getattr(b, "dtype", None)
    if xp is np and _F32 in (a_dt, b_dt) and not _exact_pow(b):
        return _powf(a, b)
    return xp.power(a, b)


def _exact_pow(b):
    """Scalar exponents PyTorch computes with multiplies or sqrt, as NumPy's float32 loop does."""
    return isinstance(b, (int, float, np.number)) and (float(b).is_integer() or abs(b) == 0.5)


def _powf(a, b):
    # float32 pow computed in float64 and rounded once: PyTorch's powf is correctly rounded in ~98%
    # of elements, NumPy's float32 kernel in ~80%. A Python scalar is float32 first, as in PyTorch.
    if not isinstance(b, np.ndarray):
        e = np.float64(np.float32(b))
        return in_float64(lambda d: np.power(d, e), a)
    if not isinstance(a, np.ndarray):
        base = np.float64(np.float32(a))
        return in_float64(lambda d: np.power(base, d), b)
    return np.power(a.astype(np.float64), b.astype(np.float64)).astype(_F32)


def pow(input, exponent, *, out=None):  # noqa: A001
    """``input ** exponent`` for Tensor/scalar combinations, with PyTorch's node names."""
    if not isinstance(input, Tensor):
        return _rpow(exponent, input, out=out)
    if isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0 and input._dtype.category == D.INT:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    xa, xb, dt = binary_operands(input, exponent)
    if dt in D._SHELL_UINTS:
        raise NotImplementedError(f"\"pow\" not implemented for '{_scalar(dt)}'")
    xp = np if input._device is cpu else xp_for(input)
    res = _wrap(_run(_pow_arrays, xp, xa, xb, input, exponent), dt, input._device)
    if isinstance(exponent, Tensor):
        if _gm.enabled and (input._rg or exponent._rg):
            record(_PowTensor, (input, exponent), res, (input, exponent, res))
        if _fw_state.level:
            _binary_tangent(_pow_jvp, input, exponent, res)
    else:
        if _gm.enabled and input._rg:
            record(_PowScalar, (input,), res, (input, None), exponent=exponent)
        if _fw_state.level and input._fw is not None:
            res._fw = input._fw * _on_primals(lambda x: x.pow(exponent - 1) * exponent if exponent != 0 else x.new_zeros(x.shape), input)
            _register(res)
    return res if out is None else write_out(out, res, "pow")


def _as_result(a, b, out):
    """A real operand of a complex pow, promoted: the formulas need its complex log."""
    if out._dtype.category == D.COMPLEX:
        return a.to(out._dtype), b.to(out._dtype)
    return a, b


def _pow_jvp(a, b, out, ta, tb):
    # PyTorch derives these tangents from its backward formulas, which keep only the real part
    # of a real operand's contribution to a complex result: so does this.
    real_a, real_b = (isinstance(x, Tensor) and x._dtype.category != D.COMPLEX for x in (a, b))
    a, b = _as_result(a, b, out)
    r = None
    if ta is not None:
        r = ta * b * a.pow(b - 1)
        r = r.real if real_a else r
    if tb is not None:
        t = tb * out * a.log()
        t = t.real if real_b else t
        r = t if r is None else r + t
    return r if r._dtype is out._dtype else r.to(out._dtype)


def _rpow(input, base, out=None):
    """``base ** input`` for a Python-number base (PowBackward2)."""
    if not isinstance(base, (int, float, complex, np.generic)):  # None would become NaN
        got = type(base).__name__
        raise TypeError(f"pow() received an invalid combination of arguments - got ({got}, Tensor)")
    dt = result_dtype(input, base)
    if dt in D._SHELL_UINTS:
        raise NotImplementedError(f"\"pow\" not implemented for '{_scalar(dt)}'")
    xp = np if input._device is cpu else xp_for(input)
    xa = input._data if input._dtype is dt else input._data.astype(dt.np)
    res = _wrap(_run(lambda xp, a, b: _pow_arrays(xp, b, a), xp, xa, base, input, base), dt, input._device)
    if _gm.enabled and input._rg:
        record(_PowRev, (input,), res, (None, res), base=base)
    if _fw_state.level and input._fw is not None:
        res._fw = input._fw * res * math.log(base)
        _register(res)
    return res if out is None else write_out(out, res, "pow")


def pow_(self, exponent):
    if isinstance(exponent, Tensor) and exponent._data.shape != self._data.shape:
        _check_inplace_broadcast(self, exponent)
    return inplace(self, pow, (exponent,), True)


def float_power(input, exponent, *, out=None):
    dt = D.complex128 if (input.is_complex() or (isinstance(exponent, Tensor) and exponent.is_complex()) or isinstance(exponent, complex)) else D.float64
    a = input.to(dt) if isinstance(input, Tensor) else input
    b = exponent.to(dt) if isinstance(exponent, Tensor) else exponent
    if out is not None and isinstance(out, Tensor) and out._dtype is not dt:
        raise RuntimeError(
            f"the output given to float_power has dtype {_scalar(out._dtype)} but the operation's result "
            f"requires dtype {_scalar(dt)}"
        )
    return pow(a, b, out=out)
