"""PyTorch's exception types and texts for mistakes common in tensor code (tutorials, NumPy
users' code), and the warning for casting complex values to real."""

import warnings

import numpy as np
import pytest
from oracle_expr import same

import taimatsu

CALLS = [
    "T.arange(5, 0)", "T.randperm(-1)", "T.normal(T.zeros(2, 2), T.ones(4))",
    "T.tensor([True, False]) - True", "True - T.tensor([True, False])", "T.tensor([True, False]).sub(True)",
    "T.rsub(T.tensor([True, False]), True)", "T.tensor([1, 2]) - True",
    "T.zeros(0, 3).view(-1, 0)", "T.zeros(0, 3).reshape(0, -1)", "T.zeros(0, 3).view(2, -1, 0)", "T.zeros(0, 3).view(-1)",
    "T.where(T.tensor([True]), T.zeros(2), T.zeros(3))", "T.where(T.tensor([True]), T.zeros(2, 3), T.zeros(3, 4))",
    "T.zeros(2, 3).masked_fill(T.ones(3, 1).bool(), 0)",
    "T.tensor([1j]).type()", "T.tensor([1j], dtype=T.complex128).type()", "T.tensor([1 + 2j]).type('torch.ComplexDoubleTensor')",
    "f'{T.tensor([1.5, 2.5]):.2f}'", "f'{T.tensor([1.5, 2.5])}'", "f'{T.tensor(1.5):.2f}'",
    "T.from_numpy(np.float64(3.5))", "T.from_numpy(3.5)", "T.tensor(np.array([1, 2], dtype='>i4'))",
    "T.as_tensor(np.array([1, 2], dtype='>i4'))",
    # a uint8 mask of the wrong shape: the shape's IndexError before masked_fill_'s dtype error
    "x = T.zeros(3); x[T.tensor([0, 1], dtype=T.uint8)] = 5.0",
    "x = T.zeros(3); x[T.tensor([0, 1, 1], dtype=T.uint8)] = 5.0",
    # `in`: whether any element equals it (Python's row-by-row fallback raised for 2-D tensors)
    "2 in T.tensor([[1, 2], [3, 4]])", "5 in T.tensor([[1, 2], [3, 4]])", "T.tensor([1, 2]) in T.tensor([[1, 2], [3, 4]])",
    "T.tensor([1, 2]) in T.tensor([3.0, 1.0, 2.0])", "'a' in T.tensor([1, 2])", "None in T.tensor([1, 2])", "2.0 in T.tensor([2.0])",
]  # fmt: skip


# writes whose source shares some of the destination's memory: PyTorch refuses them (NumPy's
# buffered answer came out); the same elements (x.add_(x)), interleaved strides and a scalar pass
OVERLAPS = [
    "x = T.arange(5); x[1:] = x[:-1]; x", "x = T.arange(5); x[1:].copy_(x[:-1]); x", "x = T.arange(5); x[:-1] = x[1:]; x",
    "x = T.arange(5.0); x[1:] += x[:-1]; x", "x = T.arange(4.0).reshape(2, 2); x.copy_(x.t()); x",
    "x = T.ones(2, 3); x.add_(x[0]); x", "x = T.arange(6.0); x[::2].copy_(x[1::2]); x", "x = T.arange(4.0); x.add_(x); x",
    "x = T.arange(4.0); x.copy_(x); x", "x = T.arange(6.0); x[:3] = x[3:]; x", "x = T.arange(4.0).reshape(2, 2); x.mul_(x.t()); x",
    "x = T.arange(5.0); x[1:] = x[:-1] * 1; x", "x = T.arange(5.0); y = x[1:]; y.sub_(x[:-1]); x",
    "x = T.arange(6.0); x[1:4] = x[0]; x", "x = T.arange(5.0, requires_grad=True).clone(); x[1:] = x[:-1]; x",
]  # fmt: skip


@pytest.mark.parametrize("call", OVERLAPS)
def test_partial_overlap(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


# a Python number written into a tensor: c10's checked conversion (a negative int wraps into an
# unsigned type if its magnitude fits; NaN/inf/out-of-range into an int, a complex into a real
# type and a finite float past float32's range raise; one element of a half type takes inf)
SCALAR_WRITES = [
    f"x = T.zeros(3, dtype=T.{dt}); x[0] = {v}; x" for dt, v in (
        ("uint8", -1), ("uint8", -129), ("uint8", -300), ("uint8", 256), ("int8", 128), ("int32", 1e10),
        ("int32", 2**31), ("int32", 3.7), ("int64", "float('nan')"), ("int64", "float('inf')"), ("float32", "1 + 2j"),
        ("float32", 1e300), ("float32", "float('inf')"), ("float16", 1e5), ("int64", 1e30), ("bool", 2),
        ("uint8", 2.5), ("uint8", -1.5), ("int8", 300.0),
    )
] + [
    f"T.zeros(3, dtype=T.{dt}).masked_fill_(T.tensor([True, False, True]), {v})" for dt, v in (
        ("float32", "1 + 2j"), ("int64", 1e30), ("uint8", 300), ("uint8", -1), ("int32", 2**31), ("float16", 1e5),
        ("float32", 1e300), ("int64", "float('nan')"),
    )
] + ["x = T.zeros(3, dtype=T.float16); x[0:2] = 1e5; x"]  # fmt: skip


@pytest.mark.parametrize("call", SCALAR_WRITES)
def test_scalar_writes(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


# NumPy's keyword names, which PyTorch's parser takes as aliases (methods and functions)
NUMPY_KEYWORDS = [
    "p.sum(axis=0, keepdims=True)", "T.sum(p, axis=1)", "p.max(axis=0)", "T.cat([p, p], axis=1)", "p.sum(0, keepdims=True)",
    "T.sum(x=p)", "p.unsqueeze(axis=0)", "p.squeeze(axis=0)", "p.softmax(axis=0)", "T.stack([p, p], axis=1)",
    "p.argmax(axis=0)", "p.std(axis=0)", "T.cumsum(p, axis=0)", "T.mean(p, dim=0, keepdims=True)", "T.max(p, axis=1)",
    "p.all(axis=0)", "p.var(axis=0, keepdims=True)",
]  # fmt: skip


@pytest.mark.parametrize("call", NUMPY_KEYWORDS)
def test_numpy_keywords(torch_oracle, call):
    same(f"p = T.tensor([[1.0, 2.0], [3.0, 4.0]]); {call}", torch_oracle, taimatsu)


@pytest.mark.parametrize("call", CALLS)
def test_error_texts(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


def test_complex_to_real_warns_once_per_process(torch_oracle):
    import taimatsu._flags as flags

    flags._warned_once.discard("complex_to_real")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = taimatsu.tensor([1 + 2j])
        x.float()
        x.to(taimatsu.float64)
        taimatsu.zeros(2).copy_(taimatsu.tensor([1j, 2j]))
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1 and texts[0].startswith(
        "Casting complex values to real discards the imaginary part (Triggered internally at"
    )
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert x.float().tolist() == [1.0] == torch_oracle.tensor([1 + 2j]).float().tolist()
    assert np.iscomplexobj(x.numpy())
