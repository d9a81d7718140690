"""The legacy ``nn.CrossMapLRN2d`` kernel, matching PyTorch's numbers.

PyTorch's forward sums squares over a running channel window whose bookkeeping always keeps
channel 0 in the sum and, for channels up to ``pre_pad``, starts the window at 0; its backward
is the formula for the plain symmetric window. Both are reproduced as they are (forward on
arrays with one cumulative sum over channels, backward in Tensor ops), so values and gradients
agree with PyTorch's.
"""

from __future__ import annotations

import numpy as np

from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import record, xp_for


def _window_sums(xp, cs, c: int, pre: int):
    """Per-channel sums of PyTorch's forward window, from ``cs`` = [0, cumsum over channels]."""
    idx = np.arange(c)
    hi = np.minimum(idx + pre - 1, c - 1) + 1
    lo = np.where(idx <= pre, 0, idx - pre + 1)
    sums = cs[:, hi] - cs[:, lo]
    extra = np.where(idx > pre, 1.0, 0.0).astype(cs.dtype)  # channel 0 stays in the sum
    return sums + (cs[:, 1:2] - cs[:, 0:1]) * xp.asarray(extra)[None, :, None, None]


def _lrn_vjp(node, g):
    x, out = node.saved()
    size, alpha, beta = node.size, node.alpha, node.beta
    scale = node.scale
    c = x.shape[1]
    ratio = g * out / scale
    cs = ratio.cumsum(1)
    cs = _cat0(cs)
    ipp = int(size - (size - 1) / 2)
    idx = np.arange(c)
    hi = np.clip(idx + size - ipp, 0, c)
    lo = np.clip(idx - ipp, 0, c)
    from ..creation.factories import tensor

    dev = x.device
    accum = cs.index_select(1, tensor(hi, device=dev)) - cs.index_select(1, tensor(lo, device=dev))
    return (scale.pow(-beta) * g - (2 * alpha * beta / size) * x * accum,)


def _cat0(cs: Tensor) -> Tensor:
    from ..shape.copies import cat

    return cat([cs.new_zeros((cs.shape[0], 1, *cs.shape[2:])), cs], 1)


_CrossMapLRN = node_class("CrossMapLRN2dBackward", _lrn_vjp)


def cross_map_lrn2d(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1
) -> Tensor:
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    xp = xp_for(input)
    x = input._data
    c = x.shape[1]
    sq = x * x
    cs = xp.concatenate([xp.zeros_like(sq[:, :1]), xp.cumsum(sq, axis=1)], axis=1)
    pre = int((size - 1) / 2 + 1)
    scale = _window_sums(xp, cs, c, pre) * (alpha / size) + k
    out = (xp.power(scale, -beta) * x).astype(x.dtype, copy=False)
    r = _wrap(out, input._dtype, input._device)
    if input._rg and _gm.enabled:
        s = _wrap(scale.astype(x.dtype, copy=False), input._dtype, input._device)
        record(_CrossMapLRN, (input,), r, (input, r), size=size, alpha=alpha, beta=beta, scale=s)
    return r
