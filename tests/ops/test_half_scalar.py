"""float16/bfloat16 tensors with Python scalars (and tensor-tensor) against PyTorch's CPU kernels.

PyTorch computes half-precision elementwise ops in float32 ("opmath") and rounds once. How a
Python scalar enters depends on the op: ``mul``/``div`` (and ``0.5 * x``, floor/trunc division,
0-d float tensors) convert it straight to float32; ``add``/``sub``/``remainder``/``fmod``/
comparisons round it to the half type first; ``alpha`` is rounded to the half type and the
product taken in float32; ``addcmul``/``addcdiv`` values and ``lerp`` weights stay float32.
Results must be bit-identical (NaNs count as equal); the fraction that differs is printed.

Sizes are multiples of 64: PyTorch's vectorised loop then covers every element. Its scalar loop
(the tail of each thread's chunk: 32 elements at a time with its AVX2 and AVX-512 kernels)
computes add/sub's ``a + alpha * b`` in half precision; ``test_alpha_in_the_scalar_tail``
checks other sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

N = 10240
RANGES = {
    "randn": lambda r: r.standard_normal(N) * 3,
    "unit": lambda r: r.uniform(-1, 1, N),
    "large": lambda r: r.uniform(-6e4, 6e4, N),
    "tiny": lambda r: r.uniform(-1e-4, 1e-4, N),
}
SCALARS = [0.001, 3.3, 0.1, 1e-4, 0.7, 1 / 3, -2.5e-3, 3, 100003]

OPS = {
    "mul": lambda T, x, s: x * s,
    "rmul": lambda T, x, s: s * x,
    "mul_fn": lambda T, x, s: T.mul(x, s),
    "div": lambda T, x, s: x / s,
    "rdiv": lambda T, x, s: s / x,
    "div_floor": lambda T, x, s: T.div(x, s, rounding_mode="floor"),
    "div_trunc": lambda T, x, s: T.div(x, s, rounding_mode="trunc"),
    "floordiv": lambda T, x, s: x // s,
    "add": lambda T, x, s: x + s,
    "sub": lambda T, x, s: x - s,
    "rsub": lambda T, x, s: s - x,
    "add_alpha": lambda T, x, s: T.add(x, s, alpha=2.3),
    "sub_alpha": lambda T, x, s: T.sub(x, s, alpha=0.7),
    "rsub_alpha": lambda T, x, s: T.rsub(x, s, alpha=0.3),
    "add_tensor_alpha": lambda T, x, s: T.add(x, x.flip(0), alpha=_alpha(s)),
    "sub_tensor_alpha": lambda T, x, s: T.sub(x, x.flip(0), alpha=_alpha(s)),
    "remainder": lambda T, x, s: x % s,
    "fmod": lambda T, x, s: T.fmod(x, s),
    "lt": lambda T, x, s: x < s,
    "eq": lambda T, x, s: x == s,
    "ge": lambda T, x, s: x >= s,
    "maximum_0d": lambda T, x, s: T.maximum(x, T.tensor(s)),
    "mul_0d_f32": lambda T, x, s: x * T.tensor(s, dtype=T.float32),
    "div_0d_f64": lambda T, x, s: x / T.tensor(s, dtype=T.float64),
    "add_0d_f32": lambda T, x, s: x + T.tensor(s, dtype=T.float32),
    "mul_": lambda T, x, s: x.clone().mul_(s),
    "imul": lambda T, x, s: _imul(x.clone(), s),
    "div_": lambda T, x, s: x.clone().div_(s),
    "add_alpha_": lambda T, x, s: x.clone().add_(x.flip(0), alpha=_alpha(s)),
    "addcmul": lambda T, x, s: T.addcmul(x, x.flip(0), x.roll(1), value=s),
    "addcdiv": lambda T, x, s: T.addcdiv(x, x.flip(0), x.roll(1), value=s),
    "lerp": lambda T, x, s: T.lerp(x, x.flip(0), s / 1e5 if abs(s) > 1e3 else s),
    "lerp_tensor": lambda T, x, s: T.lerp(x, x.flip(0), (x.roll(1) * 0.01 + s % 1).to(x.dtype)),
    "addcmul_broadcast": lambda T, x, s: T.addcmul(x, x[:1], x.roll(1), value=s),
    "clamp": lambda T, x, s: T.clamp(x, -abs(s) % 1e3, abs(s) % 1e3),
    "tensor_add": lambda T, x, s: x + x.flip(0),
    "tensor_mul": lambda T, x, s: x * x.flip(0),
    "tensor_div": lambda T, x, s: x / x.flip(0),
}


def _alpha(s):
    return s if abs(s) < 6e4 else 1e3  # beyond float16's range alpha raises (tested below)


def _imul(x, s):
    x *= s
    return x


def _bits(t) -> np.ndarray:
    """Bit patterns of a half (or bool) tensor as float32 ones, NaNs all alike."""
    a = t.float().numpy()
    return np.where(np.isnan(a), np.nan, a).astype(np.float32).view(np.int32)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", list(OPS))
def test_half_scalar_matches_pytorch(op, dtype):
    fn, rng, bad = OPS[op], np.random.default_rng(0), []
    for rname, make in RANGES.items():
        src = make(rng).astype(np.float32)
        tx = torch.from_numpy(src).to(getattr(torch, dtype))
        x = taimatsu.from_numpy(src).to(getattr(taimatsu, dtype))
        for s in SCALARS:
            want, got = fn(torch, tx, s), fn(taimatsu, x, s)
            assert str(got.dtype) == str(want.dtype), (rname, s)
            differ = (_bits(want) != _bits(got)).mean()
            if differ:
                bad.append(f"{rname} s={s}: {differ:.2%} differ")
    assert not bad, f"{op} {dtype}: " + "; ".join(bad)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_alpha_beyond_half_range(dtype):
    def run(T):
        x = T.ones(3, dtype=getattr(T, dtype))
        try:
            return T.add(x, x, alpha=1e5)
        except RuntimeError as e:
            return str(e)

    want, got = run(torch), run(taimatsu)
    assert isinstance(got, str) == isinstance(want, str), (got, want)
    if isinstance(want, str):
        assert got == want
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("exponent", [2, 3, -1, -2, 0.5, -0.5, 2.5, 3.0, -2.0, 4])
def test_half_pow_scalar_exponent(dtype, exponent):
    """``x ** e``: bfloat16 rounds after each multiply of x*x*x and 1/(x*x); float16 once."""
    rng, bad = np.random.default_rng(1), []
    for rname, make in RANGES.items():
        src = make(rng).astype(np.float32)
        tx = torch.from_numpy(src).to(getattr(torch, dtype))
        x = taimatsu.from_numpy(src).to(getattr(taimatsu, dtype))
        differ = (_bits(tx**exponent) != _bits(x**exponent)).mean()
        if differ:
            bad.append(f"{rname}: {differ:.2%} differ")
    assert not bad, "; ".join(bad)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 7, 31, 33, 100, 1000, 70001])
def test_alpha_in_the_scalar_tail(dtype, n):
    # the tail past the last 32-element block of each thread's chunk (two chunks past 32768
    # elements with two threads): alpha * b rounded to the half type, then the sum
    threads = torch.get_num_threads(), taimatsu.get_num_threads()
    torch.set_num_threads(2)
    taimatsu.set_num_threads(2)
    try:
        rng = np.random.default_rng(n)
        x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
        for alpha in (1 / 3, -0.7, 0.1):
            for f in (
                lambda T, a, b, alpha=alpha: a.add(b, alpha=alpha),
                lambda T, a, b, alpha=alpha: a.sub(b, alpha=alpha),
                lambda T, a, b, alpha=alpha: a.clone().add_(b, alpha=alpha),
                lambda T, a, b, alpha=alpha: T.add(a, 2.5, alpha=alpha),
                lambda T, a, b, alpha=alpha: T.rsub(a, b, alpha=alpha),
            ):
                mine, theirs = (
                    f(T, T.tensor(x).to(getattr(T, dtype)), T.tensor(y).to(getattr(T, dtype)))
                    .float()
                    .numpy()
                    for T in (taimatsu, torch)
                )
                np.testing.assert_array_equal(mine, theirs)
    finally:
        torch.set_num_threads(threads[0])
        taimatsu.set_num_threads(threads[1])
