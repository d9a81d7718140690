"""torch.linspace bit for bit: PyTorch's x86 kernel fills from both ends with fused multiply-adds
(float32/float64), rounds every operation in the half types, and takes complex endpoints part by
part; the values of NumPy's linspace, or of an unfused product, differ in the last bit."""

import math

import numpy as np
import pytest

import taimatsu

DTYPES = ["float64", "float32", "float16", "bfloat16", "complex64", "complex128", None]


def _cases():
    rng = np.random.default_rng(0)
    for k in range(120):
        a, b = rng.standard_normal(2) * 10 * rng.choice([1, 1e-3, 1e3])
        dtype = DTYPES[k % len(DTYPES)]
        if dtype in ("complex64", "complex128") or (dtype is None and k % 2):
            a, b = complex(a, rng.standard_normal()), complex(b, -3 * rng.standard_normal())
        yield a, b, int(rng.integers(0, 80)), dtype


@pytest.mark.parametrize("start,end,steps,dtype", list(_cases()))
def test_linspace_bits(torch_oracle, start, end, steps, dtype):
    out = []
    for T in (torch_oracle, taimatsu):
        t = T.linspace(start, end, steps, dtype=getattr(T, dtype) if dtype else None)
        out.append(
            (str(t.dtype).split(".")[-1], t.float().numpy() if dtype == "bfloat16" else t.numpy())
        )
    assert out[1][0] == out[0][0]
    np.testing.assert_array_equal(out[1][1], out[0][1])


@pytest.mark.parametrize(
    "start,end,steps,dtype",
    [(3j, -math.inf, 7, None), (math.inf * 1j, 3, 4, None), (0, math.inf, 5, None), (1j, 2, 4, "float32"),
     (1j, 2, 4, "int64"), (-math.inf, math.inf, 4, "float16")],
)  # fmt: skip
def test_linspace_edges(torch_oracle, start, end, steps, dtype):
    out = []
    for T in (torch_oracle, taimatsu):
        try:
            t = T.linspace(start, end, steps, dtype=getattr(T, dtype) if dtype else None)
            out.append((str(t.dtype).split(".")[-1], t.tolist()))
        except RuntimeError as e:
            out.append(str(e))
    assert str(out[1]) == str(out[0])
