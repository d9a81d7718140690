"""Elementwise ops PyTorch runs as one kernel with one backward node, composed here from Tensor ops.

The forward is computed from other ops without recording (``_fused``), then a single node
with PyTorch's name is recorded, so ``grad_fn`` and ``next_functions`` match PyTorch; its VJP
is written in Tensor ops (double backward works). Forward-mode tangents flow through the
component ops, which are differentiable on their own.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math import activation as f32_activation
from ...backend.float32_math import run2 as f32_run2
from ...backend.float32_math.primitives import fma
from ...backend.fp_errors import loud, quiet
from .._dispatch import broadcast_error, check_broadcast, only_needed, record, shape_of, write_out
from ..arg_types import python_int_range
from .binary import _broadcast_shape
from .common import _conj


def _fused(Node, inputs, compute, saved=(), needs=None, **attrs):
    """``compute()`` without recording, then one ``Node`` over ``inputs`` (None for scalars).
    ``needs``: which inputs' gradients read each saved tensor (``only_needed``)."""
    token = quiet()  # inf * 0, inf - inf: NaN, silently as in PyTorch
    try:
        with no_grad():
            res = compute()
    finally:
        loud(token)
    if _gm.enabled and any(t is not None and t._rg for t in inputs):
        saved = saved(res) if callable(saved) else saved
        record(Node, inputs, res, saved if needs is None else only_needed(saved, inputs, needs),
               **attrs)  # fmt: skip
    return res


def _t(x):
    return x if isinstance(x, Tensor) else None


def _needs(node, i):
    nf = node.next_functions
    return i < len(nf) and nf[i][0] is not None


def _as_tensor(x, like):
    return x if isinstance(x, Tensor) else like.new_full((), x)


# ---- copysign ---------------------------------------------------------------------------------------
def _copysign_vjp(node, g):
    x, out = node.saved()  # saved only when input requires grad
    gx = g * (out / x).masked_fill(x == 0, 0.0) if _needs(node, 0) else None
    return (
        (gx,)
        if len(node.next_functions) == 1
        else (gx, g.new_zeros(g.shape) if _needs(node, 1) else None)
    )


_Copysign = node_class("CopysignBackward0", _copysign_vjp)
_CopysignScalar = node_class("CopysignBackward1", _copysign_vjp)
_Copysign.saved_names = _CopysignScalar.saved_names = ("self", "result")


def copysign(input, other, *, out=None):
    """``|input|`` with the sign of ``other`` (signbit, so -0.0 counts as negative)."""
    if isinstance(other, Tensor):
        _broadcast_shape(input, other)  # PyTorch's size error comes before its kernel's dtype check
    _check_not_complex("copysign_cpu", input, other)
    o = _as_tensor(other, input)

    def compute():
        # integers become floats first: |-128| of an int8 is 128 there, not -128
        x = input if input._dtype.category >= D.FLOAT else input.to(_float_of(input, other))
        mag = x.abs()
        return mag.where(~o.signbit(), -mag)

    node = _Copysign if isinstance(other, Tensor) else _CopysignScalar
    inputs = (input, other) if isinstance(other, Tensor) else (input,)
    res = _fused(node, inputs, compute, lambda res: (input, res), needs=(0, None))
    return res if out is None else write_out(out, res, "copysign")


def _float_of(a, b):
    from .._dispatch import result_dtype

    dt = result_dtype(a, b)
    return dt if dt.category >= D.FLOAT else D.get_default_dtype()


# ---- xlogy ----------------------------------------------------------------------------------------
def _xlogy_vjp(node, g):
    x, y = node.saved()
    kind = node.kind
    res = []
    if kind != 1 and _needs(node, 0):  # d/dx: log(y), 0 where x == 0
        res.append(g * (x != 0).xlogy(y))
    elif kind != 1:
        res.append(None)
    if kind != 2:
        i = 0 if kind == 1 else 1
        res.append(g * x / y if _needs(node, i) else None)
    return tuple(res)


_XLOGY = [node_class(f"XlogyBackward{k}", _xlogy_vjp) for k in range(3)]
_XLOGY[0].pack_reversed = True  # saved-tensor hooks see other, then self, as in PyTorch


def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    from .select import where

    if not isinstance(input, Tensor):
        kind, x, y = 1, other.new_full((), input, dtype=D.scalar_dtype(input)), other
    elif not isinstance(other, Tensor):
        kind, x, y = 2, input, input.new_full((), other, dtype=D.scalar_dtype(other))
    else:
        kind, x, y = 0, input, other
        _broadcast_shape(x, y)  # PyTorch's size error comes before its kernel's dtype check
    fdt = _float_of(x, y)
    _check_not_complex("xlogy_cpu", fdt)
    xf, yf = x.to(fdt), y.to(fdt)

    def compute():
        r = where(xf == 0, xf.new_zeros(()), xf * yf.log())
        return r.masked_fill(yf.isnan(), float("nan"))

    inputs = ((input, other), (other,), (input,))[kind]
    res = _fused(_XLOGY[kind], inputs, compute, (xf, yf), kind=kind)
    return res if out is None else write_out(out, res, "xlogy")


# ---- logaddexp, logit -------------------------------------------------------------------------------
def _logaddexp_vjp(node, g):
    a, b = node.saved()
    ga = g / ((b - a).exp() + 1).conj() if _needs(node, 0) else None
    gb = g / ((a - b).exp() + 1).conj() if _needs(node, 1) else None
    return ga, gb


_Logaddexp = node_class("LogaddexpBackward0", _logaddexp_vjp)


def _check_not_complex(kernel, *args):
    """PyTorch's '"kernel" not implemented for 'ComplexFloat'' when the promoted dtype is complex."""
    from .._dispatch import result_dtype, scalar_name

    dt = args[0] if isinstance(args[0], D.dtype) else result_dtype(*args)
    if dt.category == D.COMPLEX:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dt)}'")


def _check_float_kernel(kernel, *tensors):
    for t in tensors:
        if isinstance(t, Tensor) and t._dtype.category < D.FLOAT:
            from .._dispatch import result_dtype, scalar_name

            dt = result_dtype(*tensors)
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dt)}'")


def logaddexp(input, other, *, out=None):
    """``log(exp(input) + exp(other))`` without overflow."""
    from .comparison import maximum
    from .select import where

    _check_float_kernel("logaddexp_cpu", input, other)
    check_broadcast(shape_of(input), shape_of(other))

    def compute():
        if input._dtype in (D.float16, D.bfloat16):  # PyTorch computes half types in float32
            return logaddexp(input.float(), other.float()).to(input._dtype)
        if input.is_complex() or other.is_complex():
            # The operand with the larger real part factors out: m + log1p(exp(o - m)), which
            # (like PyTorch) need not be the principal log of the sum.
            first = input.real >= other.real
            m, o = where(first, input, other), where(first, other, input)
            r = m + (o - m).exp().log1p()
            return where((input == other) & input.isinf(), input.to(r.dtype), r)
        if _float32_cpu(input, other):  # PyTorch's vectorised kernel, SLEEF's exp and log1p
            a, b = np.broadcast_arrays(input._data, other._data)
            r = f32_run2(f32_activation.logaddexp, a, b, scalar=f32_activation.logaddexp_scalar)
            return _wrap_like(r, input)
        # PyTorch's formula (exp and log1p rounded as PyTorch's: the same float32 bits).
        r = maximum(input, other) + (-(input - other).abs()).exp().log1p()
        # Both -inf (or the same inf): the sum is that inf.
        return where((input == other) & input.isinf(), input.to(r.dtype), r)

    res = _fused(_Logaddexp, (input, other), compute, (input, other))
    return res if out is None else write_out(out, res, "logaddexp")


def _float32_cpu(*tensors):
    return all(t._dtype is D.float32 and t._device.type == "cpu" for t in tensors)


def _logit_vjp(node, g):
    (x,) = node.saved()
    eps = node.eps
    d = g / (x * (1 - x))
    if eps is None:
        return (d.masked_fill((x < 0) | (x > 1), float("nan")),)
    return (d.masked_fill((x < eps) | (x > 1 - eps), 0.0),)


_Logit = node_class("LogitBackward0", _logit_vjp)


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, with ``p`` clamped to [eps, 1 - eps] when ``eps`` is given."""
    _check_not_complex("logit_cpu", input._dtype)
    x = input if input._dtype.category >= D.FLOAT else input.to(D.get_default_dtype())

    def compute():
        p = x if eps is None else x.clamp(eps, 1 - eps)
        return (p / (1 - p)).log()

    res = _fused(_Logit, (input,), compute, (x,), eps=eps)
    return res if out is None else write_out(out, res, "logit")


# ---- lerp, addcmul, addcdiv ---------------------------------------------------------------------------
def _lerp_vjp(node, g):
    s, e, w = node.saved()
    # Complex inputs: the partials are conjugated (PyTorch's conjugate Wirtinger gradient).
    if len(node.next_functions) == 2:  # Python-number weight
        w = _conj(node.weight)
        return (g * (1 - w) if _needs(node, 0) else None), (g * w if _needs(node, 1) else None)
    return (
        g * _conj(1 - w) if _needs(node, 0) else None,
        g * _conj(w) if _needs(node, 1) else None,
        g * _conj(e - s) if _needs(node, 2) else None,
    )


_Lerp0 = node_class("LerpBackward0", _lerp_vjp)
_Lerp1 = node_class("LerpBackward1", _lerp_vjp)
_Lerp1.saved_names = ("self", "end", "weight")


def _fma32(x, y, z):
    """``x * y + z`` rounded once, as the fused multiply-add of PyTorch's float32 CPU kernels
    (exact: a float32 product fits in float64). Other dtypes/devices: plain ops."""
    arrays = [v._data if isinstance(v, Tensor) else v for v in (x, y, z)]
    ref = next(v for v in (x, y, z) if isinstance(v, Tensor))
    if (
        ref._dtype is D.float32
        and ref._device.type == "cpu"
        and all(not isinstance(v, Tensor) or v._dtype is D.float32 for v in (x, y, z))
    ):
        a, b, c = (v if isinstance(v, np.ndarray) else np.float64(np.float32(v)) for v in arrays)
        return _wrap_like(fma(a, b, c, once=True), ref)
    return x * y + z


def _half_arrays(*tensors):
    """float32 copies of float16/bfloat16 CPU ``tensors`` of one dtype, or None otherwise.

    PyTorch's CPU kernels for these fused ops compute half types in float32 (scalars kept in
    float32, not rounded to the half type) and round the result once.
    """
    dt = tensors[0]._dtype
    if (dt is not D.float16 and dt is not D.bfloat16) or tensors[0]._device.type != "cpu":
        return None
    if any(not isinstance(t, Tensor) or t._dtype is not dt for t in tensors):
        return None
    return [t._data.astype(np.float32) for t in tensors]


def _fma_to(ref, x, y, z):
    """``x * y + z`` of float32 arrays rounded once to float32 (exact product in float64),
    then to ``ref``'s dtype."""
    return _wrap_like(fma(x, y, z, once=True).astype(ref._dtype.np), ref)


def _broadcast_all(*tensors) -> tuple:
    """The shape ``tensors`` broadcast to, or PyTorch's error for the first one that does not
    fit the shape of those before it (TensorIterator takes its operands in order)."""
    shape = ()
    for t in tensors:
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            raise broadcast_error([shape, t._data.shape]) from None
    return shape


def _wrap_like(data, ref):
    from ..._tensor.core import _wrap

    return _wrap(data, ref._dtype, ref._device)


def _lerp_values(input, end, weight):
    # PyTorch's formula: from the nearer end, so weight 1 gives exactly ``end``; on CPU one
    # fused multiply-add: fma(coeff, end - input, base).
    _broadcast_all(input, end, *((weight,) if isinstance(weight, Tensor) else ()))
    half = _half_arrays(input, end, *((weight,) if isinstance(weight, Tensor) else ()))
    if half is not None:
        s, e, w = half if len(half) == 3 else (*half, np.float32(weight))
        small = np.abs(w) < 0.5
        coeff, base = np.where(small, w, w - np.float32(1)), np.where(small, s, e)
        return _fma_to(input, coeff, e - s, base)
    diff = end - input
    if not isinstance(weight, Tensor) and input._dtype is D.float32 and diff._dtype is D.float32:
        small = abs(weight) < 0.5
        coeff = float(np.float32(weight)) if small else float(np.float32(weight) - np.float32(1))
        return _fma32(diff, coeff, input if small else end)
    if (
        isinstance(weight, Tensor)
        and input._device.type == "cpu"
        and input._dtype is diff._dtype is weight._dtype is D.float32
    ):
        w = weight._data
        small = np.abs(w) < 0.5
        coeff = np.where(small, w, w - np.float32(1))
        return _fma32(diff, coeff, np.where(small, input._data, end._data))
    if isinstance(weight, Tensor):
        small = weight.abs() < 0.5
        from .select import where

        return where(small, input + weight * diff, end - diff * (1 - weight))
    return input + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)``, evaluated as PyTorch does."""
    python_int_range(weight)
    if isinstance(weight, Tensor):
        res = _fused(
            _Lerp1,
            (input, end, weight),
            lambda: _lerp_values(input, end, weight),
            (input, end, weight),
            needs=(2, 2, None),
        )
    else:
        res = _fused(
            _Lerp0,
            (input, end),
            lambda: _lerp_values(input, end, weight),
            (None, None, None),
            weight=weight,
        )
    return res if out is None else write_out(out, res, "lerp")


def _addcmul_vjp(node, g):
    t1, t2 = node.saved()
    v = _conj(node.value)
    return (
        g if _needs(node, 0) else None,
        g * _conj(t2) * v if _needs(node, 1) else None,
        g * _conj(t1) * v if _needs(node, 2) else None,
    )


def _addcdiv_vjp(node, g):
    t1, t2 = node.saved()
    v = _conj(node.value)
    return (
        g if _needs(node, 0) else None,
        g * v / _conj(t2) if _needs(node, 1) else None,
        -g * v * _conj(t1 / (t2 * t2)) if _needs(node, 2) else None,
    )


_Addcmul = node_class("AddcmulBackward0", _addcmul_vjp)
_Addcdiv = node_class("AddcdivBackward0", _addcdiv_vjp)
_Addcmul.saved_names = _Addcdiv.saved_names = ("tensor1", "tensor2")


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 * tensor2`` (the result keeps integer dtypes)."""

    if isinstance(value, float) and input._dtype.category < D.FLOAT:
        value = int(value)  # PyTorch converts the scalar to the (integer) tensor dtype

    def compute():
        # PyTorch's kernel: fma(value * tensor1, tensor2, input).
        _broadcast_all(input, tensor1, tensor2)
        half = _half_arrays(input, tensor1, tensor2)
        if half is not None:
            x, a, b = half
            return _fma_to(input, a * np.float32(value), b, x)
        v1 = tensor1 if value == 1 else tensor1 * value
        return _fma32(v1, tensor2, input)

    res = _fused(_Addcmul, (input, tensor1, tensor2), compute, (tensor1, tensor2), needs=(2, 1),
                 value=value)  # fmt: skip
    return res if out is None else write_out(out, res, "addcmul")


_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes."
)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 / tensor2``; integer tensor1 and tensor2 are refused."""
    if tensor1._dtype.category < D.FLOAT and tensor2._dtype.category < D.FLOAT:
        raise RuntimeError(_ADDCDIV_INT)

    def compute():
        half = _half_arrays(input, tensor1, tensor2)
        if half is not None:  # in float32, rounded once (see _half_arrays)
            x, a, b = half
            return _wrap_like((x + np.float32(value) * a / b).astype(input._dtype.np), input)
        q = (tensor1 if value == 1 else tensor1 * value) / tensor2
        return input + q

    res = _fused(_Addcdiv, (input, tensor1, tensor2), compute, (tensor1, tensor2),
                 needs=(2, (1, 2)), value=value)  # fmt: skip
    return res if out is None else write_out(out, res, "addcdiv")


# ---- clamp with tensor bounds, clamp_min / clamp_max --------------------------------------------------
def _clamp_t_vjp(node, g):
    x, lo, hi = node.saved()
    z = g.new_zeros(())
    inside = None
    if lo is not None:
        inside = x >= lo
    if hi is not None:
        m = x <= hi
        inside = m if inside is None else inside & m
    gx = g.where(inside, z) if _needs(node, 0) else None
    # When min > max the result is max everywhere (PyTorch's rule), so min gets nothing there.
    glo = ghi = None
    if lo is not None and _needs(node, 1):
        glo = g.where((x < lo) & (lo < hi) if hi is not None else x < lo, z)
    if hi is not None and _needs(node, 2):
        ghi = g.where((x > hi) | (hi < lo) if lo is not None else x > hi, z)
    return gx, glo, ghi


_ClampT = node_class("ClampBackward0", _clamp_t_vjp)


def clamp_tensor(input, min, max):
    """``clamp`` with at least one Tensor bound (ClampBackward0: edges input, min, max)."""
    from .comparison import maximum, minimum

    lo = min if min is None or isinstance(min, Tensor) else input.new_full((), min)
    hi = max if max is None or isinstance(max, Tensor) else input.new_full((), max)

    def compute():
        r = input
        if lo is not None:
            r = maximum(r, lo)
        if hi is not None:
            r = minimum(r, hi)
        return r

    return _fused(_ClampT, (input, _t(min), _t(max)), compute, (input, lo, hi))


def _clamp_side_vjp(node, g):
    x, b = node.saved()
    bound = node.bound if b is None else b
    keep = x >= bound if node.side == "min" else x <= bound
    z = g.new_zeros(())
    gx = g.where(keep, z) if _needs(node, 0) else None
    if len(node.next_functions) == 1:
        return (gx,)
    return gx, (g.where(~keep, z) if _needs(node, 1) else None)


_CLAMP_SIDE = {
    (s, k): node_class(f"Clamp{s.capitalize()}Backward{k}", _clamp_side_vjp)
    for s in ("min", "max")
    for k in (0, 1)
}


def clamp_side(input, bound, side):
    """``clamp_min`` / ``clamp_max`` (ClampMinBackward0 for a number, ...Backward1 for a Tensor)."""
    from .comparison import maximum, minimum
    from .select import clamp

    if isinstance(bound, Tensor):
        f = maximum if side == "min" else minimum
        _check_not_complex(f"{'maximum' if side == 'min' else 'minimum'}_cpu", input, bound)
        return _fused(
            _CLAMP_SIDE[side, 1], (input, bound), lambda: f(input, bound), (input, bound), side=side
        )
    kw = {side: bound}
    return _fused(
        _CLAMP_SIDE[side, 0],
        (input,),
        lambda: clamp(input, **kw),
        (input, None),
        side=side,
        bound=bound,
    )


# ---- nan_to_num, masked_fill with a tensor value ----------------------------------------------------------
_NanToNum = node_class("NanToNumBackward0", lambda node, g: (g * node.saved()[0].isfinite(),))


def nan_to_num_fused(input, compute):
    return _fused(_NanToNum, (input,), compute, (input,))


def _masked_fill_t_vjp(node, g):
    (mask,) = node.saved()
    z = g.new_zeros(())
    gx = g.where(~mask, z) if _needs(node, 0) else None
    gv = g.where(mask, z).sum() if _needs(node, 1) else None
    return gx, gv


_MaskedFillT = node_class("MaskedFillBackward1", _masked_fill_t_vjp)


def masked_fill_tensor(input, mask, value, compute):
    return _fused(_MaskedFillT, (input, value), compute, (mask,))
