"""NaN, infinities and signed zeros through the ops that test or order values, in every floating
dtype, against PyTorch: bit for bit (NaN as NaN, the sign of a zero included), indices too.

bfloat16 arrays are ml_dtypes' type, NumPy kind "V" rather than "f": kernels that asked
``dtype.kind == "f"`` took its NaNs and infinities for numbers (isnan all False, floor a copy,
median skipping NaN, cummax/topk/kthvalue with other indices). The shrink and threshold
activations turned NaN into 0 in every dtype; torch.unique merged NaNs (each NaN is its own
value in PyTorch); float16 GELU took oneDNN's float32 path (NaN at inf) where PyTorch runs ATen's.
"""

import math

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

nan, inf = math.nan, math.inf
VALUES = [3.25, nan, 1.5, -2.75, nan, 1.5, -inf, 5.0, inf, -0.0, 0.5, -1.5, 0.0, 100.0, -0.25, 2.0]
DTYPES = ["float32", "float64", "float16", "bfloat16"]

# fmt: off
CASES = {
    "isnan": lambda T, x: T.isnan(x), "isinf": lambda T, x: T.isinf(x),
    "isfinite": lambda T, x: T.isfinite(x), "isposinf": lambda T, x: T.isposinf(x),
    "isneginf": lambda T, x: T.isneginf(x), "signbit": lambda T, x: T.signbit(x),
    "round": lambda T, x: T.round(x), "floor": lambda T, x: T.floor(x), "ceil": lambda T, x: T.ceil(x),
    "trunc": lambda T, x: T.trunc(x), "frac": lambda T, x: T.frac(x), "sign": lambda T, x: T.sign(x),
    "sgn": lambda T, x: T.sgn(x), "copysign": lambda T, x: T.copysign(T.ones_like(x), x),
    "nextafter": lambda T, x: T.nextafter(x, T.zeros_like(x)), "erfinv": lambda T, x: T.erfinv(x),
    "lgamma_special": lambda T, x: T.lgamma(x[[1, 6, 8, 9, 12]]),
    "mvlgamma_special": lambda T, x: T.mvlgamma(x[[1, 6, 8]], 2),
    "rad2deg": lambda T, x: T.rad2deg(x), "deg2rad": lambda T, x: T.deg2rad(x),
    "hardshrink": lambda T, x: T.nn.functional.hardshrink(x),
    # (no negative inside the band: PyTorch's float64 kernel gives +0 there in its vector
    # loop, -0 in its scalar tail, which depends on the CPU's vector width)
    "softshrink": lambda T, x: T.nn.functional.softshrink(x[[0, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 15]]),
    "threshold": lambda T, x: T.nn.functional.threshold(x, 1.0, -7.0),
    "gelu": lambda T, x: T.nn.functional.gelu(x),  # float16: ATen's kernel, gelu(inf) = inf
    "gelu_tanh": lambda T, x: T.nn.functional.gelu(x, approximate="tanh"),
    "hardtanh": lambda T, x: T.nn.functional.hardtanh(x), "clamp": lambda T, x: T.clamp(x, -1, 2),
    "max_pool1d": lambda T, x: T.nn.functional.max_pool1d(x.view(1, 1, -1), 3, return_indices=True),
    "max_pool2d": lambda T, x: T.nn.functional.max_pool2d(x.view(1, 1, 4, 4), 2, return_indices=True),
    "median": lambda T, x: T.median(x), "median_dim": lambda T, x: T.median(x.view(4, 4), 1),
    "nanmedian": lambda T, x: T.nanmedian(x.view(4, 4), 1),
    "sort": lambda T, x: T.sort(x), "sort_desc": lambda T, x: T.sort(x, descending=True),
    "sort_stable": lambda T, x: T.sort(x, stable=True), "argsort": lambda T, x: T.argsort(x),
    "topk": lambda T, x: T.topk(x, 4), "topk_smallest": lambda T, x: T.topk(x, 4, largest=False),
    "kthvalue": lambda T, x: T.kthvalue(x, 4), "kthvalue_nan": lambda T, x: T.kthvalue(x, 15),
    "cummax": lambda T, x: T.cummax(x, 0), "cummin": lambda T, x: T.cummin(x, 0),
    "max_dim": lambda T, x: T.max(x.view(4, 4), 1), "min_dim": lambda T, x: T.min(x.view(4, 4), 0),
    "argmax": lambda T, x: T.argmax(x), "aminmax": lambda T, x: T.aminmax(x),
    "unique": lambda T, x: T.unique(x, return_inverse=True, return_counts=True),
    "unique_consecutive": lambda T, x: T.unique_consecutive(x.sort().values, return_counts=True),
    "nan_to_num": lambda T, x: T.nan_to_num(x), "nansum": lambda T, x: T.nansum(x),
    "fmax": lambda T, x: T.fmax(x, x.flip(0)), "maximum": lambda T, x: T.maximum(x, x.flip(0)),
    "div_trunc": lambda T, x: T.div(x, x.flip(0), rounding_mode="trunc"),
    "div_floor": lambda T, x: T.div(x, x.flip(0), rounding_mode="floor"),
    "isin": lambda T, x: T.isin(x, x[:3]), "isclose": lambda T, x: T.isclose(x, x, equal_nan=True),
    "bucketize": lambda T, x: T.bucketize(x, T.tensor([0.0, 1.0, 2.0], dtype=x.dtype)),
    # every pair of the values: PyTorch's boundary cases in its order (P(nan, inf) = 1, ...)
    "igamma": lambda T, x: T.igamma(x.repeat(16), x.repeat_interleave(16)),
    "igammac": lambda T, x: T.igammac(x.repeat(16), x.repeat_interleave(16)),
    # given edges: float16 and bfloat16 too (evenly spaced ones: float32/float64 only)
    "histogram_edges": lambda T, x: T.histogram(x, T.tensor([-3.0, 0.0, 1.0, 4.0], dtype=x.dtype)),
}
# fmt: on


# SciPy's values between the boundary cases, not PyTorch's Cephes port step by step
INEXACT = {"igamma", "igammac"}


def _flat(r):
    """Every tensor of a result as (dtype name, shape, value bits), in order."""
    if isinstance(r, (tuple, list)):
        return [item for part in r for item in _flat(part)]
    a = np.asarray(r.float().numpy() if r.dtype.is_floating_point else r.numpy())
    if a.dtype.kind == "f":
        # NaN's payload aside, the exact value: NaN as a marker, zeros with their sign
        a = [("nan" if math.isnan(v) else (v, math.copysign(1, v))) for v in a.ravel().tolist()]
    else:
        a = a.ravel().tolist()
    return [(str(r.dtype).split(".")[-1], tuple(r.shape), a)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_special_values_match_pytorch(name, dtype):
    f = CASES[name]
    theirs = f(torch, torch.tensor(VALUES, dtype=getattr(torch, dtype)))
    mine = f(tm, tm.tensor(VALUES, dtype=getattr(tm, dtype)))
    if name in INEXACT:  # NaN where PyTorch's is, the rest within a few float32 ulps
        ours, ref = mine.float().numpy(), theirs.float().numpy()
        assert mine.dtype == getattr(tm, dtype) and theirs.dtype == getattr(torch, dtype)
        # (1e-37: PyTorch's float32 result underflows to 0 where SciPy's is ~1e-43)
        rtol = {"float64": 1e-13, "float32": 2e-6, "float16": 1e-3, "bfloat16": 8e-3}[dtype]
        np.testing.assert_allclose(ours, ref, rtol=rtol, atol=1e-37, equal_nan=True)
        return
    assert _flat(mine) == _flat(theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("name", ["hardshrink", "softshrink", "threshold"])
def test_shrink_gradients_pass_nan_through(name, dtype):
    # PyTorch's backward: 0 inside the band (x <= threshold), the incoming gradient elsewhere,
    # NaN inputs included
    def grad(T):
        x = T.tensor([nan, -0.3, 0.2, 0.7, -2.0, inf], dtype=getattr(T, dtype), requires_grad=True)
        g = T.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=x.dtype)
        F = T.nn.functional
        y = {"hardshrink": F.hardshrink, "softshrink": F.softshrink}.get(name)
        y = y(x) if y else F.threshold(x, 0.5, 0.0)
        y.backward(g)
        return x.grad

    assert _flat(grad(tm)) == _flat(grad(torch))
