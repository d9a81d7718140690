"""``multi_margin_loss``, ``multilabel_margin_loss``, ``triplet_margin_with_distance_loss`` and
``ctc_loss``, composed of Tensor ops (whole batches at once; CTC loops over time only).

CTC runs the forward (alpha) recursion in log space over the blank-extended targets, with a
large finite stand-in for log(0) so that impossible paths get zero gradient rather than NaN;
an infeasible alignment still reports ``inf`` (or 0 with ``zero_infinity``). PyTorch's CTC
backward returns ``exp(log_probs) - occupancy`` for ``log_probs`` (the gradient through a
``log_softmax`` folded in); a zero-valued term reproduces that extra ``exp(log_probs)``.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from ...ops.creation import tensor
from .loss import _reduce, _reduction


def multi_margin_loss(
    input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight=None, size_average=None, reduce=None,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    y = target.reshape(-1)
    n, c = x.shape
    if y.numel() != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got {list(target.shape)}")
    if n and (int(y.min()) < 0 or int(y.max()) >= c):
        raise RuntimeError("target out of range")
    x_y = x.gather(1, y.unsqueeze(1))
    z = (margin - x_y + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y).unsqueeze(1)
    is_y = tensor(np.arange(c), device=x.device).unsqueeze(0) == y.unsqueeze(1)
    loss = z.masked_fill(is_y, 0).sum(1) / c
    if input.dim() < 2:
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:  # fmt: skip
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(x.shape)
    c = x.shape[1]
    valid = (t >= 0).long().cumprod(1).bool()  # the labels before the first -1
    idx = t.clamp_min(0)
    is_target = t.new_zeros(x.shape).scatter_add(1, idx, valid.long()) > 0
    x_t = x.gather(1, idx)  # (N, C): the score of each listed label
    # (N, label, class); relu, not clamp_min: PyTorch counts a pair only when its margin is > 0,
    # so a margin of exactly 0 passes no gradient
    hinge = (1 - x_t.unsqueeze(2) + x.unsqueeze(1)).relu()
    keep = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = hinge.masked_fill(~keep, 0).sum((1, 2)) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function=None, margin: float = 1.0,
    swap: bool = False, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    from .norm import pairwise_distance

    if margin <= 0:
        raise ValueError(
            f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead"
        )
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p == n):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(dist(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _reduce(loss, reduction)


def _lengths(x) -> np.ndarray:
    if isinstance(x, Tensor):
        return np.asarray(x.tolist(), dtype=np.int64).reshape(-1)
    return np.asarray(list(x) if not isinstance(x, int) else [x], dtype=np.int64).reshape(-1)


def ctc_loss(
    log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:  # fmt: skip
    """Connectionist Temporal Classification loss of (T, N, C) (or (T, C)) log-probabilities."""
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    T_, N, _ = lp.shape
    in_len, tl = _lengths(input_lengths), _lengths(target_lengths)
    if unbatched and targets.dim() == 1 and len(tl) == 1 and targets.numel() != tl[0]:
        targets = targets[: int(tl[0])]
    S = int(tl.max()) if len(tl) else 0
    if targets.dim() == 1 and not unbatched:  # concatenated targets
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        pos = np.minimum(
            starts[:, None] + np.arange(max(S, 1))[None, :], max(targets.numel() - 1, 0)
        )
        if targets.numel():
            tgt = targets.reshape(-1)[tensor(pos, device=lp.device)][:, :S]
        else:
            tgt = lp.new_zeros((N, S), dtype=D.int64)
    else:
        tgt = targets.reshape(N, -1)[:, :S]
    tgt = tgt.long()
    L = 2 * S + 1
    ext = tgt.new_full((N, L), blank)
    if S:
        ext[:, 1::2] = tgt
    lp_ext = lp.gather(2, ext.unsqueeze(0).expand(T_, N, L))  # (T, N, L)
    neg = -1e30
    ext_np = np.asarray(ext.tolist(), dtype=np.int64).reshape(N, L)
    skip = np.zeros((N, L), dtype=bool)
    skip[:, 2:] = (ext_np[:, 2:] != blank) & (ext_np[:, 2:] != ext_np[:, :-2])
    skip_mask = tensor(skip, device=lp.device)
    start = np.full((N, L), neg)
    start[:, 0] = 0.0
    start[tl > 0, 1] = 0.0
    alpha = lp_ext[0] + tensor(start, dtype=lp.dtype, device=lp.device)
    fill = lp.new_full((N, 1), neg)
    fill2 = lp.new_full((N, 2), neg)
    for t in range(1, T_):
        prev1 = _cat([fill, alpha[:, :-1]])
        prev2 = _cat([fill2, alpha[:, :-2]]).masked_fill(~skip_mask, neg)
        new = _stack([alpha, prev1, prev2]).logsumexp(0) + lp_ext[t]
        active = tensor((in_len > t)[:, None], device=lp.device)
        alpha = new.where(active, alpha)
    last = tensor(2 * tl, device=lp.device).unsqueeze(1)
    end = alpha.gather(1, last).squeeze(1)
    end_prev = alpha.gather(1, (last - 1).clamp_min(0)).squeeze(1)
    end_prev = end_prev.masked_fill(tensor(tl == 0, device=lp.device), neg)
    nll = -_stack([end, end_prev]).logsumexp(0)
    # PyTorch's gradient for log_probs carries exp(log_probs) at the steps inside each input.
    inside = tensor((np.arange(T_)[:, None] < in_len[None, :])[:, :, None], device=lp.device)
    extra = lp.exp().masked_fill(~inside, 0).sum((0, 2))
    nll = nll + (extra - extra.detach())
    infeasible = nll.detach() >= 1e29
    if zero_infinity:
        nll = nll.masked_fill(infeasible, 0.0)
    else:
        nll = nll.masked_fill(infeasible, float("inf"))
    if unbatched:
        nll = nll.squeeze(0)
    if reduction == "mean":
        denom = tensor(np.maximum(tl, 1).astype(np.float64), dtype=lp.dtype, device=lp.device)
        return (nll / (denom.squeeze(0) if unbatched else denom)).mean()
    if reduction == "sum":
        return nll.sum()
    return nll


def _cat(ts):
    from ...ops.shape import cat

    return cat(ts, 1)


def _stack(ts):
    from ...ops.shape import stack

    return stack(ts, 0)
