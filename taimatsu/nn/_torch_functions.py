"""The nn ops PyTorch also exposes at the top level (``torch.softmax``, ``torch.conv2d``, ...)
and as Tensor methods, with ``torch``'s signatures (which differ from ``F``'s)."""

from __future__ import annotations

from .._tensor import Tensor
from ..ops import nn as _nn
from ..ops._dispatch import OUT_EXACT, OUT_FOUND, takes_out
from . import functional as F

conv1d = F.conv1d
conv2d = F.conv2d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
adaptive_avg_pool1d = F.adaptive_avg_pool1d
avg_pool1d = F.avg_pool1d
prelu = F.prelu
group_norm = F.group_norm
layer_norm = F.layer_norm
rms_norm = F.rms_norm


@takes_out("softmax", OUT_EXACT, grad="aten")
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _nn.softmax(input, dim, dtype)


@takes_out("log_softmax", OUT_EXACT, grad="aten")
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return _nn.log_softmax(input, dim, dtype)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, train, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    from ._functional.misc import _feature_dropout

    return _feature_dropout(input, p, train, False)


def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True
):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):  # fmt: skip
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def embedding(
    weight: Tensor, input: Tensor, padding_idx: int = -1, scale_grad_by_freq=False, sparse=False
):
    from ..ops.nn_norm import embedding as _embedding

    return _embedding(input, weight, None if padding_idx < 0 else padding_idx, scale_grad_by_freq)


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    from ..ops.nn_resample import constant_pad_nd as _pad

    return _pad(input, list(pad), value)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def selu(input: Tensor) -> Tensor:
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha)


@takes_out("threshold")
def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value)


@takes_out("hardshrink", OUT_FOUND)
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return F.hardshrink(input, lambd)
