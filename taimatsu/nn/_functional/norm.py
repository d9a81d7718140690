"""Normalisation, embedding and distance functions of ``torch.nn.functional``."""

from __future__ import annotations

from ... import _dtype as D
from ..._autocast import FP32, cast_policy
from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ...func import _vmap
from ...ops._dispatch import need_tensor
from ...ops.arg_types import boolean, int_list, integer
from ...ops.nn import embedding as _embedding
from ...ops.nn import normalization as _n
from ...ops.nn import pooling as _pool
from .pooling import pad


def _verify_batch_size(size) -> None:
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


_UNBATCHED_RUNNING_STATS = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which will be "
    "updated in place, were not batched.\nIf you are using a module and do not need eval mode, please "
    "set `track_running_stats` to be False.If you are using a prebuilt module and do not need eval "
    "mode, please see the functorch website for resources on how to patch your module to work with vmap"
)


def batch_norm(
    input: Tensor, running_mean, running_var, weight=None, bias=None, training: bool = False,
    momentum: float = 0.1, eps: float = 1e-5,
) -> Tensor:  # fmt: skip
    """Batch statistics in training (updating the running ones), running statistics otherwise;
    grad_fn NativeBatchNormBackward0."""
    if training:  # PyTorch's Python-side check (truthiness), before its parser's
        _verify_batch_size(input.size())
    boolean("batch_norm", "training", 6, training)
    if input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if (
        training and running_mean is not None and _vmap.SAMPLES
        and _vmap.unbatched(running_mean, running_var)
    ):  # fmt: skip
        raise RuntimeError(_UNBATCHED_RUNNING_STATS)
    return _n.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _empty_batch_norm(input: Tensor, weight, bias) -> Tensor:
    """PyTorch's shortcut for an empty input: the running statistics are neither checked nor
    updated, the result is a copy times weight[0] plus bias[0] (so their dtypes promote)."""
    out = input.clone()
    if weight is not None:
        out = out * weight[0]
    if bias is not None:
        out = out + bias[0]
    return out


def instance_norm(
    input: Tensor, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats: bool = True,
    momentum: float = 0.1, eps: float = 1e-5,
) -> Tensor:  # fmt: skip
    """Batch norm of the (1, N*C, *) reshaped input, as PyTorch computes it (grad_fn ViewBackward0)."""
    if use_input_stats:
        size = input.size()
        n = 1
        for s in size[2:]:
            n *= s
        if n == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {size}"
            )
    b, c = input.shape[0], input.shape[1]
    x = input.reshape(1, b * c, *input.shape[2:])
    w = weight.repeat(b) if weight is not None else None
    bb = bias.repeat(b) if bias is not None else None
    rm = running_mean.repeat(b) if running_mean is not None else None
    rv = running_var.repeat(b) if running_var is not None else None
    out = _n.batch_norm(x, rm, rv, w, bb, use_input_stats, momentum, eps)
    if running_mean is not None and use_input_stats:
        with no_grad():
            running_mean.copy_(rm.view(b, c).mean(0))
            running_var.copy_(rv.view(b, c).mean(0))
    return out.view(input.shape)


@cast_policy(FP32, ("cuda",))
def layer_norm(
    input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5
) -> Tensor:
    int_list("layer_norm", "normalized_shape", 2, normalized_shape, one=False)
    return _n.layer_norm(input, normalized_shape, weight, bias, eps)


@cast_policy(FP32, ("cuda",))
def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    # F.group_norm's own checks before the op's (num_groups=0 divides by zero there, as in PyTorch)
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size(
        [input.size(0) * input.size(1) // num_groups, num_groups, *list(input.size())[2:]]
    )
    return _n.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape, weight=None, eps=None) -> Tensor:
    """``x * rsqrt(mean(x^2) + eps) * weight`` over the trailing dims (eps: the dtype's eps)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if tuple(input.shape[input.dim() - k :]) != shape:
        expected = "[*" + "".join(f", {s}" for s in shape) + "]"
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape {expected}, but got input of "
            f"size{list(input.shape)}"
        )
    # float16/bfloat16 in float32 (the default eps float32's), converted back at the end, as
    # PyTorch's composite does (grad_fn ToCopyBackward0)
    half = input.dtype in (D.float16, D.bfloat16)
    x = input.float() if half else input
    if eps is None:
        eps = D.finfo(x.dtype).eps
    dims = list(range(input.dim() - k, input.dim()))
    out = x * (x.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out.to(input.dtype) if half else out


def embedding(
    input: Tensor, weight: Tensor, padding_idx=None, max_norm=None, norm_type: float = 2.0,
    scale_grad_by_freq: bool = False, sparse: bool = False,
) -> Tensor:  # fmt: skip
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        input = input.contiguous()  # a non-tensor fails here and below as in PyTorch's F.embedding
        if not isinstance(weight, Tensor):
            raise AttributeError(f"'{type(weight).__name__}' object has no attribute 'detach'")
        with no_grad():
            _embedding.embedding_renorm_(weight, input, max_norm, norm_type)
    return _embedding.embedding(input, weight, padding_idx, scale_grad_by_freq, sparse)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    from ...ops.pointwise.binary import div

    return div(input, denom, out=out)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dim."""
    from ...ops.creation.factories import zeros

    need_tensor("one_hot", tensor)
    integer("one_hot", "num_classes", 2, num_classes)
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return zeros(*tensor.shape, num_classes, dtype=D.int64)
    lo, hi = int(tensor.min()), int(tensor.max())
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = hi + 1
    elif hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = zeros(*tensor.shape, num_classes, dtype=D.int64)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dim (grad_fn NormBackward1)."""
    nd = max(x1.dim(), x2.dim())
    dim = -1 if nd else 0
    from ...ops.reduction.norms import aten_norm

    return aten_norm(x1 - x2 + eps, p, dim, keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum((x1 / ||x1||) * (x2 / ||x2||))`` along ``dim`` (PyTorch's formula, grad_fn SumBackward1).

    PyTorch clamps the norms to ``eps`` in place under no_grad, so the gradient flows as if
    unclamped; the detached correction below does the same.
    """
    from ...ops.shape.view_ops import broadcast_tensors

    a, b = broadcast_tensors(x1, x2)
    na = a.norm(2, dim, keepdim=True)
    nb = b.norm(2, dim, keepdim=True)
    na = na + (na.clamp_min(eps) - na).detach()
    nb = nb + (nb.clamp_min(eps) - nb).detach()
    return ((a / na) * (b / nb)).sum(dim)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Divide by ``(k + alpha * mean of squares over ``size`` neighbouring channels) ** beta``."""
    dim = input.dim()
    if dim < 3:
        # PyTorch's message, with the indentation its source line continuation leaves in it
        raise ValueError(
            f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    sizes = input.shape
    div = input.mul(input).reshape(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = _pool.avg_pool2d(div, (size, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
