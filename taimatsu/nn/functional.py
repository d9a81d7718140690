"""``torch.nn.functional``: the stateless form of the layers, built on Tensor ops.

Kernels with their own backward (conv2d, max_pool2d, softmax, the losses) live in
``taimatsu/ops/nn/conv.py``; this module parses PyTorch's arguments, raises PyTorch's errors
and composes those kernels with ordinary Tensor ops.
"""

from __future__ import annotations

import warnings

from .._tensor.core import Tensor
from ..ops._dispatch import check_devices, need_tensor
from ..ops.arg_types import integer, pool_args
from ..ops.contraction.matmul import addmm, matmul
from ..ops.nn import conv as _nn
from ..ops.nn import loss as _loss
from ..ops.nn import pooling as _pooling
from ..ops.nn import softmax as _softmax
from ..ops.pointwise.binary import div_scalar

conv2d = _nn.conv2d
unfold = _nn.unfold
fold = _nn.fold

# The rest of the namespace lives in one file per topic (nn/_functional/).
from .. import _autocast
from .._autocast import FP32, FP32_OPT_DTYPE, LOWER, cast_policy
from ._functional.activation import (  # noqa: F401
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    gumbel_softmax,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    logsigmoid,
    mish,
    prelu,
    relu6,
    selu,
    selu_,
    silu,
    softplus,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)
from ._functional.attention import scaled_dot_product_attention  # noqa: F401
from ._functional.ctc_loss import ctc_loss  # noqa: F401
from ._functional.dropout import (  # noqa: F401  # noqa: F401
    alpha_dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from ._functional.dropout import bernoulli_like as _bernoulli_like
from ._functional.embedding_bag import embedding_bag  # noqa: F401
from ._functional.grid import affine_grid, grid_sample  # noqa: F401
from ._functional.loss import (  # noqa: F401  # noqa: F401
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    legacy_reduction,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._functional.norm import (  # noqa: F401
    batch_norm,
    cosine_similarity,
    embedding,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    normalize,
    one_hot,
    pairwise_distance,
    rms_norm,
)
from ._functional.pooling import (  # noqa: F401  # noqa: F401
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    avg_pool1d,
    avg_pool2d,
    channel_shuffle,
    conv1d,
    conv_transpose1d,
    conv_transpose2d,
    interpolate,
    lp_pool1d,
    lp_pool2d,
    max_pool1d,
    max_pool1d_with_indices,
    max_unpool1d,
    max_unpool2d,
    pad,
    pixel_shuffle,
    pixel_unshuffle,
    upsample,
)
from ._functional.three_d import avg_pool3d, conv3d, max_pool3d, max_pool3d_with_indices  # noqa: F401


def _missing(fn: str, names) -> TypeError:
    # PyTorch's argument parser wording, singular/plural quirk included.
    n = len(names)
    plural = "s" if n == 1 else ""
    return TypeError(
        f"{fn}() missing {n} required positional argument{plural}: "
        + ", ".join(f'"{a}"' for a in names)
    )


_NOTHING = object()


# ---- linear -------------------------------------------------------------------------------------
@cast_policy(LOWER)
def linear(input=_NOTHING, weight=_NOTHING, bias=None) -> Tensor:
    """``y = input @ weight.T + bias``, with PyTorch's graph: AddmmBackward0 for 2-D input and a
    bias, addmm between views for other contiguous inputs with a bias, matmul otherwise."""
    check_devices(input, weight, bias)
    missing = [n for n, v in (("input", input), ("weight", weight)) if v is _NOTHING]
    if missing:
        raise _missing("linear", missing)
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):  # the parser's TypeErrors
        need_tensor("linear", input, "input", 1)
        need_tensor("linear", weight, "weight", 2)
    if bias is not None and not isinstance(bias, Tensor):
        need_tensor("linear", bias, "bias", 3)
    if not (input.dim() and weight.dim()):
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.dim()}D and {weight.dim()}D"
        )
    wt = weight.t()
    if bias is not None:
        _check_addmm_dtypes(input, weight, bias)
        if input.dim() == 2:
            return addmm(bias, input, wt)
        if input.is_contiguous() and input.dim() >= 1:
            lead = input.shape[:-1]
            out = addmm(bias, input.view(-1, input.shape[-1]), wt)
            return out.view(*lead, out.shape[-1])
        return matmul(input, wt) + bias
    return matmul(input, wt)


def _check_addmm_dtypes(input, weight, bias) -> None:
    wd = getattr(weight, "_dtype", weight)
    if getattr(bias, "_dtype", None) is wd and getattr(input, "_dtype", None) is wd:
        return  # the common case, without the loop's property calls
    from ..ops._dispatch import scalar_name

    # addmm's checks, in its order: bias ("self") first, then the input ("mat1").
    for name, t in (("self", bias), ("mat1", input)):
        if t.dtype is not weight.dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got {scalar_name(t.dtype)} and "
                f"{scalar_name(weight.dtype)}"
            )


# ---- activations ------------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _method_dim(input, name: str, dim) -> None:
    """F.softmax & co. call ``input.<name>(dim)``: a non-tensor has no such method, and the
    method's parser wants an int dim (its first argument)."""
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute '{name}'")  # noqa: TRY004 (PyTorch's)
    integer(name, "dim", 1, dim)


def softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    # autocast checked inline, not by @cast_policy: keeps the warning's frame
    if _autocast.state.on and _autocast.applies(("cuda",), input):
        return _autocast.run(softmax, FP32_OPT_DTYPE, (input, dim, _stacklevel), {"dtype": dtype})
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    elif dim.__class__ is not int or not isinstance(input, Tensor):  # PyTorch calls the method
        _method_dim(input, "softmax", dim)
    return _softmax.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    # autocast checked inline, not by @cast_policy: keeps the warning's frame
    if _autocast.state.on and _autocast.applies(("cuda",), input):
        return _autocast.run(
            log_softmax, FP32_OPT_DTYPE, (input, dim, _stacklevel), {"dtype": dtype}
        )
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    elif dim.__class__ is not int or not isinstance(input, Tensor):  # PyTorch calls the method
        _method_dim(input, "log_softmax", dim)
    return _softmax.log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    elif dim.__class__ is not int:
        _method_dim(input, "softmax", dim)
    return _softmax.softmax(-input, dim, dtype)


# ---- dropout ------------------------------------------------------------------------------------
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Draws the mask with ``bernoulli_(1 - p)`` on a fresh tensor (MulBackward0), as PyTorch's
    CPU kernel does, so a seeded run drops the same elements.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    need_tensor("dropout", input)
    if not training or p == 0:
        return input
    if p == 1:
        noise = input.new_zeros(())
    else:
        noise = _bernoulli_like(input, 1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


# ---- pooling ------------------------------------------------------------------------------------
def max_pool2d_with_indices(
    input,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = True,
):
    kernel_size, stride, padding, dilation = pool_args(
        "max_pool2d_with_indices", kernel_size, stride, padding, dilation, ceil_mode
    )
    return _pooling.max_pool2d_with_indices(
        input, kernel_size, stride, padding, dilation, ceil_mode
    )


def max_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """2-D max pooling; grad_fn MaxPool2DWithIndicesBackward0 (its backward needs only the
    winning taps: the int64 indices are built only when returned)."""
    name = "max_pool2d_with_indices" if return_indices else "max_pool2d"
    kernel_size, stride, padding, dilation = pool_args(
        name, kernel_size, stride, padding, dilation, ceil_mode
    )
    out, indices = _pooling.max_pool2d_with_indices(
        input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )
    return (out, indices) if return_indices else out


# ---- losses -------------------------------------------------------------------------------------
def _check_reduction(reduction: str) -> None:
    if reduction not in _loss.REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None
) -> Tensor:
    """Mean squared error; grad_fn MseLossBackward0. Broadcasts (with PyTorch's warning)."""
    check_devices(input, target, weight)
    # autocast checked inline, not by @cast_policy: see softmax
    if _autocast.state.on and _autocast.applies(("cpu", "cuda"), input, target):
        return _autocast.run(
            mse_loss, FP32, (input, target, size_average, reduce, reduction, weight), {}
        )
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    if target.size() != input.size():
        from ..ops._dispatch import broadcast_error
        from ..ops.shape.view_ops import broadcast_tensors

        try:
            input, target = broadcast_tensors(input, target)
        except (RuntimeError, ValueError):
            raise broadcast_error([tuple(input.shape), tuple(target.shape)]) from None
    if weight is not None:
        sq = (input - target) ** 2 * weight
        return sq if reduction == "none" else (sq.sum() if reduction == "sum" else sq.mean())
    return _loss.mse_loss(input, target, reduction)


@cast_policy(FP32)
def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    check_devices(input, target, weight)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    return _loss.nll_loss(input, target, weight, reduction, ignore_index)


@cast_policy(FP32)
def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax over the class dim then nll_loss (class indices) or a soft-label sum
    (class probabilities: a float target shaped like the input)."""
    check_devices(input, target, weight)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if ignore_index.__class__ is not int:
        integer("cross_entropy_loss", "ignore_index", 5, ignore_index)
    _check_reduction(reduction)
    need_tensor("cross_entropy_loss", input)
    need_tensor("cross_entropy_loss", target, "target", 2)
    if weight is None and not label_smoothing > 0.0:  # a classifier's loss: one fused call
        r = _loss.cross_entropy_indices(input, target, reduction, ignore_index)
        if r is not None:
            return r
    class_dim = 0 if input.dim() == 1 else 1
    if target.shape == input.shape:  # PyTorch's rule: same sizes are class probabilities
        _check_probability_target(input, target, weight, ignore_index, label_smoothing)
        logp = _softmax.log_softmax(input, class_dim)
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 1.0:  # a negative one is no smoothing, as in PyTorch
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = _softmax.log_softmax(input, class_dim)
    # nll_loss checks the target's rank, the batch sizes, then its dtype (PyTorch's order)
    nll = _loss.nll_loss(logp, target, weight, reduction, ignore_index)
    if not label_smoothing > 0.0:  # PyTorch's test: a NaN is no smoothing either
        return nll
    return _smoothed(nll, logp, target, weight, reduction, ignore_index, label_smoothing, class_dim)


def _check_probability_target(input, target, weight, ignore_index, label_smoothing) -> None:
    """cross_entropy's checks of a class-probability target, in PyTorch's order."""
    if not target.is_floating_point():
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {_scalar(target)}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if input.dim() == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")  # size(1)
    n_classes = input.shape[0 if input.dim() == 1 else 1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or "
            f"no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


def _scalar(t) -> str:
    from ..ops._dispatch import scalar_name

    return scalar_name(t.dtype)


def _class_weight_view(weight, logp, class_dim):
    shape = [1] * logp.dim()
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _soft_cross_entropy(logp, target, weight, reduction, eps, class_dim):
    n_classes = logp.shape[class_dim]
    if eps > 0:
        target = target * (1 - eps) + eps / max(n_classes, 1)  # no classes: nothing to smooth
    prod = logp * target
    if weight is not None:
        prod = prod * _class_weight_view(weight, logp, class_dim)
    if reduction == "none":
        return -prod.sum(class_dim)
    if reduction == "sum":
        return -prod.sum()
    # Over the batch size; with no classes it is 0 and the mean 0/0 = nan, as in PyTorch. A C++
    # Scalar division there: grad_fn DivBackward1.
    return div_scalar(-prod.sum(), logp.numel() // n_classes if n_classes else 0)


def _smoothed(nll, logp, target, weight, reduction, ignore_index, eps, class_dim):
    """PyTorch's label smoothing: (1 - eps) * nll + eps / C * (the uniform-target loss)."""
    n_classes = logp.shape[class_dim]
    ignore = target == ignore_index
    lw = logp * _class_weight_view(weight, logp, class_dim) if weight is not None else logp
    smooth = -lw.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = target.masked_select(~ignore).flatten()
            ret = smooth.sum() / weight.gather(0, kept).sum()
        else:
            ret = smooth.sum() / (~ignore).sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - eps) * nll + ret * (eps / n_classes)


# Added with issue #4.
from ..ops.nn.bilinear import bilinear  # noqa: F401
from ..ops.nn.conv import conv_transpose3d  # noqa: F401
from ._functional.activation import rrelu, rrelu_  # noqa: F401
from ._functional.attention import multi_head_attention_forward  # noqa: F401
from ._functional.linear_ce import linear_cross_entropy  # noqa: F401
from ._functional.pooling import (  # noqa: F401  # noqa: E402, F401
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    conv_tbc,
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
    lp_pool3d,
    max_unpool3d,
    pdist,
    upsample_bilinear,
    upsample_nearest,
)

native_channel_shuffle = channel_shuffle
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


# A non-Tensor first argument: PyTorch's parser TypeError, not an AttributeError (only the
# functions that met one: the others check their input, and wrapping adds a frame to warnings)
def _guard_tensor_inputs() -> None:
    from .._tensor_arguments import guard

    guard(globals(), names={
        "celu", "celu_", "conv3d", "elu", "elu_", "gelu", "hardshrink", "hardsigmoid", "hardswish",
        "leaky_relu", "leaky_relu_", "logsigmoid", "mish", "pdist", "relu", "relu_", "rrelu",
        "rrelu_", "selu", "selu_", "silu", "softplus", "softshrink",
    })  # fmt: skip


_guard_tensor_inputs()
