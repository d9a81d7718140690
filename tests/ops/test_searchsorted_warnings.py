"""searchsorted/bucketize say when PyTorch's kernel copies a non-contiguous operand (values,
boundaries, sorter): the same UserWarning text, on the caller's line."""

import warnings

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


def _calls(lib):
    v = lib.tensor([[0.5, 1.5], [2.5, 3.5]]).t()
    return [
        lambda: lib.searchsorted(lib.arange(4.0), v),
        lambda: lib.searchsorted(lib.arange(8.0)[::2], lib.tensor([1.0])),
        lambda: lib.searchsorted(
            lib.tensor([5.0, 1.0, 3.0]), lib.tensor([2.0]), sorter=lib.tensor([1, 9, 2, 9, 0])[::2]
        ),
        lambda: lib.bucketize(v, lib.arange(4.0)),
        lambda: lib.bucketize(lib.tensor([1.0]), lib.arange(8.0)[::2]),
        lambda: lib.searchsorted(lib.arange(8.0)[::2], 2.5),
        lambda: lib.searchsorted(lib.arange(4.0), v.contiguous()),
    ]


def _warnings(lib):
    out = []
    lib.set_warn_always(True)  # TORCH_WARN_ONCE warns each time then
    try:
        for call in _calls(lib):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                res = call()
            out.append((res.tolist(), [(str(x.message), x.filename, x.lineno) for x in w]))
    finally:
        lib.set_warn_always(False)
    return out


def test_non_contiguous_operands_warn_as_pytorch():
    assert _warnings(tm) == _warnings(torch)
