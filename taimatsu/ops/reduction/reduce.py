"""Reductions: sum, mean, prod, nansum/nanmean, var/std (+ _mean), logsumexp, all/any,
count_nonzero (vector_norm/norm in ``ops/reduction/norms.py``).

Each forward is one (or a few) vectorised NumPy/CuPy calls. The value-selecting reductions
(max/min/amax/amin/aminmax/argmax/argmin/median) live in ``ops/reduction/extrema.py``, the scans
(cumsum/cumprod) in ``ops/reduction/scans.py``; both are re-exported here. Most VJPs are "coefficient
times the restored gradient": ``d out / d x`` has the input's shape, and the gradient of the
reduced output is broadcast back over the reduced dims.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as np

from ... import _dtype as D
from ..._autocast import FP32, cast_policy
from ..._flags import user_stacklevel
from ..._layout import row_major
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.forward_ad import _register, on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math.cascade_sum import cascade_sum
from ...backend.float32_math.moments import moments
from ...backend.float32_math.product import ordered_prod
from ...backend.fp_errors import silent
from .._dispatch import (
    OUT_EXACT,
    _fw_state,
    cpp_name,
    need_tensor,
    record,
    scalar_name,
    write_out,
    xp_for,
)
from ..arg_types import _is_int
from ..pointwise.binary import div_scalar
from ..pointwise.common import rounded as rounded_f32


# ---- helpers --------------------------------------------------------------------------------------
def reduce_dims(dim, nd: int) -> tuple:
    """Normalise ``dim`` (None, int, tuple/list; empty means all) to a sorted tuple of axes.

    A 0-d tensor accepts dim 0 / -1 but has no axis to reduce, so it gets ``()``.
    """
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, Tensor) and dim._data.size == 1 and dim._dtype.category in (D.INT, D.BOOL):
        dim = int(dim._data.reshape(-1)[0])  # one integer element: a dim list of one, as PyTorch
    if isinstance(dim, (tuple, list)):
        if not dim:
            return tuple(range(nd))
        dims = tuple(_wrapdim(operator.index(d), nd) for d in dim)  # a bool in a tuple is 0/1
        if len(set(dims)) != len(dims):
            seen = set()
            for d in dims:
                if d in seen:
                    raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
                seen.add(d)
        return tuple(sorted(dims)) if nd else ()
    d = _wrapdim(dim, nd)
    return (d,) if nd else ()


def need_int_dim(name: str, dim, overloads: bool = True, what: str = "int") -> None:
    """PyTorch's parser refuses a dim (or a dim in a tuple) that is not an int with a TypeError;
    ``_wrapdim`` alone would read a bool or a float as a number. ``overloads``: the function has
    several signatures, so PyTorch's message is "invalid combination of arguments"."""
    if isinstance(dim, (tuple, list)):
        # PyTorch's parser picks the signature by the first element: a bool there is refused,
        # a bool further on is read as 0 or 1
        dims = (None,) if dim and isinstance(dim[0], bool) else dim
    else:
        dims = (None if isinstance(dim, bool) else dim,)
    for d in dims:
        if d is None or not hasattr(d, "__index__"):
            got = type(dim).__name__
            if overloads:
                raise TypeError(
                    f"{name}() received an invalid combination of arguments - got (Tensor, {got})"
                )
            raise TypeError(f"{name}(): argument 'dim' (position 2) must be {what}, not {got}")


def _axis(dims, nd):
    """NumPy's axis argument: None for a full reduction (its fastest path)."""
    return None if len(dims) == nd and nd else dims


def restore(g: Tensor, shape, dims, keepdim: bool) -> Tensor:
    """Broadcast a reduced tensor back over the reduced dims (``sum_backward``): a 0-d ``g``
    expands as it is; else the reduced dims come back as PyTorch's unsqueeze_multiple does, one
    UnsqueezeBackward0 each when a graph is built (one reshape view otherwise: the same array)."""
    if not keepdim and dims and 0 < g._data.ndim != len(shape):
        if g._rg and _gm.enabled:
            for d in dims:  # sorted: each lands where it was
                g = g.unsqueeze(d)
        else:
            g = g.reshape([1 if i in dims else s for i, s in enumerate(shape)])
    return g.expand(shape)


expand_back = restore  # older name, kept for callers elsewhere


def _xp(x):
    return np if x._device.type == "cpu" else xp_for(x)


def _acc_dtype(x: Tensor, dtype):
    if dtype is not None:
        return dtype
    return D.int64 if x._dtype.category < D.FLOAT else x._dtype


def _count(shape, dims) -> int:
    return math.prod(shape[d] for d in dims)


def _set_tangent(res: Tensor, jvp, *args) -> None:
    """``res``'s tangent is ``jvp(*args)``, computed on primal values only (no nested tangents)."""
    res._fw = on_primals(jvp, *args)
    _register(res)


def widen(a):
    """float16/bfloat16 arrays as float32: PyTorch's CPU reductions accumulate half types in float32
    and round only the result (a half-precision running sum overflows or stalls)."""
    return a.astype(np.float32) if a.dtype.char in D.HALF_CHARS else a


def rounded(a, dtype):
    """A float32 intermediate rounded to ``dtype`` (float16/bfloat16) and widened again: where
    PyTorch composes an op of half-precision ops, each step's result is a half value."""
    return a.astype(dtype).astype(np.float32)


def keepdim_shape(shape, axis) -> tuple:
    """``shape`` with the reduced axes (``axis``: a tuple, or None for all) kept as size 1."""
    return tuple(1 if axis is None or i in axis else s for i, s in enumerate(shape))


@silent
def _sum_array(xp, a, axis, keepdim):
    if a.dtype.char in D.HALF_CHARS:  # float16/bfloat16: accumulate in float32 like PyTorch
        with np.errstate(over="ignore"):  # a sum beyond the half range is inf, silently
            return xp.sum(a, axis=axis, keepdims=keepdim, dtype=np.float32).astype(a.dtype)
    # NumPy widens bool and small integers to int64; PyTorch sums in the dtype itself: a bool sum
    # is True where any element is nonzero, an int8/uint8/int16/int32 sum wraps around.
    dt = a.dtype if a.dtype.kind in "biu" and a.dtype.itemsize < 8 else None
    if xp is np and a.dtype.char in "fd":  # in PyTorch's order of additions: its bits
        r = cascade_sum(a, range(a.ndim) if axis is None else axis)
        return r.reshape(keepdim_shape(a.shape, axis)) if keepdim else r
    if xp is np:  # the ufunc method directly: np.sum's Python wrapper costs a few microseconds
        r = np.add.reduce(a, axis=axis, keepdims=keepdim, dtype=dt)
        return r if r.__class__ is np.ndarray else np.asarray(r)
    return xp.asarray(xp.sum(a, axis=axis, keepdims=keepdim, dtype=dt))


# ---- sum / nansum -------------------------------------------------------------------------------------
def _sum_vjp(node, g):
    return (restore(g, node.in_shape, node.dims, node.keepdim),)


_Sum0 = node_class("SumBackward0", _sum_vjp)
_Sum1 = node_class("SumBackward1", _sum_vjp)


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``torch.sum``; integer and bool inputs sum to int64 unless ``dtype`` says otherwise."""
    need_tensor("sum", input)
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    dtype = D.dtype_argument("sum", dtype)
    if dim is not None:
        need_int_dim("sum", dim)
    if out is not None and dim is None:  # only the dim= overloads of sum take out=
        raise TypeError(
            "sum() received an invalid combination of arguments - got (Tensor, out=Tensor)"
        )
    explicit = dtype
    if out is not None and dtype is None:
        dtype = out._dtype  # sum's out= variant computes in the out tensor's dtype
    a = input._data
    nd = a.ndim
    dims = reduce_dims(dim, nd)
    dt = _acc_dtype(input, dtype)
    if dt in D._SHELL_UINTS and a.size:  # PyTorch has no uint16/32/64 sum kernel
        raise NotImplementedError(f"\"sum_cpu\" not implemented for '{scalar_name(dt)}'")
    if dt is not input._dtype:
        a = a.astype(dt.np)
    xp = _xp(input)
    res = _wrap(row_major(xp, _sum_array(xp, a, _axis(dims, nd), keepdim)), dt, input._device)
    if input._rg and _gm.enabled:
        record(
            _Sum0 if dim is None else _Sum1,
            (input,),
            res,
            (),
            in_shape=input._data.shape,
            dims=dims,
            keepdim=keepdim,
        )
    if _fw_state.level and input._fw is not None:
        _set_tangent(res, lambda: sum(input._fw, dims, keepdim, dtype=dt))
    return (
        res if out is None else write_out(out, res, "sum", None if explicit is None else OUT_EXACT)
    )


def _nansum_vjp(node, g):
    (x,) = node.saved()
    return (restore(g, x._data.shape, node.dims, node.keepdim) * x.isnan().logical_not(),)


_Nansum = node_class("NansumBackward0", _nansum_vjp)


@silent
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``torch.nansum``: NaNs count as zero."""
    dtype = D.dtype_argument("nansum", dtype)
    if dim is not None:
        need_int_dim("nansum", dim, False, "tuple of ints")
    if input._dtype.category == D.COMPLEX:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if dtype is not None and dtype.category == D.COMPLEX:
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{scalar_name(dtype)}'")
    if out is not None and dtype is None and isinstance(out, Tensor):
        if input._dtype.category >= D.FLOAT and out._dtype.category < D.FLOAT:
            raise NotImplementedError(
                f"\"nansum_cpu\" not implemented for '{scalar_name(out._dtype)}'"
            )
        dtype = out._dtype  # the out= variant computes in the out tensor's dtype
    a = input._data
    nd = a.ndim
    dims = reduce_dims(dim, nd)
    dt = _acc_dtype(input, dtype)
    if dt is not input._dtype:
        a = a.astype(dt.np)
    xp = _xp(input)
    if xp is np and a.dtype.char in "fd":  # PyTorch's sum kernel, its loads turning NaN to 0
        zeroed = np.where(np.isnan(a), a.dtype.type(0), a)
        r = cascade_sum(zeroed, dims, strides=a.strides)
        r = r.reshape(keepdim_shape(a.shape, dims)) if keepdim else r
    else:
        a = widen(a)
        r = (
            xp.nansum(a, axis=_axis(dims, nd), keepdims=keepdim)
            if a.dtype.kind in "fc"
            else xp.sum(a, axis=_axis(dims, nd), keepdims=keepdim)
        )
    res = _wrap(row_major(xp, xp.asarray(r, dt.np)), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Nansum, (input,), res, (input,), dims=dims, keepdim=keepdim)
    if _fw_state.level and input._fw is not None:
        _set_tangent(
            res, lambda: sum(input._fw * input.isnan().logical_not(), dims, keepdim, dtype=dt)
        )
    return res if out is None else write_out(out, res, "nansum")


# ---- mean / nanmean -------------------------------------------------------------------------------------
def _mean_vjp(node, g):
    # PyTorch's mean_backward divides by a C++ Scalar: DivBackward1 under create_graph
    return (div_scalar(restore(g, node.in_shape, node.dims, node.keepdim), node.count),)


_Mean0 = node_class("MeanBackward0", _mean_vjp)
_Mean1 = node_class("MeanBackward1", _mean_vjp)


@silent  # 0 / 0 is NaN for an empty reduction
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    need_tensor("mean", input)
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    dtype = D.dtype_argument("mean", dtype)
    if dim is not None:
        need_int_dim("mean", dim)
    if dtype is None and input._dtype.category < D.FLOAT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {scalar_name(input._dtype)}"
        )
    if dtype is not None and dtype.category < D.FLOAT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. "
            f"Got: {scalar_name(dtype)}"
        )
    if out is not None and dim is None and not D.can_cast(input._dtype, out._dtype):
        raise RuntimeError(
            f"mean.dtype_out(): input types can't be cast to the desired output type {scalar_name(out._dtype)}"
        )
    if out is not None and dtype is not None and out._dtype is not dtype:
        raise RuntimeError(OUT_EXACT.format(res_cpp=cpp_name(dtype), out_cpp=cpp_name(out._dtype)))
    dt = dtype or input._dtype
    a = input._data if dt is input._dtype else input._data.astype(dt.np)
    nd = a.ndim
    dims = reduce_dims(dim, nd)
    count = _count(a.shape, dims)
    xp = _xp(input)
    r = _sum_array(xp, widen(a), _axis(dims, nd), keepdim)
    r = r / xp.asarray(count, r.dtype)  # 0 / 0 is NaN for an empty reduction, as in PyTorch
    res = _wrap(row_major(xp, r.astype(a.dtype, copy=False)), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Mean0 if dim is None else _Mean1, (input,), res, (), in_shape=a.shape, dims=dims,
               keepdim=keepdim, count=count)  # fmt: skip
    if _fw_state.level and input._fw is not None:
        _set_tangent(res, lambda: mean(input._fw.to(dt), dims, keepdim))
    return res if out is None else write_out(out, res, "mean")


@silent
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``nansum / number of non-NaN elements`` -- PyTorch's own composition (DivBackward0)."""
    dtype = D.dtype_argument("nanmean", dtype)
    if input._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {scalar_name(input._dtype)}"
        )
    if dtype is not None and dtype.category < D.FLOAT:
        raise RuntimeError(
            "nanmean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
            f"dtype. Got: {scalar_name(dtype)}"
        )
    if out is not None and isinstance(out, Tensor) and out._dtype.category < D.FLOAT:
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{scalar_name(out._dtype)}'")
    notnan = input.isnan().logical_not().sum(dim, keepdim)
    r = nansum(input, dim, keepdim, dtype=dtype) / notnan
    return r if out is None else write_out(out, r, "nansum")


# ---- prod -------------------------------------------------------------------------------------------------
def _prod_others(x: Tensor, d: int) -> Tensor:
    """For each element, the product of the others along ``d`` (exact with zeros)."""
    from ..shape.copies import cat

    n = x._data.shape[d]
    if n == 0:
        return x
    ones = x.new_ones(x.shape[:d] + (1,) + x.shape[d + 1 :])
    left = cat([ones, x.narrow(d, 0, n - 1)], d).cumprod(d)
    right = cat([ones, x.flip(d).narrow(d, 0, n - 1)], d).cumprod(d).flip(d)
    return left * right


def _prod_coef(x: Tensor, dim) -> Tensor:
    if not x._data.ndim:
        return x.new_ones(())
    if dim is None:
        return _prod_others(x.reshape(-1), 0).reshape(x.shape)
    return _prod_others(x, dim)


def _prod_vjp(node, g):
    (x,) = node.saved()
    if node.dim is not None and not node.keepdim and x._data.ndim:
        g = g.unsqueeze(node.dim)
    return (g * _prod_coef(x, node.dim).conj(),)


def _prod_jvp(x, axis, keepdim):
    t = x._fw * _prod_coef(x, axis)
    return t.sum() if axis is None else t.sum(axis, keepdim)


_Prod0 = node_class("ProdBackward0", _prod_vjp)
_Prod1 = node_class("ProdBackward1", _prod_vjp)


@cast_policy(FP32, ("cpu",))
def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    need_tensor("prod", input)
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    dtype = D.dtype_argument("prod", dtype)
    if dim is not None and not _is_int(dim):
        raise TypeError(
            f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), but expected one of:"
        )
    if out is not None and dim is None:  # only prod(input, dim, ...) takes out=
        raise TypeError(
            "prod() received an invalid combination of arguments - got (Tensor, out=Tensor)"
        )
    if out is not None and dtype is None and isinstance(out, Tensor):
        dtype = out._dtype  # the out= variant computes in the out tensor's dtype
    a = input._data
    nd = a.ndim
    dt = _acc_dtype(input, dtype)
    if dt in D._SHELL_UINTS and a.size:  # PyTorch has no uint16/32/64 prod kernel
        raise NotImplementedError(f"\"prod_out_cpu\" not implemented for '{scalar_name(dt)}'")
    if dt is not input._dtype:
        a = a.astype(dt.np)
    xp = _xp(input)
    d = None if dim is None else _wrapdim(dim, nd)
    axis = None if d is None or not nd else d
    r = None
    if xp is np and a.size and (a.dtype.char in "fd" or a.dtype.char in D.HALF_CHARS):
        # in PyTorch's order: its bits
        r = ordered_prod(a, range(nd) if axis is None else (axis,))
        if r is not None and keepdim and axis is not None:
            r = r.reshape(keepdim_shape(a.shape, (axis,)))
    if r is None:
        # no widening: PyTorch's CPU prod multiplies float16/bfloat16 in the half type itself
        r = xp.asarray(xp.prod(a, axis=axis, keepdims=keepdim and axis is not None), dt.np)
    res = _wrap(r, dt, input._device)
    if input._rg and _gm.enabled:
        record(
            _Prod0 if dim is None else _Prod1, (input,), res, (input,), dim=axis, keepdim=keepdim
        )
    if _fw_state.level and input._fw is not None:
        _set_tangent(res, _prod_jvp, input, axis, keepdim)
    return res if out is None else write_out(out, res, "prod")


# ---- var / std ------------------------------------------------------------------------------------------------
def _var_args(name, input, dim, unbiased, correction):
    if dim is not None and not isinstance(dim, bool):  # a bool: the legacy unbiased form
        need_int_dim(name, dim)
    if input._dtype.category < D.FLOAT:
        what = name if name.endswith("_mean") else "std and var"
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    if isinstance(dim, bool):  # var(input, unbiased): the legacy positional form
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    nd = input._data.ndim
    dims = reduce_dims(dim, nd)
    n = _count(input._data.shape, dims)
    return dims, correction, n


def _dof_warning(name, n, correction, nonempty):
    if n - correction <= 0 and nonempty:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def _var_array(xp, a, dims, correction, n, keepdim):
    axis = _axis(dims, a.ndim)
    m = xp.mean(a, axis=axis, keepdims=True) if a.size else xp.zeros((1,) * a.ndim, a.dtype)
    dev = a - m
    sq = (dev.real**2 + dev.imag**2) if a.dtype.kind == "c" else dev * dev
    ss = xp.sum(sq, axis=axis, keepdims=keepdim)
    return xp.asarray(ss / xp.asarray(builtins.max(n - correction, 0), ss.dtype))


def _var_coef(x: Tensor, dims, denom) -> Tensor:
    """d var / d x = 2 (x - mean) / (N - correction)."""
    m = x.mean(dims, keepdim=True) if dims else x
    return (x - m) * (2.0 / denom if denom > 0 else math.inf)


def _var_vjp(node, g):
    (x,) = node.saved()
    return (
        restore(g, x._data.shape, node.dims, node.keepdim) * _var_coef(x, node.dims, node.denom),
    )


def _std_grad_var(g, std):
    """grad of var from grad of std: g / (2 std), zero where std is zero (PyTorch's choice)."""
    return (g / (std * 2)).masked_fill(std == 0, 0)


def _std_vjp(node, g):
    x, out = node.saved()
    gv = _std_grad_var(g, out)
    return (
        restore(gv, x._data.shape, node.dims, node.keepdim) * _var_coef(x, node.dims, node.denom),
    )


def _var_mean_vjp(node, gv, gm):
    x, out = node.saved()
    shape, dims, keepdim = x._data.shape, node.dims, node.keepdim
    if node.is_std:
        gv = _std_grad_var(gv, out)
    gx = restore(gv, shape, dims, keepdim) * _var_coef(x, dims, node.denom)
    return (gx + restore(gm, shape, dims, keepdim) / node.count,)


_Var = node_class("VarBackward0", _var_vjp)
_Std = node_class("StdBackward0", _std_vjp)
_VarMean = node_class("VarMeanBackward0", _var_mean_vjp)
_StdMean = node_class("StdMeanBackward0", _var_mean_vjp)


def _moment_arrays(a, dims, correction, keepdim, take_sqrt, with_mean):
    """var (or std) and mean (or None) of a non-empty CPU array in ATen's order of operations;
    a complex input as PyTorch: the real and imaginary parts' variances added in the real dtype."""
    if a.dtype.kind == "c":
        rv, rm = moments(a.real, dims, correction, False, with_mean)
        iv, im = moments(a.imag, dims, correction, False, with_mean)
        r = rv + iv
        r = np.sqrt(r) if take_sqrt else r
        m = None if rm is None else (rm + 1j * im).astype(a.dtype)
    else:
        r, m = moments(a, dims, correction, take_sqrt, with_mean)
    if keepdim:
        shape = keepdim_shape(a.shape, dims)
        r, m = r.reshape(shape), None if m is None else m.reshape(shape)
    return r, m


def _moments(name, input, dim, unbiased, keepdim, correction, take_sqrt, with_mean):
    dims, correction, n = _var_args(name, input, dim, unbiased, correction)
    a = input._data
    _dof_warning(name, n, correction, a.size > 0)
    xp = _xp(input)
    m = None
    if xp is np and a.size and (a.dtype.char in "fdFD" or a.dtype.char in D.HALF_CHARS):
        r, m = _moment_arrays(a, dims, correction, keepdim, take_sqrt, with_mean)
    else:
        a = widen(a)
        r = _var_array(xp, a, dims, correction, n, keepdim)
        if take_sqrt:
            r = xp.sqrt(r)
    rt = input._dtype.to_real()
    res = _wrap(r.astype(rt.np, copy=False), rt, input._device)
    denom = n - correction
    if not with_mean:
        if input._rg and _gm.enabled:
            if take_sqrt:
                record(_Std, (input,), res, (input, res), dims=dims, keepdim=keepdim, denom=denom)
            else:
                record(_Var, (input,), res, (input,), dims=dims, keepdim=keepdim, denom=denom)
        if _fw_state.level and input._fw is not None:
            _set_tangent(res, _moment_jvp, input, res, dims, keepdim, denom, take_sqrt)
        return res
    if m is None:
        m = _sum_array(xp, widen(a), _axis(dims, a.ndim), keepdim)
        m = m / xp.asarray(n, m.dtype)
    mres = _wrap(m.astype(input._data.dtype, copy=False), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_StdMean if take_sqrt else _VarMean, (input,), (res, mres), (input, res), dims=dims,
               keepdim=keepdim, denom=denom, count=n, is_std=take_sqrt)  # fmt: skip
    if _fw_state.level and input._fw is not None:
        _set_tangent(res, _moment_jvp, input, res, dims, keepdim, denom, take_sqrt)
        _set_tangent(mres, lambda: mean(input._fw, dims, keepdim))
    return res, mres


def _moment_jvp(x, out, dims, keepdim, denom, take_sqrt):
    # A real result of a complex input: the tangent is Re(conj(d var / d x) t).
    t = (x._fw * _var_coef(x, dims, denom).conj()).real
    t = t.sum(dims, keepdim) if dims else t
    return _std_grad_var(t, out) if take_sqrt else t


def var(
    input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None
) -> Tensor:
    r = _moments("var", input, dim, unbiased, keepdim, correction, False, False)
    return r if out is None else write_out(out, r, "var")


def std(
    input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None
) -> Tensor:
    r = _moments("std", input, dim, unbiased, keepdim, correction, True, False)
    return r if out is None else write_out(out, r, "std")


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return _moments("var_mean", input, dim, unbiased, keepdim, correction, False, True)


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return _moments("std_mean", input, dim, unbiased, keepdim, correction, True, True)


# ---- logsumexp --------------------------------------------------------------------------------------------
def _logsumexp_vjp(node, g):
    x, out = node.saved()
    shape = x._data.shape
    return (
        restore(g, shape, node.dims, node.keepdim)
        * (x - restore(out, shape, node.dims, node.keepdim)).exp().conj(),
    )


_Logsumexp = node_class("LogsumexpBackward0", _logsumexp_vjp)


def _logsumexp_jvp(x, dims, keepdim):
    # sum(t * e) / sum(e) with e = exp(x - max): an empty reduction gives 0 / 0 = NaN, as in PyTorch
    e = (x - x.real.amax(dims, keepdim=True)).exp() if x._data.size else x.exp()
    if not dims:
        return x._fw * e / e
    return (x._fw * e).sum(dims, keepdim) / e.sum(dims, keepdim)


@silent
def logsumexp(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """log(sum(exp(x))) computed stably: the max is subtracted first (infinite maxes as 0)."""
    need_int_dim("logsumexp", dim, False, "tuple of ints")
    if input._dtype.category < D.FLOAT:
        input = input.to(D.get_default_dtype())
    a = widen(input._data)
    nd = a.ndim
    dims = reduce_dims(dim, nd)
    axis = _axis(dims, nd)
    xp = _xp(input)
    if a.size:
        m = xp.max(a.real if a.dtype.kind == "c" else a, axis=axis, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0).astype(a.dtype)
    else:
        m = xp.zeros((1,) * nd, a.dtype)
    if xp is np and a.size and a.dtype.char in "fd" and a is input._data:
        # PyTorch's ops in turn: exp (correctly rounded, as ``exp``), its cascade sum, log
        e = rounded_f32(np, np.exp, a - m)
        s = cascade_sum(e, range(nd) if axis is None else axis).reshape(
            keepdim_shape(a.shape, axis)
        )
        r = rounded_f32(np, np.log, s) + m
    else:
        # PyTorch composes logsumexp of half types from half ops (each rounded), only the sum in
        # float32
        rd = (lambda v: v) if a is input._data else (lambda v: rounded(v, input._data.dtype))
        r = rd(xp.log(rd(xp.sum(rd(xp.exp(a - m)), axis=axis, keepdims=True)))) + m
    if not keepdim and dims:
        r = r.reshape([s for i, s in enumerate(r.shape) if i not in dims])
    res = _wrap(row_major(xp, xp.asarray(r, input._data.dtype)), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Logsumexp, (input,), res, (input, res), dims=dims, keepdim=keepdim)
    if _fw_state.level and input._fw is not None:
        _set_tangent(res, _logsumexp_jvp, input, dims, keepdim)
    if out is not None and out._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"logsumexp(): Expected floating point type for result tensor, but got: {scalar_name(out._dtype)}"
        )
    return res if out is None else write_out(out, res, "logsumexp")


# ---- all / any / count_nonzero ---------------------------------------------------------------------------
def _logical(f, input, dim, keepdim):
    a = input._data
    dims = reduce_dims(dim, a.ndim)
    xp = _xp(input)
    r = xp.asarray(f(a, axis=_axis(dims, a.ndim), keepdims=keepdim))
    dt = D.uint8 if input._dtype is D.uint8 else D.bool
    return _wrap(row_major(xp, r.astype(dt.np, copy=False)), dt, input._device)


def all(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    r = _logical(_xp(input).all, input, dim, keepdim)
    return (
        r
        if out is None
        else write_out(out, r, "all", "all only supports bool tensor for result, got: {out}")
    )


def any(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    r = _logical(_xp(input).any, input, dim, keepdim)
    return (
        r
        if out is None
        else write_out(out, r, "any", "any only supports bool tensor for result, got: {out}")
    )


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    if input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"nonzero_count_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    a = input._data
    dims = reduce_dims(dim, a.ndim)
    xp = _xp(input)
    r = (
        xp.count_nonzero(a, axis=_axis(dims, a.ndim))
        if dims or not a.ndim
        else xp.asarray(a != 0, np.int64)
    )
    return _wrap(row_major(xp, xp.asarray(r, np.int64)), D.int64, input._device)
