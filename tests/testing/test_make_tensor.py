"""torch.testing.make_tensor against PyTorch: the same values after the same seed for every
dtype family and option, the same stream afterwards, and PyTorch's errors and warning."""

import warnings

import pytest

import taimatsu as tm

CASES = [
    {"dtype": "float32"}, {"dtype": "int64"}, {"dtype": "uint8"}, {"dtype": "bool"}, {"dtype": "complex64"},
    {"dtype": "float32", "low": 0.5, "high": 1.5}, {"dtype": "int32", "low": -2.5, "high": 3.5},
    {"dtype": "float64", "noncontiguous": True}, {"dtype": "int8", "exclude_zero": True},
    {"dtype": "float16", "exclude_zero": True, "low": 0, "high": 0.001}, {"dtype": "float32", "memory_format": "channels_last"},
    {"dtype": "float32", "low": 2, "high": 1}, {"dtype": "int64", "low": float("nan")}, {"dtype": "uint8", "low": 300, "high": 400},
    {"dtype": "int64", "requires_grad": True}, {"dtype": "float32", "noncontiguous": True, "memory_format": "channels_last"},
    {"dtype": "float32", "low": 1, "high": 1}, {"dtype": "float32", "requires_grad": True}, {"dtype": "bfloat16"},
    {"dtype": "float32", "low": -3e38, "high": 3e38}, {"dtype": "int16", "high": 5},
]  # fmt: skip


def _run(lib, case):
    kw = dict(case)
    kw["dtype"] = getattr(lib, kw["dtype"])
    if "memory_format" in kw:
        kw["memory_format"] = getattr(lib, kw["memory_format"])
    shape = (2, 2, 2, 2) if "memory_format" in kw else (2, 3)
    lib.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            t = lib.testing.make_tensor(shape, device="cpu", **kw)
        except ValueError as e:
            return ("ValueError", str(e))
    return (repr(t), t.stride(), lib.rand(1).item(), [str(w.message) for w in caught])


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_make_tensor(torch_oracle, case):
    assert _run(tm, case) == _run(torch_oracle, case)


def test_shapes(torch_oracle):
    for lib in (tm, torch_oracle):
        mk = lib.testing.make_tensor
        assert mk((), dtype=lib.float32, device="cpu").shape == ()
        assert mk(0, dtype=lib.float32, device="cpu").shape == (0,)
        assert mk(2, 3, dtype=lib.float32, device="cpu").shape == (2, 3)
