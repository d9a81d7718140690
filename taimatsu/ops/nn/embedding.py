"""The embedding kernel: rows of a weight matrix picked by index (EmbeddingBackward0), and
``embedding_renorm_``."""

from __future__ import annotations

import numbers

import numpy as np

from ... import _dtype as D
from ... import backend as _backend
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import check_devices, need_tensor, record, scalar_name, xp_for


# ---- embedding ----------------------------------------------------------------------------------
def _embedding_vjp(node, g):
    node.saved()  # PyTorch's node saves the indices: no second backward without retain_graph
    idx = node.indices
    num, dim = node.num_weights, g.shape[-1]
    if not _gm.enabled and not node.scale_grad_by_freq and _plain_float(g):
        return (_embedding_grad_arrays(node, g, num, dim),)
    flat = idx.reshape(-1)
    gf = g.reshape(-1, dim)
    if node.padding_idx is not None:
        gf = gf * (flat != node.padding_idx).unsqueeze(1).to(gf.dtype)
    if node.scale_grad_by_freq:
        gf = gf / node.counts.to(gf.dtype).index_select(0, flat).unsqueeze(1)
    return (gf.new_zeros((num, dim)).index_add(0, flat, gf),)


def _plain_float(g: Tensor) -> bool:
    return xp_for(g) is np and g._dtype in (D.float32, D.float64)


def _embedding_grad_arrays(node, g: Tensor, num: int, dim: int) -> Tensor:
    """The VJP above on arrays (no graph of the backward to record): rows added in the order
    of the indices, as index_add does, but through a one-dimensional ``np.add.at`` over
    element offsets, which NumPy runs several times faster than ``add.at`` over rows; each
    weight element receives the same additions in the same order, so the same bits."""
    flat = node.indices._data.reshape(-1)
    gf = g._data.reshape(-1, dim)
    if node.padding_idx is not None:
        gf = gf * (flat != node.padding_idx)[:, None].astype(gf.dtype)
    out = np.zeros((num, dim), gf.dtype)  # (2-D itself: a reshaped view would be copied by
    # AccumulateGrad rather than kept)
    offsets = (flat[:, None] * dim + np.arange(dim)).reshape(-1)
    np.add.at(out.reshape(-1), offsets, gf.reshape(-1))
    return _wrap(out, g._dtype, g._device)


def _embedding_sparse_vjp(node, g):
    """The sparse gradient of ``sparse=True``: one uncoalesced entry per looked-up row (the
    padding row's left out), as PyTorch's embedding_sparse_backward."""
    node.saved()
    from ...sparse.construction import coo

    if node.scale_grad_by_freq:
        raise RuntimeError(
            "embedding_backward: scale_grad_by_freq not supported with sparse gradients"
        )
    flat = node.indices._data.reshape(-1)
    vals = g.reshape(-1, g.shape[-1])._data
    if node.padding_idx is not None:
        keep = flat != node.padding_idx
        flat, vals = flat[keep], vals[keep]
    shape = (node.num_weights, g.shape[-1])
    # the values stay a view of g, as PyTorch's do: non-contiguous ones (g expanded by a sum's
    # backward) make later sparse additions concatenate rather than merge, as in PyTorch
    return (coo(flat.reshape(1, -1).copy(), vals, shape, g._dtype, g._device),)


_Embedding = node_class("EmbeddingBackward0", _embedding_vjp)
_EmbeddingSparse = node_class("EmbeddingBackward0", _embedding_sparse_vjp)


def embedding(
    input: Tensor, weight: Tensor, padding_idx=None, scale_grad_by_freq=False, sparse=False
) -> Tensor:
    """Rows of ``weight`` at ``input``'s indices; grad_fn EmbeddingBackward0 (a sparse COO
    gradient for ``weight`` when ``sparse=True``)."""
    need_tensor("embedding", weight, "weight", 1)  # torch.embedding(weight, indices)'s parser
    need_tensor("embedding", input, "indices", 2)
    check_devices(input, weight)
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(input, weight)
    idx = input._data
    num = weight.shape[0]
    r = _wrap(weight._data[idx], weight._dtype, weight._device)
    if weight._rg and _gm.enabled:
        indices = input.detach().to(D.int64)
        record(
            _EmbeddingSparse if sparse else _Embedding, (weight,), r, (indices,), indices=indices, num_weights=num,
            padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq,
            counts=_wrap(xp_for(input).bincount(idx.ravel(), minlength=num), D.int64, input._device)
            if scale_grad_by_freq else None,
        )  # fmt: skip
    return r


def _check_indices(input: Tensor, weight: Tensor, renorm: bool = False) -> None:
    if input._dtype not in (D.int64, D.int32):
        arg, fn = ("#2", "embedding_renorm_") if renorm else ("#1", "embedding")
        raise RuntimeError(
            f"Expected tensor for argument {arg} 'indices' to have one of the following scalar types: Long, Int; "
            f"but got torch.{scalar_name(input._dtype)}Tensor instead (while checking arguments for {fn})"
        )
    idx = input._data
    num = weight.shape[0]
    if not idx.size:
        return

    def error() -> Exception:
        if not renorm and weight.shape[1] == 0:  # PyTorch's kernel for empty rows words it so
            flat = idx.reshape(-1)
            bad = int(flat[(flat < 0) | (flat >= num)][0])
            return RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={num}")
        if renorm:
            bad = int(idx.max()) if idx.max() >= num else int(idx.min())
            return IndexError(
                f"select(): index {bad} out of range for tensor of size {list(weight.shape)} at dimension 0"
            )
        return IndexError("index out of range in self")

    _backend.check((idx.min() < 0) | (idx.max() >= num), error)  # on CUDA: at the next sync


def embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescale (in place, no history) the rows ``input`` refers to whose norm exceeds ``max_norm``."""
    for pos, (name, v) in enumerate((("max_norm", max_norm), ("norm_type", norm_type)), 3):
        if not isinstance(v, numbers.Real):  # the parser's double arguments
            raise TypeError(
                f"embedding_renorm_(): argument '{name}' (position {pos}) must be float, not "
                f"{type(v).__name__}"
            )
    if weight.dim() != 2:
        raise RuntimeError(
            f"Expected 2-dimensional tensor, but got {weight.dim()}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for embedding_renorm_)"
        )
    _check_indices(input, weight, renorm=True)
    if weight._dtype.category < D.FLOAT:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {scalar_name(weight._dtype)} instead."
        )
    xp = xp_for(weight)
    rows = xp.unique(input._data.reshape(-1))
    w = weight._data
    sel = w[rows]
    if norm_type == float("inf"):
        norms = xp.abs(sel).max(axis=1)
    else:
        norms = (xp.abs(sel.astype(np.float64)) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = max_norm / (norms + 1e-7)
    big = norms > max_norm
    w[rows[big]] = (sel[big] * scale[big, None]).astype(w.dtype)
    weight._vc[0] += 1
    return weight
