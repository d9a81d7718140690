"""Zero-copy interop: DLPack with NumPy and PyTorch, and from_numpy's edge cases against PyTorch."""

import warnings

import numpy as np
import pytest

import taimatsu as tm
from taimatsu.utils import dlpack as tm_dlpack

DTYPES = [
    "float32",
    "float64",
    "float16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("name", DTYPES)
def test_numpy_round_trip_shares_memory(name):
    a = (np.arange(12) % 2 == 0) if name == "bool" else np.arange(12).astype(name)
    a = a.reshape(3, 4)
    t = tm.from_dlpack(a)
    assert t.dtype is getattr(tm, name) and t.shape == (3, 4) and t.stride() == (4, 1)
    assert np.shares_memory(t._data, a)
    back = np.from_dlpack(t)
    assert np.shares_memory(back, a) and back.dtype == a.dtype


def test_writes_are_visible_both_ways_with_numpy():
    t = tm.zeros(2, 3)
    a = np.from_dlpack(t)
    a[1, 2] = 5.0
    assert t[1, 2].item() == 5.0
    t.add_(1)
    assert a[0, 0] == 1.0
    b = np.arange(6.0)
    u = tm.from_dlpack(b)
    u[0] = -3
    assert b[0] == -3.0
    assert tm.from_dlpack(b[::2]).stride() == (2,)  # strided views keep their strides


def test_non_contiguous_export():
    t = tm.arange(12.0).reshape(3, 4).t()
    a = np.from_dlpack(t)
    assert a.strides == (8 // 2, 16 // 1) or a.strides == tuple(s * 4 for s in t.stride())
    np.testing.assert_array_equal(a, np.arange(12.0).reshape(3, 4).T)


def test_capsules_and_device():
    t = tm.arange(4)
    assert t.__dlpack_device__() == (1, 0)
    cap = tm_dlpack.to_dlpack(t)
    u = tm_dlpack.from_dlpack(cap)
    u[0] = 10
    assert t[0].item() == 10
    assert tm.from_dlpack(t)._data is t._data or np.shares_memory(tm.from_dlpack(t)._data, t._data)


def test_export_errors():
    with pytest.raises(
        BufferError, match="Can't export tensors that require gradient, use tensor.detach()"
    ):
        tm.ones(2, requires_grad=True).__dlpack__()
    np.from_dlpack(tm.ones(2, requires_grad=True).detach())  # detached is fine
    with pytest.raises(BufferError, match="bfloat16"):
        tm.ones(2, dtype=tm.bfloat16).__dlpack__()
    with pytest.raises(BufferError, match="native byte order"):
        tm.from_dlpack(np.arange(3, dtype=">f8"))


@pytest.mark.parametrize("name", DTYPES)
def test_torch_exchange_without_copies(torch_oracle, name):
    torch = torch_oracle
    pt = torch.arange(6).reshape(2, 3).to(getattr(torch, name))
    t = tm.from_dlpack(pt)
    assert t.dtype is getattr(tm, name) and t.shape == (2, 3)
    assert t.data_ptr() == pt.data_ptr()
    back = torch.from_dlpack(t)
    assert back.data_ptr() == t.data_ptr() and back.dtype is pt.dtype
    assert t.tolist() == pt.tolist()


def test_torch_writes_visible(torch_oracle):
    torch = torch_oracle
    pt = torch.zeros(4)
    t = tm.from_dlpack(pt)
    t[1] = 2.0
    assert pt[1].item() == 2.0
    pt[2] = 7.0
    assert t[2].item() == 7.0
    x = tm.arange(6.0).reshape(2, 3)[:, 1:]
    y = torch.from_dlpack(x)
    assert y.stride() == x.stride() and y.storage_offset() == 0
    y.mul_(10)
    assert x.tolist() == [[10.0, 20.0], [40.0, 50.0]]
    cap = torch.utils.dlpack.to_dlpack(pt)
    z = tm.utils.dlpack.from_dlpack(cap)
    assert z.data_ptr() == pt.data_ptr()
    z[3] = 4.0  # legacy capsules are writable, as in PyTorch
    assert pt[3].item() == 4.0


FROM_NUMPY_CASES = {
    "native": lambda: np.arange(3.0),
    "big_endian": lambda: np.arange(3, dtype=">f8"),
    "big_endian_negative_stride": lambda: np.arange(6, dtype=">f8")[::-1],
    "negative_stride": lambda: np.arange(6.0)[::-1],
    "unaligned_stride": lambda: np.frombuffer(b"\x00" * 17, dtype=np.uint8)[1:].view(np.float64)[
        ::1
    ],
    "read_only": lambda: _readonly(np.arange(3.0)),
    "not_an_array": lambda: [1, 2],
}


def _readonly(a):
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("case", list(FROM_NUMPY_CASES))
def test_from_numpy_matches_torch(torch_oracle, case):
    torch = torch_oracle

    def run(mod):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                t = mod.from_numpy(FROM_NUMPY_CASES[case]())
                out = ("ok", t.tolist(), str(t.dtype))
            except Exception as e:  # noqa: BLE001 - comparing the error itself
                out = (type(e).__name__, str(e))
        return out, [str(x.message) for x in w]

    ours, theirs = run(tm), run(torch)
    assert ours[0] == theirs[0]
    if theirs[1]:  # PyTorch warns once per process (TORCH_WARN_ONCE); taimatsu each time
        assert ours[1] == theirs[1]


def test_from_numpy_read_only_shares_memory():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = tm.from_numpy(a)
    assert np.shares_memory(t._data, a)
