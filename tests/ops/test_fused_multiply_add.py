"""float32 ops that PyTorch's CPU kernels compute as one fused multiply-add round once.

add/sub/rsub with ``alpha``, lerp (scalar and tensor weight) and addcmul, and the optimizers'
updates built on them, take ``a + b * c`` with one rounding. Emulated in float64 (an exact product,
then a sum rounded to float64 and again to float32) that differs where the float64 sum lands on a
float32 midpoint while the exact one does not: ``primitives.round_once`` settles those. The crafted
case: 1 + 2^-23 plus (2^24 - 2) 2^-48 times 1 + 2^-23 lies just below the midpoint between
1 + 2^-23 and 1 + 2^-22, which is where the float64 sum lands.
"""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu
from taimatsu.backend.float32_math.primitives import fma

Y0 = np.float32(1 + 2.0**-23)  # the addend, and the scalar factor
X = np.float32((2.0**24 - 2) * 2.0**-48)  # the other factor: the product is 2^-24 - 2^-70


def _bits(t):
    return t.detach().numpy().view(np.int32).tolist()


CASES = {
    "add_alpha": lambda L, a, b: a.add(b, alpha=float(Y0)),
    "add_alpha_broadcast": lambda L, a, b: a.add(b[:1], alpha=float(Y0)),
    "add_alpha_transposed": lambda L, a, b: a.t().add(b.t(), alpha=float(Y0)),
    "add_alpha_": lambda L, a, b: a.add_(b, alpha=float(Y0)),
    "sub_alpha": lambda L, a, b: a.sub(-b, alpha=float(Y0)),
    "rsub_alpha": lambda L, a, b: L.rsub(-b, a, alpha=float(Y0)),
    "addcmul": lambda L, a, b: L.addcmul(a, b, L.full_like(b, float(Y0))),
    "addcmul_broadcast": lambda L, a, b: L.addcmul(a, b[:1], L.full_like(b[:1, :1], float(Y0))),
    "addcmul_value": lambda L, a, b: L.addcmul(a, b, L.ones_like(b), value=float(Y0)),
    "lerp_tensor_weight": lambda L, a, b: L.lerp(a, a + b, L.full_like(a, 0.25)),
    "addcmul_": lambda L, a, b: a.addcmul_(b, L.full_like(b, float(Y0))),
    "addcmul_value_": lambda L, a, b: a.addcmul_(b, L.ones_like(b), value=float(Y0)),
    "addcmul_strided_": lambda L, a, b: a.t().addcmul_(b.t(), L.full_like(b.t(), float(Y0))),
}


@pytest.mark.parametrize("case", CASES)
def test_double_rounding_case_rounds_once(torch_oracle, case):
    a, b = np.full((3, 5), Y0, np.float32), np.full((3, 5), X, np.float32)
    want = CASES[case](
        torch_oracle, torch_oracle.from_numpy(a.copy()), torch_oracle.from_numpy(b.copy())
    )
    got = CASES[case](taimatsu, taimatsu.from_numpy(a.copy()), taimatsu.from_numpy(b.copy()))
    assert _bits(got) == _bits(want)


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd_update_rounds_once(torch_oracle, foreach, momentum):
    """``p.add_(grad, alpha=-lr)`` with p = 1 + 2^-23, grad = -X, lr = 1 + 2^-23."""
    got = []
    for L in (torch_oracle, taimatsu):
        p = L.nn.Parameter(L.from_numpy(np.full(40, Y0, np.float32)))
        p.grad = L.from_numpy(np.full(40, -X, np.float32))
        L.optim.SGD([p], lr=float(Y0), momentum=momentum, foreach=foreach).step()
        got.append(_bits(p))
    assert got[0] == got[1]


def _ops(L, a, e, w, b, c, alpha):
    T = L.from_numpy
    return [
        L.lerp(T(a), T(e), T(w)),
        L.lerp(T(a), T(e)[..., :1], float(w.flat[4])),
        T(a).add(T(e)[..., :1], alpha=alpha),
        L.addcmul(T(a), T(b), T(c), value=alpha),
    ]


def test_random_operands_match_pytorch(torch_oracle):
    """Random shapes and magnitudes, broadcast operands, weights at lerp's 0.5 switch."""
    rng = np.random.default_rng(0)
    for trial in range(40):
        shape = (7, 33) if trial % 2 else (64,)
        a, e, b, c = (
            (rng.standard_normal(shape) * 2.0 ** rng.integers(-20, 20)).astype(np.float32)
            for _ in range(4)
        )
        w = rng.uniform(-1, 2, shape).astype(np.float32)
        w[::3], w[1::5] = 0.5, np.float32(0.49999997)
        args = (a, e, w, b, c, float(rng.standard_normal()))
        want = _ops(torch_oracle, *args)
        assert [_bits(t) for t in _ops(taimatsu, *args)] == [_bits(t) for t in want]


def test_round_once_across_ranges():
    """``fma(..., once=True)`` against exact rational arithmetic: midpoint cases built at
    several scales, below and above the midpoint; whole arrays
    (the chunked form) and broadcast operands give the same answers as scalars."""
    from fractions import Fraction

    def exact(x, y, z):
        v = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        below = np.float32(float(v))  # one rounding of a Fraction: Python's float, then float32
        cands = [np.nextafter(below, -np.inf), below, np.nextafter(below, np.inf)]
        return min(
            cands, key=lambda f: (abs(Fraction(float(f)) - v), int(np.abs(f.view(np.int32)) & 1))
        )

    cases = [
        (X, Y0, Y0),
        (-X, Y0, -Y0),
        (np.float32((2.0**24 + 2) * 2.0**-48), Y0, Y0),  # 1 + 2^-22 every way
        (X * np.float32(2.0**100), Y0, Y0 * np.float32(2.0**100)),
        (X * np.float32(2.0**-100), Y0, Y0 * np.float32(2.0**-100)),
    ]
    for x, y, z in cases:
        assert fma(x, y, z, once=True) == exact(x, y, z), (x, y, z)
    n = 70_000  # above the chunked form's size
    xs, zs = np.full(n, X), np.full(n, Y0)
    xs[::7] = -X
    zs[::7] = -Y0
    got = fma(xs, Y0, zs, once=True)
    assert (got[::7] == exact(-X, Y0, -Y0)).all() and (
        np.delete(got, np.s_[::7]) == exact(X, Y0, Y0)
    ).all()
    assert (fma(np.full((2, 3), X), Y0, np.full(3, Y0), once=True) == exact(X, Y0, Y0)).all()


def test_broadcast_errors_name_operands_in_order(torch_oracle):
    for L in (torch_oracle, taimatsu):
        with pytest.raises(
            RuntimeError, match=r"tensor a \(5\) must match the size of tensor b \(3\)"
        ):
            L.addcmul(L.ones(5), L.ones(4, 5), L.ones(3))
        with pytest.raises(
            RuntimeError, match=r"tensor a \(3\) must match the size of tensor b \(5\)"
        ):
            L.lerp(L.ones(3), L.ones(4, 5), 0.5)
