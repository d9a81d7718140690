"""More shape ops: diagonals (diag, diag_embed, diagflat, block_diag), grids and index sets
(meshgrid, cartesian_prod, combinations, tril/triu_indices), repeat_interleave, Tensor.unfold,
kron, trace and vander.

Ops PyTorch implements as compositions (cartesian_prod, combinations, meshgrid, kron, vander,
repeat_interleave) are compositions here too, so their graphs carry PyTorch's node names
(StackBackward0 over MaskedSelectBackward0, ...). The others record their own node.
"""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import _wrapdim
from ..autograd.forward_ad import _register
from ..autograd.grad_mode import state as _gm
from ._dispatch import OUT_EXACT, Tensor, _fw_state, _wrap, node_class, record, write_out, xp_for
from .views import make_view


def _tangent(r: Tensor, inputs, fn) -> None:
    """Forward-mode: ``r``'s tangent is the linear ``fn`` applied to the inputs' tangents."""
    if _fw_state.level and any(t._fw is not None for t in inputs):
        r._fw = fn(*[t._fw if t._fw is not None else t.detach() * 0 for t in inputs])
        _register(r)


# ---- diagonal embedding --------------------------------------------------------------------------------
def _embed_array(xp, x, shape, offset, d1, d2):
    """Zeros of ``shape`` whose (offset, d1, d2) diagonal is ``x``."""
    out = xp.zeros(shape, x.dtype)
    v = xp.moveaxis(out, (d1, d2), (-2, -1))[..., builtins.max(-offset, 0) :, builtins.max(offset, 0) :]
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
    r = _diag(input, diagonal)
    kernel = "diag_embed" if input._data.ndim == 1 else "diagonal_copy"
    return r if out is None else write_out(out, r, kernel, OUT_EXACT, grad="aten", cast_msg="diag: result type {res} can't be cast to the desired out= type {out}")


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
        from .creation import empty

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


# ---- grids and index sets ------------------------------------------------------------------------------
def meshgrid(*tensors, indexing: str | None = None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: " + _legacy_repr(t)
            )
    sizes = [t.numel() for t in tensors]
    if indexing == "xy" and len(tensors) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    n = len(tensors)
    out = []
    for i, t in enumerate(tensors):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        view = [1] * n
        view[pos] = -1
        out.append(t.view(view).expand(sizes))
    return tuple(out)


def _legacy_repr(t: Tensor) -> str:
    """PyTorch's C++ tensor print in the meshgrid error (only its shape header is reliable)."""
    rows = np.asarray(t.detach().cpu().numpy())
    body = "\n".join(" " + "  ".join(_fmt(v) for v in row.ravel()) for row in rows.reshape(rows.shape[0], -1))
    return f"{body}\n[ {t.type()}{{{','.join(map(str, t.shape))}}} ]"


def _fmt(v) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def cartesian_prod(*tensors) -> Tensor:
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    from .copies import stack

    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _wrap(xp_for(input).zeros(0, input._dtype.np), input._dtype, input._device)
    n = input._data.shape[0]
    xp = xp_for(input)
    idx = xp.meshgrid(*([xp.arange(n)] * r), indexing="ij")
    mask = xp.ones((n,) * r, bool)
    for a, b in zip(idx[:-1], idx[1:]):
        mask &= (a <= b) if with_replacement else (a < b)
    m = _wrap(mask, D.bool, input._device)
    from .copies import stack

    grids = meshgrid(*([input] * r), indexing="ij")
    return stack([g.masked_select(m) for g in grids], 1)


def _tri_indices(row, col, offset, lower, dtype, device):
    from .creation import tensor as _tensor

    a = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    dtype = D.int64 if dtype is None else dtype
    return _tensor(np.stack(a).astype(np.int64).reshape(2, -1), dtype=dtype, device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    return _tri_indices(row, col, offset, False, dtype, device)


# ---- repeat_interleave / unfold --------------------------------------------------------------------------
def _repeats_index(repeats: Tensor) -> Tensor:
    if repeats._dtype not in (D.int64, D.int32):
        from ._dispatch import scalar_name

        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{scalar_name(repeats._dtype)}'")
    if repeats._data.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    reps = np.asarray(repeats.detach().cpu().numpy())
    if (reps < 0).any():
        raise RuntimeError("repeats can not be negative")
    idx = np.repeat(np.arange(reps.shape[0], dtype=reps.dtype), reps)
    return _wrap(idx, repeats._dtype, repeats._device) if idx.size or True else None


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *, output_size=None) -> Tensor:
    if repeats is None:  # torch.repeat_interleave(repeats)
        return _repeats_index(input)
    if isinstance(repeats, Tensor) and repeats._data.ndim == 0:
        repeats = repeats.reshape(1)
    if isinstance(repeats, Tensor):
        x = input.flatten() if dim is None else input
        d = 0 if dim is None else _wrapdim(dim, x._data.ndim)
        if repeats._data.ndim == 1 and repeats._data.shape[0] == 1:
            repeats = repeats.expand(x._data.shape[d])
        if repeats._data.ndim == 1 and repeats._data.shape[0] != x._data.shape[d]:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{repeats._data.shape[0]} and input.size({d}) = {x._data.shape[d]}"
            )
        if repeats._data.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        return x.index_select(d, _repeats_index(repeats).to(D.int64))
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    x = input.flatten() if dim is None else input
    if x._data.ndim == 0:
        x = x.reshape(1)
    d = 0 if dim is None else _wrapdim(dim, x._data.ndim)
    shape = list(x.shape)
    e = x.unsqueeze(d + 1).expand(shape[: d + 1] + [repeats] + shape[d + 1 :])
    return e.clone().flatten(d, d + 1)


def _unfold_vjp(node, g):
    return (_unfold_backward(g, node.in_shape, node.dim, node.size, node.step),)


_Unfold = node_class("UnfoldBackward0", _unfold_vjp)
_UnfoldBackward = node_class(
    "UnfoldBackwardBackward0", lambda node, g: (g.unfold(node.dim, node.size, node.step),)
)


def _unfold_backward(g: Tensor, in_shape, dim, size, step) -> Tensor:
    """The adjoint of unfold: each window's gradient added back where the window came from."""
    xp = xp_for(g)
    if not in_shape:  # a 0-d input unfolds to one window of one element
        out = g._data.reshape(()).copy()
    else:
        out = xp.zeros(in_shape, g._data.dtype)
        n = g._data.shape[dim]
        o = xp.moveaxis(out, dim, -1)
        gd = xp.moveaxis(g._data, dim, -2)  # (..., n, size)
        for k in range(size):
            o[..., k : k + step * (n - 1) + 1 : step] += gd[..., k]
    r = _wrap(out, g._dtype, g._device)
    if g._rg and _gm.enabled:
        record(_UnfoldBackward, (g,), r, (), dim=dim, size=size, step=step)
    _tangent(r, (g,), lambda t: _unfold_backward(t, in_shape, dim, size, step))
    return r


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    a = input._data
    nd = a.ndim
    d = _wrapdim(dimension, builtins.max(nd, 1))
    length = a.shape[d] if nd else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:
        data = a.reshape(1)
        shape, strides = (1,), (a.itemsize,)
    else:
        shape = a.shape[:d] + ((length - size) // step + 1,) + a.shape[d + 1 :] + (size,)
        strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1 :] + (a.strides[d],)
        data = a
    xp = xp_for(input)
    if xp is np:
        v = np.lib.stride_tricks.as_strided(data, shape, strides, writeable=True)
    else:
        v = xp.lib.stride_tricks.as_strided(data, shape, strides)
    return make_view(input, v, _Unfold, lambda t: t.unfold(d, size, step),
                     in_shape=a.shape, dim=d, size=size, step=step)  # fmt: skip


# ---- kron / trace / vander ---------------------------------------------------------------------------------
def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    nd = builtins.max(input._data.ndim, other._data.ndim)
    a_shape = (1,) * (nd - input._data.ndim) + tuple(input.shape)
    b_shape = (1,) * (nd - other._data.ndim) + tuple(other.shape)
    a = input.reshape([s for k in a_shape for s in (k, 1)])
    b = other.reshape([s for k in b_shape for s in (1, k)])
    prod = a * b
    from .shape import _UnsafeView

    shape = tuple(x * y for x, y in zip(a_shape, b_shape))
    r = _wrap(prod._data.reshape(shape), prod._dtype, prod._device)
    if prod._rg and _gm.enabled:
        record(_UnsafeView, (prod,), r, (), in_shape=prod._data.shape)
    _tangent(r, (prod,), lambda t: t.reshape(shape))
    return r if out is None else write_out(out, r, "mul")


def _trace_vjp(node, g):
    from .creation import eye

    n, m = node.in_shape
    return (g * eye(n, m, dtype=g.dtype, device=g.device),)


_Trace = node_class("TraceBackward0", _trace_vjp)


def trace(input: Tensor) -> Tensor:
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    if input._dtype is D.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    dt = input._dtype if input._dtype.category >= D.FLOAT else D.int64
    xp = xp_for(input)
    r = _wrap(xp.asarray(xp.trace(input._data, dtype=dt.np if dt.np is not None else None)).astype(dt.np), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Trace, (input,), r, (), in_shape=input._data.shape)
    _tangent(r, (input,), trace)
    return r


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x._dtype if x._dtype.category >= D.FLOAT else D.int64
    from .creation import ones, zeros

    result = zeros((x._data.shape[0], n), dtype=dt, device=x.device)
    if n > 0:
        result[:, 0] = ones((), dtype=dt)
    if n > 1:
        result[:, 1:] = x.to(dt).unsqueeze(1).expand(-1, n - 1).cumprod(1)
    return result if increasing else result.flip(1)
