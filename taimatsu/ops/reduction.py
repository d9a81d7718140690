"""Reductions and scans: sum, mean, prod, max/min (with indices), amax/amin, argmax/argmin,
var/std, median, logsumexp, norm, all/any, cumsum/cumprod."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype as D
from .._tensor import _wrapdim
from ..autograd.forward_ad import _register
from ..autograd.grad_mode import state as _gm
from ._dispatch import Tensor, _fw_state, _wrap, node_class, record, scalar_name, write_out, xp_for


# ---- return types ------------------------------------------------------------------------------
class _ReturnType(tuple):
    """PyTorch's structseq results (``torch.return_types.max(values=..., indices=...)``)."""

    __slots__ = ()
    _fields = ("values", "indices")
    _name = "max"

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{self._name}(\n{body})"


def _return_type(name, fields=("values", "indices")):
    ns = {"__slots__": (), "_name": name, "_fields": fields}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    return type(name, (_ReturnType,), ns)


class return_types:  # noqa: N801 - mirrors torch.return_types
    max = _return_type("max")
    min = _return_type("min")
    median = _return_type("median")
    nanmedian = _return_type("nanmedian")
    mode = _return_type("mode")
    kthvalue = _return_type("kthvalue")
    sort = _return_type("sort")
    topk = _return_type("topk")
    cummax = _return_type("cummax")
    cummin = _return_type("cummin")
    aminmax = _return_type("aminmax", ("min", "max"))


# ---- helpers --------------------------------------------------------------------------------------
def reduce_dims(dim, nd: int):
    """Normalise ``dim`` (None, int, tuple/list) to a sorted tuple of dims."""
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, (tuple, list)):
        dims = tuple(_wrapdim(d, nd) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
        return tuple(sorted(dims)) if dims else tuple(range(nd))
    return (_wrapdim(dim, nd),)


def expand_back(g: Tensor, in_shape, dims, keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back over the reduced dims."""
    if not keepdim and dims:
        shape = list(g._data.shape)
        for d in sorted(dims):
            shape.insert(d, 1)
        g = g.reshape(shape)
    return g.expand(in_shape)


def _acc_dtype(x: Tensor, dtype):
    if dtype is not None:
        return dtype
    return D.int64 if x._dtype.category < D.FLOAT else x._dtype


def _xp(x):
    return np if x._device.type == "cpu" else xp_for(x)


def _axis(dims, nd):
    return dims if len(dims) != nd or nd == 0 else None


# ---- sum / mean / prod ----------------------------------------------------------------------------------
def _sum_vjp(node, g):
    return (expand_back(g, node.in_shape, node.dims, node.keepdim),)


_Sum0 = node_class("SumBackward0", _sum_vjp)
_Sum1 = node_class("SumBackward1", _sum_vjp)


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:  # noqa: A001
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    nd = input._data.ndim
    dims = reduce_dims(dim, nd)
    dt = _acc_dtype(input, dtype)
    xp = _xp(input)
    a = input._data
    if dt is not input._dtype:
        a = a.astype(dt.np)
    r = xp.sum(a, axis=_axis(dims, nd) if dims else (), keepdims=keepdim)
    res = _wrap(r if isinstance(r, type(a)) else xp.asarray(r, dt.np), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Sum0 if dim is None else _Sum1, (input,), res, (), in_shape=input._data.shape, dims=dims, keepdim=keepdim or dim is None)
    if _fw_state.level and input._fw is not None:
        res._fw = sum(input._fw, dim, keepdim)
        _register(res)
    return res if out is None else write_out(out, res, "sum")


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    from .pointwise import where

    return sum(where(input.isnan(), 0.0, input), dim, keepdim, dtype=dtype)


def _mean_vjp(node, g):
    return (expand_back(g, node.in_shape, node.dims, node.keepdim) / node.count,)


_Mean0 = node_class("MeanBackward0", _mean_vjp)
_Mean1 = node_class("MeanBackward1", _mean_vjp)


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    dt = dtype or input._dtype
    if dt.category < D.FLOAT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {scalar_name(dt)}"
        )
    nd = input._data.ndim
    dims = reduce_dims(dim, nd)
    xp = _xp(input)
    a = input._data if dt is input._dtype else input._data.astype(dt.np)
    r = xp.mean(a, axis=_axis(dims, nd) if dims else (), keepdims=keepdim)
    res = _wrap(xp.asarray(r, dt.np), dt, input._device)
    count = math.prod(input._data.shape[d] for d in dims) if dims else 1
    if input._rg and _gm.enabled:
        record(_Mean0 if dim is None else _Mean1, (input,), res, (), in_shape=input._data.shape, dims=dims,
               keepdim=keepdim or dim is None, count=count)  # fmt: skip
    if _fw_state.level and input._fw is not None:
        res._fw = mean(input._fw, dim, keepdim)
        _register(res)
    return res if out is None else write_out(out, res, "mean")


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    notnan = (~input.isnan()).sum(dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / notnan


def _prod_others(x: Tensor, d: int) -> Tensor:
    """For each element, the product of the others along ``d`` (exact with zeros)."""
    n = x.shape[d]
    ones = x.new_ones(x.shape[:d] + (1,) + x.shape[d + 1 :])
    left = cat_([ones, x.narrow(d, 0, n - 1)], d).cumprod(d)
    rev = x.flip(d)
    right = cat_([ones, rev.narrow(d, 0, n - 1)], d).cumprod(d).flip(d)
    return left * right


def cat_(ts, d):
    from .shape import cat

    return cat(ts, d)


def _prod_vjp(node, g):
    (x,) = node.saved()
    if node.dim is None:
        flat = x.reshape(-1)
        return ((g * _prod_others(flat, 0)).reshape(x.shape) if flat.numel() else x * 0,)
    gd = g if node.keepdim else g.unsqueeze(node.dim)
    return (gd * _prod_others(x, node.dim),)


_Prod0 = node_class("ProdBackward0", _prod_vjp)
_Prod1 = node_class("ProdBackward1", _prod_vjp)


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    nd = input._data.ndim
    dt = _acc_dtype(input, dtype)
    xp = _xp(input)
    a = input._data if dt is input._dtype else input._data.astype(dt.np)
    d = None if dim is None else _wrapdim(dim, nd)
    r = xp.prod(a, axis=d if nd else None, keepdims=keepdim if d is not None else False)
    res = _wrap(xp.asarray(r, dt.np), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Prod0 if d is None else _Prod1, (input,), res, (input,), dim=d if nd else None, keepdim=keepdim)
    return res


# ---- max / min / amax / amin / argmax / argmin ----------------------------------------------------------
def _evenly_vjp(node, g):
    """Gradient shared equally among the elements equal to the extreme value."""
    x, out = node.saved()
    mask = x == (out if node.keepdim else expand_back(out, x.shape, node.dims, False))
    count = mask.sum(node.dims if node.dims else None, keepdim=True)
    return (expand_back(g, x.shape, node.dims, node.keepdim) * mask / count,)


_MaxAll = node_class("MaxBackward1", _evenly_vjp)
_MinAll = node_class("MinBackward1", _evenly_vjp)
_Amax = node_class("AmaxBackward0", _evenly_vjp)
_Amin = node_class("AminBackward0", _evenly_vjp)


def _index_vjp(node, g, *rest):
    """value_selecting_reduction_backward: the gradient goes to the selected index."""
    idx = node.indices
    gd = g if node.keepdim else g.unsqueeze(node.dim)
    return (scatter_to(gd, node.dim, idx, node.in_shape),)


_MaxDim = node_class("MaxBackward0", _index_vjp)
_MinDim = node_class("MinBackward0", _index_vjp)
_MedianDim = node_class("MedianBackward1", _index_vjp)


def _check_nonempty(input, name):
    if input._data.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument."
        )


def _extreme(name, input, dim, keepdim, other, arg_f, all_node, dim_node, rtype):
    if isinstance(dim, Tensor) and other is None:
        other, dim = dim, None
    if other is not None:
        from .pointwise import maximum, minimum

        return (maximum if name == "max" else minimum)(input, other)
    xp = _xp(input)
    if dim is None:
        _check_nonempty(input, name)
        a = input._data
        r = (xp.max if name == "max" else xp.min)(a) if a.dtype.kind != "f" or not xp.isnan(a).any() else xp.asarray(np.nan, a.dtype)
        res = _wrap(xp.asarray(r, a.dtype), input._dtype, input._device)
        if input._rg and _gm.enabled:
            record(all_node, (input,), res, (input, res), dims=tuple(range(a.ndim)), keepdim=False)
        return res
    nd = input._data.ndim
    d = _wrapdim(dim, nd)
    a = input._data
    if a.size == 0 and (nd == 0 or a.shape[d] == 0):
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = _arg_extreme(xp, a, d if nd else None, name, keepdim=True)
    vals = xp.take_along_axis(a, idx, d) if nd else a.copy()
    if not keepdim and nd:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    v = _wrap(vals, input._dtype, input._device)
    i = _wrap(idx.astype(np.int64), D.int64, input._device)
    if input._rg and _gm.enabled:
        ik = i if (keepdim or not nd) else i.unsqueeze(d)
        record(dim_node, (input,), v, (), indices=ik, dim=d, keepdim=keepdim or not nd, in_shape=a.shape)
    if _fw_state.level and input._fw is not None:
        v._fw = input._fw.gather(d, i if keepdim else i.unsqueeze(d)).reshape(v.shape) if nd else input._fw.clone()
        _register(v)
    return rtype(v, i)


def _arg_extreme(xp, a, axis, name, keepdim):
    """Indices of max/min, with NaN winning as in PyTorch (first occurrence)."""
    if a.dtype.kind in "fc":
        nan = xp.isnan(a)
        if nan.any():
            r = xp.argmax(nan, axis=axis, keepdims=keepdim)
            has = xp.any(nan, axis=axis, keepdims=keepdim)
            other = (xp.argmax if name == "max" else xp.argmin)(a, axis=axis, keepdims=keepdim)
            return xp.where(has, r, other)
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    return (xp.argmax if name == "max" else xp.argmin)(a, axis=axis, keepdims=keepdim)


def max(input: Tensor, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001
    return _extreme("max", input, dim, keepdim, None, None, _MaxAll, _MaxDim, return_types.max)


def min(input: Tensor, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001
    return _extreme("min", input, dim, keepdim, None, None, _MinAll, _MinDim, return_types.min)


def _amaxmin(name, node, input, dim, keepdim):
    nd = input._data.ndim
    dims = reduce_dims(dim if dim != () else None, nd)
    xp = _xp(input)
    a = input._data
    if a.size == 0 and builtins.any(a.shape[d] == 0 for d in dims):
        raise IndexError(f"{name}(): Expected reduction dim {dims[0]} to have non-zero size.")
    f = xp.max if name == "amax" else xp.min
    r = f(a, axis=_axis(dims, nd) if dims else (), keepdims=keepdim)
    res = _wrap(xp.asarray(r, a.dtype), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(node, (input,), res, (input, res), dims=dims, keepdim=keepdim)
    return res


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    return _amaxmin("amax", _Amax, input, dim, keepdim)


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    return _amaxmin("amin", _Amin, input, dim, keepdim)


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False):
    return return_types.aminmax(amin(input, () if dim is None else dim, keepdim), amax(input, () if dim is None else dim, keepdim))


def _argextreme(name, input, dim, keepdim):
    xp = _xp(input)
    a = input._data
    if dim is None:
        if a.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        r = _arg_extreme(xp, a.reshape(-1), 0, name[3:], keepdim=False)
        if keepdim:
            r = xp.asarray(r).reshape((1,) * a.ndim)
        return _wrap(xp.asarray(r, np.int64), D.int64, input._device)
    d = _wrapdim(dim, a.ndim)
    r = _arg_extreme(xp, a, d if a.ndim else None, name[3:], keepdim=keepdim)
    return _wrap(xp.asarray(r, np.int64), D.int64, input._device)


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _argextreme("argmax", input, dim, keepdim)


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _argextreme("argmin", input, dim, keepdim)


# ---- scatter helper used by index-selecting backward -----------------------------------------------------
def _scatter_to_vjp(node, g):
    return (g.gather(node.dim, node.index),)


_ScatterTo = node_class("ScatterBackward0", _scatter_to_vjp)


def scatter_to(src: Tensor, dim: int, index: Tensor, shape) -> Tensor:
    """Zeros of ``shape`` with ``src`` placed at ``index`` along ``dim`` (differentiable)."""
    xp = xp_for(src)
    out = xp.zeros(shape, src._data.dtype)
    if len(shape):
        xp.put_along_axis(out, index._data, src._data, dim)
    else:
        out[...] = src._data
    r = _wrap(out, src._dtype, src._device)
    if src._rg and _gm.enabled:
        record(_ScatterTo, (src,), r, (), dim=dim, index=index)
    return r


# ---- var / std ------------------------------------------------------------------------------------------------
def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _var_args(dim, unbiased, correction):
    # var(dim=None, unbiased: bool) legacy positional form: var(True)
    if isinstance(dim, bool):
        return None, dim, correction
    return dim, unbiased, correction


def _var_vjp(node, g):
    (x,) = node.saved()
    m = x.mean(node.dims, keepdim=True) if node.dims else x
    return (expand_back(g, x.shape, node.dims, node.keepdim) * (x - m) * (2.0 / node.denom),)


def _std_vjp(node, g):
    x, out = node.saved()
    m = x.mean(node.dims, keepdim=True)
    o = out if node.keepdim else expand_back(out, x.shape, node.dims, False)
    return (expand_back(g, x.shape, node.dims, node.keepdim) * (x - m) / (o * node.denom),)


_Var = node_class("VarBackward0", _var_vjp)
_Std = node_class("StdBackward0", _std_vjp)


def _moments(input, dim, unbiased, correction, keepdim, take_sqrt):
    dim, unbiased, correction = _var_args(dim, unbiased, correction)
    if input._dtype.category < D.FLOAT:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    nd = input._data.ndim
    dims = reduce_dims(dim, nd)
    c = _correction(unbiased, correction)
    n = math.prod(input._data.shape[d] for d in dims) if dims else 1
    xp = _xp(input)
    a = input._data
    axis = _axis(dims, nd) if dims else ()
    m = xp.mean(a, axis=axis, keepdims=True)
    dev = xp.abs(a - m) ** 2 if a.dtype.kind == "c" else (a - m) ** 2
    denom = builtins.max(n - c, 0)
    r = xp.sum(dev, axis=axis, keepdims=keepdim) / denom if denom else xp.sum(dev, axis=axis, keepdims=keepdim) / 0.0
    if take_sqrt:
        r = xp.sqrt(r)
    rt = input._dtype.to_real()
    res = _wrap(xp.asarray(r, rt.np), rt, input._device)
    if input._rg and _gm.enabled:
        if take_sqrt:
            record(_Std, (input,), res, (input, res), dims=dims, keepdim=keepdim, denom=denom)
        else:
            record(_Var, (input,), res, (input,), dims=dims, keepdim=keepdim, denom=denom)
    return res


def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None) -> Tensor:
    return _moments(input, dim, unbiased, correction, keepdim, False)


def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None) -> Tensor:
    return _moments(input, dim, unbiased, correction, keepdim, True)


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return var(input, dim, unbiased, keepdim, correction=correction), mean(input, _var_args(dim, unbiased, correction)[0], keepdim)


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return std(input, dim, unbiased, keepdim, correction=correction), mean(input, _var_args(dim, unbiased, correction)[0], keepdim)


# ---- median --------------------------------------------------------------------------------------------
_MedianAll = node_class("MedianBackward0", _evenly_vjp)


def median(input: Tensor, dim=None, keepdim: bool = False):
    """The lower of the two middle values (PyTorch's definition, not NumPy's average)."""
    xp = _xp(input)
    a = input._data
    if dim is None:
        if a.size == 0:
            return _wrap(xp.asarray(np.nan, a.dtype), input._dtype, input._device)
        flat = a.reshape(-1)
        k = (flat.size - 1) // 2
        if a.dtype.kind == "f" and xp.isnan(flat).any():
            v = xp.asarray(np.nan, a.dtype)
        else:
            v = xp.partition(flat, k)[k]
        res = _wrap(xp.asarray(v, a.dtype), input._dtype, input._device)
        if input._rg and _gm.enabled:
            record(_MedianAll, (input,), res, (input, res), dims=tuple(range(a.ndim)), keepdim=False)
        return res
    nd = a.ndim
    d = _wrapdim(dim, nd)
    if nd == 0:
        v = _wrap(a.copy(), input._dtype, input._device)
        return return_types.median(v, _wrap(xp.zeros((), np.int64), D.int64, input._device))
    k = (a.shape[d] - 1) // 2
    order = xp.argsort(a, axis=d, kind="stable")
    idx = xp.take(order, [k], axis=d)
    if a.dtype.kind == "f":
        nan = xp.isnan(a)
        if nan.any():
            first_nan = xp.argmax(nan, axis=d, keepdims=True)
            idx = xp.where(xp.any(nan, axis=d, keepdims=True), first_nan, idx)
    vals = xp.take_along_axis(a, idx, d)
    if not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    v = _wrap(vals, input._dtype, input._device)
    i = _wrap(idx.astype(np.int64), D.int64, input._device)
    if input._rg and _gm.enabled:
        record(_MedianDim, (input,), v, (), indices=i if keepdim else i.unsqueeze(d), dim=d, keepdim=keepdim, in_shape=a.shape)
    return return_types.median(v, i)


# ---- logsumexp / norm / all / any / count_nonzero --------------------------------------------------------------
def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    if input._dtype.category < D.FLOAT:
        input = input.to(D.get_default_dtype())
    dims = reduce_dims(dim, input._data.ndim)
    m = amax(input.detach(), dims, keepdim=True)
    m = m.masked_fill(m.isinf(), 0)
    r = (input - m).exp().sum(dims, keepdim=True).log() + m
    out = r if keepdim else r.squeeze(dims) if dims else r
    if input._rg and _gm.enabled:
        # One node with PyTorch's name; its VJP is softmax times the gradient.
        res = _wrap(out._data, out._dtype, out._device)
        record(_Logsumexp, (input,), res, (input, res), dims=dims, keepdim=keepdim)
        return res
    return out


def _logsumexp_vjp(node, g):
    x, out = node.saved()
    o = out if node.keepdim else expand_back(out, x.shape, node.dims, False)
    return (expand_back(g, x.shape, node.dims, node.keepdim) * (x - o).exp(),)


_Logsumexp = node_class("LogsumexpBackward0", _logsumexp_vjp)


def _norm_vjp(node, g):
    x, out = node.saved()
    p = node.p
    o = out if node.keepdim else expand_back(out, x.shape, node.dims, False)
    ge = expand_back(g, x.shape, node.dims, node.keepdim)
    if p == 2:
        return (ge * x / o.masked_fill(o == 0, float("inf")),)
    if p == 1:
        return (ge * x.sgn(),)
    if p == math.inf or p == -math.inf:
        mask = x.abs() == o
        return (ge * x.sgn() * mask / mask.sum(node.dims, keepdim=True),)
    if p == 0:
        return (x * 0,)
    return (ge * x.sgn() * x.abs().pow(p - 1) / o.pow(p - 1).masked_fill(o == 0, float("inf")),)


_VectorNorm = node_class("LinalgVectorNormBackward0", _norm_vjp)


def vector_norm(input: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if input._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {scalar_name(input._dtype)}"
        )
    nd = input._data.ndim
    dims = reduce_dims(dim, nd)
    xp = _xp(input)
    a = xp.abs(input._data)
    axis = _axis(dims, nd) if dims else ()
    p = float(ord)
    if p == math.inf:
        r = xp.max(a, axis=axis, keepdims=keepdim) if a.size else xp.zeros(())
    elif p == -math.inf:
        r = xp.min(a, axis=axis, keepdims=keepdim)
    elif p == 0:
        r = xp.sum(a != 0, axis=axis, keepdims=keepdim)
    elif p == 1:
        r = xp.sum(a, axis=axis, keepdims=keepdim)
    elif p == 2:
        r = xp.sqrt(xp.sum(a * a, axis=axis, keepdims=keepdim))
    else:
        r = xp.sum(a**p, axis=axis, keepdims=keepdim) ** (1 / p)
    rt = input._dtype.to_real()
    res = _wrap(xp.asarray(r, rt.np), rt, input._device)
    if input._rg and _gm.enabled:
        record(_VectorNorm, (input,), res, (input, res), dims=dims, keepdim=keepdim, p=p)
    return res


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("nuclear norm is not implemented yet")
    return vector_norm(input, p, dim, keepdim)


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    xp = _xp(input)
    dims = reduce_dims(dim, input._data.ndim)
    r = xp.all(input._data, axis=_axis(dims, input._data.ndim) if dims else (), keepdims=keepdim)
    dt = D.uint8 if input._dtype is D.uint8 else D.bool
    return _wrap(xp.asarray(r).astype(dt.np), dt, input._device)


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    xp = _xp(input)
    dims = reduce_dims(dim, input._data.ndim)
    r = xp.any(input._data, axis=_axis(dims, input._data.ndim) if dims else (), keepdims=keepdim)
    dt = D.uint8 if input._dtype is D.uint8 else D.bool
    return _wrap(xp.asarray(r).astype(dt.np), dt, input._device)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    xp = _xp(input)
    dims = reduce_dims(dim, input._data.ndim)
    r = xp.count_nonzero(input._data, axis=_axis(dims, input._data.ndim) if dims else None)
    return _wrap(xp.asarray(r, np.int64), D.int64, input._device)


# ---- scans ---------------------------------------------------------------------------------------------
def _cumsum_vjp(node, g):
    return (g.flip(node.dim).cumsum(node.dim).flip(node.dim),)


_Cumsum = node_class("CumsumBackward0", _cumsum_vjp)


def cumsum(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    dt = _acc_dtype(input, dtype)
    xp = _xp(input)
    a = input._data if dt is input._dtype else input._data.astype(dt.np)
    res = _wrap(xp.cumsum(a, axis=d if a.ndim else None).reshape(a.shape), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Cumsum, (input,), res, (), dim=d)
    if _fw_state.level and input._fw is not None:
        res._fw = cumsum(input._fw, d)
        _register(res)
    return res if out is None else write_out(out, res, "cumsum")


def _cumprod_vjp(node, g):
    (x,) = node.saved()
    d = node.dim
    # d out_j / d x_i = prod_{k<=j, k!=i} x_k: sum over j>=i of g_j * that.
    n = x.shape[d] if x.dim() else 1
    if x.dim() == 0:
        return (g,)
    rows = []
    for i in range(n):
        xi = x.narrow(d, i, 1)
        others = x.narrow(d, 0, i).prod(d, keepdim=True) if i else x.new_ones(xi.shape)
        tail = x.narrow(d, i + 1, n - i - 1)
        run = cat_([x.new_ones(xi.shape), tail.cumprod(d)], d) * others
        rows.append((g.narrow(d, i, n - i) * run).sum(d, keepdim=True))
    return (cat_(rows, d),)


_Cumprod = node_class("CumprodBackward0", _cumprod_vjp)


def cumprod(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    dt = _acc_dtype(input, dtype)
    xp = _xp(input)
    a = input._data if dt is input._dtype else input._data.astype(dt.np)
    res = _wrap(xp.cumprod(a, axis=d if a.ndim else None).reshape(a.shape), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Cumprod, (input,), res, (input,), dim=d)
    return res if out is None else write_out(out, res, "cumprod")
