"""``torch.UntypedStorage``: the bytes under a tensor, as ``Tensor.untyped_storage()`` shows them.

A storage here is a 1-d ``uint8`` view of the memory a tensor and all its views share (NumPy or
CuPy), so ``data_ptr()`` is the same for a view and its base and writes go through both ways.
What differs from PyTorch: ``untyped_storage()`` makes a new Python object each call (PyTorch
returns the same one, so ``is`` differs; ``==`` compares the memory), and ``resize_`` is absent
(NumPy memory shared with live tensors cannot be resized in place).
"""

from __future__ import annotations

import numpy as np

from ._device import cpu
from ._device import device as _as_device
from .backend import to_device, xp_of


class UntypedStorage:
    """A flat run of bytes on a device, shared with the tensors that view it."""

    __slots__ = ("_bytes", "_device")

    def __init__(self, size=0, *, device=None):
        dev = cpu if device is None else _as_device(device)
        xp = xp_of(dev)
        if isinstance(size, int):
            data = xp.zeros(size, np.uint8)
        else:  # a sequence of byte values
            data = xp.asarray(np.asarray(list(size), np.int64).astype(np.uint8))
        self._bytes, self._device = data, dev

    @classmethod
    def _over(cls, array, device) -> UntypedStorage:
        """A storage over ``array`` (1-d, contiguous) without copying it."""
        s = cls.__new__(cls)
        s._bytes, s._device = array.view(np.uint8), device
        return s

    # ---- size and place -----------------------------------------------------------------------
    def nbytes(self) -> int:
        return int(self._bytes.size)

    size = nbytes

    def __len__(self) -> int:
        return int(self._bytes.size)

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        from ._tensor.core import _address

        return _address(self._bytes) if self._bytes.size else 0

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    is_sparse = is_sparse_csr = False

    def get_device(self):
        return self._device.index

    def type(self) -> str:
        return "torch.storage.UntypedStorage"

    def is_shared(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False

    def untyped(self) -> UntypedStorage:
        return self

    def __eq__(self, other) -> bool:  # PyTorch hands back one object per storage; compare memory
        if not isinstance(other, UntypedStorage):
            return NotImplemented
        return (self.data_ptr(), self.nbytes(), self._device) == (
            other.data_ptr(),
            other.nbytes(),
            other._device,
        )

    __hash__ = None

    # ---- bytes --------------------------------------------------------------------------------
    def _index(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(i).__name__}")
        n = self._bytes.size
        i = int(i) + n if i < 0 else int(i)  # PyTorch wraps once, then reports the wrapped index
        if not 0 <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return i

    def _slice(self, s: slice) -> slice:
        if s.step not in (None, 1):
            raise RuntimeError(
                f"Trying to slice with a step of {s.step}, but only a step of 1 is supported"
            )
        return slice(*s.indices(self._bytes.size)[:2])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return UntypedStorage._over(self._bytes[self._slice(i)], self._device)
        return int(self._bytes[self._index(i)])

    def __setitem__(self, i, value) -> None:
        if isinstance(value, UntypedStorage):
            self._bytes[self._slice(i) if isinstance(i, slice) else self._index(i)] = value._bytes
            return
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise RuntimeError(  # noqa: TRY004 - PyTorch raises RuntimeError here
                "can only set storage content with a int types, but got "
                f"{type(value).__name__} instead"
            )
        key = self._slice(i) if isinstance(i, slice) else self._index(i)
        self._bytes[key] = int(value) & 0xFF  # a byte keeps the low 8 bits, as in C

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return [int(b) for b in to_device(self._bytes, cpu)]

    def fill_(self, value) -> UntypedStorage:
        self._bytes[...] = int(value) & 0xFF
        return self

    def copy_(self, source: UntypedStorage, non_blocking: bool = False) -> UntypedStorage:
        if source.nbytes() != self.nbytes():
            raise RuntimeError(
                f"size does not match, self was {self.nbytes()} bytes but src was "
                f"{source.nbytes()} bytes"
            )
        self._bytes[...] = to_device(source._bytes, self._device)
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage._over(self._bytes.copy(), self._device)

    def cpu(self) -> UntypedStorage:
        if self._device.type == "cpu":
            return self
        return UntypedStorage._over(to_device(self._bytes, cpu), cpu)

    def __repr__(self) -> str:
        body = "\n".join(f" {b}" for b in self.tolist()) or " "
        return (
            f"{body}\n[torch.storage.UntypedStorage(device={self._device}) of size {self.nbytes()}]"
        )

    __str__ = __repr__


def untyped_storage(t) -> UntypedStorage:
    """The whole storage under ``t`` (shared with its base and every other view of it).

    Counted in bytes, so a ``view(dtype)`` of another item size sees the same storage. Storage
    arrays have non-negative strides, so their data pointer is the lowest address they span.
    """
    st = t._storage_array()
    if st.size == 0:
        return UntypedStorage._over(to_device(np.zeros(0, np.uint8), t._device), t._device)
    nbytes = st.itemsize + sum((n - 1) * abs(s) for n, s in zip(st.shape, st.strides))
    tricks = (
        np.lib.stride_tricks if isinstance(st, np.ndarray) else xp_of(t._device).lib.stride_tricks
    )
    first = tricks.as_strided(st, shape=(1,), strides=(st.itemsize,)).view(np.uint8)
    kw = {"writeable": True} if tricks is np.lib.stride_tricks else {}
    return UntypedStorage._over(tricks.as_strided(first, (nbytes,), (1,), **kw), t._device)
