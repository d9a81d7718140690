"""Sorting and order statistics: sort/argsort/msort, topk, kthvalue, mode, nanmedian,
cummax/cummin, quantile/nanquantile (unique in ``unique.py``, searchsorted/bucketize/isin in
``search.py``, histc/bincount in ``ops/reduction/histogram.py``).

Values are exact; the *indices* of tied elements follow PyTorch's CPU kernels: ``stable=True``
sorts, nanmedian and mode's short rows match NumPy's stable sort, while the default sort, topk,
kthvalue and mode use unstable algorithms (libstdc++'s std::sort / partial_sort / nth_element,
a median-of-three quickselect). Rows
where a tie can change the answer are redone in Python with those algorithms; the others stay
vectorised. Index-returning ops send their gradient to the selected indices.
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ..._flags import user_stacklevel
from ..._layout import preserved_strides, restrided, row_major
from ..._tensor.core import _wrapdim
from ...autograd.forward_ad import _register, on_primals
from ...autograd.grad_mode import state as _gm

try:  # libstdc++'s selection algorithms, restated in Python for the multinomial/topk tie order
    from ...backend._cpu_sort import _heap_select, _introselect, _sort, _sort_heap
except ImportError:  # older tree: they lived in backend/random.py
    from ...backend._cpu_sort import _heap_select, _introselect, _sort, _sort_heap
from ..._autocast import FP32, cast_policy
from ..._tensor.core import Tensor, _wrap
from ...autograd.graph import node_class
from .._dispatch import OUT_EXACT, _fw_state, check_out, record, write_out, xp_for
from ..arg_types import as_int
from ..on_host import on_host
from ..reduction.extrema import return_types, scatter_to


# ---- the (values, indices) result and its gradient --------------------------------------------------
def _select_vjp(node, g, *_):
    """The gradient goes to the selected indices (summed where an index repeats: cummax)."""
    node.saved()  # PyTorch's node saves the indices: no second backward without retain_graph
    if not len(node.in_shape):
        return (g.reshape(()),)
    gd = g if node.keepdim else g.unsqueeze(node.dim)
    if node.accumulate:
        from ..creation.factories import zeros

        z = zeros(node.in_shape, dtype=g.dtype, device=g.device)
        return (z.scatter_add(node.dim, node.indices, gd),)
    return (scatter_to(gd, node.dim, node.indices, node.in_shape),)


_Sort = node_class("SortBackward0", _select_vjp)
_SortStable = node_class("SortBackward1", _select_vjp)  # the sort.stable overload (stable= given)
_Topk = node_class("TopkBackward0", _select_vjp)
_Kthvalue = node_class("KthvalueBackward0", _select_vjp)
_Mode = node_class("ModeBackward0", _select_vjp)
_NanmedianDim = node_class("NanmedianBackward1", _select_vjp)
_Cummax = node_class("CummaxBackward0", _select_vjp)
_Cummin = node_class("CumminBackward0", _select_vjp)


def _result(input, vals, idx, d, keepdim, node, rtype, accumulate=False, like=None):
    """Wrap ``vals``/``idx`` (``idx`` of the kept-dim shape when ``keepdim``) and record. The
    results are laid out as PyTorch allocates them: contiguous, or (``like``: sort's input
    array) in the layout ``preserve_format`` gives a tensor like ``like``."""
    dev, xp = input._device, xp_for(input)
    if like is None:
        vals, idx = row_major(xp, vals), row_major(xp, idx)
    else:
        strides = preserved_strides(like)
        vals, idx = restrided(xp, vals, strides), restrided(xp, idx, strides)
    v = _wrap(vals, input._dtype, dev)
    i = _wrap(idx.astype(np.int64, copy=False), D.int64, dev)
    nd = input._data.ndim
    if input._rg and _gm.enabled and input._dtype.category >= D.FLOAT:
        ik = i if (keepdim or not nd) else _wrap(np.expand_dims(i._data, d), D.int64, dev)
        record(node, (input,), v, (ik,), indices=ik, dim=d, keepdim=keepdim or not nd,
               in_shape=input._data.shape, accumulate=accumulate)  # fmt: skip
    if _fw_state.level and input._fw is not None:
        t = input._fw
        v._fw = on_primals(
            lambda: (
                t.gather(d, i if keepdim else i.unsqueeze(d)).reshape(v.shape) if nd else t.clone()
            )
        )
        _register(v)
    return rtype(v, i)


def _rows(a, d):
    """``a`` with ``d`` moved last, as 2-D rows, and the function putting results back."""
    m = np.moveaxis(a, d, -1)
    lead = m.shape[:-1]
    return m.reshape(-1, m.shape[-1]), lambda r: np.moveaxis(r.reshape(lead + r.shape[-1:]), -1, d)


def _ranks(row) -> list:
    """Dense ranks of a row's values; NaN ranks above everything and equal to NaN."""
    if row.dtype.char == D.BFLOAT16_CHAR:  # np.unique merges NaNs of NumPy's own floats only
        row = row.astype(np.float32)
    return np.unique(row, return_inverse=True)[1].reshape(-1).tolist()


def _check_sortable(input, name="Sort"):
    if input._dtype.category == D.COMPLEX:
        raise RuntimeError(f" {name} does not support complex dtypes on CPU")


def _no_complex_kernel(kernel, t, zero_dim_ok=False):
    """PyTorch's '"kernel" not implemented for 'ComplexFloat'' (ops that need an ordering).
    ``zero_dim_ok``: a 0-d (or empty, for the cumulative ops) input skips the kernel."""
    skip = zero_dim_ok and (not t._data.ndim or zero_dim_ok == "empty" and not t._data.size)
    if isinstance(t, Tensor) and t._dtype.category == D.COMPLEX and not skip:
        from .._dispatch import scalar_name

        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(t._dtype)}'")


# ---- sort / argsort / msort -----------------------------------------------------------------------------
def _argsort(a, d, descending, stable=True):
    if not descending:
        idx = np.argsort(a, axis=d, kind="stable")
    else:
        # Sorting the reversed array keeps equal elements in their original order when reversed back.
        n = a.shape[d]
        idx = (n - 1) - np.flip(np.argsort(np.flip(a, d), axis=d, kind="stable"), d)
    if stable or a.shape[d] <= 16:  # std::sort is an insertion sort (stable) up to 16 elements
        return idx
    return _unstable(a, d, descending, idx)


# Past this many elements ties keep the stable order: restating std::sort in Python is slow.
_UNSTABLE_MAX = 1 << 17


def _unstable(a, d, descending, idx):
    """PyTorch's default (stable=False) CPU sort is libstdc++'s std::sort: redo rows with ties."""
    rows, back = _rows(a, d)
    order, _ = _rows(idx, d)
    if rows.size > _UNSTABLE_MAX:
        return idx
    order = order.copy()
    s = np.take_along_axis(rows, order, 1)
    tie = s[:, 1:] == s[:, :-1]
    if rows.dtype.char in D.FLOAT_CHARS:
        tie |= np.isnan(s[:, 1:]) & np.isnan(s[:, :-1])
    for r in np.nonzero(tie.any(1))[0]:
        ranks = _ranks(rows[r])
        items = [(x if descending else -x, i) for i, x in enumerate(ranks)]
        _sort(items, 0, len(items))
        order[r] = [i for _, i in items]
    return back(order)


_SORT_OVERLOADS = (
    "\n * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = None)"
    "\n * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)\n"
)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable=None, out=None):
    """``torch.sort``; NaN sorts as the largest. Without ``stable=True`` ties come out in std::sort's order."""
    if isinstance(dim, bool):  # sort(x, True): a bool is no dim, and no overload matches
        from ..._tensor_arguments import invalid_combination

        raise TypeError(invalid_combination("sort", (input, dim), {}) + _SORT_OVERLOADS)
    _check_sortable(input)
    a = input._data
    d = _wrapdim(dim, a.ndim)
    if a.ndim:
        idx = _argsort(a, d, descending, stable)
        vals = np.take_along_axis(a, idx, d)
    else:
        idx, vals = xp_for(input).zeros((), np.int64), a.copy()
    r = _result(
        input,
        vals,
        idx,
        d,
        True,
        _Sort if stable is None else _SortStable,
        return_types.sort,
        like=a,
    )
    if out is not None:
        return return_types.sort(*write_out(tuple(out), tuple(r), "sort", (OUT_EXACT, OUT_EXACT)))
    return r


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, out=None
) -> Tensor:
    if out is None:
        return _argsort_op(input, dim, descending, stable)
    if not stable:  # only the stable= overload of argsort takes out=
        raise TypeError(
            "argsort() received an invalid combination of arguments - got (Tensor, out=Tensor)"
        )
    if _gm.enabled and input._rg:  # PyTorch sorts into (values, out): autograd refuses the values
        check_out(out, input, "sort")
    return write_out(out, _argsort_op(input, dim, descending, stable), "sort", OUT_EXACT)


def _argsort_op(
    input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
) -> Tensor:
    _check_sortable(input)
    a = input._data
    d = _wrapdim(dim, a.ndim)
    idx = _argsort(a, d, descending, stable) if a.ndim else xp_for(input).zeros((), np.int64)
    idx = restrided(xp_for(input), idx.astype(np.int64, copy=False), preserved_strides(a))
    return _wrap(idx, D.int64, input._device)


def msort(input: Tensor, *, out=None) -> Tensor:
    r = sort(input, 0)[0]
    return r if out is None else write_out(out, r, "sort", OUT_EXACT)


# ---- topk -----------------------------------------------------------------------------------------------
def _cpu_topk_row(keys: list, k: int, sorted_: bool) -> list:
    """Indices PyTorch's topk_impl_loop leaves (libstdc++ partial_sort / nth_element), greater key first."""
    items = [(key, i) for i, key in enumerate(keys)]
    n = len(items)
    if k * 64 <= n:
        _heap_select(items, 0, k, n)
        _sort_heap(items, 0, k)
    else:
        _introselect(items, 0, k - 1, n, 2 * (n.bit_length() - 1))
        if sorted_:
            _sort(items, 0, k - 1)
    return [i for _, i in items[:k]]


@on_host  # PyTorch's CPU tie order, computed on the host
def topk(
    input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, out=None
):
    k = as_int("topk", "k", 2, k)
    _check_sortable(input, "topk")
    a = input._data
    d = _wrapdim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if not a.ndim:
        return _result(
            input, a.copy(), xp_for(input).zeros((), np.int64), d, True, _Topk, return_types.topk
        )
    if input._dtype in D._SHELL_UINTS:  # PyTorch has no uint16/32/64 topk kernel
        raise NotImplementedError(
            f"\"topk_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    rows, back = _rows(a, d)
    order = np.asarray(_argsort(rows, 1, largest))
    idx = order[:, :k].copy()
    if k:
        edge = np.take_along_axis(rows, order[:, : k + 1], 1)
        same = (edge[:, 1:] == edge[:, :-1]) | (np.isnan(edge[:, 1:]) & np.isnan(edge[:, :-1])) if a.dtype.char in D.FLOAT_CHARS else (edge[:, 1:] == edge[:, :-1])  # fmt: skip
        redo = same.any(1) | (not sorted and k * 64 > n)
        for r in np.nonzero(redo)[0]:
            ranks = _ranks(rows[r])
            keys = ranks if largest else [-x for x in ranks]
            idx[r] = _cpu_topk_row(keys, k, sorted)
    vals = np.take_along_axis(rows, idx, 1)
    res = _result(input, back(vals), back(idx), d, True, _Topk, return_types.topk)
    if out is not None:
        return return_types.topk(*write_out(tuple(out), tuple(res), "topk", (OUT_EXACT, OUT_EXACT)))
    return res


# ---- kthvalue ---------------------------------------------------------------------------------------------
def _gt(x, y) -> bool:
    return x > y  # ranks: NaN already ranks highest


def _quickselect(keys: list, k: int) -> int:
    """The index PyTorch's CPU kthvalue returns: its median-of-three quickselect on (value, index)."""
    idx = list(range(len(keys)))
    arr = list(keys)

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            break
        if hi == lo + 1:
            if arr[lo] > arr[hi]:
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        if arr[lo + 1] > arr[hi]:
            swap(lo + 1, hi)
        if arr[lo] > arr[hi]:
            swap(lo, hi)
        if arr[lo + 1] > arr[lo]:
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while piv > arr[i]:
                i += 1
            j -= 1
            while arr[j] > piv:
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


def _tied(rows, vals):
    """Per row: does the selected value occur more than once?"""
    eq = rows == vals[:, None]
    if rows.dtype.char in D.FLOAT_CHARS:
        eq |= np.isnan(rows) & np.isnan(vals)[:, None]
    return eq.sum(1) > 1


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    k = as_int("kthvalue", "k", 2, k)
    _no_complex_kernel("kthvalue_cpu", input, True)
    a = input._data
    d = _wrapdim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if not a.ndim:
        return _result(
            input,
            a.copy(),
            xp_for(input).zeros((), np.int64),
            d,
            keepdim,
            _Kthvalue,
            return_types.kthvalue,
        )
    rows, back = _rows(a, d)
    idx = np.argsort(rows, axis=1, kind="stable")[:, k - 1].copy()
    vals = rows[np.arange(rows.shape[0]), idx]
    for r in np.nonzero(_tied(rows, vals))[0]:
        idx[r] = _quickselect(_ranks(rows[r]), k - 1)
    return _keep_result(
        input, rows, idx, back, d, keepdim, _Kthvalue, return_types.kthvalue, out, "kthvalue"
    )


def _keep_result(input, rows, idx, back, d, keepdim, node, rtype, out, name):
    idx = idx[:, None]
    vals, idx = back(np.take_along_axis(rows, idx, 1)), back(idx)
    if not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    r = _result(input, vals, idx, d, keepdim, node, rtype)
    if out is not None:
        out = tuple(out)
        check_out(out, tuple(r), name, _PAIR_OUT[name])
        if name != "nanmedian" and not keepdim:
            _resize_kept(out, r, d)
        return rtype(*write_out(out, tuple(r), name, _PAIR_OUT[name]))
    return r


def _resize_kept(outs, results, d) -> None:
    """kthvalue and mode resize their out= tensors with ``dim`` kept, and warn in those terms."""
    for o, r in zip(outs, results):
        if o._data.ndim and o._data.shape != r._data.shape:
            if o._data.size and d <= o._data.ndim:
                kept = list(r._data.shape)
                kept.insert(d, 1)
                had = list(o._data.shape)
                had.insert(d, 1)
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape {had}, which does not "
                    f"match the required output shape {kept}. This behavior is deprecated, and in a future PyTorch "
                    "release outputs will not be resized unless they have zero elements. You can explicitly reuse "
                    "an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                    UserWarning,
                    stacklevel=user_stacklevel(),
                )
            o._data = xp_for(o).empty(r._data.shape, o._dtype.np)  # on out's device
            o._storage = None


# PyTorch's messages for (values, indices) out= tensors of the wrong dtype.
_PAIR_OUT = {
    "kthvalue": (
        "output values must be of same type as input",
        "output indices must be of scalar type Long",
    ),
    "mode": (
        "expected scalar type '{res}' but got '{out}' for values output",
        "expected scalar type '{res}' but got '{out}' for indices output",
    ),
    "nanmedian": (
        "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
        "{out_legacy} does not equal {res_legacy} (while checking arguments for median)",
        "Expected tensor for argument #1 'indices' to have scalar type Long; but got {out_legacy} instead "
        "(while checking arguments for median)",
    ),
    "cummax": ("expected scalar_type {res} but found {out}",) * 2,
    "cummin": ("expected scalar_type {res} but found {out}",) * 2,
}


# ---- mode ----------------------------------------------------------------------------------------------
@on_host  # PyTorch's CPU tie order, computed on the host
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """The most frequent value (the smallest among equally frequent) and its last index."""
    _no_complex_kernel("mode_cpu", input, True)
    a = input._data
    d = _wrapdim(dim, a.ndim)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if not a.ndim:
        r = _result(
            input, a.copy(), xp_for(input).zeros((), np.int64), d, keepdim, _Mode, return_types.mode
        )
        return (
            r
            if out is None
            else return_types.mode(
                *write_out(tuple(out), tuple(r), "mode", _PAIR_OUT["mode"], warn=False)
            )
        )
    rows, back = _rows(a, d)
    m, n = rows.shape
    order = np.argsort(rows, axis=1, kind="stable")
    if n > 16:  # std::sort of (value, index) pairs is not stable past its insertion-sort size
        for r in range(m):
            items = [(-key, i) for i, key in enumerate(_ranks(rows[r]))]
            _sort(items, 0, n)
            order[r] = [i for _, i in items]
    s = np.take_along_axis(rows, order, 1)
    end = np.ones((m, n), bool)  # the last element of each run of equal values
    end[:, :-1] = s[:, 1:] != s[:, :-1]
    start = np.ones((m, n), bool)
    start[:, 1:] = end[:, :-1]
    pos = np.arange(n)
    first = np.maximum.accumulate(np.where(start, pos, 0), 1)
    length = np.where(end, pos - first + 1, 0)
    best = length.argmax(1)  # the first run (smallest value) of the greatest length
    last = order[np.arange(m), best]
    return _keep_result(input, rows, last, back, d, keepdim, _Mode, return_types.mode, out, "mode")


# ---- nanmedian --------------------------------------------------------------------------------------------
def _nanmedian_vjp(node, g):
    from ..reduction.extrema import _evenly_vjp

    return _evenly_vjp(node, g)


_NanmedianAll = node_class("NanmedianBackward0", _nanmedian_vjp)


@on_host  # PyTorch's CPU tie order, computed on the host
def nanmedian(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """The lower median of the non-NaN values (NaN when a slice is all NaN)."""
    _no_complex_kernel("median_cpu" if dim is None else "median_out", input)
    a = input._data
    floating = input._dtype.is_floating_point  # bfloat16's NumPy kind is "V", not "f"
    if dim is None and out is not None:
        raise TypeError('nanmedian() missing 1 required positional arguments: "dim"')
    if dim is None:
        flat = a.reshape(-1)
        ok = flat[~np.isnan(flat)] if floating else flat
        if ok.size:
            v = np.partition(ok, (ok.size - 1) // 2)[(ok.size - 1) // 2]
        else:
            v = np.nan if floating else np.iinfo(a.dtype).min
        res = _wrap(np.asarray(v, a.dtype), input._dtype, input._device)
        if input._rg and _gm.enabled:
            record(_NanmedianAll, (input,), res, (input, res))
        if _fw_state.level and input._fw is not None:
            from ..reduction.extrema import _evenly_jvp

            res._fw = on_primals(_evenly_jvp, input, res, input._fw)
            _register(res)
        return res
    d = _wrapdim(dim, a.ndim)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    if not a.ndim:
        return _result(
            input,
            a.copy(),
            xp_for(input).zeros((), np.int64),
            d,
            keepdim,
            _NanmedianDim,
            return_types.nanmedian,
        )
    rows, back = _rows(a, d)
    nan = np.isnan(rows) if floating else np.zeros(rows.shape, bool)
    cnt = rows.shape[1] - nan.sum(1)
    k = np.maximum(cnt - 1, 0) // 2
    order = np.argsort(rows, axis=1, kind="stable")  # NaN last; PyTorch picks as a stable sort does
    idx = order[np.arange(rows.shape[0]), k].copy()
    for r in np.nonzero(cnt == 0)[0]:  # an all-NaN slice: the index std::nth_element leaves first
        items = [(0, i) for i in range(rows.shape[1])]
        if len(items) > 1:
            _introselect(items, 0, 0, len(items), 2 * (len(items).bit_length() - 1))
        idx[r] = items[0][1]
    return _keep_result(
        input, rows, idx, back, d, keepdim, _NanmedianDim, return_types.nanmedian, out, "nanmedian"
    )


# ---- cummax / cummin --------------------------------------------------------------------------------------
def _cum_extreme(input, dim, is_max, node, rtype):
    a = input._data
    d = _wrapdim(dim, a.ndim)
    if input._dtype in D._SHELL_UINTS and a.size:
        raise NotImplementedError(
            f"\"{'cummax' if is_max else 'cummin'}_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    if not a.ndim:
        return _result(
            input, a.copy(), xp_for(input).zeros((), np.int64), d, True, node, rtype, True
        )
    if a.dtype == np.bool_:
        vals = (np.logical_or if is_max else np.logical_and).accumulate(a, axis=d)
    else:
        vals = (np.maximum if is_max else np.minimum).accumulate(a, axis=d)
    # The index of the last element equal to the running extreme (PyTorch updates on >= / <=);
    # once a NaN is met, every later NaN takes over the index.
    hit = a == vals
    if a.dtype.char in D.FLOAT_CHARS:
        hit |= np.isnan(a)
    shape = [1] * a.ndim
    shape[d] = a.shape[d]
    pos = np.where(hit, np.arange(a.shape[d]).reshape(shape), 0)
    idx = np.maximum.accumulate(pos, axis=d) if a.size else pos
    return _result(input, vals, idx, d, True, node, rtype, True)


def _out_pair(r, out, rtype, name):
    if out is None:
        return r
    return rtype(*write_out(tuple(out), tuple(r), name, _PAIR_OUT[name]))


@on_host  # PyTorch's CPU tie order, computed on the host
def cummax(input: Tensor, dim: int, *, out=None):
    _no_complex_kernel("cummax_cpu", input, "empty")
    r = _cum_extreme(input, dim, True, _Cummax, return_types.cummax)
    return _out_pair(r, out, return_types.cummax, "cummax")


@on_host  # PyTorch's CPU tie order, computed on the host
def cummin(input: Tensor, dim: int, *, out=None):
    _no_complex_kernel("cummin_cpu", input, "empty")
    r = _cum_extreme(input, dim, False, _Cummin, return_types.cummin)
    return _out_pair(r, out, return_types.cummin, "cummin")


# ---- quantile / nanquantile -------------------------------------------------------------------------------
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    """Sort, then gather the two neighbours of each rank and interpolate (differentiable)."""
    from ..creation.factories import tensor as _tensor

    a = input._data
    if a.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if isinstance(q, Tensor) and q._data.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input._dtype not in (D.float32, D.float64):  # (sic: nanquantile's message says quantile too)
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if isinstance(q, Tensor) and q._dtype is not input._dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERP:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    qa = np.asarray(q._data if isinstance(q, Tensor) else q, np.float64)
    if isinstance(q, Tensor):
        if not ((qa >= 0) & (qa <= 1)).all():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    elif not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if dim is None:
        x, out_shape = input.reshape(-1), [1] * a.ndim if keepdim else []
    else:
        d = _wrapdim(dim, a.ndim)
        x = input.unsqueeze(0) if not a.ndim else input.movedim(d, -1)
        out_shape = list(a.shape)
        if keepdim:
            out_shape[d : d + 1] = [1] * (a.ndim > 0)
        else:
            del out_shape[d : d + 1]
    s = sort(x, -1)[0]
    sd = s._data
    n = sd.shape[-1]
    nan = np.isnan(sd)
    cnt = (n - nan.sum(-1)) if ignore_nan else np.full(sd.shape[:-1], n)
    qv = qa.reshape((-1,) + (1,) * (sd.ndim - 1))
    # q * (count - 1) in the input's dtype, as PyTorch (a float64 product rounded to float32 can
    # be another float32 than float32(q) * float32(count - 1), and moves the interpolation weight)
    ranks = qv.astype(sd.dtype) * (cnt - 1).astype(sd.dtype)
    # quantile: a NaN in the slice makes the result NaN (the last sorted element); nanquantile:
    # an all-NaN slice does.
    bad = nan.any(-1) if not ignore_nan else cnt == 0
    ranks = np.where(bad, n - 1, ranks).astype(sd.dtype).astype(np.float64)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = np.floor(ranks).astype(np.int64)
    above = np.minimum(np.ceil(ranks).astype(np.int64), n - 1)
    se = s.unsqueeze(0).expand((qa.size,) + sd.shape)
    dev = input._device
    lo = se.gather(-1, _wrap(below[..., None], D.int64, dev)).squeeze(-1)
    r = lo
    if interpolation in ("linear", "midpoint"):
        hi = se.gather(-1, _wrap(above[..., None], D.int64, dev)).squeeze(-1)
        w = (
            0.5
            if interpolation == "midpoint"
            else _tensor(ranks - below, dtype=input._dtype, device=dev)
        )
        r = lo.lerp(hi, w)
    r = r.reshape([qa.size] + out_shape) if qa.ndim else r.reshape(out_shape)
    return r


@cast_policy(FP32, ("cpu",))
@on_host  # PyTorch's CPU tie order, computed on the host
def quantile(
    input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None
):
    r = _quantile("quantile", input, q, dim, keepdim, interpolation, False)
    return r if out is None else write_out(out, r, "quantile", _QUANTILE_OUT, grad=False)


@cast_policy(FP32, ("cpu",))
@on_host  # PyTorch's CPU tie order, computed on the host
def nanquantile(
    input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None
):
    r = _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)
    return r if out is None else write_out(out, r, "nanquantile", _QUANTILE_OUT, grad=False)


_QUANTILE_OUT = "quantile() out tensor must be same dtype as the input tensor"


__all__ = [
    "argsort",
    "cummax",
    "cummin",
    "kthvalue",
    "mode",
    "msort",
    "nanmedian",
    "nanquantile",
    "quantile",
    "sort",
    "topk",
]
