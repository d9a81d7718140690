"""``torch.special``'s orthogonal polynomials of degree ``n`` at ``x``: Chebyshev T, U, V, W and
their shifted forms (on [0, 1]), Hermite H (physicists') and He (probabilists'), Laguerre L and
Legendre P.

The arithmetic is PyTorch's CPU kernels', element by element in the tensor's dtype: ``n`` is
converted to the dtype and truncated to an integer (NaN and infinities count as negative),
negative degrees give 0, the ends of the interval take their closed forms, Chebyshev
polynomials of high degree inside the interval use the trigonometric forms (``cos(n acos x)``
and the like), everything else runs the three-term recurrence from degrees 0 and 1; Hermite
polynomials beyond degree 128 (float32) or 512 (float64) are NaN. The recurrence runs for all
elements at once, one degree per step, over the elements sorted by degree (each step works on
a prefix). Values agree with PyTorch's to float rounding (its compiler may fuse the multiply
and subtract of a step into one rounding). As in PyTorch the results do not require grad, and
only float32 and float64 have kernels.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from .._dispatch import result_dtype, scalar_name, write_out

_INT64_MIN = np.iinfo(np.int64).min


def _degrees(n: np.ndarray) -> np.ndarray:
    """``static_cast<int64_t>`` of the degrees (in the dtype): truncated; NaN, infinities and
    values out of range give INT64_MIN, a negative degree."""
    ok = np.isfinite(n) & (np.abs(n) < 2.0**63)
    out = np.full(n.shape, _INT64_MIN, np.int64)
    out[ok] = n[ok].astype(np.int64)
    return out


def _recur(out, todo, steps, q1, step, *per_element) -> None:
    """``out[todo]``: the value after ``steps`` steps of ``(p, q) -> (q, step(j, q, p, ...))``
    from ``p = 1``, ``q = q1``; ``per_element`` arrays are passed to ``step`` aligned with q."""
    idx = np.flatnonzero(todo)
    if not idx.size:
        return
    k = steps[idx]
    order = np.argsort(-k, kind="stable")
    idx, k = idx[order], k[order]
    q = q1[idx].copy()
    p = np.ones_like(q)
    args = [a[idx] for a in per_element]
    live = len(k)
    for j in range(1, int(k[0]) + 1):
        while k[live - 1] < j:
            live -= 1
        r = step(j, q[:live], p[:live], *(a[:live] for a in args))
        p[:live] = q[:live]
        q[:live] = r
    out[idx] = q


def _settle(out, todo, where, value) -> None:
    """``out = value`` where still to do and ``where``; those are done."""
    m = todo & where
    out[m] = value[m] if np.ndim(value) else value
    todo &= ~where


# ---- Chebyshev T, U, V, W and the shifted ones ------------------------------------------------------
# The degree above which the trigonometric form is used inside the interval: (plain, shifted).
_TRIG_FROM = {"t": (6, 6), "u": (8, 6), "v": (8, 6), "w": (8, 4)}


def _libm(fn):
    """``fn`` as the C library's float function: float32 through float64, rounded once
    (glibc's cosf/sinf/acosf are correctly rounded; NumPy's float32 SIMD kernels are not)."""

    def call(v):
        return fn(v.astype(np.float64)).astype(np.float32) if v.dtype == np.float32 else fn(v)

    return call


_acos, _cos, _sin = _libm(np.arccos), _libm(np.cos), _libm(np.sin)


def _chebyshev_trig(kind, shifted, theta, k, odd, x, y, one):
    """The trigonometric form at ``theta = acos(y)``, degree ``k`` (in the dtype)."""
    two, half = one + one, one / (one + one)
    cos, sin = _cos, _sin
    if kind == "t":
        return cos(k * theta)
    if kind == "u":
        s, k1 = sin(theta), k + one
        return np.where(s != 0, sin(k1 * theta) / s, k1 * cos(k1 * theta) / y)
    if kind == "v":
        closed = np.where(odd, -(k + k + one), k + k + one)
        return np.where(sin(theta / two) != one, cos((k + half) * theta) / cos(theta / two), closed)
    closed = np.where(odd, -one, one)
    if not shifted:
        closed = np.where(x > 0, k + k + one, closed)
    return np.where(cos(theta / two) != one, sin((k + half) * theta) / sin(theta / two), closed)


def _chebyshev(kind: str, shifted: bool):
    def kernel(x, n, out):
        one = x.dtype.type(1)
        y = x + x - one if shifted else x  # the polynomial's argument on [-1, 1]
        a = y + y if shifted else x + x  # the recurrence's factor
        k, odd = n.astype(x.dtype), (n % 2) != 0
        sign = np.where(odd, -one, one)
        upper, lower = {
            "t": (one, sign),
            "u": (k + one, sign * (k + one)),
            "v": (one, sign * (k + k + one)),
            "w": (k + k + one, sign),
        }[kind]
        todo = n >= 0
        _settle(out, todo, (x == one) if shifted else ((np.abs(x) == one) & (x > 0)), upper)
        _settle(out, todo, (x == 0) if shifted else (x == -one), lower)
        inside = todo & (n > _TRIG_FROM[kind][shifted]) & (np.abs(y) < one)
        if inside.any():
            out[inside] = _chebyshev_trig(kind, shifted, _acos(y[inside]), k[inside], odd[inside],
                                          x[inside], y[inside], one)  # fmt: skip
            todo &= ~inside
        _settle(out, todo, n == 0, one)
        q1 = {"t": y, "u": a, "v": a - one, "w": a + one}[kind]
        _settle(out, todo, n == 1, q1)
        _recur(out, todo, n - 1, q1, lambda j, q, p, a: a * q - p, a)

    return kernel


# ---- Hermite, Laguerre, Legendre --------------------------------------------------------------------
def _hermite(probabilists: bool):
    def kernel(x, n, out):
        t = x.dtype.type
        todo = n >= 0
        _settle(out, todo, n == 0, t(1))
        q1 = x if probabilists else x + x
        _settle(out, todo, n == 1, q1)
        _settle(out, todo, n > (128 if x.dtype == np.float32 else 512), t(np.nan))
        if probabilists:
            _recur(out, todo, n - 1, q1, lambda j, q, p, x: x * q - t(j) * p, x)
        else:
            _recur(out, todo, n - 1, q1, lambda j, q, p, x2: x2 * q - t(j + j) * p, x + x)

    return kernel


def _laguerre(x, n, out):
    t = x.dtype.type
    todo = n >= 0
    _settle(out, todo, np.abs(x) == 0, t(1))
    _settle(out, todo, n == 0, t(1))
    q1 = t(1) - x
    _settle(out, todo, n == 1, q1)
    _recur(out, todo, n - 1, q1, lambda j, q, p, c: ((t(j + j) + c) * q - t(j) * p) / t(j + 1), q1)


def _legendre(x, n, out):
    t = x.dtype.type
    one = t(1)
    todo = n >= 0
    _settle(out, todo, (np.abs(x) == one) & ((x > 0) | (n % 2 == 0)), one)
    _settle(out, todo, np.abs(x) == one, -one)
    _settle(out, todo, n == 0, one)
    _settle(out, todo, n == 1, x)
    _recur(out, todo, n - 1, x, lambda j, q, p, x: (t(j + j + 1) * x * q - t(j) * p) / t(j + 1), x)


# ---- the ops ------------------------------------------------------------------------------------------
def _op(name: str, kernel):
    kernel_name = f"{name}_cpu"

    def op(input, n, *, out=None):
        from ..creation.factories import tensor

        like = input if isinstance(input, Tensor) else n
        if not isinstance(like, Tensor):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(n).__name__})")  # fmt: skip
        dt = result_dtype(input, n)
        if dt.category < D.FLOAT:
            dt = D.get_default_dtype()
        if dt not in (D.float32, D.float64):
            raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{scalar_name(dt)}'")
        xs, ns = (
            (v.detach() if isinstance(v, Tensor) else tensor(v, device=like.device)).to(dt)
            for v in (input, n)
        )
        xa, na = np.broadcast_arrays(xs.cpu()._data, ns.cpu()._data)
        with np.errstate(all="ignore"):
            flat = np.zeros(xa.size, dt.np)
            kernel(
                np.ascontiguousarray(xa).reshape(-1),
                _degrees(np.ascontiguousarray(na).reshape(-1)),
                flat,
            )
        res = _wrap(flat.reshape(xa.shape), dt, xs.cpu()._device)
        if like.device.type != "cpu":  # computed on the host, as the degree loop is per element
            res = res.to(like.device)
        return res if out is None else write_out(out, res, f"special_{name}", grad="inputs")

    op.__name__ = op.__qualname__ = f"special_{name}"
    op.__doc__ = f"``torch.special.{name}(input, n)``: see the module docstring."
    return op


special_chebyshev_polynomial_t = _op("chebyshev_polynomial_t", _chebyshev("t", False))
special_chebyshev_polynomial_u = _op("chebyshev_polynomial_u", _chebyshev("u", False))
special_chebyshev_polynomial_v = _op("chebyshev_polynomial_v", _chebyshev("v", False))
special_chebyshev_polynomial_w = _op("chebyshev_polynomial_w", _chebyshev("w", False))
special_shifted_chebyshev_polynomial_t = _op(
    "shifted_chebyshev_polynomial_t", _chebyshev("t", True)
)
special_shifted_chebyshev_polynomial_u = _op(
    "shifted_chebyshev_polynomial_u", _chebyshev("u", True)
)
special_shifted_chebyshev_polynomial_v = _op(
    "shifted_chebyshev_polynomial_v", _chebyshev("v", True)
)
special_shifted_chebyshev_polynomial_w = _op(
    "shifted_chebyshev_polynomial_w", _chebyshev("w", True)
)
special_hermite_polynomial_h = _op("hermite_polynomial_h", _hermite(False))
special_hermite_polynomial_he = _op("hermite_polynomial_he", _hermite(True))
special_laguerre_polynomial_l = _op("laguerre_polynomial_l", _laguerre)
special_legendre_polynomial_p = _op("legendre_polynomial_p", _legendre)
