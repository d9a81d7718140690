"""The fused LSTM and GRU layers when every step holds the whole batch (``ops/nn/rnn.py`` runs
packed batches of unequal lengths, and RNN layers, itself): forward and backward on arrays,
step-major and transposed.

Every array is stored one step after another, each step's block transposed, features by batch
(``(steps, features, batch)``). A gate of one step is then one contiguous block, so each
elementwise pass of a step is one short contiguous loop for NumPy (a gate's columns in a
``(batch, 4 * hidden)`` block are 32 strided rows: several times slower per call), and a pass
over several gates at once is one call. A step's products are ``W @ block``, with the biases
folded in as a row of ones under the block.

The backward runs the steps in reverse by chunks of steps: a chunk's factors that do
not depend on the incoming gradients (the gates' derivatives) in a few passes over the chunk,
then per step a few elementwise calls and the recurrent GEMM, then the chunk's share of the
weight gradients (biases included) and of the input's gradient, one GEMM each, on the chunk
copied out of the step-major layout. Its working memory is one chunk's, whatever the length;
fewer, longer chunks make faster products (a chunk of 8 steps costs about 15% more per
multiply-add than one of 25 or more).

The gate formulas and their rounding are those of ``GateKernels`` (``ops/nn/rnn.py``), the
``halved`` float32 LSTM sigmoid included.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ...backend.parallel import halves, in_background
from ...backend.threads import gemm_threads, small_kernel_rows

# the most steps in a chunk: the LSTM's saved state is the larger (PyTorch saves more too), so
# its chunks are longer; the GRU's keep its peak memory under PyTorch's
_LSTM_CHUNK, _GRU_CHUNK = 25, 10

# LSTM: the forward's gates run in the order (input, forget, output, cell): the three sigmoid
# gates are contiguous, and (i, f, o) meet their factors (g, c_prev, tanh(c)) in one product;
# the backward's gradients in the order (output, input, forget, cell).
_LSTM_FWD = (0, 1, 3, 2)  # PyTorch's gate k at each slot
_LSTM_BWD = (3, 0, 1, 2)
# GRU: the backward's buffer is (n, r, z, n of the hidden side): the input side's gradients
# are its first three slots, the hidden side's (PyTorch's order) its last three.
_GRU_IN = (2, 0, 1)


def _rows(order, hid: int):
    return np.concatenate([np.arange(k * hid, (k + 1) * hid) for k in order])


def _with_bias(w, b, rows=None):
    """``[w | b]`` (``b`` may be None), rows picked by ``rows``."""
    out = np.empty((w.shape[0], w.shape[1] + (b is not None)), w.dtype)
    out[:, : w.shape[1]] = w if rows is None else w[rows]
    if b is not None:
        out[:, -1] = b if rows is None else b[rows]
    return out


def _put_steps(dst, x, reverse: bool) -> None:
    """``x`` (steps * batch, n), rows grouped by time step, into the first n rows of the step
    blocks ``dst`` (steps, ., batch), in run order."""
    x3 = x.reshape(dst.shape[0], -1, x.shape[1])
    dst[:, : x.shape[1]] = (x3[::-1] if reverse else x3).transpose(0, 2, 1)


def _rows_out(blocks, reverse: bool):
    """Step blocks (steps, n, batch) in run order as rows (steps * batch, n) in time order."""
    out = blocks.transpose(0, 2, 1)
    return np.ascontiguousarray(out[::-1] if reverse else out).reshape(-1, blocks.shape[1])


def _step_rows(w, batch: int) -> int:
    """Rows per BLAS call of a time step's ``w @ (k, batch)`` product (``small_kernel_rows``),
    with BLAS set to the threads one such call should use: a product cut into row blocks
    runs as several small calls, each on one thread."""
    rows = small_kernel_rows(w.shape[0], w.shape[1], batch)
    gemm_threads(rows * w.shape[1] * batch)
    return rows


def _row_blocks(a, outs, rows: int) -> list:
    """``threads.matmul_rows``'s blocks, made once for a loop: (rows of ``a``, the same rows of
    ``outs``, one output or every step's, rows second to last) pairs: ``np.matmul(block, b,
    out)`` over the pairs (``out`` the step's) is ``matmul_rows(a, b, out, rows)``, the same
    calls."""
    if rows >= a.shape[0]:
        return [(a, outs)]
    return [(a[lo : lo + rows], outs[..., lo : lo + rows, :]) for lo in range(0, a.shape[0], rows)]


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


def _chunks(steps: int, most: int) -> list:
    """(first step, steps) of each chunk, as even as at most ``most`` steps allow, last first."""
    n = -(-steps // most)
    size, extra = divmod(steps, n)
    bounds = [j * size + min(j, extra) for j in range(n + 1)]
    return [(bounds[j], bounds[j + 1] - bounds[j]) for j in range(n)][::-1]


def _matrix(blocks, buf):
    """Step blocks (m, rows, batch) as one (rows, m * batch) matrix, copied into ``buf``."""
    m, rows, batch = blocks.shape
    out = buf.reshape(-1)[: rows * m * batch].reshape(rows, m, batch)
    np.copyto(out, blocks.transpose(1, 0, 2))
    return out.reshape(rows, m * batch)


def _add_product(acc, a, b):
    """``acc + a @ b.T`` (``a @ b.T`` when ``acc`` is None)."""
    if acc is None:
        return a @ b.T
    acc += a @ b.T
    return acc


def _into(acc, first: bool, a, b) -> None:
    """``acc += a @ b.T`` (``acc = a @ b.T`` for the ``first`` chunk)."""
    if first:
        np.matmul(a, b.T, out=acc)
    else:
        acc += a @ b.T


def _product_into(a, b, out) -> None:
    """``out = a @ b``."""
    np.matmul(a, b, out=out)


def _products(fns: list, macs: int, alone: bool, last: bool):
    """A chunk's weight- and input-gradient products (``fns``: callables, each writing its own
    result), after a time loop whose products ran on one BLAS
    thread (``alone``): on the helper thread beside the next chunk's loop while a second core
    is free (a few long BLAS calls that release the GIL: the returned handle is waited on
    before their buffers are reused), the ``last`` chunk's products shared out over two threads
    (``parallel.halves``: the first on the helper thread, the rest on this one). Else they run
    now with the BLAS threads of their size.

    When the loop ran alone, every product runs on one BLAS thread, also where two are allowed:
    OpenBLAS's idle threads spin for ~0.1 s after a multi-threaded call, taking the second core
    from the helper thread (the LSTM step ran no faster with it). Each product is one whole
    BLAS call on one thread wherever it runs, so the gradients do not depend on whether the
    helper thread found a core: a product's bits can depend on its row count (OpenBLAS's AVX2
    "Haswell" kernels give a product's row halves other last bits for many shapes, its
    AVX-512 ones for a few) and on OpenBLAS's thread count. A loop whose step products are
    large enough for two BLAS threads (``threads.SMALL_GEMM_MACS``) gets the bits of
    OpenBLAS's thread count, as every product of that size does (PyTorch's MKL products
    likewise follow ``torch.set_num_threads``)."""

    def run(lo, hi):  # products lo:hi of the list, each whole
        for fn in fns[lo:hi]:
            fn()

    if not alone:
        gemm_threads(macs)
        run(0, len(fns))
        return None
    pending = None if last else in_background(partial(run, 0, len(fns)))
    if pending is None:
        halves(run, len(fns), macs)
    return pending


class _Factors:
    """Each chunk's factors that do not depend on the incoming gradients (``fn(a, m, out)``:
    those of the ``m`` steps from ``a`` into ``out``), in two alternating buffers: the next
    chunk's on the helper thread beside this chunk's time loop while a second core is free and
    the loop's products run on one BLAS thread (a dozen long elementwise calls, which contend
    little for the GIL), else each chunk's when its loop starts."""

    def __init__(self, fn, chunks: list, shape: tuple, dt) -> None:
        self.fn, self.chunks = fn, chunks
        self.bufs, self.ahead, self.cur = [np.empty(shape, dt), None], None, 0

    def get(self, i: int, alone: bool):
        """Chunk ``i``'s factors; starts chunk ``i + 1``'s when ``alone``."""
        if self.ahead is None:  # into the buffer of the chunk before, whose loop is done
            self._compute(i, self.cur)
        else:
            self.ahead.result()
            self.cur = 1 - self.cur
        self.ahead = None
        if alone and i + 1 < len(self.chunks):
            self.ahead = in_background(partial(self._compute, i + 1, 1 - self.cur))
        return self.bufs[self.cur][: self.chunks[i][1]]

    def _compute(self, i: int, k: int) -> None:
        if self.bufs[k] is None:  # the second buffer, only where the factors run ahead
            self.bufs[k] = np.empty_like(self.bufs[0])
        m = self.chunks[i][1]
        self.fn(self.chunks[i][0], m, self.bufs[k][:m])


# ---- LSTM ---------------------------------------------------------------------------------
def lstm_forward(k, x, h0, c0, w_ih, w_hh, biases, w_hr, steps: int, reverse: bool):
    """(out, h_n, c_n, saved) on arrays in the layout of ``rnn_layer`` (rows grouped by time
    step); ``biases`` are the ones folded into the input projection; ``k`` the GateKernels.

    Step ``s``: ``gates = W @ [x_s ; 1 ; h_(s-1)]`` (input projection, biases and recurrent
    product in one GEMM, written straight into the gates buffer), then 7 elementwise calls."""
    batch, hid, n_in = h0.shape[0], c0.shape[1], x.shape[1]
    rows = _rows(_LSTM_FWD, hid)
    w = np.concatenate([w_ih[rows], *(b[rows, None] for b in biases), w_hh[rows]], 1)
    if k.halved:  # sigmoid(x) = (tanh(x / 2) + 1) / 2: the halving is exact in binary
        w[: 3 * hid] *= 0.5
    col_h = n_in + len(biases)  # first row of h in a block of xh
    # xh[s] = [x_s ; 1 ; h_(s-1)] for the step run s-th; step s writes h_s into xh[s + 1]
    xh = np.empty((steps + 1, w.shape[1], batch), x.dtype)
    _put_steps(xh[:steps], x, reverse)
    xh[:, n_in:col_h] = 1
    xh[0, col_h:] = h0.T
    # gates[s] = (i, f, o, g, c_(s-1), tanh(c_s)); step s writes c_s into gates[s + 1]
    gates = np.empty((steps + 1, 6 * hid, batch), x.dtype)
    gates[0, 4 * hid : 5 * hid] = c0.T
    h_raw = None if w_hr is None else np.empty((steps, hid, batch), x.dtype)
    ig_fc = np.empty((2 * hid, batch), x.dtype)
    # the loop's operands as views over all steps, each step's one index away (a step's own
    # slicing cost about a tenth of its Python time)
    blocks = _row_blocks(w, gates[:, : 4 * hid], _step_rows(w, batch))
    pre, sig, ig, gc = (gates[:, a * hid : b * hid] for a, b in ((0, 4), (0, 3), (0, 2), (3, 5)))
    o, tcs, cs = gates[:, 2 * hid : 3 * hid], gates[:, 5 * hid :], gates[1:, 4 * hid : 5 * hid]
    hs = xh[1:, col_h:]  # step s writes h_s into the block of step s + 1
    ic, fc = ig_fc[:hid], ig_fc[hid:]
    mul, half, halved = np.multiply, x.dtype.type(0.5), k.halved
    for s in range(steps):
        xs = xh[s]
        for wb, ob in blocks:
            np.matmul(wb, xs, ob[s])
        if halved:  # one tanh call for the four gates
            g = pre[s]
            np.tanh(g, g)
            g = sig[s]
            g *= half
            g += half
        else:
            k.sigmoid_(sig[s])
            g = gates[s, 3 * hid : 4 * hid]
            k.tanh_(g, g)
        mul(ig[s], gc[s], ig_fc)  # (i * g, f * c_(s-1))
        c = np.add(fc, ic, cs[s])
        tc = tcs[s]
        np.tanh(c, tc) if halved else k.tanh_(c, tc)
        if h_raw is None:
            mul(o[s], tc, hs[s])
        else:
            np.matmul(w_hr, mul(o[s], tc, h_raw[s]), hs[s])
    saved = {"kind": "LSTM", "gates": gates, "xh": xh, "h_raw": h_raw, "reverse": reverse}
    saved["nb"] = len(biases)
    out = _rows_out(xh[1:, col_h:], reverse)
    return out, xh[steps, col_h:].T.copy(), gates[steps, 4 * hid : 5 * hid].T.copy(), saved


def _lstm_factors(gs, z) -> None:
    """Into ``z`` (slots o', i', f', g', dc/dh) from the gates ``gs`` (slots i, f, o, g, c_prev,
    tanh(c)): each gate's d/dz per unit of dh (o') or of dc (the others), with s' = s (1 - s)
    and t' = 1 - t^2: o' = tanh(c) o', i' = g i', f' = c_prev f', g' = i g'; and
    d c / d h = o (1 - tanh(c)^2)."""
    o, g, tc = gs[:, 2], gs[:, 3], gs[:, 5]
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


def lstm_backward(s, x, w_ih, w_hh, w_hr, gout, gh, gc, need):
    """Gradients (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr) as arrays, None where not ``need``
    (both biases, or neither, are folded). Per step 4 elementwise calls and one GEMM."""
    gates, xh, h_raw = s["gates"], s["xh"], s["h_raw"]
    steps, batch, hid = gates.shape[0] - 1, gates.shape[2], gates.shape[1] // 6
    n_in, nb, dt = x.shape[1], s["nb"], x.dtype
    rows = _rows(_LSTM_BWD, hid)
    w_hh_t = np.ascontiguousarray(w_hh[rows].T)  # (proj or hidden, 4 hidden)
    w_ih_b = w_ih[rows] if need[0] else None
    g6 = gates.reshape(steps + 1, 6, hid, batch)
    gouts = _gout_steps(gout, steps, batch, s["reverse"])
    dh = np.zeros((w_hh.shape[1], batch), dt) if gh is None else gh.T.copy()
    dc = np.zeros((hid, batch), dt) if gc is None else gc.T.copy()
    dout = None if w_hr is None else np.empty((steps, w_hr.shape[0], batch), dt)
    want_w = need[3] or need[4] or need[5] or need[6]
    dx = np.empty((steps, batch, n_in), dt) if need[0] else None
    chunks = _chunks(steps, _LSTM_CHUNK)
    n = chunks[-1][1]  # the first chunk is one of the longest
    factors = _Factors(lambda a, m, out: _lstm_factors(g6[a : a + m], out), chunks,
                       (n, 5, hid, batch), dt)  # fmt: skip
    dz_buf, xh_buf = np.empty(n * 4 * hid * batch, dt), np.empty(n * xh[0].size, dt)
    dw = np.empty((4 * hid, xh.shape[1]), dt) if want_w else None
    step_rows = _step_rows(w_hh_t, batch)
    pending, blocks = None, _row_blocks(w_hh_t, dh, step_rows)
    f, mul = g6[:, 1], np.multiply
    for i, (a, m) in enumerate(chunks):
        alone = gemm_threads(step_rows * w_hh_t.shape[1] * batch) == 1
        z = factors.get(i, alone)
        # slots o' and dc/dh (scaled by dh), dc/dh, i' f' g' (by dc), the four gates' dz
        z04, zdc, z13, zg = z[:, 0::4], z[:, 4], z[:, 1:4], z[:, :4].reshape(m, 4 * hid, batch)
        for j in range(m - 1, -1, -1):
            t = a + j
            if gouts[t] is not None:
                dh += gouts[t]
            d = dh
            if dout is not None:
                dout[t] = dh
                d = w_hr.T @ dh
            z04[j] *= d  # o's dz, and the part of dc from dh
            dcn = zdc[j]
            dcn += dc
            z13[j] *= dcn  # i', f', g': their dz
            mul(dcn, f[t], dc)  # dc of the step before: dcn f
            zt = zg[j]
            for wb, ob in blocks:
                np.matmul(wb, zt, ob)
        if pending is not None:
            pending.result()  # the previous chunk's products: dz_buf and xh_buf are free
        dz = _matrix(z[:, :4].reshape(m, 4 * hid, batch), dz_buf)
        fns = []
        if want_w:
            xm = _matrix(xh[a : a + m], xh_buf)
            fns.append(partial(_into, dw, a + m == steps, dz, xm))
        if dx is not None:
            rows_dx = dx[a : a + m].reshape(m * batch, n_in)
            fns.append(partial(_product_into, dz.T, w_ih_b, rows_dx))
        pending = _products(fns, dz.size * xh.shape[1], alone, a == 0)
    if dw is not None:
        dw = dw[np.argsort(rows)]  # PyTorch's gate order
    dw_hr = None
    if need[7]:  # sum over steps of dout_s @ h_raw_s^T
        dw_hr = _add_product(None, _matrix(dout, np.empty(dout.size, dt)),
                             _matrix(h_raw, np.empty(h_raw.size, dt)))  # fmt: skip
    return [
        None if dx is None else _rows_out(dx.transpose(0, 2, 1), s["reverse"]),
        dh.T.copy() if need[1] else None,
        dc.T.copy() if need[2] else None,
        np.ascontiguousarray(dw[:, :n_in]) if need[3] else None,
        np.ascontiguousarray(dw[:, n_in + nb :]) if need[4] else None,
        np.ascontiguousarray(dw[:, n_in]) if need[5] else None,  # b_ih's column, then b_hh's
        np.ascontiguousarray(dw[:, n_in + nb - 1]) if need[6] else None,
        dw_hr,
    ]


# ---- GRU ----------------------------------------------------------------------------------
def gru_forward(k, x, h0, w_ih, w_hh, b_ih, b_hh, steps: int, reverse: bool):
    """(out, h_n, None, saved), as ``lstm_forward``. PyTorch's cell: r = sigmoid(xr + hr),
    z = sigmoid(xz + hz), n = tanh(xn + r * hn), h' = (h - n) * z + n, where (xr, xz, xn) =
    W_ih x + b_ih for all steps in one batched product before the loop, and
    (hr, hz, hn) = W_hh h + b_hh one GEMM per step."""
    batch, hid, dt = h0.shape[0], h0.shape[1], x.dtype
    xi = np.empty((steps, x.shape[1] + (b_ih is not None), batch), dt)  # [x_s ; 1]
    _put_steps(xi, x, reverse)
    xi[:, x.shape[1] :] = 1
    gemm_threads(xi[0].size * w_ih.shape[0])
    gates = np.matmul(_with_bias(w_ih, b_ih), xi)  # (r, z, n) of every step, in place
    # hb[s] = [h_(s-1) ; 1]; step s writes h_s into hb[s + 1]
    hb = np.empty((steps + 1, hid + (b_hh is not None), batch), dt)
    hb[0, :hid] = h0.T
    hb[:, hid:] = 1
    w_h = _with_bias(w_hh, b_hh)
    hn = np.empty((steps, hid, batch), dt)  # W_hn h + b_hn, for the backward
    hg, rhn = np.empty((3 * hid, batch), dt), np.empty((hid, batch), dt)
    blocks = _row_blocks(w_h, hg, _step_rows(w_h, batch))
    # the loop's operands as views over all steps (see lstm_forward)
    rzs, rs, zs, ns = (
        gates[:, : 2 * hid],
        gates[:, :hid],
        gates[:, hid : 2 * hid],
        gates[:, 2 * hid :],
    )
    hg_rz, hg_n, hp, hs = hg[: 2 * hid], hg[2 * hid :], hb[:-1, :hid], hb[1:, :hid]
    joined = k.joinable(rzs[0].T, hid, 2)
    for s in range(steps):
        hb_s = hb[s]
        for wb, ob in blocks:
            np.matmul(wb, hb_s, ob)
        rz = rzs[s]
        rz += hg_rz
        _gru_sigmoid_(k, rz, joined)
        hn_s = hn[s]
        hn_s[...] = hg_n
        n = ns[s]
        n += np.multiply(rs[s], hn_s, rhn)
        k.tanh_(n, n)
        h = np.subtract(hp[s], n, hs[s])
        h *= zs[s]
        h += n
    saved = {"kind": "GRU", "gates": gates, "xi": xi, "hb": hb, "hn": hn, "reverse": reverse}
    return _rows_out(hb[1:, :hid], reverse), hb[steps, :hid].T.copy(), None, saved


def _gru_sigmoid_(k, rz, joined: bool | None = None) -> None:
    """r and z in place from their pre-activations ``rz`` (2 hidden, batch), with the bits of
    the op-by-op cell (``GateKernels.gru_sigmoid`` on the (batch, 2 hidden) layout: the
    float32 kernel's bits depend on the layout it sees); ``joined``: ``k.joinable(rz.T, hidden,
    2)`` (the same for every step of a layer: the loop asks once), None to ask here."""
    if joined is None:
        joined = k.joinable(rz.T, rz.shape[0] // 2, 2)
    if joined:  # every element vectorised either way: no copy
        rz[...] = k.sigmoid(rz)
    else:
        rz[...] = k.gru_sigmoid(np.ascontiguousarray(rz.T)).T


def _gru_factors(r, z, n, h_prev, hn, out) -> None:
    """Into ``out`` (slots n, r, z, r): per unit of dh, n's d/dz (1 - z)(1 - n^2) and z's
    (h_prev - n) z (1 - z); per unit of n's, r's hn r (1 - r) and hn's r."""
    dn, dr, dz, dhn = out[:, 0], out[:, 1], out[:, 2], out[:, 3]
    np.multiply(n, n, out=dn)
    np.subtract(1, dn, out=dn)
    np.subtract(1, z, out=dz)
    dn *= dz
    dz *= z
    dz *= np.subtract(h_prev, n, out=dr)
    np.subtract(1, r, out=dr)
    dr *= r
    dr *= hn
    dhn[...] = r


def gru_backward(s, x, w_ih, w_hh, gout, gh, need):
    """Gradients (x, h0, None, w_ih, w_hh, b_ih, b_hh, None) as arrays, None where not
    ``need``. Per step 5 elementwise calls and one GEMM."""
    gates, xi, hb, hn = s["gates"], s["xi"], s["hb"], s["hn"]
    steps, batch, hid = gates.shape[0], gates.shape[2], gates.shape[1] // 3
    n_in, dt = x.shape[1], x.dtype
    g3 = gates.reshape(steps, 3, hid, batch)
    w_hh_t = np.ascontiguousarray(w_hh.T)  # (hidden, 3 hidden)
    rows_in = _rows(_GRU_IN, hid)
    w_ih_b = w_ih[rows_in] if need[0] else None
    gouts = _gout_steps(gout, steps, batch, s["reverse"])
    dh = np.zeros((hid, batch), dt) if gh is None else gh.T.copy()
    dh_direct = np.empty_like(dh)
    dx = np.empty((steps, batch, n_in), dt) if need[0] else None
    chunks = _chunks(steps, _GRU_CHUNK)
    n = chunks[-1][1]  # the first chunk is one of the longest

    def chunk_factors(a, m, out):
        g = g3[a : a + m]
        _gru_factors(g[:, 0], g[:, 1], g[:, 2], hb[a : a + m, :hid], hn[a : a + m], out)

    # slots n, r, z (input side), hn (hidden side)
    factors = _Factors(chunk_factors, chunks, (n, 4, hid, batch), dt)
    dz_buf, in_buf, h_buf = np.empty(n * 4 * hid * batch, dt), np.empty(n * xi[0].size, dt), np.empty(n * hb[0].size, dt)  # fmt: skip
    dw_i = np.empty((3 * hid, xi.shape[1]), dt) if need[3] or need[5] else None
    dw_h = np.empty((3 * hid, hb.shape[1]), dt) if need[4] or need[6] else None
    step_rows = _step_rows(w_hh_t, batch)
    pending, blocks = None, _row_blocks(w_hh_t, dh, step_rows)
    for i, (a, m) in enumerate(chunks):
        zg = g3[a : a + m, 1]
        alone = gemm_threads(step_rows * w_hh_t.shape[1] * batch) == 1
        z = factors.get(i, alone)
        # slots n and z (scaled by dh), r and hn (by n's dz), n's dz, the hidden side's dz
        z02, z13, z0, zh = z[:, 0::2], z[:, 1::2], z[:, 0], z[:, 1:].reshape(m, 3 * hid, batch)
        for j in range(m - 1, -1, -1):
            t = a + j
            if gouts[t] is not None:
                dh += gouts[t]
            z02[j] *= dh  # n's and z's dz
            z13[j] *= z0[j]  # r's dz, and hn's gradient
            np.multiply(dh, zg[j], dh_direct)
            zt = zh[j]
            for wb, ob in blocks:
                np.matmul(wb, zt, ob)
            dh += dh_direct
        if pending is not None:
            pending.result()  # the previous chunk's products: the buffers are free
        dz = _matrix(z.reshape(m, 4 * hid, batch), dz_buf)
        fns, first = [], a + m == steps
        if dw_i is not None:
            xm = _matrix(xi[a : a + m], in_buf)
            fns.append(partial(_into, dw_i, first, dz[: 3 * hid], xm))
        if dw_h is not None:
            hm = _matrix(hb[a : a + m], h_buf)
            fns.append(partial(_into, dw_h, first, dz[hid:], hm))
        if dx is not None:
            rows_dx = dx[a : a + m].reshape(m * batch, n_in)
            fns.append(partial(_product_into, dz[: 3 * hid].T, w_ih_b, rows_dx))
        pending = _products(fns, dz.size * max(xi.shape[1], hb.shape[1]), alone, a == 0)
    if dw_i is not None:
        dw_i = dw_i[np.argsort(rows_in)]  # PyTorch's gate order
    return [
        None if dx is None else _rows_out(dx.transpose(0, 2, 1), s["reverse"]),
        dh.T.copy() if need[1] else None,
        None,
        np.ascontiguousarray(dw_i[:, :n_in]) if need[3] else None,
        np.ascontiguousarray(dw_h[:, :hid]) if need[4] else None,
        np.ascontiguousarray(dw_i[:, n_in]) if need[5] else None,
        np.ascontiguousarray(dw_h[:, hid]) if need[6] else None,
        None,
    ]
