"""Variance and standard deviation of real float arrays as PyTorch's CPU kernels compute them,
so ``var``/``std``/``var_mean``/``std_mean`` give PyTorch's bits.

What ATen does (``std_var_out`` in ``ReduceOps.cpp``, ``WelfordOps`` in ``SharedReduceOps.h``;
re-implemented here from that description):

- One result (float32/float64, not ``var_mean``/``std_mean``): ``std_var_all_cpu``. The mean is
  the ``mean`` op's (for float32 a float32 mean: ``cascade_sum`` / n), widened to double; the
  squared deviations ``(double(x) - mean) ** 2`` are summed in double, left to right over each
  thread's chunk of the elements in memory order (``GRAIN`` split as the sums'), the chunk sums
  added in order; the variance ``sum / max(0, n - correction)``, its ``sqrt`` in double, rounded.
- Everything else: Welford's running mean and m2 in double over each output's reduced elements,
  then ``m2 / (n - correction)`` (``sqrt`` in double) rounded to the dtype (a half type through
  float32, as ``Half(float)``); ``var_mean``'s mean is Welford's double mean, rounded.

How it is replayed. float64 results show every double rounding: the one-result sum runs left to
right (``np.add.accumulate``), and Welford's recurrence is stepped over the reduced elements,
vectorised over the outputs, where that stays cheap (``_welford_pays``); a long reduction into
few outputs takes two passes in double instead, which can differ from PyTorch in the last bits.
Results rounded to float32 (or a half type, through float32) are the rounded exact moments
whatever the order of the double operations, except where the exact value sits on (or within the
double computation's error of) a float32 rounding tie, which is common for means (a sum of a few
float32 values divided by n is often a tie): those take NumPy's vectorised two passes in double,
and only the outputs near a tie are replayed in PyTorch's order.
"""

from __future__ import annotations

import math

import numpy as np

from .. import threads
from .cascade_sum import GRAIN, cascade_sum


def moments(a, dims, correction, take_sqrt: bool, with_mean: bool, num_threads=None):
    """``(var or std, mean or None)`` of ``a`` (float16/bfloat16/float32/float64, non-empty) over
    the axes ``dims`` (removed), in ``a``'s dtype."""
    dims = tuple(sorted(dims))
    n = math.prod(a.shape[d] for d in dims)
    outputs = a.size // n
    out_shape = tuple(s for i, s in enumerate(a.shape) if i not in dims)
    if outputs == 1 and not with_mean and a.dtype.char in "fd":
        nthreads = num_threads or threads.get_num_threads()
        r = _all(a, n, correction, take_sqrt, nthreads)
        return _round(r, a.dtype).reshape(out_shape), None
    v = _reduced_first(a, dims)
    denom = float(n) - correction
    if a.dtype.char == "d" and _welford_pays(n, outputs):
        mean, m2 = _welford(v)
    else:
        mean, m2 = _two_pass(v)
    r = _finish(m2, denom, take_sqrt)
    if a.dtype.char != "d":
        cols = np.flatnonzero(_unsure(r, mean, m2, n, with_mean))
        # the few outputs near a float32 tie, in PyTorch's order (not where that would cost
        # much: long reductions, where the tie test mostly errs on the safe side)
        if cols.size and cols.size * n <= _REPLAY_STEPS:
            mean[cols], m2c = _welford(v[:, cols])
            r[cols] = _finish(m2c, denom, take_sqrt)
    r = _round(r, a.dtype).reshape(out_shape)
    return r, (_round(mean, a.dtype).reshape(out_shape) if with_mean else None)


_REPLAY_STEPS = 1 << 15  # reduced elements x outputs: ~10 ms of Welford steps at most


def _round(x, dtype):
    """A double result as PyTorch stores it: half types through float32 (``Half(float(x))``)."""
    if dtype.char in "fd":
        return np.asarray(x, dtype)
    return np.asarray(x, np.float32).astype(dtype)


def _finish(m2, denom: float, take_sqrt: bool):
    with np.errstate(divide="ignore", invalid="ignore"):  # n <= correction: inf or NaN, silently
        var = m2 / max(denom, 0.0)
        return np.sqrt(var) if take_sqrt else var


def _all(a, n, correction, take_sqrt, nthreads):
    """``std_var_all_cpu``: the whole array into one double."""
    if a.dtype.char == "f":
        r = _all_float32(a.ravel(order="K"), n, correction, take_sqrt)
        if r is not None:
            return r
    mean = np.float64(cascade_sum(a, range(a.ndim)).astype(a.dtype) / a.dtype.type(n))
    d = np.subtract(a.ravel(order="K"), mean, dtype=np.float64)
    np.multiply(d, d, out=d)
    tasks = 1 if n <= GRAIN else min(nthreads, -(-n // GRAIN))
    chunk = -(-n // tasks)
    parts = [d[t * chunk : (t + 1) * chunk] for t in range(tasks)]
    if a.dtype.char != "d":  # float32: the order matters only near a tie
        r = _finish(
            np.float64(sum(float(np.add.reduce(p)) for p in parts)), n - correction, take_sqrt
        )
        if not near_float32_tie(r):
            return r
    # every rounding shows: left to right within a chunk, then the chunks' sums in order
    total = sum(float(np.add.accumulate(p, out=p)[-1]) for p in parts)
    return _finish(np.float64(total), n - correction, take_sqrt)


def _all_float32(flat, n, correction, take_sqrt):
    """The float32 result of ``_all`` without the float32 mean (a ``cascade_sum``, the costliest
    part) where its bits cannot matter, else None. PyTorch subtracts the float32 mean ``c``, not
    the exact mean ``m``: sum (x - c)**2 = sum (x - m)**2 + n (m - c)**2 (the cross term
    vanishes). |m - c| stays below 2**-17 mean(|x|) <= 2**-17 (|m| + sd) (float32 rounding in
    the cascade's at most ~100 chained adds), so the result moves by at most ``shift`` relative:
    the tie test widens by that much, and a mean far from 0 (in standard deviations) goes the
    exact way."""
    w = flat.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.add.reduce(w) / n
        np.subtract(w, m, out=w)
        s = float(np.dot(w, w))
        if not s > 0:  # all equal, or NaN: the exact way
            return None
        shift = n * (2.0**-17 * (abs(m) + math.sqrt(s / n))) ** 2 / s
    if not shift <= 2.0**-30:  # (NaN too)
        return None
    r = _finish(np.float64(s), n - correction, take_sqrt)
    return None if near_float32_tie(r, 2.0**-34 + shift) else r


def _reduced_first(a, dims):
    """``a`` as (reduced elements, outputs): the reduced axes outermost in memory first (the
    order TensorIterator walks them in), the kept axes in order."""
    red = sorted(dims, key=lambda d: -abs(a.strides[d]))
    kept = [d for d in range(a.ndim) if d not in dims]
    v = a.transpose(red + kept)
    n = math.prod(a.shape[d] for d in dims)
    return v.reshape(n, -1)


def _welford_pays(n: int, outputs: int) -> bool:
    """Whether stepping Welford's recurrence (6 NumPy calls per reduced element: ~1 us each plus
    ~1.5 ns per output) costs at most ~2x the two passes in double (~8 ns per element): few
    reduced elements, or many outputs."""
    return n <= 8 or outputs >= 1024


def _unsure(r, mean, m2, n, with_mean):
    """The outputs whose float32 rounding Welford's own rounding errors could change: within
    their bound of a float32 tie. Welford's mean errs by ~2**-52 (n |mean| + S) at most (S =
    |mean| + sd, the data's scale: each step's error decays as later steps average it), its m2 by
    ~2**-52 n (1 + |mean| / sd) relative; a mean far below its data's scale (a centred column: an
    exact 0 comes out as 1e-17) is unsure well away from a tie."""
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(m2 / n)
        unsure = near_float32_tie(r, np.maximum(2.0**-34, 2.0**-50 * n * (1 + np.abs(mean) / sd)))
        if with_mean:
            scale = 2.0**-50 * (n + (np.abs(mean) + sd) / np.abs(mean))
            unsure |= near_float32_tie(mean, np.maximum(2.0**-34, scale))
    return unsure


def near_float32_tie(r, tol=2.0**-34):
    """Where the double ``r`` lies within ``tol`` (relative, scalar or per element) of a
    float32 rounding tie, the midpoint of two neighbouring float32 values: the 29 mantissa bits
    below float32's hold about 1000...0 (one float32 ulp is 2**29 of their units, and at most
    2**24 ``tol`` ulps is ``tol`` relative). Below float32's normal range, where its grid is
    coarser, every nonzero value counts as near; so does 0 with an infinite ``tol``."""
    a = np.abs(np.atleast_1d(np.asarray(r, np.float64)))
    low = (a.view(np.uint64) & np.uint64((1 << 29) - 1)).astype(np.int64)
    units = np.minimum(np.atleast_1d(tol) * 2.0**53, 2.0**29)  # (a NaN tol: never near)
    near = np.abs(low - (1 << 28)) <= units
    near |= (a < 2.0**-126) & (a > 0)
    near |= (a == 0) & (units >= 2.0**29)
    return (near & np.isfinite(a)).reshape(np.shape(r))


def _welford(v):
    """Welford's recurrence over axis 0 of ``v`` (float64) for all columns at once."""
    if v.shape[1] <= 12:  # a few columns: Python floats (IEEE doubles) cost less than NumPy calls
        return _welford_columns(v)
    mean = np.zeros(v.shape[1])
    m2 = np.zeros(v.shape[1])
    delta, t = np.empty_like(mean), np.empty_like(mean)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(v.shape[0]):
            x = v[k]
            np.subtract(x, mean, out=delta)
            np.divide(delta, float(k + 1), out=t)
            np.add(mean, t, out=mean)
            np.subtract(x, mean, out=t)
            np.multiply(delta, t, out=t)
            np.add(m2, t, out=m2)
    return mean, m2


def _welford_columns(v):
    """``_welford`` one column at a time in Python floats."""
    means, m2s = [], []
    for col in v.T.astype(np.float64).tolist():
        mean = m2 = 0.0
        for k, x in enumerate(col, 1):
            delta = x - mean
            mean += delta / k
            m2 += delta * (x - mean)
        means.append(mean)
        m2s.append(m2)
    return np.array(means), np.array(m2s)


def _two_pass(v):
    """Mean and sum of squared deviations over axis 0 in double (NumPy's pairwise sums)."""
    w = v.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        mean = np.add.reduce(w, axis=0) / w.shape[0]
        np.subtract(w, mean, out=w)
        np.multiply(w, w, out=w)
        return mean, np.add.reduce(w, axis=0)
