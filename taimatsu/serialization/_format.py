"""How tensors appear inside PyTorch's ``data.pkl``, in both directions.

A tensor is pickled as ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())`` where ``storage`` is a persistent id ``('storage',
torch.FloatStorage, key, location, numel)`` naming the record ``data/<key>``. Tensors that share
memory share the key, so a loaded view shares memory with its loaded base.

taimatsu writes the names PyTorch uses (``torch ...``) without importing torch: ``_Global``
stands for such a name and the pickler writes it as a GLOBAL opcode. Loading maps the same
names back to taimatsu objects (``GLOBALS``).
"""

from __future__ import annotations

import _codecs
import pickle
import sys
import types
import typing
from collections import Counter, OrderedDict

import numpy as np

from .. import _dtype as D
from .._device import device
from .._layout import layout, strided
from .._size import Size
from .._tensor.core import Tensor, _wrap
from ..storage import UntypedStorage
from ..typed_storage import TypedStorage as PublicTypedStorage

# PyTorch's legacy storage class for each dtype (the ``torch.FloatStorage`` in the pickle).
STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage",
}  # fmt: skip
_MAX_NUMEL = 2**63 - 1


class _Global:
    """A global of PyTorch's namespace, pickled as ``GLOBAL module name``."""

    __slots__ = ("module", "name")
    _cache: typing.ClassVar[dict] = {}

    def __new__(cls, module: str, name: str):
        key = (module, name)
        if key not in cls._cache:
            g = object.__new__(cls)
            g.module, g.name = module, name
            cls._cache[key] = g
        return cls._cache[key]

    def __repr__(self) -> str:  # what protocol 0 writes for a storage class in a persistent id
        return f"<class '{self.module}.{self.name}'>"

    def __call__(self, *args):  # pickle insists the reduce callable be callable
        raise TypeError(
            f"{self.module}.{self.name} is a name written into checkpoints, not a function"
        )


_REBUILD_TENSOR_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
# dtypes without a legacy storage class (uint16/32/64) are saved as PyTorch does: a byte
# storage (``torch.storage.UntypedStorage``, numel in bytes) and the dtype in ``_rebuild_tensor_v3``.
_REBUILD_TENSOR_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_UNTYPED_STORAGE = _Global("torch.storage", "UntypedStorage")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
# A meta tensor has no data: it is saved as its dtype, size, stride and requires_grad.
_REBUILD_META = _Global("torch._utils", "_rebuild_meta_tensor_no_storage")
_GET_LAYOUT = _Global("torch.serialization", "_get_layout")
_REBUILD_SPARSE = _Global("torch._utils", "_rebuild_sparse_tensor")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")


class StorageType:
    """What ``torch.FloatStorage`` & co. unpickle to: just the dtype a storage record holds."""

    __slots__ = ("dtype", "name")

    def __init__(self, name: str, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


STORAGE_TYPES = {
    name: StorageType(name, D._dtype_by_name(dt)) for dt, name in STORAGE_NAMES.items()
}
UNTYPED_STORAGE_TYPE = StorageType(
    "UntypedStorage", D.uint8
)  # bytes; the tensor record names the dtype


class TypedStorage(PublicTypedStorage):
    """What a storage record unpickles to: PyTorch's ``TypedStorage`` (printing, indexing and
    ``isinstance(s, torch.FloatStorage)`` as for ``Tensor.storage()``), the bytes (a
    ``torch.UntypedStorage``, the class ``map_location`` callables receive and return) and the
    element dtype the record names. Tensors rebuilt from it share its memory. The accessors the
    loader uses do not give the TypedStorage deprecation warning (PyTorch's loader uses silent
    ones)."""

    __slots__ = ("array",)

    def __new__(cls, untyped: UntypedStorage, dtype):
        return object.__new__(cls)

    def __init__(self, untyped: UntypedStorage, dtype) -> None:
        self._untyped_storage, self.dtype = untyped, dtype
        # One array for every tensor rebuilt from this record: they share it as their storage.
        self.array = untyped._typed(dtype)

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def size(self) -> int:
        return self.nbytes() // self.dtype.itemsize

    __len__ = size


# ---- saving ---------------------------------------------------------------------------------------
class _StorageRef:
    __slots__ = ("array", "dtype", "key", "location")

    def __init__(self, key, array, dtype, location):
        self.key, self.array, self.dtype, self.location = key, array, dtype, location


# taimatsu's public namespaces, as PyTorch names them: a function defined elsewhere (an op's
# implementation module) is written under the public name it has there
_PUBLIC = ("", ".nn.functional", ".nn.init", ".special", ".linalg", ".fft")


def torch_name(obj):
    """PyTorch's (module, qualified name) for a taimatsu class or function pickled by
    reference; None for anything else (a user's classes keep their own names)."""
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str) or not (module == "taimatsu" or module.startswith("taimatsu.")):
        return None
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(qualname, str) and _lookup(module, qualname) is obj:  # where it is defined
        return "torch" + module[len("taimatsu") :], qualname
    name = getattr(obj, "__name__", None)
    if isinstance(name, str):
        for sub in _PUBLIC:
            if _lookup("taimatsu" + sub, name) is obj:
                return "torch" + sub, name
    return None


def _lookup(module: str, dotted: str):
    """``module.dotted`` among the modules imported already (None where it is not there)."""
    obj = sys.modules.get(module)
    for part in dotted.split("."):
        if obj is None or part == "<locals>":
            return None
        obj = getattr(obj, part, None)
    return obj


class _Discard:
    """A file that keeps nothing: the C pickler's checks of a global, without its bytes."""

    def write(self, data) -> int:
        return len(data)


class Pickler(pickle._Pickler):
    """The pure-Python pickler, taught PyTorch's names for tensors, dtypes, devices and sizes.

    The C pickler cannot be used: it checks every global by importing it, and taimatsu must write
    ``torch._utils._rebuild_tensor_v2`` without torch being installed.
    """

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol: int):
        super().__init__(file, protocol)
        self.storages: dict = {}  # memory identity -> _StorageRef, in first-seen order
        self._refs: dict = {}
        # one string object per module name, as a module's ``__name__`` is: memoized once
        self._module_names: dict = {}

    def _write_global(self, module: str, name: str) -> None:
        if self.proto >= 4:  # as pickle writes a class or function: STACK_GLOBAL from 4 on
            self.save(self._module_names.setdefault(module, module))
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())

    def _save_global_name(self, obj) -> None:
        self._write_global(obj.module, obj.name)
        self.memoize(obj)

    dispatch[_Global] = _save_global_name

    def save_global(self, obj, name=None) -> None:
        """A class or function by reference. taimatsu's own are written under PyTorch's names
        (``torch.nn.modules.linear.Linear``, ``torch.sigmoid``), so that PyTorch loads a pickled
        model that holds them (taimatsu maps ``torch`` back). Where PyTorch's C pickler refuses
        one (a lambda, a class defined in a function, a name that does not lead back to it),
        that pickler's own error: its type and words differ from the pure-Python one's ("Can't
        pickle local object 'Net.__init__.<locals>.<lambda>'" is an AttributeError there)."""
        if name is None:
            named = torch_name(obj)
            if named is not None:
                self._write_global(*named)
                self.memoize(obj)
                return
            try:
                pickle.Pickler(_Discard(), self.proto).dump(obj)
            except (pickle.PicklingError, AttributeError) as e:
                raise e.with_traceback(None) from None
        super().save_global(obj, name)

    dispatch[types.FunctionType] = save_global

    def _save_dtype(self, obj) -> None:
        # one memo entry per dtype, as PyTorch's pickle has: an alias entry would shift the
        # indices of everything memoized after it
        if self.proto >= 4:
            # pickle finds a dtype's module by name in sys.modules: a string object of its own,
            # memoized apart from the ``torch`` of the classes' ``__module__``
            self.save(self._module_names.setdefault("dtype", "".join("torch")))
            self.save(obj.name)
            self.write(pickle.STACK_GLOBAL)
            self.memoize(obj)
            return
        self.save(_Global("torch", obj.name))

    dispatch[D.dtype] = _save_dtype

    def persistent_id(self, obj):
        if isinstance(obj, PublicTypedStorage):  # a storage saved as itself: its whole memory
            if obj.dtype.name not in STORAGE_NAMES:
                raise KeyError(f"dtype {obj.dtype} is not recognized")
            obj = self._storage_of(obj._tensor())[0]
        if type(obj) is _StorageRef:
            numel = obj.array.size
            if obj.dtype.name not in STORAGE_NAMES:
                return (
                    "storage",
                    _UNTYPED_STORAGE,
                    obj.key,
                    obj.location,
                    numel * obj.dtype.itemsize,
                )
            return (
                "storage",
                _Global("torch", STORAGE_NAMES[obj.dtype.name]),
                obj.key,
                obj.location,
                numel,
            )
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        t = type(obj)
        if t is Size:
            return (_SIZE, (tuple(obj),))
        if t is device:
            # PyTorch's device makes a new type string each time it is pickled: never memoized
            # together with the storages' "cpu" location
            kind = obj.type[:1] + obj.type[1:]
            return (_DEVICE, (kind,) if obj.index is None else (kind, obj.index))
        if t is layout:
            return (_GET_LAYOUT, ("torch." + obj.name,))
        return NotImplemented

    def _reduce_tensor(self, t: Tensor):
        if type(t).__name__ == "Parameter":
            plain = _wrap(t._data, t._dtype, t._device)
            plain._storage = t._storage
            return (_REBUILD_PARAMETER, (plain, t.requires_grad, OrderedDict()))
        if t.layout is not strided:  # layout and index/value tensors (taimatsu/sparse)
            from ..sparse.construction import reduce_args

            return (_REBUILD_SPARSE, reduce_args(t))
        if t._device.type == "meta":
            return (_REBUILD_META, (t._dtype, tuple(t._data.shape), t.stride(), t.requires_grad))
        ref, offset, stride = self._storage_of(t)
        if t._dtype.name not in STORAGE_NAMES:
            args = (
                ref,
                offset,
                tuple(t._data.shape),
                stride,
                t.requires_grad,
                OrderedDict(),
                t._dtype,
            )
            return (_REBUILD_TENSOR_V3, args)
        return (
            _REBUILD_TENSOR_V2,
            (ref, offset, tuple(t._data.shape), stride, t.requires_grad, OrderedDict()),
        )

    def _storage_of(self, t: Tensor):
        """The storage record for ``t`` (shared by every tensor over the same memory)."""
        from ..backend import to_numpy
        from ..ops.shape.views import storage_flat

        item = t._dtype.itemsize
        flat = storage_flat(t)
        offset, stride = t.storage_offset(), t.stride()
        bad = (
            offset < 0
            or any(s < 0 for s in t._data.strides)
            or any(s % item for s in t._data.strides)
        )
        if not bad and t._data.size:
            bad = offset + 1 + sum((n - 1) * s for n, s in zip(t._data.shape, stride)) > flat.size
        if bad:  # memory PyTorch's storages cannot describe: save a contiguous copy
            flat = t._data.reshape(-1).copy() if t._data.size else t._data.reshape(-1)
            offset, stride = 0, _contiguous_strides(t._data.shape)
            ident = ("copy", id(t))
        else:
            addr = (
                flat.__array_interface__["data"][0]
                if isinstance(flat, np.ndarray)
                else flat.data.ptr
            )
            ident = (str(t._device), addr, flat.size * item)
        ref = self.storages.get(ident)
        if ref is None:
            location = "cpu" if t._device.type == "cpu" else str(t._device)
            ref = _StorageRef(str(len(self.storages)), to_numpy(flat), t._dtype, location)
            self.storages[ident] = ref
            self._refs[ident] = t  # keep copies alive: their id() must stay unique
        elif ref.dtype is not t._dtype:
            raise RuntimeError(
                "Cannot save multiple tensors or storages that view the same data as different types"
            )
        return ref, offset, stride


def _contiguous_strides(shape):
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def storage_bytes(ref: _StorageRef):
    """The record bytes of a storage: little-endian, as a C-contiguous uint8 array (no copy on LE hosts)."""
    a = np.ascontiguousarray(ref.array)
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and not _LITTLE):
        a = a.astype(a.dtype.newbyteorder("<"))
    return a.view(np.uint8).reshape(-1)


_LITTLE = np.little_endian


# ---- loading --------------------------------------------------------------------------------------
def _check_int(name: str, v) -> int:
    if type(v) is not int and not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise RuntimeError(f"invalid tensor record: {name} must be an int, got {type(v).__name__}")
    return int(v)


def _rebuild_tensor(storage, storage_offset, size, stride) -> Tensor:
    from ..backend import xp_of
    from ..ops.shape.views import strided_array

    if not isinstance(storage, TypedStorage):
        raise RuntimeError(  # noqa: TRY004 - PyTorch's exception type
            f"invalid tensor record: expected a storage, got {type(storage).__name__}"
        )
    if not isinstance(size, tuple) or not isinstance(stride, tuple):
        raise RuntimeError("invalid tensor record: size and stride must be tuples")  # noqa: TRY004 - PyTorch's exception type
    offset = _check_int("storage offset", storage_offset)
    size = tuple(_check_int("size", s) for s in size)
    stride = tuple(_check_int("stride", s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(size)}: {list(size)}"
        )
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"invalid tensor record: negative strides are not supported, got strides: {list(stride)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    numel = 1
    for s in size:
        numel *= s
    if numel > _MAX_NUMEL:
        raise RuntimeError(
            f"invalid tensor record: sizes {list(size)} have more than 2**63 elements"
        )
    n = storage.array.size
    item = storage.dtype.itemsize
    need = 0 if numel == 0 else offset + 1 + sum((k - 1) * s for k, s in zip(size, stride))
    if need > n:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize {item} "
            f"requiring a storage size of {need * item} are out of bounds for storage of size {n * item}"
        )
    flat = storage.array
    data = strided_array(xp_of(storage.device), flat, size, stride, min(offset, n))
    t = _wrap(data, storage.dtype, storage.device)
    t._storage = flat
    return t


def rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None
):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(bool(requires_grad))
    return t


def rebuild_tensor_v3(
    storage,
    storage_offset,
    size,
    stride,
    requires_grad=False,
    backward_hooks=None,
    dtype=None,
    metadata=None,
):
    if not isinstance(dtype, D.dtype):
        raise RuntimeError(f"invalid tensor record: expected a dtype, got {type(dtype).__name__}")  # noqa: TRY004
    if isinstance(storage, TypedStorage) and storage.dtype is not dtype:
        if storage.dtype is not D.uint8 or storage.nbytes() % dtype.itemsize:
            raise RuntimeError(
                f"invalid tensor record: a storage of {storage.nbytes()} bytes cannot hold {dtype} elements"
            )
        storage = TypedStorage(storage.untyped(), dtype)
    return rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad)


def rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad=False) -> Tensor:
    """A meta tensor of ``size`` and ``stride`` (what a saved meta tensor loads as)."""
    from .._device import device as _device
    from .._meta import meta_array

    if not isinstance(dtype, D.dtype):
        raise RuntimeError(f"invalid tensor record: expected a dtype, got {type(dtype).__name__}")  # noqa: TRY004
    if not isinstance(size, tuple) or not isinstance(stride, tuple) or len(size) != len(stride):
        raise RuntimeError("invalid tensor record: size and stride must be tuples of one length")
    size = tuple(_check_int("size", s) for s in size)
    stride = tuple(_check_int("stride", s) for s in stride)
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError("invalid tensor record: negative sizes or strides")
    span = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    item = dtype.itemsize
    flat = meta_array((span,), dtype.np)
    data = np.lib.stride_tricks.as_strided(
        flat, size, tuple(s * item for s in stride), writeable=True
    )
    t = _wrap(data, dtype, _device("meta"))
    if requires_grad:
        t.requires_grad_(True)
    return t


def rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor(storage, storage_offset, size, stride)


def rebuild_parameter(data, requires_grad, backward_hooks=None, state=None):
    from ..nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise RuntimeError(  # noqa: TRY004 - PyTorch's exception type
            f"invalid parameter record: expected a Tensor, got {type(data).__name__}"
        )
    p = Parameter(data, bool(requires_grad))
    if isinstance(state, dict):
        p.__dict__.update(
            {k: v for k, v in state.items() if isinstance(k, str) and not k.startswith("_")}
        )
    return p


def rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if (
        isinstance(ret, Tensor)
        and isinstance(new_type, type)
        and issubclass(new_type, Tensor)
        and type(ret) is not new_type
    ):
        ret.__class__ = new_type
    if isinstance(state, tuple) and len(state) == 2:
        state = state[0]
    if isinstance(state, dict) and isinstance(ret, Tensor):
        ret.__dict__.update(
            {k: v for k, v in state.items() if isinstance(k, str) and not k.startswith("_")}
        )
    return ret


def rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    t = data.to(dtype=dtype, device=device)
    t.requires_grad_(bool(requires_grad))
    return t


def get_layout(name: str):
    from .. import _layout

    obj = getattr(_layout, str(name).removeprefix("torch."), None)
    if not isinstance(obj, layout):
        raise RuntimeError(f"unknown layout {name!r}")  # noqa: TRY004 - PyTorch's exception type
    return obj


def _rebuild_sparse_tensor(layout, data):
    from ..sparse.construction import rebuild_sparse_tensor

    return rebuild_sparse_tensor(layout, data)


def _parameter_class():
    from ..nn.parameter import Parameter

    return Parameter


def allowed_globals() -> dict:
    """PyTorch names a weights-only load may use, mapped to taimatsu's objects."""
    rc = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": _parameter_class(),
        "torch.serialization._get_layout": get_layout,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": _codecs.encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor": rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
        "torch.storage.UntypedStorage": UNTYPED_STORAGE_TYPE,
        "torch._utils._rebuild_parameter": rebuild_parameter,
        "torch._utils._rebuild_meta_tensor_no_storage": rebuild_meta_tensor_no_storage,
        "torch._utils._rebuild_parameter_with_state": rebuild_parameter,
        "torch._utils._rebuild_device_tensor_from_cpu_tensor": rebuild_device_tensor_from_cpu_tensor,
        "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
    }
    for d in D.all_dtypes:
        rc["torch." + d.name] = d
    for name, st in STORAGE_TYPES.items():
        rc["torch." + name] = st
    return rc
