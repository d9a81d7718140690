"""Subscripts: ``x[index]`` and ``x[index] = value`` with PyTorch's semantics.

PyTorch reads an index in two parts, and so does this module:

1. the basic part (ints, slices, ``None``, ``...``, Python bools) is applied left to right as
   views -- select, slice, unsqueeze -- each recorded as its own node when autograd is on, so
   ``a[0:1, None, 1]`` gives SelectBackward0 <- UnsqueezeBackward0 <- SliceBackward0;
2. the advanced part (integer and bool tensors, lists, arrays) is then applied to that view in
   one step: a copy (IndexBackward0) for reads, ``index_put_`` for writes.

Ints never join the advanced part as they do in NumPy: ``x[0, :, [1, 2]]`` selects first, so
its result has shape ``[3, 2]`` for an ``x`` of shape ``[2, 3, 4]`` (NumPy gives ``(2, 3)``).
Bool masks become integer indices (their ``nonzero()``), as in PyTorch.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ... import _dtype as D
from ..._flags import user_stacklevel
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.scatter_at import add_at
from .._dispatch import _fw_state, check_inplace, record, scalar_name, xp_for
from ..shape.view_ops import alias, select, slice_dim, unsqueeze, unsqueeze_array, view
from ..shape.views import check_no_overlap, check_no_partial_overlap, make_view

_INT, _SLICE, _NONE, _ELLIPSIS, _BOOL, _ADV = range(6)

_SEQ_AS_TUPLE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
    "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
    "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result"
)
_ZERO_DIM_MSG = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
    "convert a 0-dim tensor to a number"
)
_BAD_INDEX_DTYPE = "tensors used as indices must be long, int, byte or bool tensors"
# The index tensors PyTorch takes ("long, int, byte or bool")
INDEX_DTYPES = (D.int64, D.int32, D.uint8, D.bool)


# ---- parsing --------------------------------------------------------------------------------------
def _as_tuple(index):
    """The index as a tuple, and whether the user wrote a tuple (or a sequence read as one)."""
    if type(index) is tuple:
        return index, True
    if isinstance(index, str):  # a sequence of sequences to PyTorch
        warnings.warn(_SEQ_AS_TUPLE_WARNING, UserWarning, stacklevel=4)
        return tuple(index), True
    if isinstance(index, list) and len(index) < 32:
        for i in index:
            if (
                isinstance(i, (Tensor, list, tuple, range, slice, np.ndarray))
                or i is None
                or i is Ellipsis
            ):
                # PyTorch still reads such a list as a tuple, with this warning.
                warnings.warn(_SEQ_AS_TUPLE_WARNING, UserWarning, stacklevel=4)
                return tuple(index), True
    return (index,), False


def _classify(item):
    """(kind, value) of one index item; advanced items become arrays."""
    if item is None:
        return _NONE, None
    if item is Ellipsis:
        return _ELLIPSIS, None
    if isinstance(item, bool):
        return _BOOL, item
    if isinstance(item, np.bool_):  # PyTorch's parser takes Python's bool only
        from ..._tensor_arguments import type_name

        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            f"indices (got {type_name(item)})"
        )
    if isinstance(item, (int, np.integer)):
        return _INT, int(item)
    if isinstance(item, slice):
        return _SLICE, item
    if isinstance(item, Tensor):
        if item._dtype is D.bool:
            return (_BOOL, bool(item._data)) if item._data.ndim == 0 else (_ADV, item._data)
        if item._dtype is D.uint8:
            warn_uint8_index()
            return _ADV, item._data.astype(bool)
        if item._dtype not in INDEX_DTYPES and (item._data.ndim or item._dtype.category != D.INT):
            raise IndexError(_BAD_INDEX_DTYPE)  # (a 0-d integer tensor of any type is a number)
        if item._data.ndim == 0:
            return _INT, int(item._data)
        return _ADV, item._data
    if isinstance(item, (list, tuple, range, np.ndarray)):  # a range reads like the list it spans
        arr = np.asarray(item if isinstance(item, np.ndarray) else _plain(item))
        if arr.dtype.kind == "b":
            return _ADV, arr
        if arr.size == 0:
            return _ADV, arr.astype(np.int64)
        if arr.dtype.kind not in "iu":
            raise IndexError(_BAD_INDEX_DTYPE)
        return _ADV, arr.astype(np.int64, copy=False)
    if isinstance(item, (float, complex, np.floating)):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            f"indices (got {type(item).__name__})"
        )
    raise TypeError(f"new(): invalid data type '{type(item).__name__}'")


def _plain(seq):
    return [
        _plain(i)
        if isinstance(i, (list, tuple, range))
        else (i.item() if isinstance(i, Tensor) else i)
        for i in seq
    ]


def _consumed(kind, value) -> int:
    if kind is _INT or kind is _SLICE:
        return 1
    if kind is _ADV:
        return value.ndim if value.dtype == bool else 1
    return 0


def _slice_bounds(s: slice, n: int):
    step = 1 if s.step is None else operator.index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start = None if s.start is None else operator.index(s.start)
    stop = None if s.stop is None else operator.index(s.stop)
    start, stop, step = slice(start, stop, step).indices(n)
    return start, max(stop, start), step


class _Parsed:
    """The basic part as views of ``self``, and the advanced indices left for the view."""

    __slots__ = ("adv", "masks", "view")

    def __init__(self, view, adv, masks):
        self.view, self.adv, self.masks = view, adv, masks


def _parse(self: Tensor, index, trace: bool, keep_full: bool = False) -> _Parsed:
    """Apply the basic part of ``index`` to ``self`` (recording nodes when ``trace``)."""
    items, is_tuple = _as_tuple(index)
    items = [_classify(i) for i in items]
    nd = self._data.ndim
    consumed = sum(_consumed(k, v) for k, v in items)
    if consumed > nd:
        if nd == 0 and not is_tuple and items[0][0] is _INT:
            raise IndexError(_ZERO_DIM_MSG)
        if nd == 0 and not is_tuple and items[0][0] is _SLICE:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    # A full slice is skipped, as PyTorch does, except when read alone (``a[:]`` records
    # SliceBackward0).
    keep_full = keep_full and not is_tuple
    shape = self._data.shape
    key, ops, adv, masks, new_axes = [], [], [], [], []
    dim = src = 0  # dim in the view being built / dim of self being consumed
    for pos, (kind, v) in enumerate(items):
        if kind is _INT:
            n = shape[src]
            if not -n <= v < n:  # PyTorch names the index's position in the subscript
                raise IndexError(f"index {v} is out of bounds for dimension {pos} with size {n}")
            v = v + n if v < 0 else v
            key.append(v)
            ops.append((select, dim, v))
            src += 1
        elif kind is _SLICE:
            n = shape[src]
            start, stop, step = _slice_bounds(v, n)
            key.append(slice(start, stop, step))
            if keep_full or not (start == 0 and stop == n and step == 1):
                ops.append((slice_dim, dim, start, stop, step))
            src += 1
            dim += 1
        elif kind is _NONE:
            new_axes.append(dim)
            ops.append((unsqueeze, dim))
            dim += 1
        elif kind is _ELLIPSIS:
            k = nd - consumed
            key.extend([slice(None)] * k)
            consumed = nd  # a second ``...`` expands to nothing
            src += k
            dim += k
        elif kind is _BOOL:
            new_axes.append(dim)
            ops.append((unsqueeze, dim))
            adv.append((dim, np.zeros(1 if v else 0, np.int64)))
            dim += 1
        else:
            k = v.ndim if v.dtype == bool else 1
            if v.dtype == bool:
                masks.append((dim, v))
            else:
                adv.append((dim, v))
            key.extend([slice(None)] * k)
            src += k
            dim += k
    if trace:
        t = self
        for op, *args in ops:
            t = op(t, *args)
        if t is self and not adv and not masks:
            t = None
    elif ops:
        if new_axes:  # a new axis' stride depends on what was applied before it
            data = self._data
            for op, d, *args in ops:
                if op is unsqueeze:
                    data = unsqueeze_array(data, d)
                elif op is select:
                    data = data[(slice(None),) * d + (args[0], Ellipsis)]
                else:
                    data = data[(slice(None),) * d + (slice(*args),)]
        else:
            data = self._data[tuple(key) + (Ellipsis,)]
        t = make_view(self, data)
    else:
        t = None
    return _Parsed(t, adv, masks)


def _advanced_key(v: Tensor, parsed: _Parsed):
    """The NumPy key (arrays and full slices) for the advanced part over view ``v``."""
    shape = v._data.shape
    arrays = dict(parsed.adv)
    for dim, m in parsed.masks:
        vshape = shape[dim : dim + m.ndim]
        if m.shape != vshape:
            for j, (a, b) in enumerate(zip(m.shape, vshape)):
                if a != b:
                    raise IndexError(
                        f"The shape of the mask [{', '.join(map(str, m.shape))}] at index {j} does not match the "
                        f"shape of the indexed tensor [{', '.join(map(str, shape))}] at index {dim + j}"
                    )
        for j, idx in enumerate(np.nonzero(m)):
            arrays[dim + j] = idx
    for k, dim in enumerate(sorted(arrays)):
        a, n = arrays[dim], shape[dim]
        if a.size:
            hi, lo = int(a.max()), int(a.min())
            if hi >= n or lo < -n:
                # PyTorch names the first bad index and numbers the dim among the advanced indices
                flat = xp_for(v).asarray(a).ravel()
                bad = int(flat[((flat >= n) | (flat < -n)).argmax()])
                raise IndexError(f"index {bad} is out of bounds for dimension {k} with size {n}")
    if len(arrays) > 1:
        shapes = [a.shape for _, a in sorted(arrays.items())]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError(
                "shape mismatch: indexing tensors could not be broadcast together with shapes "
                + ", ".join(str(list(s)) for s in shapes)
            ) from None
    last = max(arrays)
    xp = xp_for(v)
    return tuple(
        (arrays[d] if xp is np else xp.asarray(arrays[d])) if d in arrays else slice(None)
        for d in range(last + 1)
    )


# ---- reads -------------------------------------------------------------------------------------------
def _numpy_basic(index):
    """``index`` as a NumPy key when NumPy's basic indexing means the same as PyTorch's, else None.

    That holds for ints, slices with positive (or no) steps and one ``...``; ``None`` does not
    qualify (NumPy strides new axes differently), nor does a lone slice (SliceBackward0 vs alias).
    """
    if type(index) is not tuple:
        return None
    ellipsis = False
    for it in index:
        t = type(it)
        if t is int:
            continue
        if t is slice:
            step = it.step
            if step is not None and (type(step) is not int or step <= 0):
                return None
            if not (it.start is None or type(it.start) is int) or not (
                it.stop is None or type(it.stop) is int
            ):
                return None
        elif it is Ellipsis and not ellipsis:
            ellipsis = True
        else:
            return None
    return index if ellipsis else index + (Ellipsis,)  # ``...`` keeps a 0-d result an array


def _is_full(s: slice) -> bool:
    return s.start is None and s.stop is None and s.step is None


def getitem(self: Tensor, index) -> Tensor:
    trace = (self._rg and _gm.enabled) or (_fw_state.level and self._fw is not None)
    if type(index) is int and self._data.ndim:  # the common x[i]: a select
        n = self._data.shape[0]
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {n}")
        if trace:
            return select(self, 0, index)
        return make_view(self, self._data[index, ...])
    if trace and type(index) is tuple and len(index) == 2:  # x[:, t]: a loop over time steps
        full, i = index
        if type(i) is int and type(full) is slice and self._data.ndim > 1 and _is_full(full):
            n = self._data.shape[1]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension 1 with size {n}")
            return select(self, 1, i + n if i < 0 else i)
    if not trace:
        if type(index) is slice and (
            index.step is None or type(index.step) is int and index.step > 0
        ):
            if self._data.ndim:
                return make_view(self, self._data[index])
        else:
            key = _numpy_basic(index)
            if key is not None:
                try:
                    return make_view(self, self._data[key])
                except IndexError:
                    pass  # out of bounds / too many indices: PyTorch's message below
    p = _parse(self, index, trace, True)
    v = p.view
    if not p.adv and not p.masks:
        return v if v is not None else alias(self)
    if v is None:
        v = self
    return index_with_key(v, _advanced_key(v, p), _index_tensors(index))


def _index_tensors(index) -> tuple:
    """The tensors among ``index``'s items: IndexBackward0 saves them, so changing one in place
    before the backward raises PyTorch's version error instead of moving the gradient."""
    if isinstance(index, Tensor):
        return (index,) if index._data.ndim else ()
    if type(index) is tuple or type(index) is list:
        return tuple([i for i in index if isinstance(i, Tensor) and i._data.ndim])
    return ()


def _index_vjp(node, g):
    node.saved()  # PyTorch's node saves the indices: no second backward without retain_graph
    return (index_put_acc(g, node.in_shape, node.key),)


def _saved_index(x: Tensor, key) -> tuple:
    """An index array of ``key`` as the tensor the node saves (PyTorch's IndexBackward0 saves
    its indices; the array is held by the key anyway)."""
    for k in key if isinstance(key, tuple) else (key,):
        if hasattr(k, "shape") and not isinstance(k, np.generic):  # an array, not a NumPy scalar
            return (_wrap(k, D.from_numpy_dtype(k.dtype), x._device),)
    return ()


_Index = node_class("IndexBackward0", _index_vjp)


def index_with_key(x: Tensor, key, saved: tuple = ()) -> Tensor:
    """``x[key]`` for a NumPy advanced key (a copy; IndexBackward0); ``saved``: the index
    tensors the key was read from (else the node saves the key's first array)."""
    xp = xp_for(x)
    data = x._data[key]
    data = xp.ascontiguousarray(data) if data.size else xp.empty(data.shape, data.dtype)
    r = _wrap(data, x._dtype, x._device)
    if x._rg and _gm.enabled:
        saved = saved or _saved_index(x, key)
        record(_Index, (x,), r, saved, in_shape=x._data.shape, key=key)
    if _fw_state.level and x._fw is not None:
        r._fw = index_with_key(x._fw, key)
        _register(r)
    return r


_IndexPutAcc = node_class("IndexPutBackward0", lambda node, g: (index_with_key(g, node.key),))


def index_put_acc(g: Tensor, shape, key) -> Tensor:
    """Zeros of ``shape`` with ``g`` summed into ``[key]`` (the adjoint of ``x[key]``)."""
    xp = xp_for(g)
    out = xp.zeros(shape, g._data.dtype)
    add_at(xp, out, key, g._data)
    r = _wrap(out, g._dtype, g._device)
    if g._rg and _gm.enabled:
        record(_IndexPutAcc, (g,), r, (), key=key)
    return r


# ---- writes ------------------------------------------------------------------------------------------
def warn_uint8_index() -> None:
    """PyTorch's deprecation warning for a uint8 mask index, at the user's line."""
    warnings.warn(
        "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
        "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def setitem(self: Tensor, index, value) -> None:
    from ..creation.factories import _checked_fill
    from .index_ops import index_put_key_, refuse_uint8_fill

    if index.__class__ is Tensor or index.__class__ is tuple:
        refuse_uint8_fill(index if index.__class__ is tuple else (index,), value, self._data.shape)

    if not isinstance(value, Tensor):
        if (
            type(value) in (float, int)
            and self._dtype.category >= D.FLOAT
            and not (self._rg and _gm.enabled)
            and not _fw_state.level
        ):  # x[i] = 0.5: the commonest write, straight into the array
            key = _numpy_basic(index if type(index) is not int else (index,))
            if key is not None:
                try:
                    target = self._data[key]
                except IndexError:
                    target = None
                if target is not None:
                    check_inplace(self)
                    if 0 in target.strides:
                        check_no_overlap(_wrap(target, self._dtype, self._device))
                    # c10's checked conversion (a half type takes any float: 1e5 is inf)
                    value = _checked_fill(value, self._dtype, single=True)
                    target[...] = value
                    self._vc[0] += 1
                    return
        value = _value_tensor(self, value)
    if index is False:
        return
    grad = _gm.enabled and (self._rg or value._rg)
    trace = grad or bool(_fw_state.level)
    if not trace:
        key = _numpy_basic(index if type(index) is not int else (index,))
        if key is not None and _set_basic(self, key, value):
            return
    p = _parse(self, index, trace)
    target = self if p.view is None else p.view
    if (
        p.adv or p.masks
    ) and target._dtype in D._SHELL_UINTS:  # PyTorch has neither kernel for uint16/32/64
        kernel = "index_put" if p.adv else "masked_fill"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for 'UInt{target._dtype.itemsize * 8}'"
        )
    if not trace:
        check_inplace(target)
        if 0 in target._data.strides:
            check_no_overlap(target)
        _set_fast(target, p, value)
        return
    if p.adv or p.masks:
        key = _advanced_key(target, p)
        items = index if isinstance(index, tuple) else (index,)
        indices = tuple([t for t in items if isinstance(t, Tensor)])  # saved, as PyTorch's
        index_put_key_(target, key, _strip_leading_ones(value), indices=indices)
        return
    _copy_to(target, value)


def _value_tensor(self: Tensor, value) -> Tensor:
    from ..creation.factories import _checked_fill

    if isinstance(value, (bool, int, float, complex, np.generic)):
        value = _checked_fill(value, self._dtype, single=True)  # c10's checked conversion
        xp = xp_for(self)
        arr = (
            D.cast_array(xp.asarray(value), self._dtype.np)
            if self._dtype is not D.bool
            else xp.asarray(bool(value))
        )
        return _wrap(arr, self._dtype, self._device)
    t = type(value)
    name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
    raise TypeError(f"can't assign a {name} to a {self.type()}")


def _strip_leading_ones(value: Tensor) -> Tensor:
    shp = value._data.shape
    k = 0
    while k < len(shp) and shp[k] == 1:
        k += 1
    return view(value, shp[k:]) if k else value


def _copy_to(target: Tensor, value: Tensor) -> None:
    if target._data.shape == value._data.shape:
        target.copy_(value)
    elif value._data.ndim == 0:
        from .fill_copy import fill_

        fill_(target, value)
    else:  # PyTorch views the value without its leading 1s (even when there are none)
        shp = value._data.shape
        k = 0
        while k < len(shp) and shp[k] == 1:
            k += 1
        value = view(value, shp[k:])
        target.copy_(
            value if value._data.shape == target._data.shape else value.expand(target._data.shape)
        )


def _set_basic(self: Tensor, key, value: Tensor) -> bool:
    """``self[key] = value`` straight into the array when nothing can go wrong; False otherwise."""
    try:
        target = self._data[key]
    except IndexError:
        return False
    data = value._data
    if (
        value._device != self._device
        or data.ndim > target.ndim
        or (data.ndim and data.shape != target.shape)
    ):
        return False  # broadcasting, device copies and their errors: the general path
    check_inplace(self)
    if 0 in target.strides:
        check_no_overlap(_wrap(target, self._dtype, self._device))
    check_no_partial_overlap(target, data)
    if value._dtype is not self._dtype:
        from ..creation.factories import _cast

        data = _cast(data, value._dtype, self._dtype)
    target[...] = data
    self._vc[0] += 1
    return True


def _set_fast(target: Tensor, p: _Parsed, value: Tensor) -> None:
    """Assignment with nothing to record: straight into the array."""
    from ..creation.factories import _cast

    data = value._data
    if value._device != target._device:
        from ...backend import to_device

        data = to_device(data, target._device)
    if p.adv or p.masks:
        key = _advanced_key(target, p)
        data = _strip_leading_ones(value)._data if data.ndim else data
        shape = target._data[key].shape
        try:
            ok = np.broadcast_shapes(shape, data.shape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(data.shape)} cannot be broadcast to indexing result "
                f"of shape {list(shape)}"
            )
        if value._dtype is not target._dtype:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{scalar_name(target._dtype)} for the destination and {scalar_name(value._dtype)} for the source."
            )
        target._data[key] = data
    else:
        if data.ndim and data.shape != target._data.shape:
            stripped = _strip_leading_ones(value)
            stripped.expand(target._data.shape)  # raises PyTorch's error when it does not broadcast
            data = stripped._data
        check_no_partial_overlap(target._data, data)
        if value._dtype is not target._dtype:
            data = _cast(data, value._dtype, target._dtype)
        target._data[...] = data
    target._vc[0] += 1
