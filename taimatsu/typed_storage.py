"""``torch.TypedStorage`` and the legacy ``torch.FloatStorage`` & co.: a tensor's storage read as
elements of one dtype, as ``Tensor.storage()`` hands it out.

A typed storage is a thin wrapper: a ``torch.UntypedStorage`` (the bytes, shared with every tensor
over them) and a dtype. Reads and writes go through a 1-d tensor over those bytes, so
``t.storage()[0] = 10.`` changes ``t``. As in PyTorch, each ``t.storage()`` call makes a new
wrapper (``t.storage() is t.storage()`` is False; there is no ``__eq__``, so ``==`` is identity)
while ``t.storage()._untyped_storage`` is the one live ``UntypedStorage`` of that memory.

The class is deprecated in PyTorch: its first public use in a process warns once (a UserWarning
attributed to the user's line), or every time after ``_set_always_warn_typed_storage_removal(True)``.

The legacy classes are never instantiated: ``torch.FloatStorage(3)`` returns a ``TypedStorage``
of float32, and ``isinstance(s, torch.FloatStorage)`` asks whether ``s`` is a CPU float32
``TypedStorage`` (PyTorch's ``_LegacyStorageMeta.__instancecheck__``).

What differs from PyTorch: ``resize_`` and quantized dtypes are absent
(``resizable()`` is False), and the classes print as ``taimatsu.FloatStorage`` (their instances
print as PyTorch's do). Under always-warn, a method that PyTorch builds from other public ones
may warn a different number of times.
"""

from __future__ import annotations

import collections.abc
import copy as _copy
import io
import warnings

import numpy as np

from . import _dtype as D
from ._device import cpu
from ._device import device as _as_device
from ._flags import user_stacklevel
from .storage import UntypedStorage

_NAME = "torch.storage.TypedStorage"
_CLASS = f"<class '{_NAME}'>"
_UNTYPED_CLASS = "<class 'torch.storage.UntypedStorage'>"
_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
    "only storage class. This should only matter to you if you are using storages directly.  To "
    "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()"
)
_warn_state = {"has_warned": False, "always": False}

# The legacy class name of each dtype that has one (PyTorch's _dtype_to_storage_type_map).
_LEGACY_NAMES = {
    D.float32: "FloatStorage", D.float64: "DoubleStorage", D.float16: "HalfStorage",
    D.bfloat16: "BFloat16Storage", D.int64: "LongStorage", D.int32: "IntStorage",
    D.int16: "ShortStorage", D.int8: "CharStorage", D.uint8: "ByteStorage", D.bool: "BoolStorage",
    D.complex64: "ComplexFloatStorage", D.complex128: "ComplexDoubleStorage",
}  # fmt: skip


def _warn_typed_storage_removal() -> None:
    """PyTorch's deprecation warning: once per process unless always-warn is set."""
    if _warn_state["always"] or not _warn_state["has_warned"]:
        warnings.warn(_WARNING, UserWarning, stacklevel=user_stacklevel())
        _warn_state["has_warned"] = True


def _reset_warn_typed_storage_removal() -> None:
    _warn_state["has_warned"] = False


def _get_always_warn_typed_storage_removal() -> bool:
    return _warn_state["always"]


def _set_always_warn_typed_storage_removal(always_warn: bool) -> None:
    if not isinstance(always_warn, bool):
        raise AssertionError(  # noqa: TRY004 - PyTorch's exception
            f"always_warn must be bool, got {type(always_warn).__name__}"
        )
    _warn_state["always"] = always_warn


def _isint(x) -> bool:
    return isinstance(x, (int, np.integer))


def _python_scalar(value, dtype):
    if dtype is D.bool:
        return bool(value)
    if dtype.is_complex:
        return complex(value)
    if dtype.is_floating_point:
        return float(value)
    return int(value)


class TypedStorage:
    """A storage's bytes read as elements of ``dtype`` (PyTorch's ``torch.TypedStorage``)."""

    is_sparse = False

    def __new__(cls, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        if cls is _LegacyStorage:
            raise RuntimeError("Only child classes of _LegacyStorage can be instantiated")
        if cls is TypedStorage:
            return super().__new__(cls)
        return cls._legacy_new(args, wrap_storage, dtype, device)

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        msg = (
            "TypedStorage.__init__ received an invalid combination of arguments. Expected one of:\n"
            " * (*, torch.device device, torch.dtype dtype)\n"
            " * (int size, *, torch.device device, torch.dtype dtype)\n"
            " * (Sequence data, *, torch.device device, torch.dtype dtype)\n"
            " * (*, UntypedStorage wrap_storage, torch.dtype dtype)"
        )
        if wrap_storage is not None:
            if args:
                raise RuntimeError(
                    msg + "\nNo positional arguments should be given when using 'wrap_storage'"
                )
            if dtype is None:
                raise RuntimeError(msg + "\nArgument 'dtype' must be specified")
            if not isinstance(dtype, D.dtype):
                raise TypeError(msg + f"\nArgument 'dtype' must be torch.dtype, not {type(dtype)}")
            if device is not None:
                raise RuntimeError(
                    msg + "\nArgument 'device' should not be specified when 'wrap_storage' is given"
                )
            self.dtype = dtype
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(
                    msg + "\nArgument 'wrap_storage' must be UntypedStorage, but got "
                    f"{type(wrap_storage)}"
                )
            self._untyped_storage = wrap_storage
            return
        self.dtype = D.get_default_dtype() if dtype is None else dtype
        device = cpu if device is None else _as_device(device)
        if len(args) > 1:
            raise RuntimeError(msg + "\nToo many positional arguments")
        if not args:
            self._untyped_storage = UntypedStorage(device=device)
        elif _isint(args[0]):
            count = int(args[0])
            self._untyped_storage = UntypedStorage(count * self.dtype.itemsize, device=device)
        elif isinstance(args[0], collections.abc.Sequence):
            from .ops.creation.factories import tensor

            self._untyped_storage = tensor(
                args[0], dtype=self.dtype, device=device
            ).untyped_storage()
        else:
            raise TypeError(msg + f"\nArgument type not recognized: {type(args[0])}")

    # ---- the elements as a tensor -------------------------------------------------------------
    def _tensor(self):
        """A 1-d tensor over this storage's elements (shares its memory)."""
        from ._tensor.core import _wrap

        u = self._untyped_storage
        return _wrap(u._typed(self.dtype), self.dtype, u.device)

    def _as_tensor(self, dtype, requires_grad: bool):
        """``torch.tensor(storage)``: a 1-d tensor sharing the storage's memory (its dtype must be
        the requested one, the default dtype when none is)."""
        want = D.get_default_dtype() if dtype is None else dtype
        if want is not self.dtype:
            names = {d: n[: -len("Storage")] for d, n in _LEGACY_NAMES.items()}
            raise RuntimeError(
                f"Expected a Storage of type {names.get(want, want)} or an UntypedStorage, but "
                f"got {names.get(self.dtype, self.dtype)}"
            )
        return self._tensor().requires_grad_(requires_grad)

    def _legacy_tensor(self, dtype):
        """``torch.Tensor(storage)`` / ``torch.LongTensor(storage)``: a 1-d tensor over it."""
        if dtype is not self.dtype:
            names = {d: n[: -len("Storage")] for d, n in _LEGACY_NAMES.items()}
            raise RuntimeError(
                f"Expected a Storage of type {names.get(dtype, dtype)} or an UntypedStorage, but "
                f"got type {names.get(self.dtype, self.dtype)} for argument 1 'storage'"
            )
        return self._tensor()

    def _new_wrapped_storage(self, untyped: UntypedStorage) -> TypedStorage:
        return TypedStorage(wrap_storage=untyped, dtype=self.dtype, _internal=True)

    @classmethod
    def from_buffer(cls, *args, dtype=None, device=None, **kwargs) -> TypedStorage:
        """A new CPU storage holding a copy of a bytes-like object's contents (see
        ``UntypedStorage.from_buffer``); a legacy class gives its own dtype."""
        _warn_typed_storage_removal()
        if cls is TypedStorage:
            dtype = D.get_default_dtype() if dtype is None else dtype
            device = cpu if device is None else _as_device(device)
            if device.type != "cpu":
                raise RuntimeError(
                    f"TypedStorage.from_buffer: Not available for device {device.type}"
                )
        else:
            where = (
                "can only be specified in UntypedStorage.from_buffer and TypedStorage.from_buffer"
            )
            if dtype is not None or len(args) == 5:
                raise RuntimeError(f"from_buffer: 'dtype' {where}")
            if device is not None:
                raise RuntimeError(f"from_buffer: 'device' {where}")
            dtype = cls._dtype
        untyped = UntypedStorage.from_buffer(*args, dtype=dtype, **kwargs)
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)

    @classmethod
    def from_file(cls, filename, shared, size) -> TypedStorage:
        """``size`` elements of a legacy class's dtype from a file (``UntypedStorage.from_file``)."""
        _warn_typed_storage_removal()
        if cls is TypedStorage:
            raise RuntimeError("from_file can only be called on derived classes")
        untyped = UntypedStorage.from_file(filename, shared, size * cls._dtype.itemsize)
        return TypedStorage(wrap_storage=untyped, dtype=cls._dtype, _internal=True)

    # ---- size and place -----------------------------------------------------------------------
    def _size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def size(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def __len__(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def nbytes(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        _warn_typed_storage_removal()
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.device.type == "cuda"

    def get_device(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.get_device()

    def is_shared(self) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.is_shared()

    def share_memory_(self) -> TypedStorage:
        _warn_typed_storage_removal()
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device=None) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.is_pinned(device)

    def pin_memory(self, device=None) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.pin_memory(device))

    def __sizeof__(self) -> int:
        _warn_typed_storage_removal()
        return super().__sizeof__() + self._untyped_storage.nbytes()

    @property
    def filename(self) -> None:
        """``None``: taimatsu storages are never memory-mapped from a file by name."""
        return None

    def resizable(self) -> bool:
        """False: taimatsu storages cannot be resized (NumPy memory shared with live tensors);
        PyTorch answers True for storages it allocated."""
        _warn_typed_storage_removal()
        return False

    def untyped(self) -> UntypedStorage:
        _warn_typed_storage_removal()
        return self._untyped_storage

    def pickle_storage_type(self) -> str:
        _warn_typed_storage_removal()
        try:
            return _LEGACY_NAMES[self.dtype]
        except KeyError:
            raise KeyError(f"dtype {self.dtype} is not recognized") from None

    def _legacy_class(self):
        name = _LEGACY_NAMES.get(self.dtype)
        device = self._untyped_storage.device.type
        if name is None or device not in ("cpu", "cuda"):
            return None
        return name if device == "cpu" else f"cuda.{name}"

    def type(self, dtype=None, non_blocking: bool = False) -> str:
        _warn_typed_storage_removal()
        if dtype is None:
            legacy = self._legacy_class()
            return _NAME if legacy is None else f"torch.{legacy}"
        return _converted(self._untyped_storage, dtype)

    # ---- elements -----------------------------------------------------------------------------
    def _maybe_wrap_index(self, idx) -> int:
        if type(idx) is not int:
            raise TypeError(f"can't index a {_CLASS} with {type(idx)}")
        n = self._size()
        if idx >= n or idx < -n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return idx % n

    def __getitem__(self, idx):
        _warn_typed_storage_removal()
        u = self._untyped_storage
        if u.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        # PyTorch raises RuntimeError for these wrong types
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")  # noqa: TRY004
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {_CLASS} with {type(idx)}")  # noqa: TRY004
        i = self._maybe_wrap_index(idx)
        return _python_scalar(u._typed(self.dtype)[i], self.dtype)

    def __setitem__(self, idx, value) -> None:
        _warn_typed_storage_removal()
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a {_CLASS} with {type(idx)}")  # noqa: TRY004
        if isinstance(value, (TypedStorage, UntypedStorage)):
            kind = _CLASS if isinstance(value, TypedStorage) else _UNTYPED_CLASS
            raise RuntimeError(f"cannot set item with value type {kind}")  # noqa: TRY004
        self._tensor()[idx] = value

    def __iter__(self):
        _warn_typed_storage_removal()
        return iter(self._elements())

    def _elements(self) -> list:
        u = self._untyped_storage
        if not self._size():
            return []
        if u.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        return [_python_scalar(v, self.dtype) for v in u.cpu()._typed(self.dtype)]

    def tolist(self) -> list:
        _warn_typed_storage_removal()
        return self._elements()

    def fill_(self, value) -> TypedStorage:
        _warn_typed_storage_removal()
        self._tensor()[:] = value
        return self

    def copy_(self, source, non_blocking=None) -> TypedStorage:
        _warn_typed_storage_removal()
        if isinstance(source, TypedStorage):
            source = source._untyped_storage
        self._untyped_storage.copy_(source, non_blocking)
        return self

    # ---- copies and moves ---------------------------------------------------------------------
    def clone(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.clone())

    def cpu(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.cpu())

    def cuda(self, device=None, non_blocking: bool = False) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.cuda(device, non_blocking))

    def to(self, *, device, non_blocking: bool = False) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.to(device, non_blocking))

    def __copy__(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(_copy.copy(self._untyped_storage))

    def __deepcopy__(self, memo) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.clone())

    def _to(self, dtype) -> TypedStorage:
        if not isinstance(dtype, D.dtype):
            raise TypeError(f"Argument 'dtype' must be torch.dtype, not {type(dtype)}")
        t = self._tensor().to(dtype)
        if t.dtype is self.dtype:
            t = t.clone()
        return TypedStorage(wrap_storage=t.untyped_storage(), dtype=dtype, _internal=True)

    def double(self):
        _warn_typed_storage_removal()
        return self._to(D.float64)

    def float(self):
        _warn_typed_storage_removal()
        return self._to(D.float32)

    def half(self):
        _warn_typed_storage_removal()
        return self._to(D.float16)

    def bfloat16(self):
        _warn_typed_storage_removal()
        return self._to(D.bfloat16)

    def long(self):
        _warn_typed_storage_removal()
        return self._to(D.int64)

    def int(self):
        _warn_typed_storage_removal()
        return self._to(D.int32)

    def short(self):
        _warn_typed_storage_removal()
        return self._to(D.int16)

    def char(self):
        _warn_typed_storage_removal()
        return self._to(D.int8)

    def byte(self):
        _warn_typed_storage_removal()
        return self._to(D.uint8)

    def bool(self):
        _warn_typed_storage_removal()
        return self._to(D.bool)

    def complex_double(self):
        _warn_typed_storage_removal()
        return self._to(D.complex128)

    def complex_float(self):
        _warn_typed_storage_removal()
        return self._to(D.complex64)

    def __reduce__(self):
        """Pickled as PyTorch does: the bytes of a legacy-format ``torch.save`` of the storage."""
        from .serialization import save

        buffer = io.BytesIO()
        save(self, buffer, _use_new_zipfile_serialization=False)
        return (_load_from_bytes, (buffer.getvalue(),))

    # ---- printing -----------------------------------------------------------------------------
    def __str__(self) -> str:
        _warn_typed_storage_removal()
        u = self._untyped_storage
        info = f"[{_NAME}(dtype={self.dtype}, device={u.device}) of size {self._size()}]"
        if u.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(v) for v in self._elements()) + "\n" + info

    __repr__ = __str__


def _storage_class(name: str):
    """The storage class a dotted name such as ``"torch.DoubleStorage"`` names, with the errors
    of PyTorch's import of it."""
    parts = name.split(".")
    if parts[0] != "torch":
        raise ModuleNotFoundError(f"No module named '{parts[0]}'")
    rest = ".".join(parts[1:])
    classes = {"UntypedStorage": UntypedStorage, "storage.UntypedStorage": UntypedStorage}
    classes.update({"TypedStorage": TypedStorage, "storage.TypedStorage": TypedStorage})
    classes.update({c.__name__: c for c in LEGACY_CLASSES})
    classes.update({f"cuda.{n}": c for n, c in CUDA_STORAGE_CLASSES.items()})
    if rest not in classes:
        module = ".".join(parts[:-1])
        raise AttributeError(f"module '{module}' has no attribute '{parts[-1]}'")
    return classes[rest]


def _converted(untyped: UntypedStorage, cls):
    """``storage.type(cls)`` as PyTorch runs it: the same storage for ``UntypedStorage``, else a
    new ``cls`` storage holding as many elements as there are bytes, into which the bytes are
    copied (so only one-byte types, or an empty storage, succeed)."""
    if isinstance(cls, str):
        cls = _storage_class(cls)
    if not isinstance(cls, type):
        kind = "torch.dtype" if isinstance(cls, D.dtype) else type(cls).__name__
        raise AttributeError(f"'{kind}' object has no attribute 'is_sparse'")  # noqa: TRY004 - PyTorch's
    if cls is UntypedStorage:
        return untyped
    return cls(untyped.nbytes()).copy_(untyped)


class _LegacyStorageMeta(type):
    """``torch.FloatStorage`` & co.: ``isinstance`` checks a TypedStorage's dtype and device, and
    the class's ``dtype`` (a class property in PyTorch) warns as TypedStorage's methods do."""

    @property
    def dtype(cls):
        _warn_typed_storage_removal()
        return cls._dtype

    def __instancecheck__(cls, instance) -> bool:
        # PyTorch asks ``type(instance) is TypedStorage``; the storages torch.load hands out are
        # of a subclass here (serialization/_format.py), which stands in for TypedStorage itself
        if isinstance(instance, TypedStorage) and hasattr(cls, "_dtype"):
            device = instance._untyped_storage.device.type
            return device == cls._device and cls._dtype is instance.dtype
        return False


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    _device = "cpu"

    @classmethod
    def _legacy_new(cls, args, wrap_storage, dtype, device) -> TypedStorage:
        msg = (
            f"{cls._torch_class()}.__new__ received an invalid combination of arguments. "
            "Expected one of:\n * no arguments\n * (int size)\n * (Sequence data)\n"
            " * (*, UntypedStorage wrap_storage)"
        )
        if device is not None:
            raise RuntimeError(msg + "\nKeyword argument 'device' cannot be specified")
        if dtype is not None:
            raise RuntimeError(msg + "\nKeyword argument 'dtype' cannot be specified")
        if wrap_storage is None:
            if len(args) > 1:
                raise RuntimeError(msg + "\nToo many positional arguments")
            if args and not _isint(args[0]) and not isinstance(args[0], collections.abc.Sequence):
                raise TypeError(msg + f"\nArgument type not recognized: {type(args[0])}")
            return TypedStorage(*args, dtype=cls._dtype, device=cls._device, _internal=True)
        if args:
            raise RuntimeError(
                msg + "\nNo positional arguments should be given when using 'wrap_storage'"
            )
        if not isinstance(wrap_storage, UntypedStorage):
            raise TypeError(
                msg
                + f"\nArgument 'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}"
            )
        if wrap_storage.device.type != cls._device:
            raise RuntimeError(
                msg + f"\nDevice of 'wrap_storage' must be {cls._device}, but got "
                f"{wrap_storage.device.type}"
            )
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls._dtype, _internal=True)

    @classmethod
    def _torch_class(cls) -> str:
        return f"<class 'torch{cls.__module__[len('taimatsu') :]}.{cls.__name__}'>"


def _legacy_class(name: str, dtype, device: str = "cpu") -> type:
    module = "taimatsu" if device == "cpu" else f"taimatsu.{device}"
    attrs = {"_dtype": dtype, "_device": device, "__module__": module}
    return _LegacyStorageMeta(name, (_LegacyStorage,), attrs)


FloatStorage = _legacy_class("FloatStorage", D.float32)
DoubleStorage = _legacy_class("DoubleStorage", D.float64)
HalfStorage = _legacy_class("HalfStorage", D.float16)
BFloat16Storage = _legacy_class("BFloat16Storage", D.bfloat16)
LongStorage = _legacy_class("LongStorage", D.int64)
IntStorage = _legacy_class("IntStorage", D.int32)
ShortStorage = _legacy_class("ShortStorage", D.int16)
CharStorage = _legacy_class("CharStorage", D.int8)
ByteStorage = _legacy_class("ByteStorage", D.uint8)
BoolStorage = _legacy_class("BoolStorage", D.bool)
ComplexFloatStorage = _legacy_class("ComplexFloatStorage", D.complex64)
ComplexDoubleStorage = _legacy_class("ComplexDoubleStorage", D.complex128)

LEGACY_CLASSES = (
    FloatStorage, DoubleStorage, HalfStorage, BFloat16Storage, LongStorage, IntStorage,
    ShortStorage, CharStorage, ByteStorage, BoolStorage, ComplexFloatStorage, ComplexDoubleStorage,
)  # fmt: skip


# ``torch.cuda.FloatStorage`` & co. (served by ``taimatsu.cuda``'s module ``__getattr__``)
CUDA_STORAGE_CLASSES = {
    name: _legacy_class(name, dtype, "cuda") for dtype, name in _LEGACY_NAMES.items()
}


def _load_from_bytes(b: bytes):
    from .serialization import load

    return load(io.BytesIO(b), weights_only=False)


def typed_storage(t) -> TypedStorage:
    """``Tensor.storage()``: ``t``'s whole storage read as ``t.dtype`` (a new wrapper each call)."""
    _warn_typed_storage_removal()
    return TypedStorage(wrap_storage=t.untyped_storage(), dtype=t.dtype, _internal=True)


def is_storage(obj, /) -> bool:
    """Whether ``obj`` is a storage: an ``UntypedStorage`` or a ``TypedStorage`` (not a tensor)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def storage_type(t):
    """``Tensor.storage_type()``: the legacy class of ``t``'s dtype and device (``torch.FloatStorage``,
    ``torch.cuda.FloatStorage``; ``None`` when there is none, e.g. for uint16 or meta tensors)."""
    _warn_typed_storage_removal()
    name = _LEGACY_NAMES.get(t.dtype)
    if name is None or t.device.type not in ("cpu", "cuda"):
        return None
    return globals()[name] if t.device.type == "cpu" else CUDA_STORAGE_CLASSES[name]
