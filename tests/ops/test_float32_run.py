"""``float32_math.run``'s one-row fast path (a C-contiguous tensor under one thread chunk) gives
the bits of its general row replay and of PyTorch's sigmoid, scalar tail included."""

from __future__ import annotations

import numpy as np
import pytest
import torch as torch_oracle

import taimatsu
from taimatsu.backend import float32_math as fm
from taimatsu.backend.float32_math import activation, glibc


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


@pytest.mark.parametrize("kernel", [activation.sigmoid, activation.silu])
@pytest.mark.parametrize("threads", [1, 2])
def test_float32_blocks_give_the_widened_blocks_bits(kernel, threads, monkeypatch):
    # Kernels marked takes_float32 get blockwise's float32 blocks as they are (no float64 copy):
    # their bits must be those of the float64-held blocks every other kernel gets.
    from taimatsu.backend import parallel

    assert kernel.takes_float32
    monkeypatch.setattr(parallel, "_second_core", lambda: threads == 2)
    n = (parallel.MIN_SIZE_BLOCKWISE if threads == 2 else 2 * parallel.BLOCK) + 7
    x = (np.random.default_rng(threads).standard_normal(n) * 9).astype(np.float32)
    x[:5] = [np.inf, -np.inf, 0.0, -0.0, 1e-40]
    seen = set()

    def watched(b):
        seen.add(b.dtype)
        return kernel(b)

    widened = parallel.blockwise(kernel, x, np.float32)
    as_is = parallel.blockwise(watched, x, np.float32, widen=False)
    assert seen == {np.dtype(np.float32)}
    np.testing.assert_array_equal(_bits(as_is), _bits(widened))
    np.testing.assert_array_equal(_bits(fm.run(kernel, x)), _bits(widened))
