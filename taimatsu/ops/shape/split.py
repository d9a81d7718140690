"""Shape ops that split one tensor into views: unbind, split/chunk and tensor_split."""

from __future__ import annotations

import builtins
import itertools
import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import _fw_state, record, scalar_name
from ..arg_types import integer, split_size
from .copies import cat, stack
from .view_ops import slice_dim
from .views import set_multi_output


def _unbind_vjp(node, *grads):
    return (stack(grads, node.dim),)


_Unbind = node_class("UnbindBackward0", _unbind_vjp)


def _multi_view(input, datas, node_cls, **attrs):
    outs = []
    for d in datas:
        v = _wrap(d, input._dtype, input._device)
        v._vc = input._vc
        v._vv = input._vc[0]
        v._base = input if input._base is None else input._base
        v._storage = input._data if input._storage is None else input._storage
        outs.append(v)
    if input._rg and _gm.enabled:
        record(node_cls, (input,), tuple(outs), (), **attrs)
    set_multi_output(input, outs)
    return tuple(outs)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrapdim(dim, nd)
    key = (slice(None),) * d
    outs = _multi_view(
        input,
        [input._data[key + (i, Ellipsis)] for i in range(input._data.shape[d])],
        _Unbind,
        dim=d,
    )
    if _fw_state.level and input._fw is not None:
        for o, t in zip(outs, input._fw.unbind(d)):
            o._fw = t
            _register(o)
    return outs


def _split_vjp(node, *grads):
    whole = None if _gm.enabled else _tiled(grads, node.dim)
    return (cat(grads, node.dim) if whole is None else whole,)


def _tiled(grads, d: int):
    """The array that ``grads`` are consecutive slices of along ``d``, when they tile it exactly
    (attention writes the gradients of a split ``qkv`` so): their concatenation, uncopied. The
    array they are views of may have another shape (a (B*S, 3C) buffer under (B, S, C) slices):
    its C-contiguous reshape to the concatenation's shape is then what they must tile."""
    data = [g._data if g.__class__ is Tensor else None for g in grads]
    base = getattr(data[0], "base", None)
    if not isinstance(base, np.ndarray):
        return None
    whole = base
    if base.ndim != data[0].ndim:
        shape = list(data[0].shape)
        shape[d] = builtins.sum(a.shape[d] if a is not None else 0 for a in data)
        if not base.flags.c_contiguous or base.size != math.prod(shape):
            return None
        whole = base.reshape(shape)
    at = whole.ctypes.data
    for a in data:
        if a is None or a.base is not base or a.strides != whole.strides or a.dtype != base.dtype:
            return None
        if (
            a.ctypes.data != at
            or a.shape[:d] + a.shape[d + 1 :] != whole.shape[:d] + whole.shape[d + 1 :]
        ):
            return None
        at += a.shape[d] * whole.strides[d]
    if at != whole.ctypes.data + whole.shape[d] * whole.strides[d]:
        return None
    return _wrap(whole, grads[0]._dtype, grads[0]._device)


_Split = node_class("SplitBackward0", _split_vjp)
_SplitWithSizes = node_class("SplitWithSizesBackward0", _split_vjp)


def _split_sizes(input, d, sizes, node):
    key = (slice(None),) * d
    start, datas = 0, []
    for s in sizes:
        datas.append(input._data[key + (slice(start, start + s),)])
        start += s
    outs = _multi_view(input, datas, node, dim=d)
    if _fw_state.level and input._fw is not None:
        for o, t in zip(outs, split(input._fw, list(sizes), d)):
            o._fw = t
            _register(o)
    return outs


def split(input: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    arg = split_size_or_sections
    if dim.__class__ is not int:
        integer("split", "dim", 3, dim)
    if not isinstance(arg, (int, list, tuple)) or isinstance(arg, bool):
        split_size(arg)  # the parser's TypeError (a float goes to split_with_sizes)
    elif arg.__class__ is not int and not all(s.__class__ is int for s in arg):
        split_size(arg)  # sizes that are not all ints: the parser checks them
    if not isinstance(arg, (list, tuple)) and int(arg) < 0:  # checked before the dim
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={int(arg)}"
        )
    if not input._data.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrapdim(dim, input._data.ndim)
    n = input._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {d}), "
                f"but got split_sizes={sizes}"
            )
        return _split_sizes(input, d, sizes, _SplitWithSizes)
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and n:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )
    # An empty dimension still splits into one (empty) piece.
    sizes = [size] * (n // size) + ([n % size] if n % size else []) if size and n else [0]
    return _split_sizes(input, d, sizes, _Split)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    integer("chunk", "chunks", 1, chunks)
    integer("chunk", "dim", 2, dim)
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = _wrapdim(dim, input._data.ndim)
    n = input._data.shape[d]
    size = -(-n // chunks) if n else 0
    if size == 0:
        return _split_sizes(input, d, [0] * chunks, _Split) if n == 0 else split(input, 1, d)
    return split(input, size, d)


_SPLIT_SPEC = ("sections", "indices", "tensor_indices_or_sections")


def tensor_split(input: Tensor, *args, **kw) -> tuple:
    """``tensor_split(x, 2)``, ``(x, [1, 3], dim)`` or with PyTorch's keywords ``sections=``,
    ``indices=``, ``tensor_indices_or_sections=`` (and ``dim=``)."""
    indices_or_sections, dim = _tensor_split_args(args, kw)
    if not input._data.ndim:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrapdim(dim, input._data.ndim)
    n = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections._dtype is not D.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                + scalar_name(indices_or_sections._dtype)
            )
        if indices_or_sections.dim() > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {indices_or_sections.dim()} dims"
            )
        indices_or_sections = (
            indices_or_sections.tolist()
            if indices_or_sections.dim()
            else indices_or_sections.item()
        )
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        bounds = (
            [0]
            + [
                builtins.min(builtins.max(int(i) + (n if i < 0 else 0), 0), n)
                for i in indices_or_sections
            ]
            + [n]
        )
    # PyTorch composes tensor_split of slices: each piece is its own SliceBackward0 view.
    return tuple(slice_dim(input, d, a, builtins.max(a, b)) for a, b in itertools.pairwise(bounds))


def _tensor_split_args(args: tuple, kw: dict) -> tuple:
    """(indices_or_sections, dim) from tensor_split's positional and keyword arguments; PyTorch's
    parser error when the split is missing, given twice or under another name."""
    dim = kw.pop("dim", 0)
    named = [k for k in _SPLIT_SPEC if k in kw]
    if len(args) > 2 or len(args) + len(named) != 1 + (len(args) == 2) or set(kw) - set(named):
        got = ", ".join(
            [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kw.items()]
        )
        raise TypeError(
            f"tensor_split() received an invalid combination of arguments - got ({got}"
            f"{', ' if kw and not args else ''}), but expected one of:\n"
            " * (tuple of ints indices, int dim = 0)\n"
            " * (Tensor tensor_indices_or_sections, int dim = 0)\n"
            " * (int sections, int dim = 0)\n"
        )
    if len(args) == 2:
        return args
    return (args[0] if args else kw[named[0]]), dim


# ---- hsplit / vsplit / dsplit -------------------------------------------------------------------------
def _split_family(name: str, input: Tensor, sections, min_dim: int, dim: int) -> tuple:
    nd = input._data.ndim
    if nd < min_dim:
        what = "1 dimension" if min_dim == 1 else f"{min_dim} dimension"
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {what}, but got a tensor with {nd} dimensions!"
        )
    if isinstance(sections, Tensor):
        sections = sections.tolist() if sections.dim() else sections.item()
    if isinstance(sections, (int, np.integer)):
        n = input._data.shape[dim]
        if sections == 0 or n % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                f"{n} is not divisible by the split_size {sections}!"
            )
    return input.tensor_split(sections, dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple:
    return _split_family("hsplit", input, indices_or_sections, 1, 1 if input._data.ndim > 1 else 0)


def vsplit(input: Tensor, indices_or_sections) -> tuple:
    return _split_family("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input: Tensor, indices_or_sections) -> tuple:
    return _split_family("dsplit", input, indices_or_sections, 3, 2)


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return split(input, [int(s) for s in split_sizes], dim)
