"""conv1d and the transposed convolutions, on top of the 2-D convolution kernels in ``nn.py``.

conv1d runs the 2-D kernel on a height-1 view and records PyTorch's ConvolutionBackward0
over the 1-D tensors. A transposed convolution is the adjoint of a convolution: its forward
is one GEMM per group followed by col2im, its input gradient is an ordinary convolution.
"""

from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..autograd.grad_mode import state as _gm
from . import nn as _nn
from ._dispatch import Tensor, _wrap, node_class, record, xp_for
from .nn_resample import constant_pad_nd


def _need(node, i: int) -> bool:
    return node.next_functions[i][0] is not None


def _single(v) -> int:
    return int(v[0]) if isinstance(v, (list, tuple)) else int(v)


# ---- conv1d -----------------------------------------------------------------------------------
def _conv1d_vjp(node, g):
    x, w = node.saved()
    gx, gw = _nn.conv2d_grads(
        x.unsqueeze(2), w.unsqueeze(2), g.unsqueeze(2), _need(node, 0), _need(node, 1),
        node.pads, node.stride, node.dilation, node.groups,
    )  # fmt: skip
    gb = g.sum((0, 2)) if _need(node, 2) else None
    return (None if gx is None else gx.squeeze(2)), (None if gw is None else gw.squeeze(2)), gb


_Conv1d = node_class("ConvolutionBackward0", _conv1d_vjp)


def conv1d(
    input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1
) -> Tensor:
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
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        lo = hi = _single(padding)
    pads, stride2, dil2 = (0, 0, lo, hi), (1, s), (1, d)
    with no_grad():
        out = _nn.conv2d_pads(
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
    return _nn._col2im_array(xp, cols, out_hw, (kh, kw), dilation, pads, stride)


def _conv_t_grads(x, w, g, need, stride, pads, dilation, groups):
    h, wd = x.shape[2], x.shape[3]
    gx = gw = gb = None
    if need[0]:
        gx = _nn.conv2d_pads(g, w, None, stride, pads, dilation, groups)[:, :, :h, :wd]
    if need[1]:
        # The weight gradient of the equivalent convolution, with g as its input and x as the
        # gradient of its output (zero-extended where the output was clipped).
        ho = (g.shape[2] + pads[0] + pads[1] - dilation[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
        wo = (g.shape[3] + pads[2] + pads[3] - dilation[1] * (w.shape[3] - 1) - 1) // stride[1] + 1
        gy = x if (ho, wo) == (h, wd) else constant_pad_nd(x, (0, wo - wd, 0, ho - h), 0.0)
        _, gw = _nn.conv2d_grads(g, w, gy, False, True, pads, stride, dilation, groups)
    if need[2]:
        gb = g.sum((0, 2, 3))
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


def _pair(v) -> tuple:
    return _nn._pair(v)


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


def _conv_t_setup(input, weight, stride, padding, output_padding, groups, dilation, expand):
    """conv_transpose2d/3d on a batched input: the arguments expanded to one per spatial dim
    (``expand``), PyTorch's channel and output_padding checks, the output size and the paddings."""
    stride, padding, output_padding, dilation = map(
        expand, (stride, padding, output_padding, dilation)
    )
    groups = int(groups)
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(input.shape)} to have "
            f"{weight.shape[0]} channels, but got {input.shape[1]} channels instead"
        )
    _check_output_padding(output_padding, stride, dilation)
    out_size, pads = _conv_t_geometry(
        input.shape[2:], weight.shape[2:], stride, padding, output_padding, dilation
    )
    return stride, padding, dilation, groups, out_size, pads


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
        input, weight, stride, padding, output_padding, groups, dilation, _pair
    )
    xp = xp_for(input)
    y = _conv_t_array(xp, input._data, weight._data, stride, pads, dilation, groups, out_hw)
    if bias is not None:
        y = y + bias._data[:, None, None]
    r = _wrap(xp.ascontiguousarray(y), input._dtype, input._device)
    if _gm.enabled and (input._rg or weight._rg or (bias is not None and bias._rg)):
        record(
            _ConvT, (input, weight, bias), r, (input, weight), stride=stride, pads=pads, dilation=dilation,
            groups=groups, one_d=False,
        )  # fmt: skip
    return r


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
        from ..nn._functional.three_d import conv3d

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
        from .shape import stack

        gw = stack(taps, 2)
    if _need(node, 2):
        gb = g.sum((0, 2, 3, 4))
    return gx, gw, gb


_ConvT3d = node_class("ConvolutionBackward0", _conv_t3d_vjp)


def conv_transpose3d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:  # fmt: skip
    """``F.conv_transpose3d``: one 2-D transposed convolution per kernel depth tap (the depth
    folded into the batch), each added into the output depths it reaches; ConvolutionBackward0."""
    if _unbatched(input, 5, "conv_transpose3d"):
        return conv_transpose3d(
            input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation
        ).squeeze(0)
    stride, padding, dilation, groups, out_size, pads = _conv_t_setup(
        input, weight, stride, padding, output_padding, groups, dilation, _triple
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
