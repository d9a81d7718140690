"""pow and float_power: tensor ** scalar, scalar ** tensor and tensor ** tensor, each with the
backward node PyTorch records (PowBackward0/1/2)."""

from __future__ import annotations

import functools
import math

import numpy as np

from ... import _dtype as D
from ..._device import cpu
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.forward_ad import on_primals as _on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math import glibc
from ...backend.float32_math import run as f32_run
from ...backend.float32_math import run2 as f32_run2
from ...backend.float32_math.pow import powf
from .._dispatch import _fw_state, binary_operands, inplace, record, result_dtype, write_out, xp_for
from ..arg_types import python_int_range
from .binary import _binary_tangent, _check_inplace_broadcast, _ga, _gb, _run
from .common import _F32, _conj, _scalar


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
_PowScalar.saved_names, _PowScalar.saved_scalars = ("self",), {"exponent": "exponent"}


_PowTensor = node_class("PowBackward1", _pow_tensor_vjp)
_PowTensor.pack_reversed = True  # saved-tensor hooks see exponent, self, then the result
_PowTensor.saved_names = ("self", "exponent", "result")


_PowRev = node_class("PowBackward2", _rpow_vjp)
_PowRev.saved_names, _PowRev.saved_scalars = ("exponent", "result"), {"self": "base"}


def _pow_arrays(xp, a, b):
    a_dt = getattr(a, "dtype", None)
    if a_dt is not None and a_dt == np.bool_:
        if isinstance(b, (bool, np.bool_)):  # a bool tensor to a bool power: x**1, x**0
            return a.copy() if b else xp.ones(a.shape, np.bool_)
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if a_dt is not None and a_dt.kind in "iu":
        if isinstance(b, (int, np.integer)) and not isinstance(b, bool) and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if hasattr(b, "dtype") and b.dtype.kind in "iu" and xp.any(b < 0):
            # Tensor exponents: C integer semantics (1 -> 1, -1 -> +-1, anything else -> 0).
            safe = xp.power(a, xp.where(b < 0, 0, b))
            odd = (b % 2) != 0
            neg = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0)).astype(safe.dtype)
            return xp.where(b < 0, neg, safe)
    elif (
        a_dt is None
        and isinstance(a, (int, np.integer))
        and hasattr(b, "dtype")
        and b.dtype.kind in "iu"
    ):
        return _pow_arrays(xp, xp.asarray(a, b.dtype), b)
    b_dt = getattr(b, "dtype", None)
    if a_dt is not None and a_dt.char == D.BFLOAT16_CHAR and b_dt is None and b in (3, -2):
        # PyTorch's bfloat16 vector kernel multiplies out x*x*x and 1/(x*x) with a bfloat16 rounding
        # after each step (float16's rounds once)
        sq = a * a
        return sq * a if b == 3 else xp.asarray(1, a_dt) / sq
    if xp is np and _F32 in (a_dt, b_dt) and _real_scalar_or(a, _F32) and _real_scalar_or(b, _F32):
        return _powf(a, b)
    if (
        xp is np
        and a_dt == _F64
        and _real_scalar_or(b, _F64)
        and b_dt is None
        and b in _POW64_SPECIAL
    ):
        return _POW64_SPECIAL[b](a)
    return xp.power(a, b)


_F64 = np.dtype(np.float64)
# float64 ** these scalars: PyTorch's kernel multiplies out or divides, rounding after each step
# (libm's pow rounds once: x ** 3 differed in the last bit for ~1 element in 4). x ** 0.5 runs
# MKL's sqrt in PyTorch, closed source, so it stays NumPy's correctly rounded one here.
_POW64_SPECIAL = {
    3: lambda a: a * a * a,
    -2: lambda a: 1.0 / (a * a),
    -0.5: lambda a: 1.0 / np.sqrt(a),
}


def _real_scalar_or(v, dtype):
    if isinstance(v, np.ndarray):
        return v.dtype == dtype
    return isinstance(v, (int, float, np.integer, np.floating))


_ONE32 = np.float32(1)
# float32 ** these scalars: PyTorch's kernel multiplies, divides or takes sqrt (x ** 0 and
# x ** 1 never reach it: fill and copy); every other exponent goes to SLEEF's powf.
_POW_SPECIAL = {
    0.0: lambda a: np.power(a, _ONE32 - _ONE32),
    1.0: lambda a: a.copy(),
    2.0: lambda a: a * a,
    3.0: lambda a: a * a * a,
    -1.0: lambda a: _ONE32 / a,
    -2.0: lambda a: _ONE32 / (a * a),
    0.5: np.sqrt,
    -0.5: lambda a: _ONE32 / np.sqrt(a),
}


def _pow64(a, b):
    """PyTorch's scalar loop: glibc's powf, correctly rounded (float64, rounded once)."""
    with np.errstate(all="ignore"):
        return np.power(
            np.float64(a) if np.isscalar(a) else a.astype(np.float64),
            np.float64(b) if np.isscalar(b) else b.astype(np.float64),
        ).astype(_F32)


def _powf(a, b):
    """float32 pow as PyTorch's CPU kernels compute it: SLEEF's powf (``backend.float32_math.pow``),
    NumPy's float32 loop is 1 ulp off in ~20% of elements. A Python scalar is float32 first."""
    if not isinstance(b, np.ndarray):
        e = np.float32(b)
        special = _POW_SPECIAL.get(float(e))
        if special is not None:
            return special(a)
        # the scalar loop raises to the double exponent: std::pow(float, double)
        return f32_run(lambda d: powf(d, e), a, scalar=lambda d: _pow64(d, float(b)))
    if not isinstance(a, np.ndarray):
        base = np.float32(a)
        # PyTorch allocates this output contiguous before its loop: the loop runs in C order
        scalar = functools.partial(glibc.powf, base)  # its scalar loop: glibc's powf
        return f32_run(lambda d: powf(base, d), b, scalar=scalar, c_order=True)
    return f32_run2(powf, *np.broadcast_arrays(a, b), scalar=glibc.powf)


def pow(input, exponent, *, out=None):  # noqa: A001
    """``input ** exponent`` for Tensor/scalar combinations, with PyTorch's node names."""
    if not isinstance(input, Tensor):
        python_int_range(input)
        return _rpow(exponent, input, out=out)
    if (
        isinstance(exponent, int)
        and not isinstance(exponent, bool)
        and exponent < 0
        and input._dtype.category == D.INT
    ):
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
            res._fw = input._fw * _on_primals(
                lambda x: x.pow(exponent - 1) * exponent if exponent != 0 else x.new_zeros(x.shape),
                input,
            )
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
    if dt in D._SHELL_UINTS or dt is D.bool:
        raise NotImplementedError(f"\"pow\" not implemented for '{_scalar(dt)}'")
    xp = np if input._device is cpu else xp_for(input)
    xa = input._data if input._dtype is dt else input._data.astype(dt.np)
    res = _wrap(
        _run(lambda xp, a, b: _pow_arrays(xp, b, a), xp, xa, base, input, base), dt, input._device
    )
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
    dt = (
        D.complex128
        if (
            input.is_complex()
            or (isinstance(exponent, Tensor) and exponent.is_complex())
            or isinstance(exponent, complex)
        )
        else D.float64
    )
    a = input.to(dt) if isinstance(input, Tensor) else input
    b = exponent.to(dt) if isinstance(exponent, Tensor) else exponent
    if out is not None and isinstance(out, Tensor) and out._dtype is not dt:
        raise RuntimeError(
            f"the output given to float_power has dtype {_scalar(out._dtype)} but the operation's result "
            f"requires dtype {_scalar(dt)}"
        )
    return pow(a, b, out=out)
