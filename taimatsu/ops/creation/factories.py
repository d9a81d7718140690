"""Tensor creation: tensor/as_tensor/from_numpy, factories (zeros, ones, full, arange,
linspace, eye, ...), the ``_like`` forms, conversions (``Tensor.to``) and the legacy
constructors (``torch.Tensor(2, 3)``, ``torch.FloatTensor([1, 2])``)."""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from taimatsu.ops.introspection import _need_tensor

from ... import _dtype as D
from ..._device import as_device, cpu
from ..._device import device as _device_cls
from ..._layout import channels_last_order, is_contiguous_in, relayout
from ..._size import Size
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from ...typed_storage import TypedStorage, is_storage
from .._dispatch import _fw_state, need_tensor, record, xp_for
from ..arg_types import int_list, python_int_range
from ..shape.diagonal import _tangent


def _xp(dev):
    if dev.type != "cuda":  # cpu, and meta (NumPy arrays over zero pages)
        return np
    from ...backend import xp_of

    return xp_of(dev)  # CuPy on dev's GPU


def _meta_data(shape, dtype):
    """Stands for a factory's data on the meta device: nothing is allocated, filled or drawn
    (``_finish`` lays the meta array out)."""
    return np.broadcast_to(np.zeros((), dtype.np), shape)


def _finish(data, dtype, dev, requires_grad: bool) -> Tensor:
    if requires_grad and dtype.category < D.FLOAT:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    if dev.type != "cpu":
        from ...backend import to_device

        data = to_device(data, dev)
    t = _wrap(data, dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    if _gm.inference:
        t.__dict__["_inference"] = True
    return t


# ---- tensor() ------------------------------------------------------------------------------------
def _infer_shape(data) -> list:
    """Shape of a nested sequence from its first items (the ragged check comes later)."""
    shape = []
    probe = data
    while isinstance(probe, (list, tuple)):
        shape.append(len(probe))
        if not probe:
            break
        probe = probe[0]
        if isinstance(probe, np.ndarray) and probe.ndim == 0:
            # PyTorch's shape walk takes an array for a sequence, and a 0-d one has no length
            raise TypeError("len() of unsized object")
        if isinstance(probe, np.ndarray):
            shape.extend(probe.shape)
            break
        if isinstance(probe, Tensor):  # a tensor item is a scalar here (item() when stored)
            break
        if isinstance(probe, str):
            # PyTorch's shape walk takes a str for a sequence whose first item is a str again
            raise ValueError("too many dimensions 'str'")  # noqa: TRY004 - PyTorch's type
    return shape


def _check_ragged(data, dim, shape, on_array=None):
    """PyTorch's copy loop's checks, in its order; ``on_array()`` runs at each NumPy array met."""
    if on_array is not None and isinstance(data, np.ndarray):
        on_array()
    if dim >= len(shape):
        if isinstance(data, (list, tuple)):
            raise ValueError(f"expected sequence of length {0} at dim {dim} (got {len(data)})")
        if isinstance(data, Tensor) and data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return
    if isinstance(data, (Tensor, np.ndarray)):
        if tuple(data.shape) != tuple(shape[dim:]):
            raise ValueError(
                f"expected sequence of length {shape[dim]} at dim {dim} (got {data.shape[0] if data.shape else 0})"
            )
        return
    if not isinstance(data, (list, tuple)):
        raise TypeError("not a sequence")
    if len(data) != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})")
    for x in data:
        _check_ragged(x, dim + 1, shape, on_array)


def _infer_dtype(flat_kinds) -> D.dtype:
    cat = builtins.max(flat_kinds) if flat_kinds else D.FLOAT
    return {
        D.BOOL: D.bool,
        D.INT: D.int64,
        D.FLOAT: D.get_default_dtype(),
        D.COMPLEX: D.default_complex(),
    }[cat]


def _kind(x) -> int:
    if isinstance(x, (bool, np.bool_)):
        return D.BOOL
    if isinstance(x, numbers.Integral):
        return D.INT
    if isinstance(x, numbers.Real):
        return D.FLOAT
    if isinstance(x, numbers.Complex):
        return D.COMPLEX
    if isinstance(x, (str, bytes, bytearray)):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _sequence_dtype(flat) -> D.dtype:
    """PyTorch's dtype for a sequence's elements: the promotion of each one's type, Python
    numbers by their kind (int64, the default float or complex type, bool), NumPy scalars and
    arrays and tensors by their own dtype (``[np.int16(1)]`` is int16, ``[np.float64(1),
    np.float32(1)]`` float64)."""
    kinds = set()
    found = []
    for x in flat:
        if isinstance(x, Tensor):
            t = x._dtype
        elif isinstance(x, (np.ndarray, np.generic)):
            t = D.from_user_numpy_dtype(x.dtype)
        else:
            kinds.add(_kind(x))
            continue
        if t not in found:
            found.append(t)
    dtype = _infer_dtype(kinds) if kinds or not found else found[0]
    for t in found:
        dtype = D.promote_types(dtype, t)
    return dtype


def _to_array(data, dtype):
    """Turn Python data (numbers, nested lists, arrays, tensors) into (array, dtype)."""
    if isinstance(data, Tensor):
        a = _numpy(data)
        return a, dtype or data._dtype
    if isinstance(data, (np.ndarray, np.generic)):  # PyTorch checks the type, dtype= or not
        found = D.from_user_numpy_dtype(data.dtype)
        return np.asarray(data), dtype or found
    if isinstance(data, (list, tuple)):
        # PyTorch's order: the shape from the first items, the dtype from every item, then the
        # ragged check (so [[1, 2], None] names None's dtype, not a missing sequence)
        shape = _infer_shape(data)
        flat = list(_flatten(data))
        if dtype is None:
            dtype = _sequence_dtype(flat)
        else:
            _check_storable(flat, dtype)
        # PyTorch's copy loop warns at the first NumPy array it meets (none when nothing is copied)
        _check_ragged(data, 0, shape, _warn_ndarrays if math.prod(shape) else None)
        vals = [_numpy(x) if isinstance(x, Tensor) else x for x in flat]
        arrays = any(isinstance(v, np.ndarray) for v in vals)
        if dtype.category == D.INT and not arrays:
            vals = [_checked_fill(v, dtype, fill=False) for v in vals]
        if vals and arrays:
            # arrays and tensors may sit at any depth: [np.ones(2), [1, 2]]
            arr = _stack_nested(data, dtype, shape)
        else:
            arr = _array_of(vals, dtype)
        return arr.reshape(shape), dtype
    if isinstance(data, (bool, numbers.Number)):
        if dtype is not None:
            return np.array(_checked_fill(data, dtype, fill=False), dtype.np), dtype
        return np.asarray(data), _infer_dtype({_kind(data)})
    if hasattr(data, "__array__"):
        a = np.asarray(data)
        return a, dtype or D.from_user_numpy_dtype(a.dtype)
    if dtype is not None:
        _check_storable([data], dtype)
    _kind(data)  # raises PyTorch's error for what is no number
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


_NDARRAYS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list to a "
    "single numpy.ndarray with numpy.array() before converting to a tensor. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)"
)


def _warn_ndarrays() -> None:
    from ..._flags import user_stacklevel, warn_once

    warn_once("tensor_from_ndarrays", _NDARRAYS_WARNING, user_stacklevel() + 1)


def _stack_nested(data, dtype, shape) -> np.ndarray:
    """A (ragged-checked) nested sequence of ``shape`` holding arrays or tensors, as one array of
    ``dtype`` (a one-element tensor in a scalar's place is that scalar)."""
    if isinstance(data, (list, tuple)):
        if not data:
            return np.zeros(shape, dtype.np)
        return np.stack([_stack_nested(x, dtype, shape[1:]) for x in data])
    a = _numpy(data) if isinstance(data, Tensor) else np.asarray(data)
    return a.astype(dtype.np).reshape(shape)


def _check_storable(flat, dtype) -> None:
    """PyTorch's error for an item that is no number, where dtype= skipped the inference: its
    scalar unpacking's message (integer and bool dtypes read an index, the others a double)."""
    for v in flat:
        if not isinstance(v, (numbers.Number, np.generic, np.ndarray, Tensor)):
            name = type(v).__name__
            if dtype.category in (D.INT, D.BOOL):
                raise TypeError(f"'{name}' object cannot be interpreted as an integer")
            raise TypeError(f"must be real number, not {name}")


def _checked_uint(v, dtype, fill: bool = False):
    """A Python number as torch.tensor (or, with ``fill``, torch.full) stores it in uint16/32/64,
    with PyTorch's errors: a negative int wraps only while its magnitude fits the type."""
    bits = 8 * dtype.itemsize
    name = dtype.name + ("_t" if fill else "")
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if dtype is D.uint64 and not (fill and -(1 << 63) <= v < (1 << 63)):
        if not isinstance(v, builtins.int):
            if fill and isinstance(v, builtins.float) and 0 <= v < 2.0**64:
                return int(v)
            raise TypeError("an integer is required")
        if v < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if v >> 64:
            raise OverflowError("int too big to convert")
        return v
    if isinstance(v, numbers.Integral):
        v = int(v)
        if not -(1 << 63) <= v < (1 << 63):
            raise (
                OverflowError("int too big to convert")
                if fill
                else ValueError("Overflow when unpacking long long")
            )
        if dtype is not D.uint64 and not -(1 << bits) < v < (1 << bits):
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        return v % (1 << bits)
    v = builtins.float(v)
    if not 0 <= v <= (1 << bits) - 1:  # NaN fails too
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return int(v)


@silent  # 1e30 as float16 is inf, silently as in PyTorch
def _array_of(vals, dtype):
    try:
        return np.array(vals, dtype=dtype.np)
    except OverflowError:
        if dtype.category == D.INT:
            return np.array([int(v) % (1 << (8 * dtype.itemsize)) for v in vals], np.uint64).astype(
                dtype.np
            )
        raise
    except (TypeError, ValueError):
        return np.array([float(v) if dtype.category == D.FLOAT else v for v in vals]).astype(
            dtype.np
        )


def _flatten(data):
    if isinstance(data, (list, tuple)):
        for x in data:
            yield from _flatten(x)
    else:
        yield data


def _numpy(t: Tensor) -> np.ndarray:
    from ...backend import to_numpy

    return to_numpy(t._data)


def tensor(
    data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """A new tensor copying ``data``; dtype inferred as PyTorch does (float -> default dtype)."""
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    elif isinstance(data, TypedStorage):  # PyTorch shares a typed storage's memory
        return data._as_tensor(dtype, requires_grad)
    arr, dt = _to_array(data, dtype)
    arr = np.array(arr, dtype=dt.np, copy=True)
    dev = (
        as_device(device)
        if device is not None
        else (data._device if isinstance(data, Tensor) else as_device(None))  # the default device
    )
    return _finish(arr, dt, dev, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share memory with ``data`` when possible (same dtype and device), else copy."""
    if isinstance(data, TypedStorage):  # always shared, as torch.tensor(storage)
        return data._as_tensor(dtype, False)
    if isinstance(data, Tensor):
        if (dtype is None or dtype is data._dtype) and (
            device is None or as_device(device) == data._device
        ):
            return data
        return data.to(device=device, dtype=dtype)
    if (
        isinstance(data, np.ndarray)
        and (dtype is None or dtype.np == data.dtype)
        and (device is None or as_device(device).type == "cpu")
    ):
        return _shared(data)
    arr, dt = _to_array(data, dtype)
    return _finish(np.asarray(arr, dt.np), dt, as_device(device), False)


asarray = as_tensor


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing ``ndarray``'s memory (writes show on both sides)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return _shared(ndarray)


def _shared(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing a user's ``ndarray`` memory (``from_numpy``, ``as_tensor``): NumPy's
    own types only, as PyTorch (``from_numpy_array`` wraps the library's own arrays)."""
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) "
        )
    if any(s % ndarray.itemsize for s in ndarray.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate "
            "the memory."
        )
    if not ndarray.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. Conversion between byte orders is currently not supported."
        )
    dt = D.from_user_numpy_dtype(ndarray.dtype)
    if not ndarray.flags.writeable:
        import warnings

        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means "
            "writing to this tensor will result in undefined behavior. You may want to copy the array to protect "
            "its data or make it writable before converting it to a tensor. This type of warning will be suppressed "
            "for the rest of this program. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)",
            UserWarning,
            stacklevel=3,  # the caller of from_numpy / as_tensor
        )
    return _wrap(ndarray, dt, cpu)


def from_numpy_array(a: np.ndarray) -> Tensor:
    return _wrap(a, D.from_numpy_dtype(a.dtype), cpu)


def scalar_tensor(value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if isinstance(value, Tensor):
        value = value.item()
    if not isinstance(value, (numbers.Number, np.generic)):  # NumPy would read None as NaN
        raise TypeError(
            f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(value).__name__}"
        )
    dt = dtype or D.scalar_dtype(value)
    if dtype is None and dt.category == D.INT and not isinstance(value, bool):
        dt = D.get_default_dtype()  # torch.scalar_tensor defaults to the float dtype
    return _finish(np.asarray(value, dt.np), dt, as_device(device), requires_grad)


_C_INT_NAMES = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
}


# The largest finite value of each float type, for PyTorch's checked conversion of a Scalar.
_FLOAT_MAX = {
    "float16": 65504.0,
    "bfloat16": 3.3895313892515355e38,
    "float32": 3.4028234663852886e38,
}


def _fits_float(v, dtype: D.dtype) -> bool:
    """Whether the number ``v`` converts to the float or complex ``dtype`` without overflow: a
    finite part past the type's largest value does not (inf and NaN do)."""
    top = _FLOAT_MAX.get(dtype.to_real().name if dtype.category == D.COMPLEX else dtype.name)
    if top is None:
        return True
    v = complex(v)
    return all(not (math.isfinite(p) and abs(p) > top) for p in (v.real, v.imag))


def _checked_fill(v, dtype: D.dtype, fill: bool = True, single: bool = False):
    """A Python number stored in ``dtype`` with PyTorch's checked conversion (torch.full, or with
    ``fill=False`` torch.tensor): a value out of the integer type's range, NaN/inf into an integer,
    or a complex into a real type raises (NumPy would wrap or cast it silently). ``single``: the
    fill of one element, which PyTorch converts to float16/bfloat16 unchecked (70000 is inf)."""
    if dtype in D._SHELL_UINTS:
        return _checked_uint(v, dtype, fill=fill)
    if isinstance(v, (bool, np.bool_)):
        return v
    # torch.tensor reads an int as a double for a float dtype, as an int64 otherwise.
    limit = 1 << (64 if fill else 63)
    if (
        isinstance(v, numbers.Integral)
        and (fill or dtype.category <= D.INT)
        and not -(1 << 63) <= v < limit
    ):
        raise (
            OverflowError("int too big to convert")
            if fill
            else ValueError("Overflow when unpacking long long")
        )
    if dtype is D.bool:
        return v
    if fill:  # c10's checked conversion names the C++ type
        from .._dispatch import cpp_name

        name = _C_INT_NAMES.get(dtype.name) or cpp_name(dtype)
    else:
        name = dtype.name
    overflow = RuntimeError(f"value cannot be converted to type {name} without overflow")
    if isinstance(v, (complex, np.complexfloating)) and dtype.category != D.COMPLEX:
        if not fill:
            real = dtype.category == D.FLOAT
            raise TypeError("must be real number, not complex" if real else
                            "'complex' object cannot be interpreted as an integer")  # fmt: skip
        if v.imag != 0 or math.isnan(v.imag):
            raise overflow
        v = v.real
    if dtype.category != D.INT:
        if fill and not (single and dtype in (D.float16, D.bfloat16)) and not _fits_float(v, dtype):
            raise overflow
        return v
    info = np.iinfo(dtype.np)
    if isinstance(v, numbers.Integral):
        # An unsigned type takes a negative int whose magnitude fits (it wraps), as PyTorch does.
        if v > info.max or v < info.min and not (info.min == 0 and -v <= info.max):
            raise overflow
        return int(v) % (1 << info.bits) if v < 0 and info.min == 0 else int(v)
    if not info.min <= v <= info.max:  # NaN fails too
        raise overflow
    return v


# ---- factories ---------------------------------------------------------------------------------------
NO_SIZE = object()  # "size=" not given (size=() is a real, 0-d size)


def size_keyword(
    name: str, size: tuple, kw, missing: str | None = None, arg: str = "size"
) -> tuple:
    """The sizes of a factory called as ``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))`` (PyTorch's
    keyword spelling), ready for ``_size_args``. PyTorch's TypeErrors when both spellings are given,
    when neither is (``torch.zeros()`` raises, it is no 0-d tensor) or when ``size=`` is no sequence.
    ``missing`` replaces the no-size message (rand/randn word it as an invalid combination); ``arg``
    names the keyword for methods that call it otherwise (``reshape(shape=)``, ``permute(dims=)``)."""
    if kw is NO_SIZE:
        if not size:
            raise TypeError(missing or f'{name}() missing 1 required positional arguments: "{arg}"')
        return size
    if size:
        raise TypeError(f"{name}() got multiple values for argument '{arg}'")
    if not isinstance(kw, (tuple, list, Size)):
        raise TypeError(
            f"{name}(): argument '{arg}' must be tuple of ints, not {type(kw).__name__}"
        )
    return (kw,)


def _size_args(size, name: str = "empty"):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.__index__()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(
                f"{name}(): argument 'size' failed to unpack the object at pos {len(out) + 1} with error "
                f'"type must be tuple of ints,but got {type(s).__name__}"'
            )
        out.append(int(s))
    for s in out:
        if s < 0:
            if name == "zeros":  # PyTorch's zeros checks sizes with its own message
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    return tuple(out)


def allocate(make, shape, dtype: D.dtype):
    """``make()``, a NumPy/CuPy call that allocates ``shape`` in ``dtype``, with PyTorch's errors for
    a size no machine holds: NumPy's ValueError("array is too big") and MemoryError would leak."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes >= 1 << 63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    try:
        return make()
    except MemoryError:
        raise RuntimeError(
            "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
            f"you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
        ) from None


def creation_out(fn):
    """A factory's ``out=``: it builds in ``out``'s dtype (and device), then fills ``out``.

    An explicit ``dtype`` must equal out's; ``out`` is resized silently (arange and range warn
    about a size mismatch their own way).
    """

    def make(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        from .._dispatch import write_out

        if not isinstance(out, Tensor):
            raise TypeError(
                f"{make.__name__}(): argument 'out' must be Tensor, not {type(out).__name__}"
            )
        dtype = kwargs.get("dtype")
        if dtype is not None and dtype is not out._dtype:
            from .._dispatch import scalar_name

            raise RuntimeError(
                f"dtype {scalar_name(dtype)} does not match dtype of out parameter ({scalar_name(out._dtype)})"
            )
        kwargs.update(dtype=out._dtype, device=out._device, requires_grad=False)
        r = fn(*args, **kwargs)
        if (
            make.__name__ in ("arange", "range_")
            and out._data.size
            and out._data.size != r._data.size
        ):
            import warnings

            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out.shape)} is {out._data.size} which does "
                f"not match the computed number of elements {r._data.size}. Note that this may occur as a result of "
                f"rounding error. The out tensor will be resized to a tensor of shape ({r._data.size},).",
                UserWarning,
                stacklevel=2,
            )
        return write_out(out, r, make.__name__.rstrip("_"), warn=False, grad="aten")

    from .._dispatch import with_out_signature

    make.__name__, make.__qualname__, make.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    make.__signature__ = with_out_signature(fn)
    return make


def _not_bool(dtype, kernel: str, complex_too: bool = False) -> None:
    """PyTorch's dispatch error for a kernel without bool (and, for arange/range, complex) support."""
    if dtype is D.bool or complex_too and dtype.category == D.COMPLEX:
        from .._dispatch import scalar_name

        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dtype)}'")


def _not_shell_uint(dtype, kernel: str) -> None:
    if dtype in D._SHELL_UINTS:  # PyTorch builds few kernels for uint16/32/64
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'UInt{dtype.itemsize * 8}'")


def _factory(name, fill):
    @creation_out
    def make(
        *size,
        dtype=None,
        layout=None,
        device=None,
        requires_grad=False,
        pin_memory=False,
        memory_format=None,
        **kw,  # only size=: it cannot be a named parameter beside *size
    ):
        shape = _size_args(size_keyword(name, size, kw.pop("size", NO_SIZE)), name)
        if kw:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
        dt = dtype or D.get_default_dtype()
        dev = as_device(device)
        if dev.type == "meta":
            return _finish(_meta_data(shape, dt), dt, dev, requires_grad)
        xp = _xp(dev) if dev.type != "cpu" else np
        return _finish(allocate(lambda: fill(xp, shape, dt.np), shape, dt), dt, dev, requires_grad)

    make.__name__ = make.__qualname__ = name
    return make


zeros = _factory("zeros", lambda xp, s, d: xp.zeros(s, d))
ones = _factory("ones", lambda xp, s, d: xp.ones(s, d))
empty = _factory("empty", lambda xp, s, d: xp.zeros(s, d))  # zero-filled: never leak stale memory


def _fill_value_arg(fn: str, fill_value) -> None:
    if not isinstance(fill_value, (numbers.Number, Tensor)):
        raise TypeError(
            f"{fn}(): argument 'fill_value' (position 2) must be Number, not {type(fill_value).__name__}"
        )


@creation_out
def full(
    size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    int_list("full", "size", 1, size, one=False)
    _fill_value_arg("full", fill_value)
    shape = _size_args(tuple(size))
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dt = dtype or (
        D.scalar_dtype(fill_value) if not isinstance(fill_value, float) else D.get_default_dtype()
    )
    dev = as_device(device)
    fill_value = _checked_fill(fill_value, dt, single=math.prod(shape) == 1)
    if dev.type == "meta":
        return _finish(_meta_data(shape, dt), dt, dev, requires_grad)
    return _finish(
        allocate(lambda: np.full(shape, fill_value, dt.np), shape, dt), dt, dev, requires_grad
    )


def _dense_order(input):
    """The axis order of ``input``'s memory (outermost first) when it is dense and non-overlapping
    but not contiguous, else None: PyTorch's preserve_format then gives the result the same strides."""
    a = input._data
    if a.ndim < 2 or a.flags.c_contiguous or 0 in a.shape:
        return None
    order = sorted(range(a.ndim), key=lambda i: (-a.strides[i], -i))
    expect = a.itemsize
    for i in reversed(order):
        if a.shape[i] != 1 and a.strides[i] != expect:
            return None
        expect *= a.shape[i]
    return order


def _like(fn):
    def make(
        input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
    ):
        need_tensor(f"{fn.__name__}_like", input)
        dt, dev = dtype or input._dtype, device or input._device
        cl = channels_last_order(memory_format, input._data.ndim)
        order = cl or (
            _dense_order(input)
            if memory_format is None or memory_format.name == "preserve_format"
            else None
        )
        if order is None:
            return fn(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)
        t = fn([input.shape[i] for i in order], dtype=dt, device=dev, requires_grad=requires_grad)
        inv = sorted(range(len(order)), key=order.__getitem__)
        t._data = t._data.transpose(inv)
        return t

    return make


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(
    input,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
):
    need_tensor("full_like", input)
    _fill_value_arg("full_like", fill_value)
    return full(
        input.shape,
        fill_value,
        dtype=dtype or input._dtype,
        device=device or input._device,
        requires_grad=requires_grad,
    )


def new_full(self: Tensor, size, fill_value, dtype=None, device=None, requires_grad=False):
    """``Tensor.new_full``: ``full`` in ``self``'s dtype and device by default, with the
    method's name in the parser's errors."""
    int_list("new_full", "size", 1, size, one=False)
    _fill_value_arg("new_full", fill_value)
    return full(
        size,
        fill_value,
        dtype=dtype or self._dtype,
        device=device or self._device,
        requires_grad=requires_grad,
    )


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    from ..shape.views import as_strided

    n = 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = zeros(n, dtype=dtype, device=device)
    t = as_strided(base, size, stride, 0)
    t._base = None
    if requires_grad:
        t.requires_grad_(True)
    return t


def _num(v) -> str:
    """A bound as PyTorch's range messages print it: inf, nan, 0 (C++ streams, not Python's repr)."""
    return f"{v:g}" if isinstance(v, float) else str(v)


def _eye_parser(n, m) -> None:
    """PyTorch's parser: ints (or integer tensors) for n and m (if given), never a bool or None."""
    if m is _UNSET:
        if not _is_int_arg(n):
            raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    elif not (_is_int_arg(n) and _is_int_arg(m)):
        raise TypeError(
            f"eye() received an invalid combination of arguments - got ({type(n).__name__}, "
            f"{type(m).__name__})"
        )


def _is_int_arg(v) -> bool:
    if isinstance(v, Tensor):
        return not v.is_floating_point() and not v.is_complex()
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


_UNSET = object()  # an argument not given (arange's end=None is an error, not "no end")


@creation_out
def arange(
    start=_UNSET,
    end=_UNSET,
    step=_UNSET,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    if start is _UNSET:  # arange(end=5), as PyTorch's (start, end) overload with start=0
        if end is _UNSET:
            raise TypeError("arange() missing 1 required positional argument: 'end'")
        start = 0
    if start is None:
        raise TypeError("arange(): argument 'end' (position 1) must be Number, not NoneType")
    if step is None or end is None or (end is _UNSET and step is not _UNSET):
        # PyTorch's overloads: (end), (start, end), (start, end, step); no None among them
        got = ", ".join(type(v).__name__ for v in (start, end, step) if v is not _UNSET)
        raise TypeError(f"arange() received an invalid combination of arguments - got ({got})")
    end = None if end is _UNSET else end
    step = 1 if step is _UNSET else step
    for v in (start, end, step):
        python_int_range(v)
    if end is None:
        start, end = 0, start
    vals = [_real_part(v.item() if isinstance(v, Tensor) else v) for v in (start, end, step)]
    start, end, step = vals
    if step == 0 or math.isnan(step):
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in vals) else D.int64
    _not_bool(dtype, "arange_cpu", True)
    _not_shell_uint(dtype, "arange_cpu")
    if dtype.category == D.INT and builtins.max(vals, key=abs) >= 1 << 63:  # a uint64 Scalar
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_num(start)} -> {_num(end)}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = builtins.max(math.ceil((end - start) / step), 0)  # an infinite step gives 0 or 1 element
    if n >= 1 << 63:
        raise RuntimeError("invalid size, possible overflow?")
    acc = np.float64 if dtype.category >= D.FLOAT else np.int64
    ramp = allocate(lambda: np.arange(n, dtype=acc), (n,), dtype)
    data = (np.asarray(start, acc) + ramp * np.asarray(step, acc)).astype(dtype.np)
    return _finish(data, dtype, as_device(device), requires_grad)


def _real_part(v):
    """arange's limits are doubles: a complex one must have no imaginary part."""
    if isinstance(v, complex):
        if v.imag:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return v.real
    return v


@creation_out
def range_(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Deprecated ``torch.range``: includes ``end``; warns on every call, as PyTorch."""
    import warnings

    from ..._flags import user_stacklevel

    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is "
        "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
        "[start, end).",
        UserWarning,
        stacklevel=user_stacklevel(),
    )
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    dtype = dtype or D.get_default_dtype()
    _not_bool(dtype, "range_cpu", True)
    data = (np.float64(start) + np.arange(n) * np.float64(step)).astype(dtype.np)
    return _finish(data, dtype, as_device(device), requires_grad)


def _linspace_dtype(start, end, dtype):
    """PyTorch's: complex endpoints make the default dtype's complex one, which a real ``dtype``
    cannot hold."""
    if not any(isinstance(v, complex) for v in (start, end)):
        return dtype or D.get_default_dtype()
    inferred = D.get_default_dtype().to_complex()
    if dtype is not None and dtype.category != D.COMPLEX:
        from .._dispatch import _CPP_NAMES, scalar_name

        raise RuntimeError(
            f"torch.linspace(): inferred dtype {_CPP_NAMES[inferred.name]} can't be safely cast to "
            f"passed dtype {scalar_name(dtype)}"
        )
    return dtype or inferred


def _fma64(a, b, c):
    """a * b + c rounded once, in float64 (NumPy has no fused multiply-add): the product split
    exactly into two doubles (Dekker), added to c with its rounding error kept (Knuth)."""
    p = a * b
    ah, bh = a * 134217729.0, b * 134217729.0  # 2**27 + 1 splits a double into two halves
    ah, bh = ah - (ah - a), bh - (bh - b)
    err = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)
    s = p + c
    back = s - p
    r = s + (err + ((p - (s - back)) + (c - back)))
    # An infinite or NaN operand (or a split past the largest double) makes the error terms
    # NaN: there the fused result is the plain one (fma(inf, 1, 0) is inf, fma(inf, 0, 0) NaN).
    finite = np.isfinite(r)
    return r if finite.all() else np.where(finite, r, s)


def _linspace_parser(start, end, steps) -> None:
    """PyTorch's parser: numbers or tensors for the ends (NumPy would read None as NaN), an int
    (or an integer tensor) for ``steps``, else no overload matches; then a Python int end must
    fit int64/uint64."""
    ends_ok = all(isinstance(v, (numbers.Number, Tensor)) for v in (start, end))
    steps_ok = (
        isinstance(steps, Tensor)
        and not steps.is_floating_point()
        or (isinstance(steps, numbers.Integral) and not isinstance(steps, bool))
    )
    if not (ends_ok and steps_ok):
        raise TypeError(
            f"linspace() received an invalid combination of arguments - got ({type(start).__name__}, "
            f"{type(end).__name__}, {type(steps).__name__})"
        )
    python_int_range(start)
    python_int_range(end)


def _check_linspace_ends(start, end, dtype: D.dtype) -> None:
    """With two steps or more PyTorch converts both ends to ``dtype`` with its checked
    conversion: a finite value past a float type's largest raises (inf and NaN pass), and so does
    one outside an integer type's range (NaN and inf too)."""
    if dtype.category == D.INT:
        for v in (start, end):
            _checked_fill(v, dtype)
        return
    if not (_fits_float(start, dtype) and _fits_float(end, dtype)):
        from .._dispatch import cpp_name

        raise RuntimeError(f"value cannot be converted to type {cpp_name(dtype)} without overflow")


def _linspace_int(start, end, steps: int, dtype: D.dtype) -> np.ndarray:
    """PyTorch's integer linspace: both ends converted to the type first (-1 is 255 in uint8),
    a double step, start + i*step for the first half and end - (steps-1-i)*step for the rest
    (each a fused multiply-add in its x86 kernel), truncated to the type."""
    if steps == 0:
        return np.zeros(0, dtype.np)
    s, e = (float(np.array(int(v), np.int64).astype(dtype.np)) for v in (start, end))
    step = (e - s) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    v = np.where(i < steps // 2, _fma64(step, i, s), _fma64(-step, steps - 1 - i, e))
    return np.trunc(v).astype(np.int64).astype(dtype.np)


def _linspace_real(start, end, steps: int, dtype: D.dtype) -> np.ndarray:
    """PyTorch fills from both ends in the output dtype: start + i*step for the first half,
    end - (steps-1-i)*step for the rest. In float32/float64 each is a fused multiply-add in its
    x86 kernels (one rounding; float32 products are exact in float64); in the half types every
    operation rounds to the type, as c10::Half / BFloat16 arithmetic does."""
    half = steps // 2 if steps > 1 else 1
    if dtype in (D.float16, D.bfloat16):
        f = np.float32

        def rnd(x):
            return np.asarray(x, f).astype(dtype.np).astype(f)

        s, e = (np.asarray(v, np.float64).astype(dtype.np).astype(f) for v in (start, end))
        step = rnd(rnd(e - s) / f(steps - 1)) if steps > 1 else f(0)
        i = allocate(lambda: np.arange(steps, dtype=f), (steps,), dtype)
        lo, hi = rnd(s + rnd(step * i)), rnd(e - rnd(step * (steps - 1 - i)))
        return np.where(i < half, lo, hi).astype(dtype.np)
    ct = dtype.np
    s, e = np.asarray(start, ct), np.asarray(end, ct)
    step = (e - s) / ct.type(steps - 1) if steps > 1 else ct.type(0)
    i = allocate(lambda: np.arange(steps, dtype=np.float64), (steps,), dtype)
    if ct == np.float64:
        lo, hi = _fma64(step, i, s), _fma64(-step, steps - 1 - i, e)
    else:
        lo, hi = s + np.float64(step) * i, e - np.float64(step) * (steps - 1 - i)
    return np.where(i < half, lo, hi).astype(ct)


@creation_out
@silent  # inf - inf and inf * 0 are NaN, silently as in PyTorch
def linspace(
    start, end, steps, *, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    _linspace_parser(start, end, steps)
    steps = int(steps.item()) if isinstance(steps, Tensor) else int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    dtype = _linspace_dtype(start, end, dtype)
    if steps > 1:  # PyTorch's kernel runs (and checks its dtypes) for two steps or more only
        _not_bool(dtype, "linspace_cpu")
        _not_shell_uint(dtype, "linspace_cpu")
        _check_linspace_ends(start, end, dtype)
    if steps == 1:  # PyTorch fills in the start, converted as a one-element fill is
        data = np.array([_checked_fill(start, dtype, single=True)], dtype.np)
    elif dtype.category == D.COMPLEX:
        # Complex steps times a real index: each part on its own (a complex product would
        # turn an infinite part times 0 into NaN in the other part too).
        part = dtype.to_real()
        data = np.empty(steps, dtype.np)
        data.real = _linspace_real(complex(start).real, complex(end).real, steps, part)
        data.imag = _linspace_real(complex(start).imag, complex(end).imag, steps, part)
    elif dtype.category == D.FLOAT:
        data = _linspace_real(start, end, steps, dtype)
    else:
        data = _linspace_int(start, end, steps, dtype)
    return _finish(data, dtype, as_device(device), requires_grad)


@creation_out
@silent
def logspace(
    start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False
) -> Tensor:
    dtype = dtype or D.get_default_dtype()
    exps = linspace(start, end, steps, dtype=D.float64)._data
    if exps.size > 1:  # as linspace: the kernel (and its dtype check) runs for two steps or more
        _not_bool(dtype, "logspace_cpu")
        _not_shell_uint(dtype, "logspace_cpu")
    return _finish(np.power(base, exps).astype(dtype.np), dtype, as_device(device), requires_grad)


@creation_out
def eye(n, m=_UNSET, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    _eye_parser(n, m)
    n, m = int(n), None if m is _UNSET else int(m)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dtype = dtype or D.get_default_dtype()
    _not_shell_uint(dtype, "eye")
    shape = (n, n if m is None else m)
    data = allocate(lambda: np.eye(*shape, dtype=dtype.np), shape, dtype)
    return _finish(data, dtype, as_device(device), requires_grad)


# ---- conversions: Tensor.to ----------------------------------------------------------------------------
def _to_copy_vjp(node, g):
    return (g.to(node.in_dtype, device=node.in_device),)


_ToCopy = node_class("ToCopyBackward0", _to_copy_vjp)


_SCALAR_AS_DTYPE = {float: D.float64, complex: D.complex128, bool: D.bool}


def _parse_to(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    if args and type(args[0]) in _SCALAR_AS_DTYPE:
        # PyTorch's parser reads a leading Python scalar as the dtype of its type:
        # x.to(0.5) is x.to(torch.float64), x.to(True) is x.to(torch.bool).
        dtype, args = _SCALAR_AS_DTYPE[type(args[0])], args[1:]
        if any(not isinstance(a, bool) for a in args):  # only non_blocking, copy may follow
            names = ", ".join(type(a).__name__ for a in (0.0, *args))
            raise TypeError(f"to() received an invalid combination of arguments - got ({names})")
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, (str, _device_cls, int)) and not isinstance(a, bool):
            if isinstance(a, int) and not -(1 << 63) <= a < 1 << 63:
                raise ValueError("Overflow when unpacking long long")  # a device index
            dev = a
        elif isinstance(a, Tensor):
            dtype, dev = a._dtype, a._device
        elif isinstance(a, bool):
            kwargs.setdefault("non_blocking", a)
        elif a is None:
            continue
        else:
            raise TypeError(
                f"to() received an invalid combination of arguments - got ({type(a).__name__})"
            )
    return dtype, (as_device(dev) if dev is not None else None), kwargs.get("copy", False)


def tensor_to(self: Tensor, *args, **kwargs) -> Tensor:
    dtype, dev, copy = _parse_to(args, dict(kwargs))
    dtype = dtype or self._dtype
    dev = dev or self._device
    cl = channels_last_order(kwargs.get("memory_format"), self._data.ndim)
    in_format = cl is None or is_contiguous_in(self._data.shape, self.stride(), cl)
    if dtype is self._dtype and dev == self._device and not copy and in_format:
        return self
    data = self._data if in_format else relayout(xp_for(self), self._data, cl)
    if self._device.type == "meta" and dev.type != "meta":
        from ..._meta import NO_DATA

        raise NotImplementedError(NO_DATA)
    if dev != self._device:
        from ...backend import to_device

        data = to_device(data, dev)
    elif copy and dtype is self._dtype:
        data = data.copy()
    if dtype is not self._dtype:
        data = _cast(data, self._dtype, dtype)
    r = _wrap(data, dtype, dev)
    if self._rg and _gm.enabled and dtype.category >= D.FLOAT:
        record(_ToCopy, (self,), r, (), in_dtype=self._dtype, in_device=self._device)
    if _fw_state.level and self._fw is not None and dtype.category >= D.FLOAT:
        r._fw = self._fw.to(dtype=dtype, device=dev)
        _register(r)
    return r


@silent  # out of range: inf or wrapped; NaN to int: undefined
def _cast(data, src: D.dtype, dst: D.dtype):
    if src.category == D.COMPLEX and D.BOOL < dst.category < D.COMPLEX:
        data = data.real  # PyTorch warns and drops the imaginary part (to bool: x != 0)
    if src.category >= D.FLOAT and dst.category == D.INT:
        # Float to int: truncation toward zero (NumPy does that too, via C casts).
        return data.astype(dst.np)
    return data.astype(dst.np)


_TYPE_STRINGS = {d._legacy: d for d in D.all_dtypes if d._legacy}


def dtype_from_type_string(s: str) -> D.dtype:
    name = s.rsplit(".", 1)[-1]
    if name in _TYPE_STRINGS:
        return _TYPE_STRINGS[name]
    raise ValueError(f"invalid type: '{s}'")


# ---- legacy constructors ----------------------------------------------------------------------------------
def legacy_new(cls, dtype: D.dtype, args, device) -> Tensor:
    """``torch.Tensor(...)`` / ``torch.FloatTensor(...)``: sizes, a sequence, or nothing."""
    dev = as_device(device)
    if not args:
        t = _finish(np.zeros((0,), dtype.np), dtype, dev, False)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src._dtype is not dtype:
            from .._dispatch import scalar_name

            raise TypeError(f"expected {scalar_name(dtype)} (got {scalar_name(src._dtype)})")
        return src
    elif len(args) == 1 and (isinstance(args[0], TypedStorage) or is_storage(args[0])):
        t = args[0]._legacy_tensor(dtype) if isinstance(args[0], TypedStorage) else None
        if t is None:  # an UntypedStorage: its bytes read as ``dtype``
            t = _wrap(np.zeros((0,), dtype.np), dtype, args[0].device).set_(args[0])
    elif all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or (
        len(args) == 1 and isinstance(args[0], Size)
    ):
        t = _finish(np.zeros(_size_args(args), dtype.np), dtype, dev, False)
    elif len(args) == 1:
        arr, _ = _to_array(args[0], dtype)
        t = _finish(np.array(arr, dtype=dtype.np), dtype, dev, False)
    else:
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({', '.join(type(a).__name__ for a in args)})"
        )
    if cls is not Tensor:
        t.__class__ = cls
    return t


# ---- fill ----------------------------------------------------------------------------------------------------
def _fill_vjp(node, g):
    return (g.new_zeros(g.shape),)


def _fill_tensor_vjp(node, g):
    return g.new_zeros(g.shape), g.sum()


_Fill = node_class("FillBackward0", _fill_vjp)


_FillTensor = node_class("FillBackward1", _fill_tensor_vjp)


def fill(input: Tensor, value) -> Tensor:
    """A new tensor shaped like ``input`` holding ``value`` (a number or a 0-d tensor)."""
    _need_tensor("fill", input)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        v = value._data[()]
    else:
        v = value
    r = input.new_empty(input.shape)
    r.fill_(v)
    vt = value if isinstance(value, Tensor) else None
    if _gm.enabled and (input._rg or (vt is not None and vt._rg)):
        if vt is None:
            record(_Fill, (input,), r)
        else:
            record(_FillTensor, (input, vt), r)
    _tangent(r, (input,) if vt is None else (input, vt), lambda *t: _fill_tangent(t, input, vt))
    return r


def _fill_tangent(tangents, input: Tensor, vt):
    if vt is None:
        return input.new_zeros(input.shape)
    return tangents[1].expand(input.shape).clone()


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:  # fmt: skip
    """An uninitialised tensor of ``size`` whose memory runs over the dims in ``physical_layout``
    order (outermost first)."""
    pass

    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = "
            f"{len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    inverse = [order.index(d) for d in range(len(order))]
    base = empty([size[d] for d in order], dtype=dtype, device=device)
    return base.permute(inverse).detach().requires_grad_(requires_grad)
