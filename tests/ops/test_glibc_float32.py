"""``backend.float32_math.glibc`` replays the C library's float functions bit for bit.

PyTorch's scalar loops (strided rows, row tails) call glibc's ``expf``, ``expm1f``, ``log1pf``,
``tanhf``, ``sinhf``, ``coshf``, ``atanhf``, ``asinhf``, ``acoshf``, ``atan2f``, ``powf``: the
replays are compared with libm itself (through ctypes, one call per element) on random float32 bit patterns, several ranges and edge
values (zeros, subnormals, infinities, NaN, branch thresholds and their neighbours).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

import numpy as np
import pytest

from taimatsu.backend.float32_math import glibc

_LIBM = ctypes.util.find_library("m")
pytestmark = pytest.mark.skipif(
    _LIBM is None or not hasattr(os, "confstr") or not os.confstr("CS_GNU_LIBC_VERSION"),
    reason="needs glibc's libm",
)

EDGES = [0.0, 1e-45, 1e-40, 1.1754944e-38, 2.0**-55, 2.0**-29, 2.0**-28, 2.0**-25, 1e-7, 0.25]
EDGES += [0.3465736, 0.41421, 0.41422, 0.2929, 0.4375, 0.6875, 1.0, 1.0397, 1.1875, 1.5, 2.4375]
EDGES += [18.714973, 22.0, 88.0, 88.72168, 88.7228, 89.4159, 89.5, 103.97, 104.0, 2.0**25]
EDGES += [2.0**60, 1e38, 3.4028235e38, np.inf, np.nan]


def _inputs(seed, n=6000):
    rng = np.random.default_rng(seed)
    edges = np.float32(EDGES)
    edges = np.concatenate([edges, np.nextafter(edges, np.float32(np.inf))])
    edges = np.concatenate([edges, np.nextafter(edges, np.float32(0))])
    parts = [
        rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32),
        rng.uniform(-1, 1, n),
        rng.uniform(-10, 10, n),
        rng.uniform(-100, 100, n),
        np.exp(rng.uniform(-40, 5, n)) * rng.choice([-1.0, 1.0], n),
        edges,
    ]
    x = np.concatenate([np.asarray(p, np.float32) for p in parts])
    return np.concatenate([x, -x])


def _libm(name, *args):
    fn = getattr(ctypes.CDLL(_LIBM), name)
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float] * len(args)
    return np.array([fn(*map(float, v)) for v in zip(*args, strict=True)], np.float32)


def _same(want, got):
    want, got = np.asarray(want, np.float32), np.asarray(got, np.float32)
    return (want.view(np.int32) == got.view(np.int32)) | (np.isnan(want) & np.isnan(got))


UNARY = ["expf", "expm1f", "log1pf", "tanhf", "sinhf", "coshf", "atanhf", "asinhf", "acoshf"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_bit_identical_to_libm(name):
    x = _inputs(len(name))
    same = _same(_libm(name, x), getattr(glibc, name)(x))
    assert same.all(), list(zip(x[~same][:10], _libm(name, x[~same][:10])))


def test_atan2f_bit_identical_to_libm():
    x = _inputs(1)
    y = np.roll(x, 5)
    edges = np.float32(EDGES + [-e for e in EDGES])
    y = np.concatenate([y, np.repeat(edges, edges.size)])
    x = np.concatenate([x, np.tile(edges, edges.size)])
    same = _same(_libm("atan2f", y, x), glibc.atan2f(y, x))
    assert same.all(), list(zip(y[~same][:10], x[~same][:10]))


def test_powf_bit_identical_to_libm():
    rng = np.random.default_rng(2)
    n = 8000
    x = np.concatenate([_inputs(3, 3000), rng.uniform(0, 3, n), np.exp(rng.uniform(-80, 80, n))])
    y = np.concatenate([np.roll(_inputs(4, 3000), 3), rng.uniform(-30, 30, n), rng.normal(0, 1, n)])
    edges = np.float32(EDGES + [-e for e in EDGES] + [3.0, -3.0, 0.5, -0.5, 2.0**24 + 2])
    y = np.concatenate([y, np.repeat(edges, edges.size)]).astype(np.float32)
    x = np.concatenate([x, np.tile(edges, edges.size)]).astype(np.float32)
    same = _same(_libm("powf", x, y), glibc.powf(x, y))
    assert same.all(), list(zip(x[~same][:10], y[~same][:10]))


def test_zero_dim_and_scalars():
    for name in UNARY:
        r = np.asarray(getattr(glibc, name)(np.array(0.75, np.float32)))
        assert r.shape == () and r.dtype == np.float32
        assert _same(_libm(name, [0.75]), r.reshape(1)).all()
