"""Recurrent-layer kernels: one direction of one layer of ``RNN`` / ``LSTM`` / ``GRU``.

``rnn_layer`` runs on the packed layout (``nn.utils.rnn.PackedSequence``): rows of ``input`` are
grouped by time step, step t holding the first ``batch_sizes[t]`` sequences (sorted longest
first); a plain ``(T, B, *)`` input is the case where every step holds all ``B``.

Two implementations, one answer (to float rounding):

- **fused** (float32 / float64 on the CPU): the input projection of all steps, biases included,
  is one GEMM, each step one GEMM for all gates plus in-place NumPy arithmetic, and the whole
  direction is one autograd node whose backward runs the time loop in reverse on arrays and
  computes each weight gradient (with the folded biases' gradients) in one GEMM after the loop.
  The gates go through the kernels of ``torch.sigmoid`` / ``torch.tanh`` (``GateKernels``),
  as PyTorch's composite layers do, except in the float32 LSTM: PyTorch runs that one through
  oneDNN, and here a sigmoid is ``(tanh(x / 2) + 1) / 2`` so one tanh call covers a step.
  Rounding differs from PyTorch's in the last bits: for LSTM and RNN ``b_hh`` is folded into
  the input projection (PyTorch adds it per step).
- **op by op** (every other case): the cell written in Tensor ops, one step at a time, the graph
  recorded op by op. It is also what the fused node's backward falls back to when a graph of the
  backward is requested (``create_graph=True``), so double backward is exact.

An LSTM or GRU layer whose steps all hold the whole batch (an unpacked input, or equal lengths)
runs in ``rnn_step_major.py`` (step-major, transposed arrays: each gate of a step one contiguous
block; a backward whose working memory is one chunk of steps); packed batches of unequal
lengths, and RNN layers, run here.

The cells (``_lstm_step``, ``_gru_step``, ``_rnn_step``) are the formulas of PyTorch's docs, gate
order included (LSTM: input, forget, cell, output; GRU: reset, update, new).
"""

from __future__ import annotations

import functools

import numpy as np

from ... import _autocast
from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd import engine
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import Node
from ...backend.float32_math import chunk_cuts
from ...backend.float32_math.gelu import uses_avx512
from ...backend.float32_math.softmax import LANES
from ...backend.threads import gemm_threads
from .._dispatch import _fw_state, record
from ..contraction.matmul import addmm, matmul
from ..pointwise.unary import relu, sigmoid, tanh
from ..shape.copies import cat
from . import rnn_step_major as step_major

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---- op by op: one step of each cell on pre-computed input gates ---------------------------------
def _linear(x: Tensor, w: Tensor, b) -> Tensor:
    return matmul(x, w.t()) if b is None else addmm(b, x, w.t())


@_autocast.cast_policy(_autocast.LOWER, ("cpu", "cuda"))
def _linear_apart(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    """PyTorch's ``linear`` of a non-contiguous 3-d input: the product, then the bias added (in
    float16/bfloat16 two roundings, where addmm has one)."""
    return matmul(x, w.t()) + b


def _rnn_step(mode: str):
    def step(xg, h, c, w_hh, b_hh, w_hr):
        g = xg + _linear(h, w_hh, b_hh)
        return (g.relu() if mode == "RNN_RELU" else g.tanh()), None

    return step


def _lstm_step(xg, h, c, w_hh, b_hh, w_hr):
    gates = xg + _linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = matmul(h, w_hr.t())
    return h, c


def _gru_step(xg, h, c, w_hh, b_hh, w_hr):
    hg = _linear(h, w_hh, b_hh)
    hid = hg.shape[1] // 3
    # PyTorch's cell adds the r and z chunks of the two products and takes sigmoid_ of views
    # (batch, hidden) of the sum: so do these, for the bits the float32 kernel gives a view
    rz = xg[:, : 2 * hid] + hg[:, : 2 * hid]
    r, z = rz[:, :hid].sigmoid(), rz[:, hid:].sigmoid()
    n = (xg[:, 2 * hid :] + r * hg[:, 2 * hid :]).tanh()
    return (h - n) * z + n, None


def step_fn(mode: str):
    """The op-by-op cell of ``mode`` (``(xg, h, c, w_hh, b_hh, w_hr) -> (h, c)``)."""
    if mode == "LSTM":
        return _lstm_step
    if mode == "GRU":
        return _gru_step
    return _rnn_step(mode)


def _offsets(batch_sizes) -> list:
    offsets = [0]
    for b in batch_sizes:
        offsets.append(offsets[-1] + b)
    return offsets


def _layer_ops(mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse,
               bias_apart=False):  # fmt: skip
    """One direction of one layer, op by op. A sequence's final state is taken when it drops
    out (forward), and a sequence joins with its initial state when it starts (reverse).
    ``bias_apart``: see ``rnn_layer``."""
    step = step_fn(mode)
    xg = (
        _linear_apart(input, w_ih, b_ih)
        if bias_apart and b_ih is not None
        else _linear(input, w_ih, b_ih)
    )
    offsets = _offsets(batch_sizes)
    steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    outs = [None] * len(batch_sizes)
    h, c = h0, c0
    if reverse:
        first = batch_sizes[-1]
        h = h0[:first] if first < h0.size(0) else h0
        c = None if c0 is None else (c0[:first] if first < c0.size(0) else c0)
    done_h, done_c = [], []
    for t in steps:
        b = batch_sizes[t]
        if b != h.size(0):
            if reverse:  # more sequences start here
                h = cat([h, h0[h.size(0) : b]], 0)
                c = None if c is None else cat([c, c0[c.size(0) : b]], 0)
            else:  # some sequences ended at the previous step
                done_h.append(h[b:])
                h = h[:b]
                if c is not None:
                    done_c.append(c[b:])
                    c = c[:b]
        h, c = step(xg[offsets[t] : offsets[t + 1]], h, c, w_hh, b_hh, w_hr)
        outs[t] = h
    if not reverse and done_h:
        h = cat([h, *reversed(done_h)], 0)
        c = None if c is None else cat([c, *reversed(done_c)], 0)
    out = outs[0] if len(outs) == 1 else cat(outs, 0)
    return out, h, c


# ---- fused: forward on arrays -------------------------------------------------------------------
class GateKernels:
    """The gate activations of a fused step, on arrays.

    Recurrent layers and cells are composite in PyTorch (``torch.sigmoid`` / ``torch.tanh`` on
    the gates), except the float32 LSTM layer, which PyTorch runs through oneDNN
    (``MkldnnRnnLayerBackward0``): its gates come from oneDNN's own kernels. So every gate goes
    through the kernels of the ``sigmoid`` / ``tanh`` / ``relu`` ops themselves (the same bits as
    those ops), and only the float32 LSTM layer takes the fastest form (``halved``):
    sigmoid(x) = (tanh(x / 2) + 1) / 2 with the halving folded into the weight and bias rows
    (exact in binary), so that one ``np.tanh`` call covers all four gates of a step."""

    __slots__ = ("dev", "dt", "halved")

    def __init__(self, dt: D.dtype, dev, halved: bool = False):
        self.dt, self.dev, self.halved = dt, dev, halved

    def sigmoid(self, a):
        return sigmoid(_wrap(a, self.dt, self.dev))._data

    def tanh(self, a):
        return tanh(_wrap(a, self.dt, self.dev))._data

    def relu(self, a):
        return relu(_wrap(a, self.dt, self.dev))._data

    def gru_sigmoid(self, rz):
        """The GRU cell's r and z from their pre-activations ``rz`` (batch, 2 hidden), rows
        contiguous: each gate the sigmoid of its view, as ``_gru_step`` takes it (the float32
        kernel's bits depend on the layout it is given), in one call where that is the same."""
        hid = rz.shape[1] // 2
        if self.joinable(rz, hid, 2):
            return self.sigmoid(rz)
        out = np.empty_like(rz)
        out[:, :hid] = self.sigmoid(rz[:, :hid])
        out[:, hid:] = self.sigmoid(rz[:, hid:])
        return out

    def joinable(self, a, hid: int, parts: int) -> bool:
        """Whether one sigmoid/tanh call on ``a`` (batch, parts * hid), rows contiguous or
        ``a.T`` contiguous (step-major), gives the bits of one call per (batch, hid) gate view
        of a row-major copy. The float32 kernel is elementwise
        except that it runs some elements through PyTorch's scalar loop (the tail of each row
        piece, ``float32_math.run``): the same bits when no element of either layout takes it,
        that is rows of a multiple of the vector width and thread chunks cut at multiples of it
        (``hid`` a multiple of the width keeps every row and gate boundary aligned)."""
        if not (isinstance(a, np.ndarray) and a.dtype == np.float32):
            return False
        if a.strides[1] != 4 and not a.T.flags.c_contiguous:
            return False
        width = 2 * LANES
        if hid % width:
            return False
        sizes = (a.shape[0] * hid, a.shape[0] * hid * parts)
        return all(c % width == 0 for size in sizes for c in chunk_cuts(size))

    def sigmoid_(self, a) -> None:
        """In place, on pre-activations (halved ones for the ``halved`` form)."""
        if self.halved:
            np.tanh(a, out=a)
            a *= 0.5
            a += 0.5
        else:
            a[...] = self.sigmoid(a)

    def tanh_(self, a, out) -> None:
        if self.halved:
            np.tanh(a, out=out)
        else:
            out[...] = self.tanh(a)


# LSTM runs its gates in the order (output, input, forget, cell) so that the sigmoid gates are
# contiguous, and so are the three that the cell state's gradient reaches.
_LSTM_ORDER = (3, 0, 1, 2)


def _gate_perm(mode: str, hid: int):
    """Row order of the fused LSTM's weights (None: PyTorch's order as is)."""
    if mode != "LSTM":
        return None
    return np.concatenate([np.arange(k * hid, (k + 1) * hid) for k in _LSTM_ORDER])


def _sigmoid_rows(mode: str, hid: int):
    if mode in ("RNN_TANH", "RNN_RELU"):
        return None
    return slice(0, (3 if mode == "LSTM" else 2) * hid)  # LSTM: o, i, f; GRU: r, z


def _prepared(a, perm, rows):
    """``a``'s rows in the fused order, the sigmoid rows halved."""
    if a is None:
        return None
    a = a[perm] if perm is not None else a.copy()
    if rows is not None:
        a[rows] *= 0.5
    return a


def _augmented(x, mats: list):
    """``(x | 1 ...)`` and ``(w^T ; b ...)``: ``x1 @ w1`` is ``x @ w^T + b + ...`` in one product
    (a pass over the gates per bias saved), and ``dz^T @ x1`` holds the weight gradient and, in
    its last columns, the biases' gradients (column sums of dz).

    (``w1`` is contiguous in the transposed layout: OpenBLAS multiplies by it about 1.5x faster
    than by a transposed view.)"""
    n, k = x.shape
    nb = len(mats) - 1
    x1 = np.empty((n, k + nb), x.dtype)
    x1[:, :k] = x
    x1[:, k:] = 1
    w1 = np.empty((k + nb, mats[0].shape[0]), x.dtype)
    w1[:k] = mats[0].T
    for j, b in enumerate(mats[1:]):
        w1[k + j] = b
    return x1, w1


def _steps(batch_sizes, reverse: bool) -> list:
    """(batch, first row, end row) of each time step, in the order the forward runs them."""
    offsets = _offsets(batch_sizes)
    steps = [(b, offsets[t], offsets[t + 1]) for t, b in enumerate(batch_sizes)]
    return steps[::-1] if reverse else steps


def _forward_arrays(k, mode, x, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    """Returns (out, h_n, c_n, saved arrays for the backward); ``k``: the GateKernels."""
    hid = w_hh.shape[0] // GATES[mode]
    perm, rows = _gate_perm(mode, hid), _sigmoid_rows(mode, hid) if k.halved else None
    # GRU's b_hh sits inside r * (h W_hn + b_hn): it is not part of the input projection
    biases = [b for b in (b_ih, None if mode == "GRU" else b_hh) if b is not None]
    if len(set(batch_sizes)) == 1 and mode in ("LSTM", "GRU"):
        if mode == "GRU":
            return step_major.gru_forward(
                k, x, h0, w_ih, w_hh, b_ih, b_hh, len(batch_sizes), reverse
            )
        return step_major.lstm_forward(
            k, x, h0, c0, w_ih, w_hh, biases, w_hr, len(batch_sizes), reverse
        )
    x1, w1 = _augmented(x, [_prepared(a, perm, rows) for a in (w_ih, *biases)])
    gemm_threads(x1.shape[0] * x1.shape[1] * w1.shape[1])  # the BLAS thread policy of matmul
    s = {"gates": x1 @ w1, "x1": x1}  # the gates are overwritten in place
    col, hh_folded = x.shape[1], b_hh is not None and mode != "GRU"  # x1's bias columns
    s["bias_cols"] = (
        col if b_ih is not None else None,
        col + len(biases) - 1 if hh_folded else None,
    )
    steps = _steps(batch_sizes, reverse)
    gemm_threads(batch_sizes[0] * w_hh.shape[0] * w_hh.shape[1])  # the products of the steps
    w_hh_t = np.ascontiguousarray(_prepared(w_hh, perm, rows).T)
    if mode == "LSTM":
        w_hr_t = None if w_hr is None else np.ascontiguousarray(w_hr.T)
        return _lstm_forward_packed(k, steps, s, h0, c0, w_hh_t, w_hr_t)
    h = h0.copy()
    out = np.empty((x.shape[0], h.shape[1]), x.dtype)
    s["h_prev"] = np.empty_like(out)
    if mode == "GRU":
        _gru_forward(k, steps, s, h, w_hh_t, _prepared(b_hh, perm, rows), out)
    else:
        _rnn_forward(k, steps, s, h, w_hh_t, mode, out)
    return out, h, None, s


def _lstm_cell_(k, g, c_prev, c, tanh_c, h_raw, h, w_hr_t) -> None:
    """One LSTM step on its gates ``g`` (pre-activation, fused order): writes c, tanh(c), h."""
    hid = c.shape[1]
    if k.halved:  # one call for all gates
        np.tanh(g, out=g)
        g[:, : 3 * hid] *= 0.5
        g[:, : 3 * hid] += 0.5
    else:
        k.sigmoid_(g[:, : 3 * hid])
        k.tanh_(g[:, 3 * hid :], g[:, 3 * hid :])
    o, i, f, gg = g[:, :hid], g[:, hid : 2 * hid], g[:, 2 * hid : 3 * hid], g[:, 3 * hid :]
    np.multiply(f, c_prev, out=c)
    c += i * gg
    k.tanh_(c, tanh_c)
    if h_raw is None:
        np.multiply(o, tanh_c, out=h)
    else:
        np.matmul(np.multiply(o, tanh_c, out=h_raw), w_hr_t, out=h)


def _lstm_forward_packed(k, steps, s, h0, c0, w_hh_t, w_hr_t):
    """Packed sequences: the state of every sequence in (batch, .) arrays whose first rows each
    step reads and rewrites (the rows of sequences not running keep their state)."""
    n_rows, hid = s["gates"].shape[0], c0.shape[1]
    h, c = h0.copy(), c0.copy()
    out = np.empty((n_rows, h.shape[1]), h.dtype)
    h_prev = s["h_prev"] = np.empty_like(out)
    c_prev = s["c_prev"] = np.empty((n_rows, hid), h.dtype)
    tanh_c = s["tanh_c"] = np.empty((n_rows, hid), h.dtype)
    h_raw = s["h_raw"] = None if w_hr_t is None else np.empty((n_rows, hid), h.dtype)
    gates = s["gates"]
    hg = np.empty((h.shape[0], w_hh_t.shape[1]), h.dtype)
    for b, lo, hi in steps:
        h_prev[lo:hi] = h[:b]
        c_prev[lo:hi] = c[:b]
        g = gates[lo:hi]
        g += np.matmul(h[:b], w_hh_t, out=hg[:b])
        _lstm_cell_(k, g, c_prev[lo:hi], c[:b], tanh_c[lo:hi],
                    None if h_raw is None else h_raw[lo:hi], out[lo:hi], w_hr_t)  # fmt: skip
        h[:b] = out[lo:hi]
    return out, h, c, s


def _gru_forward(k, steps, s, h, w_hh_t, b_hh, out) -> None:
    gates, h_prev = s["gates"], s["h_prev"]
    hid = h.shape[1]
    hn_all = s["hn"] = np.empty((gates.shape[0], hid), h.dtype)
    for b, lo, hi in steps:
        hp = h[:b]
        h_prev[lo:hi] = hp
        g = gates[lo:hi]
        hg = hp @ w_hh_t
        if b_hh is not None:
            hg += b_hh
        rz = g[:, : 2 * hid]
        rz += hg[:, : 2 * hid]
        rz[...] = k.gru_sigmoid(rz)  # rows contiguous: the gate views' layout as in a copy
        r, z, n = g[:, :hid], g[:, hid : 2 * hid], g[:, 2 * hid :]
        hn = hn_all[lo:hi]
        hn[...] = hg[:, 2 * hid :]
        n += r * hn
        k.tanh_(n, n)
        ho = np.subtract(hp, n, out=out[lo:hi])
        ho *= z
        ho += n
        h[:b] = ho


def _rnn_forward(k, steps, s, h, w_hh_t, mode, out) -> None:
    gates, h_prev = s["gates"], s["h_prev"]
    for b, lo, hi in steps:
        hp = h[:b]
        h_prev[lo:hi] = hp
        g = gates[lo:hi]
        g += hp @ w_hh_t
        if mode == "RNN_TANH":
            k.tanh_(g, g)
        else:
            g[...] = k.relu(g)
        h[:b] = g
        out[lo:hi] = g


# ---- fused: backward on arrays ------------------------------------------------------------------
def _backward_arrays(mode, s, x, batch_sizes, w_ih, w_hh, w_hr, reverse, gout, gh, gc, need):
    """Gradients (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr) as arrays, None where not ``need``.

    The time loop runs in reverse and keeps only what depends on the incoming gradients; the
    factors that do not (the gates' derivatives) are computed for all steps at once before it."""
    kind = s.get("kind")  # a layer run by rnn_step_major
    if kind == "LSTM":
        return step_major.lstm_backward(s, x, w_ih, w_hh, w_hr, gout, gh, gc, need)
    if kind == "GRU":
        return step_major.gru_backward(s, x, w_ih, w_hh, gout, gh, need)
    gates, h_prev = s["gates"], s["h_prev"]
    hid = w_hh.shape[0] // GATES[mode]
    perm = _gate_perm(mode, hid)
    if perm is not None:  # the fused gate order; the weight gradients are put back at the end
        w_ih, w_hh = w_ih[perm], w_hh[perm]
    dh = np.zeros((batch_sizes[0], h_prev.shape[1]), x.dtype) if gh is None else gh.copy()
    dc = None
    steps = _steps(batch_sizes, reverse)[::-1]
    dz = np.empty_like(gates)  # gradient of the pre-activation gates (input side)
    dout = None
    gemm_threads(batch_sizes[0] * w_hh.shape[0] * w_hh.shape[1])
    if mode == "LSTM":
        dc = np.zeros((batch_sizes[0], hid), x.dtype) if gc is None else gc.copy()
        dout = None if w_hr is None else np.empty_like(h_prev)
        _lstm_backward(steps, s, dz, dh, dc, gout, w_hh, w_hr, dout)
        dzh = dz
    elif mode == "GRU":
        dzh = np.empty_like(gates)  # ... of the hidden projection (its n part is scaled by r)
        _gru_backward(steps, s, dz, dzh, dh, gout, w_hh)
    else:
        _rnn_backward(steps, s, dz, dh, gout, w_hh, mode)
        dzh = dz
    gemm_threads(dz.shape[0] * dz.shape[1] * max(x.shape[1], h_prev.shape[1]))
    col_ih, col_hh = s["bias_cols"]
    # the weight gradient of the input side and the folded biases' gradients: one product
    dw1 = dz.T @ s["x1"] if need[3] or need[5] or (need[6] and col_hh is not None) else None
    grads = [
        dz @ w_ih if need[0] else None,
        dh if need[1] else None,
        dc if need[2] else None,
        dw1[:, : x.shape[1]] if need[3] else None,
        dzh.T @ h_prev if need[4] else None,
        dw1[:, col_ih] if need[5] else None,
        (dzh.sum(0) if col_hh is None else dw1[:, col_hh]) if need[6] else None,
        dout.T @ s["h_raw"] if need[7] else None,
    ]
    # PyTorch's gate order back; either way a copy: contiguous, and no two gradients share memory
    order = np.argsort(perm) if perm is not None else None
    grads[3:7] = [
        None if g is None else g.copy() if order is None else g[order] for g in grads[3:7]
    ]
    return grads


def _lstm_backward(steps, s, dz, dh, dc, gout, w_hh, w_hr, dout) -> None:
    """The factors that do not depend on the incoming gradients are computed for all steps at
    once, in place in ``dz`` (few, long passes: NumPy's cost per call dominates on one step's
    rows); the reverse time loop then scales them by the step's gradients."""
    n_rows, hid = dz.shape[0], dc.shape[1]
    g4 = s["gates"].reshape(n_rows, 4, hid)
    o, i, f, gg = g4[:, 0], g4[:, 1], g4[:, 2], g4[:, 3]
    tc = s["tanh_c"]
    dz4 = dz.reshape(n_rows, 4, hid)
    # per unit of dh: the output gate's d/dz (tanh(c) o'); per unit of dc: the others'
    # (input: g i', forget: c_prev f', cell: i g'), with s' = s (1 - s) and t' = 1 - t^2
    np.subtract(1, g4[:, :3], out=dz4[:, :3])
    dz4[:, :3] *= g4[:, :3]
    dz4[:, 0] *= tc
    dz4[:, 1] *= gg
    dz4[:, 2] *= s["c_prev"]
    np.multiply(gg, gg, out=dz4[:, 3])
    np.subtract(1, dz4[:, 3], out=dz4[:, 3])
    dz4[:, 3] *= i
    dc_dh = np.multiply(tc, tc)  # per unit of dh: d c / d h = o (1 - tanh(c)^2)
    np.subtract(1, dc_dh, out=dc_dh)
    dc_dh *= o
    for b, lo, hi in steps:
        d = dh[:b] if gout is None else np.add(dh[:b], gout[lo:hi], out=dh[:b])
        if dout is not None:
            dout[lo:hi] = d
            d = d @ w_hr
        dcn = d * dc_dh[lo:hi]
        dcn += dc[:b]
        dz4[lo:hi, 1:] *= dcn[:, None, :]
        dz4[lo:hi, 0] *= d
        np.multiply(dcn, f[lo:hi], out=dc[:b])
        np.matmul(dz[lo:hi], w_hh, out=dh[:b])


def _gru_backward(steps, s, dz, dzh, dh, gout, w_hh) -> None:
    """The loop writes the hidden side's gradient ``dzh`` and the input side's n part; the input
    side's r and z parts equal the hidden side's and are copied once after it."""
    hid = dh.shape[1]
    g = s["gates"]
    r, z, n = g[:, :hid], g[:, hid : 2 * hid], g[:, 2 * hid :]
    dn_dh = (1 - z) * (1 - n * n)
    dz_dh = (s["h_prev"] - n) * z * (1 - z)
    dr_dn = s["hn"] * r * (1 - r)
    for b, lo, hi in steps:
        d = dh[:b] if gout is None else dh[:b] + gout[lo:hi]
        dgh = dzh[lo:hi]
        dn = np.multiply(d, dn_dh[lo:hi], out=dz[lo:hi, 2 * hid :])
        np.multiply(d, dz_dh[lo:hi], out=dgh[:, hid : 2 * hid])
        np.multiply(dn, dr_dn[lo:hi], out=dgh[:, :hid])
        np.multiply(dn, r[lo:hi], out=dgh[:, 2 * hid :])
        np.add(d * z[lo:hi], dgh @ w_hh, out=dh[:b])
    dz[:, : 2 * hid] = dzh[:, : 2 * hid]


def _rnn_backward(steps, s, dz, dh, gout, w_hh, mode) -> None:
    g = s["gates"]
    dpre = 1 - g * g if mode == "RNN_TANH" else (g > 0).astype(g.dtype)
    for b, lo, hi in steps:
        d = dh[:b] if gout is None else dh[:b] + gout[lo:hi]
        np.multiply(d, dpre[lo:hi], out=dz[lo:hi])
        np.matmul(dz[lo:hi], w_hh, out=dh[:b])


# ---- fused: the node ----------------------------------------------------------------------------
class RnnLayerBackward(Node):
    """One direction of one fused recurrent layer. It carries the name of the node PyTorch's
    layer leaves on its output (``_LAYER_NODES``): ``StackBackward0`` (the steps' outputs
    stacked), ``MkldnnRnnLayerBackward0`` (oneDNN's LSTM layer), ``CatBackward0`` (a packed
    input's steps concatenated). Deviation: inside, PyTorch's composite layers record their cells
    op by op; this node is the whole layer."""

    __slots__ = ()
    _materialize = False  # outputs that got no gradient arrive as None: nothing to allocate

    def apply(self, gout=None, gh=None, gc=None):
        inputs = self.saved()  # checks that no input was modified in place since the forward
        d = self.__dict__
        if gout is not None and gout.dim() == 3:  # a last layer's (steps, batch, hidden) output
            gout = gout.reshape(-1, gout.size(2))
        if _gm.enabled:  # create_graph: a recorded backward, from the op-by-op graph
            inputs = (*inputs[:5], *d["biases"], inputs[7])
            return _backward_by_ops(self, inputs, (gout, gh, gc))
        x, _, _, w_ih, w_hh, _, _, w_hr = inputs
        need = [nf[0] is not None for nf in self.next_functions]
        grads = _backward_arrays(
            d["mode"], d["arrays"], x._data, d["batch_sizes"], w_ih._data, w_hh._data,
            None if w_hr is None else w_hr._data, d["reverse"],
            *(None if g is None else g._data for g in (gout, gh, gc)), need,
        )  # fmt: skip
        return tuple(None if a is None else _wrap(a, x._dtype, x._device) for a in grads)

    def _release(self) -> None:
        super()._release()
        self.__dict__.pop("arrays", None)
        self.__dict__.pop("biases", None)


_LAYER_NODES = {
    name: type(name, (RnnLayerBackward,), {"__slots__": (), "__module__": "builtins"})
    for name in ("StackBackward0", "MkldnnRnnLayerBackward0", "CatBackward0")
}


def _backward_by_ops(node, inputs, grads):
    """The VJP as a graph: rerun the layer op by op on aliases of the inputs, backpropagate."""
    d = node.__dict__

    def layer(*aliases):
        return _layer_ops(d["mode"], aliases[0], d["batch_sizes"], *aliases[1:], d["reverse"])

    return replay_backward(node, layer, inputs, grads)


def replay_backward(node, ops, inputs, grads):
    """A fused node's VJP as a graph (for create_graph): ``ops`` reruns the fused computation op
    by op on aliases of ``inputs``; its outputs are backpropagated with ``grads``."""
    aliases = [None if t is None else t.view_as(t) for t in inputs]
    outs = ops(*aliases)
    roots = [(o, g) for o, g in zip(outs, grads) if o is not None and g is not None]
    wanted = [i for i, nf in enumerate(node.next_functions) if nf[0] is not None]
    found = engine.run_backward(
        [o for o, _ in roots], [g for _, g in roots], retain_graph=True, create_graph=True,
        inputs=[aliases[i] for i in wanted], accumulate=False,
    )  # fmt: skip
    res = [None] * len(inputs)
    for i, g in zip(wanted, found):
        res[i] = g
    return tuple(res)


def _fusable(input: Tensor, tensors) -> bool:
    if input._device.type != "cpu" or input._dtype not in (D.float32, D.float64):
        return False
    if input._data.shape[0] == 0:
        return False
    if _fw_state.level and any(t is not None and t._fw is not None for t in tensors):
        return False  # forward-mode AD: the op-by-op graph carries the tangents
    return all(t is None or t._dtype is input._dtype for t in tensors)


def _onednn_lstm(mode, w_hr, batch_sizes) -> bool:
    """Whether PyTorch runs this CPU layer through oneDNN (a float32 or lower-precision LSTM
    without projection, not packed, oneDNN on). Deviation: a packed batch whose sequences all
    have the same length counts as not packed (PyTorch decides by the input's type)."""
    from ...backends import mkldnn  # a leaf module: the switch PyTorch reads

    return mode == "LSTM" and w_hr is None and mkldnn.enabled and len(set(batch_sizes)) == 1


_NO_FP16_PRIMITIVE = (
    "could not create a primitive descriptor for the LSTM forward propagation primitive. Run "
    "workload with environment variable ONEDNN_VERBOSE=all to get additional diagnostic information."
)


@functools.cache
def _onednn_fp16() -> bool:
    """Whether oneDNN has float16 kernels on this CPU (AVX512-FP16 or AMX-FP16, x86 only): without
    them PyTorch's float16 LSTM primitive cannot be created."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return bool({"avx512_fp16", "amx_fp16"} & set(line.split(":", 1)[1].split()))
    except OSError:
        pass
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as cpu
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as cpu
    return bool(cpu.get("AVX512FP16"))


def onednn_input(input: Tensor) -> bool:
    """Whether PyTorch's CPU LSTM takes its oneDNN route for this (packed) input: float32, or
    bfloat16 on an AVX-512 CPU, or float16 without grad mode on a CPU with float16 kernels; oneDNN
    on and the input not empty (PyTorch's ``use_mkldnn``)."""
    from ...backends import mkldnn

    if input._device.type != "cpu" or not mkldnn.enabled or input._data.size == 0:
        return False
    dt = input._dtype
    if dt is D.bfloat16:
        return uses_avx512()
    return dt is D.float32 or dt is D.float16 and not _gm.enabled and _onednn_fp16()


def _cpu_autocast_layer(mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse,
                        bias_apart):  # fmt: skip
    """Under CPU autocast PyTorch runs a plain LSTM layer (no projection, not packed, oneDNN on)
    through oneDNN in the autocast dtype (``mkldnn_rnn_layer`` is on its lower-precision list), and
    every other layer op by op, where the matmuls run in the lower precision and the recurrences
    promote with the float32 state. In float16 that oneDNN layer needs a CPU with float16 kernels:
    elsewhere PyTorch cannot create the primitive and raises its RuntimeError, as here. Deviation:
    a packed batch whose sequences all have the same length takes the oneDNN route here (PyTorch
    decides by the input's type)."""
    if _onednn_lstm(mode, w_hr, batch_sizes) and input._dtype in (D.float32, D.bfloat16):
        if _autocast.state.dtype["cpu"] is D.float16 and not _onednn_fp16():
            raise RuntimeError(_NO_FP16_PRIMITIVE)
        return _lstm_lower(mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse)
    return _layer_ops(
        mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse, bias_apart
    )


@_autocast.cast_policy(_autocast.LOWER, ("cpu",))
def _lstm_lower(mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    return _layer_ops(mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse)


def rnn_layer(
    mode: str, input: Tensor, batch_sizes: list, h0: Tensor, c0, w_ih: Tensor, w_hh: Tensor,
    b_ih, b_hh, w_hr, reverse: bool, bias_apart: bool = False, steps=None, packed: bool = False,
) -> tuple:  # fmt: skip
    """One direction of one layer over packed ``input`` (sum(batch_sizes), input_size).

    ``h0`` is (batch, hidden or proj_size), ``c0`` (batch, hidden) for LSTM else None. Returns
    (output rows in ``input``'s order, h_n, c_n or None), the values of PyTorch's layer.
    ``bias_apart``: the layer's (time, batch, input) input was not contiguous (``batch_first``),
    where PyTorch's ``linear`` adds the bias after the product instead of in an addmm: that
    changes the bits of a float16/bfloat16 layer computed op by op (autocast, half weights).
    ``steps``: the output is returned as (steps, batch, hidden) (a last layer's, of an input that
    was not packed), else as rows. ``packed``: the input was a PackedSequence (the node's name)."""
    tensors = (input, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
    if _autocast.state.on and input._device.type == "cpu" and _autocast.state.enabled.get("cpu"):
        return _cpu_autocast_layer(
            mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse, bias_apart
        )
    if not _fusable(input, tensors):
        if bias_apart and _onednn_lstm(mode, w_hr, batch_sizes) and onednn_input(input):
            bias_apart = False  # oneDNN's LSTM (bfloat16 here) has no linear
        return _layer_ops(
            mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse, bias_apart
        )
    arrays = [None if t is None else t._data for t in tensors]
    dt, dev = input._dtype, input._device
    k = GateKernels(dt, dev, halved=mode == "LSTM" and dt is D.float32)
    out, h, c, saved = _forward_arrays(k, mode, arrays[0], batch_sizes, *arrays[1:], reverse)
    if steps:
        out = out.reshape(steps, -1, out.shape[-1])
    outs = (_wrap(out, dt, dev), _wrap(h, dt, dev), None if c is None else _wrap(c, dt, dev))
    if _gm.enabled and any(t is not None and t._rg for t in tensors):
        # PyTorch's oneDNN LSTM (float32) saves its biases; its composite layers do not (a bias
        # changed in place after the forward is an error only there). The biases are kept for
        # a create_graph replay.
        kept = tensors
        if not (dt is D.float32 and _onednn_lstm(mode, w_hr, batch_sizes)):
            kept = (*tensors[:5], None, None, w_hr)
        if packed:
            name = "CatBackward0"
        elif dt is D.float32 and _onednn_lstm(mode, w_hr, batch_sizes) and onednn_input(input):
            name = "MkldnnRnnLayerBackward0"
        else:
            name = "StackBackward0"
        record(
            _LAYER_NODES[name], tensors, outs if c is not None else outs[:2], kept,
            mode=mode, batch_sizes=batch_sizes, reverse=reverse, arrays=saved, biases=(b_ih, b_hh),
        )  # fmt: skip
    return outs
