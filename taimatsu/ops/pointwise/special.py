"""More elementwise ops: Bessel/normal-distribution special functions, sinc, logaddexp2,
nextafter, heaviside, rad2deg/deg2rad, gcd/lcm, ldexp/frexp, mvlgamma, isreal, float_power_,
logcumsumexp, and the ``torch.special`` ops that are not aliases (erfcx, ndtr, xlog1py, zeta...).

Forwards use scipy.special through ``_special(xp)``; VJPs are in Tensor ops (double backward
works), JVPs follow from the derivative as in ``pointwise.unary``.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.forward_ad import on_primals as _on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from .._dispatch import (
    _fw_state,
    binary_operands,
    check_broadcast,
    inplace,
    only_needed,
    record,
    result_dtype,
    scalar_name,
    write_out,
    xp_for,
)
from ..reduction.extrema import _return_type, return_types
from .binary import _broadcast_shape, _tensor_operands, binary, cast_first
from .common import _FLOAT, checks, half_in_float32, no_complex, not_implemented
from .fused import _fused, _needs
from .select import where
from .unary import _special, unary

_SQRT_2PI = math.sqrt(2 * math.pi)


def _sf(fname):
    """forward(xp, a) = scipy.special.<fname>(a) in a's dtype."""
    return lambda xp, a: getattr(_special(xp), fname)(a).astype(a.dtype, copy=False)


def _bessel_i(fname):
    """forward(xp, a) for i0, i0e, i1, i1e: PyTorch's algorithm in a's arithmetic on the CPU
    (``backend/bessel_i.py``; half types in float32, as PyTorch's), SciPy's on a GPU."""

    @half_in_float32
    def forward(xp, a):
        if xp is np:
            from ...backend import bessel_i

            return getattr(bessel_i, fname)(a)
        return _sf(fname)(xp, a)

    return forward


def _safe(x):
    """x with zeros replaced by ones (so a masked-out branch stays finite in double backward)."""
    return where(x == 0, x.new_ones(()), x)


def _no_half(kernel):
    def check(dtype):
        if dtype in (D.float16, D.bfloat16):
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dtype)}'")

    return checks(check, _real(kernel))


def _real(kernel):
    """PyTorch's '"kernel" not implemented for 'ComplexFloat'' (real-only special functions)."""
    return not_implemented(kernel, D.COMPLEX)


# ---- unary -------------------------------------------------------------------------------------------
@half_in_float32
def _sinc_fwd(xp, a):
    """PyTorch's CPU kernel: 1 at 0, else sin(p) / p with p = pi * x rounded in the input's
    dtype and the C library's sin (glibc's sinf for float32 and, through it, the half types)."""
    if xp is np and a.dtype in (np.float32, np.float64):
        from ...backend import libm
        from ...backend.float32_math.glibc import sinf

        p = a.dtype.type(math.pi) * a
        s = sinf(p) if a.dtype == np.float32 else libm.small_or_numpy("sin", p)
        with np.errstate(all="ignore"):
            return np.where(a == 0, a.dtype.type(1), s / p)
    return xp.sinc(a).astype(a.dtype, copy=False)  # complex; a GPU


def _sinc_deriv(x, out):
    xs = _safe(x) * math.pi
    d = (xs.cos() * xs - xs.sin()) / (xs * xs) * math.pi
    return where(x == 0, x.new_zeros(()), d)


sinc, sinc_ = unary("sinc", _sinc_fwd, _sinc_deriv)


def _i1_deriv(x, out):
    xs = _safe(x)
    return where(x == 0, x.new_full((), 0.5), i0(xs) - out / xs)


def _i1e_deriv(x, out):
    xs = _safe(x)
    return where(x == 0, x.new_full((), 0.5), special_i0e(xs) - out * (xs.sign() + xs.reciprocal()))


i0, i0_ = unary("i0", _bessel_i("i0"), lambda x, out: special_i1(x), check=_real("i0_vml_cpu"))
special_i1, _ = unary(
    "special_i1",
    _bessel_i("i1"),
    _i1_deriv,
    saves=("x", "out"),
    node="SpecialI1Backward0",
    check=_real("i1_cpu"),
)
special_i0e, _ = unary(
    "special_i0e", _bessel_i("i0e"), lambda x, out: special_i1e(x) - x.sign() * out, saves=("x", "out"),
    node="SpecialI0EBackward0", check=_real("i0e_cpu"),
)  # fmt: skip
special_i1e, _ = unary("special_i1e", _bessel_i("i1e"), _i1e_deriv, saves=("x", "out"), node="SpecialI1EBackward0",
                       check=_real("i1e_cpu"))  # fmt: skip

rad2deg, rad2deg_ = unary("rad2deg", half_in_float32(lambda xp, a: a * (180.0 / math.pi)), lambda x, out: 180.0 / math.pi, saves=(), node="Rad2DegBackward0",
                          check=no_complex("rad2deg is not supported for complex tensors.", RuntimeError))  # fmt: skip
deg2rad, deg2rad_ = unary("deg2rad", half_in_float32(lambda xp, a: a * (math.pi / 180.0)), lambda x, out: math.pi / 180.0, saves=(), node="Deg2RadBackward0",
                          check=no_complex("deg2rad is not supported for complex tensors.", RuntimeError))  # fmt: skip

special_erfcx, _ = unary(
    "special_erfcx", _sf("erfcx"), lambda x, out: x * out * 2 - 2 / math.sqrt(math.pi), saves=("x", "out"),
    node="SpecialErfcxBackward0", check=_no_half("erfcx_cpu"),
)  # fmt: skip
special_ndtri, _ = unary(
    "special_ndtri", _sf("ndtri"), lambda x, out: (out * out * 0.5).exp() * _SQRT_2PI, saves=("out",),
    node="SpecialNdtriBackward0", check=_no_half("ndtri_cpu"),
)  # fmt: skip
special_log_ndtr, _ = unary(
    "special_log_ndtr", _sf("log_ndtr"), lambda x, out: (x * x * -0.5 - out).exp() / _SQRT_2PI,
    saves=("x", "out"), node="SpecialLogNdtrBackward0", check=_no_half("log_ndtr_cpu"),
)  # fmt: skip
# PyTorch composes ndtr as (1 + erf(x / sqrt 2)) * 0.5: its grad_fn is MulBackward1 over AddBackward1.
_ndtr2, _ = unary(
    "ndtr2", lambda xp, a: (_special(xp).ndtr(a) * 2).astype(a.dtype, copy=False),
    lambda x, out: (x * x * -0.5).exp() * (2 / _SQRT_2PI), node="AddBackward1", check=_real("erf_vml_cpu"),
)  # fmt: skip
_Half = node_class("MulBackward1", lambda node, g: (g * 0.5,))


def special_ndtr(input, *, out=None):
    """The standard normal CDF."""
    c = _ndtr2(input)
    res = _fused(_Half, (c,), lambda: c * 0.5)
    return res if out is None else write_out(out, res, "special_ndtr", grad=False)


special_entr, _ = unary(
    "special_entr",
    _sf("entr"),
    lambda x, out: -(x.log() + 1),
    node="SpecialEntrBackward0",
    check=_real("entr_cpu"),
)


# ---- logaddexp2 ----------------------------------------------------------------------------------------------
def _logaddexp2_vjp(node, g):
    a, b = node.saved()
    ga = g / ((b - a).exp2() + 1) if _needs(node, 0) else None
    gb = g / ((a - b).exp2() + 1) if _needs(node, 1) else None
    return ga, gb


_Logaddexp2 = node_class("Logaddexp2Backward0", _logaddexp2_vjp)


def logaddexp2(input, other, *, out=None):
    """``log2(2**input + 2**other)`` without overflow."""
    from .comparison import maximum

    if input._data.shape != other._data.shape:
        _broadcast_shape(input, other)  # PyTorch broadcasts before its kernel's dtype check
    dt = result_dtype(input, other)  # the kernel runs in the promoted type (int + float works)
    if dt.category != _FLOAT:
        raise NotImplementedError(f"\"logaddexp2_cpu\" not implemented for '{scalar_name(dt)}'")

    def compute():
        if dt in (D.float16, D.bfloat16):
            return logaddexp2(input.float(), other.float()).to(dt)
        a, b = input.to(dt), other.to(dt)
        m = maximum(a, b)
        m = where(m.isinf(), m.new_zeros(()), m)
        r = ((a - m).exp2() + (b - m).exp2()).log2() + m
        return where((a == b) & a.isinf(), a, r)

    res = _fused(_Logaddexp2, (input, other), compute, (input, other))
    return res if out is None else write_out(out, res, "logaddexp2")


logaddexp2, _ = _tensor_operands("logaddexp2", logaddexp2, None)  # two tensors, as in PyTorch


# ---- nextafter, heaviside, gcd, lcm ------------------------------------------------------------------------
_NP_NAMES = {"b": "Bool", "u1": "Byte", "i1": "Char", "i2": "Short", "i4": "Int", "i8": "Long", "f2": "Half",
             "f4": "Float", "f8": "Double", "c8": "ComplexFloat", "c16": "ComplexDouble"}  # fmt: skip


def _np_name(dt):
    dt = np.dtype(dt)
    return _NP_NAMES.get("b" if dt.kind == "b" else dt.kind + str(dt.itemsize), str(dt))


def _nextafter_vjp(node, g):
    return (g if _needs(node, 0) else None), (g * 0 if _needs(node, 1) else None)


def _nextafter_jvp(a, b, out, ta, tb):
    return ta.expand(out.shape) if ta is not None else out.new_zeros(out.shape)


def _nextafter_fwd(xp, a, b):
    a, b = xp.asarray(a), xp.asarray(b)
    if a.dtype.char not in D.FLOAT_CHARS:
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{_np_name(a.dtype)}'")
    r = xp.nextafter(a, b)
    if a.dtype.char == "e":  # NumPy's float16 loop returns x where x == y (-0 towards +0): C's y
        r = xp.where(a == b, xp.broadcast_to(b, r.shape), r)
    return r


nextafter, nextafter_ = _tensor_operands(
    "nextafter", *binary("nextafter", _nextafter_fwd, _nextafter_vjp, _nextafter_jvp, saves=())
)


def _heaviside_vjp(node, g):
    raise RuntimeError("derivative for aten::heaviside is not implemented")


_Heaviside = node_class("NotImplemented", _heaviside_vjp)


def heaviside(input, values, *, out=None):
    """0 where input < 0, ``values`` where input == 0, 1 where input > 0."""
    if input._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if input._dtype.category == D.COMPLEX:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    check_broadcast(input._data.shape, values._data.shape)
    xa, xb, dt = binary_operands(input, values)
    xp = xp_for(input)
    r = xp.where(xa == 0, xb, (xa > 0)).astype(dt.np, copy=False)
    res = _wrap(np.ascontiguousarray(r) if xp is np else r, dt, input._device)
    if _gm.enabled and (input._rg or values._rg):
        record(_Heaviside, (input, values), res)
    return (
        res
        if out is None
        else write_out(
            out,
            res,
            "heaviside",
            "heaviside is not yet implemented for tensors with different dtypes.",
            grad="aten",
        )
    )


def heaviside_(self, values):
    return inplace(self, heaviside, (values,), False)


heaviside, heaviside_ = _tensor_operands("heaviside", heaviside, heaviside_, "values")


def _int_binary(name, f):
    """gcd/lcm: two tensors (no Scalar overload) of a signed or 8-bit integer type; the dtype
    is checked after broadcasting (in place: after the cast to self's type), as in PyTorch."""
    check = not_implemented(f"{name}_cpu", D.BOOL, D.FLOAT, D.COMPLEX, D.SHELL_UINT)
    op, op_ = binary(name, lambda xp, a, b: f(xp, a, b).astype(a.dtype, copy=False), check=check)
    return _tensor_operands(name, op, cast_first(op_))


def _gcd(xp, a, b):
    """Euclid's algorithm as PyTorch's kernel runs it in the integer type: |x| of the type's
    minimum stays negative there (|-128| of an int8 is -128), so gcd(-128, 127) is -1 and
    gcd(-128, 0) is -128; C's remainder takes the dividend's sign (``fmod``)."""
    a, b = xp.broadcast_arrays(xp.abs(a), xp.abs(b))
    if not (a < 0).any() and not (b < 0).any():
        return xp.gcd(a, b)  # no minimum of a signed type: the same values
    a, b = a.copy(), b.copy()
    while True:
        live = a != 0
        if not live.any():
            return b
        c = a.copy()
        a[live] = xp.fmod(b[live], a[live])
        b[live] = c[live]


gcd, gcd_ = _int_binary("gcd", _gcd)
lcm, lcm_ = _int_binary("lcm", lambda xp, a, b: xp.lcm(a, b))


# ---- ldexp, frexp ------------------------------------------------------------------------------------------
def _ldexp_vjp(node, g):
    # PyTorch saves other (for self's gradient) and the result, never self, so self may change
    # in place before the backward; conj: the conjugate Wirtinger gradient (complex inputs)
    e, out = node.saved()
    return (g * _pow2(e, g.dtype).conj() if _needs(node, 0) else None), (
        g * out.conj() * math.log(2) if _needs(node, 1) else None
    )


def _pow2(e, dtype):
    """2 ** e for ldexp's derivatives. PyTorch evaluates it in the exponent's dtype, so an integer
    exponent below zero gives 0 (its gradient, unlike its value, is 0 there): kept for parity."""
    if e._dtype.category < _FLOAT:
        return where(e < 0, e.new_zeros((), dtype=dtype), e.to(dtype).exp2())
    return e.exp2()


_Ldexp = node_class("LdexpBackward0", _ldexp_vjp)
_Ldexp.saved_names = ("other", "result")


@silent
def ldexp(input, other, *, out=None):
    """``input * 2 ** other`` (exact for powers of two), in the promoted floating dtype."""
    if input._data.shape != other._data.shape:
        _broadcast_shape(input, other)  # PyTorch's size error, not NumPy's
    dt = result_dtype(input, other)
    if dt.category < _FLOAT:
        dt = D.get_default_dtype()
    xp = xp_for(input)
    wide = np.float64 if dt.category == _FLOAT else np.complex128
    float_input, category = input._dtype.category == _FLOAT, other._dtype.category
    if float_input and category == D.BOOL:
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if float_input and category == D.INT:
            # a float scaled by integer powers: C's ldexp, exact up to the final rounding
            work = dt.np if dt.np.char in "fd" else np.float32
            e = xp.clip(other._data, -(1 << 20), 1 << 20).astype(np.int32)
            r = xp.ldexp(input._data.astype(work), e)
        else:
            # PyTorch's input * pow(2, other), the power in other's float dtype (the default
            # one for integers): 2**128 is inf in float32, so an integer 0 times it is NaN
            e = other._data.astype(wide if category == D.COMPLEX else np.float64)
            power = other._dtype if category >= _FLOAT else D.get_default_dtype()
            p = D.cast_array(xp.exp2(e), power.np)
            r = xp.multiply(D.cast_array(input._data, dt.np), D.cast_array(p, dt.np))
        res = _wrap(D.cast_array(r, dt.np) if r.dtype != dt.np else r, dt, input._device)
    if _gm.enabled and (input._rg or other._rg):
        record(_Ldexp, (input, other), res, only_needed((other, res), (input, other), (0, None)))
    if _fw_state.level and (input._fw is not None or other._fw is not None):

        def tangent(x, e, tx, te):
            p = _pow2(e, res.dtype)
            r = tx * p if tx is not None else None
            if te is not None:
                r2 = te * x * p * math.log(2)
                r = r2 if r is None else r + r2
            return r

        res._fw = _on_primals(tangent, input, other, input._fw, other._fw)
        _register(res)
    return (
        res
        if out is None
        else write_out(
            out, res, "ldexp", cast_msg="ldexp can't be cast to the desired output type {out}"
        )
    )


def ldexp_(self, other):
    return inplace(self, ldexp, (other,), False)  # (saves other and the result, not self)


ldexp, ldexp_ = _tensor_operands("ldexp", ldexp, ldexp_)  # two tensors only, as in PyTorch


return_types.frexp = _return_type("frexp", ("mantissa", "exponent"))


def _frexp_vjp(node, g):
    (e,) = node.saved()
    return (g / e.to(g.dtype).exp2(),)


_Frexp = node_class("FrexpBackward0", _frexp_vjp)


def frexp(input, *, out=None):
    """(mantissa, exponent) with ``input == mantissa * 2 ** exponent``; exponent is int32."""
    if input._dtype.category != _FLOAT:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    xp = xp_for(input)
    a = input._data
    m, e = xp.frexp(a.astype(np.float32) if input._dtype is D.bfloat16 else a)
    mant = _wrap(m.astype(a.dtype, copy=False), input._dtype, input._device)
    expo = _wrap(e.astype(np.int32, copy=False), D.int32, input._device)
    if _gm.enabled and input._rg:
        record(_Frexp, (input,), mant, (expo,))
    if _fw_state.level and input._fw is not None:
        mant._fw = _on_primals(lambda t, e: t / e.to(t.dtype).exp2(), input._fw, expo)
        _register(mant)
    if out is not None:
        msgs = ("torch.frexp() expects mantissa to have dtype {res_cpp} but got {out_cpp}",
                "torch.frexp() expects exponent to have int dtype but got {out_cpp}")  # fmt: skip
        return return_types.frexp(*write_out(tuple(out), (mant, expo), "frexp", msgs))
    return return_types.frexp(mant, expo)


# ---- mvlgamma ------------------------------------------------------------------------------------------------
def _mvlgamma_vjp(node, g):
    (x,) = node.saved()
    p = node.p
    d = sum((x - i / 2).digamma() for i in range(p))
    return (g * d,)


_Mvlgamma = node_class("MvlgammaBackward0", _mvlgamma_vjp)


def mvlgamma(input, p, *, out=None):
    r = _mvlgamma(input, p)
    if out is not None and isinstance(out, Tensor) and not D.can_cast(r._dtype, out._dtype):
        # PyTorch's message names the input's dtype as the result's and the result's as out's
        raise RuntimeError(
            f"mvlgamma: result type {scalar_name(input._dtype)} can't be cast to the desired output type "
            f"{scalar_name(r._dtype)}"
        )
    return r if out is None else write_out(out, r, "mvlgamma")


def _mvlgamma(input, p):
    """The multivariate log-gamma ``p(p-1)/4 log(pi) + sum_i lgamma(x - i/2)``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    _real("arange_cpu")(input._dtype)  # PyTorch's composite fails building its arange
    dt = input._dtype if input._dtype.category >= _FLOAT else D.get_default_dtype()
    from ...autograd.grad_mode import no_grad
    from ..creation.ranges import arange
    from .unary import lgamma

    # PyTorch's composite, op for op (the same roundings): lgamma of x + (-(p-1)/2, ..., -1/2,
    # 0) summed over that last axis, plus the constant (rounded to the dtype)
    with no_grad():
        x = input.detach().to(dt)
        args = arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=dt, device=input.device)
        res = lgamma(args.add(x.unsqueeze(-1))).sum(-1).add_(p * (p - 1) * math.log(math.pi) / 4)
    if _gm.enabled and input._rg:
        record(_Mvlgamma, (input,), res, (input,), p=p)
    from ...autograd.forward_ad import _register
    from ...autograd.forward_ad import on_primals as _on_primals
    from .._dispatch import _fw_state

    if _fw_state.level and input._fw is not None:
        res._fw = input._fw * _on_primals(
            lambda x: sum((x - i / 2).digamma() for i in range(p)), input
        )
        _register(res)
    return res


def mvlgamma_(self, p):
    return inplace(self, lambda s: mvlgamma(s, p), (), True)


# ---- isreal, float_power_ -------------------------------------------------------------------------------------
def isreal(input):
    xp = xp_for(input)
    if input._dtype.category == D.COMPLEX:
        return _wrap(input._data.imag == 0, D.bool, input._device)
    return _wrap(xp.ones(input._data.shape, bool), D.bool, input._device)


def float_power_(self, exponent):
    from ..._tensor_arguments import NUMBERS
    from .power import float_power

    if not isinstance(exponent, (Tensor, *NUMBERS)):  # the parser's error first (guard_methods)
        raise TypeError("float_power_: exponent must be a Tensor or a number")
    cplx = (
        self.is_complex()
        or (isinstance(exponent, Tensor) and exponent.is_complex())
        or isinstance(exponent, complex)
    )
    want = D.complex128 if cplx else D.float64
    if self._dtype is not want:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {scalar_name(self._dtype)} but the operation's result requires "
            f"dtype {scalar_name(want)}"
        )
    return inplace(self, float_power, (exponent,), True)


# ---- xlog1py, zeta -------------------------------------------------------------------------------------------
def _xlog1py_vjp(node, g):
    x, y = node.saved()
    kind = node.kind
    res = []
    if kind != 1:
        res.append(g * (x != 0).to(g.dtype) * y.log1p() if _needs(node, 0) else None)
    if kind != 2:
        i = 0 if kind == 1 else 1
        res.append(g * x / (y + 1) if _needs(node, i) else None)
    return tuple(res)


_XLOG1PY = [node_class(f"SpecialXlog1PyBackward{k}", _xlog1py_vjp) for k in range(3)]


def _float_pair(input, other, kernel):
    if not isinstance(input, Tensor):
        kind, x, y = 1, other.new_full((), input, dtype=D.scalar_dtype(input)), other
    elif not isinstance(other, Tensor):
        kind, x, y = 2, input, input.new_full((), other, dtype=D.scalar_dtype(other))
    else:
        kind, x, y = 0, input, other
        if x._data.shape != y._data.shape:
            _broadcast_shape(x, y)  # PyTorch broadcasts before its kernel's dtype check
    dt = result_dtype(input, other)
    if dt.category < _FLOAT:
        dt = D.get_default_dtype()
    _real(kernel)(dt)
    return kind, x.to(dt), y.to(dt)


def special_xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    kind, xf, yf = _float_pair(input, other, "xlog1py_cpu")

    def compute():
        r = where(xf == 0, xf.new_zeros(()), xf * yf.log1p())
        return r.masked_fill(yf.isnan(), float("nan"))

    inputs = ((input, other), (other,), (input,))[kind]
    res = _fused(_XLOG1PY[kind], inputs, compute, (xf, yf), kind=kind)
    return res if out is None else write_out(out, res, "special_xlog1py")


def _zeta_vjp(node, g):
    x, q = node.saved()
    kind = node.kind
    res = []
    if kind != 1:
        if _needs(node, 0):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        res.append(None)
    if kind != 2:
        i = 0 if kind == 1 else 1
        res.append(g * -x * special_zeta(x + 1, q) if _needs(node, i) else None)
    return tuple(res)


_ZETA = [node_class(f"SpecialZetaBackward{k}", _zeta_vjp) for k in range(3)]


def special_zeta(input, other, *, out=None):
    """The Hurwitz zeta function ``sum_k (k + other) ** -input``. Like PyTorch, no forward-mode AD."""
    from ...linalg.legacy import _no_forward_ad

    kind, xf, yf = _float_pair(input, other, "zeta_cpu")
    _no_forward_ad("special_zeta", *(t for t in (input, other) if isinstance(t, Tensor)))

    def compute():
        xp = xp_for(xf)
        a, b = xp.broadcast_arrays(xf._data, yf._data)
        return _wrap(
            xp.ascontiguousarray(_special(xp).zeta(a, b)).astype(xf._data.dtype, copy=False),
            xf._dtype,
            xf._device,
        )

    inputs = ((input, other), (other,), (input,))[kind]
    res = _fused(_ZETA[kind], inputs, compute, (xf, yf), kind=kind)
    return res if out is None else write_out(out, res, "special_zeta")


__all__ = [
    "deg2rad",
    "float_power_",
    "frexp",
    "gcd",
    "heaviside",
    "i0",
    "isreal",
    "lcm",
    "ldexp",
    "logaddexp2",
    "mvlgamma",
    "nextafter",
    "rad2deg",
    "sinc",
]
