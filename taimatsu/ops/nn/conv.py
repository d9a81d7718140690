"""Neural-network kernels: convolution, im2col/col2im, max pooling, softmax, losses.

Each op follows the house pattern: a forward on arrays through ``xp``, a VJP written in
Tensor ops (so double backward works), a node named like PyTorch's, recorded with
``record``. Convolution and pooling never loop over pixels or batch items: the input's
sliding windows are one strided view of (padded) memory, and a convolution is one GEMM
over those windows (one per group). col2im, the adjoint of that view, loops only over the
kernel's offsets (kh * kw slice-adds of whole planes).
"""

from __future__ import annotations

import numpy as np

from ..._autocast import LOWER, cast_policy
from ..._dtype import HALF_CHARS
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from .._dispatch import _fw_state, check_devices, record, scalar_name, xp_for
from ..arg_types import conv_args
from .resample import constant_pad_nd


def _need(node, i: int) -> bool:
    return node.next_functions[i][0] is not None


def _pair(v) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v) if len(v) != 1 else (int(v[0]),) * 2
    return (int(v), int(v))


def _seq_repr(t) -> str:
    return "[" + ", ".join(str(s) for s in t) + "]"


# ---- sliding windows ------------------------------------------------------------------------
def _out_size(size: int, k: int, s: int, d: int, p_lo: int, p_hi: int) -> int:
    return (size + p_lo + p_hi - d * (k - 1) - 1) // s + 1


def _pad(xp, x, pads, fill=0):
    """(N, C, H, W) ``x`` padded with ``fill`` by (top, bottom, left, right); ``x`` itself when
    there is no padding. (``np.pad`` costs ~25 us of Python per call: 3x the copy here.)"""
    top, bottom, left, right = pads
    if not (top or bottom or left or right):
        return x
    n, c, h, w = x.shape
    out = xp.full((n, c, h + top + bottom, w + left + right), fill, x.dtype)
    out[:, :, top : top + h, left : left + w] = x
    return out


def _taps(x, kernel, dilation, stride, out_hw):
    """For each kernel tap (i, j): the strided (N, C, Ho, Wo) view of the (padded) input
    ``x`` that the tap multiplies, at every output position.

    Copying these kh * kw views into a column buffer is ~6x faster than copying one 6-D
    as_strided window view (NumPy's copy of a 6-D strided view is cache-hostile), and the
    loop is over kernel taps only, never over pixels or batch items.
    """
    (kh, kw), (dh, dw), (sh, sw), (ho, wo) = kernel, dilation, stride, out_hw
    for i in range(kh):
        r0 = i * dh
        for j in range(kw):
            c0 = j * dw
            yield i, j, x[:, :, r0 : r0 + sh * (ho - 1) + 1 : sh, c0 : c0 + sw * (wo - 1) + 1 : sw]


def _cols_array(xp, x, kernel, dilation, pads, stride, out=None):
    """im2col: the (N, C, kh, kw, Ho, Wo) window values of ``x`` (one strided copy per tap),
    into ``out`` when given."""
    n, c, h, w = x.shape
    ho = _out_size(h, kernel[0], stride[0], dilation[0], pads[0], pads[1])
    wo = _out_size(w, kernel[1], stride[1], dilation[1], pads[2], pads[3])
    xpad = _pad(xp, x, pads)
    cols = xp.empty((n, c, *kernel, ho, wo), x.dtype) if out is None else out
    for i, j, v in _taps(xpad, kernel, dilation, stride, (ho, wo)):
        cols[:, :, i, j] = v
    return cols


def _shift_rows(kernel, dilation, stride, out_hw) -> int:
    """How many padded input rows the windows read."""
    return (out_hw[0] - 1) * stride[0] + (kernel[0] - 1) * dilation[0] + 1


def _cols_by_shifts(xp, x, kernel, dilation, pads, stride, out, shifts) -> None:
    """im2col of the unpadded ``x`` into ``out`` (N, C, kh, kw, Ho, Wo), through ``shifts``,
    a zero-filled (N, C, kw, rows, Wo) buffer (``_shift_rows``) reused for the same geometry.

    First the kw column shifts of the padded rows (``shifts[:, :, j, r, q]`` is padded input
    row r at column q * sw + j * dw), then each kernel row tap i is the rows from i * dh on:
    for stride 1 one (Ho, Wo) block per image and channel. That is kw + kh copies, most with
    long inner rows, where one strided copy per tap (kh * kw copies, Wo-element rows) spends
    its time on NumPy's per-row overhead (~2x slower for 3x3 windows on 14x14 images). The
    padding is never written: it stays zero in ``shifts``.
    """
    (kh, kw), (dh, _), (sh, _) = kernel, dilation, stride
    h, ho = x.shape[2], out.shape[-2]
    top = pads[0]
    rows = shifts.shape[3]
    r_hi = min(rows, top + h)  # the padded rows that hold input rows
    if r_hi > top:
        for j, cj in enumerate(
            _tap_ranges(x.shape[3], kw, stride[1], dilation[1], pads[2], out.shape[-1])
        ):
            if cj is not None:
                shifts[:, :, j, top:r_hi, cj[1]] = x[:, :, : r_hi - top, cj[0]]
    for i in range(kh):
        out[:, :, i] = shifts[:, :, :, i * dh : i * dh + sh * (ho - 1) + 1 : sh]


def _tap_ranges(size: int, k: int, s: int, d: int, lo: int, out: int) -> list:
    """Per kernel tap along one dim: (input slice, output slice) of the output positions whose
    tap lands inside the unpadded input (input position = o * s + tap * d - lo)."""
    ranges = []
    for t in range(k):
        shift = t * d - lo
        o_lo = max(0, -(shift // s))  # ceil(-shift / s)
        o_hi = min(out, (size - 1 - shift) // s + 1)
        if o_hi <= o_lo:
            ranges.append(None)
            continue
        start = o_lo * s + shift
        ranges.append((slice(start, start + s * (o_hi - o_lo - 1) + 1, s), slice(o_lo, o_hi)))
    return ranges


def _col2im_array(xp, cols, size, kernel, dilation, pads, stride, out=None):
    """Sum the (N, C, kh, kw, Ho, Wo) window values back into an (N, C, H, W) image (into
    ``out``, zero-filled, when given).

    A loop over kernel taps only: each adds a whole (N, C, Ho, Wo) plane into the strided
    positions it came from, clipped to the unpadded image (no padded buffer to copy out of).
    """
    n, c, kh, kw, ho, wo = cols.shape
    h, w = size
    rows = _tap_ranges(h, kh, stride[0], dilation[0], pads[0], ho)
    cols_w = _tap_ranges(w, kw, stride[1], dilation[1], pads[2], wo)
    if out is None:
        out = xp.zeros((n, c, h, w), cols.dtype)
    for i, ri in enumerate(rows):
        if ri is None:
            continue
        for j, cj in enumerate(cols_w):
            if cj is None:
                continue
            out[:, :, ri[0], cj[0]] += cols[:, :, i, j, ri[1], cj[1]]
    return out


def _im2col_vjp(node, g):
    return (col2im(g, node.in_size, node.kernel, node.dilation, node.pads, node.stride),)


def _col2im_vjp(node, g):
    return (im2col(g, node.kernel, node.dilation, node.pads, node.stride),)


_Im2Col = node_class("Im2ColBackward0", _im2col_vjp)
_Col2Im = node_class("Col2ImBackward0", _col2im_vjp)


def im2col(input: Tensor, kernel, dilation, pads, stride) -> Tensor:
    """(N, C, H, W) -> (N, C*kh*kw, L): every sliding block as a column (``F.unfold``)."""
    x = input._data
    xp = xp_for(input)
    cols = _cols_array(xp, x, kernel, dilation, pads, stride)
    n, c, kh, kw, ho, wo = cols.shape
    r = _wrap(cols.reshape(n, c * kh * kw, ho * wo), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(
            _Im2Col,
            (input,),
            r,
            (),
            in_size=x.shape[2:],
            kernel=kernel,
            dilation=dilation,
            pads=pads,
            stride=stride,
        )
    if _fw_state.level and input._fw is not None:
        r._fw = im2col(input._fw, kernel, dilation, pads, stride)
        _register(r)
    return r


def col2im(input: Tensor, size, kernel, dilation, pads, stride) -> Tensor:
    """(N, C*kh*kw, L) -> (N, C, H, W), summing overlapping blocks (``F.fold``)."""
    x = input._data
    (kh, kw), (h, w) = kernel, size
    ho = _out_size(h, kh, stride[0], dilation[0], pads[0], pads[1])
    wo = _out_size(w, kw, stride[1], dilation[1], pads[2], pads[3])
    n = x.shape[0]
    cols = x.reshape(n, x.shape[1] // (kh * kw), kh, kw, ho, wo)  # (n may be 0: no -1)
    r = _wrap(
        _col2im_array(xp_for(input), cols, size, kernel, dilation, pads, stride),
        input._dtype,
        input._device,
    )
    if input._rg and _gm.enabled:
        record(_Col2Im, (input,), r, (), kernel=kernel, dilation=dilation, pads=pads, stride=stride)
    if _fw_state.level and input._fw is not None:
        r._fw = col2im(input._fw, size, kernel, dilation, pads, stride)
        _register(r)
    return r


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """``F.unfold`` for 3-D (unbatched) and 4-D input."""
    k, d, p, s = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    _check_im2col_args(k, d, p, s)
    # PyTorch's shape check reads sizes 1 and 2 first: below 3 dims, size()'s IndexError
    n = input.dim()
    inner = input.size(1) != 0 and input.size(2) != 0
    if not (inner and ((n == 3 and input.size(0) != 0) or (n == 4 and input.size(3) != 0))):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    size = tuple(input.shape[-2:])
    blocks = tuple(_c_div(size[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1), s[i]) + 1 for i in (0, 1))
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size {size}, kernel_size={k}, dilation={d}, padding={p}, "
            f"calculated shape of the array of sliding blocks as {blocks}, but its components must "
            "be at least one."
        )
    if n == 3:
        return im2col(input.unsqueeze(0), k, d, (p[0], p[0], p[1], p[1]), s).squeeze(0)
    return im2col(input, k, d, (p[0], p[0], p[1], p[1]), s)


def _check_im2col_args(k, d, p, s) -> None:
    """PyTorch's im2col argument checks, in its order."""
    for what, (h, w), ok, rule in (
        ("kernel size", k, min(k) > 0, "greater than zero"), ("dilation", d, min(d) > 0, "greater than zero"),
        ("padding", p, min(p) >= 0, "non-negative"), ("stride", s, min(s) > 0, "greater than zero"),
    ):  # fmt: skip
        if not ok:
            name = {"kernel size": "kernel", "padding": "pad"}.get(what, what)
            raise RuntimeError(
                f"{what} should be {rule}, but got {name}_height: {h} {name}_width: {w}"
            )


def _c_div(a: int, b: int) -> int:
    """C's integer division (toward zero), as PyTorch's shape arithmetic."""
    return a // b if a >= 0 else -(-a // b)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """``F.fold`` for 2-D (unbatched) and 3-D input."""
    if input.dim() == 2:
        return fold(
            input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride
        ).squeeze(0)
    if input.dim() != 3:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) input tensor with possibly 0 batch size and non-zero dimensions "
            f"for input, but got: {_seq_repr(input.shape)}"
        )
    size, k, d, p, s = (
        _pair(output_size),
        _pair(kernel_size),
        _pair(dilation),
        _pair(padding),
        _pair(stride),
    )
    nh = _out_size(size[0], k[0], s[0], d[0], p[0], p[0])
    nw = _out_size(size[1], k[1], s[1], d[1], p[1], p[1])
    if input.shape[1] % (k[0] * k[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={input.shape[1]} and kernel_size={k}"
        )
    if input.shape[2] != nh * nw:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, expected size "
            f"of input's dimension 2 to match the calculated number of sliding blocks {nh} * {nw} = {nh * nw}, "
            f"but got input.size(2)={input.shape[2]}."
        )
    return col2im(input, size, k, d, (p[0], p[0], p[1], p[1]), s)


# ---- convolution -----------------------------------------------------------------------------
# The forward's column buffer is kept for the weight gradient up to this size (bytes). PyTorch
# recomputes the columns in the backward, and so does taimatsu by default: keeping them made the
# CNN benchmark's peak memory 1.7x PyTorch's for no measurable gain in time (the columns are
# rebuilt a few images at a time, in cache).
KEEP_COLS_BYTES = 0
# Column buffers that are not kept are built this many bytes (a few images) at a time.
COLS_BLOCK_BYTES = 1 << 20
# On a GPU, where each block costs a dozen kernel launches of CuPy's ~10-20 us fixed cost and
# memory is plentiful, blocks this large: a whole training batch in one (the verification
# script's CNN step made ~750 CuPy calls with 1 MiB blocks).
CUDA_COLS_BLOCK_BYTES = 256 << 20


def _block_bytes(xp) -> int:
    return COLS_BLOCK_BYTES if xp is np else CUDA_COLS_BLOCK_BYTES


def _blocks(lo: int, hi: int, step: int):
    """(start, stop) of the blocks of ``step`` images that cover ``lo:hi``."""
    return ((a, min(hi, a + step)) for a in range(lo, hi, step))


def _share(step: int, lo: int, hi: int, n: int) -> int:
    """Images per block for the part ``lo:hi`` of a batch of ``n``: its share of ``step``. The
    halves of a batch split over two threads (``parallel.halves``) build their blocks at the same
    time; each sized for the whole batch's ``step``, they held twice the one-thread workspace
    (the CNN benchmark's peak memory 1.04x PyTorch's at two threads, 0.95x at one). The
    products are per image, so the block size does not change the bits."""
    return max(1, min(hi - lo, step * (hi - lo) // max(n, 1)))  # n == 0: an empty batch


def _conv_array(xp, x, w, b, stride, pads, dilation, groups, keep=False):
    """2-D convolution (cross-correlation) of arrays: (output, column buffer or None); the
    columns are kept when ``keep`` and they fit in ``KEEP_COLS_BYTES``.

    One GEMM per image and group, (Og, Cg*kh*kw) @ (Cg*kh*kw, Ho*Wo), stacked in one matmul:
    the windows are taken in (N, C, kh, kw, Ho, Wo) order and the products land in NCHW
    order, so neither side needs a permuted copy. The columns are built for the whole batch
    when kept, else a few images at a time. A large batch is split over two threads
    (``parallel.halves``): the same products, so the same bits.
    """
    if x.dtype.char in HALF_CHARS:
        # PyTorch's CPU kernels add the bias to the float32 sums and round once (rounding the
        # sums first differs in the last bit)
        f32 = [None if a is None else a.astype(np.float32) for a in (x, w, b)]
        out, cols = _conv_array(xp, *f32, stride, pads, dilation, groups, keep)
        return out.astype(x.dtype), None if cols is None else cols.astype(x.dtype)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho = _out_size(h, kh, stride[0], dilation[0], pads[0], pads[1])
    wo = _out_size(wd, kw, stride[1], dilation[1], pads[2], pads[3])
    k, length = cg * kh * kw, ho * wo
    wg = w.reshape(groups, o // groups, k)
    image_bytes = c * kh * kw * length * x.itemsize
    keep = keep and n * image_bytes <= KEEP_COLS_BYTES
    cols = xp.empty((n, c, kh, kw, ho, wo), x.dtype) if keep else None
    out = xp.empty((n, groups, o // groups, length), x.dtype)
    step = n if keep else max(1, _block_bytes(xp) // image_bytes)
    rows = _shift_rows((kh, kw), dilation, stride, (ho, wo))

    def part(lo, hi):
        nb = _share(step, lo, hi, n)
        block = None if keep else xp.empty((nb, c, kh, kw, ho, wo), x.dtype)
        shifts = xp.zeros((nb, c, kw, rows, wo), x.dtype)
        for a, e in _blocks(lo, hi, nb):
            cb = cols[a:e] if keep else block[: e - a]
            _cols_by_shifts(xp, x[a:e], (kh, kw), dilation, pads, stride, cb, shifts[: e - a])
            xp.matmul(wg, cb.reshape(e - a, groups, k, length), out=out[a:e])

    _batched(xp, part, n, o * k * length)
    out = out.reshape(n, o, ho, wo)
    if b is not None:
        out += b[:, None, None]
    return out, cols


def _batched(xp, part, n: int, work_per_item: int, split: bool = True) -> None:
    """``part(lo, hi)`` over a batch of ``n`` images: BLAS told the size of one product, and
    a large batch split over two threads on NumPy (with ``split``)."""
    from ...backend.parallel import halves
    from ...backend.threads import gemm_threads

    gemm_threads(work_per_item)
    part = silent(part)  # inf * 0 in a product is NaN, silently (errstate is per thread)
    if xp is np and split:
        halves(part, n, n * work_per_item)
    else:
        part(0, n)


def _beside(xp, part, n: int, work_per_item: int):
    """``part(0, n, 2)`` (its share of the column budget: the calling thread builds blocks at
    the same time) started on the helper thread, for a large batch on NumPy while a second core
    is free and one product is small enough for one BLAS thread: the handle to wait on, or
    None. The weight gradient beside the input gradient: two long loops at once instead of
    each split in halves, one hand-off instead of two (conv2d's backward in the CNN benchmark
    ~0.6 ms less at two threads), and each gradient one thread's bits."""
    from ...backend.parallel import MIN_WORK, in_background
    from ...backend.threads import gemm_threads

    if xp is not np or n * work_per_item < MIN_WORK or gemm_threads(work_per_item) != 1:
        return None
    return in_background(lambda: silent(part)(0, n, 2))


def _input_grad_by_rows(xp, w, g, gx, pads, stride, dilation, groups, parts=1) -> None:
    """The input gradient of a convolution added into the zero-filled ``gx``, kernel rows
    first: for each image and group one GEMM over (output channel, kernel row),
    ``(Cg * kw, Og * kh) @ (Og * kh, rows * Wo)``, of the output gradient copied once per
    kernel row i to the padded input rows it reaches (``i * dh`` on: whole (Ho, Wo) blocks for
    stride 1), gives each input row's sums for each kernel column j; kw shifted adds then
    place them. col2im's kh * kw strided adds (Wo-element rows, mostly NumPy's per-row
    overhead) become kh long-row copies and kw adds: ~1.3x faster for the CNN benchmark's
    16 -> 32 channel 3x3 convolution. Taken when the output gradient is no wider than the
    columns (Og <= kw * Cg), so its kh copies cost no more than col2im's adds, and the weights
    are finite (on NumPy: the test is a sync on a GPU).
    """
    n, c, h, wd = gx.shape
    o, cg, kh, kw = w.shape
    og, (ho, wo), (sh, dh) = o // groups, g.shape[2:], (stride[0], dilation[0])
    rows = _shift_rows((kh, kw), dilation, stride, (ho, wo))
    # wr[group, (cg, j), (og, i)] = w[group * og + og, cg, i, j]
    wr = (
        w.reshape(groups, og, cg, kh, kw).transpose(0, 2, 4, 1, 3).reshape(groups, cg * kw, og * kh)
    )
    top = pads[0]
    r_hi = min(rows, top + h)  # the padded rows that hold input rows
    col_taps = _tap_ranges(wd, kw, stride[1], dilation[1], pads[2], wo)
    step = max(1, _block_bytes(xp) // ((o * kh + c * kw) * rows * wo * g.itemsize))

    def part(lo, hi):
        nb = _share(step, lo, hi, n * parts)  # parts: threads building blocks at once
        shifted = xp.zeros((nb, o, kh, rows, wo), g.dtype)  # rows no tap reaches stay zero
        sums = xp.empty((nb, groups, cg * kw, rows * wo), g.dtype)
        for a, e in _blocks(lo, hi, nb):
            sb, ub = shifted[: e - a], sums[: e - a]
            for i in range(kh):
                sb[:, :, i, i * dh : i * dh + sh * (ho - 1) + 1 : sh] = g[a:e]
            xp.matmul(wr, sb.reshape(e - a, groups, og * kh, rows * wo), out=ub)
            ub = ub.reshape(e - a, c, kw, rows, wo)
            for j, cj in enumerate(col_taps):
                if cj is not None and r_hi > top:
                    gx[a:e, :, : r_hi - top, cj[0]] += ub[:, :, j, top:r_hi, cj[1]]

    _batched(xp, part, n, o * cg * kh * kw * ho * wo, split=parts == 1)


def _conv_grads_array(xp, x, w, g, need_x, need_w, pads, stride, dilation, groups, cols=None):
    """Array form of ``conv2d_grads`` (no graph): stacked per-image GEMMs, col2im by taps; a
    large batch split over two threads as in the forward, or, where both gradients are
    wanted, the weight gradient on the helper thread beside the input gradient (``_beside``)."""
    if g.dtype.char in HALF_CHARS:  # float32 sums rounded once, as PyTorch's CPU kernels
        f32 = [None if a is None else a.astype(np.float32) for a in (x, w, g, cols)]
        grads = _conv_grads_array(
            xp, *f32[:3], need_x, need_w, pads, stride, dilation, groups, f32[3]
        )
        return tuple(None if a is None else a.astype(g.dtype) for a in grads)
    n = g.shape[0]
    o, cg, kh, kw = w.shape
    og, k, (ho, wo) = o // groups, cg * kh * kw, g.shape[2:]
    length = ho * wo
    gg = g.reshape(n, groups, og, length)
    gx = gw = None
    c = groups * cg
    step = max(1, _block_bytes(xp) // (groups * k * length * g.itemsize))
    if need_w:
        # columns @ g^T per image, (K, L) @ (L, Og): with the long L as the inner dimension of
        # both operands' rows this runs ~1.5x faster in OpenBLAS than g @ columns^T. The
        # forward's columns when kept, else rebuilt a few images at a time.
        prods = xp.empty((n, groups, k, og), g.dtype)
        rows = _shift_rows((kh, kw), dilation, stride, (ho, wo))

        def weight_part(lo, hi, parts=1):
            block = shifts = None
            nb = _share(step, lo, hi, n * parts)
            if cols is None:
                block = xp.empty((nb, c, kh, kw, ho, wo), g.dtype)
                shifts = xp.zeros((nb, c, kw, rows, wo), g.dtype)
            for a, e in _blocks(lo, hi, nb):
                cb = cols[a:e] if cols is not None else block[: e - a]
                if cols is None:
                    _cols_by_shifts(xp, x[a:e], (kh, kw), dilation, pads, stride, cb,
                                    shifts[: e - a])  # fmt: skip
                cb = cb.reshape(e - a, groups, k, length)
                xp.matmul(cb, gg[a:e].transpose(0, 1, 3, 2), out=prods[a:e])

    pending = _beside(xp, weight_part, n, o * k * length) if need_w and need_x else None
    parts = 1 if pending is None else 2  # each its share of the column budget
    # The kernel-rows path multiplies the rows a kernel row does not reach by zero: with an
    # infinite or NaN weight that would make a NaN where PyTorch adds nothing.
    if need_x and og <= kw * cg and xp is np and np.isfinite(w).all():
        gx = xp.zeros((n, c, *x.shape[2:]), g.dtype)
        _input_grad_by_rows(xp, w, g, gx, pads, stride, dilation, groups, parts)
    elif need_x:
        # The column gradients of a few images at a time: a smaller peak than the whole
        # batch's, and the block is still in cache when col2im reads it.
        wt = w.reshape(groups, og, k).transpose(0, 2, 1)
        gx = xp.zeros((n, c, *x.shape[2:]), g.dtype)

        def input_part(lo, hi):
            nb = _share(step, lo, hi, n * parts)
            block = xp.empty((nb, groups, k, length), g.dtype)
            for a, e in _blocks(lo, hi, nb):
                gcols = xp.matmul(wt, gg[a:e], out=block[: e - a])
                gcols = gcols.reshape(e - a, c, kh, kw, ho, wo)
                _col2im_array(xp, gcols, x.shape[2:], (kh, kw), dilation, pads, stride, gx[a:e])

        _batched(xp, input_part, n, o * k * length, split=parts == 1)
    if need_w:
        if pending is None:
            _batched(xp, weight_part, n, o * k * length)
        else:
            pending.result()
        # one reduction over the batch: the same bits either way
        gw = prods.sum(0).transpose(0, 2, 1).reshape(w.shape)
    return gx, gw


def conv2d_grads(x, w, g, need_x, need_w, pads, stride, dilation, groups, cols=None):
    """Input and weight gradients of a 2-D convolution (None where not needed).

    Without a graph to build (``backward`` without ``create_graph``) they are computed on the
    arrays, reusing the forward's column buffer ``cols`` when given; otherwise in Tensor ops,
    so that double backward and forward-over-reverse work.
    """
    if not _gm.enabled and not (_fw_state.level and g._fw is not None):
        xp = xp_for(g)
        gx, gw = _conv_grads_array(
            xp, x._data, w._data, g._data, need_x, need_w, pads, stride, dilation, groups, cols
        )
        return (
            None if gx is None else _wrap(gx, g._dtype, g._device),
            None if gw is None else _wrap(gw, g._dtype, g._device),
        )
    n, c = x.shape[0], x.shape[1]
    o, cg, kh, kw = w.shape
    og, k = o // groups, cg * kh * kw
    length = g.shape[2] * g.shape[3]
    gg = g.reshape(n, groups, og, length)
    gx = gw = None
    if need_x:
        gcols = w.reshape(groups, og, k).transpose(1, 2).matmul(gg)  # N, G, K, L
        gx = col2im(
            gcols.reshape(n, c * kh * kw, length), x.shape[2:], (kh, kw), dilation, pads, stride
        )
    if need_w:
        cols = im2col(x, (kh, kw), dilation, pads, stride).reshape(n, groups, k, length)
        gw = gg.matmul(cols.transpose(2, 3)).sum(0).reshape(w.shape)
    return gx, gw


def _bias_grad(g, dims):
    """The bias gradient: ``g`` summed over all but the channel dim. PyTorch's (oneDNN's)
    convolution backward sums it in an order of its own: neither sum's replay of ATen's cascade
    nor NumPy's pairwise sum gives its bits (checked on 4 shapes: 3 and 4 of 62 elements alike),
    so off the graph (no create_graph) float32/float64 take NumPy's sum, ~4x cheaper."""
    data = g._data
    if _gm.enabled or data.__class__ is not np.ndarray or data.dtype.char not in "fd":
        return g.sum(dims)
    return _wrap(np.add.reduce(data, axis=dims), g._dtype, g._device)


def _conv_vjp(node, g):
    saved = node.saved()
    x, w = saved[0], saved[1]
    cols = saved[2]._data if len(saved) > 2 else None
    gx, gw = conv2d_grads(
        x, w, g, _need(node, 0), _need(node, 1), node.pads, node.stride, node.dilation, node.groups,
        cols,
    )  # fmt: skip
    gb = _bias_grad(g, (0, 2, 3)) if _need(node, 2) else None
    return gx, gw, gb


_Convolution = node_class("ConvolutionBackward0", _conv_vjp)


def _same_pads(kernel, dilation) -> tuple:
    pads, totals = [], []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        totals.append(total)
        pads += [total // 2, total - total // 2]  # PyTorch puts the odd element at the end
    warn_same_asymmetric(totals)
    return tuple(pads)


def warn_same_asymmetric(totals) -> None:
    """PyTorch's one warning when padding="same" needs more padding on one side (an even
    kernel with an odd dilation): its kernel then pads a copy of the input."""
    if any(t % 2 for t in totals):
        from ..._flags import warn_once

        warn_once(
            "conv_same_asymmetric",
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
        )


_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
           "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
           "uint8": "unsigned char"}  # fmt: skip


def _conv_checks(input, weight, bias, groups, pads, dilation, stride):
    """PyTorch's checks of a convolution of any rank, on the caller's own tensors (conv1d runs
    on height-1 views and conv3d on depth slices: their errors name the 3-D / 5-D sizes).
    ``pads`` holds (low, high) per spatial dim, flattened."""
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(
            f"Input type ({_C_TYPE.get(input._dtype.name, input._dtype.name)}) and bias type "
            f"({_C_TYPE.get(bias._dtype.name, bias._dtype.name)}) should be the same"
        )
    if input._dtype is not weight._dtype and input.numel():  # an empty input runs no kernel
        raise RuntimeError(
            f"expected scalar type {scalar_name(input._dtype)} but found {scalar_name(weight._dtype)}"
        )
    if weight.dim() != input.dim():
        raise RuntimeError(
            f"Expected {input.dim()}-dimensional weight for {input.dim()}-dimensional input "
            f"{_seq_repr(input.shape)}, but got {weight.dim()}-dimensional weight of size "
            f"{_seq_repr(weight.shape)} instead"
        )
    conv_shape_checks(input, weight, bias, groups)
    padded = [n + pads[2 * i] + pads[2 * i + 1] for i, n in enumerate(input.shape[2:])]
    extent = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(p < e for p, e in zip(padded, extent)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, extent))}). Kernel size can't be greater than actual input size"
        )


def conv_shape_checks(input, weight, bias, groups: int, transposed: bool = False) -> None:
    """PyTorch's group, channel and bias checks of a (transposed) convolution, in its order."""
    w = _seq_repr(weight.shape)
    if weight.shape[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
            f"weight of size {w} instead"
        )
    if weight.shape[0] % groups:  # PyTorch's text has the sizes in double brackets
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
            f"got weight of size [{w}] instead"
        )
    given = "Given transposed=1, " if transposed else f"Given groups={groups}, "
    c = weight.shape[0] if transposed else weight.shape[1] * groups
    if input.shape[1] != c:
        raise RuntimeError(
            f"{given}weight of size {w}, expected input{_seq_repr(input.shape)} to have {c} channels, "
            f"but got {input.shape[1]} channels instead"
        )
    nb = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != nb):
        raise RuntimeError(
            f"{given if transposed else 'Given '}weight of size {w}, expected bias to be 1-dimensional "
            f"with {nb} elements, but got bias of size {_seq_repr(bias.shape)} instead"
        )


@cast_policy(LOWER)
def conv2d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """``torch.conv2d`` / ``F.conv2d``: grad_fn ConvolutionBackward0.

    Deviation: an even kernel with ``padding='same'`` is padded asymmetrically inside the
    kernel, so no ConstantPadNdBackward0 node appears below the convolution.
    """
    stride, padding, dilation = conv_args(
        "conv2d", input, weight, bias, stride, padding, dilation, groups
    )
    check_devices(input, weight, bias)
    if input.dim() not in (3, 4):
        raise RuntimeError(
            f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {_seq_repr(input.shape)}"
        )
    if input.dim() == 3:
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(
            0
        )
    stride, dilation = _pair(stride), _pair(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            pads = (0, 0, 0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = _same_pads(weight.shape[2:], dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        ph, pw = _pair(padding)
        pads = (ph, ph, pw, pw)
    return conv2d_pads(input, weight, bias, stride, pads, dilation, int(groups))


def conv2d_pads(input, weight, bias, stride, pads, dilation, groups) -> Tensor:
    """2-D convolution of 4-D input with explicit (top, bottom, left, right) padding."""
    _conv_checks(input, weight, bias, groups, pads, dilation, stride)
    xp = xp_for(input)
    data, cols = _conv_array(
        xp, input._data, weight._data, None if bias is None else bias._data, stride, pads, dilation, groups,
        _gm.enabled and weight._rg,
    )  # fmt: skip
    r = _wrap(data, input._dtype, input._device)
    inputs = (input, weight, bias)  # PyTorch's node has a bias edge even without a bias
    if _gm.enabled and (input._rg or weight._rg or (bias is not None and bias._rg)):
        saved = (input, weight)
        if cols is not None:
            saved += (_wrap(cols, input._dtype, input._device),)
        record(
            _Convolution, inputs, r, saved, pads=pads, stride=stride, dilation=dilation, groups=groups,
        )  # fmt: skip
    if _fw_state.level and any(t is not None and t._fw is not None for t in inputs):
        r._fw = _conv_jvp(input, weight, bias, stride, pads, dilation, groups)
        _register(r)
    return r


def _conv_jvp(input, weight, bias, stride, pads, dilation, groups):
    def conv(x, w, b):
        return _wrap(
            _conv_array(
                xp_for(x),
                x._data,
                w._data,
                None if b is None else b._data,
                stride,
                pads,
                dilation,
                groups,
            )[0],
            x._dtype,
            x._device,
        )

    t = None
    if input._fw is not None:
        t = conv(input._fw, weight, None)
    if weight._fw is not None:
        u = conv(input, weight._fw, None)
        t = u if t is None else t + u
    if bias is not None and bias._fw is not None:
        u = bias._fw.reshape(-1, 1, 1)
        t = u.expand(1, *u.shape) if t is None else t + u
    return t


# ---- losses (kept in ops/nn/loss.py) ---------------------------------------------------------


def _single(v) -> int:
    return int(v[0]) if isinstance(v, (list, tuple)) else int(v)


# ---- conv1d -----------------------------------------------------------------------------------
def _conv1d_vjp(node, g):
    x, w = node.saved()
    gx, gw = conv2d_grads(
        x.unsqueeze(2), w.unsqueeze(2), g.unsqueeze(2), _need(node, 0), _need(node, 1),
        node.pads, node.stride, node.dilation, node.groups,
    )  # fmt: skip
    gb = _bias_grad(g, (0, 2)) if _need(node, 2) else None
    return (None if gx is None else gx.squeeze(2)), (None if gw is None else gw.squeeze(2)), gb


_Conv1d = node_class("ConvolutionBackward0", _conv1d_vjp)


@cast_policy(LOWER)
def conv1d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    stride, padding, dilation = conv_args(
        "conv1d", input, weight, bias, stride, padding, dilation, groups
    )
    check_devices(input, weight, bias)
    if _unbatched(input, 3, "conv1d"):
        return conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(
            0
        )
    if weight.dim() != 3:
        raise RuntimeError(
            f"Expected 3-dimensional weight for 3-dimensional input {list(input.shape)}, but got "
            f"{weight.dim()}-dimensional weight of size {list(weight.shape)} instead"
        )
    s, d = _single(stride), _single(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            lo = hi = 0
        elif padding == "same":
            if s != 1:
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            total = d * (weight.shape[2] - 1)
            lo, hi = total // 2, total - total // 2
            warn_same_asymmetric([total])
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        lo = hi = _single(padding)
    _conv_checks(input, weight, bias, int(groups), (lo, hi), (d,), (s,))
    pads, stride2, dil2 = (0, 0, lo, hi), (1, s), (1, d)
    with no_grad():
        out = conv2d_pads(
            input.unsqueeze(2), weight.unsqueeze(2), bias, stride2, pads, dil2, int(groups)
        )
    r = out.squeeze(2)
    if _gm.enabled and (input._rg or weight._rg or (bias is not None and bias._rg)):
        record(
            _Conv1d, (input, weight, bias), r, (input, weight), pads=pads, stride=stride2, dilation=dil2,
            groups=int(groups),
        )  # fmt: skip
    return r


# ---- transposed convolution ----------------------------------------------------------------------
def _conv_t_geometry(in_hw, kernel, stride, padding, output_padding, dilation):
    """Output size and the (top, bottom, left, right) pads of the equivalent convolution."""
    out, pads = [], []
    for n, k, s, p, op, d in zip(in_hw, kernel, stride, padding, output_padding, dilation):
        canvas = (n - 1) * s + d * (k - 1) + 1
        out.append(canvas - 2 * p + op)
        pads += [p, max(0, p - op)]
    return tuple(out), tuple(pads)


@silent
def _conv_t_array(xp, x, w, stride, pads, dilation, groups, out_hw):
    n, cin, h, wd = x.shape
    _, cout_g, kh, kw = w.shape
    cin_g = cin // groups
    k = cout_g * kh * kw
    wg = w.reshape(groups, cin_g, k).transpose(0, 2, 1)  # G, K, Cin_g
    xg = (
        x.reshape(n, groups, cin_g, h * wd).transpose(1, 2, 0, 3).reshape(groups, cin_g, n * h * wd)
    )
    cols = xp.matmul(wg, xg).reshape(groups, cout_g, kh, kw, n, h, wd)
    cols = cols.transpose(4, 0, 1, 2, 3, 5, 6).reshape(n, groups * cout_g, kh, kw, h, wd)
    return _col2im_array(xp, cols, out_hw, (kh, kw), dilation, pads, stride)


def _conv_t_grads(x, w, g, need, stride, pads, dilation, groups):
    h, wd = x.shape[2], x.shape[3]
    gx = gw = gb = None
    if need[0]:
        gx = conv2d_pads(g, w, None, stride, pads, dilation, groups)[:, :, :h, :wd]
    if need[1]:
        # The weight gradient of the equivalent convolution, with g as its input and x as the
        # gradient of its output (zero-extended where the output was clipped).
        ho = (g.shape[2] + pads[0] + pads[1] - dilation[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
        wo = (g.shape[3] + pads[2] + pads[3] - dilation[1] * (w.shape[3] - 1) - 1) // stride[1] + 1
        gy = x if (ho, wo) == (h, wd) else constant_pad_nd(x, (0, wo - wd, 0, ho - h), 0.0)
        _, gw = conv2d_grads(g, w, gy, False, True, pads, stride, dilation, groups)
    if need[2]:
        gb = _bias_grad(g, (0, 2, 3))
    return gx, gw, gb


def _conv_t_vjp(node, g):
    x, w = node.saved()
    need = [_need(node, i) for i in range(3)]
    if not node.one_d:
        return _conv_t_grads(x, w, g, need, node.stride, node.pads, node.dilation, node.groups)
    gx, gw, gb = _conv_t_grads(
        x.unsqueeze(2),
        w.unsqueeze(2),
        g.unsqueeze(2),
        need,
        node.stride,
        node.pads,
        node.dilation,
        node.groups,
    )
    return (None if gx is None else gx.squeeze(2)), (None if gw is None else gw.squeeze(2)), gb


_ConvT = node_class("ConvolutionBackward0", _conv_t_vjp)


def _check_output_padding(output_padding, stride, dilation) -> None:
    if all(op < s or op < d for op, s, d in zip(output_padding, stride, dilation)):
        return
    names = ("depth", "height", "width")[-len(stride) :]
    parts = [f"{kind}_{n}: {v}" for kind, vals in (("output_padding", output_padding), ("stride", stride),
                                                    ("dilation", dilation)) for n, v in zip(names, vals)]  # fmt: skip
    raise RuntimeError(
        "output padding must be smaller than either stride or dilation, but got " + " ".join(parts)
    )


def _unbatched(input: Tensor, batched_dim: int, name: str) -> bool:
    """PyTorch's error unless ``input`` has ``batched_dim`` dims or one less; True for one less."""
    if input.dim() not in (batched_dim - 1, batched_dim):
        raise RuntimeError(
            f"Expected {batched_dim - 1}D (unbatched) or {batched_dim}D (batched) input to {name}, but got input of "
            f"size: {list(input.shape)}"
        )
    return input.dim() == batched_dim - 1


def _conv_t_setup(input, weight, bias, stride, padding, output_padding, groups, dilation, expand):
    """conv_transpose2d/3d on a batched input: the arguments expanded to one per spatial dim
    (``expand``), PyTorch's channel and output_padding checks, the output size and the paddings."""
    stride, padding, output_padding, dilation = map(
        expand, (stride, padding, output_padding, dilation)
    )
    groups = int(groups)
    conv_shape_checks(input, weight, bias, groups, transposed=True)
    _check_output_padding(output_padding, stride, dilation)
    out_size, pads = _conv_t_geometry(
        input.shape[2:], weight.shape[2:], stride, padding, output_padding, dilation
    )
    return stride, padding, dilation, groups, out_size, pads


@cast_policy(LOWER)
def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    groups=1,
    dilation=1,
) -> Tensor:
    """``F.conv_transpose2d`` (the gradient of conv2d with respect to its input); ConvolutionBackward0."""
    if _unbatched(input, 4, "conv_transpose2d"):
        return conv_transpose2d(
            input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation
        ).squeeze(0)
    stride, padding, dilation, groups, out_hw, pads = _conv_t_setup(
        input, weight, bias, stride, padding, output_padding, groups, dilation, _pair
    )
    xp = xp_for(input)
    x, w, b = input._data, weight._data, None if bias is None else bias._data
    half = x.dtype.char in HALF_CHARS  # float32 sums and bias, rounded once (PyTorch's kernels)
    if half:
        x, w, b = (None if a is None else a.astype(np.float32) for a in (x, w, b))
    y = _conv_t_array(xp, x, w, stride, pads, dilation, groups, out_hw)
    if b is not None:
        y = y + b[:, None, None]
    if half:
        y = y.astype(input._data.dtype)
    r = _wrap(xp.ascontiguousarray(y), input._dtype, input._device)
    if _gm.enabled and (input._rg or weight._rg or (bias is not None and bias._rg)):
        record(
            _ConvT, (input, weight, bias), r, (input, weight), stride=stride, pads=pads, dilation=dilation,
            groups=groups, one_d=False,
        )  # fmt: skip
    return r


@cast_policy(LOWER)
def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    groups=1,
    dilation=1,
) -> Tensor:
    """conv_transpose2d on a height-1 view, recorded as one ConvolutionBackward0 over the 1-D tensors."""
    if _unbatched(input, 3, "conv_transpose1d"):
        return conv_transpose1d(
            input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation
        ).squeeze(0)
    if weight.dim() == 3:  # (the 2-D path's errors name the height-1 views otherwise)
        conv_shape_checks(input, weight, bias, int(groups), transposed=True)
    stride2, dil2 = (1, _single(stride)), (1, _single(dilation))
    with no_grad():
        out = conv_transpose2d(
            input.unsqueeze(2), weight.unsqueeze(2), bias, stride2, (0, _single(padding)),
            (0, _single(output_padding)), groups, dil2,
        )  # fmt: skip
    r = out.squeeze(2)
    if _gm.enabled and (input._rg or weight._rg or (bias is not None and bias._rg)):
        _, pads = _conv_t_geometry((1, input.shape[2]), (1, weight.shape[2]), stride2, (0, _single(padding)),
                                   (0, _single(output_padding)), dil2)  # fmt: skip
        record(
            _ConvT, (input, weight, bias), r, (input, weight), stride=stride2, pads=pads, dilation=dil2,
            groups=int(groups), one_d=True,
        )  # fmt: skip
    return r


# ---- conv3d as one node -------------------------------------------------------------------------------
def _composite_vjp(node, g):
    # conv3d is linear in each argument: its gradients are those of the composite's own graph
    # (2-d convolutions over the depth taps), built at the forward on detached aliases of the
    # arguments (kept while this node lives). Under create_graph the composite runs again on
    # the arguments themselves, so the gradients depend on them (the weight's on the input).
    from ... import autograd

    x, w = node.saved()  # a second backward without retain_graph raises, as PyTorch's node
    aliases, y = node.composite
    if _gm.enabled:
        aliases = [x, w, aliases[2]]  # (the bias's gradient depends on no argument)
        y = node.forward(*aliases)
    wanted = [
        i for i, (z, edge) in enumerate(zip(aliases, node.next_functions))
        if z is not None and edge[0] is not None
    ]  # fmt: skip
    grads = autograd.grad(
        y, [aliases[i] for i in wanted], g, retain_graph=True, create_graph=_gm.enabled
    )
    out = [None] * len(aliases)
    for i, gi in zip(wanted, grads):
        out[i] = gi
    return tuple(out)


_Conv3d = node_class("ConvolutionBackward0", _composite_vjp)


def conv3d_node(input: Tensor, weight: Tensor, bias, forward) -> Tensor:
    """``forward(input, weight, bias)`` (conv3d built from 2-d convolutions) as PyTorch's one
    ``ConvolutionBackward0`` node, so grad_fn matches; forward-mode AD keeps the composite's own
    derivatives."""
    args = (input, weight, bias)
    if not (_gm.enabled and any(t is not None and t._rg for t in args)) or (
        _fw_state.level and any(t is not None and t._fw is not None for t in args)
    ):
        return forward(*args)
    aliases = [None if t is None else t.detach().requires_grad_(t._rg) for t in args]
    out = forward(*aliases)
    r = _wrap(out._data, out._dtype, out._device)
    record(_Conv3d, args, r, (input, weight), composite=(aliases, out), forward=forward)
    return r


# ---- conv_transpose3d ------------------------------------------------------------------------------
def _triple(v) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v) if len(v) != 1 else (int(v[0]),) * 3
    return (int(v),) * 3


def _fold_depth(t: Tensor) -> Tensor:
    """(N, C, D, H, W) -> (N*D, C, H, W)."""
    n, c, d, h, w = t.shape
    return t.transpose(1, 2).reshape(n * d, c, h, w)


def _conv_t3d_vjp(node, g):
    x, w = node.saved()
    (sd, sh, sw), pd, (dd, dh, dw) = node.stride, node.padding[0], node.dilation
    d, h, wd = x.shape[2:]
    kd = w.shape[2]
    gx = gw = gb = None
    if _need(node, 0):
        from ...nn._functional.three_d import conv3d

        gx = conv3d(g, w, None, node.stride, node.padding, node.dilation, node.groups)
        gx = gx[:, :, :d, :h, :wd]
    if _need(node, 1):
        # Depth tap k of the weight meets output depth i * sd + k * dd - pd of input depth i:
        # a 2-D transposed-convolution weight gradient per tap, the depth folded into the batch.
        canvas = (d - 1) * sd + dd * (kd - 1) + 1
        gpad = constant_pad_nd(g, (0, 0, 0, 0, pd, canvas - pd - g.shape[2]), 0.0)
        x2 = _fold_depth(x)
        pads = node.pads2
        taps = []
        for k in range(kd):
            gk = _fold_depth(gpad[:, :, k * dd : k * dd + (d - 1) * sd + 1 : sd])
            _, gwk, _ = _conv_t_grads(x2, w[:, :, k], gk, (False, True, False), (sh, sw), pads, (dh, dw),
                                      node.groups)  # fmt: skip
            taps.append(gwk)
        from ..shape.copies import stack

        gw = stack(taps, 2)
    if _need(node, 2):
        gb = _bias_grad(g, (0, 2, 3, 4))
    return gx, gw, gb


_ConvT3d = node_class("ConvolutionBackward0", _conv_t3d_vjp)


@cast_policy(LOWER)
def conv_transpose3d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:  # fmt: skip
    """``F.conv_transpose3d``: one 2-D transposed convolution per kernel depth tap (the depth
    folded into the batch), each added into the output depths it reaches; ConvolutionBackward0."""
    if _unbatched(input, 5, "conv_transpose3d"):
        return conv_transpose3d(
            input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation
        ).squeeze(0)
    stride, padding, dilation, groups, out_size, pads = _conv_t_setup(
        input, weight, bias, stride, padding, output_padding, groups, dilation, _triple
    )
    (sd, sh, sw), (dd, dh, dw) = stride, dilation
    n, cin, d, h, w = input.shape
    kd = weight.shape[2]
    xp = xp_for(input)
    x2 = xp.ascontiguousarray(input._data.transpose(0, 2, 1, 3, 4)).reshape(n * d, cin, h, w)
    canvas = (d - 1) * sd + dd * (kd - 1) + 1
    ho, wo = out_size[1:]
    full = xp.zeros((n, max(canvas, padding[0] + out_size[0]), weight.shape[1] * groups, ho, wo),
                    input._data.dtype)  # fmt: skip
    for k in range(kd):
        yk = _conv_t_array(
            xp, x2, weight._data[:, :, k], (sh, sw), pads[2:], (dh, dw), groups, (ho, wo)
        )
        full[:, k * dd : k * dd + (d - 1) * sd + 1 : sd] += yk.reshape(n, d, *yk.shape[1:])
    y = full[:, padding[0] : padding[0] + out_size[0]].transpose(0, 2, 1, 3, 4)
    if bias is not None:
        y = y + bias._data[:, None, None, None]
    r = _wrap(xp.ascontiguousarray(y), input._dtype, input._device)
    if _gm.enabled and (input._rg or weight._rg or (bias is not None and bias._rg)):
        record(
            _ConvT3d, (input, weight, bias), r, (input, weight), stride=stride, padding=padding,
            dilation=dilation, groups=groups, pads2=pads[2:],
        )  # fmt: skip
    return r
