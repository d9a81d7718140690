"""The fused LSTM layer when every step holds the whole batch (``ops/nn/rnn.py`` runs packed
batches of unequal lengths itself): forward and backward on arrays, step-major and transposed.

Every array is stored one step after another, each step's block transposed, features by batch
(``(steps, features, batch)``). A gate of one step is then one contiguous block, so each
elementwise pass of a step is one short contiguous loop for NumPy (a gate's columns in a
``(batch, 4 * hidden)`` block are 32 strided rows: several times slower per call), and a pass
over several gates at once is one call. The products of a step are ``W @ block``:

- forward, step ``s``: ``gates = W @ [x_s ; 1 ; h_(s-1)]`` (input projection, folded biases and
  recurrent product in one GEMM, written straight into the gates buffer), then 7 elementwise
  calls: sigmoid of three gates (``halved``: one tanh for all four), the cell state from one
  product of ``(i, f)`` by ``(g, c_(s-1))`` and one add, ``tanh(c)``, ``h = o * tanh(c)``;
- backward: the factors that do not depend on the incoming gradients for all steps at once
  (long passes), then per step 4 elementwise calls and one GEMM; the weight gradients (biases
  included) in one GEMM over all steps after the loop.

The gate formulas, their rounding and the ``halved`` sigmoid are those of ``GateKernels``
(``ops/nn/rnn.py``); the gates run in the order (input, forget, output, cell) in the forward,
so that the three sigmoid gates are contiguous and (i, f, o) meet their factors (g, c_prev,
tanh(c)) in one product, and (output, input, forget, cell) in the backward's gradients.
"""

from __future__ import annotations

import numpy as np

from ...backend.threads import gemm_threads

_FWD_ORDER = (0, 1, 3, 2)  # PyTorch's gate k at the forward's slot: i, f, o, g
_BWD_ORDER = (3, 0, 1, 2)  # ... at the backward's slot: o, i, f, g


def _rows(order, hid: int):
    return np.concatenate([np.arange(k * hid, (k + 1) * hid) for k in order])


def _weights(k, w_ih, w_hh, biases, hid: int):
    """``W = [w_ih | b ... | w_hh]`` with its rows in the forward's gate order, the sigmoid
    rows halved for the ``halved`` form (exact in binary)."""
    rows = _rows(_FWD_ORDER, hid)
    n_in, nb = w_ih.shape[1], len(biases)
    w = np.empty((4 * hid, n_in + nb + w_hh.shape[1]), w_ih.dtype)
    w[:, :n_in] = w_ih[rows]
    for j, b in enumerate(biases):
        w[:, n_in + j] = b[rows]
    w[:, n_in + nb :] = w_hh[rows]
    if k.halved:
        w[: 3 * hid] *= 0.5
    return w


def forward(k, x, h0, c0, w_ih, w_hh, biases, w_hr, steps: int, reverse: bool):
    """(out, h_n, c_n, saved) on arrays in the layout of ``rnn_layer`` (rows grouped by time
    step); ``biases`` are the ones folded into the input projection; ``k`` the GateKernels."""
    batch, hid, n_in = h0.shape[0], c0.shape[1], x.shape[1]
    w = _weights(k, w_ih, w_hh, biases, hid)
    col_h = n_in + len(biases)  # first row of h in a block of xh
    # xh[s] = [x_s ; 1 ; h_(s-1)] for the step run s-th; step s writes h_s into xh[s + 1]
    xh = np.empty((steps + 1, w.shape[1], batch), x.dtype)
    x3 = x.reshape(steps, batch, n_in)
    xh[:steps, :n_in] = (x3[::-1] if reverse else x3).transpose(0, 2, 1)
    xh[:, n_in:col_h] = 1
    xh[0, col_h:] = h0.T
    # gates[s] = (i, f, o, g, c_(s-1), tanh(c_s)); step s writes c_s into gates[s + 1]
    gates = np.empty((steps + 1, 6 * hid, batch), x.dtype)
    gates[0, 4 * hid : 5 * hid] = c0.T
    h_raw = None if w_hr is None else np.empty((steps, hid, batch), x.dtype)
    ig_fc = np.empty((2 * hid, batch), x.dtype)
    gemm_threads(batch * w.shape[0] * w.shape[1])
    for s in range(steps):
        g = gates[s]
        np.matmul(w, xh[s], out=g[: 4 * hid])
        if k.halved:  # sigmoid(x) = (tanh(x / 2) + 1) / 2: one tanh call for the four gates
            np.tanh(g[: 4 * hid], out=g[: 4 * hid])
            g[: 3 * hid] *= 0.5
            g[: 3 * hid] += 0.5
        else:
            k.sigmoid_(g[: 3 * hid])
            k.tanh_(g[3 * hid : 4 * hid], g[3 * hid : 4 * hid])
        np.multiply(g[: 2 * hid], g[3 * hid : 5 * hid], out=ig_fc)  # (i * g, f * c_(s-1))
        c = np.add(ig_fc[hid:], ig_fc[:hid], out=gates[s + 1, 4 * hid : 5 * hid])
        tc = g[5 * hid :]
        k.tanh_(c, tc)
        if h_raw is None:
            np.multiply(g[2 * hid : 3 * hid], tc, out=xh[s + 1, col_h:])
        else:
            np.matmul(w_hr, np.multiply(g[2 * hid : 3 * hid], tc, out=h_raw[s]),
                      out=xh[s + 1, col_h:])  # fmt: skip
    out = xh[1:, col_h:].transpose(0, 2, 1)
    out = np.ascontiguousarray(out[::-1] if reverse else out).reshape(steps * batch, -1)
    saved = {"gates": gates, "xh": xh, "h_raw": h_raw, "reverse": reverse, "nb": len(biases)}
    return out, xh[steps, col_h:].T.copy(), gates[steps, 4 * hid : 5 * hid].T.copy(), saved


def _factors(gates, steps: int):
    """Per step the slots (o', i', f', g', dc/dh): each gate's d/dz per unit of dh (o') or of
    dc (the others), with s' = s (1 - s) and t' = 1 - t^2: o' = tanh(c) o', i' = g i',
    f' = c_prev f', g' = i g'; and d c / d h = o (1 - tanh(c)^2)."""
    gs = gates[:steps]  # slots i, f, o, g, c_prev, tanh(c)
    o, g, tc = gs[:, 2], gs[:, 3], gs[:, 5]
    z = np.empty((steps, 5, *gs.shape[2:]), gs.dtype)
    zif = z[:, 1:3]
    np.subtract(1, gs[:, :2], out=zif)
    zif *= gs[:, :2]
    zif *= gs[:, 3:5]  # (i', f') times (g, c_prev)
    np.subtract(1, o, out=z[:, 0])
    z[:, 0] *= o
    z[:, 0] *= tc
    np.multiply(g, g, out=z[:, 3])
    np.subtract(1, z[:, 3], out=z[:, 3])
    z[:, 3] *= gs[:, 0]
    np.multiply(tc, tc, out=z[:, 4])
    np.subtract(1, z[:, 4], out=z[:, 4])
    z[:, 4] *= o
    return z


def _gout_steps(gout, steps: int, batch: int, reverse: bool):
    """The output's gradient per step, in run order, transposed; None for a step whose rows
    are all zero (a loss on the last output only: the others cost nothing)."""
    if gout is None:
        return [None] * steps
    g3 = gout.reshape(steps, batch, gout.shape[1])
    if reverse:
        g3 = g3[::-1]
    nonzero = g3.reshape(steps, -1).any(1)
    if nonzero.sum() * 4 > steps:  # many: one transposed copy is cheaper than strided adds
        g3 = np.ascontiguousarray(g3.transpose(0, 2, 1))
        return [g3[s] if nonzero[s] else None for s in range(steps)]
    return [g3[s].T if nonzero[s] else None for s in range(steps)]


def backward(s, x, w_ih, w_hh, w_hr, gout, gh, gc, need):
    """Gradients (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr) as arrays, None where not ``need``
    (both biases, or neither, are folded)."""
    gates, xh, h_raw = s["gates"], s["xh"], s["h_raw"]
    steps, batch, hid = gates.shape[0] - 1, gates.shape[2], gates.shape[1] // 6
    n_in, nb = x.shape[1], s["nb"]
    rows = _rows(_BWD_ORDER, hid)
    w_hh_t = np.ascontiguousarray(w_hh[rows].T)  # (proj or hidden, 4 hidden)
    g6 = gates.reshape(steps + 1, 6, hid, batch)
    z = _factors(g6, steps)
    gouts = _gout_steps(gout, steps, batch, s["reverse"])
    dh = np.zeros((w_hh.shape[1], batch), x.dtype) if gh is None else gh.T.copy()
    dc = np.zeros((hid, batch), x.dtype) if gc is None else gc.T.copy()
    dout = None if w_hr is None else np.empty((steps, w_hr.shape[0], batch), x.dtype)
    gemm_threads(batch * w_hh.shape[0] * w_hh.shape[1])
    for t in range(steps - 1, -1, -1):
        if gouts[t] is not None:
            dh += gouts[t]
        d = dh
        if dout is not None:
            dout[t] = dh
            d = w_hr.T @ dh
        zt = z[t]
        zt[0::4] *= d  # slots o' and dc/dh: o's dz, and the part of dc from dh
        dcn = zt[4]
        dcn += dc
        zt[1:4] *= dcn  # i', f', g': their dz
        np.multiply(dcn, g6[t, 1], out=dc)  # dc of the step before: dcn f
        np.matmul(w_hh_t, zt[:4].reshape(4 * hid, batch), out=dh)
    z = z.reshape(steps, 5 * hid, batch)
    return _param_grads(z, xh, h_raw, dout, x, w_ih, n_in, nb, hid, steps, batch, s, need, dh, dc)


_CHUNK = 8  # steps per product after the loop: its copies stay in cache, and few are alive


def _param_grads(z, xh, h_raw, dout, x, w_ih, n_in, nb, hid, steps, batch, s, need, dh, dc):
    """The gradients of x and of the weights, one GEMM per chunk of steps; those of h0 and c0.

    A chunk's gate gradients (4 hidden, chunk * batch) and inputs (xh's rows, chunk * batch)
    are first copied out of the step-major layout, so that each product runs over the whole
    chunk at once; the weight gradient (biases included) sums the chunks' products."""
    rows = _rows(_BWD_ORDER, hid)
    want_w = need[3] or need[4] or need[5] or need[6]
    w_ih_b = w_ih[rows] if need[0] else None
    dx = np.empty((steps, batch, n_in), x.dtype) if need[0] else None
    dw = part = None
    n = min(_CHUNK, steps)
    dz = np.empty((4 * hid, n, batch), x.dtype)
    xt = np.empty((xh.shape[1], n, batch), x.dtype) if want_w else None
    gemm_threads(dz.size * xh.shape[1])
    for a in range(0, steps, n):
        m = min(n, steps - a)
        dzc, cols = dz[:, :m], m * batch
        np.copyto(dzc, z[a : a + m, : 4 * hid].transpose(1, 0, 2))
        dzc = dzc.reshape(4 * hid, cols) if m == n else dz.reshape(4 * hid, -1)[:, :cols]
        if want_w:
            xtc = xt[:, :m]
            np.copyto(xtc, xh[a : a + m].transpose(1, 0, 2))
            xtc = xtc.reshape(-1, cols) if m == n else xt.reshape(xt.shape[0], -1)[:, :cols]
            if dw is None:
                dw = dzc @ xtc.T
            else:
                part = np.matmul(dzc, xtc.T, out=part)
                dw += part
        if dx is not None:
            np.matmul(dzc.T, w_ih_b, out=dx[a : a + m].reshape(cols, n_in))
    if dw is not None:
        dw = dw[np.argsort(rows)]  # PyTorch's gate order
    if dx is not None:
        dx = np.ascontiguousarray(dx[::-1] if s["reverse"] else dx).reshape(-1, n_in)
    dw_hr = None
    if need[7]:  # sum over steps of dout_s @ h_raw_s^T
        do = np.ascontiguousarray(dout.transpose(1, 0, 2)).reshape(dout.shape[1], -1)
        hr = np.ascontiguousarray(h_raw.transpose(1, 0, 2)).reshape(hid, -1)
        dw_hr = do @ hr.T
    return [
        dx,
        dh.T.copy() if need[1] else None,
        dc.T.copy() if need[2] else None,
        np.ascontiguousarray(dw[:, :n_in]) if need[3] else None,
        np.ascontiguousarray(dw[:, n_in + nb :]) if need[4] else None,
        np.ascontiguousarray(dw[:, n_in]) if need[5] else None,  # b_ih's column, then b_hh's
        np.ascontiguousarray(dw[:, n_in + nb - 1]) if need[6] else None,
        dw_hr,
    ]
