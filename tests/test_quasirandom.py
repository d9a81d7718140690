"""torch.quasirandom.SobolEngine against PyTorch: the points are compared bit for bit (Joe and
Kuo's direction numbers, Gray-code order, and for scrambled engines the same randint draws from
the seeded or global generator), across draw/draw_base2/fast_forward/reset sequences, dtypes,
out=, reprs and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")


def _engines(*args, **kwargs):
    return T.quasirandom.SobolEngine(*args, **kwargs), torch.quasirandom.SobolEngine(
        *args, **kwargs
    )


def _dt(M, name):
    return None if name is None else getattr(M, name)


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if theirs.dtype == torch.bfloat16:  # NumPy has no bfloat16: compare the exact float32 values
        ours, theirs = ours.float(), theirs.float()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dimension", [1, 2, 3, 7, 40, 1111])
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_unscrambled_points_are_pytorchs(dimension, dtype):
    ours, theirs = _engines(dimension)
    _same(ours.draw(700, dtype=_dt(T, dtype)), theirs.draw(700, dtype=_dt(torch, dtype)))
    assert ours.num_generated == theirs.num_generated == 700


def test_the_largest_dimension():
    ours, theirs = _engines(21201)
    _same(ours.draw(40), theirs.draw(40))
    np.testing.assert_array_equal(ours.sobolstate.numpy(), theirs.sobolstate.numpy())


def test_first_points_of_the_documented_example():
    got = T.quasirandom.SobolEngine(dimension=5).draw(3)
    want = [[0.0] * 5, [0.5] * 5, [0.75, 0.25, 0.25, 0.25, 0.75]]
    np.testing.assert_array_equal(got.numpy(), np.array(want, np.float32))


# a script of calls run on both engines; each draw's points and num_generated must agree
_SCRIPT = [
    ("draw", 1), ("draw", 5), ("ff", 10), ("draw", 3), ("reset",), ("ff", 1), ("draw", 4),
    ("draw", 0), ("reset",), ("ff", 0), ("draw", 2), ("base2", 1), ("base2", 2), ("ff", 100),
    ("draw", 33), ("reset",), ("base2", 5), ("base2", 5), ("ff", 1000), ("draw", 7),
]  # fmt: skip


def _run(engine, M):
    out = []
    for step in _SCRIPT:
        if step[0] == "draw":
            out.append(engine.draw(step[1]))
        elif step[0] == "base2":
            out.append(engine.draw_base2(step[1]))
        elif step[0] == "ff":
            assert engine.fast_forward(step[1]) is engine
        else:
            assert engine.reset() is engine
        out.append(engine.num_generated)
    return out


@pytest.mark.parametrize(
    "kwargs",
    [{"dimension": 3}, {"dimension": 6, "scramble": True, "seed": 0},
     {"dimension": 25, "scramble": True, "seed": 12345}],
)  # fmt: skip
def test_call_sequences(kwargs):
    ours, theirs = _engines(**kwargs)
    for a, b in zip(_run(ours, T), _run(theirs, torch), strict=True):
        if isinstance(a, int):
            assert a == b
        else:
            _same(a, b)


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 3])
@pytest.mark.parametrize("dimension", [1, 2, 50])
def test_scrambled_points_are_pytorchs(seed, dimension):
    ours, theirs = _engines(dimension, scramble=True, seed=seed)
    np.testing.assert_array_equal(ours.sobolstate.numpy(), theirs.sobolstate.numpy())
    np.testing.assert_array_equal(ours.shift.numpy(), theirs.shift.numpy())
    for n, dt in [(1, "float64"), (6, "float32"), (40, "float64"), (300, None)]:
        _same(ours.draw(n, dtype=_dt(T, dt)), theirs.draw(n, dtype=_dt(torch, dt)))


def test_scrambled_first_point_as_float64_is_rounded_to_float32_as_pytorchs():
    ours, theirs = _engines(4, scramble=True, seed=3)
    a, b = ours.draw(3, dtype=T.float64), theirs.draw(3, dtype=torch.float64)
    _same(a, b)
    assert a[0].numpy().tolist() == a[0].float().double().numpy().tolist()


def test_scrambled_without_seed_draws_from_the_global_generator():
    T.manual_seed(11)
    torch.manual_seed(11)
    ours, theirs = _engines(5, scramble=True)
    _same(ours.draw(20), theirs.draw(20))
    _same(T.rand(3), torch.rand(3))  # both streams moved on by the same draws
    assert repr(ours) == repr(theirs) == "SobolEngine(dimension=5, scramble=True)"


def test_the_seed_decides_the_scramble():
    a = T.quasirandom.SobolEngine(8, scramble=True, seed=5).draw(64)
    b = T.quasirandom.SobolEngine(8, scramble=True, seed=5).draw(64)
    c = T.quasirandom.SobolEngine(8, scramble=True, seed=6).draw(64)
    assert T.equal(a, b) and not T.equal(a, c)
    # each of 2**6 points lies in its own interval [k/64, (k+1)/64) in every dimension
    cells = np.sort(np.floor(a.double().numpy() * 64), axis=0)
    np.testing.assert_array_equal(cells, np.repeat(np.arange(64.0)[:, None], 8, axis=1))


def test_default_dtype_is_read_at_draw_time():
    ours, theirs = _engines(3)
    T.set_default_dtype(T.float64)
    torch.set_default_dtype(torch.float64)
    try:
        _same(ours.draw(4), theirs.draw(4))
    finally:
        T.set_default_dtype(T.float32)
        torch.set_default_dtype(torch.float32)


def test_out():
    ours, theirs = _engines(3)
    o, t = T.empty(0), torch.empty(0)
    assert ours.draw(5, out=o) is o
    theirs.draw(5, out=t)
    _same(o, t)
    o, t = T.zeros(2, 2, dtype=T.float64), torch.zeros(2, 2, dtype=torch.float64)
    ours.reset()
    theirs.reset()
    assert ours.draw_base2(3, out=o) is o
    theirs.draw_base2(3, out=t)
    _same(o, t)


def test_attributes_and_repr():
    ours, theirs = _engines(4, seed=9)
    for name in ("dimension", "scramble", "seed", "num_generated", "MAXBIT", "MAXDIM"):
        assert getattr(ours, name) == getattr(theirs, name)
    assert repr(ours) == repr(theirs) == "SobolEngine(dimension=4, seed=9)"
    assert (
        repr(T.quasirandom.SobolEngine(2, True, 1))
        == "SobolEngine(dimension=2, scramble=True, seed=1)"
    )
    assert repr(T.quasirandom.SobolEngine(2)) == "SobolEngine(dimension=2)"


def _raises(fn_ours, fn_theirs):
    with pytest.raises(Exception) as theirs:
        fn_theirs()
    with pytest.raises(type(theirs.value)) as ours:
        fn_ours()
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("dimension", [0, -3, 21202])
def test_bad_dimension(dimension):
    _raises(
        lambda: T.quasirandom.SobolEngine(dimension),
        lambda: torch.quasirandom.SobolEngine(dimension),
    )


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "int32", "bool", "complex64"])
def test_dtypes_the_kernel_refuses(dtype):
    ours, theirs = _engines(3)
    # the first point alone is a conversion, not the kernel: any dtype
    _same(ours.draw(1, dtype=_dt(T, dtype)), theirs.draw(1, dtype=_dt(torch, dtype)))
    _raises(
        lambda: ours.draw(2, dtype=_dt(T, dtype)), lambda: theirs.draw(2, dtype=_dt(torch, dtype))
    )
    assert ours.num_generated == theirs.num_generated == 1


@pytest.mark.parametrize("drawn", [0, 1])
@pytest.mark.parametrize("n", [0, -1])
def test_empty_and_negative_counts(drawn, n):
    """draw(0) on a fresh engine asks the kernel for -1 points, as PyTorch's does."""
    ours, theirs = _engines(3)
    if drawn:
        ours.draw(drawn)
        theirs.draw(drawn)
    if n == 0 and drawn == 1:
        _same(ours.draw(n), theirs.draw(n))
    else:
        _raises(lambda: ours.draw(n), lambda: theirs.draw(n))
    assert ours.num_generated == theirs.num_generated


@pytest.mark.parametrize("drawn, m", [(0, 3), (1, 0), (3, 2), (4, 1), (4, 3)])
def test_draw_base2_balance(drawn, m):
    ours, theirs = _engines(2)
    if drawn:
        ours.draw(drawn)
        theirs.draw(drawn)
    total = drawn + 2**m
    if total & (total - 1):
        _raises(lambda: ours.draw_base2(m), lambda: theirs.draw_base2(m))
    else:
        _same(ours.draw_base2(m), theirs.draw_base2(m))
    assert ours.num_generated == theirs.num_generated


def test_module_surface():
    assert T.quasirandom.SobolEngine.__module__ == "taimatsu.quasirandom"
    assert T.quasirandom.__all__ == ["SobolEngine"]
