"""taimatsu.backend.random: PyTorch's CPU generator, bit for bit, against PyTorch.

Oracle tests seed PyTorch and taimatsu alike and compare the raw bytes of the results and of the
generator state afterwards (so the stream consumption matches too). The tests that need no torch
are in test_random_backend_math.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from random_backend_helpers import BF16, FLOATS, INTS, CPUGenerator, assert_same


@pytest.fixture
def torch(torch_oracle):
    return torch_oracle


def tdtype(torch, dtype):
    return getattr(torch, np.dtype(dtype).name)  # numpy and torch share these names


def to_numpy(t) -> np.ndarray:
    if str(t.dtype) == "torch.bfloat16":
        return t.view(dtype=__import__("torch").int16).numpy().view(BF16)
    return t.numpy()


def from_numpy(torch, a: np.ndarray):
    if a.dtype == BF16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def check(torch, seed, run_torch, run_mine, *args) -> None:
    """Seed both sides alike; compare the results, then the generator states."""
    torch.manual_seed(seed)
    gen = CPUGenerator(seed)
    assert_same(run_mine(gen, *args), to_numpy(run_torch(*args)))
    assert_same(gen.get_state(), torch.get_rng_state().numpy())


def errors_alike(torch, run_torch, run_mine, *args) -> None:
    with pytest.raises(Exception) as theirs:
        run_torch(*args)
    with pytest.raises(type(theirs.value)) as mine:
        run_mine(CPUGenerator(0), *args)
    assert str(mine.value) == str(theirs.value)


def check_or_errors_alike(torch, run_torch, run_mine, *args) -> None:
    """Values when PyTorch accepts the arguments, else the same exception and message."""
    try:
        torch.manual_seed(0)
        run_torch(*args)
    except (RuntimeError, NotImplementedError, ValueError):
        errors_alike(torch, run_torch, run_mine, *args)
    else:
        check(torch, 0, run_torch, run_mine, *args)


SIZES = [*range(1, 41), 100, 1000, 1023, 4097, 5000]


# ------------------------------------------------------------------------------------ oracle


@pytest.mark.oracle
def test_randn_after_manual_seed_0(torch):
    gen = CPUGenerator().manual_seed(0)
    out = gen.normal(3, np.float32)
    assert np.array_equal(np.round(out, 4), np.array([1.5410, -0.2934, -2.1788], np.float32))
    torch.manual_seed(0)
    assert_same(out, torch.randn(3).numpy())


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("mean, std", [(0.0, 1.0), (0.3, 2.7), (-1.5, 0.01)])
def test_normal(torch, dtype, mean, std):
    """Both paths: the scalar Box-Muller (< 16 elements) and blocks of 16, with its tail."""
    td = tdtype(torch, dtype)
    for n in SIZES:
        for seed in (0, 12345):
            check(
                torch,
                seed,
                lambda n: torch.empty(n, dtype=td).normal_(mean, std),
                lambda g, n: g.normal(n, dtype, mean, std),
                n,
            )


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (4, 5), (3, 1, 7), (2, 8), (33, 31)], ids=str)
def test_randn_shapes(torch, dtype, shape):
    td = tdtype(torch, dtype)
    check(torch, 7, lambda: torch.randn(shape, dtype=td), lambda g: g.normal(shape, dtype))


@pytest.mark.oracle
def test_normal_large(torch):
    check(torch, 3, lambda: torch.randn(300_001), lambda g: g.normal(300_001, np.float32))
    check(
        torch,
        4,
        lambda: torch.randn(100_003, dtype=torch.float64),
        lambda g: g.normal(100_003, np.float64),
    )


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize(
    "low, high", [(0.0, 1.0), (-3.3, 7.1), (0.1, 0.7), (-1000.0, 2.5), (6e4, 6e4 + 1)]
)
def test_uniform(torch, dtype, low, high):
    """Includes ranges where x * (to - from) + from rounds up to `to` (PyTorch returns `from`)."""
    td = tdtype(torch, dtype)
    for n in [1, 2, 3, 17, 1000, 5000]:
        for seed in (0, 99):
            check(
                torch,
                seed,
                lambda n: torch.empty(n, dtype=td).uniform_(low, high),
                lambda g, n: g.uniform(n, dtype, low, high),
                n,
            )


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
@pytest.mark.parametrize("n", [1, 5, 8, 9, 100])
def test_complex(torch, dtype, n):
    td = tdtype(torch, dtype)
    check(torch, 1, lambda: torch.randn(n, dtype=td), lambda g: g.normal(n, dtype))
    check(torch, 2, lambda: torch.rand(n, dtype=td), lambda g: g.uniform(n, dtype))
    check(
        torch,
        3,
        lambda: torch.empty(n, dtype=td).normal_(0.5, 3.0),
        lambda g: g.normal(n, dtype, 0.5, 3.0),
    )


RANGES = [
    (None, None),
    (None, 10),
    (0, 5),
    (-3, 3),
    (5, None),
    (100, 70000),
    (0, 65504),
    (-300, 300),
    (0, 2**28 - 1),
    (0, 2**28),
    (0, 2**31),
    (0, 2**33),
    (-(2**40), 2**40),
    (-(2**63), None),
    (-(2**63), 2**63 - 1),
]


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore:(from|to - 1) is out of bounds")
@pytest.mark.parametrize("dtype", [*FLOATS, *INTS, np.dtype(bool)], ids=str)
@pytest.mark.parametrize("low, high", RANGES, ids=str)
def test_random_(torch, dtype, low, high):
    td = tdtype(torch, dtype)

    def run_torch(n):
        t = torch.empty(n, dtype=td)
        if low is None and high is None:
            return t.random_()
        return t.random_(high) if low is None else t.random_(low, high)

    for n in [1, 7, 1000]:
        check_or_errors_alike(torch, run_torch, lambda g, n: g.random(n, dtype, low, high), n)


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
@pytest.mark.parametrize("low, high", [(None, None), (0, 5), (0, 2**16), (3, None), (0, 2**31)])
def test_random_unsigned(torch, dtype, low, high):
    td = tdtype(torch, dtype)

    def run_torch():
        t = torch.empty(50, dtype=td)
        return t.random_() if low is None else t.random_(low, high)

    check_or_errors_alike(torch, run_torch, lambda g: g.random(50, dtype, low, high))


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore:to - 1 is out of bounds")
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.float32, np.float64], ids=str)
@pytest.mark.parametrize("low, high, shape", [(0, 10, (5,)), (-7, 20, (3, 4)), (0, 2**30, (99,))])
def test_randint(torch, dtype, low, high, shape):
    td = tdtype(torch, dtype)
    check_or_errors_alike(
        torch,
        lambda: torch.randint(low, high, shape, dtype=td),
        lambda g: g.randint(low, high, shape, dtype),
    )


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [*FLOATS, *INTS], ids=str)
def test_randperm(torch, dtype):
    td = tdtype(torch, dtype)
    for n in [*range(40), 100, 257, 1000, 2049, 4999, 5000]:
        if (dtype.name == "float16" and n > 2049) or (dtype.name in ("int8", "uint8") and n > 128):
            continue
        for seed in (0, 3):
            check(
                torch,
                seed,
                lambda n: torch.randperm(n, dtype=td),
                lambda g, n: g.randperm(n, dtype),
                n,
            )


@pytest.mark.oracle
def test_randperm_large(torch):
    check(torch, 1, lambda: torch.randperm(200_003), lambda g: g.randperm(200_003))


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [*FLOATS, np.dtype(np.int64), np.dtype(bool)], ids=str)
@pytest.mark.parametrize("n", [1, 3, 100, 1001])
def test_bernoulli(torch, dtype, n):
    """A float p draws doubles; a float64 p tensor doubles; any other p tensor floats."""
    td = tdtype(torch, dtype)
    check(
        torch,
        0,
        lambda: torch.empty(n, dtype=td).bernoulli_(0.37),
        lambda g: g.bernoulli(0.37, n, dtype),
    )
    for p_dtype in FLOATS:
        p = np.linspace(0, 1, n).astype(np.float32).astype(p_dtype)
        check(
            torch,
            1,
            lambda p: torch.empty(n, dtype=td).bernoulli_(from_numpy(torch, p)),
            lambda g, p: g.bernoulli(p, n, dtype),
            p,
        )


@pytest.mark.oracle
def test_bernoulli_broadcast_and_function(torch):
    p = np.array([0.1, 0.5, 0.9], np.float32)
    check(
        torch,
        2,
        lambda: torch.empty(50, 3).bernoulli_(torch.from_numpy(p)),
        lambda g: g.bernoulli(p, (50, 3), np.float32),
    )
    full = np.full((4, 5), 0.4, np.float64)
    check(
        torch,
        3,
        lambda: torch.bernoulli(torch.from_numpy(full)),
        lambda g: g.bernoulli(full, full.shape, full.dtype),
    )


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("n", [1, 2, 3, 16, 17, 1001])
def test_exponential_geometric_cauchy_log_normal(torch, dtype, n):
    td = tdtype(torch, dtype)
    check(
        torch,
        0,
        lambda: torch.empty(n, dtype=td).exponential_(0.7),
        lambda g: g.exponential(n, dtype, 0.7),
    )
    for p in [0.3, 0.01, 0.77, 1e-6]:
        check(
            torch,
            1,
            lambda p: torch.empty(n, dtype=td).geometric_(p),
            lambda g, p: g.geometric(n, dtype, p),
            p,
        )
    check(
        torch,
        2,
        lambda: torch.empty(n, dtype=td).cauchy_(0.3, 2.7),
        lambda g: g.cauchy(n, dtype, 0.3, 2.7),
    )
    check(
        torch,
        3,
        lambda: torch.empty(n, dtype=td).log_normal_(0.3, 0.7),
        lambda g: g.log_normal(n, dtype, 0.3, 0.7),
    )
    check(
        torch, 4, lambda: torch.empty(n, dtype=td).log_normal_(), lambda g: g.log_normal(n, dtype)
    )


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", INTS, ids=str)
def test_geometric_integers(torch, dtype):
    td = tdtype(torch, dtype)
    check(
        torch,
        0,
        lambda: torch.empty(500, dtype=td).geometric_(0.2),
        lambda g: g.geometric(500, dtype, 0.2),
    )


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", [(5,), (3, 7), (1, 100), (4, 1), (20, 33), (2, 700)], ids=str)
def test_multinomial(torch, dtype, shape):
    probs = np.random.default_rng(0).random(shape).astype(np.float32).astype(dtype)
    n = shape[-1]
    for k, replacement in [(1, False), (1, True), (n, False), (max(1, n // 2), False), (10, True)]:
        check(
            torch,
            k,
            lambda k, r: torch.multinomial(from_numpy(torch, probs), k, r),
            lambda g, k, r: g.multinomial(probs, k, r),
            k,
            replacement,
        )


@pytest.mark.oracle
@pytest.mark.parametrize("trial", range(120))
def test_multinomial_ties(torch, trial):
    """Equal keys (zero probabilities, coarse half/bfloat16 values) follow torch.topk's order."""
    rng = np.random.default_rng(trial)
    n = int(rng.choice([3, 10, 64, 65, 200, 1000, 3000]))
    kind = trial % 3
    probs = [(rng.random(n) < 0.3) * rng.random(n), rng.integers(0, 3, n) + 0.0, np.ones(n)][kind]
    probs[0] = max(probs[0], 1.0)
    probs = probs.astype(np.float32).astype(FLOATS[trial % 4])
    k = int(rng.choice([2, max(1, n // 64), max(1, n // 2), n]))
    check(
        torch,
        trial,
        lambda: torch.multinomial(from_numpy(torch, probs), k),
        lambda g: g.multinomial(probs, k),
    )


POISSON_RATES = {
    "small": np.linspace(0.0, 9.99, 97),  # Knuth's product of uniforms (and 0: no draw)
    "ptrs": np.linspace(10.0, 700.0, 93),  # Hormann's transformed rejection, two draws a try
    "mixed_2d": np.array([[0.5, 10.0, 3.0], [1e5, 0.0, 9.999]]),
}


@pytest.mark.oracle
@pytest.mark.parametrize("rates", POISSON_RATES, ids=str)
def test_poisson(torch, rates):
    """torch.poisson's numbers, and the stream left where PyTorch leaves it."""
    lam = POISSON_RATES[rates]
    check(torch, 4, lambda: torch.poisson(torch.from_numpy(lam)), lambda g: g.poisson(lam))


_RNG = np.random.default_rng(8)
BINOMIAL_CASES = {
    # inversion (count * p < 10), BTRS (>= 10), p > 0.5 through 1 - p, and the edges
    "mixed": (np.floor(_RNG.uniform(0, 200, 150)), _RNG.uniform(0, 1, 150)),
    "edges": (
        np.array([0.0, -3.0, 7.0, 5.0, 1e6, 123456.0]),
        np.array([0.5, 0.5, 1.0, 0.0, 0.4, 0.77]),
    ),
    "2d_high_p": (np.full((3, 4), 30.0), np.full((3, 4), 0.7)),
}


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("case", BINOMIAL_CASES, ids=str)
def test_binomial(torch, case, dtype):
    """torch.binomial's numbers (float32 rounds its own steps) and the stream after it."""
    n, p = (a.astype(dtype) for a in BINOMIAL_CASES[case])
    check(
        torch, 5,
        lambda: torch.binomial(torch.from_numpy(n), torch.from_numpy(p)),
        lambda g: g.binomial(n, p),
    )  # fmt: skip


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_poisson_op(torch, dtype):
    """The op: every floating dtype computes in double; the gradient is zero (PoissonBackward0)."""
    import taimatsu

    lam = [0.0, 2.5, 12.0, 40.0, 7.0]
    out = []
    for lib in (torch, taimatsu):
        lib.manual_seed(2)
        x = lib.tensor(lam, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.poisson(x * 1)
        y.sum().backward()
        out.append((y.float().tolist(), y.grad_fn.name(), x.grad.tolist(), lib.rand(2).tolist()))
    assert out[0] == out[1]


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_consecutive_calls_share_the_stream(torch, seed):
    """Mixed calls after one seed, including the cached second sample of the scalar normal."""

    def run_torch():
        parts = [
            torch.rand(5),
            torch.randn(3),
            torch.randint(0, 10, (4,)).float(),
            torch.randn(3, dtype=torch.float64).float(),
            torch.empty(2).log_normal_(),
            torch.randn(20),
            torch.randperm(10).float(),
            torch.empty(3).normal_(1, 2),
            torch.rand(7, dtype=torch.float64).float(),
            torch.empty(5).exponential_(),
        ]
        return torch.cat(parts)

    def run_mine(g):
        parts = [
            g.uniform(5, np.float32),
            g.normal(3, np.float32),
            g.randint(0, 10, 4).astype(np.float32),
            g.normal(3, np.float64).astype(np.float32),
            g.log_normal(2, np.float32),
            g.normal(20, np.float32),
            g.randperm(10).astype(np.float32),
            g.normal(3, np.float32, 1, 2),
            g.uniform(7, np.float64).astype(np.float32),
            g.exponential(5, np.float32),
        ]
        return np.concatenate(parts)

    check(torch, seed, run_torch, run_mine)


@pytest.mark.oracle
def test_state_interchange(torch):
    torch.manual_seed(3)
    torch.randn(3)  # leaves a cached double normal sample
    torch.rand(5, dtype=torch.float64)
    state = torch.get_rng_state()
    gen = CPUGenerator()
    gen.set_state(state.numpy())
    assert_same(gen.get_state(), state.numpy())
    assert_same(gen.normal(7, np.float64), torch.randn(7, dtype=torch.float64).numpy())

    gen = CPUGenerator(11)
    gen.normal(3, np.float32)
    gen.uniform(700, np.float32)
    torch.set_rng_state(torch.from_numpy(gen.get_state()))
    assert_same(gen.normal(9, np.float32), torch.randn(9).numpy())


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1, -1, -5, 2**32 + 7, 2**63, 2**64 - 1])
def test_seeds(torch, seed):
    torch.manual_seed(seed)
    gen = CPUGenerator(seed)
    assert gen.initial_seed() == torch.initial_seed()
    assert_same(gen.get_state(), torch.get_rng_state().numpy())
    check(torch, seed, lambda: torch.randn(30), lambda g: g.normal(30, np.float32))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1, 1.5, True])
def test_seed_errors(torch, seed):
    errors_alike(torch, lambda: torch.Generator().manual_seed(seed), lambda g: g.manual_seed(seed))
    assert CPUGenerator().initial_seed() == torch.Generator().initial_seed()


ERROR_CASES = [
    ("E(3).uniform_(2, 1)", "g.uniform(3, np.float32, 2, 1)"),
    ("E(3, dtype=torch.float16).uniform_(0, 1e6)", "g.uniform(3, np.float16, 0, 1e6)"),
    ("E(3).uniform_(-3e38, 3e38)", "g.uniform(3, np.float32, -3e38, 3e38)"),
    ("E(3, dtype=torch.int64).uniform_()", "g.uniform(3, np.int64)"),
    ("E(3).normal_(0, -1.5)", "g.normal(3, np.float32, 0, -1.5)"),
    ("E(3).random_(5, 5)", "g.random(3, np.float32, 5, 5)"),
    ("E(3, dtype=torch.int8).random_(0, 300)", "g.random(3, np.int8, 0, 300)"),
    ("E(3, dtype=torch.uint8).random_(-1, 5)", "g.random(3, np.uint8, -1, 5)"),
    ("E(3, dtype=torch.float16).random_(0, 70000)", "g.random(3, np.float16, 0, 70000)"),
    ("E(3, dtype=torch.int32).random_(-(2**63), None)", "g.random(3, np.int32, -(2**63), None)"),
    ("E(3, dtype=torch.float16).random_(-(2**63), None)", "g.random(3, np.float16, -(2**63))"),
    ("E(3).exponential_(-1)", "g.exponential(3, np.float32, -1)"),
    ("E(3, dtype=torch.int64).exponential_(1)", "g.exponential(3, np.int64, 1)"),
    ("E(3).geometric_(1)", "g.geometric(3, np.float32, 1)"),
    ("E(3).cauchy_(0, 0)", "g.cauchy(3, np.float32, 0, 0)"),
    ("E(3, dtype=torch.int64).cauchy_(0, 1)", "g.cauchy(3, np.int64, 0, 1)"),
    ("E(3).log_normal_(0, 0)", "g.log_normal(3, np.float32, 0, 0)"),
    ("E(3, dtype=torch.int64).log_normal_(0, 1)", "g.log_normal(3, np.int64, 0, 1)"),
    ("E(3).bernoulli_(1.5)", "g.bernoulli(1.5, 3, np.float32)"),
    (
        "E(3).bernoulli_(torch.tensor([0.5, 2.0, 0.1]))",
        "g.bernoulli(np.array([0.5, 2.0, 0.1], np.float32), 3, np.float32)",
    ),
    ("torch.randperm(3000, dtype=torch.float16)", "g.randperm(3000, np.float16)"),
    ("torch.randperm(300, dtype=torch.int8)", "g.randperm(300, np.int8)"),
    ("torch.randperm(-1)", "g.randperm(-1)"),
    ("torch.randperm(5, dtype=torch.bool)", "g.randperm(5, bool)"),
    (
        "torch.multinomial(torch.ones(2, 2, 2), 1)",
        "g.multinomial(np.ones((2, 2, 2), np.float32), 1)",
    ),
    ("torch.multinomial(torch.tensor([1, 2]), 1)", "g.multinomial(np.array([1, 2]), 1)"),
    ("torch.poisson(torch.tensor([1.0, -0.5]))", "g.poisson(np.array([1.0, -0.5]))"),
    ("torch.poisson(torch.tensor([float('nan')]))", "g.poisson(np.array([np.nan]))"),
]
MULTINOMIAL_ERRORS = [
    ([0.5, -1.0], 1, False),
    ([0.0, 0.0], 1, False),
    ([0.0, 0.0], 2, True),
    ([0.3, 0.7], 3, False),
    ([0.3, 0.7], 0, False),
    ([0.3, float("inf")], 2, True),
    ([0.3, float("nan")], 2, True),
    ([0.3, float("inf")], 1, True),
    ([0.2, 0.3], 1, False),  # fine
]


@pytest.mark.oracle
@pytest.mark.parametrize("theirs, mine", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_error_messages(torch, theirs, mine):
    scope = {"torch": torch, "np": np, "E": torch.empty}
    errors_alike(torch, lambda: eval(theirs, scope), lambda g: eval(mine, {**scope, "g": g}))


@pytest.mark.oracle
@pytest.mark.parametrize("probs, k, replacement", MULTINOMIAL_ERRORS, ids=str)
def test_multinomial_errors(torch, probs, k, replacement):
    p = np.array(probs, np.float32)
    check_or_errors_alike(
        torch,
        lambda: torch.multinomial(torch.from_numpy(p), k, replacement),
        lambda g: g.multinomial(p, k, replacement),
    )


@pytest.mark.oracle
def test_random_warns_like_torch(torch):
    with pytest.warns(UserWarning) as theirs:
        torch.empty(3).random_(0, 2**25)
    with pytest.warns(UserWarning) as mine:
        CPUGenerator(0).random(3, np.float32, 0, 2**25)
    assert str(mine[0].message) == str(theirs[0].message).split(" (Triggered internally")[0]


# ------------------------------------------------------------------- independence from NumPy's SIMD

# NumPy picks SIMD kernels for its float64 log/exp/sin/... from the CPU's features; on AVX-512
# machines they differ from the C library (which PyTorch calls) in the last bit. To catch a
# sampler that uses them on any CPU, these tests swap NumPy's functions for ones that are one ulp
# off everywhere: the samplers must not notice.
_TRANSCENDENTAL = ["log", "log1p", "log2", "log10", "exp", "expm1", "exp2", "sin", "cos", "tan"]


def _one_ulp_off(fn):
    def perturbed(*args, **kwargs):
        out = fn(*args, **kwargs)
        return np.nextafter(out, np.inf, out=out if isinstance(out, np.ndarray) else None)

    return perturbed


@pytest.fixture
def numpy_one_ulp_off(monkeypatch):
    for name in _TRANSCENDENTAL:
        monkeypatch.setattr(np, name, _one_ulp_off(getattr(np, name)))


def test_perturbation_is_visible(numpy_one_ulp_off):
    x = np.array([0.5, 2.0])
    assert (np.log(x) != np.array([-0.6931471805599453, 0.6931471805599453])).all()


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=str)
@pytest.mark.parametrize("n", [3, 1001])
def test_samplers_do_not_use_numpy_transcendentals(torch, numpy_one_ulp_off, dtype, n):
    td = tdtype(torch, dtype)
    samplers = [
        (lambda: torch.randn(n, dtype=td), lambda g: g.normal(n, dtype)),
        (
            lambda: torch.empty(n, dtype=td).exponential_(0.7),
            lambda g: g.exponential(n, dtype, 0.7),
        ),
        (lambda: torch.empty(n, dtype=td).geometric_(0.3), lambda g: g.geometric(n, dtype, 0.3)),
        (
            lambda: torch.empty(n, dtype=td).cauchy_(0.3, 2.7),
            lambda g: g.cauchy(n, dtype, 0.3, 2.7),
        ),
        (lambda: torch.empty(n, dtype=td).log_normal_(), lambda g: g.log_normal(n, dtype)),
    ]
    for seed, (theirs, mine) in enumerate(samplers):
        check(torch, seed, theirs, mine)
    p = np.linspace(0.1, 1.0, 7)
    check(
        torch, 9, lambda: torch.multinomial(torch.from_numpy(p), 4), lambda g: g.multinomial(p, 4)
    )
