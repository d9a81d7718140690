"""``x ** e`` for a Python scalar ``e`` rounds like PyTorch's CPU kernel, bit for bit.

PyTorch multiplies out the exponents 2 and 3 (``x * x * x``), divides for -1 and -2
(``1 / (x * x)``) and takes ``1 / sqrt(x)`` for -0.5, rounding after each step; other exponents
call pow. NumPy's float64 ``power`` rounds once, which differed in the last bit for about one
element in four at 3, -2 and -0.5. (float32 and half exponents: test_float32_rounding.py and
test_half_scalar.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("exponent", [2, 3, -1, -2, -0.5, 3.0, -2.0])
def test_float64_scalar_exponent_rounds_per_step(exponent):
    src = np.abs(np.random.default_rng(3).standard_normal(4096)) * 3 + 1e-3
    want = (torch.from_numpy(src) ** exponent).numpy()
    got = (taimatsu.from_numpy(src) ** exponent).numpy()
    assert np.array_equal(want.view(np.int64), got.view(np.int64))
