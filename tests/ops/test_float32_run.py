"""``float32_math.run``'s one-row fast path (a C-contiguous tensor under one thread chunk) gives
the bits of its general row replay and of PyTorch's sigmoid, scalar tail included; its blocks
(float32 blocks for the marked kernels, the scalar loop's blocks of strided rows) give the bits
of the whole array's computation."""

from __future__ import annotations

import numpy as np
import pytest
import torch as torch_oracle

import taimatsu
from taimatsu.backend import float32_math as fm
from taimatsu.backend.float32_math import activation, atanh, exp, glibc, log1p
from taimatsu.backend.float32_math.primitives import select


def _scalar(b):  # PyTorch's scalar sigmoid loop: glibc's expf
    return np.float32(1) / (np.float32(1) + glibc.expf(-b))


def _bits(a):
    return np.asarray(a, np.float32).view(np.uint32)


@pytest.mark.parametrize("n", [16, 17, 31, 4096, 4099, 12295, 32767])
def test_one_row_matches_the_row_replay(n):
    # A dense channels-last tensor is one row in memory order, but not C-contiguous: it takes
    # the general path, whose bits the contiguous fast path must give in the same memory order.
    rng = np.random.default_rng(n)
    nhwc = (rng.standard_normal((1, 1, n, 3)) * 8).astype(np.float32)
    fast = fm.run(activation.sigmoid, nhwc, scalar=_scalar)
    general = fm.run(activation.sigmoid, nhwc.transpose(0, 3, 1, 2), scalar=_scalar)
    assert not nhwc.transpose(0, 3, 1, 2).flags.c_contiguous
    np.testing.assert_array_equal(_bits(fast.transpose(0, 3, 1, 2)), _bits(general))


@pytest.mark.parametrize("shape", [(32, 128), (32, 100), (7, 9), (3, 4101)])
def test_one_row_sigmoid_matches_pytorch(shape):
    x = (np.random.default_rng(7).standard_normal(shape) * 6).astype(np.float32)
    ours = taimatsu.sigmoid(taimatsu.from_numpy(x)).numpy()
    theirs = torch_oracle.sigmoid(torch_oracle.from_numpy(x)).numpy()
    np.testing.assert_array_equal(_bits(ours), _bits(theirs))


MARKED = [
    (activation.sigmoid, ()),
    (activation.silu, ()),
    (activation.softplus, (1.0, 20.0)),
    (activation.softplus, (2.0, 5.0)),
    (activation.mish, ()),
    (activation.elu, (1.0, 1.0, 1.0)),
    (activation.elu, (1.6732632, 1.050701, 1.0)),  # selu
    (exp.expm1f, ()),
    (exp.sinhf, ()),
    (exp.coshf, ()),
    (log1p.log1pf, ()),
    (atanh.atanhf, ()),
]


@pytest.mark.parametrize(("kernel", "params"), MARKED)
@pytest.mark.parametrize("threads", [1, 2])
def test_float32_blocks_give_the_widened_blocks_bits(kernel, params, threads, monkeypatch):
    # Kernels marked takes_float32 get blockwise's float32 blocks as they are (no float64 copy):
    # their bits must be those of the float64-held blocks every other kernel gets.
    from taimatsu.backend import parallel

    assert kernel.takes_float32
    monkeypatch.setattr(parallel, "_second_core", lambda: threads == 2)
    monkeypatch.setattr(parallel, "MIN_SIZE_BLOCKWISE", 1 << 17)  # the split, at a test's size
    n = (parallel.MIN_SIZE_BLOCKWISE if threads == 2 else 2 * parallel.BLOCK) + 7
    x = (np.random.default_rng(threads).standard_normal(n) * 9).astype(np.float32)
    if kernel is atanh.atanhf:
        x /= 20
    x[:5] = [np.inf, -np.inf, 0.0, -0.0, 1e-40]
    seen = set()

    def watched(b):
        seen.add(b.dtype)
        return kernel(b, *params)

    widened = parallel.blockwise(lambda b: kernel(b, *params), x, np.float32)
    as_is = parallel.blockwise(watched, x, np.float32, widen=False)
    assert seen == {np.dtype(np.float32)}
    np.testing.assert_array_equal(_bits(as_is), _bits(widened))
    np.testing.assert_array_equal(_bits(fm.run(kernel, x, *params)), _bits(widened))


def _mish_loop(b):  # PyTorch's scalar mish loop: glibc's expf, log1pf and tanhf
    return activation.mish_scalar(b)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["strided", "transposed", "tails", "c_order"])
def test_scalar_loop_in_blocks_gives_the_whole_arrays_bits(layout, threads, monkeypatch):
    # Large strided inputs run PyTorch's scalar loop (glibc's functions) over cache-sized blocks
    # of a contiguous copy, on two threads when allowed: the bits and the result's layout must
    # be those of the scalar function called on the whole array at once (c_order: C-contiguous).
    from taimatsu.backend import parallel

    monkeypatch.setattr(parallel, "_second_core", lambda: threads == 2)
    monkeypatch.setattr(parallel, "MIN_SIZE_BLOCKWISE", 1 << 17)  # the split, at a test's size
    rng = np.random.default_rng(threads)
    base = (rng.standard_normal(2 * parallel.MIN_SIZE_BLOCKWISE + 96) * 9).astype(np.float32)
    base[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40]
    c_order = layout == "c_order"
    x = {
        "strided": base[::2],
        "transposed": base[: 64 * 4096].reshape(64, 4096)[:, ::2].T,
        "tails": base[: 512 * 500].reshape(512, 500)[:, :499],  # 512 rows of 480 + 19 scalar
        "c_order": base[: 64 * 2048].reshape(64, 2048).T,
    }[layout]
    got = fm.run(activation.mish, x, scalar=_mish_loop, c_order=c_order)
    with np.errstate(over="ignore"):
        whole = np.asarray(_mish_loop(x), np.float32)
    if layout == "tails":  # the vector part aside, the 19 tail elements of each row
        np.testing.assert_array_equal(_bits(got[:, 480:]), _bits(whole[:, 480:]))
        return
    np.testing.assert_array_equal(_bits(got), _bits(whole))
    want = np.empty(x.shape, np.float32) if c_order else np.empty_like(whole)
    assert got.strides == want.strides


def test_select_gives_np_where_bits():
    rng = np.random.default_rng(3)
    a, b = (rng.integers(0, 2**32, 1000, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    a, b = a.view(np.float32), b.view(np.float32)
    mask = rng.random(1000) > 0.5
    cases = [(a, b), (np.float32(np.inf), b), (a, np.float32(-0.0)), (np.float32(1), np.float32(2))]
    cases += [(a.view(np.int32), b.view(np.int32)), (a, 0), (1, 2), (a.astype(np.float64), b)]
    for x, y in cases:
        want, got = np.where(mask, x, y), select(mask, x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert select(np.bool_(True), np.float32(1), np.float32(2)).shape == ()
