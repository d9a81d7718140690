"""Views: tensors sharing their base's memory and version counter.

``make_view`` is the one place a view is created. ``as_strided`` and its adjoint
(``strided_scatter``) let any view be re-derived from its base, which is what CopySlices
needs when an in-place op writes through a view.
"""

from __future__ import annotations

import numpy as np

from ..._layout import contiguous_format as _contiguous
from ..._tensor.core import Tensor, _wrap
from ...autograd.engine import _conform, edge_of
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import Node, carry_retain, node_class
from ...backend.scatter_at import add_at
from .._dispatch import _fw_state, record, xp_for


def make_view(x: Tensor, data, node_cls=None, tangent_fn=None, **attrs) -> Tensor:
    """Wrap ``data`` (a NumPy/CuPy view of ``x``'s memory) as a view of ``x``.

    ``tangent_fn(t)`` applies the same view to a tangent for forward-mode AD.
    """
    v = _wrap(data, x._dtype, x._device)
    if x.__dict__ and x.__dict__.get("_inference"):
        v.__dict__["_inference"] = True  # a view of an inference tensor is one, in any mode
    v._vc = x._vc
    v._vv = x._vc[0]
    v._base = x if x._base is None else x._base
    v._storage = x._data if x._storage is None else x._storage
    if _gm.enabled:
        if node_cls is not None and x._rg:
            record(node_cls, (x,), v, (), **attrs)
        d = x.__dict__
        if d and "_cm" in d:
            v.__dict__["_cm"] = d["_cm"]
    elif not _gm.inference:
        _no_grad_view(x, v)
    else:
        _inference_view(x, v)
    if _fw_state.level and x._fw is not None and tangent_fn is not None:
        v._fw = tangent_fn(x._fw)
        _register(v)
    return v


# ---- creation meta: views whose in-place modification PyTorch forbids ---------------------------------
# PyTorch records how a view was made; in-place writes (with grad) into views made in no_grad mode
# or returned by a multi-output op (unbind, split, chunk) are errors. ``_cm`` holds "no_grad" or
# "multi"; views of such views inherit it.
_CM_SUFFIX = {
    "no_grad": (
        "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
        "by moving both the view and the inplace either both inside the no_grad block (if you don't want "
        "the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
    ),
    "inference_mode": (
        "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
        "by moving both the view and the inplace either both inside the inference_mode block (if you don't "
        "want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
    ),
    "custom": (
        "This view was created inside a custom Function (or because an input was returned as-is) and the "
        "autograd logic to handle view+inplace would override the custom backward associated with the custom "
        "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
        "output of the custom Function."
    ),
    "multi": (
        "This view is the output of a function that returns multiple views. Such functions do not allow "
        "the output views to be modified inplace. You should replace the inplace operation by an "
        "out-of-place one."
    ),
}


def _no_grad_view(x: Tensor, v: Tensor) -> None:
    """A view made with grad mode off: it still reports its base's requires_grad, as in PyTorch."""
    v.__dict__["_cm"] = "no_grad"
    if x._rg:
        v._rg = True


def _inference_view(x: Tensor, v: Tensor) -> None:
    """A view made in inference mode is an inference tensor only when its base is one; a view
    of a normal tensor stays normal (reporting its base's requires_grad, with no history) and
    may not be modified in place with grad mode on later, as in PyTorch."""
    if x.__dict__ and x.__dict__.get("_inference"):
        return  # (_wrap marked it)
    v.__dict__.pop("_inference", None)
    v.__dict__["_cm"] = "inference_mode"
    if x._rg:
        v._rg = True


def set_multi_output(x: Tensor, outs) -> None:
    cm = "multi" if _gm.enabled else ("no_grad" if not _gm.inference else None)
    if cm is None:
        return
    for v in outs:
        v.__dict__["_cm"] = cm
        if cm == "no_grad" and x._rg:
            v._rg = True


def view_grad_fn(v: Tensor):
    """``v.grad_fn`` for a view: re-derived from its base after an in-place change.

    When the base (or a sibling view) was written in place since this view's history was
    recorded, the view's history becomes an AsStridedBackward0 of the base's current
    history, as in PyTorch.
    """
    fn = v._grad_fn
    if v._vv == v._vc[0]:
        return fn
    base = v._base
    v._vv = v._vc[0]
    if fn is None and not base._rg:
        return None
    d = v.__dict__
    if d and d.get("_cm") == "no_grad" and base._rg:
        raise RuntimeError(
            "A view was created in no_grad mode and its base or another view of its base has been modified "
            "inplace with grad mode enabled. " + _CM_SUFFIX["no_grad"]
        )
    node = AsStridedBackward0.__new__(AsStridedBackward0)
    Node.__init__(node, (edge_of(base),), ((base._data.shape, base._dtype),))
    node.geom = _geometry(v)
    node.in_geom = _geometry(base)
    old, old_nr = v._grad_fn, v._output_nr
    v._grad_fn, v._rg, v._output_nr = node, True, 0
    carry_retain(v, old, old_nr)
    return node


def creation_meta_error(t: Tensor) -> RuntimeError:
    node = t.grad_fn
    if node is not None:
        short = node.name()
        short = short[: short.rindex("Backward")] if "Backward" in short else short
        prefix = f"Output {t._output_nr} of {short} is a view and is being modified inplace. "
    elif t.__dict__["_cm"] == "inference_mode":
        prefix = (
            "A view was created in inference mode and is being modified inplace in normal mode. "
        )
    else:
        prefix = "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    return RuntimeError(prefix + _CM_SUFFIX[t.__dict__["_cm"]])


def check_no_overlap(t: Tensor) -> None:
    """PyTorch's error for writing into a tensor whose elements share memory (an expand)."""
    if not t._data.size:
        return
    for n, st in zip(t._data.shape, t._data.strides):
        if st == 0 and n > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single "
                "memory location. Please clone() the tensor before performing the operation."
            )


_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


def _root(a):
    """The object owning ``a``'s memory (its base's base...: an array, or a buffer)."""
    while (base := getattr(a, "base", None)) is not None:
        a = base
    return a


def _dense_bounds(a):
    """The byte range of a NumPy array whose elements tile it exactly (PyTorch's "non-overlapping
    and dense"), else None."""
    lo, hi = np.lib.array_utils.byte_bounds(a)
    return (lo, hi) if hi - lo == a.nbytes else None


def check_no_partial_overlap(dst, src, same_ok: bool = True) -> None:
    """PyTorch's error for writing ``src`` (arrays) into ``dst`` where the two share some memory
    but are not the same elements (``x[1:] = x[:-1]``, ``x.copy_(x.t())``): NumPy would answer
    with its own buffered copy. As in PyTorch, only dense layouts are judged (a strided pair is
    "too hard" and passes), and a single element without dims (a scalar) never overlaps."""
    if dst is src and same_ok or type(dst) is not np.ndarray or type(src) is not np.ndarray:
        return  # (a meta tensor's or a GPU array: none of PyTorch's overlaps are judged there)
    if not src.ndim or _root(dst) is not _root(src) or not dst.size or not src.size:
        return  # a scalar, or no common buffer
    a, b = _dense_bounds(dst), _dense_bounds(src)
    if a is None or b is None:
        return
    if a == b and dst.strides == src.strides and same_ok:
        return  # the same elements (x.add_(x)); cat refuses even those (same_ok false)
    if a[0] < b[1] and b[0] < a[1]:
        raise RuntimeError(_PARTIAL_OVERLAP)


def storage_nbytes(t: Tensor) -> int:
    st = t._storage_array()
    return (st.size if st.flags.c_contiguous or st.flags.f_contiguous else _span(st)) * st.itemsize


def storage_numel(t: Tensor) -> int:
    """The storage's size in elements of ``t``'s dtype (after ``view(dtype)`` the storage array
    keeps the dtype it was made with)."""
    return storage_nbytes(t) // t._dtype.itemsize


def _span(a) -> int:
    if a.size == 0:
        return 0
    return 1 + sum((n - 1) * abs(s) for n, s in zip(a.shape, a.strides)) // a.itemsize


def strided_array(xp, storage_flat, size, stride, offset):
    """An array over ``storage_flat`` (1-d) with element strides; writable like torch's."""
    item = storage_flat.itemsize
    base = storage_flat[offset:] if offset else storage_flat
    if xp is np:
        return np.lib.stride_tricks.as_strided(
            base, shape=tuple(size), strides=tuple(s * item for s in stride), writeable=True
        )
    return xp.lib.stride_tricks.as_strided(
        base, shape=tuple(size), strides=tuple(s * item for s in stride)
    )


# ---- as_strided and its adjoint ---------------------------------------------------------------
def _index_map(xp, n, size, stride, offset):
    """Storage indices each element of an as_strided view reads."""
    idx = xp.arange(n)
    return strided_array(xp, idx, size, stride, offset)


def _as_strided_vjp(node, g):
    return (strided_scatter(g, node.in_geom, node.geom),)


AsStridedBackward0 = node_class("AsStridedBackward0", _as_strided_vjp)


def _geometry(t: Tensor):
    return (tuple(t._data.shape), t.stride(), t.storage_offset())


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A view with explicit sizes/strides (in elements), bounds-checked against the storage."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    for s in stride:
        if s < 0:
            raise RuntimeError(
                f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}"
            )
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    n, item, nbytes = storage_numel(input), input._dtype.itemsize, storage_nbytes(input)
    if need * item > nbytes:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize {item} "
            f"requiring a storage size of {need * item} are out of bounds for storage of size {nbytes}"
        )
    flat = storage_flat(input)
    data = strided_array(xp_for(input), flat, size, stride, offset)
    return make_view(
        input,
        data,
        AsStridedBackward0,
        lambda t: as_strided(t.contiguous(), size, stride, offset - input.storage_offset()),
        geom=(size, stride, offset),
        in_geom=_geometry(input),
        n=n,
    )


def storage_flat(t: Tensor):
    """The tensor's whole storage as a writable 1-d array (shares memory).

    Storage arrays are made by taimatsu with non-negative strides, so their data pointer is
    the lowest address they span.
    """
    st = t._storage_array()
    shape, strides = (_span(st),), (st.itemsize,)
    if isinstance(st, np.ndarray):
        flat = np.lib.stride_tricks.as_strided(st, shape=shape, strides=strides, writeable=True)
    else:
        flat = xp_for(t).lib.stride_tricks.as_strided(st, shape=shape, strides=strides)
    if flat.dtype == t._data.dtype:
        return flat
    raw = flat.view(np.uint8)  # a view(dtype) tensor reads the same bytes as its own dtype
    return raw[: raw.size - raw.size % t._dtype.itemsize].view(t._data.dtype)


def _strided_scatter_vjp(node, g):
    return (_gather(g, node.in_geom, node.geom),)


StridedScatterBackward = node_class("AsStridedScatterBackward0", _strided_scatter_vjp)


def strided_scatter(g: Tensor, in_geom, geom) -> Tensor:
    """Adjoint of as_strided: sum ``g`` into storage positions, then read them as the input.

    Works for overlapping views (stride 0): positions read several times get the sum.
    """
    in_size, in_stride, in_off = in_geom
    size, stride, off = geom
    xp = xp_for(g)
    n = max(_extent(in_size, in_stride, in_off), _extent(size, stride, off))
    flat = xp.zeros(n, g._data.dtype)
    idx = _index_map(xp, n, size, stride, off)
    add_at(xp, flat, idx.reshape(-1), g._data.reshape(-1))
    out = strided_array(xp, flat, in_size, in_stride, in_off).copy()
    r = _wrap(out, g._dtype, g._device)
    if g._rg and _gm.enabled:
        record(StridedScatterBackward, (g,), r, (), in_geom=in_geom, geom=geom)
    return r


def _gather(g: Tensor, in_geom, geom) -> Tensor:
    """``as_strided`` of a tensor laid out with ``in_geom`` (a copy, differentiable)."""
    in_size, in_stride, in_off = in_geom
    size, stride, off = geom
    xp = xp_for(g)
    n = max(_extent(in_size, in_stride, in_off), _extent(size, stride, off))
    flat = xp.zeros(n, g._data.dtype)
    strided_array(xp, flat, in_size, in_stride, in_off)[...] = g._data
    out = strided_array(xp, flat, size, stride, off).copy()
    r = _wrap(out, g._dtype, g._device)
    if g._rg and _gm.enabled:
        record(_GatherBackward, (g,), r, (), in_geom=in_geom, geom=geom)
    return r


_GatherBackward = node_class(
    "AsStridedBackward0", lambda node, g: (strided_scatter(g, node.in_geom, node.geom),)
)


def _extent(size, stride, off) -> int:
    if 0 in size:
        return off
    return off + 1 + sum((n - 1) * s for n, s in zip(size, stride))


# ---- CopySlices -----------------------------------------------------------------------------------
class CopySlices(Node):
    """History of a base after an in-place op wrote through one of its views (PyTorch's name)."""

    __slots__ = ()

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, g):
        fn = self.fn
        # A contiguous copy of the base's gradient; locate the view inside it.
        result = g.clone(memory_format=_contiguous)
        rel = _relative_geometry(self.base_geom, self.view_geom)
        grad_slice = as_strided(result, *rel)
        res = fn.apply(grad_slice.clone())
        if not isinstance(res, tuple):
            res = (res,)
        res = tuple(
            _conform(fn, i, r) if r is not None and fn._shapes[i] is not None else r
            for i, r in enumerate(res)
        )
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(res[0])
        return (result,) + tuple(res[1:])


def _contig_strides(shape):
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def _relative_geometry(base_geom, view_geom):
    """The view's (size, stride, offset) inside a contiguous copy of its base."""
    base_size, base_stride, base_off = base_geom
    size, stride, off = view_geom
    cstride = _contig_strides(base_size)
    if tuple(base_stride) == cstride or 0 in base_size:
        return size, stride, off - base_off
    # Map each view stride (in base-storage elements) onto the contiguous layout.
    order = sorted(range(len(base_size)), key=lambda d: -base_stride[d])
    new_stride = []
    for s in stride:
        rem, acc = s, 0
        for d in order:
            if base_stride[d] and rem >= base_stride[d]:
                k, rem = divmod(rem, base_stride[d])
                acc += k * cstride[d]
        new_stride.append(acc)
    rem, new_off = off - base_off, 0
    for d in order:
        if base_stride[d] and rem >= base_stride[d]:
            k, rem = divmod(rem, base_stride[d])
            new_off += k * cstride[d]
    return size, tuple(new_stride), new_off


def copy_slices(view: Tensor, fn: Node) -> None:
    """Rewire history after ``fn`` (an in-place op's node) wrote into ``view``."""
    base = view._base
    node = CopySlices.__new__(CopySlices)
    Node.__init__(
        node,
        (edge_of(base),) + fn.next_functions[1:],
        ((base._data.shape, base._dtype),) + fn._shapes[1:],
    )
    node.fn = fn
    node.view_geom = _geometry(view)
    node.base_geom = _geometry(base)
    base.grad_fn, base._rg, base._output_nr = node, True, 0
    # The view's own history is re-derived from the base: an as_strided of it.
    geom = node.view_geom
    vnode = AsStridedBackward0.__new__(AsStridedBackward0)
    Node.__init__(vnode, ((node, 0),), ((base._data.shape, base._dtype),))
    vnode.geom = _relative_geometry(node.base_geom, geom)
    vnode.in_geom = (tuple(base._data.shape), _contig_strides(base._data.shape), 0)
    view.grad_fn, view._rg, view._output_nr = vnode, True, 0
    view._vv = view._vc[0]
