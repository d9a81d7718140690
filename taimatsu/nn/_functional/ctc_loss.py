"""``F.ctc_loss``: connectionist temporal classification as ATen's CPU kernel computes it: the
alpha recursion in log space (all samples at once, a loop over time), one ``CtcLossBackward0``
node whose backward runs the beta recursion and forms the gradient of Graves et al.'s eq. (16),
``exp(lp) - exp(log(alpha beta) + nll - lp)``, as ATen does (it assumes log-softmax inputs)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._autocast import FP32, cast_policy
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import Node
from ...ops._dispatch import record, scalar_name, xp_for
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
    in_len, tl = _lengths(input_lengths), _lengths(target_lengths)
    _check(lp, targets, in_len, tl, blank, unbatched)
    if lp._dtype not in (D.float32, D.float64):
        raise NotImplementedError(
            f"\"ctc_loss_{lp._device.type}\" not implemented for '{scalar_name(lp._dtype)}'"
        )
    if unbatched and targets.dim() == 1 and len(tl) == 1 and targets.numel() != tl[0]:
        targets = targets[: int(tl[0])]
    nll = _ctc(lp, _extended_targets(targets, tl, blank, lp.shape[1], lp.shape[2], unbatched),
               in_len, tl, zero_infinity)  # fmt: skip
    if zero_infinity:
        nll = nll.where(nll != float("inf"), 0.0)  # grad_fn WhereBackward0, as PyTorch's
    if unbatched:
        nll = nll.squeeze(0)
    if reduction == "mean":
        denom = tensor(np.maximum(tl, 1).astype(np.float64), dtype=lp.dtype, device=lp.device)
        return (nll / (denom.squeeze(0) if unbatched else denom)).mean()
    if reduction == "sum":
        return nll.sum()
    return nll


def _extended_targets(targets: Tensor, tl, blank: int, batch: int, labels: int, unbatched: bool):
    """Each sample's target with blanks around and between its labels, (batch, 2 max(tl) + 1)
    integers (blank past a sample's own 2 tl + 1)."""
    flat = np.asarray(targets.tolist(), dtype=np.float64).astype(np.int64).reshape(-1)
    width = int(tl.max()) if len(tl) else 0
    ext = np.full((batch, 2 * width + 1), blank, dtype=np.int64)
    if targets.dim() == 1 and not unbatched:  # the targets of the batch one after another
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        rows = [flat[a : a + n] for a, n in zip(starts, tl)]
    else:
        per_row = flat.reshape(batch, -1)
        rows = [per_row[i, :n] for i, n in enumerate(tl)]
    for i, r in enumerate(rows):
        ext[i, 1 : 2 * len(r) : 2] = r
    bad = ext[(ext < 0) | (ext >= labels)]
    if bad.size:
        raise RuntimeError(
            f"index {int(bad[0])} is out of bounds for dimension 2 with size {labels}"
        )
    return ext


def _log_add3(a1, a2, a3, lp_s, xp):
    """``log(exp(a1 - m) + exp(a2 - m) + exp(a3 - m)) + m + lp_s``, ``m`` the largest of the three
    (0 where all are -inf), added in PyTorch's order."""
    m = xp.maximum(xp.maximum(a1, a2), a3)
    m[m == -np.inf] = 0
    r = xp.exp(a1 - m)
    r += xp.exp(a2 - m)
    r += xp.exp(a3 - m)
    r = xp.log(r, out=r)
    r += m
    r += lp_s
    return r


def _shifted(a, k: int, fill, xp):
    """``a`` (rows, L) moved ``k`` places along L (right for k > 0, left for k < 0), ``fill``
    where nothing moved in."""
    out = a.copy() if k == 0 else xp.full_like(a, fill)
    if k > 0:
        out[:, k:] = a[:, :-k]
    elif k < 0:
        out[:, :k] = a[:, -k:]
    return out


class _CtcLossNode(Node):
    """PyTorch's ``_ctc_loss`` as one node: its backward runs the beta recursion and forms the
    gradient of eq. (16) of Graves et al. the way ATen's CPU kernel does."""

    __slots__ = ()

    def apply(self, g):
        (lp,) = self.saved()
        return (_wrap(_ctc_backward(self, lp._data, g._data), lp._dtype, lp._device),)


_CtcLossNode.__name__ = _CtcLossNode.__qualname__ = "CtcLossBackward0"
_CtcLossNode.__module__ = "builtins"


def _ctc(lp: Tensor, ext, in_len, tl, zero_infinity: bool) -> Tensor:
    """The negative log-likelihood of each sample's target (N,), by the alpha recursion in log
    space over all samples at once (ATen's ``ctc_loss_cpu_template``)."""
    xp = xp_for(lp)
    a = lp._data
    steps, batch, _ = a.shape
    L = ext.shape[1]
    idx = xp.asarray(ext)
    lpe = xp.take_along_axis(a, xp.broadcast_to(idx[None], (steps, batch, L)), axis=2)
    la = xp.full((steps, batch, L), -np.inf, dtype=a.dtype)
    s = np.arange(L)
    skip = np.zeros((batch, L), dtype=bool)  # s may come from s - 2: a label unlike s - 2's
    skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
    no_skip = xp.asarray(~skip)
    with np.errstate(all="ignore"):
        if steps:
            first = xp.asarray((s[None, :] == 0) | ((s[None, :] == 1) & (tl[:, None] > 0)))
            la[0] = xp.where(first, lpe[0], -np.inf)
        for t in range(1, int(in_len.max()) if len(in_len) else 0):
            prev = la[t - 1]
            a3 = _shifted(prev, 2, -np.inf, xp)
            a3[no_skip] = -np.inf
            la[t] = _log_add3(prev, _shifted(prev, 1, -np.inf, xp), a3, lpe[t], xp)
        n, last = xp.asarray(np.arange(batch)), xp.asarray(np.maximum(in_len - 1, 0))
        l1 = la[last, n, xp.asarray(2 * tl)] if steps else xp.zeros(batch, a.dtype)
        l2 = (
            la[last, n, xp.asarray(np.maximum(2 * tl - 1, 0))]
            if steps
            else xp.zeros(batch, a.dtype)
        )
        l2 = xp.where(xp.asarray(tl > 0), l2, -np.inf)
        m = xp.maximum(l1, l2)
        m[m == -np.inf] = 0
        ll = xp.log(xp.exp(l1 - m) + xp.exp(l2 - m)) + m
        ll = xp.where(xp.asarray(tl > 0), ll, l1)  # no label: the blank path alone
        ll = xp.where(xp.asarray(in_len > 0), ll, xp.asarray(np.where(tl > 0, -np.inf, 0.0)))
        nll = -ll.astype(a.dtype, copy=False)
    out = _wrap(nll, lp._dtype, lp._device)
    if _gm.enabled and lp._rg:
        record(_CtcLossNode, (lp,), out, (lp,), la=la, lpe=lpe, ext=ext, in_len=in_len, tl=tl,
               nll=nll, zero_infinity=zero_infinity)  # fmt: skip
    return out


def _ctc_backward(node, a, g):
    """ATen's ``ctc_loss_backward_cpu_template``: beta by the recursion from each sample's last
    step, log(alpha beta) summed per label, then ``(exp(lp) - exp(lcab + nll - lp)) * grad``
    inside each input (0 after it, and for an infinite loss under ``zero_infinity``)."""
    d = node.__dict__
    la, lpe, ext, in_len, tl, nll = d["la"], d["lpe"], d["ext"], d["in_len"], d["tl"], d["nll"]
    xp = xp_for(node.saved()[0])
    steps, batch, labels = a.shape
    L = ext.shape[1]
    s = np.arange(L)
    top = 2 * tl[:, None]
    start = xp.asarray((s[None, :] == top) | ((s[None, :] == top - 1) & (tl[:, None] > 0)))
    within = xp.asarray(s[None, :] <= top)
    skip = np.zeros((batch, L), dtype=bool)  # s may come from s + 2: a label unlike s + 2's
    skip[:, :-2] = ext[:, :-2] != ext[:, 2:]
    no_skip = xp.asarray(~skip) | ~within
    lb = xp.full((steps, batch, L), -np.inf, dtype=a.dtype)
    t_last = xp.asarray(in_len - 1)
    with np.errstate(all="ignore"):
        for t in range(int(in_len.max()) - 1 if len(in_len) else -1, -1, -1):
            if t + 1 < steps:
                nxt = lb[t + 1]
                b2 = _shifted(nxt, -1, -np.inf, xp)
                b2[~within] = -np.inf
                b3 = _shifted(nxt, -2, -np.inf, xp)
                b3[no_skip] = -np.inf
                rec = _log_add3(nxt, b2, b3, lpe[t], xp)
                rec[~within] = -np.inf
            else:
                rec = xp.full((batch, L), -np.inf, dtype=a.dtype)
            init = xp.where(start, lpe[t], -np.inf)
            lb[t] = xp.where(
                (t < t_last)[:, None], rec, xp.where((t == t_last)[:, None], init, -np.inf)
            )
        lab = la + lb
        # At each sample's last step ATen assigns the label's sum after the blank's: a target
        # holding the blank label keeps only the former
        n = np.arange(batch)
        last = np.maximum(in_len - 1, 0)
        overwrite = (tl > 0) & (ext[n, np.maximum(2 * tl - 1, 0)] == ext[n, 2 * tl]) & (in_len > 0)
        if overwrite.any():
            k = np.flatnonzero(overwrite)
            lab[xp.asarray(last[k]), xp.asarray(k), xp.asarray(2 * tl[k])] = -np.inf
        m = lab.max(axis=2, keepdims=True)
        m[m == -np.inf] = 0
        onehot = xp.asarray((ext[:, :, None] == np.arange(labels)[None, None, :]).astype(a.dtype))
        acc = xp.einsum("tns,nsc->tnc", xp.exp(lab - m), onehot)
        lcab = xp.log(acc) + m
        grad = (xp.exp(a) - xp.exp(lcab + nll[None, :, None] - a)) * g[None, :, None]
    inside = xp.asarray(np.arange(steps)[:, None] < in_len[None, :])
    if d["zero_infinity"]:
        inside = inside & ~(nll == np.inf)[None, :]  # (nll: an array of lp's device)
    return xp.where(inside[:, :, None], grad, 0).astype(a.dtype, copy=False)
