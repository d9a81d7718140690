"""DLPack exchange of CUDA tensors with CuPy, on the CuPy test double: the double's capsules are
real DLPack capsules whose device field says (kDLCUDA, device id), as CuPy's do, so the device
a consumer reads is the one taimatsu wrote. No bytes are copied either way."""

import numpy as np
import pytest

import taimatsu as torch
from taimatsu.utils import dlpack


def _shares(a, b) -> bool:
    return np.shares_memory(a._a, b._a)


@pytest.mark.parametrize("index", [0, 1])
def test_tensor_to_cupy(index, fake_cupy):
    t = torch.arange(6.0, device=f"cuda:{index}").reshape(2, 3)
    assert t.__dlpack_device__() == (2, index)
    cap = torch.utils.dlpack.to_dlpack(t)
    assert dlpack._capsule_device(cap) == (2, index)  # kDLCUDA, the tensor's GPU
    a = fake_cupy.MODULES["cupy"].from_dlpack(t)  # cupy.from_dlpack(tensor): via __dlpack__
    assert a.device.id == index and a.shape == (2, 3) and _shares(a, t._data)
    a[0, 0] = 42.0
    assert t[0, 0].item() == 42.0  # a write through CuPy shows in the tensor


@pytest.mark.parametrize("index", [0, 1])
def test_cupy_to_tensor(index, fake_cupy):
    cp = fake_cupy
    with cp.cuda.Device(index):
        a = cp.asarray(np.arange(4, dtype=np.float32))
    for t in (torch.from_dlpack(a), torch.utils.dlpack.from_dlpack(a)):
        assert t.device == torch.device(f"cuda:{index}") and t.dtype == torch.float32
        assert t._data.device.id == index and _shares(t._data, a)
    t.add_(1)
    assert a.get().tolist() == [1.0, 2.0, 3.0, 4.0]


def test_capsule_round_trip(fake_cupy):
    t = torch.ones(3, device="cuda:1")
    u = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert u.device == torch.device("cuda:1") and _shares(u._data, t._data)
    u.mul_(3)
    assert t.tolist() == [3.0, 3.0, 3.0]


def test_cpu_capsules_unchanged(fake_cupy):
    t = torch.arange(3.0)
    cap = torch.utils.dlpack.to_dlpack(t)
    assert dlpack._capsule_device(cap) == (1, 0)
    u = torch.utils.dlpack.from_dlpack(cap)
    assert u.device == torch.device("cpu") and np.shares_memory(u.numpy(), t.numpy())
    versioned = t.__dlpack__(max_version=(1, 0))
    assert dlpack._capsule_device(versioned) == (1, 0)


def test_exports_refused_as_on_the_cpu(fake_cupy):
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        torch.ones(2, device="cuda", requires_grad=True).__dlpack__()
