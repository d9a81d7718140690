"""Shared helpers for tests/nn/test_nn_module_hooks_state.py and tests/nn/test_nn_utils_norms_prune.py: run one scenario
with each library and compare what it returns, made plain by ``_plain`` (tensors become values with a
dtype compared within float32 round-off, exceptions their type name and message)."""

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn

BOTH = [(tnn, tm), (onn, torch)]


def _plain(x):
    if isinstance(x, (tm.Tensor, torch.Tensor)):
        return _Values(x.detach().numpy(), str(x.dtype).split(".")[-1])
    if isinstance(x, BaseException):
        return (type(x).__name__, str(x))
    if isinstance(x, (tm.dtype, torch.dtype)):
        return str(x)
    if isinstance(x, (tm.Size, torch.Size)):
        return ("Size", tuple(x))
    if isinstance(x, dict):
        return [(k, _plain(v)) for k, v in x.items()]
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [_plain(v) for v in x]
    return x


class _Values:
    """A tensor's values for ``==``: same shape and dtype, equal within float32 round-off."""

    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype

    def __eq__(self, other):
        if not isinstance(other, _Values):
            return False
        a, b = self.array, other.array
        if (a.shape, self.dtype) != (b.shape, other.dtype):
            return False
        return (
            bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
            if a.dtype.kind in "fc"
            else (a == b).all()
        )

    def __repr__(self):
        return f"tensor{self.array.shape}[{self.dtype}]{self.array.ravel()[:6].tolist()}"


def _same(run):
    """``run(nn, lib)`` gives the same plain result with both libraries."""
    assert _plain(run(tnn, tm)) == _plain(run(onn, torch))


def _catch(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return e
