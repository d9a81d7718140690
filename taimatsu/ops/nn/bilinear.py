"""``torch.bilinear``: ``y[b, o] = sum_ij x1[b, i] * weight[o, i, j] * x2[b, j] (+ bias[o])``.

One contraction (``TrilinearBackward0``) over the flattened batch; its VJP is three
contractions in Tensor ops, so double backward works.
"""

from __future__ import annotations

from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import record, xp_for


def _need(node, i: int) -> bool:
    return node.next_functions[i][0] is not None


def _trilinear_vjp(node, g):
    x1, w, x2 = node.saved()
    o, i, j = w.shape
    b = g.shape[0]
    gx1 = gw = gx2 = None
    if _need(node, 0) or _need(node, 2):
        gw_ij = g.matmul(w.reshape(o, i * j)).view(b, i, j)  # sum_o g[b, o] w[o, i, j]
        if _need(node, 0):
            gx1 = (gw_ij * x2.unsqueeze(1)).sum(2)
        if _need(node, 2):
            gx2 = (gw_ij * x1.unsqueeze(2)).sum(1)
    if _need(node, 1):
        outer = (x1.unsqueeze(2) * x2.unsqueeze(1)).reshape(b, i * j)
        gw = g.t().matmul(outer).view(o, i, j)
    return gx1, gw, gx2


_Trilinear = node_class("TrilinearBackward0", _trilinear_vjp)


def _trilinear(x1: Tensor, w: Tensor, x2: Tensor) -> Tensor:
    """(B, I), (O, I, J), (B, J) -> (B, O)."""
    xp = xp_for(x1)
    a, m, c = x1._data, w._data, x2._data
    o, i, j = m.shape
    # (B, I) @ (I, O*J) -> (B, O, J), then a batched product with x2.
    t = (a @ m.transpose(1, 0, 2).reshape(i, o * j)).reshape(a.shape[0], o, j)
    y = xp.matmul(t, c[:, :, None])[:, :, 0]
    r = _wrap(xp.ascontiguousarray(y), x1._dtype, x1._device)
    if _gm.enabled and (x1._rg or w._rg or x2._rg):
        record(_Trilinear, (x1, w, x2), r, (x1, w, x2))
    return r


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias=None) -> Tensor:
    """PyTorch's argument checks and graph: a TrilinearBackward0 viewed back to the batch
    shape, then ``+ bias`` (AddBackward0)."""
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} and {input2.shape[d]}"
            )
    if input1.shape[-1] != weight.size(1):
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
            f"{weight.size(1)}"
        )
    if input2.shape[-1] != weight.size(2):
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
            f"{weight.size(2)}"
        )
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected {weight.size(0)}"
        )
    lead = tuple(input1.shape[:-1])
    y = _trilinear(
        input1.reshape(-1, input1.shape[-1]), weight, input2.reshape(-1, input2.shape[-1])
    )
    y = y.view(*lead, weight.shape[0])
    return y + bias if bias is not None else y
