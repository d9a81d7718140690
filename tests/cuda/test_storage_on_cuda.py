"""Tensor.storage() and the torch.cuda legacy storage classes on a CUDA device (the CuPy double).

PyTorch's CPU wheel (the oracle) has no CUDA, so the expectations are written out: PyTorch's
behaviour on a GPU, as its sources define it (the same TypedStorage code for every device).
"""

from __future__ import annotations

import warnings

import pytest

import taimatsu as T


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def test_cuda_tensor_storage(fake_cupy):
    x = T.arange(4.0, device="cuda")
    s = x.storage()
    assert str(s) == (
        " 0.0\n 1.0\n 2.0\n 3.0\n"
        "[torch.storage.TypedStorage(dtype=torch.float32, device=cuda:0) of size 4]"
    )
    assert (s.type(), str(s.device), s.is_cuda, s.get_device()) == (
        "torch.cuda.FloatStorage",
        "cuda:0",
        True,
        0,
    )
    assert isinstance(s, T.cuda.FloatStorage) and not isinstance(s, T.FloatStorage)
    assert x.storage_type() is T.cuda.FloatStorage
    s[0] = 9.0
    assert x.tolist() == [9.0, 1.0, 2.0, 3.0] and s[1] == 1.0 and type(s[1]) is float
    assert s.tolist() == [9.0, 1.0, 2.0, 3.0] and s.data_ptr() == x.data_ptr()


def test_cuda_storage_moves_and_classes(fake_cupy):
    s = T.arange(3.0, device="cuda").storage()
    assert s.cpu().type() == "torch.FloatStorage" and s.cpu().tolist() == [0.0, 1.0, 2.0]
    assert T.arange(2.0).storage().cuda().type() == "torch.cuda.FloatStorage"
    c = T.cuda.LongStorage([1, 2])
    assert (c.dtype, str(c.device), c.tolist()) == (T.int64, "cuda:0", [1, 2])
    y = T.tensor([], device="cuda").set_(s, 1, (2,))
    assert y.tolist() == [1.0, 2.0] and y.is_cuda
    with pytest.raises(RuntimeError, match="Device of 'wrap_storage' must be cuda, but got cpu"):
        T.cuda.FloatStorage(wrap_storage=T.arange(2.0).untyped_storage())


def test_pinned_storage(fake_cupy):
    x = T.arange(3.0)
    s = x.storage().pin_memory()
    assert s.is_pinned() and not x.storage().is_pinned() and s.tolist() == [0.0, 1.0, 2.0]
    assert s.pin_memory().data_ptr() == s.data_ptr()  # pinned already: the same memory
    u = x.untyped_storage().pin_memory()
    assert u.is_pinned() and u.data_ptr() != x.data_ptr()
    with pytest.raises(TypeError, match="only CPU memory can be pinned"):
        T.arange(2.0, device="cuda").untyped_storage().pin_memory()
