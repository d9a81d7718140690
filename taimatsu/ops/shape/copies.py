"""Shape ops that copy: clone, contiguous, cat/stack (and the h/v/d/column stacks), atleast_*d,
repeat/tile, flip, roll, tril/triu. Each records its own node (CloneBackward0, CatBackward0,
RepeatBackward0, ...) with a VJP in Tensor ops."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._autocast import PROMOTE, cast_policy
from ..._layout import (
    channels_last_order,
    contiguous_format,
    preserve_format,
    preserved_copy,
    preserved_strides,
    relayout,
    restrided,
)
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ..._tensor_arguments import type_name
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import (
    OUT_EXACT,
    _fw_state,
    check_devices,
    check_same_device,
    record,
    write_out,
    xp_for,
)
from ..arg_types import as_int, int_or_ints, integer
from .diagonal import _tangent

# ---- copies: clone / contiguous / cat / stack / repeat / flip ---------------------------------------------
_Clone = node_class("CloneBackward0", lambda node, g: (g,))


def clone(input: Tensor, *, memory_format=preserve_format) -> Tensor:
    xp = xp_for(input)
    cl = channels_last_order(memory_format, input._data.ndim)
    if cl is not None:
        data = relayout(xp, input._data, cl)
    elif memory_format is contiguous_format:
        data = xp.array(input._data, order="C", copy=True)
    else:
        data = preserved_copy(xp, input._data)
    r = _wrap(data, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Clone, (input,), r)
    if _fw_state.level and input._fw is not None:
        r._fw = input._fw.clone()
        _register(r)
    return r


def contiguous(input: Tensor, memory_format=contiguous_format) -> Tensor:
    channels_last_order(memory_format, input._data.ndim)  # PyTorch's rank error
    if input.is_contiguous(memory_format=memory_format):
        return input
    return clone(input, memory_format=memory_format)


def _cat_vjp(node, g):
    return tuple(_split.split(g, node.sizes, node.dim))


_Cat = node_class("CatBackward0", _cat_vjp)


@cast_policy(PROMOTE)
def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    tensors = _sequence("cat", tensors)  # the parser checks the tensors first
    if dim.__class__ is not int:
        integer("cat", "dim", 2, dim)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    if out is not None:  # any input sharing out's memory, even all of it, is refused
        from .views import check_no_partial_overlap

        for t in tensors:
            check_no_partial_overlap(out._data, t._data, same_ok=False)
    # Legacy: 1-d empty tensors are skipped.
    live = [t for t in tensors if not _legacy_empty(t)] or tensors[:1]
    ref = live[0]
    nd = ref._data.ndim
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrapdim(dim, nd)
    for i, t in enumerate(tensors):
        if _legacy_empty(t) and not any(t is x for x in live):
            continue
        if t._data.ndim != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {t._data.ndim}"
            )
        for k in range(nd):
            if k != d and t._data.shape[k] != ref._data.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref._data.shape[k]} but got "
                    f"size {t._data.shape[k]} for tensor number {i} in the list."
                )
        check_same_device(ref, t)
    from .._dispatch import result_dtype

    # The skipped 1-d empty tensors still take part in type promotion, as in PyTorch.
    dt = result_dtype(*tensors) if any(t._dtype is not ref._dtype for t in tensors) else ref._dtype
    if any(t._data.ndim == 0 for t in live):
        dt = ref._dtype
    xp = xp_for(ref)
    r = _wrap(
        xp.concatenate([t._data.astype(dt.np, copy=False) for t in live], axis=d), dt, ref._device
    )
    if _gm.enabled and any(t._rg for t in live):
        record(_Cat, live, r, (), sizes=[t._data.shape[d] for t in live], dim=d)
    if _fw_state.level and any(t._fw is not None for t in live):
        r._fw = cat([t._fw if t._fw is not None else t.detach() * 0 for t in live], d)
        _register(r)
    if out is not None:
        from .._dispatch import write_out

        return write_out(out, r, "cat", exc=TypeError, cast_msg=_CAT_CAST)
    return r


concat = concatenate = cat


def _legacy_empty(t: Tensor) -> bool:
    """1-d empty tensors are skipped by cat (a legacy PyTorch rule)."""
    return t._data.ndim == 1 and t._data.shape[0] == 0


def _stack_vjp(node, g):
    return tuple(_split.unbind(g, node.dim))


_Stack = node_class("StackBackward0", _stack_vjp)


@cast_policy(PROMOTE, ("cpu",))
def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    tensors = _sequence("stack", tensors)  # the parser checks the tensors first
    if dim.__class__ is not int:
        integer("stack", "dim", 2, dim)
    check_devices(*tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    ref = tensors[0]
    d = _wrapdim(dim, ref._data.ndim + 1)  # PyTorch checks the dim before the sizes
    for i, t in enumerate(tensors):
        if t._data.shape != ref._data.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref.shape)} at entry 0 and "
                f"{list(t.shape)} at entry {i}"
            )
    from .._dispatch import result_dtype

    dt = result_dtype(*tensors)
    xp = xp_for(ref)
    r = _wrap(
        xp.stack([t._data.astype(dt.np, copy=False) for t in tensors], axis=d), dt, ref._device
    )
    if _gm.enabled and any(t._rg for t in tensors):
        record(_Stack, tensors, r, (), dim=d)
    if _fw_state.level and any(t._fw is not None for t in tensors):
        r._fw = stack([t._fw if t._fw is not None else t.detach() * 0 for t in tensors], d)
        _register(r)
    if out is not None:
        from .._dispatch import write_out

        return write_out(out, r, "stack", exc=TypeError, cast_msg=_CAT_CAST)
    return r


_CAT_CAST = "torch.cat(): input types can't be cast to the desired output type {out}"


def _sequence(name: str, tensors) -> list:
    """The tensors of a TensorList argument; a Tensor there is PyTorch's TypeError (iterating
    over it would take its rows for the list)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        shown = "Tensor" if isinstance(tensors, Tensor) else type_name(tensors)
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {shown}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    return list(tensors)


def hstack(tensors, *, out=None):
    tensors = [atleast_1d(t) for t in _sequence("hstack", tensors)]
    return cat(tensors, 0 if tensors[0].dim() == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    return cat([atleast_2d(t) for t in _sequence("vstack", tensors)], 0, out=out)


def row_stack(tensors, *, out=None):
    return cat([atleast_2d(t) for t in _sequence("row_stack", tensors)], 0, out=out)


def dstack(tensors, *, out=None):
    return cat([atleast_3d(t) for t in _sequence("dstack", tensors)], 2, out=out)


def column_stack(tensors, *, out=None):
    tensors = _sequence("column_stack", tensors)
    return hstack([t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors], out=out)


def _atleast(fn, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(fn(t) for t in tensors[0])
    if len(tensors) == 1:
        return fn(tensors[0])
    return tuple(fn(t) for t in tensors)


def _atleast_1d(t):
    return _sh.reshape(t, (1,)) if t.dim() == 0 else t


def _atleast_2d(t):
    nd = t.dim()
    return _sh.reshape(t, (1, 1)) if nd == 0 else (_sh.unsqueeze(t, 0) if nd == 1 else t)


def _atleast_3d(t):
    nd = t.dim()
    if nd == 0:
        return _sh.reshape(t, (1, 1, 1))
    if nd == 1:
        return _sh.unsqueeze(_sh.unsqueeze(t, 0), -1)
    return _sh.unsqueeze(t, -1) if nd == 2 else t


def atleast_1d(*tensors):
    return _atleast(_atleast_1d, tensors)


def atleast_2d(*tensors):
    return _atleast(_atleast_2d, tensors)


def atleast_3d(*tensors):
    return _atleast(_atleast_3d, tensors)


def _repeat_vjp(node, g):
    # Split each dim n*s into (s, n) and sum over the repeats.
    inter, dims = [], []
    for i, (s, n) in enumerate(zip(node.sizes, node.padded)):
        inter += [s, n]
        dims.append(2 * i)
    return (g.reshape(inter).sum(dims).reshape(node.in_shape),)


_Repeat = node_class("RepeatBackward0", _repeat_vjp)


def repeat(input: Tensor, *sizes) -> Tensor:
    sizes = _sh._dims_arg(sizes, "repeat", "repeats")
    nd = input._data.ndim
    if len(sizes) < nd:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    padded = (1,) * (len(sizes) - nd) + input._data.shape
    out_shape = [s * n for s, n in zip(sizes, padded)]
    for s in out_shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out_shape}")
    xp = xp_for(input)
    r = _wrap(
        xp.ascontiguousarray(xp.tile(input._data.reshape(padded), sizes)),
        input._dtype,
        input._device,
    )
    if input._rg and _gm.enabled:
        record(_Repeat, (input,), r, (), sizes=sizes, padded=padded, in_shape=input._data.shape)
    if _fw_state.level and input._fw is not None:
        r._fw = repeat(input._fw, sizes)
        _register(r)
    return r


def tile(input: Tensor, dims) -> Tensor:
    dims = _sh._dims_arg((dims,), "tile", "dims")
    if len(dims) < input._data.ndim:
        dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


_Flip = node_class("FlipBackward0", lambda node, g: (g.flip(node.dims),))


def _unique_dims(dims, nd):
    out = []
    for d in dims:
        d = _wrapdim(d, nd)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out)


def flip(input: Tensor, *dims, **kw) -> Tensor:
    if kw or not dims:  # flip(x, dims=(0,)), PyTorch's usual spelling; flip(x) raises
        from ..creation.factories import NO_SIZE, size_keyword

        given = kw.pop("dims", NO_SIZE)
        if kw:
            raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kw))}'")
        dims = size_keyword("flip", dims, given, arg="dims")
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    nd = input._data.ndim
    if input._dtype.name in ("uint16", "uint32", "uint64"):  # PyTorch has no flip kernel for these
        raise NotImplementedError(
            f"\"flip_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    dims = _unique_dims(dims, nd)
    if not nd:
        dims = ()  # a 0-d tensor's dim 0 (or -1) flips nothing
    xp = xp_for(input)
    a = input._data
    # in the input's layout, as PyTorch allocates it (preserve_format)
    if dims:
        data = restrided(xp, xp.ascontiguousarray(xp.flip(a, dims)), preserved_strides(a))
    else:
        data = preserved_copy(xp, a)
    r = _wrap(data, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Flip, (input,), r, (), dims=dims)
    if _fw_state.level and input._fw is not None:
        r._fw = flip(input._fw, dims)
        _register(r)
    return r


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


_Roll = node_class(
    "RollBackward0", lambda node, g: (roll(g, tuple(-s for s in node.shifts), node.dims),)
)


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    shifts = int_or_ints("roll", "shifts", 2, shifts)
    if dims is not None:
        dims = int_or_ints("roll", "dims", 3, dims)
        if len(shifts) != len(dims):
            raise RuntimeError(
                f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
            )
        dims = tuple(_wrapdim(d, input._data.ndim) for d in dims)
    elif len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
    xp = xp_for(input)
    if dims is None:
        data = xp.roll(input._data.reshape(-1), shifts[0]).reshape(input._data.shape)
    else:
        data = xp.ascontiguousarray(xp.roll(input._data, shifts, dims))
    r = _wrap(data, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Roll, (input,), r, (), shifts=shifts, dims=dims)
    if _fw_state.level and input._fw is not None:
        r._fw = roll(input._fw, shifts, dims)
        _register(r)
    return r


_Tril = node_class("TrilBackward0", lambda node, g: (g.tril(node.k),))
_Triu = node_class("TriuBackward0", lambda node, g: (g.triu(node.k),))


def tril(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    r = _tri(input, as_int("tril", "diagonal", 2, diagonal), True)
    return r if out is None else write_out(out, r, "tril", OUT_EXACT)


def triu(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    r = _tri(input, as_int("triu", "diagonal", 2, diagonal), False)
    return r if out is None else write_out(out, r, "triu", OUT_EXACT)


def _tri(input, k, lower):
    if input._data.ndim < 2:
        raise RuntimeError(
            f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions"
        )
    if input._dtype.name in ("uint16", "uint32", "uint64") and input._data.size:
        raise NotImplementedError(
            f"\"{'tril' if lower else 'triu'}\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    xp = xp_for(input)
    k = int(k)
    r = _wrap((xp.tril if lower else xp.triu)(input._data, k), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Tril if lower else _Triu, (input,), r, (), k=k)
    if _fw_state.level and input._fw is not None:
        r._fw = _tri(input._fw, k, lower)
        _register(r)
    return r


# Imported last: view_ops.py (which the views above need) imports this module at its end.
from . import split as _split
from . import view_ops as _sh


# ---- rot90 ---------------------------------------------------------------------------------------------
def _rot90_array(xp, x, k: int, d0: int, d1: int):
    # PyTorch's layout: k=1 and k=3 are a transposed view of a flipped copy, k=2 a flipped
    # copy, k=0 a contiguous copy; strides follow from that.
    if k == 1:
        return xp.swapaxes(xp.flip(x, d1).copy(), d0, d1)
    if k == 2:
        return xp.flip(x, (d0, d1)).copy()
    if k == 3:
        return xp.swapaxes(xp.flip(x, d0).copy(), d0, d1)
    return xp.ascontiguousarray(x)


def _rot90_vjp(node, g):
    return (rot90(g, -node.k, node.dims),)


_Rot90 = node_class("Rot90Backward0", _rot90_vjp)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    k = as_int("rot90", "k", 2, k, any_dims=False)
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _wrapdim(dims[0], nd), _wrapdim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    kk = k % 4
    r = _wrap(_rot90_array(xp_for(input), input._data, kk, d0, d1), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Rot90, (input,), r, (), k=k, dims=dims)
    _tangent(r, (input,), lambda t: rot90(t, k, dims))
    return r


# ---- repeat_interleave / unfold --------------------------------------------------------------------------
def _repeats_index(repeats: Tensor) -> Tensor:
    if repeats._dtype not in (D.int64, D.int32):
        from .._dispatch import scalar_name

        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{scalar_name(repeats._dtype)}'"
        )
    if repeats._data.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    reps = np.asarray(repeats.detach().cpu().numpy())
    if (reps < 0).any():
        raise RuntimeError("repeats can not be negative")
    idx = np.repeat(np.arange(reps.shape[0], dtype=reps.dtype), reps)
    from ...backend import to_device  # the output's size is the data's: computed on the host

    return _wrap(to_device(idx, repeats._device), repeats._dtype, repeats._device)


def _check_output_size(output_size, total: int) -> None:
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")


def repeat_interleave(
    input: Tensor, repeats=None, dim: int | None = None, *, output_size=None
) -> Tensor:
    if repeats is None:  # torch.repeat_interleave(repeats)
        index = _repeats_index(input)
        _check_output_size(output_size, index.shape[0])
        return index
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
        index = _repeats_index(repeats)
        _check_output_size(output_size, index.shape[0])
        return x.index_select(d, index.to(D.int64))
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    x = input.flatten() if dim is None else input
    if x._data.ndim == 0:
        x = x.reshape(1)
    d = 0 if dim is None else _wrapdim(dim, x._data.ndim)
    shape = list(x.shape)
    if output_size is not None and output_size != shape[d] * repeats:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {shape[d] * repeats} but got {output_size}"
        )
    e = x.unsqueeze(d + 1).expand(shape[: d + 1] + [repeats] + shape[d + 1 :])
    return e.clone(memory_format=contiguous_format).flatten(d, d + 1)
