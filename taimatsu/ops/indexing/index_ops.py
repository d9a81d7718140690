"""Indexing ops: index_select/index_add/index_fill/index_copy/index_put, masked_select/
masked_scatter, nonzero/nonzero_static, take, put, index_reduce, unravel_index. gather and the
scatters are in ``scatter.py``, subscripts in ``subscript.py``, copy_/fill_/zero_ in
``fill_copy.py``.

Each op checks its arguments with PyTorch's messages, runs on arrays, and writes its VJP in
Tensor ops (index_select's adjoint is index_add and back), so double backward works.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from taimatsu.ops.introspection import _need_tensor

from ... import _dtype as D
from ... import backend as _backend
from ..._autocast import PROMOTE, cast_policy
from ..._flags import user_stacklevel, warn_once
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ..._tensor_arguments import type_name
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.scatter_at import add_along, add_at
from .._dispatch import (
    OUT_EXACT,
    check_broadcast,
    check_devices,
    inplace,
    need_tensor,
    record,
    scalar_name,
    takes_out,
    xp_for,
)
from ..arg_types import integer
from .scatter import _bounds, _check_index_dtype, _shape, _tangent, gather
from .subscript import (
    INDEX_DTYPES,
    _advanced_key,
    _Parsed,
    index_put_acc,
    index_with_key,
    warn_uint8_index,
)


# ---- index_select / index_add / index_fill / index_copy / index_put ---------------------------------------
def _dim_key(d: int, idx):
    return (slice(None),) * d + (idx.reshape(-1).astype(np.int64, copy=False),)


def _index_select_vjp(node, g):
    node.saved()  # PyTorch's node saves the index: no second backward without retain_graph
    return (index_add(g.new_zeros(node.in_shape), node.dim, node.index, g),)


_IndexSelect = node_class("IndexSelectBackward0", _index_select_vjp)


def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    need_tensor("index_select", input)
    if dim.__class__ is not int:
        integer("index_select", "dim", 2, dim)
    check_devices(input, index)
    nd = input._data.ndim
    d = _wrapdim(dim, nd)  # PyTorch's order: the dim, the index's rank, then its dtype
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    _check_index_dtype(index, "index_select(): Expected dtype int32 or int64 for index")
    if nd == 0 and index._data.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {index._data.size} value(s)"
        )
    if input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"index_select\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    idx = index._data.reshape(-1)
    x = input._data.reshape(_shape(input._data))
    if idx.size:  # on CUDA read back at the next synchronisation, not here
        bad = (idx.max() >= x.shape[d]) | (idx.min() < 0)
        _backend.check(bad, lambda: IndexError("index out of range in self"))
    data = xp_for(input).take(x, idx, axis=d)
    if nd == 0:  # a 0-d input gives a 0-d result whatever the index's rank
        data = data.reshape(())
    r = _wrap(data, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_IndexSelect, (input,), r, (index,), in_shape=input._data.shape, dim=d, index=index)
    _tangent(r, lambda t: index_select(t, d, index), input)
    if out is not None:
        from .._dispatch import write_out

        return write_out(
            out, r, "index_select", "index_select(): self and result must have the same scalar type"
        )
    return r


def _index_add_vjp(node, g):
    gs = None
    if node.next_functions[1][0] is not None:
        gs = g.index_select(node.dim, node.index)
        if node.alpha != 1:
            gs = gs * node.alpha
    return g, gs


_IndexAdd = node_class("IndexAddBackward0", _index_add_vjp)


def _index_source_checks(name, input, d, index, source):
    n = index._data.size
    ssize = source._data.shape[d] if source._data.ndim else 1
    if n != ssize:
        raise RuntimeError(
            f"{name}(): Number of indices ({n}) should be equal to source.size(dim): ({ssize}), for dim: {d}"
        )


def _slices_match(name, input, d, source) -> None:
    """index_add/index_copy: ``source`` has ``input``'s shape but along ``d`` (PyTorch's texts;
    NumPy's broadcast errors leaked)."""
    si, ss = list(input._data.shape), list(source._data.shape)
    if name == "index_copy_":
        if not si or not ss:
            return
        if len(si) != len(ss):
            raise IndexError(
                "index_copy_(): When source and destination are not scalars, their dimensionality "
                f"must match. Source dimensionality ({len(ss)}), destination dimensionality ({len(si)})"
            )
        rest_i, rest_s = si[:d] + si[d + 1 :], ss[:d] + ss[d + 1 :]
        if rest_i != rest_s:
            raise RuntimeError(
                "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                f"slice shape: {' '.join(map(str, rest_i))} at dimension {d} and source slice shape: "
                f"{' '.join(map(str, rest_s))} at dimension 0."
            )
    elif len(si) != len(ss) or any(si[k] != ss[k] for k in range(len(si)) if k != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {si} source.shape = {ss}"
        )


@takes_out("index_add", OUT_EXACT)
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    check_devices(input, index, source)
    if not isinstance(index, Tensor) or index._dtype not in (D.int64, D.int32):
        got = scalar_name(index._dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {got}")
    if input._dtype in D._SHELL_UINTS and index._data.size:
        raise NotImplementedError(
            f"\"scatter_gather_tensor_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    d = _wrapdim(dim, input._data.ndim)
    _index_source_checks("index_add_", input, d, index, source)
    _slices_match("index_add_", input, d, source)
    if source._dtype is not input._dtype:
        raise RuntimeError(
            f"index_add_(): self ({scalar_name(input._dtype)}) and source ({scalar_name(source._dtype)}) must have "
            "the same scalar type"
        )
    x = input._data.reshape(_shape(input._data))
    _bounds(index._data, x.shape[d], d)
    xp = xp_for(input)
    out = x.copy()
    src = source._data.reshape(_shape(source._data)) if input._data.ndim == 0 else source._data
    if alpha != 1:
        src = (src * alpha).astype(out.dtype)
    add_along(xp, out, d, _dim_key(d, index._data)[-1], src)
    r = _wrap(out.reshape(input._data.shape), input._dtype, input._device)
    if _gm.enabled and (input._rg or source._rg):
        record(_IndexAdd, (input, source), r, (), dim=d, index=index, alpha=alpha)
    return _tangent(r, lambda a, b: index_add(a, d, index, b, alpha=alpha), input, source)


def index_add_(self, dim, index, source, *, alpha=1):
    return inplace(self, lambda s, x: index_add(s, dim, index, x, alpha=alpha), (source,), False)


def _index_fill_vjp(node, g):
    gi = g.index_fill(node.dim, node.index, 0) if node.next_functions[0][0] is not None else None
    if len(node.next_functions) == 1:
        return (gi,)
    gv = (
        g.index_select(node.dim, node.index).sum()
        if node.next_functions[1][0] is not None
        else None
    )
    return gi, gv


_IndexFill = node_class("IndexFillBackward0", _index_fill_vjp)
_IndexFillTensor = node_class("IndexFillBackward1", _index_fill_vjp)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    if not isinstance(index, Tensor) or index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"index_fill_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    is_t = isinstance(value, Tensor)
    if is_t and value._data.ndim:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} dimension(s)."
        )
    d = _wrapdim(dim, input._data.ndim)
    x = input._data.reshape(_shape(input._data))
    # PyTorch's index_fill takes negative indices (from the end), in [-size, size)
    n, idx = x.shape[d], index._data
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < -n or hi >= n:
            bad = hi if hi >= n else lo
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
        if lo < 0:
            idx = xp_for(input).where(idx < 0, idx + n, idx)
    out = x.copy()
    out[_dim_key(d, idx)] = value._data if is_t else D.half_scalar(value, input._dtype)
    r = _wrap(out.reshape(input._data.shape), input._dtype, input._device)
    if _gm.enabled and (input._rg or (is_t and value._rg)):
        if is_t:
            record(_IndexFillTensor, (input, value), r, (), dim=d, index=index)
        else:
            record(_IndexFill, (input,), r, (), dim=d, index=index)
    if is_t:
        return _tangent(r, lambda a, b: index_fill(a, d, index, b), input, value)
    return _tangent(r, lambda a: index_fill(a, d, index, 0), input)


def index_fill_(self, dim, index, value):
    args = (value,) if isinstance(value, Tensor) else ()
    return inplace(self, lambda s, *a: index_fill(s, dim, index, a[0] if a else value), args, False)


def _index_copy_vjp(node, g):
    gi = g.index_fill(node.dim, node.index, 0) if node.next_functions[0][0] is not None else None
    gs = g.index_select(node.dim, node.index) if node.next_functions[1][0] is not None else None
    return gi, gs


_IndexCopy = node_class("IndexCopyBackward0", _index_copy_vjp)


@takes_out("index_copy", OUT_EXACT)
@cast_policy(PROMOTE, ("cpu",))
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    check_devices(input, index, source)
    if not isinstance(index, Tensor) or index._dtype is not D.int64:
        got = scalar_name(index._dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {got}")
    d = _wrapdim(dim, input._data.ndim)
    x = input._data.reshape(_shape(input._data))
    _bounds(index._data, x.shape[d], d, IndexError, "index_copy_(): ")
    _slices_match("index_copy_", input, d, source)
    _index_source_checks("index_copy_", input, d, index, source)
    if source._dtype is not input._dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{scalar_name(input._dtype)} and (source) {scalar_name(source._dtype)}"
        )
    out = x.copy()
    out[_dim_key(d, index._data)] = (
        source._data.reshape(_shape(source._data)) if input._data.ndim == 0 else source._data
    )
    r = _wrap(out.reshape(input._data.shape), input._dtype, input._device)
    if _gm.enabled and (input._rg or source._rg):
        record(_IndexCopy, (input, source), r, (), dim=d, index=index)
    return _tangent(r, lambda a, b: index_copy(a, d, index, b), input, source)


def index_copy_(self, dim, index, source):
    return inplace(self, lambda s, x: index_copy(s, dim, index, x), (source,), False)


def _index_put_vjp(node, g):
    if node._saved:
        node.saved()  # the index tensors: PyTorch's version check when one was written since
    gi = gv = None
    if node.next_functions[0][0] is not None:
        gi = g if node.accumulate else index_put_key(g, node.key, g.new_zeros(()))
    if node.next_functions[1][0] is not None:
        gv = index_with_key(g, node.key)
    return gi, gv


_IndexPut = node_class("IndexPutBackward0", _index_put_vjp)


def _key_of(input: Tensor, indices):
    """A NumPy key from ``index_put``'s tuple of index tensors (``None`` = whole dim)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}"
        )
    adv, masks, dim = [], [], 0
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
        if t._dtype not in INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        a = t._data
        if t._dtype is D.uint8:
            warn_uint8_index()
            a = a.astype(bool)
        if a.dtype == bool:
            masks.append((dim, a))
            dim += a.ndim
        else:
            adv.append((dim, a))
            dim += 1
    if dim > input._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input._data.ndim}")
    if not adv and not masks:
        return (Ellipsis,)
    return _advanced_key(input, _Parsed(None, adv, masks))


def index_put_key(
    input: Tensor, key, values: Tensor, accumulate: bool = False, indices: tuple = ()
) -> Tensor:
    """A copy of ``input`` with ``values`` put (or, accumulating, added) at NumPy ``key``.
    ``indices``: the index tensors ``key`` came from, saved as PyTorch's IndexPutBackward0 saves
    them (written in place before the backward, they raise its version error)."""
    if input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"index_put\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    if values._dtype is not input._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_name(input._dtype)} for the destination and {scalar_name(values._dtype)} for the source."
        )
    xp = xp_for(input)
    out = input._data.copy()
    v = values._data
    target_shape = np.shape(out[key])
    try:
        np.broadcast_shapes(target_shape, v.shape)
        if np.broadcast_shapes(target_shape, v.shape) != tuple(target_shape):
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to indexing result of "
            f"shape {list(target_shape)}"
        ) from None
    if accumulate:
        add_at(xp, out, key, v)
    else:
        out[key] = v
    r = _wrap(out, input._dtype, input._device)
    if _gm.enabled and (input._rg or values._rg):
        record(_IndexPut, (input, values), r, indices, key=key, accumulate=accumulate)
    return _tangent(r, lambda a, b: index_put_key(a, key, b, accumulate), input, values)


def index_put_key_(
    self: Tensor, key, values: Tensor, accumulate: bool = False, indices: tuple = ()
) -> Tensor:
    return inplace(
        self, lambda s, v: index_put_key(s, key, v, accumulate, indices), (values,), False
    )


def refuse_uint8_fill(indices, value, shape=None) -> None:
    """PyTorch puts a one-element value at a single mask index with ``masked_fill_``, which refuses
    a uint8 mask (other values go through index_put, which accepts it with a warning). A mask
    leading the subscript whose shape does not match ``shape`` (the indexed tensor's) gets the
    shape's IndexError first, from the general path."""
    tensors = [t for t in indices if isinstance(t, Tensor) and t._data.ndim]
    if (
        len(tensors) == 1
        and tensors[0]._dtype is D.uint8
        and (not isinstance(value, Tensor) or value._data.size == 1)
    ):
        mask = tensors[0]._data
        if shape is not None and indices[0] is tensors[0] and mask.shape != shape[: mask.ndim]:
            return
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
        )


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    if not accumulate and isinstance(indices, (tuple, list)):
        refuse_uint8_fill(indices, values)
    key = _key_of(input, indices)
    return index_put_key(input, key, values, accumulate, tuple(indices))


def index_put_(self: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    if not accumulate and isinstance(indices, (tuple, list)):
        refuse_uint8_fill(indices, values)
    return index_put_key_(self, _key_of(self, indices), values, accumulate, tuple(indices))


# ---- masks / nonzero / take ---------------------------------------------------------------------------------
def _masked_select_vjp(node, g):
    zeros = g.new_zeros(node.shape)
    return (masked_scatter(zeros, node.mask, g),)


_MaskedSelect = node_class("MaskedSelectBackward0", _masked_select_vjp)


def _broadcast(input: Tensor, mask: Tensor):
    from .._dispatch import broadcast_error

    try:
        return tuple(np.broadcast_shapes(input._data.shape, mask._data.shape))
    except ValueError:
        raise broadcast_error((mask._data.shape, input._data.shape)) from None


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    if mask._dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if input._dtype in D._SHELL_UINTS and input._data.size:
        raise NotImplementedError(
            f"\"masked_select\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    shape = _broadcast(input, mask)
    xp = xp_for(input)
    m = xp.broadcast_to(mask._data, shape)
    data = xp.broadcast_to(input._data, shape)[m]
    r = _wrap(data, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_MaskedSelect, (input,), r, (), shape=shape, mask=_wrap(m, D.bool, mask._device))
    _tangent(r, lambda t: masked_select(t, mask), input)
    if out is not None:
        from .._dispatch import write_out

        return write_out(
            out,
            r,
            "masked_select",
            "masked_select(): self and result must have the same scalar type",
        )
    return r


def _masked_scatter_vjp(node, g):
    gi = g.masked_fill(node.mask, 0) if node.next_functions[0][0] is not None else None
    gs = None
    if node.next_functions[1][0] is not None:
        sel = masked_select(g, node.mask)
        n = node.numel - sel.shape[0]
        if n:
            from ..shape.copies import cat

            sel = cat([sel, sel.new_zeros(n)])
        gs = sel.reshape(node.src_shape)
    return gi, gs


_MaskedScatter = node_class("MaskedScatterBackward0", _masked_scatter_vjp)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    if mask._dtype is not D.bool:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {scalar_name(mask._dtype)}"
        )
    if source._dtype is not input._dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{scalar_name(input._dtype)} and {scalar_name(source._dtype)}"
        )
    shape = _broadcast(input, mask)
    xp = xp_for(input)
    m = xp.broadcast_to(mask._data, shape)
    n = int(m.sum())
    if source._data.size < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = xp.array(xp.broadcast_to(input._data, shape))
    out[m] = source._data.reshape(-1)[:n]
    r = _wrap(out, input._dtype, input._device)
    if _gm.enabled and (input._rg or source._rg):
        record(
            _MaskedScatter,
            (input, source),
            r,
            (),
            mask=mask,
            numel=source._data.size,
            src_shape=source._data.shape,
        )
    return _tangent(r, lambda a, b: masked_scatter(a, mask, b), input, source)


def masked_scatter_(self, mask, source):
    return inplace(self, lambda s, x: masked_scatter(s, mask, x), (source,), False)


def nonzero(input: Tensor, *, as_tuple: bool = False, out=None):
    if input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"nonzero_count_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    xp = xp_for(input)
    a = input._data
    if as_tuple:
        return tuple(
            _wrap(i.astype(np.int64), D.int64, input._device)
            for i in xp.nonzero(a.reshape(_shape(a)))
        )
    idx = xp.argwhere(a)
    n = idx.shape[0]
    idx = idx.reshape(n, a.ndim)
    # PyTorch's result is column-major: strides (1, rows)
    data = xp.lib.stride_tricks.as_strided(xp.empty(n * a.ndim, np.int64), idx.shape, (8, 8 * n))
    data[...] = idx
    r = _wrap(data, D.int64, input._device)
    if out is not None:
        from .._dispatch import write_out

        return write_out(
            out,
            r,
            "nonzero",
            "nonzero: Expected out tensor to have scalar type Long but got scalar type{out}",
        )
    return r


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


def _take_vjp(node, g):
    flat = index_put_acc(g.reshape(-1), (node.numel,), (node.index._data.reshape(-1),))
    return (flat.reshape(node.in_shape),)


_Take = node_class("TakeBackward0", _take_vjp)


@takes_out(
    "take",
    "take(): self and out expected to have the same dtype, but got self.dtype = {res} and out.dtype = {out}",
)
def take(input: Tensor, index: Tensor) -> Tensor:
    need_tensor("take", input)
    need_tensor("take", index, "index", 2)
    if index._dtype is not D.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {scalar_name(index._dtype)}"
        )
    if input._dtype in D._SHELL_UINTS and index._data.size:
        raise NotImplementedError(
            f"\"take_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    n = input._data.size
    idx = index._data
    if idx.size:
        hi, lo = int(idx.max()), int(idx.min())
        if hi >= n or lo < -n:
            raise IndexError(
                f"out of range: tried to access index {hi if hi >= n else lo} on a tensor of {n} elements."
            )
    idx = xp_for(input).where(idx < 0, idx + n, idx)
    r = _wrap(input._data.reshape(-1)[idx], input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(
            _Take,
            (input,),
            r,
            (),
            numel=n,
            in_shape=input._data.shape,
            index=_wrap(idx, D.int64, index._device),
        )
    return _tangent(r, lambda t: take(t, index), input)


@takes_out("gather", OUT_EXACT)
def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    need_tensor("take_along_dim", indices, "indices", 2)
    if indices._dtype is not D.int64:
        raise RuntimeError(
            f"torch.take_along_dim(): dtype of indices should be Long but got {scalar_name(indices._dtype)}"
        )
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input._data.ndim != indices._data.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{input._data.ndim} dimensions for input, and {indices._data.ndim} dimensions for indices"
        )
    d = _wrapdim(dim, input._data.ndim)
    sizes = list(input._data.shape)
    sizes[d] = indices._data.shape[d]
    check_broadcast(tuple(sizes), indices._data.shape)
    shape = list(np.broadcast_shapes(tuple(sizes), indices._data.shape))
    idx = indices.expand(shape)
    shape[d] = input._data.shape[d]
    return gather(input.expand(shape), d, idx)


# ---- unravel_index ---------------------------------------------------------------------------------------
def unravel_index(indices: Tensor, shape) -> tuple:
    """Coordinates of flat ``indices`` in ``shape`` (int64); out-of-range indices wrap, as in PyTorch."""
    _need_tensor("unravel_index", indices, "indices")
    if indices._dtype.category != D.INT or indices._dtype is D.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, Sequence):
        for s in shape:
            if not isinstance(s, (int, np.integer)):
                raise TypeError(
                    f"expected 'shape' sequence to only contain ints, but got {type(s)}"
                )
        shape = tuple(int(s) for s in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    xp = xp_for(indices)
    flat = indices._data.astype(np.int64)
    out, coef = [], 1
    for s in reversed(shape):
        # PyTorch: floor_divide by the trailing product, then the remainder (Python-style) by s.
        q = xp.floor_divide(flat, coef)
        out.append(xp.remainder(q, s) if s else xp.zeros_like(q))
        coef *= s
    return tuple(_wrap(o, D.int64, indices._device) for o in reversed(out))


# ---- nonzero_static, empty_permuted, get_device -------------------------------------------------------------
@takes_out(
    "nonzero_static",
    "nonzero_static: Expected out tensor to have scalar type Long but got scalar type{out}",
)
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` padded with ``fill_value`` (or truncated) to exactly ``size`` rows."""
    _need_tensor("nonzero_static", input)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    xp = xp_for(input)
    data = input._data
    idx = (
        xp.stack(xp.nonzero(data), axis=1)
        if data.ndim
        else xp.zeros((int(bool(data)), 0), np.int64)
    )
    out = xp.full((size, data.ndim), fill_value, dtype=np.int64)
    n = min(size, idx.shape[0])
    out[:n] = idx[:n]
    return _wrap(out, D.int64, input._device)


# ---- index_reduce ---------------------------------------------------------------------------------------------
def _index_reduce_checks(
    input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str
) -> int:
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    if index._dtype not in (D.int32, D.int64):
        raise RuntimeError(
            f"index_reduce_(): Expected dtype int32/int64 for index but got: {scalar_name(index._dtype)}"
        )
    if index.dim() > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{scalar_name(index._dtype)} and size: {list(index.shape)}"
        )
    d = _wrapdim(dim, input.dim())
    if source._dtype is not input._dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({scalar_name(input._dtype)}) and source ({scalar_name(source._dtype)}) must have "
            "the same scalar type"
        )
    n_src = source.shape[d] if source.dim() else 1
    if index.numel() != n_src:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): ({n_src}), "
            f"for dim: {d}"
        )
    rest = lambda t: [s for i, s in enumerate(t.shape) if i != d]
    if source.dim() != input.dim() or rest(source) != rest(input):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"{list(input.shape)} source.shape = {list(source.shape)}"
        )
    # PyTorch's kernel (past these shape checks, before the index range check)
    warn_once("index_reduce_beta", _INDEX_REDUCE_BETA, user_stacklevel() + 1)
    idx = np.asarray(index.cpu()._data)
    size = input.shape[d] if input.dim() else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError("index out of range in self")
    return d


_INDEX_REDUCE_BETA = (
    "index_reduce() is in beta and the API may change at any time. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)"
)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:  # fmt: skip
    """Rows ``index[i]`` of ``input`` along ``dim`` reduced ('prod', 'mean', 'amax', 'amin') with
    slice ``i`` of ``source``: ``scatter_reduce`` with the index spread over each slice."""
    from ...linalg.legacy import _no_forward_ad
    from ..shape.copy_variants import renamed
    from .scatter import scatter_reduce

    d = _index_reduce_checks(input, dim, index, source, reduce)
    _no_forward_ad("index_reduce", input, source)
    size = input.shape[d] if input.dim() else 1
    shape = [1] * source.dim()
    if shape:
        shape[d] = -1
    spread = index.to(D.int64).remainder(size).reshape(shape).expand(source.shape)
    r = scatter_reduce(input, d, spread, source, reduce, include_self=include_self)
    return renamed(input, r, "IndexReduceBackward0")


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:  # fmt: skip
    from .._dispatch import check_inplace, commit_inplace

    check_inplace(self, (source,))
    return commit_inplace(
        self, index_reduce(self, dim, index, source, reduce, include_self=include_self)
    )
