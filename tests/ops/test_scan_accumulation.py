"""Cumulative ops carry their running value as PyTorch's CPU kernels do (``acc_type``: double
for float32, float for the half types), each output rounded to the dtype: a float32 running
logaddexp drifts from PyTorch's values within a few terms."""

import pytest

import taimatsu as tm


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_logcumsumexp_values(torch_oracle, dtype):
    def run(lib):
        lib.manual_seed(0)
        dt = getattr(lib, dtype)
        x = lib.randn(1000).to(dt)
        y = lib.randn(30, 40).to(dt)
        special = lib.tensor([float("-inf"), float("-inf"), 1.0, float("inf"), float("nan"), 2.0])
        return [
            lib.tensor([0.0, 1.0, 2.0]).to(dt).logcumsumexp(0).tolist(),
            x.logcumsumexp(0).tolist(),
            y.logcumsumexp(1).tolist(),
            y.logcumsumexp(0).tolist(),
            special.logcumsumexp(0).tolist(),
        ]

    mine, theirs = run(tm), run(torch_oracle)
    if dtype == "float64":  # the C library's exp/log1p against NumPy's: the last bit may differ
        assert mine[0] == pytest.approx(theirs[0], rel=1e-15)
    else:
        assert repr(mine) == repr(theirs)
