"""``torch.strided``, the sparse layouts and the memory formats (objects with PyTorch's reprs)."""

from __future__ import annotations

import itertools


class layout:
    _tp_name = "torch.layout"  # the name PyTorch's messages give its C type (type_name)
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name


class memory_format:
    _tp_name = "torch.memory_format"  # the name PyTorch's messages give its C type (type_name)
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


# Channels-last layouts: the dims in memory order, outermost first (N, H, W, C) / (N, D, H, W, C).
_CHANNELS_LAST = {"channels_last": (4, (0, 2, 3, 1)), "channels_last_3d": (5, (0, 2, 3, 4, 1))}


def channels_last_order(memory_format, ndim: int):
    """The memory order of ``memory_format`` for an ``ndim``-d tensor, None for the default formats;
    PyTorch's error when the rank does not fit."""
    spec = _CHANNELS_LAST.get(getattr(memory_format, "name", None))
    if spec is None:
        return None
    rank, order = spec
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {memory_format.name} format")
    return order


def is_contiguous_in(shape, strides, order) -> bool:
    """Whether ``strides`` are the dense strides of ``shape`` laid out in ``order`` (size-1 dims skipped)."""
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def relayout(xp, a, order):
    """A copy of array ``a`` whose memory follows ``order`` (outermost first)."""
    inv = sorted(range(len(order)), key=order.__getitem__)
    # a fresh C-ordered copy (ascontiguousarray would hand back a view when only size-1 dims differ)
    return xp.array(a.transpose(order), order="C", copy=True).transpose(inv)


def preserved_strides(a):
    """The strides (in elements) PyTorch's ``preserve_format`` gives a new tensor like array
    ``a`` (clone, ``.to``, ``*_like``), or None where that is C order: a non-overlapping and
    dense array keeps its strides exactly, those of size-1 dims too (``ones(1, 3).t().clone()``
    has strides (1, 3)); any other one (an expand, a strided slice) gets dense strides in the
    order PyTorch infers from its strides, where a zero stride does not move its dim (an
    expanded row stays row-major, which NumPy's order="K" would make column-major)."""
    if a.ndim < 2 or not a.size or a.flags.c_contiguous and 1 not in a.shape:
        return None
    item = a.itemsize
    if is_dense(a):
        return tuple(st // item for st in a.strides)
    return dense_strides(a.shape, _order_by_strides(a.shape, [st // item for st in a.strides]))


def dense_strides(shape, order):
    """Contiguous strides of ``shape`` with its dims laid out in ``order`` (outermost first;
    None: row-major)."""
    order = range(len(shape)) if order is None else order
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def restrided(xp, r, strides):
    """Array ``r`` (a fresh copy) with the given element strides (None: as it is)."""
    if strides is None:
        return r
    want = tuple(st * r.itemsize for st in strides)
    if r.strides == want:
        return r
    out = xp.lib.stride_tricks.as_strided(xp.empty(r.size, r.dtype), r.shape, want)
    out[...] = r
    return out


def row_major(xp, a):
    """Array ``a`` laid out as PyTorch allocates a new contiguous tensor (reductions, scans,
    topk), whatever order NumPy gave it: C order, size-1 dims with their C strides too. NumPy
    lays a reduction of a permuted array out in the input's memory order, where PyTorch's
    result is contiguous (so ``.view`` works on it). ``a`` itself when it has those strides
    already; a view when only size-1 dims' strides differ; else a C-ordered copy."""
    if a.ndim < 2 or not a.size or a.flags.c_contiguous and 1 not in a.shape:
        return a
    want = tuple(st * a.itemsize for st in dense_strides(a.shape, None))
    if a.strides == want:
        return a
    if not a.flags.c_contiguous:
        a = xp.ascontiguousarray(a)
        if a.strides == want:
            return a
    return xp.lib.stride_tricks.as_strided(a, a.shape, want)


def preserved_copy(xp, a, cast=None):
    """A copy of array ``a`` in the layout of ``preserved_strides``; ``cast(array)``, when
    given, makes the converted copy."""
    r = xp.array(a, copy=True) if cast is None else cast(a)
    return restrided(xp, r, preserved_strides(a))


def is_dense(a) -> bool:
    """PyTorch's is_non_overlapping_and_dense for array ``a``: some order of its dims of size
    > 1 is C-contiguous."""
    dims = sorted((st, n) for n, st in zip(a.shape, a.strides) if n > 1)
    expect = a.itemsize
    for st, n in dims:
        if st != expect:
            return False
        expect *= n
    return True


def dim_order(t, ambiguity_check=False) -> tuple:
    """``Tensor.dim_order``: the dims from outermost to innermost in memory (sorted by stride,
    as PyTorch's elementwise kernels order them: a contiguous or channels-last tensor has that
    order, whatever the strides of its size-1 dims; otherwise zero strides do not move a dim,
    equal strides put the larger size outside). ``ambiguity_check`` (True, or a list of memory formats of
    which exactly one must fit) raises PyTorch's error for a tensor with size-1 dims or equal
    strides, whose order is then not unique."""
    if not isinstance(ambiguity_check, bool) and not (
        isinstance(ambiguity_check, list)
        and all(isinstance(f, memory_format) for f in ambiguity_check)
    ):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = tuple(t.shape), t.stride()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    if ambiguity_check is not False and (
        any(a == b for a, b in itertools.pairwise(strides)) or 1 in shape
    ):
        fitting = sum(bool(t.is_contiguous(memory_format=f)) for f in formats)
        if fitting != 1:
            raise RuntimeError(
                "The tensor does not have unique dim order, or cannot map to exact one of the "
                "given memory formats."
            )
    if _is_contiguous(shape, strides):
        return tuple(range(len(shape)))
    for rank, order in _CHANNELS_LAST.values():
        if len(shape) == rank and is_contiguous_in(shape, strides, order):
            return order
    return _order_by_strides(shape, strides)


def _is_contiguous(shape, strides) -> bool:
    return is_contiguous_in(shape, strides, range(len(shape)))


def _order_by_strides(shape, strides) -> tuple:
    # the order of PyTorch's elementwise loops (TensorIterator's sort of the dims by strides),
    # innermost first there
    from .backend.float32_math import _loop_order

    return tuple(reversed(_loop_order(shape, [strides])))
