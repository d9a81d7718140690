"""``F.ctc_loss``: connectionist temporal classification, composed of Tensor ops (whole
batches at once; the recursion loops over time only)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._autocast import FP32, cast_policy
from ..._tensor.core import Tensor
from ...ops.creation.factories import tensor


def _lengths(x) -> np.ndarray:
    if isinstance(x, Tensor):
        return np.asarray(x.tolist(), dtype=np.int64).reshape(-1)
    return np.asarray(list(x) if not isinstance(x, int) else [x], dtype=np.int64).reshape(-1)


_WHILE = " (while checking arguments for ctc_loss_allocate_outputs)"
_TARGETS = "for argument #2 'targets'"


def _check(lp, targets, in_len, tl, blank: int, unbatched: bool) -> None:
    """PyTorch's argument checks, in its order: the blank label, the lengths' counts, the
    targets' sizes, the input lengths' values (a length past the input would otherwise be
    read as the input's length)."""
    steps, batch, labels = lp.shape
    if not 0 <= blank < labels:
        raise RuntimeError("blank must be in label range")
    if len(in_len) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if targets.dim() == 1 and not unbatched:  # the targets of the batch one after another
        total = int(tl.sum())
        if targets.shape[0] != total:
            raise RuntimeError(
                f"Expected tensor to have size {total} at dimension 0, but got size "
                f"{targets.shape[0]} {_TARGETS}{_WHILE}"
            )
    else:
        rows, width = (1, targets.shape[-1]) if targets.dim() == 1 else tuple(targets.shape[:2])
        if rows != batch:
            raise RuntimeError(
                f"Expected tensor to have size {batch} at dimension 0, but got size {rows} "
                f"{_TARGETS}{_WHILE}"
            )
        longest = int(tl.max()) if len(tl) else 0
        if width < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                f"{width} {_TARGETS}{_WHILE}"
            )
    for n in in_len:
        if n < 0:
            raise RuntimeError(
                f"Expected input_lengths to have value at least 0, but got value {n}{_WHILE}"
            )
        if n > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value {n}{_WHILE}"
            )


@cast_policy(FP32, ("cpu",))
def ctc_loss(
    log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:  # fmt: skip
    """Connectionist Temporal Classification loss of (T, N, C) (or (T, C)) log-probabilities."""
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    T_, N, _ = lp.shape
    in_len, tl = _lengths(input_lengths), _lengths(target_lengths)
    _check(lp, targets, in_len, tl, blank, unbatched)
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
        nll = nll.where(infeasible.logical_not(), 0.0)  # grad_fn WhereBackward0, as PyTorch's
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
    from ...ops.shape.copies import cat

    return cat(ts, 1)


def _stack(ts):
    from ...ops.shape.copies import stack

    return stack(ts, 0)
