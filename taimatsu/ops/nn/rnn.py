"""Recurrent-layer kernels: one direction of one layer of ``RNN`` / ``LSTM`` / ``GRU``.

``rnn_layer`` runs on the packed layout (``nn.utils.rnn.PackedSequence``): rows of ``input`` are
grouped by time step, step t holding the first ``batch_sizes[t]`` sequences (sorted longest
first); a plain ``(T, B, *)`` input is the case where every step holds all ``B``.

Two implementations, one answer (to float rounding):

- **fused** (float32 / float64 on the CPU): the input projection of all steps is one GEMM, each
  step one GEMM for all gates plus in-place NumPy arithmetic, and the whole direction is one
  autograd node whose backward runs the time loop in reverse on arrays and computes each weight
  gradient in one GEMM after the loop. For LSTM and RNN ``b_hh`` is folded into the input
  projection (PyTorch adds it per step: the sums differ in the last bit).
- **op by op** (every other case): the cell written in Tensor ops, one step at a time, the graph
  recorded op by op. It is also what the fused node's backward falls back to when a graph of the
  backward is requested (``create_graph=True``), so double backward is exact.

The cells (``_lstm_step``, ``_gru_step``, ``_rnn_step``) are the formulas of PyTorch's docs, gate
order included (LSTM: input, forget, cell, output; GRU: reset, update, new).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd import engine
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import Node
from .._dispatch import _fw_state, record
from ..contraction.matmul import addmm, matmul
from ..shape.copies import cat

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---- op by op: one step of each cell on pre-computed input gates ---------------------------------
def _linear(x: Tensor, w: Tensor, b) -> Tensor:
    return matmul(x, w.t()) if b is None else addmm(b, x, w.t())


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
    xr, xz, xn = xg.chunk(3, 1)
    hr, hz, hn = hg.chunk(3, 1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
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


def _layer_ops(mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    """One direction of one layer, op by op. A sequence's final state is taken when it drops
    out (forward), and a sequence joins with its initial state when it starts (reverse)."""
    step = step_fn(mode)
    xg = _linear(input, w_ih, b_ih)
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
def _sigmoid_(a) -> None:
    """In place; PyTorch's 1 / (1 + exp(-x)), whose overflow to inf gives the limit 0."""
    np.negative(a, out=a)
    np.exp(a, out=a)
    a += 1
    np.reciprocal(a, out=a)


def _forward_arrays(mode, x, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    """Returns (out, h_n, c_n, saved arrays for the backward)."""
    n_rows, hid = x.shape[0], w_hh.shape[0] // GATES[mode]
    xg = x @ w_ih.T
    if b_ih is not None:
        xg += b_ih
    if b_hh is not None and mode != "GRU":  # GRU's b_hh sits inside r * (h W_hn + b_hn)
        xg += b_hh
    offsets = _offsets(batch_sizes)
    h = h0.copy()
    c = None if c0 is None else c0.copy()
    out = np.empty((n_rows, h.shape[1]), x.dtype)
    h_prev = np.empty_like(out)
    gates = xg  # overwritten in place, step by step, by the activated gates
    s = {"h_prev": h_prev, "gates": gates}
    if mode == "LSTM":
        s["c_prev"] = c_prev = np.empty((n_rows, hid), x.dtype)
        s["tanh_c"] = tanh_c = np.empty((n_rows, hid), x.dtype)
        if w_hr is not None:
            s["h_raw"] = h_raw = np.empty((n_rows, hid), x.dtype)
    elif mode == "GRU":
        s["hn"] = hn_all = np.empty((n_rows, hid), x.dtype)
    order = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    for t in order:
        b, lo, hi = batch_sizes[t], offsets[t], offsets[t + 1]
        hp = h[:b]
        h_prev[lo:hi] = hp
        g = gates[lo:hi]
        if mode == "LSTM":
            g += hp @ w_hh.T
            _sigmoid_(g[:, : 2 * hid])
            np.tanh(g[:, 2 * hid : 3 * hid], out=g[:, 2 * hid : 3 * hid])
            _sigmoid_(g[:, 3 * hid :])
            i, f, gg, o = g[:, :hid], g[:, hid : 2 * hid], g[:, 2 * hid : 3 * hid], g[:, 3 * hid :]
            c_prev[lo:hi] = c[:b]
            cn = f * c[:b]
            cn += i * gg
            c[:b] = cn
            tc = tanh_c[lo:hi]
            np.tanh(cn, out=tc)
            hr = o * tc
            if w_hr is not None:
                h_raw[lo:hi] = hr
                hr = hr @ w_hr.T
        elif mode == "GRU":
            hg = hp @ w_hh.T
            if b_hh is not None:
                hg += b_hh
            g[:, : 2 * hid] += hg[:, : 2 * hid]
            _sigmoid_(g[:, : 2 * hid])
            r, z, n = g[:, :hid], g[:, hid : 2 * hid], g[:, 2 * hid :]
            hn_all[lo:hi] = hg[:, 2 * hid :]
            n += r * hg[:, 2 * hid :]
            np.tanh(n, out=n)
            hr = hp - n
            hr *= z
            hr += n
        else:
            g += hp @ w_hh.T
            if mode == "RNN_TANH":
                np.tanh(g, out=g)
            else:
                np.maximum(g, 0, out=g)
            hr = g
        h[:b] = hr
        out[lo:hi] = hr
    return out, h, c, s


# ---- fused: backward on arrays ------------------------------------------------------------------
def _backward_arrays(mode, s, x, batch_sizes, w_ih, w_hh, w_hr, reverse, gout, gh, gc, need):
    """Gradients (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr) as arrays, None where not ``need``."""
    gates, h_prev = s["gates"], s["h_prev"]
    n_rows, hid = x.shape[0], w_hh.shape[0] // GATES[mode]
    offsets = _offsets(batch_sizes)
    dh = np.zeros((batch_sizes[0], h_prev.shape[1]), x.dtype) if gh is None else gh.copy()
    dc = None
    if mode == "LSTM":
        dc = np.zeros((batch_sizes[0], hid), x.dtype) if gc is None else gc.copy()
    dxg = np.empty_like(gates)  # gradient of the pre-activation input gates
    dhg = np.empty_like(gates) if mode == "GRU" else dxg  # ... and of the hidden projection
    dout = np.empty((n_rows, h_prev.shape[1]), x.dtype) if w_hr is not None else None
    order = range(len(batch_sizes)) if reverse else range(len(batch_sizes) - 1, -1, -1)
    for t in order:
        b, lo, hi = batch_sizes[t], offsets[t], offsets[t + 1]
        d = dh[:b] if gout is None else dh[:b] + gout[lo:hi]
        if dout is not None:
            dout[lo:hi] = d
            d = d @ w_hr
        g, dg = gates[lo:hi], dxg[lo:hi]
        if mode == "LSTM":
            i, f, gg, o = g[:, :hid], g[:, hid : 2 * hid], g[:, 2 * hid : 3 * hid], g[:, 3 * hid :]
            tc = s["tanh_c"][lo:hi]
            dcn = d * o * (1 - tc * tc)
            dcn += dc[:b]
            np.multiply(d * tc, o * (1 - o), out=dg[:, 3 * hid :])
            np.multiply(dcn * gg, i * (1 - i), out=dg[:, :hid])
            np.multiply(dcn * s["c_prev"][lo:hi], f * (1 - f), out=dg[:, hid : 2 * hid])
            np.multiply(dcn * i, 1 - gg * gg, out=dg[:, 2 * hid : 3 * hid])
            dc[:b] = dcn * f
            dh[:b] = dg @ w_hh
        elif mode == "GRU":
            r, z, n = g[:, :hid], g[:, hid : 2 * hid], g[:, 2 * hid :]
            dn = d * (1 - z)
            np.multiply(dn, 1 - n * n, out=dg[:, 2 * hid :])
            np.multiply(d * (h_prev[lo:hi] - n), z * (1 - z), out=dg[:, hid : 2 * hid])
            np.multiply(dg[:, 2 * hid :] * s["hn"][lo:hi], r * (1 - r), out=dg[:, :hid])
            dgh = dhg[lo:hi]
            dgh[:, : 2 * hid] = dg[:, : 2 * hid]
            np.multiply(dg[:, 2 * hid :], r, out=dgh[:, 2 * hid :])
            dhp = d * z
            dhp += dgh @ w_hh
            dh[:b] = dhp
        else:
            if mode == "RNN_TANH":
                np.multiply(d, 1 - g * g, out=dg)
            else:
                np.multiply(d, g > 0, out=dg)
            dh[:b] = dg @ w_hh
    return (
        dxg @ w_ih if need[0] else None,
        dh if need[1] else None,
        dc if need[2] else None,
        dxg.T @ x if need[3] else None,
        dhg.T @ h_prev if need[4] else None,
        dxg.sum(0) if need[5] else None,
        dhg.sum(0) if need[6] else None,
        dout.T @ s["h_raw"] if need[7] else None,
    )


# ---- fused: the node ----------------------------------------------------------------------------
class RnnLayerBackward(Node):
    """One direction of one fused recurrent layer. Deviation: PyTorch's CPU layers record their
    cells op by op, so no PyTorch graph holds a node of this name."""

    __slots__ = ()
    _materialize = False  # outputs that got no gradient arrive as None: nothing to allocate

    def apply(self, gout=None, gh=None, gc=None):
        inputs = self.saved()  # checks that no input was modified in place since the forward
        if _gm.enabled:  # create_graph: a recorded backward, from the op-by-op graph
            return _backward_by_ops(self, inputs, (gout, gh, gc))
        d = self.__dict__
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


def _backward_by_ops(node, inputs, grads):
    """The VJP as a graph: rerun the layer op by op on aliases of the inputs, backpropagate."""
    d = node.__dict__
    aliases = [None if t is None else t.view_as(t) for t in inputs]
    out, h, c = _layer_ops(d["mode"], aliases[0], d["batch_sizes"], *aliases[1:], d["reverse"])
    roots = [(o, g) for o, g in zip((out, h, c), grads) if o is not None and g is not None]
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


def rnn_layer(
    mode: str, input: Tensor, batch_sizes: list, h0: Tensor, c0, w_ih: Tensor, w_hh: Tensor,
    b_ih, b_hh, w_hr, reverse: bool,
) -> tuple:  # fmt: skip
    """One direction of one layer over packed ``input`` (sum(batch_sizes), input_size).

    ``h0`` is (batch, hidden or proj_size), ``c0`` (batch, hidden) for LSTM else None. Returns
    (output rows in ``input``'s order, h_n, c_n or None), the values of PyTorch's layer."""
    tensors = (input, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
    if not _fusable(input, tensors):
        return _layer_ops(mode, input, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse)
    arrays = [None if t is None else t._data for t in tensors]
    with np.errstate(over="ignore"):  # exp overflow in the sigmoid: its limit, as in PyTorch
        out, h, c, saved = _forward_arrays(mode, arrays[0], batch_sizes, *arrays[1:], reverse)
    dt, dev = input._dtype, input._device
    outs = (_wrap(out, dt, dev), _wrap(h, dt, dev), None if c is None else _wrap(c, dt, dev))
    if _gm.enabled and any(t is not None and t._rg for t in tensors):
        record(
            RnnLayerBackward, tensors, outs if c is not None else outs[:2], tensors,
            mode=mode, batch_sizes=batch_sizes, reverse=reverse, arrays=saved,
        )  # fmt: skip
    return outs
