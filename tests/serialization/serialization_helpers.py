"""Helpers shared by test_serialization.py and test_serialization_safety.py: sample tensors in every
dtype, byte-exact comparison, and hand-built archives."""

import numpy as np

import taimatsu as tm
from taimatsu.serialization import _zip

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]  # fmt: skip


def _torch_sample(torch, name, shape=(3, 4)):
    g = torch.Generator().manual_seed(0)
    dt = getattr(torch, name)
    if name == "bool":
        return torch.rand(shape, generator=g) > 0.5
    if dt.is_floating_point or dt.is_complex:
        return (
            (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dt)
            if not dt.is_complex
            else torch.randn(shape, generator=g, dtype=dt)
        )
    return torch.randint(-100 if name != "uint8" else 0, 100, shape, generator=g, dtype=dt)


def _raw(t):
    """A taimatsu or torch tensor's elements as a NumPy array of the same bytes (bfloat16 as uint16)."""
    if isinstance(t, tm.Tensor):
        a = t._data
        return a.view(np.uint16) if t.dtype is tm.bfloat16 else np.asarray(a)
    import torch

    if t.dtype is torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.detach().numpy()


def _same(a, b):
    assert str(a.dtype) == str(b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    assert tuple(a.stride()) == tuple(b.stride())
    assert a.storage_offset() == b.storage_offset()
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(_raw(a), _raw(b))


def _shares(a, b) -> bool:
    return np.shares_memory(a._data, b._data)


class _Evil:
    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


def _archive(tmp_path, data_pkl: bytes, storages=(), name="evil.pt"):
    path = tmp_path / name
    with open(path, "wb") as f:
        zw = _zip.ZipWriter(f.write, "evil")
        zw.write_record("data.pkl", data_pkl)
        for key, data in storages:
            zw.write_record(f"data/{key}", data)
        zw.write_record("version", b"3\n")
        zw.finish()
    return path
