"""Singular-value based linalg: ``matrix_norm``/``norm`` (all orders) and ``cond``.

The 'nuc', 2 and -2 norms go through ``linalg.svdvals`` (LinalgSvdBackward0, differentiable
twice). Graphs follow PyTorch's: permute the two dims last, svdvals, then sum/amax/amin.
"""

from __future__ import annotations

import math

from .. import _dtype as D
from .._autocast import FP32, cast_policy
from .._tensor.core import Tensor, _wrapdim
from ..ops._dispatch import scalar_name, write_out
from ..ops.arg_types import python_int_range
from ..ops.reduction.norms import check_norm_dtype, vector_norm
from . import _sname
from .decompositions import svdvals

# ---- matrix_norm / norm -----------------------------------------------------------------------------
_INF = math.inf
_OUT_DTYPE = "{name} expected out tensor dtype {{res}} but got: {{out}}"
CASTABLE = "{name}: Expected result to be safely castable from {{res}} dtype, but got result with dtype {{out}}"


def _order_error(ord) -> RuntimeError:
    return RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def _check_dtype_arg(A: Tensor, dtype) -> None:
    if dtype is None:
        return
    if dtype.category < D.FLOAT:
        raise RuntimeError(
            f"linalg.matrix_norm: dtype should be floating point or complex, but got {_sname_of(dtype)}"
        )
    check_norm_dtype("matrix_norm", A, dtype)
    if D.promote_types(A._dtype, dtype) is not dtype:
        raise RuntimeError(
            f"linalg.matrix_norm: the dtype of the input ({_sname(A)}) should be convertible without narrowing "
            f"to the specified dtype ({_sname_of(dtype)})"
        )


def _sname_of(dtype) -> str:
    from ..ops._dispatch import scalar_name

    return scalar_name(dtype)


def matrix_norm(
    A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None
) -> Tensor:
    """``torch.linalg.matrix_norm``: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2, with PyTorch's graphs."""
    dtype = D.dtype_argument("linalg_matrix_norm", dtype)
    if out is not None:
        r = matrix_norm(A, ord, dim, keepdim, dtype=dtype)
        return write_out(
            out,
            r,
            "linalg_matrix_norm",
            grad=False,
            exact=_OUT_DTYPE.format(name="linalg.matrix_norm"),
        )
    python_int_range(ord)
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if A._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {_sname(A)}"
        )
    _check_dtype_arg(A, dtype)
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        got = " ".join(map(str, dim)) if isinstance(dim, (tuple, list)) else str(dim)
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {got}")
    d0, d1 = _wrapdim(dim[0], A.dim()), _wrapdim(dim[1], A.dim())
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise _order_error(ord)
    elif ord not in (1, -1, 2, -2, _INF, -_INF):
        raise _order_error(ord)
    if dtype is not None and dtype is not A._dtype:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (1, -1, _INF, -_INF):
        # Sum |a| along one dim (a vector 1-norm), then max/min along the other, like PyTorch.
        first, second = (d1, d0) if abs(ord) == _INF else (d0, d1)
        if ord > 0 and not A.shape[second]:
            # the max over no sums is 0 in PyTorch (amin still refuses): a constant, no graph
            shape = [1 if i in (d0, d1) else n for i, n in enumerate(A.shape)]
            zero = A.new_zeros(shape, dtype=A._dtype.to_real())
            return zero if keepdim else zero.squeeze((d0, d1))
        if not keepdim and first < second:
            second -= 1
        s = vector_norm(A, 1, first, keepdim)
        return s.amax(second, keepdim) if ord > 0 else s.amin(second, keepdim)
    if A._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(
            f"linalg.matrix_norm: Low precision dtypes not supported. Got {_sname(A)}"
        )
    perm = [i for i in range(A.dim()) if i not in (d0, d1)] + [d0, d1]
    s = svdvals(A.permute(perm))
    if ord == "nuc" or (
        ord == 2 and s.shape[-1] == 0
    ):  # an empty matrix's 2-norm is 0, like PyTorch's
        r = s.sum(-1, keepdim)
    elif s.shape[-1] == 0:
        raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
    else:
        r = s.amax(-1, keepdim) if ord == 2 else s.amin(-1, keepdim)
    if ord == 2 and s.shape[-1] == 0:  # PyTorch returns a fresh zero here, outside the graph
        r = r.detach()
    if not keepdim:
        return r
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return r.unsqueeze(-1).permute(inverse)


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``torch.linalg.norm``: a matrix norm for string orders or two dims, else a vector norm."""
    dtype = D.dtype_argument("linalg_norm", dtype)
    if out is not None:
        r = norm(A, ord, dim, keepdim, dtype=dtype)
        return write_out(
            out, r, "linalg_norm", grad=False, exact=_OUT_DTYPE.format(name="linalg.norm")
        )
    python_int_range(ord)  # the parser's Scalar check comes first
    if isinstance(dim, int):
        dim = (dim,)
    if dim is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D."
        )
    if (
        dim is not None
        and len(dim) == 2
        or (dim is None and ord is not None and A.dim() == 2)
        or isinstance(ord, str)
    ):
        if ord is None:
            ord = "fro"
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# ---- cond ------------------------------------------------------------------------------------------------
_COND_ORDS = (None, "fro", "nuc", _INF, -_INF, 1, -1, 2, -2)


def _ord_text(p) -> str:
    return f"{p:f}" if isinstance(p, float) else str(p)


@cast_policy(FP32, ("cpu",))
def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    if out is not None:
        return write_out(
            out, cond(A, p), "linalg_cond", grad=False, cast_msg=CASTABLE.format(name="linalg.cond")
        )
    """``torch.linalg.cond``: the ratio of extreme singular values (None, 2, -2) or
    ``norm(A) * norm(inv(A))`` (inf for singular input), as PyTorch computes them."""
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if (isinstance(p, str) and p not in ("fro", "nuc")) or (
        not isinstance(p, str) and p not in _COND_ORDS
    ):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if not isinstance(p, str) and p is not None and abs(p) != 2:
        if A.shape[-1] != A.shape[-2]:
            raise RuntimeError(
                f"linalg.cond(ord={_ord_text(p)}): A must be batches of square matrices, "
                f"but they are {A.shape[-2]} by {A.shape[-1]} matrices"
            )
    elif isinstance(p, str) and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={p}): A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    if A.numel() == 0:
        from ..ops.creation.factories import zeros

        return zeros(tuple(A.shape[:-2]), dtype=A._dtype.to_real(), device=A.device)
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        s = svdvals(A)
        hi, lo = s.narrow(-1, 0, 1), s.narrow(-1, -1, 1)
        return (lo / hi if p == -2 else hi / lo).squeeze(-1)
    if p == "nuc":
        s = svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    from .solvers import inv_ex

    if A._dtype.category < D.FLOAT:  # PyTorch names linalg.inv here
        raise RuntimeError(
            f"linalg.inv: Expected a floating point or complex tensor as input. Got {_sname(A)}"
        )
    Ainv, info = inv_ex(A)
    Ainv = Ainv.masked_fill(
        (info > 0).unsqueeze(-1).unsqueeze(-1), _INF
    )  # singular: an all-inf "inverse"
    r = matrix_norm(A, p) * matrix_norm(Ainv, p)
    return r.nan_to_num_(_INF, _INF, -_INF)  # 0 * inf for NumPy compatibility


# ---- norms -------------------------------------------------------------------------------------------------
def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Sum of singular values over the two dims ``dim`` (the last two by default); deprecated
    in PyTorch, which warns once."""
    from .._flags import warn_once

    pass

    warn_once(
        "nuclear_norm",
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead (Triggered internally "
        "at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3229.)",
    )

    if isinstance(dim, bool):  # torch.nuclear_norm(input, keepdim) overload
        dim, keepdim = None, dim
    dims = (-2, -1) if dim is None else dim
    return matrix_norm(input, "nuc", dim=dims, keepdim=keepdim, out=out)


def frobenius_norm(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """The 2-norm over at most two dims (the deprecated form of ``linalg.vector_norm``, which
    PyTorch warns about once)."""
    from .._flags import warn_once
    from ..ops.reduction.norms import norm

    warn_once(
        "frobenius_norm",
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3175.)",
    )

    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."
        )
    if input._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {scalar_name(input._dtype)} instead."
        )
    from ..ops.shape.copy_variants import renamed

    if out is not None:
        return norm(input, 2, dims, keepdim, out=out)
    return renamed(input, norm(input, 2, dims, keepdim), "NormBackward1")
