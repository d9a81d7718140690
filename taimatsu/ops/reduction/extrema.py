"""Value-selecting reductions: max/min (full, with dim, binary), amax/amin, aminmax,
argmax/argmin, median -- and ``torch.return_types`` for their (values, indices) results.

Gradients follow PyTorch: reductions over the whole tensor (``max()``, ``amax``, ``median()``)
share the gradient evenly among tied elements; reductions along a dim that return indices
(``max(dim)``, ``median(dim)``) send it to the one selected index.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._layout import row_major
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.forward_ad import _register, on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import OUT_EXACT, _fw_state, need_tensor, record, write_out, xp_for
from .reduce import need_int_dim


# ---- return types ------------------------------------------------------------------------------
class _ReturnType(tuple):
    """PyTorch's structseq results (``torch.return_types.max(values=..., indices=...)``)."""

    __slots__ = ()
    _fields = ("values", "indices")
    n_fields = n_sequence_fields = 2
    n_unnamed_fields = 0

    def __new__(cls, values, indices=None):
        if indices is None:  # built from one iterable, like a structseq
            values, indices = values
        return tuple.__new__(cls, (values, indices))

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _return_type(name, fields=("values", "indices")):
    ns = {
        "__slots__": (),
        "_fields": fields,
        "__module__": "torch.return_types",
        "__qualname__": name,
    }
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    return type(name, (_ReturnType,), ns)


class return_types:
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
def _xp(x):
    return np if x._device.type == "cpu" else xp_for(x)


def _dims(dim, nd):
    """amax/amin dims: () or None means all; duplicates are an error."""
    from .reduce import reduce_dims

    return reduce_dims(
        None if dim is None or (isinstance(dim, (tuple, list)) and not dim) else dim, nd
    )


def _axis(dims, nd):
    return dims if nd else ()


def _reduce(xp, is_max, a, axis, keepdim):
    if xp is np:  # the ufunc method directly: np.max's Python wrapper costs a few microseconds
        return (np.maximum if is_max else np.minimum).reduce(a, axis=axis, keepdims=keepdim)
    return (xp.max if is_max else xp.min)(a, axis=axis, keepdims=keepdim)


def _restore(t: Tensor, dims, keepdim: bool, shape) -> Tensor:
    """``t`` reduced over ``dims`` (keepdim or not), broadcast back to ``shape``."""
    if not keepdim and dims and len(shape):
        t = t.reshape([1 if i in dims else s for i, s in enumerate(shape)])
    return t.expand(shape)


def _tie_mask(x: Tensor, value: Tensor) -> Tensor:
    """Where ``x`` equals the selected value; NaN counts as equal to a NaN result."""
    mask = x == value
    if x._dtype.category >= D.FLOAT:
        mask = mask | (x.isnan() & value.isnan())
    return mask


def _evenly_vjp(node, g):
    """evenly_distribute_backward: the gradient shared by every element tied for the result."""
    (x, out) = node.saved()
    mask = _tie_mask(x, out)
    return (mask * (g / mask.sum()),)


def _evenly_jvp(x: Tensor, out: Tensor, t: Tensor) -> Tensor:
    mask = _tie_mask(x, out)
    return (t * mask).sum() / mask.sum()


def _amax_vjp(node, g):
    """scale_grad_by_count: split among ties along the reduced dims (NaN results give NaN)."""
    (x, out) = node.saved()
    shape = x._data.shape
    mask = x == _restore(out, node.dims, node.keepdim, shape)
    count = mask.sum(node.dims, keepdim=True) if shape else mask
    return (_restore(g, node.dims, node.keepdim, shape) / count * mask,)


def _amax_jvp(x, out, t, dims, keepdim):
    shape = x._data.shape
    mask = x == _restore(out, dims, keepdim, shape)
    if not shape:
        return t * mask / mask
    return (t * mask).sum(dims, keepdim) / mask.sum(dims, keepdim)


def _index_vjp(node, g, *_):
    """value_selecting_reduction_backward: the gradient goes to the selected index."""
    node.saved()  # PyTorch's node saves the indices: no second backward without retain_graph
    gd = g if node.keepdim else g.unsqueeze(node.dim)
    return (scatter_to(gd, node.dim, node.indices, node.in_shape),)


_MaxAll = node_class("MaxBackward1", _evenly_vjp)
_MinAll = node_class("MinBackward1", _evenly_vjp)
_MedianAll = node_class("MedianBackward0", _evenly_vjp)
_MaxDim = node_class("MaxBackward0", _index_vjp)
_MinDim = node_class("MinBackward0", _index_vjp)
_MedianDim = node_class("MedianBackward1", _index_vjp)
_Amax = node_class("AmaxBackward0", _amax_vjp)
_Amin = node_class("AminBackward0", _amax_vjp)


# ---- scatter helper used by index-selecting backward -----------------------------------------------------
def _scatter_to_vjp(node, g):
    return (g.gather(node.dim, node.index) if len(node.shape) else g,)


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
        record(_ScatterTo, (src,), r, (), dim=dim, index=index, shape=shape)
    return r


# ---- max / min -----------------------------------------------------------------------------------------
def _full(name, input, node):
    a = input._data
    if a.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument."
        )
    xp = _xp(input)
    r = _reduce(xp, name == "max", a, None, False)  # NaN propagates, as in PyTorch
    res = _wrap(xp.asarray(r, a.dtype), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(node, (input,), res, (input, res))
    if _fw_state.level and input._fw is not None:
        res._fw = on_primals(_evenly_jvp, input, res, input._fw)
        _register(res)
    return res


def _along(name, input, dim, keepdim, node, rtype, indices_fn):
    """(values, indices) along ``dim``; ``indices_fn(xp, a, d)`` picks indices with keepdims."""
    a = input._data
    nd = a.ndim
    d = _wrapdim(dim, nd)
    if nd and a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    xp = _xp(input)
    if nd:
        idx = indices_fn(xp, a, d)
        vals = xp.take_along_axis(a, idx, d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
    else:
        vals, idx = a.copy(), xp.zeros((), np.int64)
    v = _wrap(vals, input._dtype, input._device)
    i = _wrap(idx.astype(np.int64, copy=False), D.int64, input._device)
    if input._rg and _gm.enabled:
        ik = i if (keepdim or not nd) else _wrap(xp.expand_dims(i._data, d), D.int64, input._device)
        record(
            node, (input,), v, (ik,), indices=ik, dim=d, keepdim=keepdim or not nd, in_shape=a.shape
        )
    if _fw_state.level and input._fw is not None:
        t = input._fw
        v._fw = on_primals(
            lambda: (
                t.gather(d, i if keepdim else i.unsqueeze(d)).reshape(v.shape) if nd else t.clone()
            )
        )
        _register(v)
    return rtype(v, i)


def _argmax_keep(xp, a, d):
    return xp.argmax(a, axis=d, keepdims=True)


def _argmin_keep(xp, a, d):
    return xp.argmin(a, axis=d, keepdims=True)


_CAN_CAST = (
    "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) to be true, but "
    "got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
)


def _max_min(name, input, dim, keepdim, out, full_node, dim_node, rtype, indices_fn, method=False):
    need_tensor(name, input)
    if dim is None:
        raise _none_dim_error(name, method)
    if dim is _NO_DIM:
        dim = None
    if isinstance(dim, Tensor):  # max(input, other): the elementwise maximum
        from ..pointwise import comparison as _comparison

        r = (_comparison.maximum if name == "max" else _comparison.minimum)(input, dim)
        return r if out is None else write_out(out, r, "maximum" if name == "max" else "minimum")
    if dim is not None:
        need_int_dim(name, dim)
    if input._dtype.category == D.COMPLEX:
        if dim is None:
            _no_complex_kernel(f"{name}_all", input)
        raise RuntimeError(f"{name}(): does not support complex input")
    if input._dtype in D._SHELL_UINTS and input._data.size:
        _no_complex_kernel(f"{name}_all" if dim is None else f"{name}_cpu", input)
    if dim is None:
        if keepdim:
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got (Tensor, keepdim=bool)"
            )
        r = _full(name, input, full_node)
        if out is not None and isinstance(out, Tensor) and not D.can_cast(r._dtype, out._dtype):
            raise RuntimeError(_CAN_CAST)
        return r if out is None else write_out(out, r, name)
    r = _along(name, input, dim, keepdim, dim_node, rtype, indices_fn)
    if out is not None:
        return rtype(*write_out(tuple(out), tuple(r), name, (OUT_EXACT, OUT_EXACT)))
    return r


# ``max(input)`` and ``max(input, None)`` differ in PyTorch: the second matches none of its signatures
_NO_DIM = object()


def _none_dim_error(name: str, method: bool) -> TypeError:
    head = f"{name}() received an invalid combination of arguments - got "
    if method:
        bad = "      didn't match because some of the arguments have invalid types: (!NoneType!)\n"
        return TypeError(
            f"{head}(NoneType), but expected one of:\n * ()\n{bad} * (Tensor other)\n{bad}"
            " * (int dim, bool keepdim = False)\n"
        )
    return TypeError(
        f"{head}(Tensor, NoneType), but expected one of:\n * (Tensor input, *, Tensor out = None)\n"
        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n"
    )


def max(input: Tensor, dim=_NO_DIM, keepdim: bool = False, *, out=None):
    """``torch.max``: full reduction, ``(values, indices)`` along ``dim``, or ``max(a, b)``."""
    return _max_min(
        "max", input, dim, keepdim, out, _MaxAll, _MaxDim, return_types.max, _argmax_keep
    )


def max_min_method(name: str, input: Tensor, absent: bool, dim, keepdim) -> Tensor:
    """``Tensor.max`` / ``Tensor.min``: ``absent`` says no ``dim`` was passed (None is an error)."""
    if dim is None and not absent:
        raise _none_dim_error(name, True)
    return (max if name == "max" else min)(input, _NO_DIM if absent else dim, keepdim)


def min(input: Tensor, dim=_NO_DIM, keepdim: bool = False, *, out=None):
    return _max_min(
        "min", input, dim, keepdim, out, _MinAll, _MinDim, return_types.min, _argmin_keep
    )


# ---- amax / amin / aminmax ------------------------------------------------------------------------------------
def _amaxmin(name, node, input, dim, keepdim):
    if dim is not None:
        need_int_dim(name, dim, False, "tuple of ints")
    a = input._data
    nd = a.ndim
    dims = _dims(dim, nd)
    if a.size == 0:
        if not (isinstance(dim, int) or dim):
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the 'dim' argument."
            )
        for d in dims:
            if a.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    _no_complex_kernel(f"{name[1:]}_values_cpu", input)
    xp = _xp(input)
    r = _reduce(xp, name == "amax", a, _axis(dims, nd), keepdim)
    res = _wrap(row_major(xp, xp.asarray(r, a.dtype)), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(node, (input,), res, (input, res), dims=dims, keepdim=keepdim)
    if _fw_state.level and input._fw is not None:
        res._fw = on_primals(_amax_jvp, input, res, input._fw, dims, keepdim)
        _register(res)
    return res


_AMAX_OUT = "Expected the dtype for input and out to match, but got {res} for input's dtype and {out} for out's dtype."


def amax(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    r = _amaxmin("amax", _Amax, input, dim, keepdim)
    return r if out is None else write_out(out, r, "amax", _AMAX_OUT)


def amin(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    r = _amaxmin("amin", _Amin, input, dim, keepdim)
    return r if out is None else write_out(out, r, "amin", _AMAX_OUT)


def _aminmax_vjp(node, gmin, gmax):
    x, lo, hi = node.saved()
    shape, dims, keepdim = x._data.shape, node.dims, node.keepdim
    out = None
    for g, v in ((gmin, lo), (gmax, hi)):
        mask = x == _restore(v, dims, keepdim, shape)
        count = mask.sum(dims, keepdim=True) if shape else mask
        part = _restore(g, dims, keepdim, shape) / count * mask
        out = part if out is None else out + part
    return (out,)


_Aminmax = node_class("AminmaxBackward0", _aminmax_vjp)


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False, out=None):
    """``(min, max)`` in one pass-pair; one AminmaxBackward0 node for both."""
    r = _aminmax(input, dim, keepdim)
    if out is None:
        return r
    return return_types.aminmax(*write_out(tuple(out), tuple(r), "aminmax", (OUT_EXACT, OUT_EXACT)))


def _no_complex_kernel(kernel, input):
    """PyTorch's '"kernel" not implemented for 'ComplexFloat'' (ordering needs a real dtype);
    PyTorch has no ordering kernels for uint16/32/64 either."""
    if input._dtype.category == D.COMPLEX or input._dtype in D._SHELL_UINTS:
        from .._dispatch import scalar_name

        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._dtype)}'")


def _aminmax(input, dim, keepdim):
    _no_complex_kernel("aminmax_cpu", input)
    a = input._data
    nd = a.ndim
    if a.size == 0 and (dim is None or not nd or a.shape[_wrapdim(dim, nd)] == 0):
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    dims = tuple(range(nd)) if dim is None else ((_wrapdim(dim, nd),) if nd else ())
    if dim is not None and not nd:
        _wrapdim(dim, nd)
    xp = _xp(input)
    lo = _wrap(
        row_major(xp, xp.asarray(xp.min(a, axis=dims or (), keepdims=keepdim), a.dtype)),
        input._dtype,
        input._device,
    )
    hi = _wrap(
        row_major(xp, xp.asarray(xp.max(a, axis=dims or (), keepdims=keepdim), a.dtype)),
        input._dtype,
        input._device,
    )
    if input._rg and _gm.enabled:
        record(_Aminmax, (input,), (lo, hi), (input, lo, hi), dims=dims, keepdim=keepdim)
    if _fw_state.level and input._fw is not None:
        lo._fw = on_primals(_amax_jvp, input, lo, input._fw, dims, keepdim)
        hi._fw = on_primals(_amax_jvp, input, hi, input._fw, dims, keepdim)
        _register(lo)
        _register(hi)
    return return_types.aminmax(lo, hi)


# ---- argmax / argmin ----------------------------------------------------------------------------------
def _argextreme(name, input, dim, keepdim):
    need_tensor(name, input)
    if dim is not None:
        need_int_dim(name, dim, False)
    xp = _xp(input)
    a = input._data
    f = xp.argmax if name == "argmax" else xp.argmin
    if a.dtype == np.bool_ or a.dtype.kind == "c":
        raise RuntimeError(
            f"{name}(): does not support {'bool' if a.dtype == np.bool_ else 'complex'} input"
        )
    if input._dtype in D._SHELL_UINTS and a.size:
        _no_complex_kernel(f"{name}_cpu", input)
    if dim is None:
        if a.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        r = xp.asarray(f(a.reshape(-1)), np.int64)
        if keepdim:
            r = r.reshape((1,) * a.ndim)
        return _wrap(r, D.int64, input._device)
    d = _wrapdim(dim, a.ndim)
    if not a.ndim:
        return _wrap(xp.zeros((), np.int64), D.int64, input._device)
    if a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return _wrap(
        f(a, axis=d, keepdims=keepdim).astype(np.int64, copy=False), D.int64, input._device
    )


def argmax(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    r = _argextreme("argmax", input, dim, keepdim)
    return r if out is None else write_out(out, r, "argmax", OUT_EXACT)


def argmin(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    r = _argextreme("argmin", input, dim, keepdim)
    return r if out is None else write_out(out, r, "argmin", OUT_EXACT)


# ---- median -------------------------------------------------------------------------------------------
def _median_keep(xp, a, d):
    """Index of the lower median along ``d``; a NaN anywhere in the slice wins (first NaN)."""
    k = (a.shape[d] - 1) // 2
    idx = xp.take(xp.argsort(a, axis=d, kind="stable"), [k], axis=d)
    if a.dtype.char in D.FLOAT_CHARS:
        nan = xp.isnan(a)
        if nan.any():
            idx = xp.where(
                xp.any(nan, axis=d, keepdims=True), xp.argmax(nan, axis=d, keepdims=True), idx
            )
    return idx


_MEDIAN_OUT = (
    "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
    "{out_legacy} does not equal {res_legacy} (while checking arguments for median)",
    "Expected tensor for argument #1 'indices' to have scalar type Long; but got {out_legacy} instead "
    "(while checking arguments for median)",
)


def median(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    if out is None:
        return _median(input, dim, keepdim)
    if dim is None:
        raise TypeError('median() missing 1 required positional arguments: "dim"')
    r = _median(input, dim, keepdim)
    return return_types.median(*write_out(tuple(out), tuple(r), "median", _MEDIAN_OUT))


def _median(input: Tensor, dim=None, keepdim: bool = False):
    """The lower of the two middle values (PyTorch's definition, not NumPy's average).

    With ``dim``, ties pick the index a stable sort puts at the median position; PyTorch's
    own choice among equal values is unspecified and can differ.
    """
    if dim is not None or input._data.size:  # an empty input gives NaN without reaching the kernel
        _no_complex_kernel("median_cpu" if dim is None else "median_out", input)
    if dim is not None:
        return _along("median", input, dim, keepdim, _MedianDim, return_types.median, _median_keep)
    xp = _xp(input)
    a = input._data
    if a.size == 0:
        # NaN for floats; PyTorch leaves its integer result at the type's lowest value
        v = (
            xp.asarray(np.nan, a.dtype)
            if a.dtype.char in D.INEXACT_CHARS
            else xp.asarray(np.iinfo(a.dtype).min, a.dtype)
        )
    else:
        flat = a.reshape(-1)
        k = (flat.size - 1) // 2
        if a.dtype.char in D.FLOAT_CHARS and xp.isnan(flat).any():
            v = xp.asarray(np.nan, a.dtype)
        else:
            v = xp.partition(flat, k)[k]
    res = _wrap(xp.asarray(v, a.dtype), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_MedianAll, (input,), res, (input, res))
    if _fw_state.level and input._fw is not None:
        res._fw = on_primals(_evenly_jvp, input, res, input._fw) if a.size else input._fw.sum()
        _register(res)
    return res


__all__ = ["amax", "amin", "aminmax", "argmax", "argmin", "max", "median", "min", "return_types"]
