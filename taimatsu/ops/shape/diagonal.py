"""More shape ops: diagonals (diag, diag_embed, diagflat, block_diag), grids and index sets
(meshgrid, cartesian_prod, combinations, tril/triu_indices), repeat_interleave, Tensor.unfold,
kron, trace and vander.

Ops PyTorch implements as compositions (cartesian_prod, combinations, meshgrid, kron, vander,
repeat_interleave) are compositions here too, so their graphs carry PyTorch's node names
(StackBackward0 over MaskedSelectBackward0, ...). The others record their own node.
"""

from __future__ import annotations

import builtins

from ... import _dtype as D
from ..._autocast import FP32, cast_policy
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import OUT_EXACT, _fw_state, record, write_out, xp_for
from ..arg_types import as_int


def _tangent(r: Tensor, inputs, fn) -> None:
    """Forward-mode: ``r``'s tangent is the linear ``fn`` applied to the inputs' tangents."""
    if _fw_state.level and any(t._fw is not None for t in inputs):
        r._fw = fn(*[t._fw if t._fw is not None else t.detach() * 0 for t in inputs])
        _register(r)


# ---- diagonal embedding --------------------------------------------------------------------------------
def _embed_array(xp, x, shape, offset, d1, d2):
    """Zeros of ``shape`` whose (offset, d1, d2) diagonal is ``x``."""
    out = xp.zeros(shape, x.dtype)
    v = xp.moveaxis(out, (d1, d2), (-2, -1))[
        ..., builtins.max(-offset, 0) :, builtins.max(offset, 0) :
    ]
    idx = xp.arange(x.shape[-1])
    v[..., idx, idx] = x
    return out


def _embed(g: Tensor, shape, offset, d1, d2, node_cls) -> Tensor:
    r = _wrap(_embed_array(xp_for(g), g._data, shape, offset, d1, d2), g._dtype, g._device)
    if g._rg and _gm.enabled:
        record(node_cls, (g,), r, (), offset=offset, d1=d1, d2=d2)
    _tangent(r, (g,), lambda t: _embed(t, shape, offset, d1, d2, node_cls))
    return r


def _diag_vjp(node, g):
    return (g.diagonal(node.offset, node.d1, node.d2),)


_DiagEmbed = node_class("DiagEmbedBackward0", _diag_vjp)
_DiagonalBackwardBackward = node_class("DiagonalBackwardBackward0", _diag_vjp)


def _diagonal_backward(g: Tensor, shape, offset, d1, d2) -> Tensor:
    return _embed(g, shape, offset, d1, d2, _DiagonalBackwardBackward)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    nd = input._data.ndim + 1
    d1, d2 = _wrapdim(dim1, nd), _wrapdim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input._data.shape[-1] + abs(offset) if input._data.ndim else 1 + abs(offset)
    batch = list(input._data.shape[:-1])
    shape = [0] * nd
    it = iter(batch)
    for k in range(nd):
        shape[k] = n if k in (d1, d2) else next(it)
    x = input if input._data.ndim else input.reshape(1)
    return _embed(x, tuple(shape), offset, d1, d2, _DiagEmbed)


def _diag_copy_vjp(node, g):
    return (_diagonal_backward(g, node.in_shape, node.offset, 0, 1),)


_DiagCopy = node_class("DiagonalBackward0_copy", _diag_copy_vjp)


def diag(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    r = _diag(input, as_int("diag", "diagonal", 2, diagonal, any_dims=False))
    kernel = "diag_embed" if input._data.ndim == 1 else "diagonal_copy"
    return (
        r
        if out is None
        else write_out(
            out,
            r,
            kernel,
            OUT_EXACT,
            grad="aten",
            cast_msg="diag: result type {res} can't be cast to the desired out= type {out}",
        )
    )


def _diag(input: Tensor, diagonal: int = 0) -> Tensor:
    nd = input._data.ndim
    if nd == 1:
        return diag_embed(input, diagonal, 0, 1)
    if nd != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{nd}D")
    v = input.detach().diagonal(diagonal)
    r = _wrap(v._data.copy(), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_DiagCopy, (input,), r, (), in_shape=input._data.shape, offset=diagonal)
    _tangent(r, (input,), lambda t: t.diagonal(diagonal).clone())
    return r


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    return diag_embed(input.contiguous().view(-1), offset, 0, 1)


def _block_diag_vjp(node, g):
    out, r0, c0 = [], 0, 0
    for shp in node.shapes:
        r, c = (1, 1) if len(shp) == 0 else ((1, shp[0]) if len(shp) == 1 else shp)
        out.append(g[r0 : r0 + r, c0 : c0 + c].reshape(shp))
        r0, c0 = r0 + r, c0 + c
    return tuple(out)


_BlockDiag = node_class("BlockDiagBackward0", _block_diag_vjp)


def block_diag(*tensors) -> Tensor:
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t._data.ndim} dimensions"
            )
    if not tensors:
        from ..creation.factories import empty

        return empty(1, 0)
    dt = tensors[0]._dtype
    for t in tensors[1:]:
        dt = D.promote_types(dt, t._dtype)
    mats = [t._data.reshape((1, 1) if t._data.ndim == 0 else ((1, -1) if t._data.ndim == 1 else t._data.shape))
            for t in tensors]  # fmt: skip
    xp = xp_for(tensors[0])
    rows, cols = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
    data = xp.zeros((rows, cols), dt.np)
    r0 = c0 = 0
    for m in mats:
        data[r0 : r0 + m.shape[0], c0 : c0 + m.shape[1]] = m
        r0, c0 = r0 + m.shape[0], c0 + m.shape[1]
    r = _wrap(data, dt, tensors[0]._device)
    if _gm.enabled and any(t._rg for t in tensors):
        record(_BlockDiag, tensors, r, (), shapes=[t._data.shape for t in tensors])
    _tangent(r, tensors, lambda *ts: block_diag(*ts))
    return r


def _trace_vjp(node, g):
    from ..creation.ranges import eye

    n, m = node.in_shape
    return (g * eye(n, m, dtype=g.dtype, device=g.device),)


_Trace = node_class("TraceBackward0", _trace_vjp)


@cast_policy(FP32, ("cpu",))
def trace(input: Tensor) -> Tensor:
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    if input._dtype is D.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    dt = input._dtype if input._dtype.category >= D.FLOAT else D.int64
    xp = xp_for(input)
    r = _wrap(
        xp.asarray(xp.trace(input._data, dtype=dt.np if dt.np is not None else None)).astype(dt.np),
        dt,
        input._device,
    )
    if input._rg and _gm.enabled:
        record(_Trace, (input,), r, (), in_shape=input._data.shape)
    _tangent(r, (input,), trace)
    return r
