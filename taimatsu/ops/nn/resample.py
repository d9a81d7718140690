"""Padding, resampling and pixel shuffling: ops that move or mix values along spatial dims.

Two generic kernels serve most of them, each recording one node named like PyTorch's:

- ``index_dims``: gather along some dims by integer index arrays (reflection / replication
  padding, nearest upsampling); its VJP scatter-adds back with ``index_add`` per dim.
- ``linear_dims``: multiply along some dims by small constant matrices (bilinear / linear
  upsampling, adaptive average pooling); its VJP multiplies by the transposed matrices.

Both VJPs are Tensor ops, so double backward works.
"""

from __future__ import annotations

import itertools

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from .._dispatch import _fw_state, record, xp_for
from ..arg_types import as_int


# ---- gather by index per dim --------------------------------------------------------------------
def _index_vjp(node, g):
    for d, idx in reversed(node.index):
        shape = list(g.shape)
        shape[d] = node.in_shape[d]
        g = g.new_zeros(shape).index_add(d, idx, g)
    return (g,)


_INDEX_NODES: dict = {}


def _index_node(name: str):
    if name not in _INDEX_NODES:
        _INDEX_NODES[name] = node_class(name, _index_vjp)
    return _INDEX_NODES[name]


def index_dims(input: Tensor, index: list, node_name: str) -> Tensor:
    """``input`` gathered along each ``(dim, int array)`` of ``index`` in turn."""
    xp = xp_for(input)
    index = [(d, xp.asarray(ix)) for d, ix in index]  # host-made tables: uploaded, not synced
    x = input._data
    for d, ix in index:
        x = xp.take(x, ix, axis=d)
    r = _wrap(xp.ascontiguousarray(x), input._dtype, input._device)
    tindex = [(d, _wrap(xp.asarray(ix, np.int64), D.int64, input._device)) for d, ix in index]
    if input._rg and _gm.enabled:
        record(_index_node(node_name), (input,), r, (), index=tindex, in_shape=tuple(input.shape))
    if _fw_state.level and input._fw is not None:
        t = input._fw
        with no_grad():
            for d, ix in tindex:
                t = t.index_select(d, ix)
        r._fw = t
        _register(r)
    return r


# ---- constant matrices per dim ------------------------------------------------------------------
def _apply_mats(t: Tensor, mats, transpose: bool) -> Tensor:
    for d, m in mats:
        moved = t.movedim(d, -1)
        moved = moved.matmul(m) if transpose else moved.matmul(m.t())
        t = moved.movedim(-1, d)
    return t


def _linear_vjp(node, g):
    gx = _apply_mats(g, list(reversed(node.mats)), transpose=True)
    if node.backward is None:
        return (gx,)
    node.saved()  # adaptive pooling's op saves its input: no second backward without retain_graph
    from .pooling import with_input_edge

    return (with_input_edge(gx, node.backward, node),)


_LINEAR_NODES: dict = {}


def _matmul_local(xp, x, m, reads=None):
    """``x @ m.T`` where each output depends only on the inputs its kernel reads (``reads``, an
    (out, in) mask; default: the nonzero weights): a dense product would spread ``0 * inf = nan``
    to every output of a row holding inf or NaN. Finite inputs (one cheap check) take the plain
    product; otherwise the non-finite entries are zeroed for the product and their weighted
    values added to the outputs that read them."""
    y = x @ m.T
    if xp is not np or x.dtype.char not in D.FLOAT_CHARS or np.isfinite(x).all():
        return y
    bad = ~np.isfinite(x)
    y = np.where(bad, 0, x) @ m.T
    idx = np.nonzero(bad)
    vals = x[idx][:, None]
    sg = (np.sign(m) if reads is None else reads).T[idx[-1]]
    hit = sg != 0
    corr = np.zeros(y.shape, y.dtype)
    touched = np.zeros(y.shape, bool)
    np.add.at(corr, idx[:-1], np.where(hit, sg * np.where(hit, vals, 0), 0).astype(y.dtype))
    np.logical_or.at(touched, idx[:-1], hit)
    return np.where(touched, y + corr, y)


@silent
def linear_dims(input: Tensor, mats: list, node_name: str, backward=None, values=None) -> Tensor:
    """``input`` multiplied along each ``(dim, (out, in) array)`` of ``mats`` in turn;
    ``backward``: the node class of a backward op that takes the input too (adaptive pooling's,
    not upsampling's), so that with create_graph the input gradient has PyTorch's node; the
    node then saves the input, as PyTorch's does (second-backward and in-place errors).
    ``values``: the output's array when the op computes it itself (the matrices then serve
    the backward only)."""
    if node_name not in _LINEAR_NODES:
        _LINEAR_NODES[node_name] = node_class(node_name, _linear_vjp)
    xp = xp_for(input)
    reads = [r[0] if r else None for _, _, *r in mats]
    mats = [(d, xp.asarray(m)) for d, m, *_ in mats]  # host-made matrices: uploaded, not synced
    x = input._data
    if values is not None:
        x = values
    else:
        half = x.dtype.char in D.HALF_CHARS  # in float32, rounded once (PyTorch's opmath)
        if half:
            x = x.astype(np.float32)
        for (d, m), rd in zip(mats, reads):
            x = xp.moveaxis(_matmul_local(xp, xp.moveaxis(x, d, -1), m.astype(x.dtype), rd), -1, d)
        if half:
            x = D.cast_array(x, input._data.dtype)
    r = _wrap(xp.ascontiguousarray(x), input._dtype, input._device)
    tmats = [
        (d, _wrap(xp.asarray(m, input._dtype.np), input._dtype, input._device)) for d, m in mats
    ]
    if input._rg and _gm.enabled:
        saved = () if backward is None else (input,)
        record(_LINEAR_NODES[node_name], (input,), r, saved, mats=tmats, backward=backward)
    if _fw_state.level and input._fw is not None:
        with no_grad():
            r._fw = _apply_mats(input._fw, tmats, transpose=False)
        _register(r)
    return r


# ---- padding --------------------------------------------------------------------------------------
def _constant_pad_vjp(node, g):
    return (constant_pad_nd(g, [-p for p in node.pad], 0.0),)


_ConstantPad = node_class("ConstantPadNdBackward0", _constant_pad_vjp)


def constant_pad_nd(input: Tensor, pad, value=0.0) -> Tensor:
    """Pad (or, with negative amounts, crop) the trailing dims; grad_fn ConstantPadNdBackward0."""
    nd = input.dim()
    shape = list(input.shape)
    src, dst = [slice(None)] * nd, [slice(None)] * nd
    for i in range(len(pad) // 2):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        new = shape[d] + lo + hi
        if new < 0:
            raise RuntimeError(
                f"The input size {shape[d]}, plus negative padding {lo} and {hi} resulted in a negative output "
                f"size, which is invalid. Check dimension {d} of your input."
            )
        if shape[d] - max(-lo, 0) - max(-hi, 0) < 0:  # cropping more than the dimension holds
            raise RuntimeError("narrow(): length must be non-negative.")
        src[d] = slice(max(-lo, 0), shape[d] - max(-hi, 0))
        dst[d] = slice(max(lo, 0), new - max(hi, 0))
        shape[d] = new
    xp = xp_for(input)
    x = input._data
    from ..creation.factories import _checked_fill, allocate

    value = _checked_fill(value, input._dtype)  # NaN into an integer tensor raises, as in PyTorch
    out = allocate(lambda: xp.full(shape, value, dtype=x.dtype), shape, input._dtype)
    out[tuple(dst)] = x[tuple(src)]
    r = _wrap(out, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_ConstantPad, (input,), r, (), pad=tuple(pad))
    if _fw_state.level and input._fw is not None:
        r._fw = constant_pad_nd(input._fw, pad, 0.0)
        _register(r)
    return r


def _pad_index(n: int, lo: int, hi: int, mode: str):
    j = np.arange(-lo, n + hi)
    if mode == "reflect":
        j = np.abs(j)
        return np.where(j >= n, 2 * (n - 1) - j, j)
    return np.clip(j, 0, n - 1)  # replicate


def _check_reflect(input: Tensor, pad) -> None:
    for i in range(len(pad) // 2):
        d = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo >= input.shape[d] or hi >= input.shape[d]:
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input dimension, "
                f"but got: padding ({lo}, {hi}) at dimension {d} of input {list(input.shape)}"
            )


def reflect_or_replicate_pad(input: Tensor, pad, mode: str) -> Tensor:
    k = len(pad) // 2
    if mode == "reflect":
        _check_reflect(input, pad)
    index = []
    for i in range(k):
        d = input.dim() - 1 - i
        index.append((d, _pad_index(input.shape[d], pad[2 * i], pad[2 * i + 1], mode)))
    name = ("ReflectionPad" if mode == "reflect" else "ReplicationPad") + f"{k}DBackward0"
    return index_dims(input, index, name)


def circular_pad(input: Tensor, pad) -> Tensor:
    """PyTorch's algorithm: copy the centre, then wrap slices of the output into the borders
    (so the graph is CopySlices, as in PyTorch)."""
    nd, k = input.dim(), len(pad) // 2
    shape = list(input.shape)
    for i in range(k):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > shape[d] or hi > shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[d] += lo + hi
    out = input.new_empty(shape)
    out_slice, in_slice = out, input
    for i in range(k):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_slice = out_slice.narrow(d, max(lo, 0), shape[d] - max(lo, 0) - max(hi, 0))
        n = input.shape[d]
        in_slice = in_slice.narrow(d, max(-lo, 0), n - max(-lo, 0) - max(-hi, 0))
    out_slice.copy_(in_slice)
    for i in range(k):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > 0:
            out.narrow(d, 0, lo).copy_(out.narrow(d, shape[d] - lo - max(hi, 0), lo))
        if hi > 0:
            out.narrow(d, shape[d] - hi, hi).copy_(out.narrow(d, max(lo, 0), hi))
    return out


# ---- interpolation ---------------------------------------------------------------------------------
def nearest_index(in_size: int, out_size: int, scale, exact: bool = False):
    """PyTorch's nearest source index (computed in float32 as its kernel does)."""
    s = np.float32(in_size / out_size if scale is None else 1.0 / scale)
    dst = np.arange(out_size, dtype=np.float32)
    src = np.floor((dst + np.float32(0.5)) * s) if exact else np.floor(dst * s)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _tap_signs(shape, taps) -> np.ndarray:
    """The (out, in) factor a non-finite input contributes through the kernel's taps ``(index,
    weight)`` per output: 0 where not read, +-1 where its taps' weights share that sign, NaN
    where a tap weighs 0 or the signs mix (``0 * inf``, ``inf - inf``)."""
    r = np.zeros(shape, np.float64)
    rows = np.arange(shape[0])
    for idx, w in taps:
        new = np.where(w > 0, 1.0, np.where(w < 0, -1.0, np.nan))
        cur = r[rows, idx]
        r[rows, idx] = np.where(cur == 0, new, np.where(cur == new, cur, np.nan))
    return r


def linear_matrix(
    in_size: int, out_size: int, scale, align_corners: bool, math_dtype=np.float32, reads=False
) -> np.ndarray:
    """The (out, in) matrix of 1-D linear interpolation, PyTorch's source-index rule, the source
    index computed in ``math_dtype`` (float32 in its float kernels, float64 in its uint8 one);
    with ``reads``, also the (out, in) mask of the inputs PyTorch's kernel reads per output
    (zero-weight taps included: they turn an inf there into NaN)."""
    t = np.dtype(math_dtype).type
    dst = np.arange(out_size, dtype=math_dtype)
    if align_corners:
        src = dst * t((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        s = t(in_size / out_size if scale is None else 1.0 / scale)
        src = np.maximum((dst + t(0.5)) * s - t(0.5), t(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    l1 = src - i0
    m = np.zeros((out_size, in_size), np.float64)
    rows = np.arange(out_size)
    np.add.at(m, (rows, i0), 1 - l1)
    np.add.at(m, (rows, i1), l1)
    if reads:
        # an unresized dim: PyTorch's second tap is the first one again, with weight 0
        second = i0 if in_size == out_size else i1
        return m, _tap_signs(m.shape, [(i0, 1 - l1), (second, l1)])
    return m


def cubic_matrix(
    in_size: int, out_size: int, scale, align_corners: bool, math_dtype=np.float32, reads=False
):
    """The (out, in) matrix of 1-D cubic convolution (A = -0.75), PyTorch's bicubic rule: the
    source index is not clamped, the four taps are, and the math runs in the op's math type;
    ``reads`` as in ``linear_matrix`` (the four clamped taps)."""
    t = np.dtype(math_dtype).type
    dst = np.arange(out_size, dtype=math_dtype)
    if align_corners:
        src = dst * t((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        s = t(in_size / out_size if scale is None else 1.0 / scale)
        src = (dst + t(0.5)) * s - t(0.5)
    i0 = np.floor(src)
    x = src - i0
    a = t(-0.75)

    def near(v):  # |v| <= 1
        return ((a + t(2)) * v - (a + t(3))) * v * v + t(1)

    def far(v):  # 1 < |v| < 2
        return ((a * v - t(5) * a) * v + t(8) * a) * v - t(4) * a

    weights = (far(x + t(1)), near(x), near(t(1) - x), far(t(2) - x))
    m = np.zeros((out_size, in_size), np.float64)
    rows = np.arange(out_size)
    taps = []
    for k, w in enumerate(weights):
        idx = np.clip(i0.astype(np.int64) - 1 + k, 0, in_size - 1)
        np.add.at(m, (rows, idx), w)
        taps.append((idx, w))
    return (m, _tap_signs(m.shape, taps)) if reads else m


def aa_weights(in_size: int, out_size: int, scale, align_corners: bool, cubic: bool, math_dtype):
    """PyTorch's antialiased (PIL-style) resampling taps for one dim: the first source index of
    each output, its (out, K) weights (zero past the output's own taps) and its tap count. The filter (triangle,
    or cubic convolution with A = -0.5) is stretched by the downscale factor; each row is
    normalised by its sum; the math mirrors the kernel's float/double mix, in ``math_dtype``."""
    t = np.dtype(math_dtype).type
    if align_corners:
        s = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    else:
        s = t(1.0 / scale) if scale is not None and scale > 0 else t(in_size) / t(out_size)
    half = 2.0 if cubic else 1.0  # half the filter's support at scale 1
    support = t(half * float(s)) if s >= 1 else t(half)
    k = int(np.ceil(support)) * 2 + 1
    invscale = t(1.0 / float(s)) if s >= 1 else t(1.0)
    center = (s * (np.arange(out_size, dtype=np.float64) + 0.5)).astype(math_dtype)
    xmin = np.maximum(((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    top = ((center + support).astype(np.float64) + 0.5).astype(np.int64)
    xsize = np.clip(np.minimum(top, in_size) - xmin, 0, k)
    w = np.zeros((out_size, k), math_dtype)
    total = np.zeros(out_size, math_dtype)
    for j in range(k):
        x = (((xmin + j).astype(math_dtype) - center).astype(np.float64) + 0.5) * float(invscale)
        x = np.abs(x.astype(math_dtype))
        if cubic:
            a = t(-0.5)
            near = ((a + t(2)) * x - (a + t(3))) * x * x + t(1)
            far = ((a * x - t(5) * a) * x + t(8) * a) * x - t(4) * a
            wj = np.where(x < 1, near, np.where(x < 2, far, t(0)))
        else:
            wj = np.where(x < 1, t(1) - x, t(0))
        wj = np.where(j < xsize, wj, t(0)).astype(math_dtype)
        w[:, j] = wj
        total = total + wj
    nz = total != 0
    w[nz] /= total[nz, None]
    return xmin, w, xsize


def aa_dims(input: Tensor, specs: list, node_name: str) -> Tensor:
    """``input`` resampled along each ``(dim, xmin, weights, xsize)`` of ``specs`` in turn, each
    output the products of its ``xsize`` taps summed in order, as PyTorch's antialiased kernel
    does (with a non-finite input, the padding taps are skipped, not multiplied by 0); the backward is
    ``linear_dims``': the transposed (out, in) matrices."""
    if node_name not in _LINEAR_NODES:
        _LINEAR_NODES[node_name] = node_class(node_name, _linear_vjp)
    xp = xp_for(input)
    x = input._data
    mats = []
    for d, xmin, w, xsize in specs:
        n = x.shape[d]
        finite = x.dtype.char not in D.FLOAT_CHARS or bool(xp.isfinite(x).all())
        moved = xp.moveaxis(x, d, -1)
        acc = None
        for j in range(w.shape[1]):
            idx = xp.asarray(np.minimum(xmin + j, n - 1))
            term = moved[..., idx] * xp.asarray(w[:, j].astype(x.dtype))
            if not finite:
                term = xp.where(xp.asarray(j < xsize), term, xp.asarray(0, term.dtype))
            acc = term if acc is None else acc + term
        x = xp.moveaxis(acc, -1, d)
        m = np.zeros((w.shape[0], n), np.float64)
        rows = np.repeat(np.arange(w.shape[0]), w.shape[1])
        np.add.at(
            m, (rows, np.minimum(xmin[:, None] + np.arange(w.shape[1]), n - 1).ravel()), w.ravel()
        )
        mats.append((d, m))
    r = _wrap(xp.ascontiguousarray(x), input._dtype, input._device)
    tmats = [
        (d, _wrap(xp.asarray(m, input._dtype.np), input._dtype, input._device)) for d, m in mats
    ]
    if input._rg and _gm.enabled:
        record(_LINEAR_NODES[node_name], (input,), r, (), mats=tmats, backward=None)
    if _fw_state.level and input._fw is not None:
        with no_grad():
            r._fw = _apply_mats(input._fw, tmats, transpose=False)
        _register(r)
    return r


def _int16_weights(m: np.ndarray) -> tuple[np.ndarray, int]:
    """``m`` in fixed point as PyTorch's uint8 resampling holds it: the most fractional bits (at
    most 22) that keep the largest weight below 2**15, each weight rounded half away from zero."""
    bits = 0
    while bits < 22 and int(0.5 + m.max() * (1 << (bits + 1))) < 1 << 15:
        bits += 1
    scaled = m * (1 << bits)
    return np.trunc(scaled + np.where(m < 0, -0.5, 0.5)).astype(np.int64), bits


def uint8_dims(input: Tensor, mats: list) -> Tensor:
    """PyTorch's uint8 bilinear/bicubic resampling: one pass per resized dim, the last dim first,
    each in fixed point and rounded back to uint8 (so its intermediate rounding is reproduced).
    A dim whose size does not change is not resampled, whatever the scale factor says."""
    xp = xp_for(input)
    x = input._data
    for d, m in reversed(mats):
        if m.shape[0] == m.shape[1]:
            continue
        w, bits = _int16_weights(m)
        y = xp.moveaxis(x.astype(xp.int64), d, -1) @ xp.asarray(w.T)
        y = (y + (1 << (bits - 1))) >> bits
        x = xp.moveaxis(xp.clip(y, 0, 255).astype(xp.uint8), -1, d)
    return _wrap(xp.ascontiguousarray(x), input._dtype, input._device)


def _adaptive_bounds(in_size: int, out_size: int):
    i = np.arange(out_size)
    return (i * in_size) // out_size, -((-(i + 1) * in_size) // out_size)


def adaptive_avg_values(xp, x, sizes):
    """Adaptive average pooling over the last ``len(sizes)`` dims of ``x`` as PyTorch's CPU
    kernel computes it: each window summed in row-major order (float32 for float32 and half
    types, float64 for float64), then divided by each of its extents in turn (``sum / kh /
    kw``), rounded once to ``x``'s type. One gather-add per window tap."""
    k = len(sizes)
    integer = x.dtype.kind in "iu"  # int64: summed in int64, divided as C's integers (truncated)
    acc = np.int64 if integer else np.float64 if x.dtype == np.float64 else np.float32
    if not x.size or not all(sizes):
        return xp.zeros((*x.shape[:-k], *sizes), x.dtype)
    bounds = [_adaptive_bounds(n, o) for n, o in zip(x.shape[-k:], sizes)]
    extents = [end - start for start, end in bounds]
    out = xp.zeros((*x.shape[:-k], *sizes), acc)
    for taps in itertools.product(*(range(int(e.max())) for e in extents)):
        v, valid = x, None
        for axis, (t, (start, _), e) in enumerate(zip(taps, bounds, extents)):
            pos = np.minimum(start + t, x.shape[x.ndim - k + axis] - 1)
            v = xp.take(v, xp.asarray(pos), axis=x.ndim - k + axis)
            shape = [1] * k
            shape[axis] = -1
            ok = (t < e).reshape(shape)
            valid = ok if valid is None else valid & ok
        out += xp.where(xp.asarray(valid), v.astype(acc), acc(0))
    for axis, e in enumerate(extents):
        shape = [1] * k
        shape[axis] = -1
        e = xp.asarray(e.astype(acc).reshape(shape))
        if integer:
            out = xp.where(out < 0, -(-out // e), out // e)
        else:
            out /= e
    return D.cast_array(out, x.dtype)


def adaptive_avg_matrix(in_size: int, out_size: int):
    """The (out, in) averaging matrix of adaptive average pooling (PyTorch's window bounds)."""
    i = np.arange(out_size)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    cols = np.arange(in_size)
    inside = (cols[None, :] >= start[:, None]) & (cols[None, :] < end[:, None])
    return inside / (end - start)[:, None]


# ---- pixel shuffle --------------------------------------------------------------------------------
def _pixel_shuffle_vjp(node, g):
    return (pixel_unshuffle(g, node.r),)


def _pixel_unshuffle_vjp(node, g):
    return (pixel_shuffle(g, node.r),)


_PixelShuffle = node_class("PixelShuffleBackward0", _pixel_shuffle_vjp)
_PixelUnshuffle = node_class("PixelUnshuffleBackward0", _pixel_unshuffle_vjp)


def _shuffle(input: Tensor, r: int, inverse: bool) -> Tensor:
    x = input._data
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    xp = xp_for(input)
    if inverse:
        y = x.reshape(*lead, c, h // r, r, w // r, r)
        n = len(lead)
        y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3).reshape(
            *lead, c * r * r, h // r, w // r
        )
    else:
        y = x.reshape(*lead, c // (r * r), r, r, h, w)
        n = len(lead)
        y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2).reshape(
            *lead, c // (r * r), h * r, w * r
        )
    out = _wrap(xp.ascontiguousarray(y), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_PixelUnshuffle if inverse else _PixelShuffle, (input,), out, (), r=r)
    if _fw_state.level and input._fw is not None:
        out._fw = _shuffle(input._fw, r, inverse)
        _register(out)
    return out


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    upscale_factor = as_int("pixel_shuffle", "upscale_factor", 2, upscale_factor, any_dims=False)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} "
            "dimension(s)"
        )
    r = upscale_factor
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    return _shuffle(input, r, False)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    downscale_factor = as_int(
        "pixel_unshuffle", "downscale_factor", 2, downscale_factor, any_dims=False
    )
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.dim()} "
            "dimension(s)"
        )
    r = downscale_factor
    h, w = input.shape[-2:]
    if h % r:
        raise RuntimeError(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
            f"{h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
            f"{w} is not divisible by {r}"
        )
    return _shuffle(input, r, True)
