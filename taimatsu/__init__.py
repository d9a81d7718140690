"""taimatsu (松明, "torch"): PyTorch's programming model in pure Python on NumPy.

``import taimatsu as torch`` and PyTorch code runs unchanged: the same values, reprs and
errors. This module is the public surface, re-exported like ``torch``'s.
"""

from __future__ import annotations

import math as _math

__version__ = "0.1.0"

from ._device import device
from ._dtype import (  # noqa: F401
    bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype, finfo, float, float16,
    float32, float64, get_default_dtype, half, iinfo, int, int8, int16, int32, int64, long,
    promote_types, set_default_dtype, short, uint8, uint16, uint32, uint64,
)  # fmt: skip
from ._layout import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format, strided  # noqa: F401
from ._size import Size  # noqa: F401
from ._tensor import Tensor
from ._tensor_str import get_printoptions, printoptions, set_printoptions  # noqa: F401
from . import autograd, backend, cuda  # noqa: E402, F401
from .autograd import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled  # noqa: F401
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from .ops.reduction import return_types  # noqa: F401

# ---- creation -----------------------------------------------------------------------------------
from .ops.creation import (  # noqa: F401
    arange, as_tensor, asarray, empty, empty_like, empty_strided, eye, from_numpy, full, full_like,
    linspace, logspace, ones, ones_like, scalar_tensor, tensor, zeros, zeros_like,
)  # fmt: skip
from .ops.creation import range_ as range  # noqa: A004, F401

# ---- random -------------------------------------------------------------------------------------------
from .ops.random import (  # noqa: F401
    Generator, bernoulli, default_generator, get_rng_state, initial_seed, manual_seed, multinomial,
    normal, poisson, rand, rand_like, randint, randint_like, randn, randn_like, randperm, seed,
    set_rng_state,
)  # fmt: skip

# ---- pointwise ---------------------------------------------------------------------------------------------
from .ops.pointwise import (  # noqa: F401
    abs, abs_, absolute, acos, acos_, acosh, acosh_, add, addcdiv, addcmul, allclose, angle, asin,
    asin_, asinh, asinh_, atan, atan2, atan_, atanh, atanh_, bitwise_and, bitwise_left_shift,
    bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, ceil, ceil_, clamp, clamp_,
    clamp_max, clamp_min, clip, clip_, conj, conj_physical, copysign, cos, cos_, cosh, cosh_, digamma,
    div, divide, eq, equal, erf, erf_, erfc, erfc_, erfinv, exp, exp2, exp_, expm1, expm1_, fix,
    float_power, floor, floor_, floor_divide, fmax, fmin, fmod, frac, ge, greater, greater_equal, gt,
    hypot, imag, isclose, isfinite, isinf, isnan, isneginf, isposinf, le, lerp, less, less_equal,
    lgamma, log, log1p, log1p_, log2, log10, log_, logaddexp, logical_and, logical_not, logical_or,
    logical_xor, logit, lt, masked_fill, maximum, minimum, mul, multiply, nan_to_num, ne, neg, neg_, polygamma,
    negative, not_equal, positive, pow, real, reciprocal, reciprocal_, relu, relu_, remainder, round,
    rsqrt, rsqrt_, rsub, sgn, sigmoid, sigmoid_, sign, signbit, sin, sin_, sinh, sinh_, sqrt, sqrt_,
    square, sub, subtract, tan, tan_, tanh, tanh_, true_divide, trunc, trunc_, where, xlogy,
)  # fmt: skip
from .ops.pointwise import acos as arccos, acosh as arccosh, asin as arcsin, asinh as arcsinh  # noqa: F401
from .ops.pointwise import atan as arctan, atan2 as arctan2, atanh as arctanh  # noqa: F401
from .ops.pointwise_more import (  # noqa: F401
    deg2rad, frexp, gcd, heaviside, i0, isreal, lcm, ldexp, logaddexp2, logcumsumexp, mvlgamma, nextafter,
    rad2deg, sinc,
)  # fmt: skip

# ---- reductions ----------------------------------------------------------------------------------------------
from .ops.reduction import (  # noqa: F401
    all, amax, amin, aminmax, any, argmax, argmin, count_nonzero, cumprod, cumsum, logsumexp, max,
    mean, median, min, nanmean, nansum, norm, prod, std, std_mean, sum, var, var_mean,
)  # fmt: skip

# ---- shape -------------------------------------------------------------------------------------------------
from .ops.shape import (  # noqa: F401
    adjoint, as_strided, atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_tensors,
    broadcast_to, cat, chunk, clone, column_stack, concat, concatenate, diagonal, dstack, flatten,
    flip, fliplr, flipud, hstack, movedim, moveaxis, narrow, permute, ravel, reshape, roll,
    row_stack, select, split, squeeze, stack, swapaxes, swapdims, t, tensor_split, tile, transpose,
    tril, triu, unbind, unflatten, unsqueeze, vstack,
)  # fmt: skip

# ---- indexing ------------------------------------------------------------------------------------------------
from .ops.indexing import (  # noqa: F401
    argwhere, gather, index_add, index_copy, index_fill, index_put, index_select, masked_scatter,
    masked_select, nonzero, scatter, scatter_add, scatter_reduce, take, take_along_dim,
)  # fmt: skip

# ---- linear algebra ---------------------------------------------------------------------------------------------
from .ops.linalg import (  # noqa: F401
    addbmm, addmm, addmv, addr, baddbmm, bmm, dot, einsum, ger, inner, matmul, mm, mv, outer,
    tensordot, vdot,
)  # fmt: skip
from .ops._dispatch import result_type_fn as result_type  # noqa: E402, F401
from .ops.sorting import argsort, bincount, bucketize, cummax, cummin, histc, kthvalue, mode, msort, nanmedian, nanquantile, quantile, searchsorted, sort, topk, unique, unique_consecutive  # noqa: E402, F401
from ._dtype import can_cast  # noqa: F401
from ._legacy import (  # noqa: F401
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
    IntTensor, LongTensor, ShortTensor,
)  # fmt: skip
from . import linalg, serialization  # noqa: F401
from .linalg import householder_product as orgqr, matrix_exp  # noqa: E402, F401
from ._linalg_lstsq import lu_unpack  # noqa: E402, F401
from ._linalg_legacy import geqrf, lu, lu_solve, ormqr, triangular_solve  # noqa: E402, F401
from . import fft  # noqa: E402, F401
from . import special  # noqa: E402, F401
from .serialization import load, save  # noqa: E402, F401
from .utils.dlpack import from_dlpack  # noqa: E402, F401
from .storage import UntypedStorage  # noqa: E402, F401

# Subpackages later issues fill (nn, optim, utils.data) import lazily on first use.
from . import nn, optim, utils  # noqa: E402, F401
from . import func  # noqa: E402, F401
from .func import vmap  # noqa: E402, F401
from .nn._torch_functions import (  # noqa: E402, F401
    adaptive_avg_pool1d, avg_pool1d, batch_norm, celu, constant_pad_nd, conv1d, conv2d, conv_transpose1d,
    conv_transpose2d, cosine_similarity, dropout, dropout_, embedding, feature_dropout, group_norm, hardshrink,
    instance_norm, layer_norm, log_softmax, max_pool1d, max_pool2d, pairwise_distance, pixel_shuffle,
    pixel_unshuffle, prelu, rms_norm, selu, softmax, threshold,
)  # fmt: skip
from .ops.nn_act import rrelu, rrelu_  # noqa: E402, F401  (issue #4)
from .ops.nn_bilinear import bilinear  # noqa: E402, F401  (issue #4)
from .nn._torch_functions_more import (  # noqa: E402, F401  (issue #4)
    adaptive_max_pool1d, affine_grid_generator, channel_shuffle, conv3d, conv_tbc, conv_transpose3d, grid_sampler,
    grid_sampler_2d, grid_sampler_3d, max_pool1d_with_indices, max_pool3d, native_channel_shuffle, pdist,
)  # fmt: skip

e = 2.718281828459045
pi = 3.141592653589793
inf = _math.inf
nan = _math.nan


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    if not isinstance(input, Tensor):
        raise TypeError(f"is_complex(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_complex()


def numel(input: Tensor) -> int:
    return input.numel()


def is_nonzero(input: Tensor) -> bool:
    if input.numel() != 1:
        raise RuntimeError(
            "Boolean value of Tensor with more than one value is ambiguous"
            if input.numel()
            else "Boolean value of Tensor with no values is ambiguous"
        )
    return input.item() != 0


def detach(input: Tensor) -> Tensor:
    return input.detach()


def get_default_device():
    return device("cpu")


def set_printoptions_default() -> None:
    set_printoptions(profile="default")


def eig(*args, **kwargs):
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` returns complex "
        "tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking complex tensors.\n\nL, _ = "
        "torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = "
        "torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)"
    )


def inverse(input: Tensor, *, out=None) -> Tensor:
    return linalg.inv(input, out=out)


def det(input: Tensor) -> Tensor:
    return linalg.det(input)


def logdet(input: Tensor) -> Tensor:
    """PyTorch's composite: ``where(sign == -1, nan, logabsdet)``, or ``log(sign) + logabsdet`` if complex."""
    linalg._square("logdet:", input, "low")
    sign, logabs = linalg.slogdet(input)
    if input.is_complex():
        return sign.log() + logabs
    return where(sign == -1, nan, logabs)


def slogdet(input: Tensor, *, out=None):
    return linalg._slogdet(input, out, linalg.SlogdetResult)


def matrix_power(input: Tensor, n: int, *, out=None) -> Tensor:
    return linalg._matrix_power(input, n, out, "matrix_power")


from ._linalg_decomp import legacy_cholesky as cholesky, legacy_qr as qr, legacy_svd as svd  # noqa: E402, F401
from ._linalg_lu import cholesky_inverse, cholesky_solve  # noqa: E402, F401


from .backend.threads import (  # noqa: E402, F401
    get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads,
)  # fmt: skip
from .ops.pointwise import view_as_complex, view_as_real  # noqa: E402, F401
from .ops.shape_more import (  # noqa: E402, F401
    block_diag, cartesian_prod, combinations, diag, diag_embed, diagflat, kron, meshgrid, repeat_interleave,
    trace, tril_indices, triu_indices, vander,
)  # fmt: skip
from .ops.linalg_more import cdist, chain_matmul, cross, dist, renorm  # noqa: E402, F401
from .ops.shape_extra import (  # noqa: E402, F401
    as_strided_scatter, diagonal_scatter, diff, dsplit, hsplit, narrow_copy, put, rot90, select_scatter,
    slice_scatter, split_with_sizes, vsplit,
)  # fmt: skip
from .ops.complex_stats import complex, corrcoef, cov, pinverse, polar  # noqa: E402, F401


def _inplace_function(name: str):
    """``torch.exp2_(t)`` and friends: the Tensor method of the same name, as a function."""

    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    return fn


for _n in (
    "addmv_ arccos_ arccosh_ as_strided_ arcsin_ arcsinh_ arctan_ arctanh_ clamp_max_ clamp_min_ conj_physical_ deg2rad_ "
    "detach_ exp2_ fill_ fix_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ log10_ log2_ logit_ nan_to_num_ negative_ "
    "rad2deg_ round_ sinc_ square_ xlogy_ zero_"
).split():
    globals()[_n] = _inplace_function(_n)
del _n
from .ops.misc_more import (  # noqa: E402, F401
    cond, empty_permuted, fill, get_device, index_reduce, is_conj, is_inference, is_neg, is_same_size,
    is_signed, isin, newaxis, nonzero_static, resolve_conj, resolve_neg, sym_float, sym_int, sym_ite, sym_max,
    sym_min, sym_not, sym_sqrt, sym_sum, typename, unravel_index, while_loop,
)  # fmt: skip
from .ops.calculus import cumulative_trapezoid, gradient, trapezoid, trapz  # noqa: E402, F401
from .ops.histogram import histogram, histogramdd  # noqa: E402, F401
from .ops.windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window  # noqa: E402, F401
from ._flags import (  # noqa: E402, F401
    are_deterministic_algorithms_enabled, get_default_device, get_deterministic_debug_mode,
    get_float32_matmul_precision, is_deterministic_algorithms_warn_only_enabled, is_warn_always_enabled,
    set_default_device, set_default_tensor_type, set_deterministic_debug_mode, set_float32_matmul_precision,
    set_anomaly_enabled, set_flush_denormal, set_warn_always, use_deterministic_algorithms,
)  # fmt: skip
from .utils.dlpack import to_dlpack  # noqa: E402, F401
from .ops.copy_family import (  # noqa: E402, F401
    alias_copy, as_strided_copy, detach_copy, diagonal_copy, expand_copy, frombuffer, permute_copy, select_copy,
    slice_copy, split_copy, split_with_sizes_copy, squeeze_copy, t_copy, transpose_copy, unbind_copy, unfold_copy,
    unsafe_chunk, unsafe_split, unsafe_split_with_sizes, unsqueeze_copy, view_as_complex_copy, view_as_real_copy,
    view_copy,
)  # fmt: skip
from .ops.special_more import binomial, frobenius_norm, igamma, igammac, nuclear_norm  # noqa: E402, F401
from .ops.segment import segment_reduce  # noqa: E402, F401
