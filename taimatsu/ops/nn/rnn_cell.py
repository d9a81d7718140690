"""One step of ``nn.LSTMCell`` / ``nn.GRUCell`` / ``nn.RNNCell`` as one fused op.

PyTorch's CPU cells are composite (two ``linear``, a ``chunk``, sigmoid/tanh and a few products:
about fifteen autograd nodes per call); a user loop over time steps pays that per step. Here a
float32/float64 CPU cell runs its forward on arrays with the same formula, in PyTorch's order
of operations, and records one node whose backward computes every gradient on arrays (the two
input products, the weight gradients in one product each). The gates go through the kernels of
``torch.sigmoid`` / ``torch.tanh`` / ``torch.relu`` themselves, so they carry the same bits as
those ops.

What a user sees of the graph is PyTorch's: ``h.grad_fn`` is ``MulBackward0`` after an LSTM
cell (``c.grad_fn`` is ``AddBackward0``), ``AddBackward0`` after a GRU cell, ``TanhBackward0`` or
``ReluBackward0`` after an RNN cell. Deviation: their ``next_functions`` lead straight to the
inputs' nodes (PyTorch's lead into the cell's inner nodes), and an LSTM cell's ``c`` is an
``AddBackward0`` that passes its gradient to the fused node.

Every other case (other dtypes or devices, forward-mode tangents, autocast, and while
``autograd/op_watch`` reports op calls: ONNX export, the TensorBoard graph, the profiler,
anomaly mode) runs the cell op by op, and so does the fused node's backward when a graph of the backward is requested
(``create_graph=True``): double backward is exact.
"""

from __future__ import annotations

import numpy as np

from ... import _autocast
from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd import op_watch
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import Node
from ...backend.threads import gemm_threads
from .._dispatch import _fw_state, record
from .rnn import GateKernels, _gru_step, _linear, _lstm_step, _rnn_step, replay_backward


# ---- op by op -----------------------------------------------------------------------------------
def cell_ops(mode, input, hx, cx, w_ih, w_hh, b_ih, b_hh):
    """The cell in Tensor ops (the graph recorded op by op): (h, c or None)."""
    xg = _linear(input, w_ih, b_ih)
    if mode == "LSTM":
        return _lstm_step(xg, hx, cx, w_hh, b_hh, None)
    if mode == "GRU":
        return _gru_step(xg, hx, None, w_hh, b_hh, None)
    return _rnn_step(mode)(xg, hx, None, w_hh, b_hh, None)


# ---- fused: forward on arrays -------------------------------------------------------------------
def _affine(x, w, b):
    """``x @ w.T + b`` on arrays (``F.linear``)."""
    gemm_threads(x.shape[0] * x.shape[1] * w.shape[0])
    y = x @ w.T
    if b is not None:
        y += b
    return y


def _affine_t(x, w, b):
    """``x @ w.T + b`` as the transposed view of ``w @ x.T + b``: the same bits (OpenBLAS's
    packed kernel either way: a transposed operand only changes how it is packed), but the
    weight's rows as the product's rows run ~1.5x faster: (32, 128) @ (128, 512) 67 -> 43 us,
    (32, 32) @ (32, 512) 19 -> 13 us. (Not in row blocks for the small-matrix kernel, nor on
    a contiguous copy of ``x.T``: for a batch of 8 its sums differ in the last bits. So an
    ``x`` whose rows BLAS cannot read in place, which NumPy copies first, takes ``_affine``,
    the product as before: a precaution, no such case was seen to differ.)"""
    rows, step = x.strides
    if step != x.itemsize or rows < x.shape[1] * step:
        return _affine(x, w, b)
    gemm_threads(x.shape[0] * x.shape[1] * w.shape[0])
    y = np.matmul(w, x.T)
    if b is not None:
        y += b[:, None]
    return y.T


def _lstm_forward(k, x, h, c, w_ih, w_hh, b_ih, b_hh):
    # PyTorch: gates = linear_hh(hx) + linear_ih(input), chunk(4), sigmoid/tanh per chunk,
    # cy = f * cx + i * g, hy = o * tanh(cy). The gates are column-major (_affine_t): every
    # gate the kernels see is a row-major copy.
    gates = _affine_t(h, w_hh, b_hh)
    gates += _affine_t(x, w_ih, b_ih)
    n, hid = h.shape
    g = k.tanh(np.ascontiguousarray(gates[:, 2 * hid : 3 * hid]))
    # the sigmoid gates i, f, o, each a contiguous (batch, hid) block (the elementwise passes
    # forward and backward run on contiguous operands: a gate's view of a wider row costs
    # NumPy ~3x more per call)
    s = np.empty((3, n, hid), gates.dtype)
    if k.joinable(s.reshape(n, 3 * hid), hid, 3):  # one call: ~30 us of fixed cost saved twice
        s[0], s[1], s[2] = gates[:, :hid], gates[:, hid : 2 * hid], gates[:, 3 * hid :]
        del gates  # not alive in the call: the last step's working memory sets the peak
        s = k.sigmoid(s)  # contiguous in, contiguous out: the (batch, 3 hid) call's bits
    else:  # each gate's view of a row-major copy, the layout PyTorch's kernel sees
        gates = np.ascontiguousarray(gates)
        for j, lo in enumerate((0, hid, 3 * hid)):
            s[j] = k.sigmoid(gates[:, lo : lo + hid])
    i, f, o = s
    c_new = np.multiply(f, c)
    c_new += np.multiply(i, g)
    tc = k.tanh(c_new)
    return np.multiply(o, tc), c_new, (s, g, tc)


def _gru_forward(k, x, h, w_ih, w_hh, b_ih, b_hh):
    # PyTorch: r, z = sigmoid of views of hrz + xrz, n = tanh(xn + r * hn),
    # h' = (h - n) * z + n.
    xg, hg = _affine(x, w_ih, b_ih), _affine(h, w_hh, b_hh)
    hid = h.shape[1]
    rz = k.gru_sigmoid(hg[:, : 2 * hid] + xg[:, : 2 * hid])
    r, z = rz[:, :hid], rz[:, hid:]
    hn = hg[:, 2 * hid :]
    n = k.tanh(xg[:, 2 * hid :] + hn * r)
    out = h - n
    out *= z
    out += n
    return out, None, (r, z, n, hn)


def _rnn_forward(k, mode, x, h, w_ih, w_hh, b_ih, b_hh):
    pre = _affine(h, w_hh, b_hh)
    pre += _affine(x, w_ih, b_ih)
    # nothing kept: the backward reads the output, saved (version-checked) as PyTorch's node does
    return k.tanh(pre) if mode == "RNN_TANH" else k.relu(pre), None, ()


# ---- fused: backward on arrays ------------------------------------------------------------------
def _lstm_backward(saved, c_prev, gh, gc):
    """Gradients of the pre-activation gates (input and hidden side alike) and of ``cx``, in
    few passes: the sigmoid gates' derivatives s (1 - s) in one, the rest into ``dz`` (out=)."""
    s, g, tc = saved
    n, hid = g.shape
    i, f, o = s
    ds = np.subtract(1, s)
    ds *= s
    dz = np.empty((4, n, hid), g.dtype)  # gate by gate, contiguous; PyTorch's layout at the end
    dzi, dzf, dzg, dzo = dz
    if gh is None:
        dzo[...] = 0
        dc = gc  # only read below
    else:
        np.multiply(gh, tc, out=dzo)
        dzo *= ds[2]
        dc = np.multiply(tc, tc)  # d c / d h = o (1 - tanh(c)^2)
        np.subtract(1, dc, out=dc)
        dc *= o
        dc *= gh
        if gc is not None:
            dc += gc
    np.multiply(dc, g, out=dzi)
    dzi *= ds[0]
    np.multiply(dc, c_prev, out=dzf)
    dzf *= ds[1]
    np.multiply(g, g, out=dzg)
    np.subtract(1, dzg, out=dzg)
    dzg *= i
    dzg *= dc
    dz = dz.transpose(1, 0, 2).reshape(n, 4 * hid)  # (batch, 4 hid): one copy
    return dz, dz, dc * f if gh is None else np.multiply(dc, f, out=dc), None


def _gru_backward(saved, h_prev, gh):
    """(input-side gate gradients, hidden-side ones, the direct part of dh)."""
    r, z, n, hn = saved
    hid = r.shape[1]
    dig = np.empty((r.shape[0], 3 * hid), r.dtype)
    dhg = np.empty_like(dig)
    dn = gh - gh * z
    np.multiply(dn, 1 - n * n, out=dig[:, 2 * hid :])
    np.multiply(gh * (h_prev - n), (1 - z) * z, out=dig[:, hid : 2 * hid])
    np.multiply(dig[:, 2 * hid :] * hn, (1 - r) * r, out=dig[:, :hid])
    dhg[:, : 2 * hid] = dig[:, : 2 * hid]
    np.multiply(dig[:, 2 * hid :], r, out=dhg[:, 2 * hid :])
    return dig, dhg, gh * z


def _rnn_backward(mode, out, gh):
    dz = gh * (1 - out * out) if mode == "RNN_TANH" else np.where(out > 0, gh, 0).astype(gh.dtype)
    return dz, dz, None


def _backward_arrays(mode, saved, out, x, h, c, w_ih, w_hh, gh, gc, need):
    """Gradients (input, hx, cx, w_ih, w_hh, b_ih, b_hh), None where not ``need``; ``out`` is
    the RNN cell's output (None for the others)."""
    dc = None
    if mode == "LSTM":
        dig, dhg, dc, dh_direct = _lstm_backward(saved, c, gh, gc)
    elif mode == "GRU":
        dig, dhg, dh_direct = _gru_backward(saved, h, gh)
    else:
        dig, dhg, dh_direct = _rnn_backward(mode, out, gh)
    gemm_threads(dig.shape[0] * dig.shape[1] * max(x.shape[1], h.shape[1]))
    dh = None
    if need[1]:
        dh = dhg @ w_hh
        if dh_direct is not None:
            dh += dh_direct
    db_ih = dig.sum(0) if need[5] else None
    db_hh = None
    if need[6]:  # a copy when it equals db_ih: the two .grad must not share memory
        db_hh = dhg.sum(0) if dhg is not dig or db_ih is None else db_ih.copy()
    return (
        dig @ w_ih if need[0] else None,
        dh,
        dc if need[2] else None,
        dig.T @ x if need[3] else None,
        dhg.T @ h if need[4] else None,
        db_ih,
        db_hh,
    )


# ---- the nodes ----------------------------------------------------------------------------------
class _FusedCellBackward(Node):
    """The fused cell; its outputs are (h, c) for LSTM, (h,) otherwise."""

    __slots__ = ()
    _materialize = False  # an output that got no gradient arrives as None

    def apply(self, gh=None, gc=None):
        inputs = self.saved()  # checks that no input was modified in place since the forward
        d = self.__dict__
        if _gm.enabled:  # create_graph: a recorded backward, from the op-by-op graph
            return _backward_by_ops(self, (*inputs[:5], *d["biases"]), (gh, gc))
        x, h, c, w_ih, w_hh = [None if t is None else t._data for t in inputs[:5]]
        out = inputs[5]._data if len(inputs) > 5 else None
        need = [nf[0] is not None for nf in self.next_functions]
        grads = _backward_arrays(
            d["mode"], d["arrays"], out, x, h, c, w_ih, w_hh,
            None if gh is None else gh._data, None if gc is None else gc._data, need,
        )  # fmt: skip
        dt, dev = inputs[0]._dtype, inputs[0]._device
        return tuple([None if a is None else _wrap(a, dt, dev) for a in grads])

    def _release(self) -> None:
        super()._release()
        self.__dict__.pop("arrays", None)
        self.__dict__.pop("biases", None)


# Named as the node PyTorch's composite cell leaves on its output.
_NODES = {
    "LSTM": type("MulBackward0", (_FusedCellBackward,), {"__slots__": ()}),
    "GRU": type("AddBackward0", (_FusedCellBackward,), {"__slots__": ()}),
    "RNN_TANH": type("TanhBackward0", (_FusedCellBackward,), {"__slots__": ()}),
    "RNN_RELU": type("ReluBackward0", (_FusedCellBackward,), {"__slots__": ()}),
}


class _PassGrad(Node):
    """The LSTM cell's ``c``: PyTorch's last op on it is an add (``f * cx + i * g``); this node
    hands its gradient on to the fused node's second output."""

    __slots__ = ()

    def apply(self, g):
        return (g,)


_CellStateNode = type("AddBackward0", (_PassGrad,), {"__slots__": ()})


def _backward_by_ops(node, inputs, grads):
    """The VJP as a graph: rerun the cell op by op on aliases of the inputs, backpropagate."""
    return replay_backward(
        node, lambda *aliases: cell_ops(node.__dict__["mode"], *aliases), inputs, grads
    )


# ---- the op -------------------------------------------------------------------------------------
def _fusable(tensors) -> bool:
    input = tensors[0]
    if input._device.type != "cpu" or input._dtype not in (D.float32, D.float64):
        return False
    if _autocast.state.on and _autocast.state.enabled.get("cpu"):
        return False  # the op-by-op cell runs its products in the autocast dtype
    if _fw_state.level and any(t is not None and t._fw is not None for t in tensors):
        return False  # forward-mode AD: the op-by-op graph carries the tangents
    if op_watch._watchers:  # an exporter, profiler or anomaly mode watches the ops: run them
        return False
    dt, dev = input._dtype, input._device
    for t in tensors:  # a loop, not all(generator): this runs once per time step
        if t is not None and (t._dtype is not dt or t._device is not dev):
            return False
    return True


def _any_requires_grad(tensors) -> bool:
    for t in tensors:
        if t is not None and t._rg:
            return True
    return False


def rnn_cell(mode: str, input: Tensor, hx: Tensor, cx, w_ih: Tensor, w_hh: Tensor, b_ih, b_hh):
    """One step of a cell on 2-D ``input`` (batch, input_size) and ``hx`` (batch, hidden)
    (``cx`` too for LSTM, else None): (h, c or None), the values of PyTorch's cell."""
    tensors = (input, hx, cx, w_ih, w_hh, b_ih, b_hh)
    if not _fusable(tensors):
        return cell_ops(mode, *tensors)
    dt, dev = input._dtype, input._device
    k = GateKernels(dt, dev)
    x, h, c, wi, wh, bi, bh = [None if t is None else t._data for t in tensors]
    if mode == "LSTM":
        h_new, c_new, saved = _lstm_forward(k, x, h, c, wi, wh, bi, bh)
    elif mode == "GRU":
        h_new, c_new, saved = _gru_forward(k, x, h, wi, wh, bi, bh)
    else:
        h_new, c_new, saved = _rnn_forward(k, mode, x, h, wi, wh, bi, bh)
    h_out = _wrap(h_new, dt, dev)
    c_out = None if c_new is None else _wrap(c_new, dt, dev)
    if not (_gm.enabled and _any_requires_grad(tensors)):
        return h_out, c_out
    node_cls = _NODES[mode]
    # Saved (version-checked) as PyTorch's cell saves them: the input, the states and the
    # weights, not the biases (its linear layers do not save theirs: a bias changed in place
    # after the forward is no error); the biases are kept for a create_graph replay only.
    kept, biases = tensors[:5], (b_ih, b_hh)
    if c_out is None:
        kept = kept if mode == "GRU" else (*kept, h_out)
        record(node_cls, tensors, h_out, kept, mode=mode, arrays=saved, biases=biases)
        return h_out, None
    c_inner = _wrap(c_new, dt, dev)  # the fused node's second output, behind c's AddBackward0
    record(node_cls, tensors, (h_out, c_inner), kept, mode=mode, arrays=saved, biases=biases)
    record(_CellStateNode, (c_inner,), c_out)
    return h_out, c_out
