"""cumsum/cumprod, var/std/var_mean/std_mean and vector norms give PyTorch's CPU bits
(``ops/reduction/scans.py``, ``backend/float32_math/moments.py``, ``ops/reduction/norms.py``).

Shapes put the reduced dim first, last and in the middle, long and short, in contiguous,
transposed and strided layouts, at 1 and 2 threads (PyTorch's one-result variance splits its
sum over threads). Values have a mean away from 0, where a variance is most sensitive to how
the mean is rounded. float64 variances are compared where taimatsu replays PyTorch's order
(one result, few reduced elements or many outputs); elsewhere they are close, not equal.
"""

import numpy as np
import pytest

import taimatsu as tm

_SHAPES = ((3, 300), (300, 3), (7, 5, 33), (50,), (1, 4097))
_LONG = (2, 20000)  # one result from 32768+ elements: split over threads


def _array(shape, seed, mean=5.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 3 + mean).astype(np.float32)


def _views(a):
    yield a
    if a.ndim > 1:
        yield a.swapaxes(0, -1)
        yield a[..., ::2]


def _bits(t):
    """A tensor's values as integers (the same bits compare equal, NaNs included)."""
    a = t.detach().contiguous().numpy() if hasattr(t, "numpy") else np.asarray(t)
    if a.dtype.kind == "c":
        a = np.stack([a.real, a.imag])
    return a.view(f"u{a.dtype.itemsize}")


def _same_half(ours, theirs, torch) -> bool:
    """float16/bfloat16 results with the same bits, NaNs with any sign (ml_dtypes' conversion
    to bfloat16 drops a NaN's sign, PyTorch's keeps it)."""
    nan = ours.float().isnan().numpy()
    if not np.array_equal(nan, theirs.float().isnan().numpy()):
        return False
    o, t = ours.contiguous().view(tm.int16).numpy(), theirs.contiguous().view(torch.int16).numpy()
    return np.array_equal(o[~nan], t[~nan])


def _compare(torch, make, fns, dtypes, threads=(1,)):
    """Differences (as descriptions) between taimatsu and PyTorch over ``make()``'s arrays."""
    bad = []
    before = torch.get_num_threads(), tm.get_num_threads()
    try:
        for n in threads:
            torch.set_num_threads(n)
            tm.set_num_threads(n)
            for a in make():
                for v in _views(a):
                    for dt in dtypes:
                        ours = tm.from_numpy(v).to(getattr(tm, dt))
                        theirs = torch.from_numpy(v).to(getattr(torch, dt))
                        if dt.startswith("complex"):
                            ours, theirs = ours * (1 + 0.3j), theirs * (1 + 0.3j)
                        for name, f in fns(v.ndim):
                            o, t = f(tm, ours), f(torch, theirs)
                            o = o if isinstance(o, tuple) else (o,)
                            t = t if isinstance(t, tuple) else (t,)
                            for x, y in zip(o, t, strict=True):
                                if dt in ("float16", "bfloat16"):
                                    same = _same_half(x, y, torch)
                                else:
                                    same = np.array_equal(_bits(x), _bits(y))
                                if not same or x.shape != tuple(y.shape):
                                    bad.append((n, v.shape, v.strides, dt, name))
    finally:
        torch.set_num_threads(before[0])
        tm.set_num_threads(before[1])
    return bad


def _scan_fns(nd):
    for d in range(-1, nd):
        yield f"cumsum({d})", lambda T, x, d=d: T.cumsum(x, d)
        yield f"cumprod({d})", lambda T, x, d=d: T.cumprod(x * 0.01 + 1, d)


def test_scans_match_oracle(torch_oracle):
    dtypes = ("float32", "float64", "float16", "bfloat16", "complex64")
    make = lambda: [_array(s, i, 0.0) for i, s in enumerate(_SHAPES[:4])]
    assert _compare(torch_oracle, make, _scan_fns, dtypes) == []


def _moment_fns(nd):
    dims = [None, *range(nd)] + ([(0, 2)] if nd == 3 else [])
    for d in dims:
        args = () if d is None else (d,)
        for f in ("var", "std", "var_mean", "std_mean"):
            yield f"{f}{args}", lambda T, x, f=f, a=args: getattr(T, f)(x, *a)
        if d is not None:
            yield (
                f"std{args} keepdim c0",
                lambda T, x, a=args: T.std(x, *a, keepdim=True, correction=0),
            )


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "complex64"])
def test_moments_match_oracle(torch_oracle, dtype):
    fns = _moment_fns
    if dtype == "complex64":  # PyTorch's float32 sqrt is not correctly rounded on every CPU
        fns = lambda nd: ((n, f) for n, f in _moment_fns(nd) if "std" not in n)
    make = lambda: [_array(s, i) for i, s in enumerate(_SHAPES)]
    assert _compare(torch_oracle, make, fns, (dtype,), threads=(1, 2)) == []


def test_float64_moments_match_oracle_where_replayed(torch_oracle):
    """One result (any layout, 1 and 2 threads), few reduced elements, many outputs."""
    a, b, c = _array((3, 1200), 1), _array((7, 5, 33), 2), _array(40000, 3)
    cases = [(v, None) for x in (a, b, c) for v in _views(x)]
    e = _array((2, 3, 600), 4)
    cases += [(a, 0), (a[:, ::2], 0), (a.T, 1), (b, 0), (b[..., ::2], 0), (c, 0)]
    cases += [(e, (0, 1)), (e.transpose(1, 2, 0), (0, 2)), (_array((3000, 2), 5), 1)]
    before = torch_oracle.get_num_threads(), tm.get_num_threads()
    try:
        for n in (1, 2):
            torch_oracle.set_num_threads(n)
            tm.set_num_threads(n)
            for v, d in cases:
                args = () if d is None else (d,)
                ours, theirs = tm.from_numpy(v).double(), torch_oracle.from_numpy(v).double()
                for f in ("var", "std") + (
                    ("var_mean", "std_mean") if d is not None and v.ndim > 1 else ()
                ):
                    o, t = getattr(tm, f)(ours, *args), getattr(torch_oracle, f)(theirs, *args)
                    for x, y in zip(*(r if isinstance(r, tuple) else (r,) for r in (o, t))):
                        assert np.array_equal(_bits(x), _bits(y)), (n, v.shape, d, f)
    finally:
        torch_oracle.set_num_threads(before[0])
        tm.set_num_threads(before[1])


def test_mean_ties_replay_welford(torch_oracle):
    """A mean of a few float32 values is often a float32 tie: PyTorch rounds Welford's double
    mean, which may sit on either side of it."""
    a = _array((7, 5, 33), 1)
    ours, theirs = (
        tm.var_mean(tm.from_numpy(a), 0),
        torch_oracle.var_mean(torch_oracle.from_numpy(a), 0),
    )
    assert np.array_equal(_bits(ours[1]), _bits(theirs[1]))
    exact = a.astype(np.float64).mean(0).astype(np.float32)
    assert not np.array_equal(exact, theirs[1].numpy())  # the data has such a tie
    # columns of a few half-integers: exact means of 0 that Welford leaves at ~1e-17
    b = (np.random.default_rng(7).integers(-3, 4, (7, 400)) * 0.5).astype(np.float32)
    for v, d in ((b, 0), (b.T.copy(), 1)):
        ours, theirs = (
            tm.var_mean(tm.from_numpy(v), d),
            torch_oracle.var_mean(torch_oracle.from_numpy(v), d),
        )
        for x, y in zip(ours, theirs, strict=True):
            assert np.array_equal(_bits(x), _bits(y))


def _norm_fns(nd):
    dims = [None, *range(nd)] + ([(0, 2), (1, 2)] if nd == 3 else [])
    for d in dims:
        for p in (1, 2):
            yield f"vector_norm({p}, {d})", lambda T, x, p=p, d=d: T.linalg.vector_norm(x, p, d)
        yield f"norm({d}) keepdim", lambda T, x, d=d: T.norm(x, dim=d, keepdim=d is not None)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_norms_match_oracle(torch_oracle, dtype):
    """Lengths around the kernel's 8-float (4-double) vectors and its tails of 4+."""
    shapes = [(3, 300), (300, 3), (7, 5, 33), (13,), (5,), (64, 100), (300, 17, 5)]
    shapes += [_LONG] if dtype == "float32" else []
    make = lambda: [_array(s, i, 0.0) for i, s in enumerate(shapes)]
    assert _compare(torch_oracle, make, _norm_fns, (dtype,), threads=(1, 2)) == []


def test_norm_kernel_tails_match_oracle(torch_oracle):
    """Rows of every length up to three vectors: the lanes, the 4-wide tail pass, the FMAs."""
    for dtype in (np.float32, np.float64):
        for n in range(1, 25):
            a = _array((64, n), n, 0.0).astype(dtype)
            theirs = torch_oracle.linalg.vector_norm(torch_oracle.from_numpy(a), dim=1)
            assert np.array_equal(
                _bits(tm.linalg.vector_norm(tm.from_numpy(a), dim=1)), _bits(theirs)
            )


def _prod_fns(nd):
    for d in [None, *range(nd)]:
        args = () if d is None else (d, d == 0)
        yield f"prod{args}", lambda T, x, a=args: T.prod(x * 0.01 + 1, *a)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_prod_matches_oracle(torch_oracle, dtype):
    """The kernel's 4 x 8-float (4 x 4-double, 4 x 16-half) running products, their fold and
    the tail."""
    shapes = [(3, 300), (300, 3), (7, 5, 33), (13,), (64, 100), (300, 17, 5)]
    shapes += [_LONG] if dtype == "float32" else []
    make = lambda: [_array(s, i, 0.0) for i, s in enumerate(shapes)]
    assert _compare(torch_oracle, make, _prod_fns, (dtype,), threads=(1, 2)) == []


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsumexp_is_pytorchs_composition(torch_oracle, dtype):
    """logsumexp is ATen's composition (amax, exp of the difference, sum, log, + max) of ops that
    give PyTorch's bits but for MKL's exp/log (correctly rounded here): the same bits as those
    ops, and PyTorch's in all but a few outputs."""
    for i, (shape, d) in enumerate([((3, 1000), 1), ((7, 5, 33), (0, 2)), ((40000,), 0)]):
        a = _array(shape, i, 0.0).astype(dtype)
        x = tm.from_numpy(a)
        m = x.amax(d, keepdim=True)
        composed = ((x - m).exp().sum(d, keepdim=True).log() + m).squeeze(d)
        ours = tm.logsumexp(x, d)
        assert np.array_equal(_bits(ours), _bits(composed))
        theirs = torch_oracle.logsumexp(torch_oracle.from_numpy(a), d)
        assert np.count_nonzero(_bits(ours) != _bits(theirs)) <= max(1, ours.numel() // 100)
