"""Weight normalisation: ``torch.norm_except_dim`` and ``torch._weight_norm``, which
``nn.utils.weight_norm`` and ``nn.utils.parametrizations.weight_norm`` compute ``w = g * v / ||v||``
with.

``_weight_norm`` over the first or the last dim is one node, WeightNormInterfaceBackward0, as
PyTorch's fused kernel (edges to ``v`` then ``g``); over another dim (or ``dim=-1``: the whole
tensor) it is composed of ops, as in PyTorch (MulBackward0 over ``v`` and ``g / norm``). The
backward is written in Tensor ops, so it can be differentiated again.
"""

from __future__ import annotations

from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import _fw_state, need_tensor, record
from ..reduction.norms import aten_norm


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim but ``dim``, shaped to broadcast against ``v``
    (size 1 except along ``dim``); ``dim=-1``: the norm of the whole tensor, a 0-d tensor."""
    need_tensor("norm_except_dim", v, "v")
    if dim == -1:
        return aten_norm(v, pow)
    last = v.dim() - 1
    if dim == 0:
        shape = (v.size(0),) + (1,) * last
        return aten_norm(v.contiguous().view(v.size(0), -1), pow, 1).view(shape)
    if dim == last:
        shape = (1,) * last + (v.size(last),)
        return aten_norm(v.contiguous().view(-1, v.size(last)), pow, 0).view(shape)
    # another dim: moved first, and the norm moved back (out of range: transpose's IndexError)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _interface_vjp(node, g):
    v, w_g, norms = node.saved()
    # w = w_g * v / n per slice along dim; with s = sum(g * v) over the other dims:
    # dL/dg = s / n, dL/dv = (w_g / n) * (g - v * s / n^2)
    dims = [d for d in range(v.dim()) if d != node.dim]
    s = (g * v).sum(dims, keepdim=True) if dims else g * v
    grad_g = s / norms if node.next_functions[1][0] is not None else None
    grad_v = None
    if node.next_functions[0][0] is not None:
        grad_v = (w_g / norms) * (g - v * (s / (norms * norms)))
    return grad_v, grad_g


_Interface = node_class("WeightNormInterfaceBackward0", _interface_vjp)
_Interface.saved_names = ("v", "g", "result1")


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / norm_except_dim(v, 2, dim))``: the weight of weight normalisation."""
    need_tensor("_weight_norm", v, "v")
    need_tensor("_weight_norm", g, "g", 2)
    if dim != 0 and dim != v.dim() - 1 or _fw_state.level:  # (tangents flow through the ops)
        return v * (g / norm_except_dim(v, 2, dim))
    with no_grad():
        norms = norm_except_dim(v.detach(), 2, dim)
        w = v.detach() * (g.detach() / norms)
    if _gm.enabled and (v.requires_grad or g.requires_grad):
        record(_Interface, (v, g), w, (v, g, norms), dim=dim)
    return w
