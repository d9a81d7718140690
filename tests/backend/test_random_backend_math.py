"""taimatsu.backend.random without torch: the exact FMA emulations against rational arithmetic, the
vectorised shuffles against the loops they replace, seeds, states and sample statistics.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from random_backend_helpers import BF16, CPUGenerator, R, assert_same


def _round_to_float32(x: Fraction) -> np.float32:
    """Correct rounding of an exact rational to float32 (ties to even)."""
    guess = np.float32(float(x))
    candidates = [
        np.nextafter(guess, np.float32(-np.inf)),
        guess,
        np.nextafter(guess, np.float32(np.inf)),
    ]
    best = min(
        candidates, key=lambda c: (abs(Fraction(float(c)) - x), int(np.array(c).view(np.int32)) & 1)
    )
    return np.float32(best)


def test_fma32_is_correctly_rounded():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(3000).astype(np.float32)
    b = (rng.standard_normal(3000) * 2.0 ** rng.integers(-30, 30, 3000)).astype(np.float32)
    c = (rng.standard_normal(3000) * 2.0 ** rng.integers(-60, 10, 3000)).astype(np.float32)
    # halfway cases: a*b + c lands on a float32 tie that float64 rounding would break
    a[:4] = np.float32(1 + 2**-23)
    b[:4] = np.float32(1 + 2**-23)
    c[:4] = np.float32([-1.0, 2**-60, -(2**-60), 1e-30])
    # results in float32's subnormal range
    a[4:8], b[4:8], c[4:8] = (
        np.float32(1e-20),
        np.float32(3e-19),
        np.float32([0, 1e-39, -1e-39, 2e-45]),
    )
    got = R._fma32(a, b, c)
    want = [
        _round_to_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        for x, y, z in zip(a, b, c)
    ]
    assert_same(got, np.array(want, np.float32))
    assert_same(R._fma32_exact(a, b, c), np.array(want, np.float32))


def test_fma64_is_correctly_rounded():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(3000)
    b = rng.standard_normal(3000) * 2.0 ** rng.integers(-40, 40, 3000)
    c = rng.standard_normal(3000) * 2.0 ** rng.integers(-80, 20, 3000)
    a[:3], b[:3], c[:3] = 1 + 2**-52, 1 - 2**-53, [-1.0, 2**-107, -(2**-106)]
    got = R._fma64(a, b, c)
    want = np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)])
    assert_same(got, want)


def test_fisher_yates_matches_the_loop():
    rng = np.random.default_rng(2)
    for n in [0, 1, 2, 3, 5, 17, 100, 2000]:
        picks = np.array([rng.integers(0, n - i) for i in range(n - 1)], np.int64)
        perm = list(range(n))
        for i, z in enumerate(picks):
            perm[i], perm[i + z] = perm[i + z], perm[i]
        assert R._fisher_yates(picks, n).tolist() == perm


def test_inside_out_matches_the_loop():
    rng = np.random.default_rng(3)
    for n in [1, 2, 3, 5, 17, 100, 2000]:
        picks = np.array([rng.integers(0, i + 1) for i in range(n)], np.int64)
        perm = [0] * n
        for i, z in enumerate(picks):
            perm[i] = perm[z]
            perm[z] = i
        assert R._inside_out(picks).tolist() == perm


def test_cpu_topk_returns_the_top_k():
    rng = np.random.default_rng(4)
    for n in [1, 5, 64, 65, 300, 2000]:
        keys = rng.integers(0, 4, n).astype(float).tolist()
        for k in {1, max(1, n // 64), max(1, n // 2), n}:
            top = R._cpu_topk(keys, k)
            assert len(set(top)) == k
            assert [keys[i] for i in top] == sorted(keys, reverse=True)[:k]


def test_default_seeds():
    assert CPUGenerator().initial_seed() == 67280421310721
    assert isinstance(R.default_generator, CPUGenerator)
    seed = CPUGenerator().seed()
    assert 0 <= seed < 2**64


def test_manual_seed_arguments():
    assert CPUGenerator(-1).initial_seed() == 2**64 - 1
    assert CPUGenerator(np.int64(5)).initial_seed() == 5
    with pytest.raises(ValueError, match="Overflow"):
        CPUGenerator(2**64)
    with pytest.raises(RuntimeError, match="expected a long, but got float"):
        CPUGenerator(1.0)


def test_state_roundtrip_resumes_the_stream():
    gen = CPUGenerator(42)
    gen.normal(3, np.float64)  # caches a sample
    state = gen.get_state()
    first = [gen.normal(5, np.float64), gen.uniform(20, np.float32), gen.randperm(30)]
    gen.manual_seed(0)
    gen.set_state(state)
    second = [gen.normal(5, np.float64), gen.uniform(20, np.float32), gen.randperm(30)]
    for x, y in zip(first, second):
        assert_same(x, y)
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        gen.set_state(np.zeros(10, np.uint8))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        gen.set_state(np.zeros(5056, np.uint8))


def test_fresh_and_used_states():
    gen = CPUGenerator(7)
    state = gen.get_state()
    assert state[8:16].view(np.int32).tolist() == [1, 1] and state[16:24].view(np.uint64)[0] == 0
    gen.uniform(624, np.float32)  # exactly one refill of the state
    state = gen.get_state()
    assert state[8:12].view(np.int32)[0] == 1 and state[16:24].view(np.uint64)[0] == 624


def test_statistics():
    gen = CPUGenerator(0)
    z = gen.normal(200_000, np.float32, 1.0, 2.0)
    assert abs(z.mean() - 1.0) < 0.02 and abs(z.std() - 2.0) < 0.02
    u = gen.uniform(100_000, np.float16, -2.0, 3.0)
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.astype(np.float64).mean() - 0.5) < 0.03
    assert abs(gen.bernoulli(0.3, 100_000, np.float32).mean() - 0.3) < 0.01
    assert abs(gen.exponential(100_000, np.float64, 2.0).mean() - 0.5) < 0.01
    assert abs(gen.geometric(100_000, np.float64, 0.25).mean() - 4.0) < 0.1
    r = gen.randint(-3, 4, 70_000)
    assert r.min() == -3 and r.max() == 3 and abs(np.bincount(r + 3).std() / 10_000) < 0.05
    assert sorted(gen.randperm(1000).tolist()) == list(range(1000))
    counts = np.bincount(
        gen.multinomial(np.array([1.0, 2.0, 7.0], np.float32), 100_000, True), minlength=3
    )
    assert np.allclose(counts / 100_000, [0.1, 0.2, 0.7], atol=0.01)
    draw = gen.multinomial(np.array([[0.0, 1.0, 1.0, 0.0]], np.float32), 2)
    assert sorted(draw[0].tolist()) == [1, 2]


def test_dtypes_and_shapes():
    gen = CPUGenerator(0)
    assert gen.normal((2, 3), BF16).dtype == BF16 and gen.normal((2, 3), BF16).shape == (2, 3)
    assert gen.uniform((), np.float64).shape == ()
    assert gen.normal(0, np.float32).shape == (0,)
    assert gen.random(5, bool).dtype == bool
    assert gen.normal(4, np.complex64).dtype == np.complex64
    assert gen.multinomial(np.ones((3, 4), np.float32), 2).shape == (3, 2)
