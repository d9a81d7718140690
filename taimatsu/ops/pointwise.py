"""Elementwise ops: each declared once with its forward, VJP and JVP.

``unary(name, forward, deriv)`` derives both the VJP (``g * deriv``) and the JVP
(``t * deriv``) from the derivative; binary ops give their VJP and JVP explicitly because
the cheap formulas differ (``add`` passes ``g`` through untouched).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._device import cpu
from ..autograd.forward_ad import _register, on_primals as _on_primals
from ..autograd.grad_mode import state as _gm
from ._dispatch import (
    Tensor,
    _fw_state,
    _wrap,
    binary_operands,
    broadcast_error,
    check_cast,
    inplace,
    node_class,
    record,
    result_dtype,
    write_out,
    xp_for,
)

_FLOAT = D.FLOAT


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def _conj(t):
    if isinstance(t, Tensor):
        return t.conj() if t._dtype.category == D.COMPLEX else t
    return t.conjugate() if isinstance(t, complex) else t


# ---- unary ----------------------------------------------------------------------------------
def unary(name, forward, deriv=None, *, saves=("x",), to_float=True, node=None, keep_bool=False, check=None):
    """Declare an elementwise op ``name(input)`` and its in-place ``name_``.

    ``forward(xp, a)`` works on arrays; ``deriv(x, out)`` gives d out / d x in Tensor ops
    (so double backward works). ``to_float``: integer inputs compute in the default float
    dtype, as PyTorch's "floating" unary ops do. ``check(dtype)`` raises PyTorch's error for
    dtypes the op does not support.
    """
    save_x, save_out = "x" in saves, "out" in saves

    def vjp(node, g):
        x, out = node.saved()
        return (g * _conj(deriv(x, out)),)

    Node = node_class(node or _camel(name) + "Backward0", vjp) if deriv else None

    def op(input, *, out=None):
        dt = input._dtype
        if check is not None:
            check(dt)
        data = input._data
        if to_float and dt.category < _FLOAT:
            dt = D.get_default_dtype()
            data = data.astype(dt.np)
        xp = np if input._device is cpu else xp_for(input)
        r = _wrap(forward(xp, data), dt, input._device)
        if keep_bool and dt is D.bool:
            r._data = r._data.astype(np.bool_)
        if input._rg and _gm.enabled and Node is not None:
            record(Node, (input,), r, (input if save_x else None, r if save_out else None))
        if _fw_state.level and input._fw is not None and deriv is not None:
            r._fw = input._fw * _on_primals(deriv, input, r)
            _register(r)
        if out is not None:
            return write_out(out, r, name)
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


exp, exp_ = unary("exp", lambda xp, a: xp.exp(a), lambda x, out: out, saves=("out",))
exp2, exp2_ = unary("exp2", lambda xp, a: xp.exp2(a), lambda x, out: out * math.log(2), saves=("out",))
expm1, expm1_ = unary("expm1", lambda xp, a: xp.expm1(a), lambda x, out: out + 1, saves=("out",))
log, log_ = unary("log", lambda xp, a: xp.log(a), lambda x, out: x.reciprocal())
log2, log2_ = unary("log2", lambda xp, a: xp.log2(a), lambda x, out: (x * math.log(2)).reciprocal())
log10, log10_ = unary("log10", lambda xp, a: xp.log10(a), lambda x, out: (x * math.log(10)).reciprocal())
log1p, log1p_ = unary("log1p", lambda xp, a: xp.log1p(a), lambda x, out: (x + 1).reciprocal(), node="Log1PBackward0")
sqrt, sqrt_ = unary("sqrt", lambda xp, a: xp.sqrt(a), lambda x, out: (out * 2).reciprocal(), saves=("out",))
rsqrt, rsqrt_ = unary(
    "rsqrt", lambda xp, a: 1 / xp.sqrt(a), lambda x, out: out.pow(3) * -0.5, saves=("out",)
)
sin, sin_ = unary("sin", lambda xp, a: xp.sin(a), lambda x, out: x.cos())
cos, cos_ = unary("cos", lambda xp, a: xp.cos(a), lambda x, out: -x.sin())
tan, tan_ = unary("tan", lambda xp, a: xp.tan(a), lambda x, out: out * out + 1, saves=("out",))
asin, asin_ = unary("asin", lambda xp, a: xp.arcsin(a), lambda x, out: (1 - x * x).rsqrt())
acos, acos_ = unary("acos", lambda xp, a: xp.arccos(a), lambda x, out: -(1 - x * x).rsqrt())
atan, atan_ = unary("atan", lambda xp, a: xp.arctan(a), lambda x, out: (x * x + 1).reciprocal())
sinh, sinh_ = unary("sinh", lambda xp, a: xp.sinh(a), lambda x, out: x.cosh())
cosh, cosh_ = unary("cosh", lambda xp, a: xp.cosh(a), lambda x, out: x.sinh())
tanh, tanh_ = unary("tanh", lambda xp, a: xp.tanh(a), lambda x, out: 1 - out * out, saves=("out",))
asinh, asinh_ = unary("asinh", lambda xp, a: xp.arcsinh(a), lambda x, out: (x * x + 1).rsqrt())
acosh, acosh_ = unary("acosh", lambda xp, a: xp.arccosh(a), lambda x, out: (x * x - 1).rsqrt())
atanh, atanh_ = unary("atanh", lambda xp, a: xp.arctanh(a), lambda x, out: (1 - x * x).reciprocal())
reciprocal, reciprocal_ = unary(
    "reciprocal", lambda xp, a: xp.reciprocal(a), lambda x, out: -out * out, saves=("out",)
)


def _sigmoid(xp, a):
    # exp of a negative argument only: stable for large |a|, like PyTorch's kernel.
    e = xp.exp(-xp.abs(a))
    return xp.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)


sigmoid, sigmoid_ = unary("sigmoid", _sigmoid, lambda x, out: out * (1 - out), saves=("out",))


def _erf(xp, a):
    return _special(xp).erf(a).astype(a.dtype, copy=False)


def _special(xp):
    if xp is np:
        import scipy.special

        return scipy.special
    import cupyx.scipy.special

    return cupyx.scipy.special


erf, erf_ = unary(
    "erf", _erf, lambda x, out: (-x * x).exp() * (2 / math.sqrt(math.pi))
)
erfc, erfc_ = unary(
    "erfc",
    lambda xp, a: _special(xp).erfc(a).astype(a.dtype, copy=False),
    lambda x, out: (-x * x).exp() * (-2 / math.sqrt(math.pi)),
)
erfinv, erfinv_ = unary(
    "erfinv",
    lambda xp, a: _special(xp).erfinv(a).astype(a.dtype, copy=False),
    lambda x, out: (out * out).exp() * (math.sqrt(math.pi) / 2),
    saves=("out",),
)
lgamma, lgamma_ = unary(
    "lgamma", lambda xp, a: _special(xp).gammaln(a).astype(a.dtype, copy=False), lambda x, out: x.digamma()
)
digamma, digamma_ = unary(
    "digamma",
    lambda xp, a: _special(xp).psi(a).astype(a.dtype, copy=False),
    lambda x, out: polygamma(1, x),
)


def _polygamma_vjp(node, g):
    (x,) = node.saved()
    return (g * polygamma(node.n + 1, x),)


_Polygamma = node_class("PolygammaBackward0", _polygamma_vjp)


def polygamma(n: int, input, *, out=None):
    """The n-th derivative of digamma; differentiable to any order (its VJP is polygamma n+1)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    dt = input._dtype if input._dtype.category >= _FLOAT else D.get_default_dtype()
    xp = xp_for(input)
    a = input._data.astype(dt.np, copy=False)
    data = (_special(xp).psi(a) if n == 0 else _special(xp).polygamma(n, a)).astype(dt.np, copy=False)
    res = _wrap(data, dt, input._device)
    if _gm.enabled and input._rg:
        record(_Polygamma, (input,), res, (input,), n=n)
    if _fw_state.level and input._fw is not None:
        res._fw = input._fw * _on_primals(lambda x: polygamma(n + 1, x), input)
        _register(res)
    return res if out is None else write_out(out, res, "polygamma")


# Ops that keep integer dtypes.
def _zero_deriv(x, out):
    return 0.0


def _not_implemented(kernel, *categories):
    """PyTorch's "kernel not implemented for 'Bool'" error for dtypes of these categories."""

    def check(dtype):
        if dtype.category in categories:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar(dtype)}\'')

    return check


def _no_bool_neg(dtype):
    if dtype is D.bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead."
        )


def _no_bool_relu(dtype):
    if dtype is D.bool:
        raise RuntimeError("Boolean inputs not supported for relu")


neg, neg_ = unary("neg", lambda xp, a: xp.negative(a), lambda x, out: -1.0, saves=(), to_float=False, check=_no_bool_neg)
negative, negative_ = neg, neg_
abs, abs_ = unary("abs", lambda xp, a: xp.abs(a), lambda x, out: x.sgn(), to_float=False, check=_not_implemented("abs_cpu", D.BOOL))  # noqa: A001
absolute, absolute_ = abs, abs_
square_ = None


def square(input, *, out=None):
    if input._dtype is D.bool:
        input = input.to(D.int64)
    return pow(input, 2, out=out)


def _relu_deriv(x, out):
    return out > 0


relu, relu_ = unary("relu", lambda xp, a: xp.maximum(a, 0), _relu_deriv, saves=("out",), to_float=False, check=_no_bool_relu)
sign, sign_ = unary("sign", lambda xp, a: a.copy() if a.dtype == bool else xp.sign(a), _zero_deriv, saves=(), to_float=False, keep_bool=True)


def _sgn(xp, a):
    if a.dtype == bool:
        return a.copy()
    if a.dtype.kind == "c":
        mag = xp.abs(a)
        return xp.where(mag == 0, 0, a / xp.where(mag == 0, 1, mag)).astype(a.dtype)
    return xp.sign(a)


sgn, sgn_ = unary("sgn", _sgn, _zero_deriv, saves=(), to_float=False, keep_bool=True)
def _rounding(name, f):
    # Integer inputs are returned as they are; PyTorch has no bool kernel for these.
    return unary(
        name, lambda xp, a: f(xp, a) if a.dtype.kind == "f" else a.copy(), _zero_deriv, saves=(), to_float=False,
        check=_not_implemented(f"{name}_vml_cpu", D.BOOL),
    )  # fmt: skip


floor, floor_ = _rounding("floor", lambda xp, a: xp.floor(a))
ceil, ceil_ = _rounding("ceil", lambda xp, a: xp.ceil(a))
trunc, trunc_ = _rounding("trunc", lambda xp, a: xp.trunc(a))
fix, fix_ = trunc, trunc_
frac, frac_ = unary(
    "frac", lambda xp, a: a - xp.trunc(a), lambda x, out: 1.0, saves=(), to_float=False,
    check=_not_implemented("frac_cpu", D.BOOL, D.INT),
)  # fmt: skip


def round(input, *, decimals: int = 0, out=None):  # noqa: A001
    """Round half to even, like PyTorch (and NumPy); ``decimals`` scales by a power of ten."""
    if decimals == 0:
        return _round0(input, out=out)
    if input._dtype.category < _FLOAT:
        raise NotImplementedError(f'"round_cpu" not implemented for \'{_scalar(input._dtype)}\'')
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
    return res if out is None else write_out(out, res, "round")


_RoundDecimals = node_class("RoundBackward1", lambda node, g: (g * 0.0,))
_round0, _round0_ = _rounding("round", lambda xp, a: xp.round(a))


def round_(self, *, decimals: int = 0):
    if decimals == 0:
        return _round0_(self)
    if self._dtype.category < _FLOAT:
        raise NotImplementedError(f'"round_cpu" not implemented for \'{_scalar(self._dtype)}\'')
    return inplace(self, lambda s: round(s, decimals=decimals), (), False)


def positive(input):
    if input._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---- predicates / no-grad elementwise ---------------------------------------------------------
def _predicate(name, f):
    def op(input):
        xp = xp_for(input)
        return _wrap(f(xp, input._data), D.bool, input._device)

    op.__name__ = op.__qualname__ = name
    return op


isnan = _predicate("isnan", lambda xp, a: xp.isnan(a) if a.dtype.kind in "fc" else xp.zeros(a.shape, bool))
isinf = _predicate("isinf", lambda xp, a: xp.isinf(a) if a.dtype.kind in "fc" else xp.zeros(a.shape, bool))
isfinite = _predicate("isfinite", lambda xp, a: xp.isfinite(a) if a.dtype.kind in "fc" else xp.ones(a.shape, bool))
isposinf = _predicate("isposinf", lambda xp, a: xp.isposinf(a) if a.dtype.kind == "f" else xp.zeros(a.shape, bool))
isneginf = _predicate("isneginf", lambda xp, a: xp.isneginf(a) if a.dtype.kind == "f" else xp.zeros(a.shape, bool))
signbit = _predicate("signbit", lambda xp, a: xp.signbit(a) if a.dtype.kind == "f" else a < 0)
logical_not = _predicate("logical_not", lambda xp, a: xp.logical_not(a))


def bitwise_not(input, *, out=None):
    if input._dtype.category > D.INT:
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for \'{_scalar(input._dtype)}\'')
    r = _wrap(xp_for(input).invert(input._data), input._dtype, input._device)
    return r if out is None else write_out(out, r, "bitwise_not")


def bitwise_not_(self):
    return inplace(self, bitwise_not, (), False)


def logical_not_(self):
    return inplace(self, logical_not, (), False)


def _scalar(dtype):
    from ._dispatch import scalar_name

    return scalar_name(dtype)


def nan_to_num(input, nan: float = 0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN, +inf and -inf (by default with 0 and the dtype's largest/smallest value)."""
    if input._dtype.category < _FLOAT:
        r = input.clone()
        return r if out is None else write_out(out, r, "nan_to_num")
    info = D.finfo(input._dtype.to_real())
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf

    def compute():
        a = input._data
        xp = np if input._device is cpu else xp_for(input)
        r = xp.where(xp.isnan(a), nan, xp.where(xp.isposinf(a), hi, xp.where(xp.isneginf(a), lo, a)))
        res = _wrap(r.astype(a.dtype, copy=False), input._dtype, input._device)
        if _fw_state.level and input._fw is not None:
            res._fw = input._fw * input.isfinite()
            _register(res)
        return res

    r = _fz.nan_to_num_fused(input, compute)
    return r if out is None else write_out(out, r, "nan_to_num")


def nan_to_num_(self, nan: float = 0.0, posinf=None, neginf=None):
    return inplace(self, lambda s: nan_to_num(s, nan, posinf, neginf), (), True)


# ---- binary ---------------------------------------------------------------------------------------
def _xp_of(a, b):
    d = a._device if isinstance(a, Tensor) else b._device
    return np if d is cpu else xp_for(a if isinstance(a, Tensor) else b)


def _run(f, xp, xa, xb, a, b):
    try:
        return f(xp, xa, xb)
    except ValueError as e:
        if "broadcast" in str(e):
            raise broadcast_error([_shape(a), _shape(b)]) from None
        raise


def _shape(x):
    return x._data.shape if isinstance(x, Tensor) else ()


def _tensor_or_none(x):
    return x if isinstance(x, Tensor) else None


def binary(name, forward, vjp=None, jvp=None, *, node=None, kind=None, saves=(0, 1), ufunc=None, saves_self=True,
           scalar_node=None):  # fmt: skip
    """Declare ``name(input, other)``; ``kind`` is None (promoted dtype), 'float' (integers
    promote to the default float dtype) or 'bool' (comparisons).

    ``scalar_node``: the node name of PyTorch's ``Tensor, Scalar`` overload, which has a single
    edge (``x % 2`` is RemainderBackward0, ``x % y`` RemainderBackward1). Without it a Python
    scalar is a wrapped 0-d tensor, as for add/mul/div (``x * 2``: MulBackward0, edges (x, None)).
    """
    Node = node_class(node or _camel(name) + "Backward0", vjp) if vjp is not None else None
    ScalarNode = node_class(scalar_node, vjp) if scalar_node is not None else None

    def op(input, other, *, out=None):
        if not isinstance(input, Tensor):
            input = _scalar_tensor(input, other)
        xa, xb, dt = binary_operands(input, other)
        if kind == "float" and dt.category < _FLOAT:
            dt = D.get_default_dtype()
            # Re-read the operands as floats: a Python scalar must not wrap into the int dtype
            # first (uint8 tensor / -1 divides by -1.0, not by 255).
            xa = _cast(input._data, dt)
            xb = _cast(other._data, dt) if isinstance(other, Tensor) else other
        xp = np if input._device is cpu else _xp_of(input, other)
        r = _run(forward, xp, xa, xb, input, other)
        res = _wrap(r, D.bool if kind == "bool" else dt, input._device)
        if Node is not None and _gm.enabled and (input._rg or (isinstance(other, Tensor) and other._rg)):
            ob = other if isinstance(other, Tensor) else None
            saved = tuple(res if i == "out" else (input, ob)[i] for i in saves)
            if ob is None and ScalarNode is not None:
                record(ScalarNode, (input,), res, saved, scalar=other)
            else:
                record(Node, (input, ob), res, saved, scalar=None if ob is not None else other)
        if _fw_state.level and jvp is not None:
            _binary_tangent(jvp, input, other, res)
        if out is not None:
            return write_out(out, res, name)
        return res

    if kind == "bool":
        # In place, a comparison writes 0/1 in self's dtype; with autograd PyTorch records a
        # node whose gradients are zero (EqBackward0 for a tensor other, EqBackward1 for a scalar).
        # PyTorch numbers them by overload: eq_.Scalar is EqBackward0, eq_.Tensor EqBackward1.
        CmpS = node_class(_camel(name) + "Backward0", lambda node, g: (g * 0,))
        CmpT = node_class(_camel(name) + "Backward1", lambda node, g: (g * 0, None))

        def functional(s, o):
            r = op(s, o).to(s._dtype)
            if _gm.enabled and (s._rg or (isinstance(o, Tensor) and o._rg)):
                if isinstance(o, Tensor):
                    record(CmpT, (s, o), r)
                else:
                    record(CmpS, (s,), r)
            return r
    else:
        functional = op

    def op_(self, other):
        if isinstance(other, Tensor) and other._data.shape != self._data.shape:
            _check_inplace_broadcast(self, other)  # PyTorch checks the shape before the dtype
        # The ufunc fast path writes in self's dtype; int / int true division must instead
        # reach commit_inplace's cast check (PyTorch: "result type Float can't be cast...").
        direct = kind is None or self._dtype.category >= _FLOAT
        bits = ufunc is not None and ("bitwise" in ufunc or "shift" in ufunc)
        fast = _fast(ufunc, self, other) if direct and kind != "bool" and not (bits and self._dtype.category > D.INT) else None
        return inplace(self, functional, (other,), saves_self and 0 in saves, fast)

    op.__name__ = op.__qualname__ = name
    op_.__name__ = op_.__qualname__ = name + "_"
    return op, op_


def _check_inplace_broadcast(self, other):
    from ._dispatch import check_inplace_shape

    try:
        shape = np.broadcast_shapes(self._data.shape, other._data.shape)
    except ValueError:
        raise broadcast_error([self._data.shape, other._data.shape]) from None
    check_inplace_shape(self, shape)


def _cast(x, dt):
    return x.astype(dt.np) if hasattr(x, "astype") and x.dtype != dt.np else x


def _scalar_tensor(value, other):
    from .creation import scalar_tensor

    return scalar_tensor(value, device=other._device if isinstance(other, Tensor) else None)


def _fast(ufunc, self, other):
    """Write ``ufunc(self, other)`` straight into ``self`` when dtypes already agree."""
    if ufunc is None:
        return None
    if isinstance(other, Tensor):
        if other._dtype is not self._dtype or other._data.ndim > self._data.ndim:
            return None
        xb = other._data
    elif isinstance(other, (bool, int)) and self._dtype.category >= D.INT and _fits_int(other, self._dtype) or (
        isinstance(other, float) and self._dtype.category >= _FLOAT
    ):
        xb = other
    else:
        return None

    def run():
        xp = np if self._device is cpu else xp_for(self)
        try:
            getattr(xp, ufunc)(self._data, xb, out=self._data)
        except ValueError:
            from ._dispatch import check_inplace_shape

            try:
                shape = np.broadcast_shapes(self._data.shape, other._data.shape)
            except ValueError:
                raise broadcast_error([self._data.shape, other._data.shape]) from None
            check_inplace_shape(self, shape)
            raise

    return run


def _fits_int(v, dtype):
    if dtype.category != D.INT:
        return True
    info = np.iinfo(dtype.np)
    return info.min <= v <= info.max


def _binary_tangent(jvp, a, b, out):
    ta = a._fw if isinstance(a, Tensor) else None
    tb = b._fw if isinstance(b, Tensor) else None
    if ta is None and tb is None:
        return
    out._fw = _on_primals(jvp, a, b, out, ta, tb)
    _register(out)


def _ga(node):
    return node.next_functions[0][0] is not None


def _gb(node):
    nf = node.next_functions
    return len(nf) > 1 and nf[1][0] is not None


def _other(node, b):
    return node.scalar if b is None else b


def _add_vjp(node, g):
    return g, (g if _gb(node) else None)


def _sum_tangents(ta, tb, scale_b=1):
    if tb is None:
        return ta
    tb = tb if scale_b == 1 else tb * scale_b
    return tb if ta is None else ta + tb


def _add_jvp(a, b, out, ta, tb):
    return _sum_tangents(ta, tb)


def _alpha_vjp(sign_a, sign_b):
    def vjp(node, g):
        alpha = node.alpha
        ga = (g if sign_a > 0 else -g) if alpha == 1 or sign_a > 0 else g * -alpha
        if len(node.next_functions) < 2 or not _gb(node):
            return (ga,) if len(node.next_functions) < 2 else (ga, None)
        gb = (g if sign_b > 0 else -g) if alpha == 1 else g * (alpha * sign_b)
        return ga, gb

    return vjp


_AddNode = node_class("AddBackward0", _alpha_vjp(1, 1))
_SubNode = node_class("SubBackward0", _alpha_vjp(1, -1))
_RsubNode = node_class("RsubBackward0", lambda node, g: (g * -node.alpha, g if _gb(node) else None))
_RsubScalarNode = node_class("RsubBackward1", lambda node, g: (g * -node.alpha,))
for _n in (_AddNode, _SubNode, _RsubNode, _RsubScalarNode):
    _n.alpha = 1  # class default: the common alpha == 1 needs no per-node attribute

_BOOL_SUB = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
    "use the `~` or `logical_not()` operator instead."
)


def _check_alpha(dt, alpha):
    if isinstance(alpha, bool):
        if dt is not D.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and dt.category < _FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _check_sub_bool(a, b):
    a_bool = isinstance(a, Tensor) and a._dtype is D.bool or isinstance(a, bool)
    b_bool = isinstance(b, Tensor) and b._dtype is D.bool or isinstance(b, bool)
    if a_bool and b_bool and isinstance(a, Tensor) and isinstance(b, Tensor):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(_BOOL_SUB)


def _xp_add(xp, a, b):
    return xp.add(a, b)


def _xp_subtract(xp, a, b):
    return xp.subtract(a, b)


def _linear2(input, other, alpha, sa, sb, node, name, out):
    """``sa * input + sb * alpha * other`` for add (1, 1), sub (1, -1) and rsub (-1, 1)."""
    xa, xb, dt = binary_operands(input, other)
    if alpha != 1 or isinstance(alpha, bool):
        _check_alpha(dt, alpha)
    xp = np if input._device is cpu else _xp_of(input, other)
    if sa < 0:  # rsub: other - alpha * input
        xa, xb = xb, xa
    if alpha != 1 and dt is D.float32 and xp is np:
        # PyTorch's CPU kernel computes a + alpha * b as one fused multiply-add; doing it in
        # float64 and rounding once gives the same float32 result.
        c = np.float64(np.float32(alpha if sa == sb else -alpha))
        r = _run(lambda xp, a, b: (np.add(a, np.multiply(b, c, dtype=np.float64))).astype(np.float32), xp, xa, xb, input, other)
    else:
        if alpha != 1:
            xb = xb * alpha
        r = _run(_xp_add if sa == sb else _xp_subtract, xp, xa, xb, input, other)
    if dt is D.bool and r.dtype != np.bool_:
        r = r.astype(np.bool_)
    res = _wrap(r, dt, input._device)
    ob = other if isinstance(other, Tensor) else None
    if _gm.enabled and (input._rg or (ob is not None and ob._rg)):
        if ob is None and node is _RsubNode:
            record(_RsubScalarNode, (input,), res, alpha=alpha) if alpha != 1 else record(_RsubScalarNode, (input,), res)
        else:
            record(node, (input, ob), res, alpha=alpha) if alpha != 1 else record(node, (input, ob), res)
    if _fw_state.level:
        ta = input._fw
        tb = ob._fw if ob is not None else None
        if ta is not None or tb is not None:
            t = None if ta is None else (ta if sa > 0 else ta * -alpha)
            if tb is not None:
                tb = tb * (alpha * sb) if sa > 0 else tb
                t = tb if t is None else t + tb
            res._fw = t
            _register(res)
    return res if out is None else write_out(out, res, name)


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with PyTorch's promotion (AddBackward0)."""
    if not isinstance(input, Tensor):
        input = _scalar_tensor(input, other)
    return _linear2(input, other, alpha, 1, 1, _AddNode, "add", out)


def _add(input, other, out=None):
    return _linear2(input, other, 1, 1, 1, _AddNode, "add", out)


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` (SubBackward0); bool operands are refused as in PyTorch."""
    if not isinstance(input, Tensor):
        input = _scalar_tensor(input, other)
    _check_sub_bool(input, other)
    return _linear2(input, other, alpha, 1, -1, _SubNode, "sub", out)


subtract = sub


def add_(self, other, *, alpha=1):
    fast = _fast("add", self, other) if alpha == 1 else None
    return inplace(self, lambda s, o: add(s, o, alpha=alpha), (other,), False, fast)


def sub_(self, other, *, alpha=1):
    _check_sub_bool(self, other)
    fast = _fast("subtract", self, other) if alpha == 1 else None
    return inplace(self, lambda s, o: sub(s, o, alpha=alpha), (other,), False, fast)


subtract_ = sub_


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``2 - t`` lands here: RsubBackward1)."""
    _check_sub_bool(input, other)
    return _linear2(input, other, alpha, -1, 1, _RsubNode, "rsub", None)


def _mul_vjp(node, g):
    a, b = node.saved()
    other = _other(node, b)
    ga = g * _conj(other) if _ga(node) else None
    gb = g * _conj(a) if _gb(node) else None
    return ga, gb


def _mul_jvp(a, b, out, ta, tb):
    r = None
    if ta is not None:
        r = ta * b
    if tb is not None:
        r = tb * a if r is None else r + tb * a
    return r


mul, mul_ = binary("mul", lambda xp, a, b: xp.multiply(a, b), _mul_vjp, _mul_jvp, ufunc="multiply")
multiply, multiply_ = mul, mul_


def _div_vjp(node, g):
    a, b = node.saved()
    other = _other(node, b)
    ga = g / _conj(other) if _ga(node) else None
    gb = None
    if _gb(node):
        gb = -g * _conj(a) / _conj(other * other)
    return ga, gb


def _div_jvp(a, b, out, ta, tb):
    r = None if ta is None else ta / b
    if tb is not None:
        t = -tb * out / b
        r = t if r is None else r + t
    return r


def _true_divide(xp, a, b):
    return xp.true_divide(a, b)


_true_div, _true_div_ = binary("div", _true_divide, _div_vjp, _div_jvp, kind="float", ufunc="true_divide")


def _trunc_div(xp, a, b):
    if a.dtype.kind in "fc":
        return xp.trunc(a / b)
    q = xp.floor_divide(a, b)
    # C-style truncation for integers: floor division rounds toward -inf.
    fix = (q < 0) & (q * b != a)
    return q + fix


def _floor_div(xp, a, b):
    if getattr(a, "dtype", None) is not None and a.dtype.kind in "iub" or isinstance(a, int):
        if xp.any(xp.asarray(b) == 0):
            raise RuntimeError("ZeroDivisionError")
    return xp.floor_divide(a, b)


def _zero_vjp2(node, g):
    z = g * 0.0
    return z, (z if _gb(node) else None)


def _zero_jvp(a, b, out, ta, tb):
    return out.new_zeros(out.shape)


def _floor_divide_vjp(node, g):
    raise RuntimeError("derivative for aten::floor_divide is not implemented")


_trunc_divide, _ = binary("div", _trunc_div, _zero_vjp2, _zero_jvp, node="DivBackward2", saves=())
_floor_divide, _ = binary("div", _floor_div, _zero_vjp2, _zero_jvp, node="DivBackward2", saves=())
# torch.floor_divide (``//``) has no derivative: its node raises when reached.
_floor_divide_op, _ = binary("floor_divide", _floor_div, _floor_divide_vjp, node="NotImplemented", saves=())


def div(input, other, *, rounding_mode=None, out=None):
    """True division; ``rounding_mode`` 'trunc' or 'floor' keeps integer dtypes."""
    if rounding_mode is None:
        return _true_div(input, other, out=out)
    if rounding_mode == "trunc":
        return _trunc_divide(input, other, out=out)
    if rounding_mode == "floor":
        return _floor_divide(input, other, out=out)
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
    )


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _true_div_(self, other)
    return inplace(self, lambda s, o: div(s, o, rounding_mode=rounding_mode), (other,), False)


divide, divide_, true_divide, true_divide_ = div, div_, _true_div, _true_div_


def floor_divide(input, other, *, out=None):
    return _floor_divide_op(input, other, out=out)


def floor_divide_(self, other):
    return inplace(self, _floor_divide_op, (other,), False)


def _remainder_vjp(node, g):
    a, b = node.saved()
    gb = -g * a.div(b, rounding_mode="floor") if _gb(node) else None
    return g, gb


def _remainder(xp, a, b):
    _check_int_zero(xp, a, b)
    return xp.remainder(a, b)


def _check_int_zero(xp, a, b):
    if getattr(a, "dtype", np.dtype(float)).kind in "iu" and xp.any(xp.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _remainder_jvp(a, b, out, ta, tb):
    t = ta
    if tb is not None:
        tq = -tb * a.div(b, rounding_mode="floor")
        t = tq if t is None else t + tq
    return t


def _fmod_vjp(node, g):
    a, b = node.saved()
    return g, (-g * a.div(b, rounding_mode="trunc") if _gb(node) else None)


def _fmod_jvp(a, b, out, ta, tb):
    t = ta
    if tb is not None:
        tq = -tb * a.div(b, rounding_mode="trunc")
        t = tq if t is None else t + tq
    return t


remainder, remainder_ = binary(
    "remainder", _remainder, _remainder_vjp, _remainder_jvp, node="RemainderBackward1", scalar_node="RemainderBackward0"
)


def _fmod(xp, a, b):
    _check_int_zero(xp, a, b)
    return xp.fmod(a, b)


fmod, fmod_ = binary("fmod", _fmod, _fmod_vjp, _fmod_jvp, node="FmodBackward1", scalar_node="FmodBackward0")


def _max_vjp(node, g):
    a, b = node.saved()
    eq = a == b
    half = g / 2
    ga = where(eq, half, where(a > b, g, 0.0)) if _ga(node) else None
    gb = where(eq, half, where(b > a, g, 0.0)) if _gb(node) else None
    return ga, gb


def _min_vjp(node, g):
    a, b = node.saved()
    eq = a == b
    half = g / 2
    ga = where(eq, half, where(a < b, g, 0.0)) if _ga(node) else None
    gb = where(eq, half, where(b < a, g, 0.0)) if _gb(node) else None
    return ga, gb


def _blend_tangent(weight_a, ta, tb, out):
    # PyTorch's formula: tb + w * (ta - tb), with w = 1/2 where the operands tie.
    z = out.new_zeros(())
    ta = z if ta is None else ta
    tb = z if tb is None else tb
    return tb + weight_a * (ta - tb)


def _tie_weight(a, b, pick_a):
    return where(a == b, 0.5, pick_a.to(a.dtype if a._dtype.category >= _FLOAT else D.get_default_dtype()))


maximum, _ = binary("maximum", lambda xp, a, b: xp.maximum(a, b), _max_vjp, lambda a, b, o, ta, tb: _blend_tangent(_tie_weight(a, b, a > b), ta, tb, o))
minimum, _ = binary("minimum", lambda xp, a, b: xp.minimum(a, b), _min_vjp, lambda a, b, o, ta, tb: _blend_tangent(_tie_weight(a, b, a < b), ta, tb, o))
fmax, _ = binary("fmax", lambda xp, a, b: xp.fmax(a, b), _max_vjp, lambda a, b, o, ta, tb: _blend_tangent((a >= b) | b.isnan(), ta, tb, o))
fmin, _ = binary("fmin", lambda xp, a, b: xp.fmin(a, b), _min_vjp, lambda a, b, o, ta, tb: _blend_tangent((a <= b) | b.isnan(), ta, tb, o))


def _atan2_vjp(node, g):
    a, b = node.saved()
    denom = a * a + b * b
    return (g * b / denom if _ga(node) else None), (-g * a / denom if _gb(node) else None)


def _atan2_jvp(a, b, out, ta, tb):
    z = out.new_zeros(())
    return ((z if ta is None else ta) * b - (z if tb is None else tb) * a) / (a * a + b * b)


def _hypot_jvp(a, b, out, ta, tb):
    z = out.new_zeros(())
    return ((z if ta is None else ta) * a + (z if tb is None else tb) * b) / out


atan2, atan2_ = binary("atan2", lambda xp, a, b: xp.arctan2(a, b), _atan2_vjp, _atan2_jvp, kind="float")
arctan2, arctan2_ = atan2, atan2_


def _hypot_vjp(node, g):
    a, b, out = node.saved()
    return (g * a / out if _ga(node) else None), (g * b / out if _gb(node) else None)


hypot, hypot_ = binary("hypot", lambda xp, a, b: xp.hypot(a, b), _hypot_vjp, _hypot_jvp, saves=(0, 1, "out"))

# Comparisons: computed in the promoted dtype, result bool, no gradient.
eq, eq_ = binary("eq", lambda xp, a, b: xp.equal(a, b), kind="bool")
ne, ne_ = binary("ne", lambda xp, a, b: xp.not_equal(a, b), kind="bool")
lt, lt_ = binary("lt", lambda xp, a, b: xp.less(a, b), kind="bool")
le, le_ = binary("le", lambda xp, a, b: xp.less_equal(a, b), kind="bool")
gt, gt_ = binary("gt", lambda xp, a, b: xp.greater(a, b), kind="bool")
ge, ge_ = binary("ge", lambda xp, a, b: xp.greater_equal(a, b), kind="bool")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and, logical_and_ = binary("logical_and", lambda xp, a, b: xp.logical_and(a, b), kind="bool")
logical_or, logical_or_ = binary("logical_or", lambda xp, a, b: xp.logical_or(a, b), kind="bool")
logical_xor, logical_xor_ = binary("logical_xor", lambda xp, a, b: xp.logical_xor(a, b), kind="bool")


def _bitwise(name, ufunc, kernel=None):
    kernel = kernel or name + "_cpu"

    def forward(xp, a, b):
        if getattr(a, "dtype", np.dtype(int)).kind not in "iub":
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
    if e == 0:
        return (g * 0,)
    return (g * _conj(x.pow(e - 1) * e),)


def _pow_tensor_vjp(node, g):
    a, b, out = node.saved()
    ga = gb = None
    if _ga(node):
        ga = g * _conj(b * a.pow(b - 1))
    if _gb(node):
        la = where(a == 0, 0.0, a.log()) if a._dtype.category != D.COMPLEX else a.log()
        gb = g * _conj(out * la)
    return ga, gb


def _rpow_vjp(node, g):
    (_, out) = node.saved()
    return (g * _conj(out * math.log(node.base)) if node.base != 0 else g * 0,)


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
    return xp.power(a, b)


def pow(input, exponent, *, out=None):  # noqa: A001
    """``input ** exponent`` for Tensor/scalar combinations, with PyTorch's node names."""
    if not isinstance(input, Tensor):
        return _rpow(exponent, input, out=out)
    if isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0 and input._dtype.category == D.INT:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    xa, xb, dt = binary_operands(input, exponent)
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
            res._fw = input._fw * _on_primals(lambda x: x.pow(exponent - 1) * exponent if exponent != 0 else x * 0, input)
            _register(res)
    return res if out is None else write_out(out, res, "pow")


def _pow_jvp(a, b, out, ta, tb):
    r = None
    if ta is not None:
        r = ta * b * a.pow(b - 1)
    if tb is not None:
        t = tb * out * a.log()
        r = t if r is None else r + t
    return r


def _rpow(input, base, out=None):
    """``base ** input`` for a Python-number base (PowBackward2)."""
    dt = result_dtype(input, base)
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
    return pow(a, b, out=out)


# ---- clamp, where, masked_fill, lerp, addcmul/addcdiv -----------------------------------------------------
def _clamp_vjp(node, g):
    (x,) = node.saved()
    mask = None
    if node.lo is not None:
        mask = x >= node.lo
    if node.hi is not None:
        m = x <= node.hi
        mask = m if mask is None else mask & m
    return (g * mask,)


_Clamp = node_class("ClampBackward1", _clamp_vjp)


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    """Clamp into [min, max]; the gradient passes where the input is inside (inclusive)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        r = _fz.clamp_tensor(input, min, max)
        return r if out is None else write_out(out, r, "clamp")
    dt = result_dtype(input, *(v for v in (min, max) if v is not None))
    xp = np if input._device is cpu else xp_for(input)
    a = input._data if input._dtype is dt else input._data.astype(dt.np)
    if min is not None and max is not None and not (isinstance(min, float) and math.isnan(min)):
        r = xp.minimum(xp.maximum(a, min), max)
    elif min is not None:
        r = xp.maximum(a, min)
    else:
        r = xp.minimum(a, max)
    res = _wrap(r.astype(dt.np, copy=False), dt, input._device)
    if _gm.enabled and input._rg:
        record(_Clamp, (input,), res, (input,), lo=min, hi=max)
    if _fw_state.level and input._fw is not None:
        res._fw = input._fw * _clamp_vjp_mask(input, min, max)
        _register(res)
    return res if out is None else write_out(out, res, "clamp")


def _clamp_vjp_mask(x, lo, hi):
    m = x == x
    if lo is not None:
        m = m & (x >= lo)
    if hi is not None:
        m = m & (x <= hi)
    return m


clip = clamp


def clamp_(self, min=None, max=None):  # noqa: A002
    _check_clamp_cast(self, min, max)
    return inplace(self, lambda s: clamp(s, min, max), (), True)


def _check_clamp_cast(self, *bounds):
    # clamp_'s message names the destination by its C++ type ("long int").
    dt = result_dtype(self, *(b for b in bounds if b is not None))
    if not D.can_cast(dt, self._dtype):
        raise RuntimeError(f"result type {_scalar(dt)} can't be cast to the desired output type {_cpp_name(self._dtype)}")


clip_ = clamp_


def clamp_min(input, min):  # noqa: A002
    return _fz.clamp_side(input, min, "min")


def clamp_max(input, max):  # noqa: A002
    return _fz.clamp_side(input, max, "max")


def clamp_min_(self, min):  # noqa: A002
    _check_clamp_cast(self, min)
    return inplace(self, lambda s: clamp_min(s, min), (), True)


def clamp_max_(self, max):  # noqa: A002
    _check_clamp_cast(self, max)
    return inplace(self, lambda s: clamp_max(s, max), (), True)


def _where_vjp(node, g):
    cond, a, b = node.saved()
    z = g.new_zeros(())
    ga = where(cond, g, z) if _gb_i(node, 0) else None
    gb = where(cond, z, g) if _gb_i(node, 1) else None
    return ga, gb


def _gb_i(node, i):
    return node.next_functions[i][0] is not None


_Where = node_class("WhereBackward0", _where_vjp)


def where(condition, input=None, other=None, *, out=None):
    """``condition ? input : other`` with broadcasting; one argument means ``nonzero``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if not isinstance(condition, Tensor) or condition._dtype is not D.bool:
        if isinstance(condition, Tensor) and condition._dtype is D.uint8:
            pass
        else:
            raise RuntimeError(
                f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{_scalar(condition._dtype) if isinstance(condition, Tensor) else type(condition).__name__}"
            )
    ref = input if isinstance(input, Tensor) else other if isinstance(other, Tensor) else condition
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        dt = result_dtype(input, other)
    elif isinstance(input, Tensor):
        dt = input._dtype if _scalar_fits(other, input._dtype) else result_dtype(input, other)
    elif isinstance(other, Tensor):
        dt = other._dtype if _scalar_fits(input, other._dtype) else result_dtype(input, other)
    else:
        dt = result_dtype(input, other)
    xp = np if ref._device is cpu else xp_for(ref)
    xa = input._data.astype(dt.np, copy=False) if isinstance(input, Tensor) else input
    xb = other._data.astype(dt.np, copy=False) if isinstance(other, Tensor) else other
    try:
        r = xp.where(condition._data, xa, xb)
    except ValueError:
        raise broadcast_error([condition._data.shape, _shape(input if isinstance(input, Tensor) else other)]) from None
    res = _wrap(r.astype(dt.np, copy=False), dt, ref._device)
    ti, to = _tensor_or_none(input), _tensor_or_none(other)
    if _gm.enabled and ((ti is not None and ti._rg) or (to is not None and to._rg)):
        record(_Where, (ti, to), res, (condition, None, None))
    if _fw_state.level and ((ti is not None and ti._fw is not None) or (to is not None and to._fw is not None)):
        z = res.new_zeros(())
        res._fw = where(condition, ti._fw if ti is not None and ti._fw is not None else z, to._fw if to is not None and to._fw is not None else z)
        _register(res)
    return res if out is None else write_out(out, res, "where")


def _scalar_fits(s, dt):
    return D.scalar_dtype(s).category <= dt.category


def masked_fill(input, mask, value):
    """Fill where ``mask`` is True (MaskedFillBackward0)."""
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {_mask_dtype_name(mask)}"
        )
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} dimension(s)."
            )
        if value._rg or input._rg and _gm.enabled:
            v = value.to(input._dtype)
            return _fz.masked_fill_tensor(input, mask, value, lambda: masked_fill(input, mask, v.item()))
        if _fw_state.level and value._fw is not None:
            # The tangent is the value's tangent where the mask is set, the input's elsewhere.
            res = masked_fill(input.detach(), mask, value.item())
            t_in = input._fw if input._fw is not None else input.new_zeros(())
            res._fw = where(mask, value._fw.to(input._dtype), t_in).expand(res.shape).contiguous()
            _register(res)
            return res
        value = value.item()
    xp = np if input._device is cpu else xp_for(input)
    try:
        shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        raise broadcast_error([input._data.shape, mask._data.shape]) from None
    if shape != input._data.shape:
        return masked_fill(input.expand(shape), mask, value)
    r = xp.where(mask._data, xp.asarray(value).astype(input._data.dtype), input._data)
    res = _wrap(r, input._dtype, input._device)
    if _gm.enabled and input._rg:
        record(_MaskedFill, (input,), res, (mask,))
    if _fw_state.level and input._fw is not None:
        res._fw = masked_fill(input._fw, mask, 0)
        _register(res)
    return res


_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}  # fmt: skip


def _cpp_name(dtype) -> str:
    """The C++ type name some PyTorch messages print (``long int`` for int64)."""
    return _CPP_NAMES[dtype.name]


def _mask_dtype_name(mask):
    return _cpp_name(mask._dtype) if isinstance(mask, Tensor) else type(mask).__name__


_MaskedFill = node_class("MaskedFillBackward0", lambda node, g: (masked_fill(g, node.saved()[0], 0),))


def masked_fill_(self, mask, value):
    if isinstance(mask, Tensor):
        try:
            shape = np.broadcast_shapes(self._data.shape, mask._data.shape)
        except ValueError:
            raise broadcast_error([self._data.shape, mask._data.shape]) from None
        if shape != self._data.shape:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}")
    return inplace(self, lambda s: masked_fill(s, mask, value), (), False)


def lerp_(self, end, weight):
    return inplace(self, lambda s: lerp(s, end, weight), (), True)


def addcmul_(self, tensor1, tensor2, *, value=1):
    if isinstance(value, float) and self._dtype.category < _FLOAT:
        value = int(value)  # PyTorch converts the scalar to the (integer) tensor dtype
    if (
        not needs_any_grad(self, tensor1, tensor2)
        and self._dtype is tensor1._dtype is tensor2._dtype
        and True
        and _fits(self, tensor1, tensor2)
    ):
        xp = xp_for(self)
        t1 = tensor1._data if value == 1 else tensor1._data * value
        if self._dtype is D.float32 and xp is np:
            # One rounding of self + (value*t1)*t2, like PyTorch's fused multiply-add kernel.
            def run():
                acc = np.add(self._data, np.multiply(t1, tensor2._data, dtype=np.float64))
                np.copyto(self._data, acc, casting="unsafe")

            return inplace(self, None, (), False, run)
        tmp = xp.multiply(t1, tensor2._data)
        return inplace(self, None, (), False, lambda: xp.add(self._data, tmp, out=self._data))
    return inplace(self, lambda s: addcmul(s, tensor1, tensor2, value=value), (), False)


def addcdiv_(self, tensor1, tensor2, *, value=1):
    if (
        not needs_any_grad(self, tensor1, tensor2)
        and self._dtype is tensor1._dtype is tensor2._dtype
        and self._dtype.category >= _FLOAT
        and _fits(self, tensor1, tensor2)
    ):
        xp = xp_for(self)
        # PyTorch's order: (value * tensor1) / tensor2, then + self.
        tmp = xp.divide(tensor1._data if value == 1 else tensor1._data * value, tensor2._data)
        return inplace(self, None, (), False, lambda: xp.add(self._data, tmp, out=self._data))
    return inplace(self, lambda s: addcdiv(s, tensor1, tensor2, value=value), (), False)


def _fits(self, *others):
    """True when broadcasting ``others`` against ``self`` keeps ``self``'s shape."""
    try:
        return np.broadcast_shapes(self._data.shape, *(o._data.shape for o in others)) == self._data.shape
    except ValueError:
        return False


def needs_any_grad(*ts):
    return _gm.enabled and any(t._rg for t in ts) or _fw_state.level


# ---- complex helpers --------------------------------------------------------------------------------------
def conj(input):
    if input._dtype.category != D.COMPLEX:
        return input
    return _conj_op(input)


_conj_op, _ = unary("conj", lambda xp, a: xp.conj(a), lambda x, out: x.new_ones(()), saves=(), to_float=False, node="ConjBackward0")
conj_physical, conj_physical_ = _conj_op, _


def real(input):
    if input._dtype.category != D.COMPLEX:
        return input

    return _wrap(input._data.real, input._dtype.to_real(), input._device)


def imag(input):
    if input._dtype.category != D.COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _wrap(input._data.imag, input._dtype.to_real(), input._device)


def angle(input):
    xp = xp_for(input)
    dt = input._dtype.to_real() if input._dtype.category >= _FLOAT else D.get_default_dtype()
    return _wrap(xp.angle(input._data).astype(dt.np), dt, input._device)


def logit_(self, eps=None):
    return inplace(self, lambda s: logit(s, eps), (), True)


def xlogy_(self, other):
    return inplace(self, xlogy, (other,), True)


def copysign_(self, other):
    return inplace(self, copysign, (other,), True)


from . import pointwise_fused as _fz  # noqa: E402 - the fused ops build on the ones above
from .pointwise_fused import addcdiv, addcmul, copysign, lerp, logaddexp, logit, xlogy  # noqa: E402, F401
