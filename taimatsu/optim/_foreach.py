"""Multi-tensor optimizer steps over flat buffers (the ``foreach`` / ``fused`` paths).

PyTorch's foreach path applies each update op once to a list of tensors. Here the optimizer's
state of a parameter group (``exp_avg``, ``momentum_buffer``, ...) lives in one flat buffer per
state name, whose per-parameter slices *are* the state tensors users see (``optimizer.state``,
``state_dict``). A step walks the group in cache-sized blocks: runs of small parameters are
gathered into one array (and written back), a large parameter is updated in place slice by
slice, and each block takes a handful of NumPy calls (``adam_arrays``, ``sgd_arrays``) instead
of a chain of Tensor ops per parameter.

Those functions compute op for op what the single-tensor path's Tensor ops compute, including
the float32 fused multiply-adds of PyTorch's CPU kernels (emulated exactly in float64, as the
Tensor ops do), and every op is elementwise, so both paths give bitwise-equal results (as
PyTorch's foreach and for-loop paths do on CPU; tests/optim/test_optim_foreach.py checks it).
Only dense, C-contiguous float32/float64 CPU parameters with a gradient of their own dtype take
this path; anything else runs the single-tensor path.
"""

from __future__ import annotations

import numpy as np

from .._tensor.core import Tensor, _wrap

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def use_flat(group) -> bool:
    """Whether ``group``'s options select the flat path: ``foreach`` None (the default) or
    True, or ``fused``; never ``differentiable`` (that needs the per-parameter graph)."""
    return group.get("foreach") is not False and not group.get("differentiable", False)


def eligible(params, grads) -> bool:
    """The parameters and gradients can be laid end to end in one NumPy array."""
    if not params:
        return False
    dt = params[0]._data.dtype
    if dt not in _FLOATS:
        return False
    for p, g in zip(params, grads):
        a, b = p._data, g._data
        if (
            type(a) is not np.ndarray
            or type(b) is not np.ndarray
            or a.dtype != dt
            or b.dtype != dt
            or a.shape != b.shape
            or not a.flags.c_contiguous
            or not a.flags.writeable
            or getattr(g, "is_sparse", False)
        ):
            return False
    return True


class FlatGroup:
    """The parameters of one group that have a gradient, laid end to end, and the flat state
    buffers whose slices are those parameters' state tensors."""

    def __init__(self, params: list) -> None:
        self.params = params
        self.offsets = np.cumsum([0] + [p._data.size for p in params]).tolist()
        self.dtype, self.device = params[0]._dtype, params[0]._device
        self.buffers: dict = {}  # state name -> flat Tensor
        self.bound: dict = {}  # state name -> [(state tensor, its array)] as bound

    def matches(self, params: list) -> bool:
        return len(params) == len(self.params) and all(a is b for a, b in zip(params, self.params))

    def state_buffer(self, states: list, name: str) -> Tensor:
        """The flat buffer of state ``name``; ``state[name]`` of each parameter is its slice.

        Where the state tensors are no longer the slices bound last time (the first step,
        ``load_state_dict``, a user's replacement), a new buffer is filled from their values
        (zeros where a parameter has none yet) and the slices bound.
        """
        bound = self.bound.get(name)
        if bound is not None and all(
            s.get(name) is t and t._data is a for s, (t, a) in zip(states, bound)
        ):
            return self.buffers[name]
        flat = np.empty(self.offsets[-1], self.dtype.np)
        off, bound = self.offsets, []
        for i, (s, p) in enumerate(zip(states, self.params)):
            seg = flat[off[i] : off[i + 1]]
            old = s.get(name)
            seg[...] = 0 if old is None else old._data.reshape(-1)
            view = seg.reshape(p._data.shape)
            t = _wrap(view, self.dtype, self.device)
            if old is not None:
                t._vc = [old._vc[0]]  # the state tensor keeps its version count
            s[name] = t
            bound.append((t, view))
        self.bound[name] = bound
        self.buffers[name] = buf = _wrap(flat, self.dtype, self.device)
        return buf

    def bump(self, states: list, name: str, times: int) -> None:
        """Count ``times`` in-place updates on each parameter's ``name`` state tensor."""
        for s in states:
            s[name]._vc[0] += times

    def bump_params(self, times: int) -> None:
        for p in self.params:
            p._vc[0] += times


def flat_group(optimizer, index: int, params: list) -> FlatGroup:
    """The cached ``FlatGroup`` of group ``index``, rebuilt when its parameters changed.

    The cache is not optimizer state: it is left out of pickles and ``state_dict`` and rebuilt
    from ``optimizer.state`` whenever the state tensors are not the bound slices.
    """
    cache = optimizer.__dict__.setdefault("_flat_groups", {})
    fg = cache.get(index)
    if fg is None or not fg.matches(params):
        fg = cache[index] = FlatGroup(params)
    return fg


# ---- Adam on arrays, block by block ------------------------------------------------------------
# Elements per block: the float64 temporaries of a float32 block (128 KiB each) stay in a
# core's L2 cache, and the step's peak of temporary memory stays well under a MiB.
BLOCK = 1 << 14


def blocks(fg: FlatGroup, grads: list):
    """(flat range, parameter values, gradient values) covering the group block by block: runs
    of small parameters gathered into one array (written back by ``fg.scatter_block``), a large
    parameter split into in-place slices of itself."""
    off, run = fg.offsets, []
    for i, p in enumerate(fg.params):
        n = off[i + 1] - off[i]
        if n >= BLOCK:
            if run:
                yield _gathered(fg, run, grads)
                run = []
            pa, ga = p._data.reshape(-1), grads[i]._data.reshape(-1)
            for lo in range(0, n, BLOCK):
                hi = min(n, lo + BLOCK)
                yield (off[i] + lo, off[i] + hi), pa[lo:hi], ga[lo:hi], None
            continue
        if run and off[i + 1] - off[run[0]] > BLOCK:
            yield _gathered(fg, run, grads)
            run = []
        run.append(i)
    if run:
        yield _gathered(fg, run, grads)


def _gathered(fg: FlatGroup, run: list, grads: list):
    off = fg.offsets
    if len(run) == 1:
        i = run[0]
        p = fg.params[i]._data.reshape(-1)
        return (off[i], off[i + 1]), p, grads[i]._data.reshape(-1), None
    p = np.concatenate([fg.params[i]._data.reshape(-1) for i in run])
    g = np.concatenate([grads[i]._data.reshape(-1) for i in run])
    return (off[run[0]], off[run[-1] + 1]), p, g, run


def scatter_run(fg: FlatGroup, run, p) -> None:
    """Write a gathered block's parameter values back (nothing for an in-place block)."""
    if run is None:
        return
    off, base = fg.offsets, fg.offsets[run[0]]
    for i in run:
        dst = fg.params[i]._data
        np.copyto(dst, p[off[i] - base : off[i + 1] - base].reshape(dst.shape))


def adam_arrays(p, g, e, s, m, h) -> None:
    """One Adam update of the 1-D arrays ``p`` (parameters), ``e``, ``s``, ``m`` (exp_avg,
    exp_avg_sq, max_exp_avg_sq or None) from gradient ``g``, in place.

    Op for op the Tensor ops of the single-tensor path: where those round a float32
    multiply-add once (PyTorch's fused multiply-add, emulated exactly in float64) so does this.
    ``h`` holds the group's numbers (see ``Adam._flat_step``).
    """
    f32 = p.dtype == np.float32
    if h["maximize"]:
        g = -g
    if h["weight_decay"] != 0:
        if h["decoupled"]:
            np.multiply(p, 1 - h["lr"] * h["weight_decay"], out=p)
        elif f32:
            c = np.float64(np.float32(h["weight_decay"]))
            g = np.add(g, np.multiply(p, c, dtype=np.float64)).astype(np.float32)
        else:
            g = g + p * h["weight_decay"]
    diff = g - e
    w = 1 - h["beta1"]
    if f32:
        small = abs(w) < 0.5
        coeff = np.float64(np.float32(w) if small else np.float32(w) - np.float32(1))
        np.copyto(e, diff.astype(np.float64) * coeff + (e if small else g), casting="unsafe")
    else:
        e[...] = e + w * diff if abs(w) < 0.5 else g - diff * (1 - w)
    np.multiply(s, h["beta2"], out=s)
    v = 1 - h["beta2"]
    t1 = g if v == 1 else g * v
    if f32:
        np.copyto(s, np.add(s, np.multiply(t1, g, dtype=np.float64)), casting="unsafe")
    else:
        s += t1 * g
    if m is not None:
        np.maximum(m, s, out=m)
    denom = np.sqrt(s if m is None else m)
    denom /= h["bias_correction2_sqrt"]
    denom += h["eps"]
    step_size = -h["step_size"]
    p += (e if step_size == 1 else e * step_size) / denom


def _axpy(a, alpha: float, b):
    """``a + alpha * b`` as the Tensor op ``a.add(b, alpha=alpha)`` computes it: for float32
    one rounding of the multiply-add (PyTorch's fused multiply-add), exact in float64."""
    if alpha == 1:
        return a + b
    if a.dtype == np.float32:
        c = np.float64(np.float32(alpha))
        return np.add(a, np.multiply(b, c, dtype=np.float64)).astype(np.float32)
    return a + b * alpha


def sgd_arrays(p, g, buf, h) -> None:
    """One SGD update of the 1-D arrays ``p`` (parameters) and ``buf`` (momentum buffer, or
    None without momentum) from gradient ``g``, in place; op for op the single-tensor path.
    ``h["first"]``: the buffer is new (it takes the gradient's value)."""
    if h["maximize"]:
        g = -g
    if h["weight_decay"] != 0:
        g = _axpy(g, h["weight_decay"], p)
    if buf is not None:
        if h["first"]:
            buf[...] = g
        else:
            np.multiply(buf, h["momentum"], out=buf)
            buf[...] = _axpy(buf, 1 - h["dampening"], g)
        g = _axpy(g, h["momentum"], buf) if h["nesterov"] else buf
    p[...] = _axpy(p, -h["lr"], g)
