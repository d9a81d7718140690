"""``torch.masked``'s reductions and normalizations of a strided tensor under a boolean ``mask``.

Each op replaces the masked-out elements by the identity of the reduction it runs (0 for sums,
1 for products, -inf for maxima, ...) with ``where`` and then calls the plain op, as PyTorch 2.13
does; so the results, the dtypes (``amax`` and ``argmax`` cast to the input's dtype, integer
``cumsum`` stays in its dtype), what fully masked-out slices hold (the identity, or nan for mean,
median, var and std) and the gradients are PyTorch's. The mask broadcasts to the input (a mask of
more dimensions is refused) and any dtype of mask is read as ``mask != 0``.

Deviation: only strided inputs; PyTorch also reduces sparse COO/CSR tensors with sum, prod, amax,
amin and mean, here those raise the ValueError PyTorch raises for the layouts it refuses.
"""

from __future__ import annotations

import math

from .. import _dtype as D
from .._layout import strided
from .._tensor.core import Tensor
from ..linalg import vector_norm
from ..nn import functional as F
from ..ops.creation.factories import ones, tensor
from ..ops.pointwise.comparison import maximum
from ..ops.pointwise.fused import logaddexp as _logaddexp
from ..ops.pointwise.select import where
from ..ops.shape.view_ops import broadcast_to

# integer and bool inputs of sum and prod accumulate in int64 unless a dtype is given
_PROMOTED_TO_INT64 = (D.uint8, D.bool, D.int8, D.int16, D.int32)


def _reduction_identity(op_name: str, input: Tensor, *args) -> Tensor | None:
    """The value that leaves op_name's result unchanged: masked-out elements are replaced by it.
    None for mean, var and std (their fully masked-out results are nan: 0 / 0)."""
    dtype = input.dtype
    if op_name in ("sum", "cumsum"):
        value = 0
    elif op_name in ("prod", "cumprod"):
        value = 1
    elif op_name in ("amax", "argmax", "logaddexp", "logsumexp", "amin", "argmin"):
        lowest = op_name not in ("amin", "argmin")
        if dtype.is_floating_point:
            value = -math.inf if lowest else math.inf
        elif op_name == "logsumexp" and dtype.is_complex:
            value = complex(-math.inf, 0)
        elif dtype.is_signed or dtype is D.uint8:
            info = D.iinfo(dtype)
            value = info.min if lowest else info.max
        else:
            raise NotImplementedError(f"identity of {op_name} on {dtype} input")
    elif op_name in ("mean", "var", "std"):
        return None
    elif op_name == "norm":
        ord = args[0] if args else 2
        if ord == -math.inf:
            if not dtype.is_floating_point:
                raise AssertionError(f"input must be floating point, got {dtype}")
            value = math.inf
        else:
            value = 0
    elif op_name == "median":
        # PyTorch reduces with nanmedian, which skips the nan that stands for masked-out elements
        dtype = dtype if dtype.is_floating_point else D.float32
        value = math.nan
    else:
        raise NotImplementedError(f"identity of {op_name} on {dtype} input")
    return tensor(value, dtype=dtype, device=input.device)


def _canonical_dim(dim, ndim: int) -> tuple[int, ...]:
    """dim as a sorted tuple of non-negative dims; None and () mean every dimension."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    bound = max(ndim, 1)
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= bound or d < -bound:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {d})"
            )
        dims.append(d % bound)
    return tuple(sorted(dims))


def _input_mask(input: Tensor, mask: Tensor | None) -> Tensor:
    """The mask as a bool tensor of input's shape."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than of the input)"
            )
        mask = broadcast_to(mask, input.shape)
    return mask.to(dtype=D.bool)


def _combine_input_and_mask(op_name: str, input: Tensor, mask: Tensor | None, *args) -> Tensor:
    """input with its masked-out elements replaced by op_name's identity (input itself without a mask)."""
    if mask is None:
        return input
    canonical_mask = _input_mask(input, mask)
    return where(canonical_mask, input, _reduction_identity(op_name, input, *args))


def _strided(name: str, input: Tensor) -> None:
    if input.layout is not strided:
        raise ValueError(f"masked {name} expects strided tensor (got {input.layout} tensor)")


def _sum_dtype(input: Tensor, dtype):
    if dtype is not None:
        return dtype
    return D.int64 if input.dtype in _PROMOTED_TO_INT64 else input.dtype


def sum(input: Tensor, dim=None, *, keepdim: bool | None = False, dtype=None, mask=None) -> Tensor:
    dtype = _sum_dtype(input, dtype)
    dim_ = _canonical_dim(dim, input.ndim)
    _strided("sum", input)
    return _combine_input_and_mask("sum", input, mask).sum(dim_, bool(keepdim), dtype=dtype)


def prod(input: Tensor, dim=None, *, keepdim: bool | None = False, dtype=None, mask=None) -> Tensor:
    dtype = _sum_dtype(input, dtype)
    dim_ = _canonical_dim(dim, input.ndim)
    _strided("prod", input)
    result = _combine_input_and_mask("prod", input, mask).to(dtype=dtype)
    for d in reversed(dim_):  # prod takes one dim at a time
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask("sum", input, mask)
    _strided("cumsum", mask_input)
    return mask_input.cumsum(dim_, dtype=dtype).to(dtype=dtype)


def cumprod(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask("prod", input, mask)
    _strided("cumprod", mask_input)
    return mask_input.cumprod(dim_, dtype=dtype).to(dtype=dtype)


def _extremum(name: str, input: Tensor, dim, keepdim, dtype, mask) -> Tensor:
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask(name, input, mask)
    _strided(name, mask_input)
    dim_ = _canonical_dim(dim, mask_input.ndim)
    return getattr(mask_input, name)(dim_, bool(keepdim)).to(dtype=dtype)


def amax(input: Tensor, dim=None, *, keepdim: bool | None = False, dtype=None, mask=None) -> Tensor:
    return _extremum("amax", input, dim, keepdim, dtype, mask)


def amin(input: Tensor, dim=None, *, keepdim: bool | None = False, dtype=None, mask=None) -> Tensor:
    return _extremum("amin", input, dim, keepdim, dtype, mask)


def _arg_extremum(name: str, input: Tensor, dim, keepdim, dtype, mask) -> Tensor:
    # PyTorch casts the indices to the input's dtype unless dtype is given
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask(name, input, mask)
    _strided(name, mask_input)
    return getattr(mask_input, name)(dim, bool(keepdim)).to(dtype=dtype)


def argmax(
    input: Tensor, dim: int | None = None, *, keepdim: bool | None = False, dtype=None, mask=None
) -> Tensor:
    return _arg_extremum("argmax", input, dim, keepdim, dtype, mask)


def argmin(
    input: Tensor, dim: int | None = None, *, keepdim: bool | None = False, dtype=None, mask=None
) -> Tensor:
    return _arg_extremum("argmin", input, dim, keepdim, dtype, mask)


def _count_and_total(input: Tensor, dim, keepdim, dtype, mask) -> tuple[Tensor, Tensor]:
    """How many elements are masked in, and their sum, over dim."""
    if mask is None:
        count = sum(ones(input.shape, dtype=D.int64, device=input.device), dim, keepdim=keepdim)
        return count, sum(input, dim, keepdim=keepdim, dtype=dtype)
    inmask = _input_mask(input, mask)
    count = inmask.sum(dim=dim, keepdim=bool(keepdim))
    return count, sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)


def mean(input: Tensor, dim=None, *, keepdim: bool | None = False, dtype=None, mask=None) -> Tensor:
    """Fully masked-out slices are nan (0 / 0)."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either "
            f"a floating point or complex dtype. Got: {dtype}"
        )
    if input.layout is not strided:
        raise ValueError(f"masked mean expects strided tensor (got {input.layout} tensor)")
    count, total = _count_and_total(input, dim, keepdim, dtype, mask)
    return total / count


def median(input: Tensor, dim: int = -1, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """nanmedian of the masked-in elements (so nan inputs are skipped too, as in PyTorch); fully
    masked-out slices are nan, which integer inputs refuse."""
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    is_float = input.is_floating_point()
    if not is_float:
        input = input.to(dtype=D.float32)
    mask_input = _combine_input_and_mask("median", input, mask)
    _strided("median", mask_input)
    output = mask_input.nanmedian(dim_, keepdim).values
    if is_float:
        return output
    if output.isnan().any():
        raise ValueError(
            "masked median expects no fully masked out rows if dtype is not floating point"
        )
    return output.to(dtype=dtype)


def logsumexp(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)
    mask_input = _combine_input_and_mask("logsumexp", input, mask)
    _strided("logsumexp", mask_input)
    return mask_input.logsumexp(dim_, keepdim=keepdim).to(dtype=dtype)


def logaddexp(
    input: Tensor, other: Tensor, *, dtype=None, input_mask=None, other_mask=None
) -> Tensor:
    """logaddexp of input and other, each with its own mask (masked-out elements count as -inf)."""
    dtype = input.dtype if dtype is None else dtype
    if input.layout is not strided or other.layout is not strided:
        raise ValueError(
            f"masked logaddexp expects strided tensors (got {input.layout} tensor for input, "
            f"{other.layout} for other)"
        )
    mask_input = _combine_input_and_mask("logaddexp", input, input_mask)
    mask_other = _combine_input_and_mask("logaddexp", other, other_mask)
    return _logaddexp(mask_input, mask_other).to(dtype=dtype)


def norm(
    input: Tensor,
    ord: float | None = 2.0,
    dim=None,
    *,
    keepdim: bool | None = False,
    dtype=None,
    mask=None,
) -> Tensor:
    """vector_norm of the masked-in elements: fully masked-out slices are 0 (inf for ord=-inf)."""
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("norm", input, mask, ord)
    _strided("norm", mask_input)
    dim_ = _canonical_dim(dim, input.ndim)
    return vector_norm(mask_input, ord, dim_, bool(keepdim), dtype=dtype)


_REAL_OF = {D.complex64: D.float32, D.complex128: D.float64}


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt) -> Tensor:
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = D.float32
    compute_dtype = dtype
    if not (compute_dtype.is_floating_point or compute_dtype.is_complex):
        compute_dtype = D.float32
    if input.layout is not strided:
        raise ValueError(f"masked std/var expects strided tensor (got {input.layout} tensor)")
    count, sample_total = _count_and_total(input, dim, True, dtype, mask)
    inmask = None if mask is None else _input_mask(input, mask)
    x = input - sample_total / count
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = count.to(_REAL_OF.get(compute_dtype, compute_dtype))
        count = count - correction
        count = maximum(count, count.new_zeros([]))  # more correction than elements: inf, not < 0
    output = (total / count).to(dtype=dtype)
    return output.sqrt() if take_sqrt else output


def var(
    input: Tensor,
    dim=None,
    unbiased: bool | None = None,
    *,
    correction=None,
    keepdim: bool | None = False,
    dtype=None,
    mask=None,
) -> Tensor:
    """Fully masked-out slices are nan; integer inputs give float32."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(
    input: Tensor,
    dim=None,
    unbiased: bool | None = None,
    *,
    correction=None,
    keepdim: bool | None = False,
    dtype=None,
    mask=None,
) -> Tensor:
    """Fully masked-out slices are nan; integer inputs give float32."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


def _softmax_like(name: str, fill: str, input: Tensor, dim: int, dtype, mask) -> Tensor:
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    mask_input = _combine_input_and_mask(fill, input, mask)
    _strided(name, mask_input)
    return getattr(F, name)(mask_input, dim_, dtype=dtype)


def softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Masked-out elements are 0; a fully masked-out slice is nan (softmax of all -inf)."""
    return _softmax_like("softmax", "amax", input, dim, dtype, mask)


def log_softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Masked-out elements are -inf; a fully masked-out slice is nan."""
    return _softmax_like("log_softmax", "amax", input, dim, dtype, mask)


def softmin(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Masked-out elements are 0; a fully masked-out slice is nan."""
    return _softmax_like("softmin", "amin", input, dim, dtype, mask)


def normalize(
    input: Tensor, ord: float, dim: int, *, eps: float = 1e-12, dtype=None, mask=None
) -> Tensor:
    """input / max(norm, eps) over dim, from the masked-in elements; masked-out elements are 0."""
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("sum", input, mask)
    _strided("normalize", mask_input)
    nrm_ = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return mask_input / maximum(nrm_, nrm_.new_full([], eps))
