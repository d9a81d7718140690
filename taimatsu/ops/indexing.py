"""Indexing: ``__getitem__``/``__setitem__`` (basic indexing gives views, advanced indexing
copies), gather/scatter, index_select/index_add/index_put, masked_select, nonzero, take."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import _wrapdim
from ..autograd.grad_mode import state as _gm
from ._dispatch import (
    Tensor,
    _fw_state,
    _wrap,
    check_inplace,
    inplace,
    node_class,
    record,
    scalar_name,
    xp_for,
)
from .shape import make_view, select, slice_dim, unsqueeze


# ---- parsing an index ---------------------------------------------------------------------------
def _is_basic(item) -> bool:
    return item is None or item is Ellipsis or isinstance(item, (slice, int, np.integer)) and not isinstance(item, bool)


def _normalize(index) -> tuple:
    if not isinstance(index, tuple):
        index = (index,)
    return index


def _to_np_index(item, device):
    """Turn tensor/list indices into arrays NumPy understands."""
    if isinstance(item, Tensor):
        a = item._data
        if item._dtype is D.uint8:
            import warnings

            warnings.warn(
                "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                UserWarning,
                stacklevel=4,
            )
            return a.astype(bool)
        if item._dtype.category > D.INT:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return a
    if isinstance(item, (list, tuple)):
        arr = np.asarray([i.item() if isinstance(i, Tensor) else i for i in _flat_list(item)] if _has_tensor(item) else item)
        if arr.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if arr.size == 0:
            arr = arr.astype(np.int64)
        return arr
    if isinstance(item, np.ndarray):
        return item
    if isinstance(item, bool):
        return item
    if isinstance(item, (float,)):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got float)"
        )
    return item


def _has_tensor(seq):
    return any(isinstance(i, Tensor) for i in seq)


def _flat_list(seq):
    return [i for i in seq]


def _expand_ellipsis(index, ndim):
    """Replace ``...`` with full slices and count the dims each item consumes."""
    consumed = 0
    for it in index:
        if it is None or it is Ellipsis or isinstance(it, bool):
            continue
        if isinstance(it, np.ndarray) and it.dtype == bool:
            consumed += it.ndim
        else:
            consumed += 1
    if consumed > ndim:
        if ndim == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                "convert a 0-dim tensor to a number"
            )
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = []
    seen = False
    for it in index:
        if it is Ellipsis:
            if seen:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen = True
            out.extend([slice(None)] * (ndim - consumed))
        else:
            out.append(it)
    return out


def _np_error(e: IndexError) -> IndexError:
    msg = str(e).replace("axis", "dimension")
    if msg.startswith("too many indices"):
        return IndexError(msg)
    return IndexError(msg)


# ---- __getitem__ -----------------------------------------------------------------------------------------
def getitem(self: Tensor, index) -> Tensor:
    index = _normalize(index)
    if all(_is_basic(i) for i in index):
        return _basic_get(self, index)
    return _advanced_get(self, index)


def _basic_get(self: Tensor, index) -> Tensor:
    items = _expand_ellipsis(index, self._data.ndim)
    recording = self._rg and _gm.enabled or (_fw_state.level and self._fw is not None)
    if not recording:
        try:
            data = self._data[tuple(items)]
        except IndexError as e:
            raise _np_error(e) from None
        if not isinstance(data, type(self._data)):
            data = self._data[tuple(items) + (Ellipsis,)]
        return make_view(self, data)
    # With autograd: one view op per item, as PyTorch records (SelectBackward0, SliceBackward0, ...).
    t, dim = self, 0
    only = len(items) == 1
    for it in items:
        if it is None:
            t = unsqueeze(t, dim)
            dim += 1
        elif isinstance(it, slice):
            n = t._data.shape[dim]
            start, stop, step = it.indices(n)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if not (start == 0 and stop >= n and step == 1) or only:
                t = slice_dim(t, dim, start, max(stop, start), step)
            dim += 1
        else:
            n = t._data.shape[dim]
            i = int(it)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {n}")
            t = select(t, dim, i)
    if t is self:
        from .shape import alias

        t = alias(self)
    return t


def _index_vjp(node, g):
    return (index_put_acc(g, node.in_shape, node.key),)


_Index = node_class("IndexBackward0", _index_vjp)


def _advanced_get(self: Tensor, index) -> Tensor:
    key = [_to_np_index(i, self._device) for i in index]
    key = tuple(_expand_ellipsis(key, self._data.ndim))
    _check_bounds(self, key)
    try:
        data = self._data[key]
    except IndexError as e:
        raise _np_error(e) from None
    r = _wrap(data, self._dtype, self._device)
    if self._rg and _gm.enabled:
        record(_Index, (self,), r, (), in_shape=self._data.shape, key=key)
    if _fw_state.level and self._fw is not None:
        from ..autograd.forward_ad import _register

        r._fw = getitem(self._fw, index)
        _register(r)
    return r


def _check_bounds(self, key):
    dim = 0
    for k in key:
        if k is None:
            continue
        if isinstance(k, np.ndarray) and k.dtype != bool:
            n = self._data.shape[dim]
            if k.size and (k.max() >= n or k.min() < -n):
                bad = int(k.max()) if k.max() >= n else int(k.min())
                raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {n}")
            dim += 1
        elif isinstance(k, np.ndarray) and k.dtype == bool:
            shp = self._data.shape[dim : dim + k.ndim]
            if k.shape != shp:
                for j, (a, b) in enumerate(zip(k.shape, shp)):
                    if a != b:
                        raise IndexError(
                            f"The shape of the mask [{', '.join(map(str, k.shape))}] at index {j} does not match the "
                            f"shape of the indexed tensor [{', '.join(map(str, self._data.shape))}] at index {dim + j}"
                        )
            dim += k.ndim
        elif isinstance(k, bool):
            continue
        else:
            dim += 1


def _index_put_acc_vjp(node, g):
    return (getitem(g, _key_as_index(node.key)),)


def _key_as_index(key):
    return tuple(_wrap(k, D.from_numpy_dtype(k.dtype)) if isinstance(k, np.ndarray) else k for k in key)


_IndexPutAcc = node_class("IndexBackwardBackward0", _index_put_acc_vjp)


def index_put_acc(g: Tensor, shape, key) -> Tensor:
    """Zeros of ``shape`` with ``g`` summed into ``[key]`` (adjoint of advanced indexing)."""
    xp = xp_for(g)
    out = xp.zeros(shape, g._data.dtype)
    xp.add.at(out, key, g._data)
    r = _wrap(out, g._dtype, g._device)
    if g._rg and _gm.enabled:
        record(_IndexPutAcc, (g,), r, (), key=key)
    return r


# ---- __setitem__ ------------------------------------------------------------------------------------------
def setitem(self: Tensor, index, value) -> None:
    index = _normalize(index)
    if isinstance(value, (list, tuple)):
        from .creation import tensor

        value = tensor(value, dtype=self._dtype, device=self._device)
    if isinstance(value, Tensor) and value._dtype is not self._dtype and not (value._rg and _gm.enabled):
        value = value.to(self._dtype)
    check_inplace(self)
    recording = _gm.enabled and (self._rg or (isinstance(value, Tensor) and value._rg))
    if all(_is_basic(i) for i in index):
        if not recording and not _fw_state.level:
            items = tuple(_expand_ellipsis(index, self._data.ndim))
            v = value._data if isinstance(value, Tensor) else value
            try:
                target = self._data[items]
                _assign(self, items, target, v)
            except IndexError as e:
                raise _np_error(e) from None
            self._vc[0] += 1
            return
        view = _basic_get(self, index)
        view.copy_(value if isinstance(value, Tensor) else _scalar_like(self, value))
        return
    key = tuple(_expand_ellipsis([_to_np_index(i, self._device) for i in index], self._data.ndim))
    _check_bounds(self, key)
    index_put_(self, key, value if isinstance(value, Tensor) else _scalar_like(self, value), _raw_key=True)


def _assign(self, items, target, v):
    if isinstance(v, np.ndarray) and np.ndim(target) < v.ndim:
        v = _squeeze_leading(v, np.ndim(target))
    if isinstance(v, np.ndarray):
        try:
            np.broadcast_shapes(np.shape(target), v.shape)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor ({np.shape(target)[-1] if np.ndim(target) else 1}) must match the "
                f"existing size ({v.shape[-1]}) at non-singleton dimension {np.ndim(target) - 1}.  Target sizes: "
                f"{list(np.shape(target))}.  Tensor sizes: {list(v.shape)}"
            ) from None
    self._data[items] = v


def _squeeze_leading(v, nd):
    while v.ndim > nd and v.shape[0] == 1:
        v = v[0]
    return v


def _scalar_like(self, value):
    from .creation import full

    return full((), value, dtype=self._dtype, device=self._device)


def _index_put_vjp(node, g):
    key = node.key
    gi = None
    if node.next_functions[0][0] is not None:
        gi = g.clone()
        gi._data[key] = 0
        if node.accumulate:
            gi = g
    gv = None
    if node.next_functions[1][0] is not None:
        gv = getitem(g, _key_as_index(key))
    return gi, gv


_IndexPut = node_class("IndexPutBackward0", _index_put_vjp)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False, *, _raw_key=False) -> Tensor:
    key = indices if _raw_key else tuple(_to_np_index(i, input._device) for i in indices)
    xp = xp_for(input)
    out = input._data.copy()
    v = values._data.astype(out.dtype, copy=False)
    try:
        if accumulate:
            xp.add.at(out, key, v)
        else:
            out[key] = v
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to indexing result of "
            f"shape {list(np.shape(input._data[key]))}"
        ) from None
    r = _wrap(out, input._dtype, input._device)
    if _gm.enabled and (input._rg or values._rg):
        record(_IndexPut, (input, values), r, (), key=key, accumulate=accumulate)
    return r


def index_put_(self: Tensor, indices, values: Tensor, accumulate: bool = False, *, _raw_key=False) -> Tensor:
    key = indices if _raw_key else tuple(_to_np_index(i, self._device) for i in indices)
    if not (_gm.enabled and (self._rg or values._rg)) and not _fw_state.level:
        check_inplace(self)
        xp = xp_for(self)
        v = values._data.astype(self._data.dtype, copy=False)
        try:
            if accumulate:
                xp.add.at(self._data, key, v)
            else:
                self._data[key] = v
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to indexing result "
                f"of shape {list(np.shape(self._data[key]))}"
            ) from None
        self._vc[0] += 1
        return self
    return inplace(self, lambda s, v: index_put(s, key, v, accumulate, _raw_key=True), (values,), False)


# ---- gather / scatter ---------------------------------------------------------------------------------------
def _check_index(index, name):
    if not isinstance(index, Tensor) or index._dtype is not D.int64:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")


def _narrow_to(a, shape, skip):
    """``a`` restricted to the leading ``shape`` in every dim except ``skip``."""
    key = tuple(slice(None) if d == skip else slice(0, s) for d, s in enumerate(shape))
    return a[key]


def _gather_vjp(node, g):
    return (scatter_add(g.new_zeros(node.in_shape), node.dim, node.index, g),)


_Gather = node_class("GatherBackward0", _gather_vjp)


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None) -> Tensor:
    _check_index(index, "gather")
    nd = input._data.ndim
    d = _wrapdim(dim, nd)
    if index._data.ndim != nd and not (nd == 0 and index._data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    xp = xp_for(input)
    idx = index._data
    if idx.size and (idx.max() >= max(input._data.shape[d] if nd else 1, 1) or idx.min() < 0):
        bad = int(idx.max()) if idx.max() >= (input._data.shape[d] if nd else 1) else int(idx.min())
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {input._data.shape[d] if nd else 1}")
    src = _narrow_to(input._data, idx.shape, d) if nd else input._data.reshape(1)
    data = xp.take_along_axis(src, idx if nd else idx.reshape(-1), axis=d if nd else 0)
    r = _wrap(data.reshape(idx.shape), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Gather, (input,), r, (), in_shape=input._data.shape, dim=d, index=index)
    if _fw_state.level and input._fw is not None:
        from ..autograd.forward_ad import _register

        r._fw = gather(input._fw, d, index)
        _register(r)
    return r


def _full_index(xp, idx, d):
    grids = list(xp.indices(idx.shape, sparse=True))
    grids[d] = idx
    return tuple(grids)


def _scatter_vjp(node, g):
    gi = g.scatter(node.dim, node.index, 0) if node.next_functions[0][0] is not None else None
    gs = g.gather(node.dim, node.index) if len(node.next_functions) > 1 and node.next_functions[1][0] is not None else None
    return (gi, gs) if len(node.next_functions) > 1 else (gi,)


_Scatter = node_class("ScatterBackward0", _scatter_vjp)
_ScatterValue = node_class("ScatterBackward1", _scatter_vjp)


def _scatter_reduce_arrays(xp, out, key, src, reduce):
    if reduce is None:
        out[key] = src
    elif reduce in ("add", "sum"):
        xp.add.at(out, key, src)
    elif reduce in ("multiply", "prod"):
        xp.multiply.at(out, key, src)
    elif reduce == "amax":
        xp.maximum.at(out, key, src)
    elif reduce == "amin":
        xp.minimum.at(out, key, src)
    else:
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    _check_index(index, "scatter")
    if src is None:
        src = value
    nd = input._data.ndim
    d = _wrapdim(dim, nd)
    xp = xp_for(input)
    out = input._data.copy()
    idx = index._data
    if idx.size and (idx.max() >= input._data.shape[d] or idx.min() < 0):
        bad = int(idx.max()) if idx.max() >= input._data.shape[d] else int(idx.min())
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {input._data.shape[d]}")
    key = _full_index(xp, idx, d)
    is_t = isinstance(src, Tensor)
    vals = _narrow_to(src._data, idx.shape, -1).astype(out.dtype, copy=False) if is_t else xp.asarray(src, out.dtype)
    if is_t:
        vals = vals[tuple(slice(0, s) for s in idx.shape)]
    _scatter_reduce_arrays(xp, out, key, vals, reduce)
    r = _wrap(out, input._dtype, input._device)
    if _gm.enabled and (input._rg or (is_t and src._rg)):
        if is_t:
            record(_Scatter, (input, src), r, (), dim=d, index=index)
        else:
            record(_ScatterValue, (input,), r, (), dim=d, index=index)
    return r


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    return inplace(self, lambda s: scatter(s, dim, index, src, value=value, reduce=reduce), (), False)


def _scatter_add_vjp(node, g):
    return g, (g.gather(node.dim, node.index) if node.next_functions[1][0] is not None else None)


_ScatterAdd = node_class("ScatterAddBackward0", _scatter_add_vjp)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    _check_index(index, "scatter_add")
    d = _wrapdim(dim, input._data.ndim)
    xp = xp_for(input)
    out = input._data.copy()
    idx = index._data
    key = _full_index(xp, idx, d)
    xp.add.at(out, key, src._data[tuple(slice(0, s) for s in idx.shape)].astype(out.dtype, copy=False))
    r = _wrap(out, input._dtype, input._device)
    if _gm.enabled and (input._rg or src._rg):
        record(_ScatterAdd, (input, src), r, (), dim=d, index=index)
    return r


def scatter_add_(self, dim, index, src):
    return inplace(self, lambda s, x: scatter_add(s, dim, index, x), (src,), False)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    if reduce == "mean":
        total = scatter_add(input if include_self else input.scatter(dim, index, 0), dim, index, src)
        count = scatter_add(input.new_ones(input.shape) if include_self else input.new_zeros(input.shape), dim, index, src.new_ones(src.shape))
        return total / count.clamp(min=1)
    base = input if include_self else input.scatter(dim, index, src.gather(dim, index) if False else _identity(reduce, input))
    return scatter(base, dim, index, src, reduce=reduce)


def _identity(reduce, input):
    return {"sum": 0, "prod": 1, "amax": float("-inf"), "amin": float("inf")}[reduce]


# ---- index_select / index_add / index_fill / index_copy -------------------------------------------------------
def _index_select_vjp(node, g):
    return (index_add(g.new_zeros(node.in_shape), node.dim, node.index, g),)


_IndexSelect = node_class("IndexSelectBackward0", _index_select_vjp)


def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    if index._dtype not in (D.int64, D.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    nd = input._data.ndim
    d = _wrapdim(dim, nd)
    xp = xp_for(input)
    idx = index._data.reshape(-1)
    n = input._data.shape[d] if nd else 1
    if idx.size and (idx.max() >= n or idx.min() < 0):
        raise IndexError("index out of range in self")
    data = xp.take(input._data, idx, axis=d) if nd else input._data.reshape(1)[idx].reshape(index._data.shape)
    r = _wrap(data, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_IndexSelect, (input,), r, (), in_shape=input._data.shape, dim=d, index=index)
    return r


def _index_add_vjp(node, g):
    return g, (g.index_select(node.dim, node.index) * node.alpha if node.next_functions[1][0] is not None else None)


_IndexAdd = node_class("IndexAddBackward0", _index_add_vjp)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    xp = xp_for(input)
    out = input._data.copy()
    src = source._data if alpha == 1 else source._data * alpha
    key = (slice(None),) * d + (index._data.reshape(-1),)
    xp.add.at(out, key, src.astype(out.dtype, copy=False))
    r = _wrap(out, input._dtype, input._device)
    if _gm.enabled and (input._rg or source._rg):
        record(_IndexAdd, (input, source), r, (), dim=d, index=index, alpha=alpha)
    return r


def index_add_(self, dim, index, source, *, alpha=1):
    return inplace(self, lambda s, x: index_add(s, dim, index, x, alpha=alpha), (source,), False)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    key = (slice(None),) * d + (index._data.reshape(-1),)
    r = input.clone()

    mask = _wrap(xp_for(input).zeros(input._data.shape, bool), D.bool, input._device)
    mask._data[key] = True
    del r
    from .pointwise import masked_fill

    return masked_fill(input, mask, value)


def index_fill_(self, dim, index, value):
    return inplace(self, lambda s: index_fill(s, dim, index, value), (), False)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    key = (slice(None),) * d + (index._data.reshape(-1),)
    return index_put(input, key, source, _raw_key=True)


def index_copy_(self, dim, index, source):
    return inplace(self, lambda s, x: index_copy(s, dim, index, x), (source,), False)


# ---- masks / nonzero / take -----------------------------------------------------------------------------------
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    if mask._dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    x = input.expand(shape) if input._data.shape != shape else input
    m = mask._data if mask._data.shape == shape else np.broadcast_to(mask._data, shape)
    return _advanced_get(x, (_wrap(np.ascontiguousarray(m), D.bool, mask._device),))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    m = np.broadcast_to(mask._data, shape)
    n = int(m.sum())
    if source.numel() < n:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    vals = source.reshape(-1)[:n]
    base = input.expand(shape) if input._data.shape != shape else input
    return index_put(base.clone() if base is input else base.contiguous(), (np.ascontiguousarray(m),), vals, _raw_key=True)


def masked_scatter_(self, mask, source):
    return inplace(self, lambda s, x: masked_scatter(s, mask, x), (source,), False)


def nonzero(input: Tensor, *, as_tuple: bool = False, out=None):
    xp = xp_for(input)
    if as_tuple:
        if input._data.ndim == 0:
            return (_wrap(xp.arange(int(bool(input._data))), D.int64, input._device),)
        return tuple(_wrap(i.astype(np.int64), D.int64, input._device) for i in xp.nonzero(input._data))
    return _wrap(xp.argwhere(input._data).astype(np.int64), D.int64, input._device)


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


def take(input: Tensor, index: Tensor) -> Tensor:
    flat = input.reshape(-1)
    n = flat.shape[0]
    idx = index._data
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = int(idx.max()) if idx.max() >= n else int(idx.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return _advanced_get(flat, (_wrap(np.where(idx < 0, idx + n, idx), D.int64, index._device),))


def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    if dim is None:
        return take(input, indices.reshape(-1))
    shape = list(np.broadcast_shapes(input.shape[:dim] + (1,) + input.shape[dim + 1 :] if dim >= 0 else input.shape, indices.shape))
    del shape
    return gather(input, dim, indices)


def _copy_vjp(node, g):
    gs = g if node.next_functions[1][0] is not None else None
    return (g.new_zeros(()).expand(g.shape) if node.next_functions[0][0] is not None else None), gs


_Copy = node_class("CopyBackwards", _copy_vjp)


def copy(self: Tensor, src) -> Tensor:
    """The functional form of ``copy_``: ``src`` broadcast to ``self``'s shape and dtype."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    xp = xp_for(self)
    data = src._data
    if src._device != self._device:
        from ..backend import to_device

        data = to_device(data, self._device)
    try:
        shape = np.broadcast_shapes(self._data.shape, data.shape)
    except ValueError:
        shape = None
    if shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(shape) if shape else list(data.shape)}"
        )
    out = xp.empty(self._data.shape, self._dtype.np)
    from .creation import _cast

    out[...] = _cast(data, src._dtype, self._dtype) if src._dtype is not self._dtype else data
    r = _wrap(out, self._dtype, self._device)
    if _gm.enabled and (self._rg or src._rg):
        record(_Copy, (self, src), r, ())
    if _fw_state.level and src._fw is not None:
        from ..autograd.forward_ad import _register

        r._fw = src._fw.expand(self.shape).to(self._dtype)
        _register(r)
    return r


def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    if isinstance(src, Tensor) and not (_gm.enabled and (self._rg or src._rg)) and not _fw_state.level:
        check_inplace(self)
        data = src._data
        if src._device != self._device:
            from ..backend import to_device

            data = to_device(data, self._device)
        try:
            shape = np.broadcast_shapes(self._data.shape, data.shape)
        except ValueError:
            shape = None
        if shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(shape) if shape else list(data.shape)}"
            )
        from .creation import _cast

        self._data[...] = _cast(data, src._dtype, self._dtype) if src._dtype is not self._dtype else data
        self._vc[0] += 1
        return self
    return inplace(self, copy, (src,), False)


def scalar_name_of(t):
    return scalar_name(t._dtype)
