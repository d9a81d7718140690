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

from .. import _dtype as D
from ..autograd.forward_ad import _register
from ..autograd.grad_mode import state as _gm
from ._dispatch import (
    Tensor,
    _fw_state,
    _wrap,
    node_class,
    record,
    scalar_name,
    xp_for,
)
from .reduction import rounded, widen


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
    top, bottom, left, right = pads
    if top or bottom or left or right:
        x = xp.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=fill)
    return x


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


def _cols_array(xp, x, kernel, dilation, pads, stride, channels_first: bool):
    """im2col: (N, C, kh, kw, Ho, Wo), or (C, kh, kw, N, Ho, Wo) with ``channels_first``."""
    n, c, h, w = x.shape
    ho = _out_size(h, kernel[0], stride[0], dilation[0], pads[0], pads[1])
    wo = _out_size(w, kernel[1], stride[1], dilation[1], pads[2], pads[3])
    xpad = _pad(xp, x, pads)
    if channels_first:
        cols = xp.empty((c, *kernel, n, ho, wo), x.dtype)
        for i, j, v in _taps(xpad, kernel, dilation, stride, (ho, wo)):
            cols[:, i, j] = v.transpose(1, 0, 2, 3)
    else:
        cols = xp.empty((n, c, *kernel, ho, wo), x.dtype)
        for i, j, v in _taps(xpad, kernel, dilation, stride, (ho, wo)):
            cols[:, :, i, j] = v
    return cols


def _col2im_array(xp, cols, size, kernel, dilation, pads, stride):
    """Sum the (N, C, kh, kw, Ho, Wo) window values back into an (N, C, H, W) image."""
    n, c, kh, kw, ho, wo = cols.shape
    top, bottom, left, right = pads
    h, w = size
    out = xp.zeros((n, c, h + top + bottom, w + left + right), cols.dtype)
    (dh, dw), (sh, sw) = dilation, stride
    for i in range(kh):  # a loop over kernel offsets only: each step adds whole planes
        r0 = i * dh
        for j in range(kw):
            c0 = j * dw
            out[:, :, r0 : r0 + sh * (ho - 1) + 1 : sh, c0 : c0 + sw * (wo - 1) + 1 : sw] += cols[
                :, :, i, j
            ]
    return out[:, :, top : top + h, left : left + w]


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
    cols = _cols_array(xp, x, kernel, dilation, pads, stride, channels_first=False)
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
    cols = x.reshape(n, -1, kh, kw, ho, wo)
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
    if input.dim() not in (3, 4) or input.numel() == 0:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{_seq_repr(input.shape)}"
        )
    if input.dim() == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    (ph, pw) = _pair(padding)
    return im2col(input, _pair(kernel_size), _pair(dilation), (ph, ph, pw, pw), _pair(stride))


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
def _conv_array(xp, x, w, b, stride, pads, dilation, groups):
    """2-D convolution (cross-correlation) of arrays: one GEMM per group over the windows."""
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    cols = _cols_array(xp, x, (kh, kw), dilation, pads, stride, channels_first=True)
    ho, wo = cols.shape[-2:]
    # Channels first, batch and positions last: a (G, Cg*kh*kw, N*Ho*Wo) matrix per group.
    cols = cols.reshape(groups, cg * kh * kw, n * ho * wo)
    out = xp.matmul(w.reshape(groups, o // groups, cg * kh * kw), cols).reshape(o, n * ho * wo)
    if b is not None:
        out += b[:, None]
    return xp.ascontiguousarray(out.reshape(o, n, ho, wo).transpose(1, 0, 2, 3))


def conv2d_grads(x, w, g, need_x, need_w, pads, stride, dilation, groups):
    """Input and weight gradients of a 2-D convolution, in Tensor ops (None where not needed)."""
    n, c = x.shape[0], x.shape[1]
    o, cg, kh, kw = w.shape
    og, k = o // groups, cg * kh * kw
    length = g.shape[2] * g.shape[3]
    # (G, Og, N*L): the output gradient as one matrix per group.
    gg = g.reshape(n, groups, og, length).permute(1, 2, 0, 3).reshape(groups, og, n * length)
    gx = gw = None
    if need_x:
        gcols = w.reshape(groups, og, k).transpose(1, 2).matmul(gg)  # G, K, N*L
        gcols = (
            gcols.reshape(groups, k, n, length).permute(2, 0, 1, 3).reshape(n, c * kh * kw, length)
        )
        gx = col2im(gcols, x.shape[2:], (kh, kw), dilation, pads, stride)
    if need_w:
        cols = im2col(x, (kh, kw), dilation, pads, stride)  # N, C*K, L
        cols = cols.reshape(n, groups, k, length).permute(1, 0, 3, 2).reshape(groups, n * length, k)
        gw = gg.matmul(cols).reshape(w.shape)
    return gx, gw


def _conv_vjp(node, g):
    x, w = node.saved()
    gx, gw = conv2d_grads(
        x, w, g, _need(node, 0), _need(node, 1), node.pads, node.stride, node.dilation, node.groups
    )
    gb = g.sum((0, 2, 3)) if _need(node, 2) else None
    return gx, gw, gb


_Convolution = node_class("ConvolutionBackward0", _conv_vjp)


def _same_pads(kernel, dilation) -> tuple:
    pads = []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        pads += [total // 2, total - total // 2]  # PyTorch puts the odd element at the end
    return tuple(pads)


_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
           "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
           "uint8": "unsigned char"}  # fmt: skip


def _conv_checks(input, weight, bias, groups, pads, dilation, stride):
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(
            f"Input type ({_C_TYPE.get(input._dtype.name, input._dtype.name)}) and bias type "
            f"({_C_TYPE.get(bias._dtype.name, bias._dtype.name)}) should be the same"
        )
    if input._dtype is not weight._dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input._dtype)} but found {scalar_name(weight._dtype)}"
        )
    if weight.dim() != 4:
        raise RuntimeError(
            f"Expected 4-dimensional weight for 4-dimensional input {_seq_repr(input.shape)}, but got "
            f"{weight.dim()}-dimensional weight of size {_seq_repr(weight.shape)} instead"
        )
    c = input.shape[1]
    if c != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_seq_repr(weight.shape)}, expected "
            f"input{_seq_repr(input.shape)} to have {weight.shape[1] * groups} channels, but got {c} "
            "channels instead"
        )
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size {_seq_repr(weight.shape)} instead"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(
            f"Given weight of size {_seq_repr(weight.shape)}, expected bias to be 1-dimensional with "
            f"{weight.shape[0]} elements, but got bias of size {_seq_repr(bias.shape)} instead"
        )
    ph = input.shape[2] + pads[0] + pads[1]
    pw = input.shape[3] + pads[2] + pads[3]
    eh = dilation[0] * (weight.shape[2] - 1) + 1
    ew = dilation[1] * (weight.shape[3] - 1) + 1
    if ph < eh or pw < ew:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({ph} x {pw}). Kernel size: ({eh} x {ew}). "
            "Kernel size can't be greater than actual input size"
        )


def conv2d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
    """``torch.conv2d`` / ``F.conv2d``: grad_fn ConvolutionBackward0.

    Deviation: an even kernel with ``padding='same'`` is padded asymmetrically inside the
    kernel, so no ConstantPadNdBackward0 node appears below the convolution.
    """
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
    data = _conv_array(
        xp, input._data, weight._data, None if bias is None else bias._data, stride, pads, dilation, groups,
    )  # fmt: skip
    r = _wrap(data, input._dtype, input._device)
    inputs = (input, weight, bias)  # PyTorch's node has a bias edge even without a bias
    if _gm.enabled and (input._rg or weight._rg or (bias is not None and bias._rg)):
        record(
            _Convolution, inputs, r, (input, weight), pads=pads, stride=stride, dilation=dilation, groups=groups,
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
            ),
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


# ---- max pooling -----------------------------------------------------------------------------
def _pool_out(size, k, s, p, d, ceil_mode) -> int:
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1  # the last window must start inside the input or its left padding
    return out


def _max_pool_array(xp, x, kernel, stride, padding, dilation, out_hw):
    """Max over each window and the flat (h * W + w) index of the winner, as PyTorch.

    The kernel taps are gathered into a (N, C, Ho, Wo, kh*kw) buffer (one copy per tap)
    and reduced with argmax. PyTorch's rule: a tap replaces the max when greater or NaN,
    so ties keep the first tap and, with NaNs, the last NaN wins.
    """
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    ho, wo = out_hw
    # Pad past the right edge as far as ceil_mode's last window reaches.
    extra_h = max(0, (ho - 1) * sh + dh * (kh - 1) + 1 - (h + 2 * ph))
    extra_w = max(0, (wo - 1) * sw + dw * (kw - 1) + 1 - (w + 2 * pw))
    fill = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
    xpad = _pad(xp, x, (ph, ph + extra_h, pw, pw + extra_w), fill)
    buf = xp.empty((n, c, ho, wo, kh * kw), x.dtype)
    for i, j, v in _taps(xpad, kernel, dilation, stride, out_hw):
        buf[..., i * kw + j] = v
    arg = xp.argmax(buf, axis=-1)
    best = xp.take_along_axis(buf, arg[..., None], -1)[..., 0]
    if x.dtype.kind == "f":
        nan = xp.isnan(best)
        if nan.any():
            last = kh * kw - 1 - xp.argmax(xp.isnan(buf[..., ::-1]), axis=-1)
            arg = xp.where(nan, last, arg)
    # Flat index = the window's top-left corner + the winning tap's offset inside it.
    taps = xp.arange(kh * kw)
    tap_offset = (taps // kw) * (dh * w) + (taps % kw) * dw
    corner = (xp.arange(ho)[:, None] * sh - ph) * w + (xp.arange(wo)[None, :] * sw - pw)
    return best, corner + tap_offset[arg]


def _max_pool_vjp(node, g):
    return (max_pool2d_backward(g, node.indices, node.in_shape),)


_MaxPool2D = node_class("MaxPool2DWithIndicesBackward0", _max_pool_vjp)


def _max_pool_backward_vjp(node, gg):
    # The backward is linear in the gradient: its adjoint gathers at the same indices.
    n = node.indices.shape
    flat = gg.reshape(*gg.shape[:-2], -1)
    return (flat.gather(-1, node.indices.reshape(*n[:-2], -1)).reshape(n), None)


_MaxPool2DBackward = node_class("MaxPool2DWithIndicesBackwardBackward0", _max_pool_backward_vjp)


def max_pool2d_backward(grad: Tensor, indices: Tensor, in_shape) -> Tensor:
    """Scatter-add ``grad`` into an input-shaped zero tensor at ``indices`` (one bincount)."""
    xp = xp_for(grad)
    g = grad._data
    planes = int(np.prod(in_shape[:-2]))
    hw = in_shape[-2] * in_shape[-1]
    idx = indices._data.reshape(planes, -1) + (xp.arange(planes) * hw)[:, None]
    acc = xp.bincount(idx.ravel(), weights=g.reshape(-1).astype(np.float64), minlength=planes * hw)
    r = _wrap(acc.astype(g.dtype).reshape(in_shape), grad._dtype, grad._device)
    if grad._rg and _gm.enabled:
        record(_MaxPool2DBackward, (grad, None), r, (), indices=indices)
    return r


def max_pool2d_with_indices(
    input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False
):
    """``torch.nn.functional.max_pool2d_with_indices``: (values, int64 flat indices)."""
    k = _pair(kernel_size)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _pair(stride)
    p, d = _pair(padding), _pair(dilation)
    if input.dim() not in (3, 4) or any(n == 0 for n in input.shape[-3:]):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")

    def pad_check():
        for pi, ki, di in zip(p, k, d):
            if pi > (di * (ki - 1) + 1) // 2:
                raise RuntimeError(
                    f"pad should be at most half of effective kernel size, but got pad={pi}, kernel_size={ki} and "
                    f"dilation={di}"
                )

    from .nn_pool import check_pool2d

    check_pool2d(k, s, p, d, pad_check)
    h, w = input.shape[-2:]
    ho = _pool_out(h, k[0], s[0], p[0], d[0], ceil_mode)
    wo = _pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)
    if ho < 1 or wo < 1:
        c = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{ho}x{wo}). Output size is too small"
        )
    x = input._data
    batched = x.ndim == 4
    xp = xp_for(input)
    vals, idx = _max_pool_array(xp, x if batched else x[None], k, s, p, d, (ho, wo))
    if not batched:
        vals, idx = vals[0], idx[0]
    r = _wrap(vals, input._dtype, input._device)
    indices = _wrap(idx, D.int64, input._device)
    if input._rg and _gm.enabled:
        record(_MaxPool2D, (input,), r, (), indices=indices, in_shape=x.shape)
    if _fw_state.level and input._fw is not None:
        t = input._fw.reshape(*x.shape[:-2], -1)
        r._fw = t.gather(-1, indices.reshape(*idx.shape[:-2], -1)).reshape(idx.shape)
        _register(r)
    return r, indices


# ---- softmax ---------------------------------------------------------------------------------
def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _widened(y, g):
    """float16/bfloat16 backward in float32, rounded once, as PyTorch's CPU kernels do."""
    if y._dtype in (D.float16, D.bfloat16):
        return y.float(), g.float(), y._dtype
    return y, g, None


def _softmax_vjp(node, g):
    (y,) = node.saved()
    y, g, half = _widened(y, g)
    gx = y * (g - (g * y).sum(node.dim, keepdim=True))
    return (gx if half is None else gx.to(half),)


def _log_softmax_vjp(node, g):
    (y,) = node.saved()
    y, g, half = _widened(y, g)
    gx = g - y.exp() * g.sum(node.dim, keepdim=True)
    return (gx if half is None else gx.to(half),)


_Softmax = node_class("SoftmaxBackward0", _softmax_vjp)
_LogSoftmax = node_class("LogSoftmaxBackward0", _log_softmax_vjp)


def _softmax_common(input, dim, dtype, log: bool):
    if dtype is not None:
        input = input.to(dtype)
    if input._dtype.category != D.FLOAT:
        kernel = "log_softmax_lastdim_kernel_impl" if log else "softmax_lastdim_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._dtype)}'")
    x = widen(input._data)
    d = _wrap_dim(dim, x.ndim)
    xp = xp_for(input)
    if x.ndim == 0:
        data = xp.zeros_like(x) if log else xp.ones_like(x)
    else:
        # Subtract the max (stability); -inf rows stay NaN as in PyTorch.
        shifted = x - xp.max(x, axis=d, keepdims=True) if x.size else x
        e = xp.exp(shifted)
        s = xp.sum(e, axis=d, keepdims=True)
        if x is input._data:
            data = shifted - xp.log(s) if log else e / s
        elif log:  # PyTorch's half kernel rounds the sum and its log to the half type
            data = shifted - rounded(xp.log(rounded(s, input._data.dtype)), input._data.dtype)
        else:  # ... and multiplies by the reciprocal of the float32 sum
            data = e * (1 / s)
    r = _wrap(data.astype(input._data.dtype, copy=False), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_LogSoftmax if log else _Softmax, (input,), r, (r,), dim=d if x.ndim else ())
    if _fw_state.level and input._fw is not None:
        t = input._fw
        if log:
            r._fw = t - (t * r.exp()).sum(d, keepdim=True)
        else:
            r._fw = r * (t - (t * r).sum(d, keepdim=True))
        _register(r)
    return r


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax_common(input, dim, dtype, log=False)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _softmax_common(input, dim, dtype, log=True)


# ---- losses (kept in nn_loss.py) ---------------------------------------------------------
from .nn_loss import REDUCTIONS, mse_loss, nll_loss  # noqa: F401
