"""``torch.UntypedStorage``: the bytes under a tensor, as ``Tensor.untyped_storage()`` shows them.

A storage here is a 1-d ``uint8`` view of the memory a tensor and all its views share (NumPy or
CuPy), so ``data_ptr()`` is the same for a view and its base and writes go through both ways.
As in PyTorch, ``t.untyped_storage()`` hands back one object per storage while that object is
alive (``t.untyped_storage() is t[1:].untyped_storage()``): live storage objects are found again
by the memory they span (a weak table, so it holds no memory). ``torch.load`` gives its
``map_location`` callables storages of this same class.

What differs from PyTorch: a storage's ``resize_`` is absent (NumPy memory shared with live
tensors cannot be resized in place; ``Tensor.resize_`` moves the one tensor to a larger storage), and ``share_memory_()`` on a storage taken from a tensor moves only that
storage object into shared memory; use ``Tensor.share_memory_()`` (or ``Module.share_memory()``)
to move a tensor. Tensors are not rebound behind their back, because NumPy arrays cannot be
re-pointed at new memory.
"""

from __future__ import annotations

import weakref

import numpy as np

from ._device import cpu
from ._device import device as _as_device
from .backend import to_device, xp_of


class UntypedStorage:
    """A flat run of bytes on a device, shared with the tensors that view it."""

    __slots__ = ("__weakref__", "_bytes", "_device")

    def __init__(self, size=0, *, device=None):
        dev = cpu if device is None else _as_device(device)
        xp = xp_of(dev)
        if isinstance(size, int) and dev.type == "meta":
            from ._meta import meta_array

            data = meta_array((size,), np.uint8)
        elif isinstance(size, int):
            if size < 0:  # PyTorch's allocator sees the size as an unsigned number
                raise RuntimeError(
                    "[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. alloc_cpu() seems "
                    f"to have been called with negative number: {size % 2**64}"
                )
            data = xp.zeros(size, np.uint8)
        else:  # a sequence of byte values
            data = xp.asarray(np.asarray(list(size), np.int64).astype(np.uint8))
        self._bytes, self._device = data, dev

    @classmethod
    def from_buffer(cls, buffer, byte_order=None, count: int = -1, offset: int = 0, *, dtype=None):
        """A new CPU storage holding a copy of ``buffer``'s bytes (from byte ``offset``, ``count``
        elements of ``dtype``), converted from ``byte_order`` ('little', 'big' or 'native') to
        this machine's order, with PyTorch's errors."""
        if dtype is None:
            raise RuntimeError("argument 'dtype' cannot be None")
        return cls._over(_buffer_bytes(buffer, byte_order, count, offset, dtype), cpu)

    @classmethod
    def from_file(cls, filename, shared: bool = False, nbytes: int = 0) -> UntypedStorage:
        """``nbytes`` bytes of a file: mapped with ``shared`` (writes reach the file), else copied."""
        return cls._over(file_bytes(filename, shared, nbytes), cpu)

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

        return _address(self._bytes) if self._bytes.size and self._device.type != "meta" else 0

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
        """Whether the bytes live in memory other processes can map (CUDA memory counts, as in
        PyTorch; meta storages have none)."""
        if self._device.type != "cpu":
            return self._device.type == "cuda"
        from ._shared_memory import segment_of

        return segment_of(self._bytes) is not None

    def share_memory_(self) -> UntypedStorage:
        """Move the bytes into shared memory (a no-op when they are there already, or on CUDA)."""
        if self.is_shared():
            return self
        from ._shared_memory import allocate

        shared = allocate(self._bytes.size)
        shared[...] = self._bytes
        for key, storage in list(_live.items()):  # no longer the memory of the tensors it came from
            if storage is self:
                del _live[key]
        self._bytes = shared
        return self

    @classmethod
    def _new_shared(cls, size: int, *, device=None) -> UntypedStorage:
        """A new zeroed storage of ``size`` bytes in shared memory."""
        dev = cpu if device is None else _as_device(device)
        if dev.type != "cpu":
            return cls(size, device=dev)
        from ._shared_memory import allocate

        return cls._over(allocate(size), dev)

    def is_pinned(self, device=None) -> bool:
        from .backend import is_pinned

        return self._device.type == "cpu" and is_pinned(self._bytes)

    def pin_memory(self, device=None) -> UntypedStorage:
        """A copy in page-locked host memory (itself when pinned already); PyTorch's errors
        without an accelerator and for memory that is not on the CPU."""
        if self._device.type != "cpu":
            raise TypeError(f"cannot pin '{self.type()}' only CPU memory can be pinned")
        from ._dtype import uint8
        from ._tensor.core import _wrap

        return untyped_storage(_wrap(self._bytes, uint8, cpu).pin_memory(device))

    def untyped(self) -> UntypedStorage:
        return self

    def _typed(self, dtype) -> np.ndarray:
        """The bytes read as elements of ``dtype`` (a trailing partial element is dropped)."""
        n = self._bytes.size - self._bytes.size % dtype.itemsize
        return self._bytes[:n].view(dtype.np)

    def to(self, device=None, non_blocking: bool = False) -> UntypedStorage:
        dev = _as_device(device)
        if dev == self._device:
            return self
        if self._device.type == "meta":
            from ._meta import NO_DATA

            raise NotImplementedError(NO_DATA)
        return UntypedStorage._over(to_device(self._bytes, dev), dev)

    def cuda(self, device=None, non_blocking: bool = False) -> UntypedStorage:
        if device is None or isinstance(device, int):
            device = f"cuda:{device or 0}"
        return self.to(device)

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
        self._has_data()
        return int(self._bytes[self._index(i)])

    def _has_data(self) -> None:
        if self._device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")

    def __setitem__(self, i, value) -> None:
        self._has_data()
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
        self._has_data()
        return [int(b) for b in to_device(self._bytes, cpu)]

    def fill_(self, value) -> UntypedStorage:
        if self._device.type != "meta":  # nothing to fill
            self._bytes[...] = int(value) & 0xFF
        return self

    def copy_(self, source: UntypedStorage, non_blocking: bool = False) -> UntypedStorage:
        if source.nbytes() != self.nbytes():
            raise RuntimeError(
                f"size does not match, self was {self.nbytes()} bytes but src was "
                f"{source.nbytes()} bytes"
            )
        if source._device.type == "meta" and self._device.type != "meta":
            from ._meta import NO_DATA

            raise NotImplementedError(NO_DATA)
        if self._device.type != "meta":
            self._bytes[...] = to_device(source._bytes, self._device)
        return self

    def clone(self) -> UntypedStorage:
        if self._device.type == "meta":
            return UntypedStorage(self.nbytes(), device=self._device)
        return UntypedStorage._over(self._bytes.copy(), self._device)

    def cpu(self) -> UntypedStorage:
        return self.to(cpu)

    def __repr__(self) -> str:
        if self._device.type == "meta":
            body = "..."
        else:
            body = "\n".join(f" {b}" for b in self.tolist()) or " "
        return (
            f"{body}\n[torch.storage.UntypedStorage(device={self._device}) of size {self.nbytes()}]"
        )

    __str__ = __repr__


def _buffer_bytes(buffer, byte_order, count: int, offset: int, dtype) -> np.ndarray:
    """``from_buffer``'s bytes: ``count`` elements of ``dtype`` from byte ``offset``, copied and
    put in native byte order."""
    import sys

    try:
        view = memoryview(buffer).cast("B")
    except TypeError:
        raise TypeError(f"a bytes-like object is required, not '{type(buffer).__name__}'") from None
    item = dtype.itemsize
    if byte_order is None and item > 1:
        raise RuntimeError("function missing required argument 'byte_order' (pos 2)")
    if byte_order not in (None, "big", "little", "native"):
        raise ValueError(
            f"invalid byte_order '{byte_order}' (expected 'big', 'little', or 'native')"
        )
    n = len(view)
    if offset < 0 or offset > n:
        raise ValueError(
            "offset must be non-negative and no greater than buffer length "
            f"({offset}) , but got {n}"
        )
    if count < 0:
        if (n - offset) % item:
            raise ValueError(
                f"buffer size ({n - offset}) must be a multiple of element size ({item})"
            )
        count = (n - offset) // item
    elif offset + count * item > n:
        raise ValueError(
            f"buffer has only {n - offset} elements after offset {offset}, but "
            f"specified a size of {count}"
        )
    order = sys.byteorder if byte_order in (None, "native") else byte_order
    raw = np.frombuffer(view, np.uint8, count * item, offset)
    wanted = np.dtype(dtype.np).newbyteorder("<" if order == "little" else ">")
    return np.ascontiguousarray(raw.view(wanted).astype(dtype.np)).view(np.uint8).copy()


# (device, first byte's address, byte count) -> the live storage object over that memory. A
# storage keeps its memory alive, so while an entry exists no other allocation can take its key.
_live: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def untyped_storage(t) -> UntypedStorage:
    """The whole storage under ``t`` (shared with its base and every other view of it).

    Counted in bytes, so a ``view(dtype)`` of another item size sees the same storage. Storage
    arrays have non-negative strides, so their data pointer is the lowest address they span.
    """
    from ._tensor.core import _address

    st = t._storage_array()
    if st.size == 0:
        return UntypedStorage._over(to_device(np.zeros(0, np.uint8), t._device), t._device)
    nbytes = st.itemsize + sum((n - 1) * abs(s) for n, s in zip(st.shape, st.strides))
    key = (t._device, _address(st), nbytes)
    storage = _live.get(key)
    if storage is None:
        storage = _live[key] = UntypedStorage._over(_byte_view(st, nbytes, t._device), t._device)
    return storage


def same_storage(a, b) -> bool:
    """Whether tensors ``a`` and ``b`` share one storage: the same bytes when there are any, else
    the same (empty) allocation, as ``Tensor.is_set_to`` asks."""
    if a._device != b._device:
        return False
    sa, sb = untyped_storage(a), untyped_storage(b)
    if sa.nbytes() or sb.nbytes():
        return sa is sb
    return _root(a._storage_array()) is _root(b._storage_array())


def _root(array):
    while array.base is not None and hasattr(array.base, "base"):
        array = array.base
    return array


def _byte_view(st, nbytes: int, device):
    tricks = np.lib.stride_tricks if isinstance(st, np.ndarray) else xp_of(device).lib.stride_tricks
    first = tricks.as_strided(st, shape=(1,), strides=(st.itemsize,)).view(np.uint8)
    kw = {"writeable": True} if tricks is np.lib.stride_tricks else {}
    return tricks.as_strided(first, (nbytes,), (1,), **kw)


def share_tensor_memory(t):
    """``Tensor.share_memory_()``: copy ``t``'s whole storage into shared memory and point ``t``
    (and, when ``t`` is a view, its base) at the copy, keeping offsets and strides. A no-op when
    shared already, and on CUDA.

    PyTorch moves the storage itself, so every tensor over it follows; here ``t`` and its base
    move, other views and ``detach()``-ed aliases made earlier keep the old private memory.
    """
    if t._device.type != "cpu" or t.is_shared():
        return t
    from ._shared_memory import allocate

    base = t._base if t._base is not None and t._base._storage_array() is t._storage else None
    old = untyped_storage(t)
    shared = allocate(old.nbytes())
    shared[...] = old._bytes
    st = t._storage_array()
    storage = shared[: shared.size - shared.size % st.itemsize].view(st.dtype)
    for x in (t,) if base is None else (t, base):
        x._data = _rebased(x._data, old, shared)
        x._storage = storage
    return t


def _rebased(data, old: UntypedStorage, shared):
    """``data`` (an array over ``old``'s bytes) moved to the same place in ``shared``."""
    from ._tensor.core import _address

    offset = _address(data) - old.data_ptr() if old.nbytes() else 0
    return np.ndarray(data.shape, data.dtype, buffer=shared, offset=offset, strides=data.strides)


def empty_shared(shape: tuple, dtype):
    """A new CPU tensor of ``shape`` and ``dtype`` in shared memory (zero-filled, as new shared
    memory is). DataLoader workers collate batches straight into one, as PyTorch's do."""
    from ._shared_memory import allocate
    from ._tensor.core import _wrap

    count = 1
    for n in shape:
        count *= n
    return _wrap(allocate(count * dtype.itemsize).view(dtype.np).reshape(shape), dtype, cpu)


def tensor_is_shared(t) -> bool:
    if t._device.type != "cpu":
        return t._device.type == "cuda"
    from ._shared_memory import segment_of

    return segment_of(t._storage_array()) is not None


_TYPED_NAMES = frozenset(
    (
        "TypedStorage",
        "_LegacyStorage",
        "_warn_typed_storage_removal",
        "_reset_warn_typed_storage_removal",
        "_get_always_warn_typed_storage_removal",
        "_set_always_warn_typed_storage_removal",
    )
)


def __getattr__(name: str):
    """``torch.storage.TypedStorage`` & co. live in ``typed_storage.py`` (which imports this
    module, so they are looked up on first use rather than imported here)."""
    if name in _TYPED_NAMES:
        from . import typed_storage

        return getattr(typed_storage, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# C++ element type names PyTorch's ``set_`` names a tensor's dtype by in its storage-type error.
_C_TYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>", "uint16": "short unsigned int",
}  # fmt: skip


def tensor_set_(t, *args, **kwargs):
    """``Tensor.set_``: point ``t`` at another tensor's memory, or a storage (all of it, or from
    ``storage_offset`` with ``size`` and ``stride``); ``set_()`` leaves ``t`` empty. Views made
    of ``t`` earlier keep the old memory, as in PyTorch.

    What differs: on a tensor with autograd history (PyTorch gives it an unusable grad_fn) this
    raises NotImplementedError.
    """
    from ._tensor.core import Tensor
    from .ops._dispatch import check_inplace
    from .serialization._weights_only import _legacy_set
    from .typed_storage import TypedStorage

    names = ("source", "storage_offset", "size", "stride")
    for i, name in enumerate(names[len(args) :], len(args)):
        if name in kwargs:
            args = (*args, *([None] * (i - len(args))), kwargs.pop(name))
    if kwargs:
        raise TypeError(f"set_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    check_inplace(t)
    if t._grad_fn is not None:
        raise NotImplementedError("taimatsu: set_ on a tensor with autograd history")
    if args and type(args[0]) is TypedStorage:
        if args[0].dtype is not t._dtype:
            from .typed_storage import _LEGACY_NAMES

            got = _LEGACY_NAMES.get(args[0].dtype, str(args[0].dtype))[: -len("Storage")]
            want = _C_TYPE_NAMES.get(t._dtype.name, t._dtype.name)
            raise RuntimeError(
                f"Expected a Storage of type {want} or an UntypedStorage, but got type {got} "
                "for argument 1 'storage'"
            )
        args = (args[0]._untyped_storage, *args[1:])
    if args and isinstance(args[0], Tensor):
        if args[0]._dtype is not t._dtype:
            source, own = (_C_TYPE_NAMES.get(x.name, x.name) for x in (args[0]._dtype, t._dtype))
            raise RuntimeError(f"Could not set tensor of type {source} to a tensor of type {own}")
        if len(args) > 1:  # an offset into the source's storage, not into the source
            args = (args[0].untyped_storage(), *args[1:])
    if args and isinstance(args[0], UntypedStorage) and args[0].device != t._device:
        raise RuntimeError(
            f'Attempted to set the storage of a tensor on device "{t._device}" to a storage on '
            f'different device "{args[0].device}".  This is no longer allowed; the devices must match.'
        )
    _check_contiguous_bounds(t, args)
    _legacy_set(t, args)
    t._base = None  # no longer a view of what it viewed: in-place writes are its own
    t._vc[0] += 1
    return t


def _check_contiguous_bounds(t, args: tuple) -> None:
    """PyTorch's bounds error for ``set_(storage, offset, size)`` without strides (it prints them
    as ``[]``); the strided form is checked where the tensor is built."""
    if not (3 <= len(args) <= 4 and isinstance(args[0], UntypedStorage)):
        return
    if (len(args) == 4 and args[3] is not None) or type(args[1]) is not int:
        return
    if not isinstance(args[2], (tuple, list)) or not all(type(n) is int for n in args[2]):
        return
    numel = 1
    for n in args[2]:
        numel *= n
    item, offset = t._dtype.itemsize, args[1]
    need = 0 if numel == 0 else (offset + numel) * item
    if need > args[0].nbytes():
        raise RuntimeError(
            f"setStorage: sizes {list(args[2])}, strides [], storage offset {offset}, and itemsize "
            f"{item} requiring a storage size of {need} are out of bounds for storage of size "
            f"{args[0].nbytes()}"
        )


def tensor_resize_(t, *size, memory_format=None, **kwargs):
    """``Tensor.resize_``: ``t`` takes the new sizes with contiguous strides (or channels-last
    ones) from the same storage offset; a new shape keeps the strides. Elements the storage
    holds keep their values; when it is too small, ``t`` moves to a larger storage holding a
    copy of the old one's bytes and zeros after them (PyTorch's are uninitialised).

    What differs: PyTorch grows the storage itself, so other tensors viewing it see the larger
    storage too; here they keep the old memory (NumPy memory cannot grow in place), as after
    ``set_``. A storage in shared memory or a NumPy array's (``from_numpy``, ``as_tensor``) is
    not resizable, as in PyTorch.
    """
    from ._layout import channels_last_order, dense_strides, preserve_format
    from ._layout import memory_format as format_type
    from .ops.creation.factories import _size_args, size_keyword

    if "size" in kwargs:
        size = size_keyword("resize_", size, kwargs.pop("size"))
    if kwargs:
        raise TypeError(f"resize_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not size:
        raise TypeError('resize_() missing 1 required positional arguments: "size"')
    if (
        len(size) == 1
        and not isinstance(size[0], (tuple, list))
        and not hasattr(size[0], "__index__")
    ):
        raise TypeError(
            f"resize_(): argument 'size' (position 1) must be tuple of ints, not {type(size[0]).__name__}"
        )
    if memory_format is not None and not isinstance(memory_format, format_type):
        raise TypeError(
            "resize_(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(memory_format).__name__}"
        )
    try:
        shape = _size_args(size, "resize_")
    except RuntimeError:  # a negative size: PyTorch's resize_ reports it as an overflow
        shape = None
    if shape is None or _numel_overflows(shape):
        raise RuntimeError("numel: integer multiplication overflow")
    if t._rg:
        raise RuntimeError("cannot resize variables that require grad")
    if memory_format is preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    order = channels_last_order(memory_format, len(shape))
    if order is None and shape == t._data.shape:
        return t  # same shape: strides unchanged, as in PyTorch
    return _resize_to(t, shape, dense_strides(shape, order))


def tensor_resize_as_(t, *args, memory_format=None, **kwargs):
    """``Tensor.resize_as_``: ``resize_`` to the template's sizes."""
    from ._tensor.core import Tensor

    if "the_template" in kwargs:
        args = (*args, kwargs.pop("the_template"))
    if kwargs:
        raise TypeError(f"resize_as_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) != 1:
        raise TypeError(
            f"resize_as_() takes 1 positional argument but {len(args)} were given"
            if args
            else 'resize_as_() missing 1 required positional arguments: "the_template"'
        )
    the_template = args[0]
    if not isinstance(the_template, Tensor):
        raise TypeError(
            "resize_as_(): argument 'the_template' (position 1) must be Tensor, not "
            f"{type(the_template).__name__}"
        )
    return tensor_resize_(t, tuple(the_template.shape), memory_format=memory_format)


def _numel_overflows(shape) -> bool:
    n = 1
    for s in shape:
        n *= s
    return n >= 1 << 63


# The NumPy arrays whose memory tensors were made on (from_numpy, as_tensor): PyTorch cannot grow
# such a storage. Keyed by id, the arrays held weakly (an ndarray is not hashable).
_USER_ARRAYS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def mark_user_memory(a: np.ndarray) -> None:
    _USER_ARRAYS[id(a)] = a


def is_user_memory(a) -> bool:
    """Whether ``a`` is, or views, an array marked by ``mark_user_memory``."""
    while a is not None:  # (through as_strided's DummyArray objects too)
        if _USER_ARRAYS.get(id(a)) is a:
            return True
        a = getattr(a, "base", None)
    return False


def _resize_to(t, shape, strides):
    from .serialization._weights_only import _legacy_set

    storage, offset = untyped_storage(t), t.storage_offset()
    moved, item = False, t._dtype.itemsize
    numel = 1
    for s in shape:
        numel *= s
    need = (offset + numel) * item if numel else 0
    if need > storage.nbytes():
        if (
            storage.is_shared()
            and storage.device.type == "cpu"
            or is_user_memory(t._storage_array())
        ):
            raise RuntimeError("Trying to resize storage that is not resizable")
        grown = UntypedStorage(need, device=t._device)
        if storage.nbytes():
            grown._bytes[: storage.nbytes()] = storage._bytes
        storage, moved = grown, True
    new_shape = shape != t._data.shape
    _legacy_set(t, (storage, offset, shape, strides))
    if moved:
        t._base = None  # no longer a view of its base's memory
    if new_shape:  # PyTorch counts a change of sizes, not of strides alone
        t._vc[0] += 1
    return t


# ---- storages and tensors read from a file: torch.from_file, UntypedStorage.from_file ------------
def file_bytes(filename, shared, nbytes: int):
    """``nbytes`` bytes of ``filename`` as a 1-d uint8 array: with ``shared`` a writable mapping of
    the file (grown to ``nbytes`` if shorter, created if missing: writes reach the file), else a
    private copy of its first ``nbytes`` bytes. PyTorch's errors for a missing or short file."""
    import mmap
    import os

    name = os.fsdecode(filename)
    if nbytes < 0:
        raise RuntimeError(
            f"unable to mmap {nbytes} bytes from file <{name}>: Cannot allocate memory (12)"
        )
    mode = "r+b" if shared else "rb"
    try:
        f = open(name, mode)  # noqa: SIM115  (closed below; the mapping outlives it)
    except FileNotFoundError:
        if not shared:
            raise RuntimeError(
                f"unable to open file <{name}> in read-only mode: No such file or directory (2)"
            ) from None
        f = open(name, "w+b")  # noqa: SIM115
    except OSError as e:
        kind = "read-write" if shared else "read-only"
        raise RuntimeError(
            f"unable to open file <{name}> in {kind} mode: {e.strerror} ({e.errno})"
        ) from None
    with f:
        size = os.fstat(f.fileno()).st_size
        if size < nbytes:
            if not shared:
                raise RuntimeError(
                    f"file <{name}> size <{size}> is smaller than the required mapping size "
                    f"<{nbytes}>"
                )
            f.truncate(nbytes)
        if nbytes == 0:
            return np.zeros(0, np.uint8)
        if not shared:
            return np.frombuffer(f.read(nbytes), np.uint8).copy()
        return np.frombuffer(mmap.mmap(f.fileno(), nbytes), np.uint8)


def tensor_from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
                     pin_memory=False, requires_grad=False):  # fmt: skip
    """``torch.from_file``: a 1-d tensor of ``size`` elements of ``dtype`` read from ``filename``;
    ``shared=True`` maps the file (writes reach it; other processes mapping it see them)."""
    from . import _dtype as D
    from ._tensor.core import _wrap

    dtype = D.get_default_dtype() if dtype is None else dtype
    data = file_bytes(filename, bool(shared), size * dtype.itemsize).view(dtype.np)
    t = _wrap(data, dtype, cpu)
    if device is not None and _as_device(device) != cpu:
        t = t.to(device)
    if pin_memory:
        t = t.pin_memory()
    return t.requires_grad_() if requires_grad else t
