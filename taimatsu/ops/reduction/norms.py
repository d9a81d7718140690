"""Vector norms: ``torch.linalg.vector_norm`` and ``torch.norm`` (p = 2, 1, inf, -inf, 0, any p).

Gradients follow PyTorch's conventions: zero where the norm is zero, ties of the inf-norms
share the gradient, p = 0 has no gradient, and p < 1 gives zero at zero entries.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math.vector_norm import vector_norm as ordered_norm
from ...backend.fp_errors import silent
from .._dispatch import OUT_EXACT, _fw_state, record, scalar_name, write_out
from ..arg_types import python_int_range
from ..pointwise.unary import _abs_arrays as abs_arrays
from .reduce import _axis, _set_tangent, _xp, keepdim_shape, reduce_dims, restore, widen

_ORDERED = (D.float32, D.float64, D.complex64, D.complex128)


# ---- vector_norm / norm -----------------------------------------------------------------------------------
def _norm_coef(x: Tensor, o: Tensor, p: float, dims):
    """d ||x||_p / d x, with ``o`` the norm broadcast to x's shape (None for p = 0)."""
    if p == 0:
        return None
    if p == 1:
        return x.sgn()
    if p == 2:
        return x * (1 / o).masked_fill(o == 0, 0)
    if math.isinf(p):
        mask = x.abs() == o
        count = mask.sum(dims, keepdim=True) if dims else mask
        # a NaN norm matches no entry: PyTorch's gradient is 0 there, not 0 / 0
        return x.sgn() * mask / count.clamp(min=1)
    a = x.abs()
    ss = x.sgn() * a.pow(p - 1)
    if p < 1:
        ss = ss.masked_fill(x == 0, 0)
    return ss * (1 / o.pow(p - 1)).masked_fill(o == 0, 0)


def _norm_vjp(node, g):
    x, out = node.saved()
    shape = x._data.shape
    coef = _norm_coef(x, restore(out, shape, node.dims, node.keepdim), node.p, node.dims)
    if coef is None:
        return (None,)
    return (restore(g, shape, node.dims, node.keepdim) * coef,)


_VectorNorm = node_class("LinalgVectorNormBackward0", _norm_vjp)


def _norm_jvp(x, out, p, dims, keepdim):
    coef = _norm_coef(x, restore(out, x._data.shape, dims, keepdim), p, dims)
    t = x._fw * coef.conj() if coef is not None else x._fw * 0
    t = t.sum(dims, keepdim) if dims else t
    return t.real if t.is_complex() else t


def _p_name(p):
    return ("inf" if p > 0 else "-inf") if math.isinf(p) else repr(p)


@silent
def check_norm_dtype(name: str, input: Tensor, dtype) -> None:
    """PyTorch's error for a ``dtype`` argument of a norm that is complex for a real input, or
    real for a complex one."""
    if dtype is not None and (dtype.category == D.COMPLEX) != (input._dtype.category == D.COMPLEX):
        kind = "complex for complex" if input._dtype.category == D.COMPLEX else "real for real"
        raise RuntimeError(
            f"linalg.{name}: dtype should be {kind} inputs, but got {scalar_name(dtype)}"
        )


def vector_norm(
    input: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None
) -> Tensor:
    """``torch.linalg.vector_norm``."""
    dtype = D.dtype_argument("linalg_vector_norm", dtype)
    python_int_range(ord)
    if input._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {scalar_name(input._dtype)}"
        )
    if dtype is not None and dtype.category < D.FLOAT:
        raise RuntimeError(
            f"linalg.vector_norm: dtype should be floating point or complex, but got {scalar_name(dtype)}"
        )
    check_norm_dtype("vector_norm", input, dtype)
    if dtype is not None and dtype is not input._dtype:
        input = input.to(dtype)
    a = input._data
    nd = a.ndim
    if isinstance(dim, int):
        dim = (dim,)
    dims = reduce_dims(dim, nd)
    axis = _axis(dims, nd)
    p = float(ord)
    xp = _xp(input)
    if a.dtype.kind == "c":
        # |x| as the abs op (PyTorch's: NumPy's complex abs differs in the last bit), which the
        # inf-norms' gradient compares with the norm to find the maximal entries
        a = abs_arrays(xp, a)
    a = widen(a)
    if math.isinf(p) and a.size == 0:
        if dim is None:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_p_name(p)} norm on an empty tensor because the operation "
                "does not have an identity"
            )
        for d in dims:
            if a.shape[d] == 0:  # (sic: PyTorch's message has no space before "because")
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {_p_name(p)} norm on the dimension {d}because this "
                    "dimension is empty and the operation does not have an identity"
                )
    if p in (1, 2) and xp is np and a.size and input._dtype in _ORDERED:
        # PyTorch's order of operations (its bits)
        r = ordered_norm(a, dims, p, lastdim=a.dtype == input._data.dtype)
        r = r.reshape(keepdim_shape(a.shape, dims)) if keepdim else r
    elif p == 2:
        r = xp.sqrt(xp.sum(a * a, axis=axis, keepdims=keepdim))
    elif p == 1:
        r = xp.sum(xp.abs(a), axis=axis, keepdims=keepdim)
    elif math.isinf(p):
        r = (xp.max if p > 0 else xp.min)(xp.abs(a), axis=axis, keepdims=keepdim)
    elif p == 0:
        r = xp.sum(a != 0, axis=axis, keepdims=keepdim)
    else:
        r = xp.sum(xp.abs(a) ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    rt = input._dtype.to_real()
    res = _wrap(xp.asarray(r, rt.np), rt, input._device)
    if input._rg and _gm.enabled:
        record(_VectorNorm, (input,), res, (input, res), dims=dims, keepdim=keepdim, p=p)
    if _fw_state.level and input._fw is not None:
        _set_tangent(res, _norm_jvp, input, res, p, dims, keepdim)
    return res if out is None else write_out(out, res, "linalg_vector_norm", OUT_EXACT)


_AtenNorm = (node_class("NormBackward0", _norm_vjp), node_class("NormBackward1", _norm_vjp))


def aten_norm(input: Tensor, p: float = 2, dim=None, keepdim: bool = False) -> Tensor:
    """ATen's ``norm`` as PyTorch's C++ code calls it (norm_except_dim, pairwise_distance): the
    vector norm, recorded as NormBackward0 over the whole tensor or NormBackward1 over ``dim``
    (torch.norm in Python records LinalgVectorNormBackward0 instead)."""
    from ...autograd.grad_mode import no_grad

    with no_grad():
        res = vector_norm(input, p, dim, keepdim)
    if input._rg and _gm.enabled:
        dims = reduce_dims((dim,) if isinstance(dim, int) else dim, input._data.ndim)
        record(_AtenNorm[dim is not None], (input,), res, (input, res), dims=dims, keepdim=keepdim,
               p=float(p))  # fmt: skip
    if _fw_state.level and input._fw is not None:
        return vector_norm(input, p, dim, keepdim)  # (tangents: the norm op's)
    return res


@silent
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """``torch.norm``: the vector p-norm over ``dim`` (Frobenius = 2-norm of the flattened dims)."""
    if p is None or p == "fro":
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError(
                f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
            )
        p = 2
    elif isinstance(p, str):  # 'nuc' (or an unknown order, which matrix_norm rejects)
        from ...linalg.norms import matrix_norm

        dim = tuple(range(input.dim())) if dim is None else dim
        r = matrix_norm(input, p, dim, keepdim, dtype=dtype)
        msg = "linalg.matrix_norm expected out tensor dtype {res} but got: {out}"
        return r if out is None else write_out(out, r, "linalg_matrix_norm", exact=msg, grad=False)
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)
