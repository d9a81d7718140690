"""gather and the scatters (scatter, scatter_add, scatter_reduce): PyTorch's argument checks
and messages, forwards on arrays, VJPs in Tensor ops (a scatter's adjoint is a gather and back)."""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ... import backend as _backend
from ..._flags import user_stacklevel
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.scatter_at import ufunc_at
from .._dispatch import (
    OUT_EXACT,
    _fw_state,
    check_devices,
    inplace,
    need_tensor,
    record,
    takes_out,
    xp_for,
)
from ..arg_types import integer


def _tangent(r: Tensor, fn, *inputs) -> Tensor:
    """Forward AD for ops linear in ``inputs``: the tangent is ``fn`` of the input tangents."""
    if _fw_state.level and any(x is not None and x._fw is not None for x in inputs):
        ts = [
            None if x is None else (x._fw if x._fw is not None else x.detach().new_zeros(x.shape))
            for x in inputs
        ]
        r._fw = fn(*ts)
        _register(r)
    return r


def _check_index_dtype(index: Tensor, msg: str, allow_int32: bool = True) -> None:
    if not isinstance(index, Tensor) or index._dtype not in (
        (D.int64, D.int32) if allow_int32 else (D.int64,)
    ):
        raise RuntimeError(msg)


def _bounds(idx, n: int, d: int, exc=RuntimeError, prefix: str = "") -> None:
    """Reject indices outside ``[0, n)`` (gather/scatter take no negative indices)."""
    if idx.size:

        def error():
            hi, lo = int(idx.max()), int(idx.min())
            return exc(
                f"{prefix}index {hi if hi >= n else lo} is out of bounds for dimension {d} with size {n}"
            )

        _backend.check((idx.max() >= n) | (idx.min() < 0), error)


# ---- gather / scatter -------------------------------------------------------------------------------
def _gather_vjp(node, g):
    node.saved()  # PyTorch's node saves the index: no second backward without retain_graph
    if not node.index._data.size:  # nothing was gathered (the index may be of any dtype then)
        return (g.new_zeros(node.in_shape),)
    return (scatter_add(g.new_zeros(node.in_shape), node.dim, node.index, g),)


_Gather = node_class("GatherBackward0", _gather_vjp)


def _shape(a) -> tuple:
    return a.shape if a.ndim else (1,)


def gather(
    input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None
) -> Tensor:
    need_tensor("gather", input)
    if dim.__class__ is not int:
        integer("gather", "dim", 2, dim)
    check_devices(input, index)
    if not index._data.size:
        # PyTorch returns an empty result of the index's shape before its other checks (dtype,
        # number of dims): only the dim must be in range.
        d = _wrapdim(dim, input._data.ndim)
        empty = xp_for(input).empty(index._data.shape, input._data.dtype)
        return _gathered(_wrap(empty, input._dtype, input._device), input, d, index, out)
    nd = input._data.ndim
    d = _wrapdim(dim, nd)  # PyTorch's order: the dim, the index's dtype, rank and sizes, the kernel
    _check_index_dtype(index, "gather(): Expected dtype int32/int64 for index")
    if max(index._data.ndim, 1) != max(nd, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    x, idx = input._data.reshape(_shape(input._data)), index._data.reshape(_shape(index._data))
    for k in range(x.ndim):
        if k != d and idx.shape[k] > x.shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no larger than self "
                f"{list(x.shape)} apart from dimension {d}"
            )
    if input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"scatter_gather_tensor_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    _bounds(idx, x.shape[d], d)
    xp = xp_for(input)
    src = x[tuple(slice(None) if k == d else slice(0, s) for k, s in enumerate(idx.shape))]
    data = xp.take_along_axis(src, idx.astype(np.int64, copy=False), axis=d).reshape(
        index._data.shape
    )
    return _gathered(_wrap(data, input._dtype, input._device), input, d, index, out)


def _gathered(r: Tensor, input: Tensor, d: int, index: Tensor, out) -> Tensor:
    """gather's result ``r`` with its node, tangent and out= copy."""
    if input._rg and _gm.enabled:
        record(_Gather, (input,), r, (index,), in_shape=input._data.shape, dim=d, index=index)
    _tangent(r, lambda t: gather(t, d, index), input)
    if out is not None:
        from .._dispatch import write_out

        return write_out(out, r, "gather", OUT_EXACT)
    return r


def _scatter_key(xp, idx, d):
    """The advanced-indexing key of ``idx`` along ``d``: each other dimension's open grid
    (``np.indices(..., sparse=True)``, built here: CuPy's ``indices`` has no ``sparse``)."""
    n = idx.ndim
    grids = [xp.arange(s).reshape((1,) * i + (s,) + (1,) * (n - i - 1))
             for i, s in enumerate(idx.shape)]  # fmt: skip
    grids[d] = idx.astype(np.int64, copy=False)
    return tuple(grids)


def _scatter_checks(name, input, d, index, src):
    check_devices(input, index, src)  # before CuPy meets a host index (a TypeError there)
    _check_index_dtype(index, f"{name}(): Expected dtype int32/int64 for index")
    if input._dtype in D._SHELL_UINTS and index._data.size:
        kind = "tensor" if isinstance(src, Tensor) else "scalar"
        raise NotImplementedError(
            f"\"scatter_gather_{kind}_cpu\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    x, idx = input._data, index._data
    if max(idx.ndim, 1) != max(x.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    xs, ids = _shape(x), _shape(idx)
    if isinstance(src, Tensor):
        if src._dtype is not input._dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        ss = _shape(src._data)
        if any(ids[k] > ss[k] for k in range(len(ids))) or any(
            k != d and ids[k] > xs[k] for k in range(len(ids))
        ):
            raise RuntimeError(
                f"Expected index {list(idx.shape)} to be no larger than self {list(x.shape)} apart from dimension {d} "
                f"and to be no larger size than src {list(src.shape)}"
            )
    elif any(k != d and ids[k] > xs[k] for k in range(len(ids))):
        raise RuntimeError(
            f"Expected index {list(idx.shape)} to be no larger than self {list(x.shape)} apart from dimension {d}"
        )
    _bounds(idx, xs[d], d)


def _scatter_into(input: Tensor, d, index: Tensor, src, ufunc=None):
    """A copy of ``input`` with ``src`` scattered along ``d`` (``ufunc.at`` to combine)."""
    xp = xp_for(input)
    out = input._data.reshape(_shape(input._data)).copy()
    idx = index._data.reshape(_shape(index._data))
    key = _scatter_key(xp, idx, d)
    if isinstance(src, Tensor):
        s = src._data.reshape(_shape(src._data))
        vals = s[tuple(slice(0, n) for n in idx.shape)]
    else:
        vals = xp.asarray(src).astype(out.dtype)
    if ufunc is None:
        out[key] = vals
    else:
        ufunc_at(xp, ufunc, out, key, vals)
    return _wrap(out.reshape(input._data.shape), input._dtype, input._device)


def _scatter_vjp(node, g):
    gi = g.scatter(node.dim, node.index, 0) if node.next_functions[0][0] is not None else None
    if len(node.next_functions) == 1:
        return (gi,)
    gs = g.gather(node.dim, node.index) if node.next_functions[1][0] is not None else None
    return gi, gs


_Scatter = node_class("ScatterBackward0", _scatter_vjp)
_ScatterValue = node_class("ScatterBackward1", _scatter_vjp)


def _not_implemented(node, *grads):
    raise RuntimeError("the derivative for 'scatter' with a reduce argument is not implemented")


_NotImplemented = node_class("torch::autograd::NotImplemented", _not_implemented)
_REDUCE_UFUNC = {"add": "add", "multiply": "multiply"}


@takes_out("scatter", OUT_EXACT)
def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    if src is None:
        src = value
    d = _wrapdim(dim, input._data.ndim)
    _scatter_checks("scatter", input, d, index, src)
    is_t = isinstance(src, Tensor)
    ufunc = None
    if reduce is not None:
        if reduce not in _REDUCE_UFUNC:
            raise RuntimeError("reduce argument must be either add or multiply.")
        if is_t:
            warnings.warn(
                "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
                "PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        ufunc = getattr(xp_for(input), _REDUCE_UFUNC[reduce])
    fill = src if is_t else D.half_scalar(src, input._dtype)  # to a half type through float32
    r = _scatter_into(input, d, index, fill, ufunc)
    if _gm.enabled and (input._rg or (is_t and src._rg)):
        inputs = (input, src) if is_t else (input,)
        cls = _NotImplemented if reduce is not None else (_Scatter if is_t else _ScatterValue)
        record(cls, inputs, r, (), dim=d, index=index)
    if is_t:
        _tangent(r, lambda a, b: scatter(a, d, index, b), input, src)
    else:
        _tangent(r, lambda a: scatter(a, d, index, 0), input)
    return r


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    args = (src,) if isinstance(src, Tensor) else ()
    return inplace(
        self,
        lambda s, *a: scatter(s, dim, index, *(a or (src,)), value=value, reduce=reduce),
        args,
        False,
    )


def _scatter_add_vjp(node, g):
    return g, (g.gather(node.dim, node.index) if node.next_functions[1][0] is not None else None)


_ScatterAdd = node_class("ScatterAddBackward0", _scatter_add_vjp)


@takes_out("scatter_add", OUT_EXACT)
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    _scatter_checks("scatter", input, d, index, src)
    r = _scatter_into(input, d, index, src, xp_for(input).add)
    if _gm.enabled and (input._rg or src._rg):
        record(_ScatterAdd, (input, src), r, (), dim=d, index=index)
    return _tangent(r, lambda a, b: scatter_add(a, d, index, b), input, src)


def scatter_add_(self, dim, index, src):
    return inplace(self, lambda s, x: scatter_add(s, dim, index, x), (src,), False)


# ---- scatter_reduce ---------------------------------------------------------------------------------------
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_vjp(node, g):
    (input, src, result) = node.saved()
    d, index, reduce, include_self = node.dim, node.index, node.reduce, node.include_self
    hit = _scattered(input, d, index)
    gi = gs = None
    if reduce == "sum":
        gi = g if include_self else g.masked_fill(hit, 0)
        gs = g.gather(d, index)
    elif reduce == "mean":
        count = _counts(input, d, index, include_self)
        gm = g / count
        gi = gm if include_self else gm.masked_fill(hit, 0)
        gs = gm.gather(d, index)
    elif reduce == "prod":
        # Zeros need care: the gradient at a zero is the product of the others.
        masked_self = input.masked_fill(input == 0, 1)
        gi = (
            g
            * scatter_reduce(masked_self, d, index, src, "prod", include_self=include_self)
            / masked_self
        )
        src_zero = src == 0
        n_zeros = (
            g.new_zeros(input.shape).scatter_add(d, index, src_zero.to(g.dtype)).gather(d, index)
        )
        single = src_zero & (n_zeros == 1)
        masked_src_result = scatter_reduce(
            input, d, index, src.masked_fill(single, 1), "prod", include_self=include_self
        )
        gs = (g * result).gather(d, index) / src.masked_fill(src_zero, 1)
        gs = gs.masked_fill(single, 0) + (g * masked_src_result).gather(d, index).masked_fill(
            ~single, 0
        )
        if not include_self:
            gi = gi.masked_fill(hit, 0)
    else:
        value = result.gather(d, index)
        self_is = input == result
        if not include_self:
            self_is = self_is & ~hit
        src_is = src == value
        n = self_is.to(g.dtype).scatter_add(d, index, src_is.to(g.dtype))
        gd = g / n
        gi = gd.masked_fill(~self_is, 0)
        gs = gd.gather(d, index).masked_fill(~src_is, 0)
    return gi, gs


_ScatterReduce = node_class("ScatterReduceBackward0", _scatter_reduce_vjp)


def _scattered(input: Tensor, d, index: Tensor) -> Tensor:
    """Bool mask of the positions of ``input`` a scatter along ``d`` writes to."""
    mask = _wrap(xp_for(input).zeros(input._data.shape, bool), D.bool, input._device)
    return _scatter_into(mask, d, index, True)


def _counts(input: Tensor, d, index: Tensor, include_self: bool) -> Tensor:
    xp = xp_for(input)
    base = _wrap(
        xp.full(input._data.shape, 1 if include_self else 0, input._data.dtype),
        input._dtype,
        input._device,
    )
    ones = _wrap(xp.ones(index._data.shape, input._data.dtype), input._dtype, input._device)
    c = _scatter_into(base, d, index, ones, xp.add)
    c._data = xp.maximum(c._data, 1)
    return c


_REDUCE_ALIASES = {"max": "amax", "min": "amin"}


@takes_out("scatter_reduce", OUT_EXACT)
def scatter_reduce(
    input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    reduce = _REDUCE_ALIASES.get(reduce, reduce)  # PyTorch takes max/min for amax/amin
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    d = _wrapdim(dim, input._data.ndim)
    _scatter_checks("scatter_reduce", input, d, index, src)
    if reduce in ("amax", "amin") and input._dtype.category == D.COMPLEX:
        from .._dispatch import scalar_name

        raise NotImplementedError(
            f"\"scatter_gather_tensor_cpu_reduce_{reduce}\" not implemented for '{scalar_name(input._dtype)}'"
        )
    xp = xp_for(input)
    base = input
    if not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}[reduce]
        if input._dtype.category == D.INT and reduce in ("amax", "amin"):
            info = np.iinfo(input._dtype.np)
            ident = info.min if reduce == "amax" else info.max
        base = _scatter_into(input, d, index, ident)
    ufunc = {
        "sum": xp.add,
        "mean": xp.add,
        "prod": xp.multiply,
        "amax": xp.maximum,
        "amin": xp.minimum,
    }[reduce]
    r = _scatter_into(base, d, index, src, ufunc)
    if reduce == "mean":
        count = _counts(input, d, index, include_self)._data
        if input._dtype.category == D.INT:
            r._data = r._data // count
        else:
            r._data = (r._data / count).astype(r._data.dtype)
    if _fw_state.level and (input._fw is not None or src._fw is not None):
        _scatter_reduce_jvp(r, input, d, index, src, reduce, include_self)
    if _gm.enabled and (input._rg or src._rg):
        if r._dtype.category == D.COMPLEX:
            raise RuntimeError(
                "scatter_reduce does not support automatic differentiation for outputs with complex dtype."
            )
        record(
            _ScatterReduce,
            (input, src),
            r,
            (input, src, r),
            dim=d,
            index=index,
            reduce=reduce,
            include_self=include_self,
        )
    return r


def _scatter_reduce_jvp(r, input, d, index, src, reduce, include_self):
    from ...autograd.grad_mode import no_grad

    with no_grad():
        ti = input._fw if input._fw is not None else input.new_zeros(input.shape)
        ts = src._fw if src._fw is not None else src.new_zeros(src.shape)
        x, s, res = input.detach(), src.detach(), r.detach()
        if reduce in ("sum", "mean"):  # linear in both
            t = scatter_reduce(ti, d, index, ts, reduce, include_self=include_self)
        elif reduce == "prod":
            return  # PyTorch has no forward-mode formula for it either
        else:  # the winners' tangents, averaged over ties
            self_is = x == res
            if not include_self:
                self_is = self_is & ~_scattered(x, d, index)
            src_is = s == res.gather(d, index)
            n = self_is.to(x.dtype).scatter_add(d, index, src_is.to(x.dtype))
            t = (ti * self_is).scatter_add(d, index, ts * src_is) / n
    r._fw = t
    _register(r)


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    return inplace(
        self,
        lambda s, x: scatter_reduce(s, dim, index, x, reduce, include_self=include_self),
        (src,),
        True,
    )
