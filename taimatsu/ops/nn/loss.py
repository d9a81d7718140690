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
from ...backend.fp_errors import silent
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
from ..reduction.reduce import _sum_array, widen
from .softmax import log_softmax_f32_rows

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
    if g._dtype in (D.float16, D.bfloat16):
        # PyTorch's kernel: alpha * (x - t) * g in half-precision steps, alpha (the scale)
        # itself rounded to the half type
        scale = float(D.half_scalar(scale, g._dtype).astype(g._dtype.np))
    d = (x - t) * scale
    gd = d * g
    return (gd if _need(node, 0) else None), (-gd if _need(node, 1) else None)


_MseLoss = node_class("MseLossBackward0", _mse_vjp)


@silent
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
        if xp is np:  # PyTorch's order of additions (the CuPy path keeps CuPy's own)
            total = _sum_array(xp, sq, None, False)
            if reduction == "mean":
                total = total / np.asarray(sq.size, total.dtype)
        else:
            total = xp.sum(sq) if reduction == "sum" else xp.mean(sq)
        data = xp.asarray(total, dt.np)
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
    """PyTorch's nll_loss backward: ``-(g / total_weight)`` ('mean') or ``-g`` ('sum') times the
    target's weight, ``-w * g[i]`` ('none'), written at each kept target's class (rounded in
    that order: the bits of its kernel)."""
    (x,) = node.saved()
    if not _gm.enabled and x._dtype in (D.float32, D.float64):
        return (_nll_grad_arrays(node, x, g),)  # no graph of the backward to record
    wt, keep = node.wt, node.keep
    if node.reduction == "none":
        vals = -g if wt is None else -wt * g
    else:
        grad = -(g / node.total) if node.reduction == "mean" else -g
        vals = grad.expand(node.safe_target.shape) if wt is None else wt * grad
    if keep is not None:
        vals = vals.masked_fill(~keep, 0)
    safe = node.safe_target
    if x.dim() == 1:
        return (x.new_zeros(x.shape).scatter(0, safe.reshape(1), vals.reshape(1)),)
    return (x.new_zeros(x.shape).scatter(1, safe.unsqueeze(1), vals.unsqueeze(1)),)


def _nll_grad_arrays(node, x: Tensor, g: Tensor) -> Tensor:
    """The VJP above on arrays: one scatter into zeros (the same operations, the same bits)."""
    xp = xp_for(x)
    gd = g._data
    wt = None if node.wt is None else node.wt._data
    if node.reduction == "none":
        vals = -gd if wt is None else -wt * gd
    elif node.reduction == "sum":
        vals = -gd if wt is None else wt * -gd
    else:
        grad = _mean_grad(gd, node.total._data)
        vals = grad if wt is None else wt * grad
    safe = node.safe_target._data
    keep = None if node.keep is None else node.keep._data
    out = xp.zeros(x._data.shape, x._data.dtype)
    if keep is not None and xp is not np:
        # A GPU writes 0 for an ignored target (at its safe class 0, into zeros: the same
        # result) rather than selecting the kept ones, which would wait for the device.
        vals, keep = xp.where(keep, vals, 0).astype(out.dtype, copy=False), None
    if x._data.ndim == 1:
        if keep is None or bool(keep.reshape(())):
            out[safe.reshape(1)] = vals.reshape(1)
        return _wrap(out, x._dtype, x._device)
    n = safe.shape[0]
    if keep is None and safe.ndim == 1:  # (N, C): one value a row (cross-entropy's case)
        out[xp.arange(n), safe] = vals
        return _wrap(out, x._dtype, x._device)
    vals = xp.broadcast_to(vals, safe.shape)
    index = (xp.arange(n).reshape((n,) + (1,) * (safe.ndim - 1)), safe) + tuple(
        xp.arange(k).reshape((k,) + (1,) * (safe.ndim - 2 - i))
        for i, k in enumerate(safe.shape[1:])
    )
    if keep is None:
        out[index] = vals
    else:  # ignored targets: nothing written
        out[tuple(xp.broadcast_to(i, safe.shape)[keep] for i in index)] = vals[keep]
    return _wrap(out, x._dtype, x._device)


def _mean_grad(gd, total):
    """``-(g / total)``: with every target ignored the total is 0, and PyTorch divides by it
    without a warning (on NumPy a ``bool`` of the 0-d total: no device sync on a GPU)."""
    if total.__class__ is np.ndarray and not total:
        with np.errstate(divide="ignore", invalid="ignore"):
            return -(gd / total)
    return -(gd / total)


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
        data, total = fast
        return _nll_result(input, data, None, None, total, t.copy(), reduction, nd)
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= c))
    _backend.check(
        bad.any(), lambda: IndexError(f"Target {int(t[bad].ravel()[0])} is out of bounds.")
    )
    safe = xp.where(keep, t, 0)
    if nd == 1:
        picked = x[safe]
    else:
        picked = xp.take_along_axis(x, safe[:, None], 1)[:, 0]
    wt = None if weight is None else weight._data.astype(x.dtype, copy=False)[safe] * keep
    losses = -picked if wt is None else -wt * picked  # PyTorch's -x * w (the same bits)
    # On NumPy a batch with no ignored target takes the cheaper all-kept paths; a GPU keeps the
    # mask (asking whether every target is kept would wait for the device)
    kept = None if xp is np and keep.all() else keep
    if reduction == "none":
        if kept is not None:  # an ignored target's loss is +0 (not -w * x = -0)
            losses = xp.where(keep, losses, 0)
        # One class vector: one 0-d loss, which PyTorch's kernel sums from 0 (-0 becomes +0)
        data = losses.reshape(()) + 0 if nd == 1 else losses
        total = None
    else:
        data, total = _nll_reduce(xp, losses, wt, kept, reduction)
    return _nll_result(input, data, wt, kept, total, safe, reduction, nd)


def _nll_reduce(xp, losses, wt, keep, reduction: str):
    """The 'sum'/'mean' of nll_loss as PyTorch's CPU kernels add: a cascade sum over the kept
    targets in order (``cascade_sum``), the total weight likewise (or the kept count), the mean
    one division. (loss, total weight) as 0-d arrays of the input's dtype."""
    dt = losses.dtype
    flat = losses.reshape(-1)
    if xp is not np:  # a GPU: the device's own reduction, no host round trip
        mask = None if keep is None else keep.reshape(-1)
        loss = (flat if mask is None else xp.where(mask, flat, 0)).sum()
        if wt is not None:
            total = wt.reshape(-1).sum()
        elif mask is None:
            total = xp.full((), flat.shape[0], dt)
        else:
            total = mask.sum().astype(dt)
        if reduction == "mean":
            loss = loss / total  # no targets, or all ignored: 0 / 0 = NaN, as in PyTorch
        return loss.astype(dt, copy=False), total.astype(dt, copy=False)
    where = None if keep is None else np.flatnonzero(keep.reshape(-1))
    vals = flat if where is None else flat[where]
    loss = cascade_sum(vals, where, flat.shape[0])
    if wt is None:
        total = dt.type(vals.shape[0])
    else:
        w = wt.reshape(-1)
        total = cascade_sum(w if where is None else w[where], where, flat.shape[0])
    if reduction == "mean":
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = loss / total  # no targets, or all ignored: 0 / 0 = NaN, as in PyTorch
    return np.asarray(loss, dt), np.asarray(total, dt)


_CASCADE_LEVELS = 8


def cascade_sum(vals, where, n: int):
    """PyTorch's CPU ``nll_loss``/``nll_loss2d`` sum (``LossNLL.cpp``): the value of sample ``b``
    (of ``n``; ``where``: the kept samples' positions, None for all) is added to partial sum 0;
    then, while bits ``[j*p, (j+1)*p)`` of ``b`` are zero (p = 4, 16 samples a level), partial
    ``j`` moves into partial ``j + 1`` (8 partials, the last never moves); at the end the
    partials are added in order. Every addition rounds in the values' dtype."""
    dt = vals.dtype
    power = max(4, (max(n, 1) - 1).bit_length() // _CASCADE_LEVELS)
    if vals.shape[0] == 0:
        return dt.type(0)
    if where is None:
        return _cascade_all(vals, 1 << power)
    partials = []
    b = np.arange(vals.shape[0]) if where is None else where
    for j in range(_CASCADE_LEVELS - 1):
        if vals.shape[0] == 0:
            break
        flag = (b & ((1 << (power * (j + 1))) - 1)) == 0
        ends = np.flatnonzero(flag)
        last = ends[-1] + 1 if ends.shape[0] else 0
        partials.append(_sequential(vals[last:], dt))
        vals, b = _segment_sums(vals[:last], ends), b[ends]
    total = dt.type(0)
    for p in partials:
        total = dt.type(total + p)
    return dt.type(total + _sequential(vals, dt))


def _cascade_all(vals, step: int):
    """``cascade_sum`` with every sample kept: sample 0 moves straight to the last partial, then
    each level holds runs of ``step`` values (one reshape) and the remainder."""
    dt = vals.dtype
    first, level = vals[0], vals[1:]
    total = dt.type(0)
    for _ in range(_CASCADE_LEVELS - 1):
        k = level.shape[0] // step
        total = dt.type(total + _sequential(level[k * step :], dt))
        if k == 0:
            return dt.type(total + dt.type(dt.type(0) + first))
        level = np.add.accumulate(level[: k * step].reshape(k, step), axis=1)[:, -1]
    return dt.type(total + _sequential(np.concatenate(([first], level)), dt))


def _sequential(v, dt):
    """0 + v[0] + v[1] + ... left to right, rounding each step (accumulate is sequential)."""
    return np.add.accumulate(v)[-1] if v.shape[0] else dt.type(0)


def _segment_sums(v, ends):
    """Sequential sums of the runs of ``v`` that end (inclusive) at ``ends`` (the last at
    ``v``'s end)."""
    k = ends.shape[0]
    if k <= 1:
        return np.add.accumulate(v)[-1:] if k else v[:0]
    lengths = np.diff(ends, prepend=-1)
    head, step = int(lengths[0]), int(lengths[1])
    if (lengths[1:] == step).all():  # runs of one length after the first: one reshape
        rest = np.add.accumulate(v[head:].reshape(k - 1, step), axis=1)[:, -1]
        return np.concatenate((np.add.accumulate(v[:head])[-1:], rest))
    starts = ends - lengths + 1
    rows = np.zeros((k, int(lengths.max())), v.dtype)  # zeros pad the runs' ends: sums unchanged
    cols = np.arange(v.shape[0]) - np.repeat(starts, lengths)
    rows[np.repeat(np.arange(k), lengths), cols] = v
    return np.add.accumulate(rows, axis=1)[:, -1]


def _nll_unweighted(x, t, c: int, weight, reduction: str, ignore_index: int):
    """nll_loss's common case on NumPy arrays: (N, C) float32/float64 input, no weight, a sum or
    mean, every target in range and none ignored: the losses ``-x[i, t[i]]``, their cascade
    sum, the total weight N. (loss, total), or None for the general path."""
    if weight is not None or reduction == "none" or x.__class__ is not np.ndarray:
        return None
    if x.dtype != F32 and x.dtype != F64:
        return None
    if not _all_kept(t, c, ignore_index):
        return None
    return _nll_all_kept(x, t, reduction)


def _all_kept(t, c: int, ignore_index: int) -> bool:
    """Whether the 1-d int64 targets ``t`` (some) all lie in [0, c) and none can be ignored."""
    if t.size == 0 or t.ndim != 1 or 0 <= ignore_index < c:
        return False  # an ignored class may occur: the general path
    return not (t.min() < 0 or t.max() >= c)  # else the general path raises its IndexError


def _nll_all_kept(x, t, reduction: str):
    """``_nll_unweighted``'s arrays once its conditions hold."""
    n = t.size
    losses = -x[np.arange(n), t]
    loss = cascade_sum(losses, None, n)
    total = x.dtype.type(n)
    if reduction == "mean":
        loss = loss / total
    return np.asarray(loss, x.dtype), np.asarray(total, x.dtype)


def cross_entropy_indices(input: Tensor, target: Tensor, reduction: str, ignore_index: int):
    """F.cross_entropy's common case once its arguments are checked (no weight, no label
    smoothing, a 'mean' or 'sum'): a 2-d float32 CPU input, 1-d int64 targets of its batch
    size, all in range and none ignored. log_softmax then nll_loss by the kernels and with the
    nodes of the general path (the same bits, LogSoftmaxBackward0 and NllLossBackward0), without
    re-checking the arguments at each layer. None where another case applies."""
    x, t = input._data, target._data
    if x.__class__ is not np.ndarray or x.dtype != F32 or x.ndim != 2 or not x.size:
        return None
    if input._device.type == "cuda":  # a CPU-backed stand-in GPU: the general path's formula
        return None
    if target._dtype is not D.int64 or t.ndim != 1 or t.shape[0] != x.shape[0]:
        return None
    if reduction == "none" or (_fw_state.level and input._fw is not None):
        return None
    if not _all_kept(t, x.shape[1], ignore_index):
        return None
    logp = log_softmax_f32_rows(input)
    data, total = _nll_all_kept(logp._data, t, reduction)
    return _nll_result(logp, data, None, None, total, t.copy(), reduction, 2)


def _nll_result(input: Tensor, data, wt, keep, total, safe, reduction: str, nd: int) -> Tensor:
    """nll_loss's result from its arrays: the loss, its backward node and forward tangent.
    ``wt``: the targets' weights (0 where ignored; None: no weight), ``keep``: the targets not
    ignored (None: all), ``total``: the total weight ('sum'/'mean')."""
    x = input._data
    dev, dt = input._device, input._dtype
    r = _wrap(data.astype(x.dtype, copy=False), dt, dev)
    need_fw = _fw_state.level and input._fw is not None
    if not (input._rg and _gm.enabled) and not need_fw:
        return r
    wt_t = None if wt is None else _wrap(wt, dt, dev)
    keep_t = None if keep is None else _wrap(keep, D.bool, dev)
    total_t = None if total is None else _wrap(total, dt, dev)
    safe_t = _wrap(safe, D.int64, dev)
    if input._rg and _gm.enabled:
        record(
            _NllLoss if nd <= 2 else _NllLoss2d, (input,), r, (input,),
            reduction=reduction, wt=wt_t, keep=keep_t, total=total_t, safe_target=safe_t,
        )  # fmt: skip
    if need_fw:
        tf = input._fw
        tp = tf.gather(0, safe_t) if nd == 1 else tf.gather(1, safe_t.unsqueeze(1)).squeeze(1)
        cw = -tp if wt_t is None else -wt_t * tp
        if keep_t is not None:
            cw = cw.masked_fill(~keep_t, 0)
        if reduction == "mean":
            cw = cw / total_t
        r._fw = cw.reshape(r.shape) if reduction == "none" else cw.sum()
        _register(r)
    return r


# ---- elementwise losses with one fused node --------------------------------------------------------
def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


# Losses whose half-type backward kernel in PyTorch computes in float32 and rounds once; the
# others' backward works in the half type, the mean's division last
_FLOAT32_BACKWARD = frozenset(("SmoothL1LossBackward0",))
# ... and those whose kernel takes norm * partial * g in float32, rounded once, from the
# partial (the clamped difference) and norm (1/N for a mean) in the half type
_HALF_NORM_FIRST = frozenset(("HuberLossBackward0",))


def _pointwise_loss_vjp(node, g):
    x, t = node.saved()
    half = g._dtype if g._dtype in (D.float16, D.bfloat16) else None
    if half is not None and type(node).__name__ in _FLOAT32_BACKWARD:
        x, t, g = x.float(), t.float(), g.float()
        if node.reduction == "mean":
            g = g / x.numel()
        gx, gt = node.grads(x, t, *node.params)
        weight = None if node.weight is None else node.weight.float()
        gx = (
            None
            if gx is None or not _need(node, 0)
            else g * (gx if weight is None else gx * weight)
        )
        gt = (
            None
            if gt is None or not _need(node, 1)
            else g * (gt if weight is None else gt * weight)
        )
        return tuple(None if a is None else a.to(half) for a in (gx, gt))
    if half is not None and type(node).__name__ in _HALF_NORM_FIRST and node.weight is None:
        gx, gt = node.grads(x, t, *node.params)  # the clamped difference, in the half type
        norm = 1 / x.numel() if node.reduction == "mean" else 1.0
        norm = float(D.half_scalar(norm, half).astype(half.np))
        g32 = g.float()
        gx = (gx.float() * norm * g32).to(half) if _need(node, 0) and gx is not None else None
        gt = (gt.float() * norm * g32).to(half) if _need(node, 1) and gt is not None else None
        return gx, gt
    late = half is not None  # half types: the mean's division comes last
    if node.reduction == "mean" and not late:
        g = g / x.numel()
    gx, gt = node.grads(x, t, *node.params)
    if node.weight is not None:
        gx = None if gx is None else gx * node.weight
        gt = None if gt is None else gt * node.weight
    gx = g * gx if _need(node, 0) else None
    gt = g * gt if _need(node, 1) and gt is not None else None
    if node.reduction == "mean" and late:
        gx, gt = (None if a is None else a / x.numel() for a in (gx, gt))
    return gx, gt


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
        # d / beta and sign(d) agree at |d| == beta; the second derivative is PyTorch's there (0)
        gx = (d / beta).where(d.abs() < beta, d.sign())
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
    gx = d.where(d.abs() < delta, d.sign() * delta)  # (as smooth_l1's: |d| == delta)
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
