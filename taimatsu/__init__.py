"""taimatsu (松明, "torch"): PyTorch's programming model in pure Python on NumPy.

``import taimatsu as torch`` and PyTorch code runs unchanged: the same values, reprs and
errors. This module is the public surface, re-exported like ``torch``'s.
"""

from __future__ import annotations

import math as _math

# Subpackages later issues fill (nn, optim, utils.data) import lazily on first use.
from . import (  # noqa: E402, F401  # noqa: F401  # noqa: E402, F401
    __config__,  # cheap: reads NumPy's build record when called
    autograd,
    backend,
    cuda,
    distributed,  # cheap: mpi4py is imported by init_process_group, not here
    distributions,
    fft,  # noqa: E402, F401
    func,  # noqa: E402, F401
    futures,
    hub,  # cheap: urllib is imported by the functions that download
    jit,  # eager-mode torch.jit: decorators and is_scripting; no TorchScript compiler
    linalg,
    nn,
    optim,
    profiler,
    quasirandom,  # cheap: SciPy's Sobol' table loads with the first SobolEngine
    serialization,
    signal,  # torch.signal.windows
    special,  # noqa: E402, F401
    testing,
    utils,
    version,
)
from ._device import device
from ._dtype import (  # noqa: F401
    bfloat16,
    bool,
    can_cast,  # noqa: F401
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._layout import (  # noqa: F401
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    strided,
)
from ._size import Size  # noqa: F401
from ._tensor.core import Tensor
from ._tensor.legacy_types import (  # noqa: F401
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from ._tensor.printing import get_printoptions, printoptions, set_printoptions  # noqa: F401
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from .autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .func._vmap import vmap  # noqa: E402, F401
from .linalg.legacy import geqrf, lu, lu_solve, ormqr, triangular_solve  # noqa: E402, F401
from .linalg.solvers import lu_unpack  # noqa: E402, F401
from .linalg.structured import householder_product as orgqr  # noqa: E402, F401
from .linalg.structured import matrix_exp  # noqa: F401
from .ops.nn.weight_norm import _weight_norm, norm_except_dim  # noqa: E402, F401
from .nn._torch_functions import (  # noqa: E402, F401  # noqa: E402, F401  (issue #4)
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    affine_grid_generator,
    alpha_dropout,
    alpha_dropout_,
    avg_pool1d,
    batch_norm,
    binary_cross_entropy_with_logits,
    celu,
    celu_,
    channel_shuffle,
    constant_pad_nd,
    conv1d,
    conv2d,
    conv3d,
    conv_tbc,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    cosine_embedding_loss,
    cosine_similarity,
    ctc_loss,
    dropout,
    dropout_,
    embedding,
    embedding_bag,
    feature_alpha_dropout,
    feature_alpha_dropout_,
    feature_dropout,
    feature_dropout_,
    grid_sampler,
    grid_sampler_2d,
    grid_sampler_3d,
    group_norm,
    hardshrink,
    hinge_embedding_loss,
    instance_norm,
    kl_div,
    layer_norm,
    log_softmax,
    margin_ranking_loss,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool3d,
    native_channel_shuffle,
    pairwise_distance,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
    poisson_nll_loss,
    prelu,
    rms_norm,
    selu,
    selu_,
    softmax,
    threshold,
    threshold_,
    triplet_margin_loss,
)
from .ops._dispatch import result_type_fn as result_type  # noqa: E402, F401
from .ops.contraction.einsum import einsum, tensordot  # noqa: F401

# ---- linear algebra ---------------------------------------------------------------------------------------------
from .ops.contraction.matmul import (  # noqa: F401
    addbmm,
    addmm,
    addmv,
    addr,
    baddbmm,
    bmm,
    dot,
    ger,
    inner,
    matmul,
    mm,
    mv,
    outer,
    vdot,
)

# ---- creation -----------------------------------------------------------------------------------
from .ops.creation.factories import (  # noqa: F401
    as_tensor,
    asarray,
    empty,
    empty_like,
    empty_strided,
    from_numpy,
    full,
    full_like,
    ones,
    ones_like,
    scalar_tensor,
    tensor,
    zeros,
    zeros_like,
)
from .ops.creation.ranges import arange, eye, linspace, logspace  # noqa: F401
from .ops.creation.ranges import range_ as range  # noqa: A004, F401

# ---- random -------------------------------------------------------------------------------------------
from .ops.creation.random import (  # noqa: F401
    Generator,
    bernoulli,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    multinomial,
    normal,
    poisson,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)

# ---- indexing ------------------------------------------------------------------------------------------------
from .ops.indexing.index_ops import (  # noqa: F401
    argwhere,
    index_add,
    index_copy,
    index_fill,
    index_put,
    index_select,
    masked_scatter,
    masked_select,
    nonzero,
    take,
    take_along_dim,
)
from .ops.indexing.scatter import gather, scatter, scatter_add, scatter_reduce  # noqa: F401
from .ops.nn.activation import rrelu, rrelu_  # noqa: E402, F401  (issue #4)
from .ops.nn.bilinear import bilinear  # noqa: E402, F401  (issue #4)
from .ops.pointwise.binary import (  # noqa: F401
    add,
    atan2,
    div,
    divide,
    floor_divide,
    fmod,
    hypot,
    mul,
    multiply,
    remainder,
    rsub,
    sub,
    subtract,
    true_divide,
)
from .ops.pointwise.binary import atan2 as arctan2  # noqa: F401
from .ops.pointwise.comparison import (  # noqa: F401
    allclose,
    bitwise_and,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    eq,
    equal,
    fmax,
    fmin,
    ge,
    greater,
    greater_equal,
    gt,
    isclose,
    le,
    less,
    less_equal,
    logical_and,
    logical_or,
    logical_xor,
    lt,
    maximum,
    minimum,
    ne,
    not_equal,
)
from .ops.pointwise.complex import angle, conj, conj_physical, imag, real  # noqa: F401
from .ops.pointwise.fused import addcdiv, addcmul, copysign, lerp, logaddexp, logit, xlogy  # noqa: F401
from .ops.pointwise.power import float_power, pow  # noqa: F401
from .ops.pointwise.select import (  # noqa: F401
    clamp,
    clamp_,
    clamp_max,
    clamp_min,
    clip,
    clip_,
    masked_fill,
    where,
)
from .ops.pointwise.special import (  # noqa: F401
    deg2rad,
    frexp,
    gcd,
    heaviside,
    i0,
    isreal,
    lcm,
    ldexp,
    logaddexp2,
    mvlgamma,
    nextafter,
    rad2deg,
    sinc,
)

# ---- pointwise ---------------------------------------------------------------------------------------------
from .ops.pointwise.unary import (  # noqa: F401
    abs,
    abs_,
    absolute,
    acos,
    acos_,
    acosh,
    acosh_,
    asin,
    asin_,
    asinh,
    asinh_,
    atan,
    atan_,
    atanh,
    atanh_,
    bitwise_not,
    ceil,
    ceil_,
    cos,
    cos_,
    cosh,
    cosh_,
    digamma,
    erf,
    erf_,
    erfc,
    erfc_,
    erfinv,
    exp,
    exp2,
    exp_,
    expm1,
    expm1_,
    fix,
    floor,
    floor_,
    frac,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    lgamma,
    log,
    log1p,
    log1p_,
    log2,
    log10,
    log_,
    logical_not,
    nan_to_num,
    neg,
    neg_,
    negative,
    polygamma,
    positive,
    reciprocal,
    reciprocal_,
    relu,
    relu_,
    round,
    rsqrt,
    rsqrt_,
    sgn,
    sigmoid,
    sigmoid_,
    sign,
    signbit,
    sin,
    sin_,
    sinh,
    sinh_,
    sqrt,
    sqrt_,
    square,
    tan,
    tan_,
    tanh,
    tanh_,
    trunc,
    trunc_,
)
from .ops.pointwise.unary import acos as arccos  # noqa: F401
from .ops.pointwise.unary import acosh as arccosh  # noqa: F401
from .ops.pointwise.unary import asin as arcsin  # noqa: F401
from .ops.pointwise.unary import asinh as arcsinh  # noqa: F401
from .ops.pointwise.unary import atan as arctan  # noqa: F401
from .ops.pointwise.unary import atanh as arctanh  # noqa: F401
from .ops.reduction.extrema import (  # noqa: F401
    amax,
    amin,
    aminmax,
    argmax,
    argmin,
    max,
    median,
    min,
    return_types,  # noqa: F401
)
from .ops.reduction.histogram import bincount, histc  # noqa: E402, F401
from .ops.reduction.norms import norm  # noqa: F401

# ---- reductions ----------------------------------------------------------------------------------------------
from .ops.reduction.reduce import (  # noqa: F401
    all,
    any,
    count_nonzero,
    logsumexp,
    mean,
    nanmean,
    nansum,
    prod,
    std,
    std_mean,
    sum,
    var,
    var_mean,
)
from .ops.reduction.scans import (  # noqa: F401
    cumprod,
    cumsum,
    logcumsumexp,  # noqa: F401
)
from .ops.shape.copies import (  # noqa: F401
    atleast_1d,
    atleast_2d,
    atleast_3d,
    cat,
    clone,
    column_stack,
    concat,
    concatenate,
    dstack,
    flip,
    fliplr,
    flipud,
    hstack,
    roll,
    row_stack,
    stack,
    tile,
    tril,
    triu,
    vstack,
)
from .ops.shape.split import chunk, split, tensor_split, unbind  # noqa: F401

# ---- shape -------------------------------------------------------------------------------------------------
from .ops.shape.view_ops import (  # noqa: F401
    adjoint,
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    diagonal,
    flatten,
    moveaxis,
    movedim,
    narrow,
    permute,
    ravel,
    reshape,
    select,
    squeeze,
    swapaxes,
    swapdims,
    t,
    transpose,
    unflatten,
    unsqueeze,
)
from .ops.shape.views import as_strided  # noqa: F401
from .ops.sorting.search import bucketize, searchsorted  # noqa: E402, F401
from .ops.sorting.sort import (  # noqa: E402, F401
    argsort,
    cummax,
    cummin,
    kthvalue,
    mode,
    msort,
    nanmedian,
    nanquantile,
    quantile,
    sort,
    topk,
)
from .ops.sorting.unique import unique, unique_consecutive  # noqa: E402, F401
from .serialization import load, save  # noqa: E402, F401
from .storage import UntypedStorage  # noqa: E402, F401
from .storage import tensor_from_file as from_file  # noqa: F401
from .storage import tensor_resize_as_ as resize_as_  # noqa: F401

legacy_contiguous_format = contiguous_format  # PyTorch's alias (the same object)
from .ops.reduction.hashing import hash_tensor  # noqa: F401
from .version import __version__  # a TorchVersion: PyTorch 2.13's
from .typed_storage import (  # noqa: E402, F401
    BFloat16Storage,
    BoolStorage,
    ByteStorage,
    CharStorage,
    ComplexDoubleStorage,
    ComplexFloatStorage,
    DoubleStorage,
    FloatStorage,
    HalfStorage,
    IntStorage,
    LongStorage,
    ShortStorage,
    TypedStorage,
    is_storage,
)
from . import multiprocessing  # noqa: E402, F401  (registers tensor sharing with ForkingPickler, as torch does)
from .utils.dlpack import from_dlpack  # noqa: E402, F401

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
        raise TypeError(
            f"is_complex(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    return input.is_complex()


def is_distributed(input: Tensor) -> bool:
    """False: a taimatsu tensor is never split across processes (as any tensor in PyTorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"is_distributed(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    return False


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


def _assert(condition, message) -> None:
    """Python's ``assert`` as a function (PyTorch's traceable assert): ``bool(condition)``, so a
    multi-element tensor raises the ambiguity RuntimeError, and AssertionError(message) when false."""
    if not condition:
        raise AssertionError(message)


def _assert_async(input: Tensor, assert_msg: str | None = None) -> None:
    """PyTorch's device-side assert, checked at once here (there is no asynchronous stream)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"_assert_async(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if assert_msg is not None and not isinstance(assert_msg, str):
        raise TypeError(
            "_assert_async(): argument 'assert_msg' (position 2) must be str, not "
            f"{type(assert_msg).__name__}"
        )
    if not is_nonzero(input):
        raise RuntimeError(assert_msg or "Expected Tensor with single nonzero value, but got zero")


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


from .ops._dispatch import need_tensor as _need_tensor  # noqa: E402


def inverse(input: Tensor, *, out=None) -> Tensor:
    _need_tensor("inverse", input)  # before linalg.inv's own check, which names linalg_inv
    return linalg.inv(input, out=out)


def det(input: Tensor) -> Tensor:
    _need_tensor("det", input)
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


from .backend.allocator import tune_malloc as _tune_malloc  # noqa: E402

_tune_malloc()  # glibc keeps a step's freed temporaries for the next step (backend/allocator.py)
from .backend.threads import (  # noqa: E402, F401
    get_num_interop_threads,
    get_num_threads,
    set_num_interop_threads,
    set_num_threads,
)
from .linalg.decompositions import legacy_cholesky as cholesky  # noqa: E402, F401
from .linalg.decompositions import legacy_qr as qr  # noqa: F401
from .linalg.decompositions import legacy_svd as svd  # noqa: F401
from .linalg.solvers import (  # noqa: E402, F401
    cholesky_inverse,
    cholesky_solve,
    pinverse,  # noqa: E402, F401
)
from .ops.calculus import diff  # noqa: E402, F401
from .ops.contraction.matmul import (  # noqa: E402, F401
    chain_matmul,
    cross,
    kron,  # noqa: E402, F401
)
from .ops.indexing.put import put  # noqa: E402, F401
from .ops.pointwise.complex import complex, polar, view_as_complex, view_as_real  # noqa: E402, F401  # noqa: E402, F401
from .ops.reduction.covariance import corrcoef, cov  # noqa: E402, F401
from .ops.reduction.distance import cdist, dist, renorm  # noqa: E402, F401
from .ops.shape.copies import (
    repeat_interleave,  # noqa: E402, F401
    rot90,  # noqa: E402, F401
)
from .ops.shape.copy_variants import narrow_copy  # noqa: E402, F401
from .ops.shape.diagonal import block_diag, diag, diag_embed, diagflat, trace  # noqa: E402, F401
from .ops.shape.grids import (  # noqa: E402, F401
    cartesian_prod,
    combinations,
    meshgrid,
    tril_indices,
    triu_indices,
    vander,
)
from .ops.shape.split import dsplit, hsplit, split_with_sizes, vsplit  # noqa: E402, F401
from .ops.shape.view_scatter import (  # noqa: E402, F401
    as_strided_scatter,
    diagonal_scatter,
    select_scatter,
    slice_scatter,
)


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
from ._flags import (  # noqa: E402, F401
    are_deterministic_algorithms_enabled,
    get_default_device,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    is_warn_always_enabled,
    set_anomaly_enabled,
    set_default_device,
    set_default_tensor_type,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_warn_always,
    use_deterministic_algorithms,
)
from . import accelerator, amp, backends, cpu  # noqa: E402, F401
from ._device_errors import AcceleratorError, OutOfMemoryError  # noqa: F401
from .accelerator import get_device_module  # noqa: F401
from .amp import GradScaler  # noqa: F401
from .futures import Future  # noqa: F401
from .amp.autocast_mode import (  # noqa: E402, F401
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from .linalg.norms import frobenius_norm, nuclear_norm  # noqa: E402, F401
from .ops.calculus import cumulative_trapezoid, gradient, trapezoid, trapz  # noqa: E402, F401
from .ops.creation.factories import empty_permuted, fill  # noqa: E402, F401
from .ops.creation.random import binomial  # noqa: E402, F401
from .ops.creation.standard_gamma import (  # noqa: E402, F401
    _dirichlet_grad,
    _sample_dirichlet,
    _standard_gamma,
    _standard_gamma_grad,
)
from . import random  # noqa: E402, F401  (torch.random: fork_rng and the seeding functions)
from .ops.creation.windows import (  # noqa: E402, F401
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)
from .ops.indexing.index_ops import index_reduce, nonzero_static, unravel_index  # noqa: E402, F401
from .ops.short_time_fourier import istft, stft  # noqa: E402, F401
from .signal import windows  # noqa: E402, F401  (torch.windows is torch.signal.windows)
from .nn.rnn_cell_functions import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell  # noqa: E402, F401
from .nn.rnn_layer_functions import gru, lstm, rnn_relu, rnn_tanh  # noqa: E402, F401
from .linalg.lowrank import pca_lowrank, svd_lowrank  # noqa: E402, F401
from .ops.introspection import (  # noqa: E402, F401
    get_device,
    is_conj,
    is_inference,
    is_neg,
    is_same_size,
    is_signed,
    newaxis,
    resolve_conj,
    resolve_neg,
    typename,
)
from .ops.pointwise.incomplete_gamma import igamma, igammac  # noqa: E402, F401
from .ops.reduction.histogram import histogram, histogramdd  # noqa: E402, F401
from .ops.reduction.segment import segment_reduce  # noqa: E402, F401
from .ops.shape.copy_variants import (  # noqa: E402, F401
    alias_copy,
    as_strided_copy,
    detach_copy,
    diagonal_copy,
    expand_copy,
    frombuffer,
    permute_copy,
    select_copy,
    slice_copy,
    split_copy,
    split_with_sizes_copy,
    squeeze_copy,
    t_copy,
    transpose_copy,
    unbind_copy,
    unfold_copy,
    unsafe_chunk,
    unsafe_split,
    unsafe_split_with_sizes,
    unsqueeze_copy,
    view_as_complex_copy,
    view_as_real_copy,
    view_copy,
)
from .ops.sorting.search import isin  # noqa: E402, F401
from .ops.symbolic import (  # noqa: E402, F401
    cond,
    sym_float,
    sym_int,
    sym_ite,
    sym_max,
    sym_min,
    sym_not,
    sym_sqrt,
    sym_sum,
    while_loop,
)
from .utils.dlpack import to_dlpack  # noqa: E402, F401

# torch.compile accepts PyTorch arguments and runs eagerly (issue #14)
from . import _dynamo, compiler  # noqa: E402, F401
from .compiler import compile  # noqa: E402, F401, A004

# Sparse tensors: COO and CSR layouts (taimatsu/sparse, taimatsu/_tensor/sparse.py).
from . import sparse  # noqa: E402, F401
from ._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr  # noqa: E402, F401
from .sparse.construction import sparse_coo_tensor, sparse_csr_tensor  # noqa: E402, F401
from .sparse.compressed import (  # noqa: E402, F401
    sparse_bsc_tensor,
    sparse_bsr_tensor,
    sparse_compressed_tensor,
    sparse_csc_tensor,
)
from .sparse.matmul import mm as spmm  # noqa: E402, F401
from .sparse.matmul import hspmm, smm, sspaddmm  # noqa: E402, F401
from .sparse import dispatch as _sparse_dispatch  # noqa: E402

# torch.add(sparse, ...) and friends run the sparse tensor's method (taimatsu/sparse/dispatch.py).
add = _sparse_dispatch.sparse_first(add, "add")
sub = subtract = _sparse_dispatch.sparse_first(sub, "sub")
mul = multiply = _sparse_dispatch.sparse_first(mul, "mul", commutative=True)
div = divide = true_divide = _sparse_dispatch.sparse_first(div, "div")
sum = _sparse_dispatch.sparse_first(sum, "sum")  # noqa: A001
t = _sparse_dispatch.sparse_first(t, "t")
transpose = _sparse_dispatch.sparse_first(transpose, "transpose")
unbind = _sparse_dispatch.sparse_first(unbind, "unbind")
neg = negative = _sparse_dispatch.sparse_first(neg, "neg")
abs = absolute = _sparse_dispatch.sparse_first(abs, "abs")  # noqa: A001
zeros_like = _sparse_dispatch.zeros_like(zeros_like)
cat = concat = concatenate = _sparse_dispatch.cat(cat)
stack = _sparse_dispatch.stack(stack)

# Functions of the namespace given a non-Tensor where their first argument, a tensor, belongs:
# PyTorch's parser TypeError, not the AttributeError of a missing attribute (_tensor_arguments.py).
# The methods of those names get the same texts, and Tensor methods their public names.
from ._tensor.sparse import SparseTensor as _SparseTensorClass
from ._tensor_arguments import guard as _guard_tensor_arguments
from ._tensor_arguments import guard_methods as _guard_methods
from ._tensor_arguments import tensor_method_names as _tensor_method_names

_guard_tensor_arguments(globals())
_guard_methods(Tensor)
_guard_methods(_SparseTensorClass)
for _cls in Tensor.__mro__[:-1]:  # "Tensor.sum() got an ...", not "StructureMethods.sum()"
    _tensor_method_names(_cls)
del _cls

# torch.onnx: export a traced forward pass (the onnx package is imported when exporting)
from . import onnx  # noqa: E402, F401

# torch.fx: symbolic tracing, Graph/Node editing, GraphModule code generation, Interpreter
from . import fx  # noqa: E402, F401

# torch.masked (reductions under a mask), torch.functional, torch.types (annotation aliases)
from . import functional, masked, types  # noqa: F401
