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

import threading
from operator import is_ as _is

import numpy as np

from .._tensor.core import Tensor, _wrap
from ..backend.float32_math.primitives import axpy_, midpoints, rounded_once
from ..backend.fp_errors import silent

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def use_flat(group) -> bool:
    """Whether ``group``'s options select the flat path: ``foreach`` None (the default) or
    True, or ``fused``; never ``differentiable`` (that needs the per-parameter graph)."""
    return group.get("foreach") is not False and not group.get("differentiable", False)


def with_grads(params) -> tuple:
    """The parameters that have a gradient, and their gradients."""
    ps, gs = [], []
    for p in params:
        g = p.grad
        if g is not None:
            ps.append(p)
            gs.append(g)
    return ps, gs


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
        self.sizes = sizes = [p._data.size for p in params]
        # Large parameters first, then the small ones end to end: the small ones' state is one
        # contiguous range, so runs of them make few blocks however they interleave with large
        # ones (a layer's bias between two weights). Users see only the per-parameter slices.
        self.order = sorted(range(len(params)), key=lambda i: sizes[i] < BLOCK)
        self.starts, pos = [0] * len(params), 0
        for i in self.order:
            self.starts[i], pos = pos, pos + sizes[i]
        self.total = pos
        self.dtype, self.device = params[0]._dtype, params[0]._device
        self.buffers: dict = {}  # state name -> flat Tensor
        self.bound: dict = {}  # state name -> ([state tensors], [their arrays]) as bound
        self.scatters: dict = {}  # first index of a run -> (block array, run's arrays, views)

    def matches(self, params: list) -> bool:
        return len(params) == len(self.params) and all(a is b for a, b in zip(params, self.params))

    def state_buffer(self, states: list, name: str) -> Tensor:
        """The flat buffer of state ``name``; ``state[name]`` of each parameter is its slice.

        Where the state tensors are no longer the slices bound last time (the first step,
        ``load_state_dict``, a user's replacement, another set of parameters with gradients),
        a new buffer is filled from their values (zeros where a parameter has none yet) and
        the slices bound. A state tensor that already exists keeps its identity, as in PyTorch
        (a reference to ``optimizer.state[p]["exp_avg"]`` follows the steps): its memory moves
        into the buffer. (A view taken of it before then keeps the old memory.)
        """
        bound = self.bound.get(name)
        if (
            bound is not None
            and all(map(_is, [s.get(name) for s in states], bound[0]))
            and all(map(_is, [t._data for t in bound[0]], bound[1]))
        ):
            return self.buffers[name]
        flat = np.empty(self.total, self.dtype.np)
        tensors, arrays = [], []
        for i, (s, p) in enumerate(zip(states, self.params)):
            seg = flat[self.starts[i] : self.starts[i] + self.sizes[i]]
            old = s.get(name)
            seg[...] = 0 if old is None else old._data.reshape(-1)
            view = seg.reshape(p._data.shape)
            if _movable(old, view, self):
                old._data = view
                t = old
            else:
                t = _wrap(view, self.dtype, self.device)
                if old is not None:
                    t._vc = [old._vc[0]]  # the state tensor keeps its version count
                s[name] = t
            tensors.append(t)
            arrays.append(view)
        self.bound[name] = (tensors, arrays)
        self.buffers[name] = buf = _wrap(flat, self.dtype, self.device)
        return buf

    def bump(self, name: str, times: int) -> None:
        """Count ``times`` in-place updates on each parameter's ``name`` state tensor (the
        slices ``state_buffer`` bound this step)."""
        for t in self.bound[name][0]:
            t._vc[0] += times

    def bump_params(self, times: int) -> None:
        for p in self.params:
            p._vc[0] += times


def _movable(old, view, fg: FlatGroup) -> bool:
    """Whether state tensor ``old`` can take ``view`` of the flat buffer as its memory: a plain
    tensor of the group's dtype, device and shape, not a view of another tensor."""
    return (
        old is not None and old.__class__ is Tensor and old._base is None
        and old._dtype is fg.dtype and old._device == fg.device
        and old._data.shape == view.shape and not old._rg
    )  # fmt: skip


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


# ---- the group, block by block -----------------------------------------------------------------
# Elements per block: the float64 temporaries of a float32 block (128 KiB each) stay in a
# core's L2 cache, and the step's peak of temporary memory stays well under a MiB.
BLOCK = 1 << 14
# SGD runs blocks of 2 * BLOCK: its update keeps fewer arrays in cache than Adam's, and half the
# blocks (half the NumPy calls) made the MLP's SGD step ~7% faster (Adam's was not).
# The blocks run on one thread: split over two (backend/parallel.py's ``halves``) an AdamW step
# over 100 tensors took 10 ms instead of 5.5 (idle 2-core machine), the two threads contending
# for the GIL between NumPy calls on 16K-element blocks.


class Workspace:
    """Scratch arrays of one thread, reused block after block and step after step: the
    update's temporaries and the gathered runs of small parameters cost no allocation."""

    def __init__(self) -> None:
        self.arrays: dict = {}

    def get(self, slot: int, n: int, dtype) -> np.ndarray:
        a = self.arrays.get((slot, dtype))
        if a is None or a.size < n:
            a = self.arrays[(slot, dtype)] = np.empty(max(n, BLOCK), dtype)
        return a[:n]


_local = threading.local()


def workspace() -> Workspace:
    ws = getattr(_local, "ws", None)
    if ws is None:
        ws = _local.ws = Workspace()
    return ws


def plan(fg: FlatGroup, block: int = 0) -> list:
    """The group's blocks of ``block`` elements at most (``BLOCK`` by default) as (flat start,
    flat end, parameter index or run of indices): runs of small parameters gathered into one
    block, a large parameter split into slices of itself. Cached on the group (its parameters
    do not change)."""
    block = block or BLOCK
    cached = fg.__dict__.get("_plan")
    if cached is not None and cached[0] == block:
        return cached[1]
    st, size, run, out = fg.starts, fg.sizes, [], []

    def flush() -> None:
        if run:
            out.append((st[run[0]], st[run[-1]] + size[run[-1]], run[0] if len(run) == 1 else run))

    for i in fg.order:  # consecutive in the flat layout
        n = size[i]
        if n >= block:
            flush()
            run = []
            out.extend((st[i] + lo, st[i] + min(n, lo + block), i) for lo in range(0, n, block))
            continue
        if run and st[i] + n - st[run[0]] > block:
            flush()
            run = []
        run.append(i)
    flush()
    fg._plan = (block, out)
    return out


@silent  # inf / inf in a step is NaN, silently as in PyTorch
def run_blocks(fg: FlatGroup, grads: list, update, block: int = 0) -> None:
    """``update(lo, hi, p, g, ws)`` on every block of the group, where ``p`` and ``g`` are the
    block's parameter and gradient values (1-D) and [lo, hi) its range in the flat state
    buffers; a gathered block's parameters are written back afterwards."""
    ws = workspace()
    for lo, hi, who in plan(fg, block):
        if type(who) is int:
            base = fg.starts[who]
            p = fg.params[who]._data.reshape(-1)[lo - base : hi - base]
            g = grads[who]._data.reshape(-1)[lo - base : hi - base]
            update(lo, hi, p, g, ws)
        else:
            p, g = _gather(fg, who, grads, lo, hi, ws)
            update(lo, hi, p, g, ws)
            _scatter(fg, who, p)


def _gather(fg: FlatGroup, run: list, grads: list, lo: int, hi: int, ws: Workspace):
    dt = fg.params[run[0]]._data.dtype
    p, g = ws.get(0, hi - lo, dt), ws.get(1, hi - lo, dt)
    # axis=None: each array is flattened inside the one call (no reshape per parameter)
    np.concatenate([fg.params[i]._data for i in run], axis=None, out=p)
    np.concatenate([grads[i]._data for i in run], axis=None, out=g)
    return p, g


def _scatter(fg: FlatGroup, run: list, p) -> None:
    """Write the gathered block ``p`` back into the run's parameters, through views of ``p``
    shaped as each parameter, made once and kept while the arrays are the same."""
    arrays = [fg.params[i]._data for i in run]
    kept = fg.scatters.get(run[0])
    if kept is None or kept[0] is not p.base or not all(map(_is, kept[1], arrays)):
        st, base = fg.starts, fg.starts[run[0]]
        views = [
            p[st[i] - base : st[i] - base + a.size].reshape(a.shape) for i, a in zip(run, arrays)
        ]
        kept = fg.scatters[run[0]] = (p.base, arrays, views)
    for a, v in zip(arrays, kept[2]):
        np.copyto(a, v)


# ---- float32 multiply-adds rounded once -----------------------------------------------------------
# PyTorch's CPU kernels compute ``a + alpha * b`` (add with alpha, lerp, addcmul) as one fused
# multiply-add: one rounding. With a scalar ``alpha`` that is BLAS's saxpy where its kernel fuses
# (``float32_math.primitives.axpy_``: PyTorch's bits, ~6x faster). Otherwise the product of two
# float32 values is exact in float64, so the sum rounded to float32 is the fused result but for
# a rare double rounding, which ``primitives.midpoints``/``rounded_once`` settle (as the Tensor
# ops do); its float64 temporaries live in the thread's workspace (slots 2 and 3).
def _fma32_into(out, a, c: float, b, ws: Workspace, b_times=None):
    """``out = a + c * b`` (``a + c * b * b_times`` when given: the product of two float32
    arrays, exact in float64), rounded once to float32; ``out`` may be ``a`` or ``b``."""
    if b_times is None and (out is a or not np.may_share_memory(out, b)):
        if out is not a:
            np.copyto(out, a)
        if axpy_(out, c, b):
            return out
        a = out  # (``out`` holds ``a`` now)
    x, y = ws.get(2, a.size, np.float64), ws.get(3, a.size, np.float64)
    np.copyto(x, b)
    if b_times is not None:
        np.copyto(y, b_times)
        np.multiply(x, y, out=x)
    if c != 1:
        np.multiply(x, c, out=x)
    np.copyto(y, a)
    np.add(x, y, out=x)
    # the rare double rounding, settled before ``out`` overwrites an operand (with ``b_times``
    # and ``c`` both, the product is not exact and nothing is fused)
    at = _midpoints(x, ws) if b_times is None or c == 1 else None
    if at is not None:
        fix = rounded_once(x[at], b[at], c if b_times is None else b_times[at], y[at])
    np.copyto(out, x, casting="unsafe")
    if at is not None:
        out[at] = fix
    return out


# ``primitives.midpoints``'s two tests, with their temporaries in the workspace: a step of
# 16K-element blocks allocated ~160 KB per block there (above PyTorch's whole peak for the step)
_LOW29, _HALF29 = np.uint64((1 << 29) - 1), np.uint64(1 << 28)
_FLT_MIN = 2.0**-126


def _midpoints(x, ws: Workspace):
    """``primitives.midpoints(x)`` of a 1-D float64 ``x``: None where no element lies on a
    float32 midpoint, else their indices; that function itself only where an element is below
    float32's normal range, outside the bit test's domain (its allocations are then rare)."""
    w, mid, tiny = (
        ws.get(6, x.size, np.uint64),
        ws.get(7, x.size, np.bool_),
        ws.get(8, x.size, np.bool_),
    )
    np.bitwise_and(x.view(np.uint64), _LOW29, out=w)
    found = np.equal(w, _HALF29, out=mid).any()
    # one reduction settles the common case, all values (NaN aside) of float32's normal range
    # or above (Adam's exp_avg_sq); negative ones take the abs test
    if (
        not np.fmin.reduce(x, initial=np.inf) >= _FLT_MIN
        and np.less(np.abs(x, out=w.view(np.float64)), _FLT_MIN, out=tiny).any()
    ):
        return midpoints(x)
    return (np.flatnonzero(mid),) if found else None


def _axpy_into(out, a, alpha: float, b, ws: Workspace):
    """``out = a + alpha * b`` as the Tensor op ``a.add(b, alpha=alpha)`` computes it: for
    float32 one rounding of the multiply-add (PyTorch's fused multiply-add)."""
    if alpha == 1:
        return np.add(a, b, out=out)
    if a.dtype == np.float32:
        return _fma32_into(out, a, np.float64(np.float32(alpha)), b, ws)
    t = np.multiply(b, alpha, out=ws.get(2, b.size, np.float64))
    return np.add(a, t, out=out)


# ---- Adam and SGD on arrays ------------------------------------------------------------------------
def adam_arrays(p, g, e, s, m, h, ws: Workspace) -> None:
    """One Adam update of the 1-D arrays ``p`` (parameters), ``e``, ``s``, ``m`` (exp_avg,
    exp_avg_sq, max_exp_avg_sq or None) from gradient ``g``, in place.

    Op for op the Tensor ops of the single-tensor path: where those round a float32
    multiply-add once (PyTorch's fused multiply-add) so does this. ``h`` holds the group's
    numbers (see ``Adam._flat_step``); temporaries live in ``ws`` (slots 4 and 5, of the
    parameters' dtype).
    """
    dt, n = p.dtype, p.size
    f32 = dt == np.float32
    a, b = ws.get(4, n, dt), ws.get(5, n, dt)
    if h["maximize"]:
        g = np.negative(g, out=b)
    wd = h["weight_decay"]
    if wd != 0:
        if h["decoupled"]:
            np.multiply(p, 1 - h["lr"] * wd, out=p)
        else:
            g = _axpy_into(b, g, wd, p, ws)
    # exp_avg.lerp_(g, w): e + w * (g - e) for a small weight, else g - (g - e) * (1 - w)
    w = 1 - h["beta1"]
    small = abs(w) < 0.5
    diff = np.subtract(g, e, out=a)
    if f32:
        coeff = np.float64(np.float32(w) if small else np.float32(w) - np.float32(1))
        _fma32_into(e, e if small else g, coeff, diff, ws)
    elif small:
        np.add(e, np.multiply(diff, w, out=diff), out=e)
    else:
        np.subtract(g, np.multiply(diff, 1 - w, out=diff), out=e)
    # exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    np.multiply(s, h["beta2"], out=s)
    v = 1 - h["beta2"]
    t1 = g if v == 1 else np.multiply(g, v, out=a)
    if f32:
        _fma32_into(s, s, 1, t1, ws, b_times=g)
    else:
        np.add(s, np.multiply(t1, g, out=a), out=s)
    if m is not None:
        np.maximum(m, s, out=m)
    denom = np.sqrt(s if m is None else m, out=a)
    np.divide(denom, h["bias_correction2_sqrt"], out=denom)
    np.add(denom, h["eps"], out=denom)
    step_size = -h["step_size"]
    upd = e if step_size == 1 else np.multiply(e, step_size, out=b)
    p += np.divide(upd, denom, out=b)


def sgd_arrays(p, g, buf, h, ws: Workspace) -> None:
    """One SGD update of the 1-D arrays ``p`` (parameters) and ``buf`` (momentum buffer, or
    None without momentum) from gradient ``g``, in place; op for op the single-tensor path.
    ``h["first"]``: the buffer is new (it takes the gradient's value)."""
    b = ws.get(5, p.size, p.dtype)
    if h["maximize"]:
        g = np.negative(g, out=b)
    if h["weight_decay"] != 0:
        g = _axpy_into(b, g, h["weight_decay"], p, ws)
    if buf is not None:
        if h["first"]:
            buf[...] = g
        else:
            np.multiply(buf, h["momentum"], out=buf)
            _axpy_into(buf, buf, 1 - h["dampening"], g, ws)
        g = _axpy_into(b, g, h["momentum"], buf, ws) if h["nesterov"] else buf
    _axpy_into(p, p, -h["lr"], g, ws)
