"""Loss kernels with their own backward nodes: mse_loss, nll_loss (+ the N-d form).

Same house pattern as ``ops/nn/conv.py``: forward on arrays, VJP in Tensor ops, PyTorch's node names.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import backend as _backend
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import (
    _fw_state,
    check_cast,
    need_tensor,
    record,
    result_dtype,
    scalar_name,
    xp_for,
)  # fmt: skip
from ..pointwise.unary import _no_bool_neg
from ..reduction.reduce import widen

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def _need(node, i: int) -> bool:
    return node.next_functions[i][0] is not None


# ---- losses ----------------------------------------------------------------------------------
REDUCTIONS = ("none", "mean", "sum")


def float_kernel_dtype(input: Tensor, target: Tensor, kernel: str) -> D.dtype:
    """The promoted dtype of a pointwise loss; PyTorch's CPU loss kernels are built for the
    floating types only (its NotImplementedError names the promoted dtype)."""
    dt = result_dtype(input, target)
    if dt.category != D.FLOAT:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dt)}'")
    return dt


def _as(t: Tensor, dt: D.dtype) -> Tensor:
    return t if t._dtype is dt else t.to(dt)


def _mse_vjp(node, g):
    x, t = node.saved()
    scale = 2.0 / x.numel() if node.reduction == "mean" else 2.0
    d = (x - t) * scale
    gd = g * d
    return (gd if _need(node, 0) else None), (-gd if _need(node, 1) else None)


_MseLoss = node_class("MseLossBackward0", _mse_vjp)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error of same-shaped tensors (the caller broadcasts); MseLossBackward0."""
    dt = float_kernel_dtype(input, target, "mse_cpu")
    xp = xp_for(input)
    a = input._data if input._dtype is dt else input._data.astype(dt.np)
    b = target._data if target._dtype is dt else target._data.astype(dt.np)
    sq = xp.square(a - b)
    if reduction == "none":
        data = sq
    else:
        sq = widen(sq)  # half types: the squares rounded, their sum accumulated in float32
        data = xp.asarray(xp.sum(sq) if reduction == "sum" else xp.mean(sq), dt.np)
    r = _wrap(data, dt, input._device)
    if _gm.enabled and (input._rg or target._rg):
        record(_MseLoss, (input, target), r, (input, target), reduction=reduction)
    if _fw_state.level and (input._fw is not None or target._fw is not None):
        t = input._fw if input._fw is not None else None
        if target._fw is not None:
            t = -target._fw if t is None else t - target._fw
        dl = (input - target) * t * 2
        r._fw = dl if reduction == "none" else (dl.sum() if reduction == "sum" else dl.mean())
        _register(r)
    return r


def _nll_vjp(node, g):
    (x,) = node.saved()
    if not _gm.enabled and x._data.ndim <= 2 and x._dtype in (D.float32, D.float64):
        # no graph of the backward to record: on arrays
        return (_nll_grad_arrays(node, x, g),)
    coef = node.coef * g  # coef: -w[t] (0 where ignored), over the total weight for 'mean'
    safe = node.safe_target
    if x.dim() == 1:
        return (x.new_zeros(x.shape).scatter(0, safe.reshape(1), coef.reshape(1)),)
    return (x.new_zeros(x.shape).scatter(1, safe.unsqueeze(1), coef.unsqueeze(1)),)


def _nll_grad_arrays(node, x: Tensor, g: Tensor) -> Tensor:
    """The VJP above for (C) and (N, C) input as one scatter into zeros (the same products,
    the same bits)."""
    xp = xp_for(x)
    coef = node.coef._data * g._data
    safe = node.safe_target._data
    out = xp.zeros(x._data.shape, x._data.dtype)
    if x._data.ndim == 1:
        out[safe.reshape(1)] = coef.reshape(1)
    else:
        out[xp.arange(safe.shape[0]), safe] = coef
    return _wrap(out, x._dtype, x._device)


_NllLoss = node_class("NllLossBackward0", _nll_vjp)
_NllLoss2d = node_class("NllLoss2DBackward0", _nll_vjp)


def _check_nll_batch(input: Tensor, target: Tensor, nd: int, td: int) -> None:
    """nll_loss_nd's checks, before any on the target's dtype: the input's rank, the batch
    sizes (a 0-d target's is 0), and for a (N, C, d1, ...) input other than 4-d the
    target's (N, d1, ...) shape."""
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and input.shape[0] != (target.shape[0] if td else 0):
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0] if td else 0})."
        )
    if nd == 3 or nd > 4:
        want = [input.shape[0], *input.shape[2:]]
        if list(target.shape) != want:
            raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")


def _check_nll_kernel(input: Tensor, target: Tensor, weight, nd: int, td: int) -> None:
    """The checks of PyTorch's nll_loss (1-d/2-d input) and nll_loss2d (4-d) in their order:
    the target's rank, its dtype, sizes, the weight's class count, the kernel's dtypes."""
    if nd <= 2 and td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if nd == 4 and td != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {td}"
        )
    tdt = target._dtype
    if tdt is not D.int64 and tdt is not D.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_name(tdt)}")
    c = input.shape[0] if nd == 1 else input.shape[1]
    if nd == 1 and td == 1 and target.shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
        )
    if weight is not None and (weight.numel() != c or (nd <= 2 and weight.dim() != 1)):
        if nd == 4:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        raise RuntimeError(
            f"weight tensor should be defined either for all {c} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    if nd == 4 and target.shape != (input.shape[0],) + tuple(input.shape[2:]):
        raise RuntimeError(
            f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}"
        )
    if input._dtype.category != D.FLOAT:
        frame = "nll_loss2d_forward_out_frame" if nd == 4 else "nll_loss_out_frame"
        raise NotImplementedError(f"\"{frame}\" not implemented for '{scalar_name(input._dtype)}'")
    if nd == 4 and tdt is D.uint8:
        raise RuntimeError("expected scalar type Long but found Byte")
    if weight is not None and weight._dtype is not input._dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input._dtype)} but found {scalar_name(weight._dtype)}"
        )


def nll_loss(
    input: Tensor, target: Tensor, weight=None, reduction: str = "mean", ignore_index: int = -100
) -> Tensor:
    """Negative log-likelihood for (C), (N, C) or (N, C, d1, ...) input and class-index targets."""
    need_tensor("nll_loss_nd", input)
    need_tensor("nll_loss_nd", target, "target", 2)
    nd, td = input.dim(), target.dim()
    _check_nll_batch(input, target, nd, td)
    if nd == 3 or nd > 4:
        n, c = input.shape[0], input.shape[1]
        out_shape = target.shape
        r = nll_loss(
            input.reshape(n, c, 1, -1), target.reshape(n, 1, -1), weight, reduction, ignore_index
        )
        return r.view(out_shape) if reduction == "none" else r
    _check_nll_kernel(input, target, weight, nd, td)
    xp = xp_for(input)
    x = input._data
    c = x.shape[0] if nd == 1 else x.shape[1]
    t = target._data.astype(np.int64, copy=False)
    fast = _nll_unweighted(x, t, c, weight, reduction, ignore_index) if nd == 2 else None
    if fast is not None:
        data, coef, safe = fast
        return _nll_result(input, data, coef, safe, reduction, nd)
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= c))
    _backend.check(
        bad.any(), lambda: IndexError(f"Target {int(t[bad].ravel()[0])} is out of bounds.")
    )
    safe = xp.where(keep, t, 0)
    w = xp.ones(c, x.dtype) if weight is None else weight._data.astype(x.dtype, copy=False)
    wt = w[safe] * keep
    if nd == 1:
        picked = x[safe]
    else:
        picked = xp.take_along_axis(x, safe[:, None], 1)[:, 0]
    losses = -wt * picked
    total = widen(wt).sum()
    if reduction == "none":
        losses = xp.where(keep, losses, 0)  # an ignored target's loss is +0 (not -w * x = -0)
        data = losses.reshape(()) if nd == 1 else losses  # one class-vector input: one 0-d loss
        coef = -wt
    elif reduction == "sum":
        data = xp.asarray(widen(losses).sum(), x.dtype)
        coef = -wt
    else:
        data = xp.asarray(widen(losses).sum() / total, x.dtype)
        # Ignored targets get no gradient, even when every target is ignored (0 / 0).
        coef = xp.where(keep, -wt / xp.where(total == 0, 1, total), 0)
        coef = xp.where(keep & (total == 0), xp.nan, coef)
    return _nll_result(input, data, coef, safe, reduction, nd)


def _nll_unweighted(x, t, c: int, weight, reduction: str, ignore_index: int):
    """nll_loss's common case on NumPy arrays: (N, C) float32/float64 input, no weight, a sum or
    mean, every target in range and none ignored. Every weight is then 1: the losses are
    ``-x[i, t[i]]``, the total weight N (exact), so no weight arrays, the same bits as the
    general path. (data, coef, safe), or None for the general path."""
    if weight is not None or reduction == "none" or x.__class__ is not np.ndarray:
        return None
    if x.dtype != F32 and x.dtype != F64:
        return None
    n = t.size
    if n == 0 or t.ndim != 1 or 0 <= ignore_index < c:
        return None  # an ignored class may occur: the general path
    if t.min() < 0 or t.max() >= c:
        return None  # the general path raises its IndexError
    losses = -x[np.arange(n), t]
    total = losses.sum()
    one = x.dtype.type(1)
    if reduction == "mean":
        total = total / x.dtype.type(n)
        coef = np.full(n, -one / x.dtype.type(n), x.dtype)
    else:
        coef = np.full(n, -one, x.dtype)
    return np.asarray(total, x.dtype), coef, t.copy()  # the target may change in place


def _nll_result(input: Tensor, data, coef, safe, reduction: str, nd: int) -> Tensor:
    """nll_loss's result from its arrays: the loss, its backward node and forward tangent."""
    x = input._data
    r = _wrap(data.astype(x.dtype, copy=False), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(
            _NllLoss if nd <= 2 else _NllLoss2d, (input,), r, (input,),
            reduction=reduction,
            coef=_wrap(coef.astype(x.dtype, copy=False), input._dtype, input._device),
            safe_target=_wrap(safe, D.int64, input._device),
        )  # fmt: skip
    if _fw_state.level and input._fw is not None:
        tf = input._fw
        tp = (
            tf.gather(0, _wrap(safe, D.int64, input._device))
            if nd == 1
            else tf.gather(1, _wrap(safe[:, None], D.int64, input._device)).squeeze(1)
        )
        cw = _wrap(coef.astype(x.dtype, copy=False), input._dtype, input._device)
        r._fw = (tp * cw).reshape(r.shape) if reduction == "none" else (tp * cw).sum()
        _register(r)
    return r


# ---- elementwise losses with one fused node --------------------------------------------------------
def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


def _pointwise_loss_vjp(node, g):
    x, t = node.saved()
    if node.reduction == "mean":
        g = g / x.numel()
    gx, gt = node.grads(x, t, *node.params)
    if node.weight is not None:
        gx = None if gx is None else gx * node.weight
        gt = None if gt is None else gt * node.weight
    return (g * gx if _need(node, 0) else None), (
        g * gt if _need(node, 1) and gt is not None else None
    )


_LOSS_NODES: dict = {}


def pointwise_loss(name, input, target, weight, reduction, loss, grads, params=()):
    """``reduce(weight * loss(x, t))`` with one node ``name`` whose VJP is ``grads(x, t)``.

    The forward is computed with Tensor ops without recording (forward-mode tangents still
    flow through them); ``grads`` returns the elementwise partials in Tensor ops.
    """
    from ...autograd.grad_mode import no_grad

    if name not in _LOSS_NODES:
        _LOSS_NODES[name] = node_class(name, _pointwise_loss_vjp)
    with no_grad():
        out = loss(input, target, *params)
        if weight is not None:
            out = out * weight
        out = _reduce(out, reduction)
    if _gm.enabled and (input._rg or target._rg):
        record(_LOSS_NODES[name], (input, target), out, (input, target), reduction=reduction, grads=grads,
               params=params, weight=weight)  # fmt: skip
    return out


def _rounded_to(out_dt, name, input, target, dt, reduction, loss, grads, params=(), weight=None):
    """A pointwise loss computed in ``dt`` whose elements PyTorch writes into a tensor of
    ``out_dt`` (the input's, or the target's): rounded to it before the reduction."""
    input, target = _as(input, dt), _as(target, dt)
    if weight is not None:
        weight = _as(weight, out_dt)
    if dt is out_dt:
        return pointwise_loss(name, input, target, weight, reduction, loss, grads, params)
    out = pointwise_loss(name, input, target, weight, "none", loss, grads, params)
    return _reduce(_as(out, out_dt), reduction)


def _bce(x, t):
    return -(t * x.log().clamp_min(-100) + (1 - t) * (1 - x).log().clamp_min(-100))


def _bce_grads(x, t):
    gx = (x - t) / ((1 - x) * x).clamp_min(1e-12)
    gt = (1 - x).log().clamp_min(-100) - x.log().clamp_min(-100)
    return gx, gt


def binary_cross_entropy(input: Tensor, target: Tensor, weight=None, reduction="mean") -> Tensor:
    if target._dtype is not input._dtype:
        raise RuntimeError(
            f"Found dtype {scalar_name(target._dtype)} but expected {scalar_name(input._dtype)}"
        )
    if input._dtype.category != D.FLOAT:
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{scalar_name(input._dtype)}'"
        )
    if weight is not None:
        weight = _as(weight, input._dtype)  # the output keeps the input's dtype
    if input.numel() and ((input < 0) | (input > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    return pointwise_loss(
        "BinaryCrossEntropyBackward0", input, target, weight, reduction, _bce, _bce_grads
    )


def _bce_logits(x, t, pos_weight):
    from .activation import logsigmoid

    if pos_weight is None:
        return (1 - t) * x - logsigmoid(x)
    return (1 - t) * x - ((pos_weight - 1) * t + 1) * logsigmoid(x)


def _bce_logits_grads(x, t, pos_weight):
    from .activation import logsigmoid

    s = x.sigmoid()
    if pos_weight is None:
        return s - t, -x
    lw = (pos_weight - 1) * t + 1
    return lw * s - pos_weight * t, -x - (pos_weight - 1) * logsigmoid(x)


_BOOL_SUB = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
    "`logical_xor()` operator instead."
)


def binary_cross_entropy_with_logits(
    input, target, weight=None, pos_weight=None, reduction="mean"
) -> Tensor:
    if input._dtype.category != D.FLOAT:
        raise NotImplementedError(
            f"\"log_sigmoid_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    out_dt = target._dtype  # PyTorch computes in place into (1 - target)
    if out_dt is D.bool:
        raise RuntimeError(_BOOL_SUB)
    check_cast(result_dtype(input, target), out_dt)
    if weight is not None:
        weight = _as(weight, out_dt)
    name = "BinaryCrossEntropyWithLogitsBackward0"
    args = (_bce_logits, _bce_logits_grads, (pos_weight,))
    if result_dtype(input, target) is out_dt:
        return pointwise_loss(name, input, target, weight, reduction, *args)
    out = pointwise_loss(name, input, target, weight, "none", *args)
    return _reduce(_as(out, out_dt), reduction)


def _smooth_l1(x, t, beta):
    z = (x - t).abs()
    if beta == 0:
        return z
    return (z * z * (0.5 / beta)).where(z < beta, z - 0.5 * beta)


def _smooth_l1_grads(x, t, beta):
    d = x - t
    if beta == 0:
        gx = d.sign()
    else:
        gx = (d / beta).where(d.abs() <= beta, d.sign())
    return gx, -gx


def smooth_l1_loss(input, target, reduction="mean", beta=1.0) -> Tensor:
    dt = float_kernel_dtype(input, target, "smooth_l1_cpu")
    input, target = _as(input, dt), _as(target, dt)
    return pointwise_loss("SmoothL1LossBackward0", input, target, None, reduction, _smooth_l1, _smooth_l1_grads,
                          (beta,))  # fmt: skip


def _huber(x, t, delta):
    z = (x - t).abs()
    return (z * z * 0.5).where(z < delta, (z - 0.5 * delta) * delta)


def _huber_grads(x, t, delta):
    d = x - t
    gx = d.where(d.abs() <= delta, d.sign() * delta)
    return gx, -gx


def huber_loss(input, target, reduction="mean", delta=1.0) -> Tensor:
    """In the promoted dtype, the result in the input's (PyTorch writes into an input-like output)."""
    check_cast(result_dtype(input, target), input._dtype)
    dt = float_kernel_dtype(input, target, "huber_cpu")
    return _rounded_to(
        input._dtype, "HuberLossBackward0", input, target, dt, reduction, _huber, _huber_grads,
        (delta,),
    )  # fmt: skip


def _soft_margin(x, y):
    return (-x * y).exp().log1p()


def _soft_margin_grads(x, y):
    s = (-x * y).sigmoid()
    return -y * s, -x * s


def soft_margin_loss(input, target, reduction="mean") -> Tensor:
    """In the promoted floating dtype, the result in the input's (an input-like output)."""
    _no_bool_neg(input._dtype)
    dt = result_dtype(input, target)
    if dt.category in (D.BOOL, D.INT):
        dt = D.get_default_dtype()  # exp() of integers is floating
    check_cast(dt, input._dtype)
    return _rounded_to(
        input._dtype, "SoftMarginLossBackward0", input, target, dt, reduction, _soft_margin,
        _soft_margin_grads,
    )  # fmt: skip
