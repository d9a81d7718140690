"""Unary elementwise ops: each declared once with its forward, VJP and JVP.

``unary(name, forward, deriv)`` derives both the VJP (``g * deriv``) and the JVP
(``t * deriv``) from the derivative. The binary ops (``ops/pointwise/binary.py``), clamp/where/masked_fill
(``ops/pointwise/select.py``) and the complex helpers (``ops/pointwise/complex.py``: conj, view_as_real, real/imag,
angle) live in their own files; this module re-exports every name they define, so
``ops.pointwise.<name>`` still reaches all elementwise ops (Tensor methods and ``torch.*`` use it).
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import cpu
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.forward_ad import on_primals as _on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math import activation as f32_activation
from ...backend.float32_math import atanh as f32atanh
from ...backend.float32_math import emulated, glibc, run
from ...backend.float32_math import exp as f32m
from ...backend.float32_math import log1p as f32log1p
from ...backend.float32_math.double_float import fused
from ...backend.float32_math.primitives import round_once
from ...backend.fp_errors import loud, quiet, silent
from .._dispatch import (
    OUT_FOUND,
    _fw_state,
    check_cast,
    inplace,
    out_overlap_check,
    record,
    second_order_node,
    with_zero_edge,
    write_out,
    xp_for,
)

# Re-exported: ``ops.pointwise.<name>`` reaches every elementwise op (and the private helpers
# _tensor_methods uses).
from .binary import _grad_times, _shape_first, _xp_multiply, _xp_subtract
from .common import (
    _FLOAT,
    _HALVES,
    _camel,
    _scalar,
    bound_first,
    checks,
    half_in_float32,
    in_float32_once,
    no_complex,
    plain_backward,
    rounded,
    rounded_once,
)
from .common import not_implemented as _not_implemented
from .power import pow


# ---- unary ----------------------------------------------------------------------------------
def unary(name, forward, deriv=None, *, saves=("x",), to_float=True, node=None, keep_bool=False, check=None,
          real_valued=False, vjp=None, jvp=None, out_deriv=None, half_vjp=None):  # fmt: skip
    """Declare an elementwise op ``name(input)`` and its in-place ``name_``.

    ``forward(xp, a)`` works on arrays; ``deriv(x, out)`` gives d out / d x in Tensor ops
    (so double backward works); ``half_vjp(x, out, g)``, when given, is the backward of a
    float16/bfloat16 ``g`` as PyTorch's kernel for it computes it (``in_float32_once``, or its
    own order of half-precision steps). ``to_float``: integer inputs compute in the default float
    dtype, as PyTorch's "floating" unary ops do. ``check(dtype)`` raises PyTorch's error for
    dtypes the op does not support. Ops that are not holomorphic on complex inputs (abs, sgn)
    give ``vjp(x, out, g)`` and ``jvp(x, out, t)`` themselves. ``out_deriv(out)``: ``deriv``
    on a float32/float64 NumPy output array, the same bits, for a plain backward
    (``plain_backward``: no graph built, so no need for Tensor ops and their dispatch).
    """
    save_x, save_out = "x" in saves, "out" in saves

    def holomorphic_vjp(node, g):
        x, out = node.saved()
        if vjp is not None:
            return (vjp(x, out, g),)
        if real_valued:
            # A real-valued op of a complex input (abs) passes g * f' with f' = sgn(x),
            # PyTorch's convention for the conjugate Wirtinger gradient.
            return (g * deriv(x, out),)
        if out_deriv is not None and plain_backward(g) and out._dtype is g._dtype:
            return (_wrap(_xp_multiply(np, g._data, out_deriv(out._data)), g._dtype, cpu),)
        if half_vjp is not None and g._dtype in _HALVES:
            return (half_vjp(x, out, g),)
        return (_grad_times(g, deriv(x, out)),)  # holomorphic ops: g * conj(f')

    Node = node_class(node or _camel(name) + "Backward0", holomorphic_vjp) if deriv else None
    if Node is not None:
        Node.saved_names = ("self", "result")  # grad_fn._saved_self / ._saved_result

    def op(input, *, out=None):
        if out is not None:
            out_overlap_check(out, input)
        dt = input._dtype
        if check is not None:
            check(dt)
        data = input._data
        if to_float and dt.category < _FLOAT:
            dt = D.get_default_dtype()
            data = data.astype(dt.np)
        xp = np if input._device is cpu else xp_for(input)
        token = quiet()
        try:
            r = _wrap(forward(xp, data), dt, input._device)
        finally:
            loud(token)
        if keep_bool and dt is D.bool:
            r._data = r._data.astype(np.bool_)
        if input._rg and _gm.enabled and Node is not None:
            record(Node, (input,), r, (input if save_x else None, r if save_out else None))
        if _fw_state.level and input._fw is not None and deriv is not None:
            if jvp is not None:
                r._fw = _on_primals(jvp, input, r, input._fw)
            else:
                r._fw = input._fw * _on_primals(deriv, input, r)
            _register(r)
        if out is not None:  # ops keeping the input's dtype want exactly it in out
            return write_out(out, r, name, None if to_float else OUT_FOUND)
        return r

    def op_(self):
        if check is not None:
            check(self._dtype)
        if to_float and self._dtype.category < _FLOAT:
            check_cast(D.get_default_dtype(), self._dtype)
        return inplace(self, op, (), save_x)

    op.__name__, op_.__name__ = name, name + "_"
    op.__qualname__, op_.__qualname__ = name, name + "_"
    return op, op_


def _ones_like(x, out):
    return x.new_ones(())


exp, exp_ = unary("exp", rounded_once(lambda xp, a: xp.exp(a)), lambda x, out: out, saves=("out",))
exp2, exp2_ = unary(
    "exp2", rounded_once(lambda xp, a: xp.exp2(a)), lambda x, out: out * math.log(2), saves=("out",)
)
expm1, expm1_ = unary(
    "expm1",
    # PyTorch's expm1/log1p kernels run Vectorized<float> on every layout (no scalar loop)
    emulated(f32m.expm1f, scalar_loop=False)(rounded_once(lambda xp, a: xp.expm1(a))),
    lambda x, out: out + 1,
    saves=("out",),
)
log, log_ = unary("log", rounded_once(lambda xp, a: xp.log(a)), lambda x, out: x.reciprocal())
log2, log2_ = unary(
    "log2", rounded_once(lambda xp, a: xp.log2(a)), lambda x, out: (x * math.log(2)).reciprocal()
)
log10, log10_ = unary(
    "log10", rounded_once(lambda xp, a: xp.log10(a)), lambda x, out: (x * math.log(10)).reciprocal()
)
log1p, log1p_ = unary(
    "log1p",
    # float32 CPU: SLEEF's log1pf_u10, which PyTorch's Vectorized<float>::log1p calls (log, log2
    # and log10 run Intel MKL's closed VML kernels instead: those stay correctly rounded here)
    emulated(f32log1p.log1pf, scalar_loop=False)(rounded_once(lambda xp, a: xp.log1p(a))),
    lambda x, out: (x + 1).reciprocal(),
    node="Log1PBackward0",
)
sqrt, sqrt_ = unary(
    "sqrt", lambda xp, a: xp.sqrt(a), lambda x, out: (out * 2).reciprocal(), saves=("out",)
)
rsqrt, rsqrt_ = unary(
    "rsqrt", lambda xp, a: 1 / xp.sqrt(a), lambda x, out: out.pow(3) * -0.5, saves=("out",)
)
sin, sin_ = unary("sin", rounded_once(lambda xp, a: xp.sin(a)), lambda x, out: x.cos())
cos, cos_ = unary("cos", rounded_once(lambda xp, a: xp.cos(a)), lambda x, out: -x.sin())
tan, tan_ = unary(
    "tan", rounded_once(lambda xp, a: xp.tan(a)), lambda x, out: out * out + 1, saves=("out",)
)
asin, asin_ = unary(
    "asin", rounded_once(lambda xp, a: xp.arcsin(a)), lambda x, out: (1 - x * x).rsqrt()
)
acos, acos_ = unary(
    "acos", rounded_once(lambda xp, a: xp.arccos(a)), lambda x, out: -(1 - x * x).rsqrt()
)
atan, atan_ = unary(
    "atan", rounded_once(lambda xp, a: xp.arctan(a)), lambda x, out: (x * x + 1).reciprocal()
)
# float32 CPU expm1/sinh/cosh: SLEEF's algorithms, as PyTorch's Vectorized<float> runs them;
# sinh/cosh's scalar loops (strided rows, row tails) call glibc's sinhf/coshf.
sinh, sinh_ = unary(
    "sinh",
    emulated(f32m.sinhf, scalar=glibc.sinhf)(rounded_once(lambda xp, a: xp.sinh(a))),
    lambda x, out: x.cosh(),
)
cosh, cosh_ = unary(
    "cosh",
    emulated(f32m.coshf, scalar=glibc.coshf)(rounded_once(lambda xp, a: xp.cosh(a))),
    lambda x, out: x.sinh(),
)
tanh, tanh_ = unary(
    "tanh",
    rounded_once(lambda xp, a: xp.tanh(a)),
    lambda x, out: 1 - out * out,
    saves=("out",),
    half_vjp=lambda x, out, g: in_float32_once(g, lambda x, out: 1 - out * out, x, out),
    out_deriv=lambda out: _xp_subtract(np, 1, _xp_multiply(np, out, out)),
)
asinh, asinh_ = unary(
    "asinh",
    # float32 CPU: PyTorch's loop calls glibc's asinhf on every element (replayed)
    emulated(glibc.asinhf, scalar_loop=False)(rounded_once(lambda xp, a: xp.arcsinh(a))),
    lambda x, out: (x * x + 1).rsqrt(),
)
acosh, acosh_ = unary(
    "acosh",
    emulated(glibc.acoshf, scalar_loop=False)(rounded_once(lambda xp, a: xp.arccosh(a))),
    lambda x, out: (x * x - 1).rsqrt(),
)
atanh, atanh_ = unary(
    "atanh",
    # float32 CPU: SLEEF's atanhf_u10 replayed (PyTorch's kernel; not correctly rounded near 0),
    # glibc's atanhf in its scalar loop
    emulated(f32atanh.atanhf, scalar=glibc.atanhf)(rounded_once(lambda xp, a: xp.arctanh(a))),
    lambda x, out: (1 - x * x).reciprocal(),
)


def _complex_reciprocal(xp, z):
    """``1 / z`` as c10::complex divides (PyTorch's CPU reciprocal, vectorised or not): the
    larger of |re|, |im| scales the quotient (Smith's method) and 1 / 0 is inf + nan j (NumPy's
    gives nan + nan j), all in the components' own precision, the scale's denominator ``c + d *
    (d / c)`` one fused multiply-add as PyTorch's build computes it (PyTorch's bits)."""
    if xp is not np:  # (CUDA: NumPy's own division, whose quotient by zero is nan + nan j)
        return xp.reciprocal(z)
    c, d = z.real, z.imag
    t = c.dtype.type
    with np.errstate(all="ignore"):
        by_c = np.abs(c) >= np.abs(d)  # (False where either is NaN)
        rat = np.where(by_c, d / c, c / d)
        big, small = np.where(by_c, c, d), np.where(by_c, d, c)
        den = fused(small, rat, big, once=True)
        scl = t(1) / den
        re = np.where(by_c, scl, (rat + t(0)) * scl)  # (1 + 0 rat) scl, (rat + 0) scl
        im = np.where(by_c, (t(0) - rat) * scl, (t(0) * rat - t(1)) * scl)
        zero = (c == 0) & (d == 0)  # 1 / |c|, 0 / |d|: inf and NaN
        if zero.any():
            re = np.where(zero, t(1) / np.abs(c), re)
            im = np.where(zero, t(0) / np.abs(d), im)
    out = np.empty(z.shape, z.dtype)
    out.real, out.imag = re, im
    return out


reciprocal, reciprocal_ = unary(
    "reciprocal",
    lambda xp, a: _complex_reciprocal(xp, a) if a.dtype.kind == "c" else xp.reciprocal(a),
    lambda x, out: -out * out,
    saves=("out",),
)


@half_in_float32
def _sigmoid(xp, a):
    if a.dtype.kind == "c":
        return 1 / (1 + xp.exp(-a))

    # PyTorch's arithmetic around one exp, whose overflow to inf gives the limit 0.
    def formula(b):
        return 1 / (1 + rounded(xp, xp.exp, -b))

    if xp is np and a.dtype == np.float32:  # PyTorch's float32 formula around SLEEF's expf
        return run(f32_activation.sigmoid, a, scalar=formula)
    return formula(a)


def _sigmoid_half_vjp(out, g):
    """PyTorch's sigmoid_backward: for bfloat16 in float32, rounded once; for float16 in
    float16 steps, ``(g * (1 - out)) * out``."""
    if g._dtype is D.bfloat16:
        return in_float32_once(g, lambda x, out: out * (1 - out), None, out)
    return g * (1 - out) * out


sigmoid, sigmoid_ = unary(
    "sigmoid",
    _sigmoid,
    lambda x, out: out * (1 - out),
    saves=("out",),
    half_vjp=lambda x, out, g: _sigmoid_half_vjp(out, g),
    out_deriv=lambda out: _xp_multiply(np, out, _xp_subtract(np, 1, out)),
)


@rounded_once
def _erf(xp, a):
    return _special(xp).erf(a).astype(a.dtype, copy=False)


def _special(xp):
    if xp is np:
        import scipy.special

        return scipy.special
    import cupyx.scipy.special

    return cupyx.scipy.special


def _real_only(kernel):
    return _not_implemented(kernel, D.COMPLEX)


erf, erf_ = unary(
    "erf",
    _erf,
    lambda x, out: (-x * x).exp() * (2 / math.sqrt(math.pi)),
    check=_real_only("erf_vml_cpu"),
)
erfc, erfc_ = unary(
    "erfc",
    rounded_once(lambda xp, a: _special(xp).erfc(a).astype(a.dtype, copy=False)),
    lambda x, out: (-x * x).exp() * (-2 / math.sqrt(math.pi)),
    check=_real_only("erfc_vml_cpu"),
)


def _signed_zero(xp, a, r):
    """``r`` with ``a``'s zeros (their sign) where ``a`` is zero: f(-0) = -0 for an odd f."""
    return xp.where(a == 0, a, r)


@half_in_float32
def _lgamma(xp, a):
    if xp is np and a.dtype in (np.float32, np.float64):  # SLEEF's, as PyTorch's vector loop
        from ...backend.lgamma import lgamma as sleef_lgamma

        return sleef_lgamma(a)
    r = _special(xp).gammaln(a).astype(a.dtype, copy=False)
    return xp.where(a == -math.inf, math.inf, r)  # SciPy's gammaln(-inf) is -inf; C's lgamma +inf


erfinv, erfinv_ = unary(
    "erfinv",
    # float32 in float64, rounded once: SciPy's float32 erfinv is one ulp off in ~40% of elements
    rounded_once(
        lambda xp, a: _signed_zero(xp, a, _special(xp).erfinv(a).astype(a.dtype, copy=False))
    ),
    lambda x, out: (out * out).exp() * (math.sqrt(math.pi) / 2),
    saves=("out",),
    check=_real_only("erfinv_vml_cpu"),
)
lgamma, lgamma_ = unary(
    "lgamma",
    lambda xp, a: _lgamma(xp, a),
    lambda x, out: x.digamma(),
    check=_real_only("lgamma_vml_cpu"),
)


@half_in_float32
def _polygamma_array(xp, a, n: int = 0):
    """digamma (``n`` 0) and its derivatives; orders 0 and 1 by PyTorch's own algorithms in the
    input's arithmetic (``backend/polygamma.py``)."""
    if xp is np and n < 2:
        from ...backend import polygamma as series

        return (series.digamma, series.trigamma)[n](a)
    special = _special(xp)
    if n == 0:
        return special.psi(a).astype(a.dtype, copy=False)
    # the order as an array: CuPy's polygamma compares it with 0 through cupy.where, which
    # fails on a Python int's bool
    return special.polygamma(xp.asarray(n), a).astype(a.dtype, copy=False)


digamma, digamma_ = unary(
    "digamma",
    _polygamma_array,
    lambda x, out: polygamma(1, x),
    check=_real_only("digamma"),
)


def _polygamma_vjp(node, g):
    (x,) = node.saved()
    return (g * polygamma(node.n + 1, x),)


_Polygamma = node_class("PolygammaBackward0", _polygamma_vjp)


@silent
def polygamma(n: int, input, *, out=None):
    """The n-th derivative of digamma; differentiable to any order (its VJP is polygamma n+1)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    _real_only(("digamma", "trigamma")[n] if n < 2 else "polygamma")(input._dtype)
    dt = input._dtype if input._dtype.category >= _FLOAT else D.get_default_dtype()
    xp = xp_for(input)
    res = _wrap(_polygamma_array(xp, input._data.astype(dt.np, copy=False), n), dt, input._device)
    if _gm.enabled and input._rg:
        record(_Polygamma, (input,), res, (input,), n=n)
    if _fw_state.level and input._fw is not None:
        res._fw = input._fw * _on_primals(lambda x: polygamma(n + 1, x), input)
        _register(res)
    return res if out is None else write_out(out, res, "polygamma")


# Ops that keep integer dtypes.
def _zero_deriv(x, out):
    return 0.0


def _no_bool_neg(dtype):
    if dtype in D._SHELL_UINTS:
        raise NotImplementedError(f"\"neg_cpu\" not implemented for '{_scalar(dtype)}'")
    if dtype is D.bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead."
        )


def _no_bool_relu(dtype):
    if dtype is D.bool:
        raise RuntimeError("Boolean inputs not supported for relu")


neg, neg_ = unary(
    "neg",
    lambda xp, a: xp.negative(a),
    lambda x, out: -1.0,
    saves=(),
    to_float=False,
    check=_no_bool_neg,
)
negative, negative_ = neg, neg_


def _abs_jvp(x, out, t):
    # d|z| = Re(conj(sgn z) dz); for real inputs this is sgn(x) * dx.
    return (t * x.sgn().conj()).real if x._dtype.category == D.COMPLEX else t * x.sgn()


def _abs_arrays(xp, a):
    return _complex_magnitude(a) if xp is np and a.dtype.kind == "c" else xp.abs(a)


def _complex_magnitude(a):
    """|z| as PyTorch's CPU kernel (SLEEF's hypot, 0.5 ulp): complex64 exactly, from the parts'
    float64 squares (exact) and one float64 sqrt rounded to float32; complex128 by libm's hypot,
    last-bit equal for ~99.5% of elements. NumPy's complex abs differed in ~35% of elements.
    A NaN part gives NaN even beside an infinite one, as PyTorch's vectorised loop does (its
    scalar tail loop gives inf there)."""
    re, im = a.real, a.imag
    if a.dtype == np.complex64:
        re, im = re.astype(np.float64), im.astype(np.float64)
        return np.sqrt(re * re + im * im).astype(np.float32)
    out = np.hypot(re, im)
    nan = np.isnan(re) | np.isnan(im)
    if nan.any():
        out[nan] = np.nan
    return out


_abs, _abs_ = unary("abs", _abs_arrays, lambda x, out: x.sgn(), to_float=False, check=_not_implemented("abs_cpu", D.BOOL, D.SHELL_UINT),
                    real_valued=True, jvp=_abs_jvp)  # fmt: skip


def abs(input, *, out=None):
    """|input|; complex inputs give their real magnitude (float32 for complex64)."""
    if input._dtype.category != D.COMPLEX:
        return _abs(input, out=out)
    r = _abs(input)
    r._data = r._data.real if r._data.dtype.kind == "c" else r._data
    r._dtype = input._dtype.to_real()
    return r if out is None else write_out(out, r, "abs")  # a real result: any castable out


def abs_(self):
    if self._dtype.category == D.COMPLEX:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return _abs_(self)


absolute, absolute_ = abs, abs_
square_ = None


def square(input, *, out=None):
    if input._dtype is D.bool:
        input = input.to(D.int64)
    return pow(input, 2, out=out)


def _relu_deriv(x, out):
    return out > 0


def _relu_jvp(x, out, g):
    # PyTorch's threshold_backward: +0 where out <= 0, g elsewhere (NaN included)
    return g.masked_fill(out <= 0, 0)


_ThresholdBackward = second_order_node("ThresholdBackwardBackward0")


def _relu_vjp(x, out, g):
    """threshold_backward on arrays when no graph of the backward is recorded: the bits of
    ``g`` AND a mask of all zeros (+0.0) where ``out <= 0``, all ones elsewhere -- the values of
    ``_relu_jvp``'s Tensor ops (NaN where out is NaN included), 7x faster than ``np.where``."""
    gd, od = g._data, out._data
    if _gm.enabled:  # create_graph: threshold_backward, with its edge to the result
        return with_zero_edge(_relu_jvp(x, out, g), out, _ThresholdBackward)
    if gd.__class__ is not np.ndarray or od.__class__ is not np.ndarray:
        return _relu_jvp(x, out, g)
    if (
        g.__class__ is not Tensor
        or gd.dtype != od.dtype
        or gd.shape != od.shape
        or gd.dtype.char not in D.FLOAT_CHARS
    ):
        return _relu_jvp(x, out, g)
    bits = np.dtype(f"i{gd.itemsize}")
    # 0 where out <= 0, -1 (all bits set) elsewhere: NaN keeps its gradient, as in PyTorch
    mask = np.empty(od.shape, bits)  # an array even for 0-d input, so it can take the result
    np.subtract(np.less_equal(od, 0).view(np.int8), 1, out=mask)
    # the result is written over the mask: one full-size buffer, not two (the step's peak memory)
    return _wrap(np.bitwise_and(gd.view(bits), mask, out=mask).view(gd.dtype), g._dtype, g._device)


def _relu_forward(xp, a):
    """``max(0, x)``, the bound first as in clamp (relu(-0.) is -0., as PyTorch's; ``maximum(x,
    0)`` gave +0.)."""
    return bound_first(xp, xp.maximum, 0, a)


_relu, relu_ = unary(
    "relu",
    _relu_forward,
    _relu_deriv,
    saves=("out",),
    to_float=False,
    vjp=_relu_vjp,
    jvp=_relu_jvp,
    check=checks(_no_bool_relu, no_complex("clamp is not supported for complex types")),
)


def relu(input):
    """``torch.relu`` (no ``out=`` in PyTorch)."""
    return _relu(input)


def _sign(xp, a):
    if a.dtype == bool:
        return a.copy()
    r = xp.asarray(xp.sign(a))  # a 0-d input gives a NumPy scalar
    if r.dtype.kind not in "biu":  # PyTorch: sign(NaN) = sgn(NaN) = 0 (NumPy gives NaN)
        r[xp.isnan(r)] = 0
    if r.dtype.char == D.BFLOAT16_CHAR:  # ml_dtypes keeps -0's sign; PyTorch's sign is +0
        r += 0
    return r


def _zero_vjp(x, out, g):
    return g.new_zeros(g.shape)  # +0 everywhere, even for a negative or NaN g


sign, sign_ = unary(
    "sign",
    _sign,
    _zero_deriv,
    saves=(),
    to_float=False,
    keep_bool=True,
    vjp=_zero_vjp,
    check=checks(
        no_complex(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."
        ),
        _not_implemented("sign_cpu", D.SHELL_UINT),
    ),
)


def _sgn(xp, a):
    if a.dtype == bool:
        return a.copy()
    if a.dtype.kind == "c":
        mag = xp.abs(a)
        return xp.where(mag == 0, 0, a / xp.where(mag == 0, 1, mag)).astype(a.dtype)
    return _sign(xp, a)


def _sgn_vjp(x, out, g):
    # sgn(z) = z / |z| is not holomorphic: d sgn/dz = 1 / (2|z|), d sgn/dz* = -sgn(z)^2 / (2|z|),
    # so PyTorch's conjugate Wirtinger gradient is (g - sgn^2 conj(g)) / (2|z|), 0 at z = 0.
    if x._dtype.category != D.COMPLEX:
        return _zero_vjp(x, out, g)
    mag = x.abs()
    return ((g - out * out * g.conj()) / (mag * 2)).masked_fill(mag == 0, 0.0)


def _sgn_jvp(x, out, t):
    if x._dtype.category != D.COMPLEX:
        return t * 0.0
    mag = x.abs()
    return ((t - out * out * t.conj()) / (mag * 2)).masked_fill(mag == 0, 0.0)


sgn, sgn_ = unary(
    "sgn",
    _sgn,
    _zero_deriv,
    saves=("x", "out"),
    to_float=False,
    keep_bool=True,
    vjp=_sgn_vjp,
    jvp=_sgn_jvp,
)


def _rounding(name, f):
    # Integer inputs are returned as they are; PyTorch has no bool kernel for these.
    complex_check = (
        _not_implemented(f"{name}_vml_cpu", D.COMPLEX)
        if name == "round"
        else no_complex(f"{name} is not supported for complex inputs")
    )
    return unary(
        name, lambda xp, a: f(xp, a) if a.dtype.char in D.FLOAT_CHARS else a.copy(), _zero_deriv, saves=(), to_float=False,
        check=checks(_not_implemented(f"{name}_vml_cpu", D.BOOL), complex_check),
    )  # fmt: skip


floor, floor_ = _rounding("floor", lambda xp, a: xp.floor(a))
ceil, ceil_ = _rounding("ceil", lambda xp, a: xp.ceil(a))
trunc, trunc_ = _rounding("trunc", lambda xp, a: xp.trunc(a))
fix, fix_ = trunc, trunc_
frac, frac_ = unary(
    "frac", lambda xp, a: a - xp.trunc(a), lambda x, out: 1.0, saves=(), to_float=False,
    check=_not_implemented("frac_cpu", D.BOOL, D.INT, D.COMPLEX),
)  # fmt: skip


def round(input, *, decimals: int = 0, out=None):
    """Round half to even, like PyTorch (and NumPy); ``decimals`` scales by a power of ten."""
    if decimals == 0:
        return _round0(input, out=out)
    if input._dtype.category != _FLOAT:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{_scalar(input._dtype)}'")
    a = input._data
    xp = np if input._device is cpu else xp_for(input)
    # PyTorch multiplies by 10**d for d > 0 but divides by 10**-d for d < 0 (fewer rounding errors).
    if decimals > 0:
        r = xp.round(a * 10.0**decimals) / 10.0**decimals
    else:
        r = xp.round(a / 10.0**-decimals) * 10.0**-decimals
    res = _wrap(r.astype(a.dtype, copy=False), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_RoundDecimals, (input,), res)
    if _fw_state.level and input._fw is not None:
        res._fw = input._fw * 0.0
        _register(res)
    return res if out is None else write_out(out, res, "round", OUT_FOUND)


_RoundDecimals = node_class("RoundBackward1", lambda node, g: (g * 0.0,))
_round0, _round0_ = _rounding("round", lambda xp, a: xp.round(a))


def round_(self, *, decimals: int = 0):
    if decimals == 0:
        return _round0_(self)
    if self._dtype.category != _FLOAT:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{_scalar(self._dtype)}'")
    return inplace(self, lambda s: round(s, decimals=decimals), (), False)


def positive(input):
    if input._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---- predicates / no-grad elementwise ---------------------------------------------------------
def _predicate(name, f, check=None, out_msg=None):
    """A bool-valued elementwise test. ``out_msg``: the op takes ``out=`` (None: it does not;
    "" : any dtype out, else PyTorch's message for a non-bool one)."""

    def op(input):
        if check is not None:
            check(input._dtype)
        xp = xp_for(input)
        return _wrap(f(xp, input._data), D.bool, input._device)

    if out_msg is not None:
        fn = op

        def op(input, *, out=None):
            if out is None:
                return fn(input)
            if out_msg and isinstance(out, Tensor) and out._dtype is not D.bool:
                raise RuntimeError(out_msg)
            return write_out(out, fn(input), name)

    op.__name__ = op.__qualname__ = name
    return op


isnan = _predicate(
    "isnan",
    lambda xp, a: xp.isnan(a) if a.dtype.char in D.INEXACT_CHARS else xp.zeros(a.shape, bool),
)
isinf = _predicate(
    "isinf",
    lambda xp, a: xp.isinf(a) if a.dtype.char in D.INEXACT_CHARS else xp.zeros(a.shape, bool),
)
isfinite = _predicate(
    "isfinite",
    lambda xp, a: xp.isfinite(a) if a.dtype.char in D.INEXACT_CHARS else xp.ones(a.shape, bool),
)
isposinf = _predicate(
    "isposinf",
    lambda xp, a: xp.isposinf(a) if a.dtype.char in D.FLOAT_CHARS else xp.zeros(a.shape, bool),
    no_complex("isposinf does not support complex inputs.", RuntimeError),
    "isposinf does not support non-boolean outputs.",
)
isneginf = _predicate(
    "isneginf",
    lambda xp, a: xp.isneginf(a) if a.dtype.char in D.FLOAT_CHARS else xp.zeros(a.shape, bool),
    no_complex("isneginf does not support complex inputs.", RuntimeError),
    "isneginf does not support non-boolean outputs.",
)
signbit = _predicate(
    "signbit",
    lambda xp, a: xp.signbit(a) if a.dtype.char in D.FLOAT_CHARS else a < 0,
    no_complex("signbit is not implemented for complex tensors."),
    "signbit does not support non-boolean outputs.",
)
logical_not = _predicate(
    "logical_not",
    lambda xp, a: xp.logical_not(a),
    _not_implemented("logical_not_cpu", D.SHELL_UINT),
    out_msg="",
)


def bitwise_not(input, *, out=None):
    if input._dtype.category > D.INT or input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"bitwise_not_cpu\" not implemented for '{_scalar(input._dtype)}'"
        )
    r = _wrap(xp_for(input).invert(input._data), input._dtype, input._device)
    return r if out is None else write_out(out, r, "bitwise_not", OUT_FOUND)


def bitwise_not_(self):
    return inplace(self, bitwise_not, (), False)


def logical_not_(self):
    return inplace(self, logical_not, (), False)


def nan_to_num(input, nan: float = 0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN, +inf and -inf (by default with 0 and the dtype's largest/smallest value)."""
    if input._dtype.category < _FLOAT:
        r = input.clone()
        return r if out is None else write_out(out, r, "nan_to_num", _NAN_TO_NUM_OUT)
    info = D.finfo(input._dtype.to_real())
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf

    def compute():
        a = input._data
        xp = np if input._device is cpu else xp_for(input)

        def fix(a):
            return xp.where(
                xp.isnan(a), nan, xp.where(xp.isposinf(a), hi, xp.where(xp.isneginf(a), lo, a))
            )

        # Complex: the real and imaginary parts are replaced independently, as in PyTorch.
        r = fix(a.real) + 1j * fix(a.imag) if a.dtype.kind == "c" else fix(a)
        res = _wrap(r.astype(a.dtype, copy=False), input._dtype, input._device)
        if _fw_state.level and input._fw is not None:
            res._fw = input._fw * input.isfinite()
            _register(res)
        return res

    r = _fz.nan_to_num_fused(input, compute)
    return r if out is None else write_out(out, r, "nan_to_num", _NAN_TO_NUM_OUT)


_NAN_TO_NUM_OUT = "nan_to_num: dtype of out: {out} should be same as input: {res}"


def nan_to_num_(self, nan: float = 0.0, posinf=None, neginf=None):
    return inplace(self, lambda s: nan_to_num(s, nan, posinf, neginf), (), True)


def lerp_(self, end, weight):
    # end and weight are the op's inputs too (a graph is recorded when only they need grad);
    # self's old value is saved for weight's gradient
    keep = isinstance(weight, Tensor) and weight._rg
    return inplace(self, lerp, (end, weight), keep)


@silent
def addcmul_(self, tensor1, tensor2, *, value=1):
    if isinstance(value, float) and self._dtype.category < _FLOAT:
        value = int(value)  # PyTorch converts the scalar to the (integer) tensor dtype
    if (
        not needs_any_grad(self, tensor1, tensor2)
        and self._dtype is tensor1._dtype is tensor2._dtype
        and self._data.dtype.char not in D.HALF_CHARS  # those in float32: addcmul's own path
        and _fits(self, tensor1, tensor2)
    ):
        xp = xp_for(self)
        t1 = tensor1._data if value == 1 else tensor1._data * value
        if self._dtype is D.float32 and xp is np:
            # One rounding of self + (value*t1)*t2, like PyTorch's fused multiply-add kernel.
            # The float64 sum can land on a float32 midpoint the exact sum is off: round_once.
            def run():
                acc = np.add(self._data, np.multiply(t1, tensor2._data, dtype=np.float64))
                r = acc.astype(np.float32)
                round_once(r, acc, t1, tensor2._data, self._data)
                np.copyto(self._data, r)

            return inplace(self, None, (), False, run)
        tmp = xp.multiply(t1, tensor2._data)
        return inplace(self, None, (), False, lambda: xp.add(self._data, tmp, out=self._data))
    return inplace(  # (tensor1 and tensor2 are inputs of the graph too)
        self, lambda s, t1, t2: addcmul(s, t1, t2, value=value), (tensor1, tensor2), False
    )


@silent
def addcdiv_(self, tensor1, tensor2, *, value=1):
    if (
        not needs_any_grad(self, tensor1, tensor2)
        and self._dtype is tensor1._dtype is tensor2._dtype
        and self._dtype.category >= _FLOAT
        and self._data.dtype.char not in D.HALF_CHARS  # those in float32: addcdiv's own path
        and _fits(self, tensor1, tensor2)
    ):
        xp = xp_for(self)
        # PyTorch's order: (value * tensor1) / tensor2, then + self.
        tmp = xp.divide(tensor1._data if value == 1 else tensor1._data * value, tensor2._data)
        return inplace(self, None, (), False, lambda: xp.add(self._data, tmp, out=self._data))
    return inplace(  # (tensor1 and tensor2 are inputs of the graph too)
        self, lambda s, t1, t2: addcdiv(s, t1, t2, value=value), (tensor1, tensor2), False
    )


def _fits(self, *others):
    """True when broadcasting ``others`` against ``self`` keeps ``self``'s shape."""
    try:
        return (
            np.broadcast_shapes(self._data.shape, *(o._data.shape for o in others))
            == self._data.shape
        )
    except ValueError:
        return False


def needs_any_grad(*ts):
    return _gm.enabled and any(t._rg for t in ts) or _fw_state.level


def logit_(self, eps=None):
    return inplace(self, lambda s: logit(s, eps), (), True)


def xlogy_(self, other):
    _shape_first(self, other)
    return inplace(self, xlogy, (other,), True)


def copysign_(self, other):
    _shape_first(self, other)
    return inplace(self, copysign, (other,), self._rg)  # self's old value: for its own gradient


from . import fused as _fz
from .fused import addcdiv, addcmul, copysign, lerp, logit, xlogy
