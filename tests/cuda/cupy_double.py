"""A TEST DOUBLE for CuPy: NumPy-backed "GPU" arrays that refuse host memory as CuPy does.

This module lives in the tests and is never what a user gets. The ``fake_cupy`` fixture
(tests/cuda/conftest.py) installs it as ``cupy`` / ``cupyx`` in ``sys.modules`` for the tests
that ask for it, so taimatsu's CUDA code paths run on a machine without a GPU.

What it reproduces from CuPy (so that a code path that works here is likely to work on a GPU):

- ``ndarray`` wraps a NumPy array and refuses implicit conversion: ``np.asarray(a)`` raises
  CuPy's TypeError; mixing it with a NumPy array in an operation raises "Unsupported type";
  a NumPy function reaches it through ``__array_function__`` / ``__array_ufunc__`` only when
  CuPy has a function of that name (else NumPy's "no implementation found" TypeError).
- Reductions and integer indexing give 0-d arrays, never host scalars.
- The NumPy-only names of ``DENIED`` are absent, as they are from CuPy; so are the keyword
  arguments of ``REFUSED_KWARGS`` (``indices(sparse=)``, ``max(initial=)``, ...), ``flags``
  has no ``writeable``, ufunc methods exist only for the ufuncs CuPy gives them (``reduce`` and
  ``accumulate``: add, multiply; ``reduceat``: add; ``at``: add, maximum, minimum, for 32/64-bit
  integers and floats only, float16 for add), ``lexsort`` wants an array, ``linalg.inv`` and
  ``linalg.solve`` give NaN for a singular matrix unless ``cupyx.errstate(linalg="raise")``, and
  ``cupyx.scipy.special.polygamma`` fails on a Python number as its order. (These were found
  by the first run on a GPU, CuPy 14.2 on an H200, 2026-12-04.)
- ``cupy.cuda``: ``Device`` (two of them), ``runtime``, ``Stream``, ``Event`` and
  ``get_elapsed_time``, the default ``MemoryPool`` (counting the bytes that live arrays own;
  ``set_limit``, past which ``cupy.cuda.memory.OutOfMemoryError`` is raised as CuPy raises it),
  ``set_allocator``/``get_allocator``, ``MemoryHook``; ``cupy.random`` with a seeded generator; ``cupyx.scipy.special``,
  ``cupyx.scatter_add`` and the pinned-memory helpers.

``STATS`` counts host synchronisations (``get``, ``asnumpy``, ``item``, ``tolist``, Python
scalar conversion, printing, boolean-mask indexing and size-dependent ops such as ``nonzero``,
device/stream synchronize) and uploads of host data, with their reasons in ``STATS.log``, so a
test can assert that a training step does none.

What it cannot tell: speed, kernel launch behaviour, float rounding of GPU kernels, and every
CuPy function that exists but takes different arguments than NumPy's.
"""

from __future__ import annotations

import sys
import time
import types
import weakref
from typing import ClassVar

import numpy as np
import scipy.special

# NumPy names that CuPy does not have (a library reaching for them on a GPU array fails).
DENIED = frozenset(
    [
        "errstate",
        "seterr",
        "geterr",
        "frompyfunc",
        "nditer",
        "ma",
        "char",
        "rec",
        "ctypeslib",
        "memmap",
        "fromfile",
        "fromstring",
        "frombuffer",
        "save",
        "savez",
        "load",
        "loadtxt",
        "genfromtxt",
        "busday_count",
        "datetime_as_string",
        "set_printoptions",
        "get_printoptions",
        "printoptions",
    ]
)
# ndarray methods CuPy's ndarray lacks.
DENIED_METHODS = frozenset(
    [
        "tobytes",
        "tostring",
        "ctypes",
        "setflags",
        "resize",
        "byteswap",
        "dump",
        "dumps",
        "getfield",
        "setfield",
        "itemset",
        "tofile",
        "__array_interface__",
        "__array_struct__",
    ]
)
# Ops whose output size depends on the data: CuPy must read it back to size the result.
_DATA_SIZED = frozenset(["nonzero", "argwhere", "flatnonzero", "unique", "compress", "extract"])
# Keyword arguments of NumPy functions and methods that CuPy's versions do not take.
_NO_INITIAL = frozenset(["initial", "where"])
REFUSED_KWARGS = {
    "indices": frozenset(["sparse"]),
    **{name: _NO_INITIAL for name in ("max", "min", "amax", "amin", "nanmax", "nanmin", "sum",
                                      "prod", "nansum", "nanprod")},
    "mean": frozenset(["where"]),
}  # fmt: skip
# Functions whose first argument CuPy reads as an array (a tuple or list fails there).
_ARRAY_FIRST = frozenset(["lexsort"])
# The ufunc methods CuPy has, and for which ufuncs (``outer``: all).
_UFUNC_METHODS = {
    "reduce": ("add", "multiply"),
    "accumulate": ("add", "multiply"),
    "reduceat": ("add",),
    "at": ("add", "maximum", "minimum"),
}


class Stats:
    """Counters of host synchronisations and uploads (``reset()`` between phases)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.syncs = 0
        self.uploads = 0
        self.log: list[tuple[str, str]] = []
        self.where: list[str] = []  # where in taimatsu each entry of ``log`` came from

    def sync(self, why: str) -> None:
        self.syncs += 1
        self.log.append(("sync", why))
        self.where.append(_caller())

    def upload(self, why: str) -> None:
        self.uploads += 1
        self.log.append(("upload", why))
        self.where.append(_caller())


def _caller() -> str:
    """The innermost taimatsu frame (file:function:line) that led here, for failure messages."""
    f = sys._getframe(2)
    while f is not None and "/taimatsu/" not in f.f_code.co_filename:
        f = f.f_back
    if f is None:
        return "?"
    return f"{f.f_code.co_filename.split('/taimatsu/')[-1]}:{f.f_code.co_name}:{f.f_lineno}"


STATS = Stats()
_current_device = [0]
N_DEVICES = 2


def _unsupported(x):
    return TypeError(f"Unsupported type {type(x)}")


def _on_current_device(x: ndarray) -> None:
    """CuPy launches a kernel on the current device only, and refuses arrays of another one."""
    if x._dev != _current_device[0]:
        raise ValueError(
            "Array device must be same as the current device: "
            f"array device = {x._dev} while current = {_current_device[0]}"
        )


def _unwrap(x, allow_host: bool = False):
    """The NumPy array behind ``x``; a NumPy array (not a NumPy scalar) is refused, as by CuPy,
    and so is an array of another device than the current one."""
    if isinstance(x, ndarray):
        _on_current_device(x)
        return x._a
    if isinstance(x, np.ndarray):
        if not allow_host:
            raise _unsupported(x)
        STATS.upload("implicit host array")
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v, allow_host) for v in x)
    return x


def _wrap(r):
    if isinstance(r, np.ndarray):
        return _of(r)
    if isinstance(r, np.generic):  # CuPy never returns host scalars from array ops
        return _of(np.asarray(r))
    if isinstance(r, tuple):
        return tuple(_wrap(v) for v in r)
    if isinstance(r, list):
        return [_wrap(v) for v in r]
    return r


def _delegate(fn, name: str):
    refused = REFUSED_KWARGS.get(name, frozenset())

    def call(*args, **kwargs):
        for k in kwargs:
            if k in refused:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        if name in _ARRAY_FIRST and args and isinstance(args[0], (tuple, list)):
            raise AttributeError(f"'{type(args[0]).__name__}' object has no attribute 'ndim'")
        if name in _DATA_SIZED:
            STATS.sync(name)
        args = _unwrap(args)
        kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        return _wrap(fn(*args, **kwargs))

    call.__name__ = name
    return call


class ufunc:
    """A CuPy ufunc over NumPy's: ``__call__``, ``reduce``, ``accumulate``, ``at``, ``outer``."""

    def __init__(self, np_ufunc) -> None:
        self._u = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.nin, self.nout, self.nargs = np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs

    def __call__(self, *args, **kwargs):
        return _delegate(self._u, self.__name__)(*args, **kwargs)

    def __getattr__(self, method):
        if method not in ("reduce", "accumulate", "at", "outer", "reduceat"):
            raise AttributeError(method)
        if method != "outer" and self.__name__ not in _UFUNC_METHODS[method]:
            message = f"`cupy_{self.__name__}.{method}` is not supported yet"

            def refuse(*args, **kwargs):
                raise NotImplementedError(message)

            return refuse
        call = _delegate(getattr(self._u, method), f"{self.__name__}.{method}")
        if method == "at" and self.__name__ in _AT_DTYPES:
            return _typed_at(call, self.__name__)
        return call


# The dtype chars CuPy's ufunc.at takes (CuPy 14.2), and its error's list of them.
_AT_DTYPES = {
    "add": ("iIlLqQefd", "int32, int64, float16, float32, float64, uint32, uint64"),
    "maximum": ("iIlLqQfd", "int32, int64, float32, float64, uint32, uint64"),
    "minimum": ("iIlLqQfd", "int32, int64, float32, float64, uint32, uint64"),
}


def _typed_at(call, name: str):
    """CuPy's ``add.at`` / ``maximum.at`` / ``minimum.at`` take only some dtypes."""
    chars, listed = _AT_DTYPES[name]

    def at(a, indices, b=None):
        if a.dtype.char not in chars:
            raise TypeError(f"cupy.{name}.at only supports {listed} as data type")
        return call(a, indices, b)

    return at


class _Flags:
    """``ndarray.flags`` as CuPy's: contiguity and ownership, no ``writeable``."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, flags) -> None:
        self.c_contiguous, self.f_contiguous = flags.c_contiguous, flags.f_contiguous
        self.owndata = flags.owndata


class _Data:
    """``ndarray.data``: a memory pointer (``ptr``) to the array's first element."""

    def __init__(self, a: np.ndarray) -> None:
        self._a = a  # keeps the memory alive, as CuPy's pointer does
        self.ptr = a.__array_interface__["data"][0]


class ndarray:
    """A CuPy array on the current device, backed by a NumPy array."""

    __array_priority__ = 100
    __slots__ = ("__weakref__", "_a", "_dev")

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C") -> None:
        """CuPy's constructor: new memory, or a view of ``memptr`` (an array's ``data``)."""
        if memptr is None:
            a = np.empty(shape, dtype, order)
        else:
            strides = strides or np.empty(shape, dtype).strides
            src = memptr._a if memptr._a.dtype == dtype else memptr._a.view(dtype)
            a = np.lib.stride_tricks.as_strided(src, shape, strides)
        self._set(a, None)

    def _set(self, a: np.ndarray, device: int | None) -> None:
        self._a = a
        self._dev = _current_device[0] if device is None else device
        if a.base is None and a.nbytes:  # this array owns its memory: the pool serves it
            _allocator[0](a.nbytes)
            _POOL._alloc(self, a.nbytes)

    # -- refusing host memory, as CuPy does
    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly."
        )

    def __array_ufunc__(self, uf, method, *inputs, **kwargs):
        mine = getattr(_module, uf.__name__, None)
        if not isinstance(mine, ufunc):
            return NotImplemented
        if "out" in kwargs:
            kwargs["out"] = tuple(kwargs["out"])
        fn = mine if method == "__call__" else getattr(mine, method)
        return fn(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        ns = _module
        for part in func.__module__.split(".")[1:]:
            ns = getattr(ns, part, None)
        fn = getattr(ns, func.__name__, None) if ns is not None else None
        if fn is None or func.__name__ in DENIED:
            return NotImplemented
        return fn(*args, **kwargs)

    # -- explicit transfers and synchronising reads
    def get(self, stream=None, order="C", out=None) -> np.ndarray:
        STATS.sync("get")
        return self._a.copy(order=order)

    def item(self, *args):
        STATS.sync("item")
        return self._a.item(*args)

    def tolist(self):
        STATS.sync("tolist")
        return self._a.tolist()

    def _scalar(self, kind: str, conv):
        STATS.sync(kind)
        return conv(self._a)

    def __bool__(self) -> bool:
        return self._scalar("__bool__", bool)

    def __float__(self) -> float:
        return self._scalar("__float__", float)

    def __int__(self) -> int:
        return self._scalar("__int__", int)

    def __complex__(self) -> complex:
        return self._scalar("__complex__", complex)

    def __index__(self) -> int:
        return self._scalar("__index__", lambda a: a.__index__())

    def __repr__(self) -> str:
        STATS.sync("repr")
        return repr(self._a)

    def __str__(self) -> str:
        STATS.sync("str")
        return str(self._a)

    def __format__(self, spec: str) -> str:
        STATS.sync("format")
        return format(self._a, spec)

    # -- plain attributes
    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, value):  # CuPy, as NumPy, raises AttributeError when a copy would be needed
        self._a.shape = value

    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: _Flags(self._a.flags))
    data = property(lambda self: _Data(self._a))
    device = property(lambda self: cuda.Device(self._dev))
    T = property(lambda self: _of(self._a.T, self._dev))
    mT = property(lambda self: _of(self._a.mT, self._dev))
    base = property(lambda self: None if self._a.base is None else _wrap(self._a.base))

    @property
    def real(self):
        return _wrap(self._a.real)

    @real.setter
    def real(self, v):
        self._a.real = _unwrap(v)

    @property
    def imag(self):
        return _wrap(self._a.imag)

    @imag.setter
    def imag(self, v):
        self._a.imag = _unwrap(v)

    @property
    def __cuda_array_interface__(self) -> dict:
        i = self._a.__array_interface__
        return {"shape": i["shape"], "typestr": i["typestr"], "data": i["data"],
                "strides": i["strides"], "version": 3}  # fmt: skip

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        for i in range(len(self._a)):
            yield self[i]

    def __getitem__(self, key):
        if _is_basic(key):  # a view: no kernel, on the array's own device
            return _of(self._a[key], self._dev)
        _on_current_device(self)
        return _wrap(self._a[_wrap_out_of_bounds(self._a.shape, _index(key))])

    def __setitem__(self, key, value) -> None:
        _on_current_device(self)
        self._a[_index(key)] = _unwrap(value, allow_host=True)

    def __getattr__(self, name):
        if name.startswith("__") or name in DENIED_METHODS:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        attr = getattr(self._a, name)
        if not callable(attr):
            return _wrap(attr)
        if name == "copy" or name in _VIEWS:  # on the array's own device, whatever the current
            return lambda *args, **kwargs: _wrap_on(attr(*args, **kwargs), self._dev)
        _on_current_device(self)
        return _delegate(attr, name)

    def __copy__(self):
        return _of(self._a.copy(), self._dev)

    def __deepcopy__(self, memo):
        return _of(self._a.copy(), self._dev)

    def __reduce__(self):  # CuPy arrays pickle through the host
        return (_from_host, (self.get(),))

    def __dlpack_device__(self):
        return (2, self._dev)  # kDLCUDA

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A real DLPack capsule over the NumPy memory, its device field set to (kDLCUDA, this
        array's device) as CuPy's capsules carry: a consumer that trusts the capsule's device
        sees a GPU array, as with CuPy (NumPy itself then refuses it)."""
        capsule = self._a.__dlpack__()  # legacy "dltensor": DLManagedTensor, DLTensor first
        _capsule_device_field(capsule)[:] = (2, self._dev)
        return capsule


# Methods that make a view (no kernel launch: CuPy runs them on an array of any device) or,
# for copy(), switch to the array's device themselves.
_VIEWS = frozenset(["transpose", "swapaxes", "view", "squeeze", "reshape", "diagonal"])


def _is_basic(key) -> bool:
    keys = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, slice)) for k in keys)


def _wrap_on(r, device: int):
    return _of(r, device) if isinstance(r, np.ndarray) else r


def _of(a: np.ndarray, device: int | None = None) -> ndarray:
    """A double array holding ``a`` (on the current device unless ``device``)."""
    obj = ndarray.__new__(ndarray)
    obj._set(a, device)
    return obj


def _from_host(a):
    return _of(a)


def _index(key):
    """An index for the NumPy array; a boolean mask must be read back to size the result."""
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, ndarray):
        if key.dtype == np.bool_:
            STATS.sync("boolean mask index")
        return key._a
    if isinstance(key, np.ndarray):  # CuPy uploads a host index array
        STATS.upload("host index array")
        return key
    if isinstance(key, list):
        return [_index(k) for k in key]
    return key


def _wrap_out_of_bounds(shape, key):
    """CuPy's integer-array indexing wraps out-of-bounds indices around instead of raising
    (CuPy's documented difference from NumPy); done here for positional keys."""
    keys = key if isinstance(key, tuple) else (key,)
    if any(k is None or k is Ellipsis for k in keys) or len(keys) > len(shape):
        return key
    out = tuple(
        np.mod(k, shape[i])
        if isinstance(k, np.ndarray) and k.dtype.kind in "iu" and shape[i]
        else k
        for i, k in enumerate(keys)
    )
    return out if isinstance(key, tuple) else out[0]


def _binop(uname: str, reflected: bool = False):
    def op(self, other):
        if isinstance(other, np.ndarray):
            raise _unsupported(other)
        u = getattr(_module, uname)
        return u(other, self) if reflected else u(self, other)

    return op


def _inplace(uname: str):
    def op(self, other):
        getattr(_module, uname)(self, other, out=self)
        return self

    return op


for _name, _u in [
    ("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "true_divide"),
    ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"), ("matmul", "matmul"),
    ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
    ("lshift", "left_shift"), ("rshift", "right_shift"),
]:  # fmt: skip
    setattr(ndarray, f"__{_name}__", _binop(_u))
    setattr(ndarray, f"__r{_name}__", _binop(_u, reflected=True))
    setattr(ndarray, f"__i{_name}__", _inplace(_u))
for _name, _u in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                  ("ge", "greater_equal"), ("eq", "equal"), ("ne", "not_equal")]:  # fmt: skip
    setattr(ndarray, f"__{_name}__", _binop(_u))
ndarray.__hash__ = None
ndarray.__neg__ = lambda self: _module.negative(self)
ndarray.__pos__ = lambda self: _module.positive(self)
ndarray.__abs__ = lambda self: _module.absolute(self)
ndarray.__invert__ = lambda self: _module.invert(self)
ndarray.__divmod__ = lambda self, o: (self // o, self % o)
ndarray.__module__ = "cupy"


# ---- memory pool, hooks ------------------------------------------------------------------------
class MemoryHook:
    """CuPy's ``cupy.cuda.MemoryHook``: ``with hook:`` calls ``malloc_postprocess`` and
    ``free_postprocess`` around the pool's allocations (CuPy's hooks are thread-local; here
    they are global, which single-threaded tests cannot tell apart)."""

    name = "MemoryHook"

    def __enter__(self):
        _HOOKS.append(self)
        return self

    def __exit__(self, *exc):
        _HOOKS.remove(self)

    def malloc_postprocess(self, **kw):
        pass

    def free_postprocess(self, **kw):
        pass


_HOOKS: list = []


class OutOfMemoryError(MemoryError):
    """``cupy.cuda.memory.OutOfMemoryError``, with CuPy's message."""

    def __init__(self, size: int, total: int, limit: int = 0) -> None:
        if limit:
            msg = (f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes, "
                   f"limit set to: {limit:,} bytes).")  # fmt: skip
        else:
            msg = f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes)."
        super().__init__(msg)


class MemoryPool:
    """The default device memory pool: bytes of live arrays (``used``) and of blocks kept for
    reuse (``total``) until ``free_all_blocks``. ``malloc`` (what CuPy's allocator calls for
    every new array here) only enforces ``set_limit``: the bytes are counted by ``_alloc``."""

    def __init__(self) -> None:
        self._used = 0
        self._cached = 0
        self._limit = 0

    def set_limit(self, size=None, fraction=None) -> None:
        self._limit = int(size or 0)

    def get_limit(self) -> int:
        return self._limit

    def malloc(self, size: int) -> None:
        if self._limit and self._used + size > self._limit:
            raise OutOfMemoryError(size, self._used, self._limit)

    def _alloc(self, arr: ndarray, n: int) -> None:
        self._used += n
        self._cached = max(0, self._cached - n)
        for h in _HOOKS:
            h.malloc_postprocess(device_id=arr._dev, size=n, mem_size=n, mem_ptr=0, pmem_id=0)
        weakref.finalize(arr, self._free, n)

    def _free(self, n: int) -> None:
        self._used -= n
        self._cached += n
        for h in _HOOKS:
            h.free_postprocess(device_id=0, mem_size=n, mem_ptr=0, pmem_id=0)

    def used_bytes(self) -> int:
        return self._used

    def free_bytes(self) -> int:
        return self._cached

    def total_bytes(self) -> int:
        return self._used + self._cached

    def free_all_blocks(self, stream=None) -> None:
        self._cached = 0

    def n_free_blocks(self) -> int:
        return 0


_POOL = MemoryPool()
_allocator = [_POOL.malloc]  # cupy.cuda.set_allocator's current allocator


def set_allocator(allocator=None) -> None:
    _allocator[0] = _POOL.malloc if allocator is None else allocator


def get_allocator():
    return _allocator[0]


# ---- cupy.cuda ---------------------------------------------------------------------------------
class Device:
    """``cupy.cuda.Device(i)``: a context that makes ``i`` the current device."""

    def __init__(self, device=None) -> None:
        self.id = _current_device[0] if device is None else int(device)
        if not 0 <= self.id < N_DEVICES:
            raise RuntimeError("CUDARuntimeError: cudaErrorInvalidDevice: invalid device ordinal")
        self._prev: list[int] = []

    compute_capability = property(lambda self: "90")
    mem_info = property(lambda self: (_TOTAL_MEM - _POOL.total_bytes(), _TOTAL_MEM))

    def use(self) -> None:
        _current_device[0] = self.id

    def synchronize(self) -> None:
        STATS.sync("Device.synchronize")

    def __enter__(self):
        self._prev.append(_current_device[0])
        _current_device[0] = self.id
        return self

    def __exit__(self, *exc):
        _current_device[0] = self._prev.pop()

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return self.id

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


_TOTAL_MEM = 16 * 2**30


class Stream:
    """``cupy.cuda.Stream``: work here runs at once, so ``done`` is always True."""

    _stack: ClassVar[list] = []

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False,
                 priority: int | None = None) -> None:  # fmt: skip
        self.ptr = 0 if null else id(self)
        self.device_id = _current_device[0]
        self.priority = priority or 0

    done = property(lambda self: True)

    def synchronize(self) -> None:
        STATS.sync("Stream.synchronize")

    def use(self):
        Stream._stack[:] = [self]
        return self

    def wait_event(self, event) -> None:
        pass

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __enter__(self):
        Stream._stack.append(self)
        return self

    def __exit__(self, *exc):
        Stream._stack.pop()

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self):
        return hash(self.ptr)


Stream.null = Stream(null=True)


def get_current_stream(device_id=None) -> Stream:
    return Stream._stack[-1] if Stream._stack else Stream.null


class Event:
    """``cupy.cuda.Event``: records the host clock (work here is synchronous)."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:  # fmt: skip
        self.disable_timing = disable_timing
        self._t: float | None = None
        self.ptr = id(self)

    done = property(lambda self: True)

    def record(self, stream=None) -> None:
        self._t = time.perf_counter()

    def synchronize(self) -> None:
        STATS.sync("Event.synchronize")


def get_elapsed_time(start: Event, end: Event) -> float:
    if start.disable_timing or end.disable_timing or start._t is None or end._t is None:
        raise RuntimeError("cudaErrorInvalidResourceHandle: invalid resource handle")
    return (end._t - start._t) * 1000.0


_PINNED: dict[int, int] = {}  # address -> nbytes of host buffers from the pinned helpers


def _pinned(a: np.ndarray) -> np.ndarray:
    ptr = a.__array_interface__["data"][0]
    _PINNED[ptr] = a.nbytes
    weakref.finalize(a, _PINNED.pop, ptr, None)  # freed: the address may serve plain memory
    return a


class _PointerAttributes:
    def __init__(self, ptr: int) -> None:
        pinned = any(p <= ptr < p + n for p, n in _PINNED.items())
        self.type = 1 if pinned else 0  # cudaMemoryTypeHost / cudaMemoryTypeUnregistered
        self.device = 0 if pinned else -2
        self.devicePointer = ptr if pinned else 0
        self.hostPointer = ptr if pinned else 0


runtime = types.SimpleNamespace(
    getDeviceCount=lambda: N_DEVICES,
    getDevice=lambda: _current_device[0],
    setDevice=lambda i: _current_device.__setitem__(0, int(i)),
    memGetInfo=lambda: Device().mem_info,
    getDeviceProperties=lambda i: {
        "name": b"CuPy test double (NumPy)",
        "totalGlobalMem": _TOTAL_MEM,
        "major": 9,
        "minor": 0,
        "multiProcessorCount": 4,
        "warpSize": 32,
        "uuid": bytes(16),
        "pciBusID": i,
        "pciDeviceID": 0,
        "pciDomainID": 0,
        "l2CacheSize": 2**20,
    },
    deviceSynchronize=lambda: STATS.sync("deviceSynchronize"),
    pointerGetAttributes=_PointerAttributes,
    runtimeGetVersion=lambda: 12080,
    driverGetVersion=lambda: 12080,
    is_hip=False,
)

cuda = types.ModuleType("cupy.cuda")
cuda.Device = Device
cuda.Stream = Stream
cuda.Event = Event
cuda.MemoryPool = MemoryPool
cuda.MemoryHook = MemoryHook
cuda.set_allocator = set_allocator
cuda.get_allocator = get_allocator
cuda.memory = types.ModuleType("cupy.cuda.memory")
cuda.memory.OutOfMemoryError = OutOfMemoryError
cuda.memory.MemoryPool = MemoryPool
cuda.runtime = runtime
cuda.get_current_stream = get_current_stream
cuda.get_elapsed_time = get_elapsed_time
cuda.is_available = lambda: True
cuda.curand = types.SimpleNamespace(CURAND_RNG_PSEUDO_PHILOX4_32_10=161)


# ---- the cupy module ---------------------------------------------------------------------------
class _Namespace(types.ModuleType):
    """A module delegating to a NumPy namespace: functions wrapped, ufuncs as ``ufunc``,
    types and constants passed through (CuPy shares NumPy's dtypes)."""

    def __init__(self, name: str, source, denied=frozenset()) -> None:
        super().__init__(name)
        self._source = source
        self._denied = denied

    def __getattr__(self, name):
        if name.startswith("__") or name in self._denied:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        attr = getattr(self._source, name)
        if isinstance(attr, np.ufunc):
            attr = ufunc(attr)
        elif callable(attr) and not isinstance(attr, type):
            attr = _delegate(attr, name)
        elif isinstance(attr, types.ModuleType):
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")  # noqa: TRY004 - CuPy lacks that NumPy submodule
        setattr(self, name, attr)
        return attr


def asarray(a, dtype=None, order=None, *, blocking=False):
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    STATS.upload("asarray")
    host = np.asarray(a, dtype=dtype, order=order)
    return _of(np.array(host, copy=True))  # device memory is never the host buffer


def array(a, dtype=None, copy=True, order="K", ndmin=0, *, blocking=False):
    if isinstance(a, ndarray):
        return _of(np.array(a._a, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    STATS.upload("array")
    return _of(np.array(a, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    if isinstance(a, ndarray):
        return a.get(order=order)
    return np.asarray(a, order=order)


def _seed(s=None) -> None:
    global _rs
    _rs = np.random.RandomState(s)
    random_module._source = _rs
    for k in list(vars(random_module)):
        if not k.startswith("_") and k not in ("seed", "RandomState", "default_rng"):
            delattr(random_module, k)


_rs = np.random.RandomState(0)
random_module = _Namespace("cupy.random", _rs)
random_module.seed = _seed


class RandomState:
    """``cupy.random.RandomState`` as taimatsu's CUDA generator uses it (a double: NumPy's
    Philox bit generator stands in for cuRAND's, so the numbers are neither cuRAND's nor
    PyTorch's): ``seed`` with CuPy's 64-bit range check, ``random_sample``,
    ``standard_normal`` and ``randint`` with CuPy's ``size`` / ``dtype`` arguments, results on
    the current device."""

    def __init__(self, seed=None, method=None) -> None:
        self.method = method
        self.seed(seed)

    def seed(self, seed=None) -> None:
        if seed is not None and not 0 <= int(seed) < 2**64:
            raise ValueError("Seed must be an integer between 0 and 2**64 - 1")
        self._g = np.random.Generator(np.random.Philox(seed))

    def random_sample(self, size=None, dtype=float):
        if np.dtype(dtype) not in (np.float32, np.float64):
            raise TypeError(f"Unsupported dtype {np.dtype(dtype)}")
        return _of(np.asarray(self._g.random(size, dtype)))

    def standard_normal(self, size=None, dtype=float):
        if np.dtype(dtype) not in (np.float32, np.float64):
            raise TypeError(f"Unsupported dtype {np.dtype(dtype)}")
        return _of(np.asarray(self._g.standard_normal(size, dtype)))

    def randint(self, low, high=None, size=None, dtype=int):
        low, high = (0, low) if high is None else (low, high)
        return _of(np.asarray(self._g.integers(low, high, size, dtype)))


random_module.RandomState = RandomState
random_module.default_rng = lambda seed=None: _Namespace("cupy.random.Generator",
                                                         np.random.default_rng(seed))  # fmt: skip

_module = _Namespace("cupy", np, DENIED)


def _capsule_device_field(capsule):
    """The (device_type, device_id) int32 pair of a legacy DLPack capsule's DLTensor, writable."""
    import ctypes

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return (ctypes.c_int32 * 2).from_address(get(capsule, b"dltensor") + 8)  # after `data`


class _CpuCapsule:
    """Hands NumPy a capsule (set back to kDLCPU) to read, as a DLPack producer."""

    def __init__(self, capsule) -> None:
        self._capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def _from_dlpack(x):
    """``cupy.from_dlpack``: an array sharing the producer's GPU memory, on the producer's
    device; a CPU producer is refused (this double models CuPy without host import)."""
    if isinstance(x, ndarray):
        return _of(x._a, x._dev)
    capsule = x.__dlpack__() if hasattr(x, "__dlpack__") else x
    field = _capsule_device_field(capsule)
    kind, dev = int(field[0]), int(field[1])
    if kind != 2:
        raise BufferError(f"the DLPack tensor is on device type {kind}, not CUDA (2)")
    field[:] = (1, 0)
    a = np.from_dlpack(_CpuCapsule(capsule))  # NumPy marks it read-only; CuPy's is writable
    view = types.SimpleNamespace(
        __array_interface__=dict(a.__array_interface__, data=(a.ctypes.data, False)), owner=a
    )
    return _of(np.asarray(view), dev)


def _take_along_axis(a, indices, axis):
    a, indices = _unwrap(a), _unwrap(indices)
    n = a.size if axis is None else a.shape[axis]
    return _wrap(np.take_along_axis(a, np.mod(indices, n) if n else indices, axis))


def _take(a, indices, axis=None, out=None):
    a, indices = _unwrap(a), _unwrap(indices)
    n = a.size if axis is None else a.shape[axis]
    return _wrap(np.take(a, np.mod(indices, n) if n else indices, axis, _unwrap(out)))


_module.take_along_axis = _take_along_axis  # out-of-bounds indices wrap around, as in CuPy
_module.take = _take
_module.__file__ = __file__
_module.ndarray = ndarray
_module.ufunc = ufunc
_module.asarray = asarray
_module.array = array
_module.asnumpy = asnumpy
_module.cuda = cuda
_module.random = random_module
_module.linalg = _Namespace("cupy.linalg", np.linalg)
_LINALG = ["ignore"]  # cupyx.errstate(linalg=...): CuPy's default does not raise


def _unchecked(name: str):
    """CuPy's inv/solve: a singular matrix gives NaN (its cuSOLVER info unread) unless
    ``cupyx.errstate(linalg="raise")``, where NumPy's LinAlgError is raised."""
    call = _delegate(getattr(np.linalg, name), name)

    def run(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except np.linalg.LinAlgError:
            if _LINALG[0] == "raise":
                raise
            shape = args[-1].shape if name == "solve" else args[0].shape
            return _of(np.full(shape, np.nan, args[0].dtype))

    return run


for _name in ("inv", "solve"):
    setattr(_module.linalg, _name, _unchecked(_name))
_module.fft = _Namespace("cupy.fft", np.fft)
_module.lib = types.ModuleType("cupy.lib")
_module.lib.stride_tricks = _Namespace("cupy.lib.stride_tricks", np.lib.stride_tricks)
_module.get_default_memory_pool = lambda: _POOL
_module.get_default_pinned_memory_pool = lambda: MemoryPool()
_module.from_dlpack = _from_dlpack
FUSED_CALLS: list = []  # the kernel names of fuse()'d functions called (tests read it)


def fuse(*args, kernel_name=None):
    """``cupy.fuse``: here the Python function runs on the arrays as they are (the double has no
    compiler); the call is recorded in FUSED_CALLS so that a test sees the fused path ran."""

    def wrap(fn):
        def call(*arrays):
            FUSED_CALLS.append(kernel_name or fn.__name__)
            return fn(*arrays)

        return call

    if len(args) == 1 and callable(args[0]):
        return wrap(args[0])
    return wrap


_module.fuse = fuse
_module.__version__ = "13.0.0-testdouble"
_module.is_test_double = True

cupyx = types.ModuleType("cupyx")
cupyx.scipy = types.ModuleType("cupyx.scipy")
cupyx.scipy.special = _Namespace("cupyx.scipy.special", scipy.special)


def _polygamma(n, x):
    """CuPy's polygamma compares its order with 0 through ``cupy.where``, which fails on the
    bool a Python number gives."""
    if not isinstance(n, ndarray):
        raise AttributeError("'bool' object has no attribute 'astype'")  # noqa: TRY004 - CuPy's
    return _delegate(scipy.special.polygamma, "polygamma")(n, x)


cupyx.scipy.special.polygamma = _polygamma


def scatter_add(a, slices, value) -> None:
    np.add.at(_unwrap(a), _index(slices), _unwrap(value))


cupyx.scatter_add = scatter_add


class _Errstate:
    """``cupyx.errstate(linalg=...)``: whether cupy.linalg raises on a singular matrix."""

    def __init__(self, *, linalg=None, **others) -> None:
        self.linalg = linalg

    def __enter__(self):
        self.saved = _LINALG[0]
        if self.linalg is not None:
            _LINALG[0] = self.linalg
        return self

    def __exit__(self, *exc) -> None:
        _LINALG[0] = self.saved


cupyx.errstate = _Errstate
cupyx.empty_pinned = lambda shape, dtype=float, order="C": _pinned(np.empty(shape, dtype, order))
cupyx.zeros_pinned = lambda shape, dtype=float, order="C": _pinned(np.zeros(shape, dtype, order))
cupyx.empty_like_pinned = lambda a, dtype=None: _pinned(np.empty_like(a, dtype))

MODULES = {
    "cupy": _module,
    "cupy.cuda": cuda,
    "cupy.cuda.runtime": runtime,
    "cupy.cuda.memory": cuda.memory,
    "cupy.random": random_module,
    "cupy.linalg": _module.linalg,
    "cupy.fft": _module.fft,
    "cupyx": cupyx,
    "cupyx.scipy": cupyx.scipy,
    "cupyx.scipy.special": cupyx.scipy.special,
}


def install() -> None:
    """Put the double in ``sys.modules`` (the fixture undoes it)."""
    sys.modules.update(MODULES)
    _current_device[0] = 0
    set_allocator(None)
    _POOL.set_limit(0)
    STATS.reset()
