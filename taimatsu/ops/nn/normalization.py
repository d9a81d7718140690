"""Normalisation and embedding kernels: batch_norm, layer_norm, group_norm, embedding.

Forwards work on arrays; statistics are accumulated in float64 (PyTorch's CPU kernels use a
double accumulator for float input too). Each records one node named like PyTorch's
(NativeBatchNormBackward0, ...) whose VJP recomputes the statistics from the saved input in
Tensor ops, so double backward is right.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math.primitives import fma
from ...backend.fp_errors import silent
from .._dispatch import _fw_state, check_devices, record, scalar_name, xp_for
from ..contraction.matmul import _matmul_array


def _need(node, i: int) -> bool:
    return node.next_functions[i][0] is not None


@silent
def _stats(xp, x, axes):
    """Mean and biased variance over ``axes`` (kept), accumulated in float64."""
    x64 = x.astype(np.float64) if x.dtype != np.float64 else x
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    return mean, var


def _normalized(x: Tensor, axes, eps):
    """(x - mean) * invstd in Tensor ops (differentiable), and invstd."""
    mean = x.mean(axes, keepdim=True)
    c = x - mean
    invstd = ((c * c).mean(axes, keepdim=True) + eps).rsqrt()
    return c * invstd, invstd


def _norm_input_grad(gxhat: Tensor, xhat: Tensor, invstd: Tensor, axes) -> Tensor:
    """Gradient through (x - mean(x)) * invstd(x) given the gradient of its output."""
    return invstd * (
        gxhat - gxhat.mean(axes, keepdim=True) - xhat * (gxhat * xhat).mean(axes, keepdim=True)
    )


def _channel_view(t: Tensor, ndim: int) -> Tensor:
    return t.reshape([1, -1] + [1] * (ndim - 2))


# ---- batch norm ------------------------------------------------------------------------------
# The backward's rows (one image's plane of one channel) up to this length are reduced by
# einsum in the input's dtype (a few ulp of the row; PyTorch's vector sums depend on the CPU's
# vector width), longer or narrower ones (BatchNorm1d's (N, C) input) in float64; the rows'
# sums are then added in float64. Each row is reduced alike however the batch
# is split over threads, so the bits do not depend on the thread count (einsum's result for a
# row does not depend on the other rows; a BLAS gemv's does, through its row blocking).
_ROW_MAX, _ROW_MIN = 4096, 16


def _rows(x, n: int, c: int):
    """(N, C, *) as (N * C, M): one row per image and channel (a view when contiguous)."""
    return x.reshape(n * c, -1)


def _row_sums(xp, x3, out) -> None:
    """The row sums of an (N, C, M) array into the float64 (N, C) ``out``."""
    n, c, m = x3.shape
    if _ROW_MIN <= m <= _ROW_MAX:
        out[...] = xp.einsum("ij->i", _rows(x3, n, c)).reshape(n, c)
    else:
        x3.sum(2, dtype=np.float64, out=out)


def _row_dots(xp, a3, b3, out) -> None:
    """The row sums of ``a3 * b3`` ((N, C, M) arrays) into the float64 (N, C) ``out``, without
    the full-size product where the rows go through einsum."""
    n, c, m = a3.shape
    if _ROW_MIN <= m <= _ROW_MAX:
        out[...] = xp.einsum("ij,ij->i", _rows(a3, n, c), _rows(b3, n, c)).reshape(n, c)
    else:
        (a3 * b3).sum(2, dtype=np.float64, out=out)


def _by_halves(xp, part, x3) -> None:
    """``part(lo, hi)`` over the batch of ``x3``, split over two threads when it is large."""
    if xp is np:
        from ...backend.parallel import NORM_PASS_WORK, halves

        halves(silent(part), x3.shape[0], x3.size * NORM_PASS_WORK)  # errstate: per thread
    else:
        part(0, x3.shape[0])


def _fast_dtypes(input: Tensor, *params) -> bool:
    """float32/float64 input whose parameters share its dtype: the array kernels below."""
    return input._dtype in (D.float32, D.float64) and all(
        p is None or p._dtype is input._dtype for p in params
    )


def _bn_train_forward(xp, x, w, b, eps):
    """Training-mode batch norm on arrays, as PyTorch's CPU kernel computes it: the channel
    mean accumulated in float64 and rounded to the input's dtype, the sum of the centred
    values' squares accumulated in float64 and rounded to it, ``invstd = 1 / sqrt(var_sum /
    count + eps)``, then ``y = x * alpha + beta`` with ``alpha = invstd * weight``, ``beta =
    bias - mean * alpha`` (``_bn_affine``). An (N, C) input (one value per image and channel)
    goes PyTorch's channels-last way (``_bn_column_stats``). Up to ``_EXACT_MAX`` float32
    elements the sums are PyTorch's bit for bit (every element and square rounded to float32
    added in float64); larger inputs sum their rows in float32 by einsum first (``_row_sums``:
    a few ulp of a row, at a sixth of the cost). Returns (y, mean, invstd, var_sum), the
    statistics in the input's dtype."""
    n, c = x.shape[0], x.shape[1]
    x3 = x.reshape(n, c, -1)
    count = x3.shape[0] * x3.shape[2]
    y = xp.empty(x3.shape, x.dtype)  # the centred values, then the output in place
    if xp is np and x3.shape[2] == 1:
        mean, var_sum = _bn_column_stats(x3[:, :, 0], y[:, :, 0])
    else:
        exact = _exact(xp, x3)
        rows = xp.empty((n, c), np.float64)

        def sums(lo, hi):
            if exact:
                x3[lo:hi].sum(2, dtype=np.float64, out=rows[lo:hi])
            else:
                _row_sums(xp, x3[lo:hi], rows[lo:hi])

        _by_halves(xp, sums, x3)
        mean = (rows.sum(0) / count).astype(x.dtype)

        def centred(lo, hi):
            d = xp.subtract(x3[lo:hi], mean[:, None], out=y[lo:hi])
            if exact:
                np.multiply(d, d).sum(2, dtype=np.float64, out=rows[lo:hi])
            else:
                _row_dots(xp, d, d, rows[lo:hi])

        _by_halves(xp, centred, x3)
        var_sum = rows.sum(0).astype(x.dtype)
    invstd = (1.0 / xp.sqrt((var_sum / x.dtype.type(count)).astype(np.float64) + eps)).astype(
        x.dtype
    )
    _bn_affine(xp, x3, mean, invstd, w, b, y)
    return y.reshape(x.shape), mean, invstd, var_sum


# float32 inputs up to this many elements get PyTorch's batch-norm bits (float64 sums, a fused
# multiply-add replayed in float64); larger ones take float32 kernels at half the cost or less
_EXACT_MAX = 1 << 14


def _exact(xp, x3) -> bool:
    return xp is np and x3.dtype == np.float32 and x3.size <= _EXACT_MAX


def _bn_column_stats(x2, d):
    """The mean and sum of squared deviations of each column of the (N, C) array ``x2``, as
    PyTorch's channels-last kernel computes them: each thread adds its rows in order in the
    input's dtype, the threads' sums are added in float64 (the mean is exact). The squares
    are summed the same way, but PyTorch fuses each square into its running sum with a
    multiply-add, which only a loop over the rows could replay: here each square is rounded
    first, so the sum can differ from PyTorch's in its last bits. ``d`` receives x - mean."""
    from ...backend.threads import aten_chunks

    chunks = aten_chunks(x2.shape[0], 1)
    dt = x2.dtype.type
    mean = (sum(x2[lo:hi].sum(0).astype(np.float64) for lo, hi in chunks) / x2.shape[0]).astype(dt)
    np.subtract(x2, mean, out=d)
    sq = d * d
    var_sum = sum(sq[lo:hi].sum(0).astype(np.float64) for lo, hi in chunks).astype(dt)
    return mean, var_sum


def _bn_eval_forward(xp, x, mean, var, w, b, eps):
    """Evaluation-mode batch norm on arrays from the running statistics: PyTorch's
    ``invstd = 1 / sqrt(var + eps)`` in the input's dtype, then ``x * alpha + beta``."""
    n, c = x.shape[0], x.shape[1]
    x3 = x.reshape(n, c, -1)
    invstd = 1 / xp.sqrt(var + x.dtype.type(eps))
    y = xp.empty(x3.shape, x.dtype)
    _bn_affine(xp, x3, mean, invstd, w, b, y)
    return y.reshape(x.shape)


def _bn_affine(xp, x3, mean, invstd, w, b, out) -> None:
    """``out = x * alpha + beta`` with ``alpha = invstd * weight``, ``beta = bias - mean *
    alpha`` (per channel of the (N, C, M) ``x3``), PyTorch's CPU formula; fused as PyTorch's
    up to ``_EXACT_MAX`` float32 elements, a multiply then an add above."""
    alpha = invstd if w is None else invstd * w
    # beta rounded once from the exact float64 product, as PyTorch's fused multiply-add
    beta = -mean.astype(np.float64) * alpha if b is None else b - mean.astype(np.float64) * alpha
    alpha, beta = alpha[:, None], beta.astype(x3.dtype)[:, None]
    if _exact(xp, x3):
        # PyTorch's build fuses x * alpha + beta into one multiply-add: one rounding (two
        # roundings differ from it in ~40% of elements)
        def affine(lo, hi):
            out[lo:hi] = fma(x3[lo:hi], alpha, beta, once=True)

    else:

        def affine(lo, hi):
            xp.multiply(x3[lo:hi], alpha, out=out[lo:hi])
            out[lo:hi] += beta

    _by_halves(xp, affine, x3)


def _bn_train_backward(xp, x, w, g, mean, invstd, need):
    """Array gradients of training-mode batch norm from the forward's mean and invstd:
    ``gx = (g - mean(g) - (x - mean) * k) * invstd * weight``, ``k = dot * invstd**2 / count``,
    with the channel sums in float64 (PyTorch's formula)."""
    n, c = x.shape[0], x.shape[1]
    x3, g3 = x.reshape(n, c, -1), g.reshape(n, c, -1)
    count = x3.shape[0] * x3.shape[2]
    gsum, dot = xp.empty((n, c), np.float64), xp.empty((n, c), np.float64)
    d = xp.empty(x3.shape, x.dtype)

    def sums(lo, hi):
        _row_sums(xp, g3[lo:hi], gsum[lo:hi])
        xp.subtract(x3[lo:hi], mean[:, None], out=d[lo:hi])
        _row_dots(xp, d[lo:hi], g3[lo:hi], dot[lo:hi])

    _by_halves(xp, sums, x3)
    gsum, dot = gsum.sum(0), dot.sum(0)
    inv64 = invstd.astype(np.float64)
    gx = gw = gb = None
    if need[1]:
        gw = (dot * inv64).astype(x.dtype)
    if need[2]:
        gb = gsum.astype(x.dtype)
    if need[0]:
        scale = (invstd if w is None else invstd * w)[:, None]
        k = (dot * inv64 * inv64 / count).astype(x.dtype)[:, None]
        gmean = (gsum / count).astype(x.dtype)[:, None]
        gx = xp.empty(x3.shape, x.dtype)

        def input_grad(lo, hi):
            xp.subtract(g3[lo:hi], gmean, out=gx[lo:hi])
            d[lo:hi] *= k
            gx[lo:hi] -= d[lo:hi]
            gx[lo:hi] *= scale

        _by_halves(xp, input_grad, x3)
        gx = gx.reshape(x.shape)
    return gx, gw, gb


def _batch_norm_vjp(node, g):
    x, w = node.saved()
    if node.mean is not None and not _gm.enabled and g._fw is None:  # no graph to record
        wd = None if w is None else w._data
        need = [_need(node, i) for i in range(3)]
        xd, gd = x._data, g._data
        if xd.dtype.char in D.HALF_CHARS:  # parameters of the input's type: in float32
            xd, gd = xd.astype(np.float32), gd.astype(np.float32)
            wd = None if wd is None else wd.astype(np.float32)
        grads = _bn_train_backward(xp_for(g), xd, wd, gd, node.mean, node.invstd, need)
        return tuple(
            None if a is None else _wrap(D.cast_array(a, g._data.dtype), g._dtype, g._device)
            for a in grads
        )
    if node.training and x._dtype in (D.float16, D.bfloat16) and not _gm.enabled and g._fw is None:
        return _half_train_backward(node, x, w, g)
    nd = x.dim()
    axes = [0] + list(range(2, nd))
    if node.training:
        xhat, invstd = _normalized(x, axes, node.eps)
    else:
        invstd = _channel_view(node.running_var, nd).add(node.eps).rsqrt()
        xhat = (x - _channel_view(node.running_mean, nd)) * invstd
    gx = gw = gb = None
    if _need(node, 0):
        gxhat = g if w is None else g * _channel_view(w, nd)
        gx = _norm_input_grad(gxhat, xhat, invstd, axes) if node.training else gxhat * invstd
    if _need(node, 1):
        gw = (g * xhat).sum(axes)
    if _need(node, 2):
        gb = g.sum(axes)
    return gx, gw, gb


def _half_train_backward(node, x: Tensor, w, g: Tensor):
    """float16/bfloat16 input (float32 parameters under autocast): PyTorch's CPU kernel works
    in float32 and rounds only the input gradient; the parameters' gradients stay float32."""
    xp = xp_for(g)
    x32, g32 = x._data.astype(np.float32), g._data.astype(np.float32)
    mean, var = _stats(xp, x32, (0,) + tuple(range(2, x32.ndim)))
    invstd = (1.0 / np.sqrt(var.reshape(-1) + node.eps)).astype(np.float32)
    w32 = None if w is None else w._data.astype(np.float32, copy=False)
    need = [_need(node, i) for i in range(3)]
    gx, gw, gb = _bn_train_backward(
        xp, x32, w32, g32, mean.reshape(-1).astype(np.float32), invstd, need
    )
    pd, pdev = (w._dtype, w._device) if w is not None else (D.float32, g._device)
    return (
        None if gx is None else _wrap(gx.astype(x._data.dtype), x._dtype, x._device),
        None if gw is None else _wrap(gw, pd, pdev),
        None if gb is None else _wrap(gb, pd, pdev),
    )


_BatchNorm = node_class("NativeBatchNormBackward0", _batch_norm_vjp)


def _check_dtypes(input: Tensor, kernel: str, *params) -> None:
    """PyTorch's CPU normalisation dtype rules: a floating input; parameters of the input's dtype, or
    float32 parameters for a float16/bfloat16 input (NumPy would promote the result silently)."""
    if input._dtype.category != D.FLOAT:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._dtype)}'")
    if all(p is None or p._dtype is input._dtype for p in params):
        return
    if any(p is not None and p._dtype is not D.float32 for p in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._dtype not in (D.float16, D.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


@silent  # inf - inf in the statistics is NaN, silently as in PyTorch
def batch_norm(
    input: Tensor,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
) -> Tensor:
    """``torch.batch_norm`` over dim 1 of (N, C, *) input; updates running stats in training."""
    x = input._data
    xp = xp_for(input)
    nd = x.ndim
    axes = (0,) + tuple(range(2, nd))
    shape = [1, -1] + [1] * (nd - 2)
    c = x.shape[1] if nd > 1 else 0  # PyTorch's channel count of a 1-d input
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):  # fmt: skip
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if nd < 2 and x.size:  # no channel dim (an empty input passes through, as in PyTorch)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    _check_dtypes(input, "batch_norm", weight, bias, running_mean, running_var)
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    batch_stats = training or running_mean is None
    y = saved_mean = saved_invstd = None
    w, b = (None if t is None else t._data for t in (weight, bias))
    half = input._dtype in (D.float16, D.bfloat16) and xp is np and x.size
    half_params = half and all(t is None or t._dtype is input._dtype for t in (weight, bias))
    var_sum = None
    if batch_stats and x.size and _fast_dtypes(input, weight, bias):
        y, saved_mean, saved_invstd, var_sum = _bn_train_forward(xp, x, w, b, eps)
    elif batch_stats and half_params:
        mean, var = _stats(xp, x, axes)
        y, saved_mean, saved_invstd = _bn_half_train_forward(x, mean, var, w, b, eps, shape)
    elif batch_stats:
        mean, var = _stats(xp, x, axes)
    elif x.size and _fast_dtypes(input, weight, bias, running_mean, running_var):
        y = _bn_eval_forward(xp, x, running_mean._data, running_var._data, w, b, eps)
    elif half_params and running_mean._dtype is input._dtype is running_var._dtype:
        y = _bn_half_eval_forward(x, running_mean._data, running_var._data, w, b, eps, shape)
    else:
        mean = running_mean._data.reshape(shape).astype(np.float64)
        var = running_var._data.reshape(shape).astype(np.float64)
    if training and running_mean is not None and var_sum is not None:
        _bn_update_running(running_mean, running_var, saved_mean, var_sum, x.size // c, momentum)
    elif training and running_mean is not None:
        n = x.size // c
        m = momentum
        _update(running_mean, m * mean.reshape(-1) + (1 - m) * running_mean._data)
        _update(
            running_var, m * var.reshape(-1) * (n / max(n - 1, 1)) + (1 - m) * running_var._data
        )
    if y is None:
        y = (x - mean) / xp.sqrt(var + eps)
        if weight is not None:
            y = y * weight._data.reshape(shape)
        if bias is not None:
            y = y + bias._data.reshape(shape)
    r = _wrap(y.astype(x.dtype, copy=False), input._dtype, input._device)
    if _gm.enabled and any(t is not None and t._rg for t in (input, weight, bias)):
        record(
            _BatchNorm, (input, weight, bias), r, (input, weight), training=batch_stats, eps=eps,
            running_mean=None if batch_stats else running_mean.detach().clone(),
            running_var=None if batch_stats else running_var.detach().clone(),
            mean=saved_mean, invstd=saved_invstd,
        )  # fmt: skip
    _tangent(r, input, weight, bias, lambda i, w, b: batch_norm(i, running_mean, running_var, w, b,
                                                              False, momentum, eps) if not batch_stats
             else _bn_train_composite(i, w, b, axes, eps))  # fmt: skip
    return r


def _half_stat(a, dtype):
    """A float64 statistic as PyTorch's kernel keeps it for a float16/bfloat16 input with
    parameters of its type: in that type (returned as float32 values)."""
    return D.cast_array(np.asarray(a), dtype).astype(np.float32)


def _bn_half_train_forward(x, mean, var, w, b, eps, shape):
    """Training-mode batch norm of a float16/bfloat16 input whose parameters share its type:
    PyTorch's kernel stores the batch mean and variance in that type, takes 1/sqrt(var + eps)
    in float32 and rounds it too, then ``(x - mean) * invstd * weight + bias`` in float32,
    rounded once. Returns y and the (rounded) mean and invstd, as float32 per channel."""
    mh, vh = _half_stat(mean.reshape(-1), x.dtype), _half_stat(var.reshape(-1), x.dtype)
    ih = _half_stat(np.float32(1) / np.sqrt(vh + np.float32(eps)), x.dtype)
    y = (x.astype(np.float32) - mh.reshape(shape)) * ih.reshape(shape)
    if w is not None:
        y *= w.astype(np.float32).reshape(shape)
    if b is not None:
        y += b.astype(np.float32).reshape(shape)
    return D.cast_array(y, x.dtype), mh, ih


def _bn_half_eval_forward(x, rm, rv, w, b, eps, shape):
    """Evaluation-mode batch norm of a float16/bfloat16 input, parameters and running stats
    of its type: ``x * alpha + beta`` in float32 (alpha = weight / sqrt(var + eps), beta =
    bias - mean * alpha), rounded once."""
    alpha = np.float32(1) / np.sqrt(rv.astype(np.float32) + np.float32(eps))
    if w is not None:
        alpha = alpha * w.astype(np.float32)
    beta = -rm.astype(np.float32) * alpha
    if b is not None:
        beta = b.astype(np.float32) + beta
    y = x.astype(np.float32) * alpha.reshape(shape) + beta.reshape(shape)
    return D.cast_array(y, x.dtype)


def _bn_train_composite(x, w, b, axes, eps):
    xhat, _ = _normalized(x, list(axes), eps)
    y = xhat if w is None else xhat * _channel_view(w, x.dim())
    return y if b is None else y + _channel_view(b, x.dim())


def _bn_update_running(running_mean, running_var, mean, var_sum, n, momentum) -> None:
    """PyTorch's running-statistics update from a batch's mean and sum of squared deviations
    in the input's dtype: ``m * mean + (1 - m) * running_mean`` in that dtype, the unbiased
    variance ``var_sum / (n - 1)`` in that dtype, its update in float64."""
    dt = mean.dtype.type
    m = dt(momentum)
    _update(running_mean, m * mean + (dt(1) - m) * running_mean._data.astype(mean.dtype))
    unbiased = (var_sum / dt(n - 1)).astype(np.float64)
    _update(running_var, m * unbiased + ((dt(1) - m) * running_var._data.astype(mean.dtype)))


def _update(t: Tensor, value) -> None:
    """Write running statistics in place (no history; bumps the version like PyTorch)."""
    t._data[...] = value.astype(t._data.dtype, copy=False)
    t._vc[0] += 1


def _tangent(r, input, weight, bias, composite):
    """Forward-mode AD: the tangent of ``composite`` (the same function in Tensor ops)."""
    if not _fw_state.level or all(t is None or t._fw is None for t in (input, weight, bias)):
        return  # (checked first: an import in a function costs microseconds per call)
    from ...autograd.forward_ad import _register

    # The composite in Tensor ops carries tangents through its component ops.
    with no_grad():
        out = composite(input, weight, bias)
    r._fw = out._fw
    _register(r)


# ---- layer norm and group norm ----------------------------------------------------------------
def _layer_norm_vjp(node, g):
    x, w = node.saved()
    if not _gm.enabled:  # no graph of the backward to record: on arrays
        if node.rows:
            return _layer_norm_backward_rows(node, x, w, g)
        half = x._data.dtype.char in D.HALF_CHARS and x._data.__class__ is np.ndarray
        if half and (w is None or w._dtype is x._dtype):
            return _layer_norm_backward_half(node, x, w, g)
        return _layer_norm_backward(node, x, w, g)
    axes = list(range(x.dim() - node.k, x.dim()))
    lead = list(range(x.dim() - node.k))
    xhat, invstd = _normalized(x, axes, node.eps)
    gx = gw = gb = None
    if _need(node, 0):
        gx = _norm_input_grad(g if w is None else g * w, xhat, invstd, axes)
    if _need(node, 1):
        gw = (g * xhat).sum(lead) if lead else g * xhat
    if _need(node, 2):
        gb = g.sum(lead) if lead else g
    return gx, gw, gb


def _half_row_sums(terms, dtype):
    """PyTorch's weight/bias gradient sums of a half-type layer norm: each thread's rows added
    in order into a buffer of the half type (rounded at every row), the threads' buffers then
    added in order, rounded. ``terms``: (rows, C) float32."""
    total = None
    from ...backend.threads import aten_chunks

    for lo, hi in aten_chunks(terms.shape[0], 1):
        acc = np.zeros(terms.shape[1], np.float32)
        for i in range(lo, hi):
            acc = D.cast_array(acc + terms[i], dtype).astype(np.float32)
        total = acc if total is None else D.cast_array(total + acc, dtype).astype(np.float32)
    return D.cast_array(total, dtype)


def _layer_norm_backward_half(node, x: Tensor, w, g: Tensor):
    """Layer norm's backward for a float16/bfloat16 input whose weight shares its type, as
    PyTorch's kernel computes it: from the mean and 1/std it saved in the half type, the input
    gradient ``rstd * dy * w + b * x + c`` per row in float32 (``b = (db * mean - ds) *
    rstd**3 / C``, ``c = -b * mean - db * rstd / C``), rounded once; the weight and bias
    gradients summed row by row in the half type (``_half_row_sums``)."""
    dtype = x._data.dtype
    c = math.prod(x._data.shape[x._data.ndim - node.k :])
    x2 = x._data.reshape(-1, c).astype(np.float32)
    g2 = g._data.reshape(-1, c).astype(np.float32)
    mean = D.cast_array(node.mean.reshape(-1, 1), dtype).astype(np.float32)
    rstd = D.cast_array(node.rstd.reshape(-1, 1), dtype).astype(np.float32)
    gx = gw = gb = None
    if _need(node, 0):
        dyw = g2 if w is None else g2 * w._data.reshape(-1).astype(np.float32)
        ds = (dyw * x2).astype(np.float64).sum(1, keepdims=True).astype(np.float32)
        db = dyw.astype(np.float64).sum(1, keepdims=True).astype(np.float32)
        scale = np.float32(1 / c)
        b = (db * mean - ds) * rstd * rstd * rstd * scale
        cc = -b * mean - db * rstd * scale
        r = rstd * dyw + b * x2 + cc
        gx = _wrap(D.cast_array(r, dtype).reshape(x._data.shape), x._dtype, x._device)
    if _need(node, 1):
        gw = _half_row_sums((g2 * (x2 - mean)) * rstd, dtype)
        gw = _wrap(gw.reshape(w._data.shape), w._dtype, w._device)
    if _need(node, 2):
        dt = node._shapes[2][1]
        gb = _wrap(_half_row_sums(g2, dtype).reshape(node._shapes[2][0]), dt, g._device)
    return gx, gw, gb


def _layer_norm_backward(node, x: Tensor, w, g: Tensor):
    """The VJP above on arrays, from the forward's float64 mean and 1/std (PyTorch saves them
    too): the same formula, accumulated in float64 and rounded once to each input's dtype."""
    xp = xp_for(x)
    nd = x._data.ndim
    axes, lead = tuple(range(nd - node.k, nd)), tuple(range(nd - node.k))
    # The float64 steps in place where the operand is a temporary of this function
    # (the same operations in the same order as the Tensor-op VJP's formula).
    xhat = x._data - node.mean
    xhat *= node.rstd
    g64 = g._data.astype(np.float64, copy=False)
    gx = gw = gb = None
    if _need(node, 1):
        gw = _wrap(xp.sum(g64 * xhat, axis=lead).astype(w._data.dtype), w._dtype, w._device)
    if _need(node, 2):
        dt = node._shapes[2][1]
        gb = _wrap(xp.sum(g64, axis=lead).astype(dt.np), dt, g._device)
    if _need(node, 0):
        gxhat = g64 * w._data if w is not None else g64.copy()
        dot = (gxhat * xhat).mean(axis=axes, keepdims=True)
        gxhat -= gxhat.mean(axis=axes, keepdims=True)
        xhat *= dot
        gxhat -= xhat
        gxhat *= node.rstd
        gx = _wrap(gxhat.astype(x._data.dtype), x._dtype, x._device)
    return gx, gw, gb


@silent  # rows of inf give NaN, silently as in PyTorch
def _layer_norm_rows(xp, x2, w, b, eps):
    """PyTorch's CPU layer-norm kernel on a (rows, C) float32/float64 array: per row
    ``y = (x * rstd + (-mean * rstd)) * weight + bias`` in the input's dtype, with the row's
    mean and variance accumulated in float64 (PyTorch: float32 moments for float32 input) by
    BLAS and einsum, not by per-row reductions (slow on short rows). Returns y, the float64
    mean and rstd of each row, and the two row coefficients rounded to x's dtype (the
    backward reuses them).

    PyTorch's float32 bits, worked out against 2.13 (0 mismatches over 16 row lengths x 6
    seeds) but not replayed here (a NumPy replay cost 10-70x this path): y is exactly
    ``fma((x - mean) * rstd, weight, bias)``; mean and variance come from ATen's
    RowwiseMoments on 8 float lanes even on AVX-512 CPUs (the kernel is registered for AVX2
    only): per lane Welford over its vectors, chunks of 16 vectors merged in a cascade, both
    Welford steps fused (``m1 = fma(delta, 1/(j+1), m1)``, ``m2 = fma(delta, x - m1, m2)``),
    the scalar tail unfused, then the lanes merged one by one (``m1 = fma(delta, c, m1)``,
    ``m2 += fma(delta * delta * c, m0, m2_lane)``), ``var = m2 / N``, ``rstd = 1 / sqrt(var +
    eps)`` in float32."""
    c = x2.shape[1]
    x64 = x2.astype(np.float64)
    mean = _matmul_array(xp, x64, _ones(xp, c, np.float64))
    mean /= c  # (every step below in place on this function's own temporaries)
    if x2.dtype == np.float32 and xp is np:
        # var = E[x^2] - mean^2 needs no centred copy (a pass over the rows less): in float64
        # from float32 inputs its error, ~C * 2^-53 * (1 + mean^2 / var) at worst, stays far
        # below float32's rounding unless the mean dwarfs the spread; those rows are centred.
        var = xp.einsum("ij,ij->i", x64, x64)
        var /= c
        sq = mean * mean
        var -= sq
        near = sq <= var * (_CANCEL / c)  # False on NaN rows too
        far = None if near.all() else ~near
    else:  # float64 input: every row centred, as its own rounding is that fine; on a GPU
        # too, where choosing rows would make the host wait for the device
        var, far = xp.empty_like(mean), slice(None)
    if far is not None:
        xc = x64[far] - mean[far, None]
        var[far] = xp.einsum("ij,ij->i", xc, xc) / c
    del x64
    rstd = var
    rstd += eps
    xp.sqrt(rstd, out=rstd)
    xp.divide(1, rstd, out=rstd)
    scale, shift = _row_coefficients(mean, rstd, x2.dtype)
    y = _row_affine(x2, scale, shift)
    if w is not None:
        y *= w
    if b is not None:
        y += b
    return y, mean, rstd, scale, shift


# Rows of C elements whose mean^2 exceeds ``_CANCEL / C`` times their variance are centred
# before their variance is summed: E[x^2] - mean^2 otherwise errs by at most ~C * 2^-53 *
# 2^22 / C = 2^-31 relative (float32 rounds at 2^-24).
_CANCEL = 2.0**22

# Read-only all-ones vectors by length and dtype: the BLAS row and column sums of layer_norm
# (one allocation less per sum; NumPy only, a CuPy array belongs to one device).
_ONES: dict = {}


def _ones(xp, n: int, dtype):
    if xp is not np:
        return xp.ones(n, dtype)
    key = (n, dtype)
    v = _ONES.get(key)
    if v is None:
        v = np.ones(n, dtype)
        v.flags.writeable = False
        if len(_ONES) < 64:
            _ONES[key] = v
    return v


def _as_shape(a, shape):
    """``a`` itself when it has ``shape`` already: a reshaped view would make AccumulateGrad copy
    a gradient it can otherwise keep."""
    return a if a.shape == shape else a.reshape(shape)


def _row_coefficients(mean, rstd, dtype):
    """``rstd`` and ``-mean * rstd`` rounded to ``dtype``: y = x * scale + shift per row."""
    shift = -mean
    shift *= rstd
    return rstd.astype(dtype), shift.astype(dtype, copy=False)


def _row_affine(x2, scale, shift, out=None):
    """``x * scale + shift`` per row, in x's dtype."""
    y = np.multiply(x2, scale[:, None], out=out)
    y += shift[:, None]
    return y


def _layer_norm_backward_rows(node, x: Tensor, w, g: Tensor):
    """The array backward of ``_layer_norm_rows`` in PyTorch's CPU formula, in the input's dtype:
    ``gx = rstd * dy * weight + b * x + c`` with ``b = (db * mean - ds) * rstd**3 / C``,
    ``c = -b * mean - db * rstd / C`` from the row sums ``ds = sum(dy * weight * x)`` and
    ``db = sum(dy * weight)``; ``gw = sum over rows of dy * xhat``, ``gb`` the sum of dy.
    The row-sized temporaries are reused (xhat's buffer takes ``b * x``; ``dy * weight``
    becomes gx): two buffers of the input's size at most."""
    xp = xp_for(x)
    mean, rstd = node.mean, node.rstd
    n = mean.shape[0]
    c = x._data.size // n  # (zero-size inputs take the float64 path)
    x2, g2 = x._data.reshape(n, c), g._data.reshape(n, c)
    dt = x2.dtype
    nf = node.next_functions
    gx = gw = gb = scratch = None
    if nf[1][0] is not None:
        scratch = _row_affine(x2, node.scale, node.shift)
        gw = _wrap(
            _as_shape(xp.einsum("ij,ij->j", g2, scratch), w._data.shape), w._dtype, w._device
        )
    if nf[2][0] is not None:
        gb = _matmul_array(xp, _ones(xp, n, dt), g2)
        gb = _wrap(_as_shape(gb, x._data.shape[x._data.ndim - node.k :]), g._dtype, g._device)
    if nf[0][0] is not None:
        dyg = g2 * w._data.reshape(c) if w is not None else g2
        ds = xp.einsum("ij,ij->i", dyg, x2).astype(np.float64)
        db = _matmul_array(xp, dyg, _ones(xp, c, dt)).astype(np.float64)
        # bc = (db * mean - ds) * rstd^3 / c and cc = -bc * mean - db * rstd / c, in place
        bc = db * mean
        bc -= ds
        bc *= rstd
        bc *= rstd
        bc *= rstd
        bc /= c
        cc = -bc
        cc *= mean
        db *= rstd
        db /= c
        cc -= db
        gx = np.multiply(dyg, node.scale[:, None], out=dyg if w is not None else None)
        gx += np.multiply(x2, bc.astype(dt)[:, None], out=scratch)
        gx += cc.astype(dt)[:, None]
        gx = _wrap(gx.reshape(x._data.shape), x._dtype, x._device)
    return gx, gw, gb


_LayerNorm = node_class("NativeLayerNormBackward0", _layer_norm_vjp)


def _layer_norm_float64(xp, x, weight, bias, axes, eps):
    """layer_norm in float64, rounded once (half precision, mixed dtypes, zero-size input):
    _stats' arithmetic with the centred copy reused for the output. Returns y and the float64
    mean and 1/std (kept dimensions)."""
    y = x.astype(np.float64) if x.dtype != np.float64 else x
    mean = y.mean(axis=axes, keepdims=True)
    y = y - mean
    std = xp.sqrt((y * y).mean(axis=axes, keepdims=True) + eps)
    y /= std
    if weight is not None:
        y *= weight._data
    if bias is not None:
        y += bias._data
    return y.astype(x.dtype, copy=False), mean, 1 / std


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps=1e-5) -> Tensor:
    check_devices(input, weight, bias)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    x = input._data
    _check_layer_norm_shapes(input, shape, weight, bias)
    dt = input._dtype
    # float32/float64 input with parameters of its dtype: PyTorch's kernel on rows (the dtype
    # checks below pass for these, so they are skipped)
    rows = (
        x.size > 0 and (dt is D.float32 or dt is D.float64)
        and (weight is None or weight._dtype is dt) and (bias is None or bias._dtype is dt)
    )  # fmt: skip
    xp = xp_for(input)
    if rows:
        c = shape[0] if k == 1 else math.prod(shape)
        w = None if weight is None else weight._data.reshape(c)
        b = None if bias is None else bias._data.reshape(c)
        y, mean, rstd, scale, shift = _layer_norm_rows(xp, x.reshape(-1, c), w, b, eps)
        y = y.reshape(x.shape)
    else:
        _check_dtypes(input, "LayerNormKernelImpl", weight, bias)
        axes = tuple(range(x.ndim - k, x.ndim))
        y, mean, rstd = _layer_norm_float64(xp, x, weight, bias, axes, eps)
        scale = shift = None
    r = _wrap(y, dt, input._device)
    if _gm.enabled and (
        input._rg or (weight is not None and weight._rg) or (bias is not None and bias._rg)
    ):
        record(_LayerNorm, (input, weight, bias), r, (input, weight), k=k, eps=eps,
               rows=rows, mean=mean, rstd=rstd, scale=scale, shift=shift)  # fmt: skip
    if _fw_state.level:
        axes = list(range(x.ndim - k, x.ndim))

        def composite(i, w, b):
            yh, _ = _normalized(i, axes, eps)
            yh = yh if w is None else yh * w
            return yh if b is None else yh + b

        _tangent(r, input, weight, bias, composite)
    return r


def _check_layer_norm_shapes(input: Tensor, shape: tuple, weight, bias) -> None:
    """PyTorch's errors for a normalized_shape that is empty or does not end the input's shape,
    and for parameters not of that shape."""
    k, xs = len(shape), input._data.shape
    if k == 0:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
            "but got normalized_shape = []"
        )
    if k > len(xs) or xs[len(xs) - k :] != shape:
        expected = "[*" + "".join(f", {s}" for s in shape) + "]"
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape {expected}, but got input of "
            f"size{list(input.shape)}"
        )
    for t in (weight, bias):
        if t is not None and t._data.shape != shape and tuple(t.shape) != shape:
            raise RuntimeError(
                f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                f"{list(t.shape)} and normalized_shape = {list(shape)}"
            )


def _group_norm_backward_half(node, x: Tensor, w, g: Tensor):
    """GroupNorm's backward for a float16/bfloat16 input whose weight shares its type, as
    PyTorch's kernel computes it: from the group means and 1/stds it saves in the half type,
    per (sample, channel) sums ``ds = sum(dy * x)``, ``db = sum(dy)`` in float32; the input
    gradient ``rstd * dy * w + b * x + c`` per group (``b = (sum_c db*w * mean - sum_c ds*w) *
    rstd**3 / count``, ``c = -b * mean - sum_c db*w * rstd / count``), the weight gradient
    ``sum_n (ds - db * mean) * rstd`` and the bias gradient ``sum_n db``, each rounded once."""
    dtype = x._data.dtype
    n, c, groups = x._data.shape[0], x._data.shape[1], node.groups
    d = c // groups
    x3 = x._data.reshape(n, c, -1).astype(np.float32)
    g3 = g._data.reshape(n, c, -1).astype(np.float32)
    xg = x3.reshape(n, groups, -1).astype(np.float64)
    mean = D.cast_array(xg.mean(2), dtype).astype(np.float32)  # (n, groups)
    rstd = D.cast_array(1 / np.sqrt(xg.var(2) + node.eps), dtype).astype(np.float32)
    ds = (g3 * x3).astype(np.float64).sum(2).astype(np.float32)  # (n, c)
    db = g3.astype(np.float64).sum(2).astype(np.float32)
    mean_c, rstd_c = np.repeat(mean, d, axis=1), np.repeat(rstd, d, axis=1)
    gx = gw = gb = None
    if _need(node, 0):
        w32 = np.ones(c, np.float32) if w is None else w._data.astype(np.float32)
        count = np.float32(1 / (d * x3.shape[2]))
        dsw = (ds * w32).reshape(n, groups, d).astype(np.float64).sum(2).astype(np.float32)
        dbw = (db * w32).reshape(n, groups, d).astype(np.float64).sum(2).astype(np.float32)
        b = (dbw * mean - dsw) * rstd * rstd * rstd * count
        cc = -b * mean - dbw * rstd * count
        b_c, c_c = np.repeat(b, d, axis=1)[:, :, None], np.repeat(cc, d, axis=1)[:, :, None]
        r = rstd_c[:, :, None] * (g3 * w32[None, :, None]) + b_c * x3 + c_c
        gx = _wrap(D.cast_array(r, dtype).reshape(x._data.shape), x._dtype, x._device)
    if _need(node, 1):
        term = ((ds - db * mean_c) * rstd_c).astype(np.float64).sum(0)
        gw = _wrap(D.cast_array(term.astype(np.float32), dtype), w._dtype, w._device)
    if _need(node, 2):
        dt = node._shapes[2][1]
        gb = _wrap(
            D.cast_array(db.astype(np.float64).sum(0).astype(np.float32), dtype), dt, g._device
        )
    return gx, gw, gb


def _group_norm_vjp(node, g):
    x, w = node.saved()
    half = x._data.dtype.char in D.HALF_CHARS and x._data.__class__ is np.ndarray
    if half and not _gm.enabled and (w is None or w._dtype is x._dtype):
        return _group_norm_backward_half(node, x, w, g)
    n, G = x.shape[0], node.groups
    xg = x.reshape(n, G, -1)
    xhat, invstd = _normalized(xg, [2], node.eps)
    nd = x.dim()
    axes = [0] + list(range(2, nd))
    gx = gw = gb = None
    if _need(node, 0):
        gxhat = g if w is None else g * _channel_view(w, nd)
        gx = _norm_input_grad(gxhat.reshape(n, G, -1), xhat, invstd, [2]).reshape(x.shape)
    if _need(node, 1):
        gw = (g * xhat.reshape(x.shape)).sum(axes)
    if _need(node, 2):
        gb = g.sum(axes)
    return gx, gw, gb


_GroupNorm = node_class("NativeGroupNormBackward0", _group_norm_vjp)


@silent
def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps=1e-5) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            # (PyTorch's bias message shows the weight's shape: [0] when there is none)
            shown = [0] if weight is None else list(weight.shape)
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got "
                f"{name} of shape {shown} and input of shape {list(input.shape)}"
            )
    _check_dtypes(input, "GroupNormKernelImpl", weight, bias)
    x = input._data
    xp = xp_for(input)
    xg = x.reshape(n, num_groups, -1)
    mean, var = _stats(xp, xg, (2,))
    y = ((xg - mean) / xp.sqrt(var + eps)).reshape(x.shape)
    shape = [1, -1] + [1] * (x.ndim - 2)
    if weight is not None:
        y = y * weight._data.reshape(shape)
    if bias is not None:
        y = y + bias._data.reshape(shape)
    r = _wrap(y.astype(x.dtype, copy=False), input._dtype, input._device)
    if _gm.enabled and any(t is not None and t._rg for t in (input, weight, bias)):
        record(_GroupNorm, (input, weight, bias), r, (input, weight), groups=num_groups, eps=eps)

    def composite(i, w, b):
        yh, _ = _normalized(i.reshape(n, num_groups, -1), [2], eps)
        yh = yh.reshape(i.shape)
        yh = yh if w is None else yh * _channel_view(w, i.dim())
        return yh if b is None else yh + _channel_view(b, i.dim())

    _tangent(r, input, weight, bias, composite)
    return r
