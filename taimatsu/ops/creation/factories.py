"""Tensor creation: tensor/as_tensor/from_numpy, factories (zeros, ones, full, ...), the
``_like`` forms, conversions (``Tensor.to``) and the legacy constructors (``torch.Tensor(2, 3)``,
``torch.FloatTensor([1, 2])``). Ranges (arange, range, linspace, logspace) and eye:
``ranges.py``."""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from taimatsu.ops.introspection import _need_tensor

from ... import _dtype as D
from ..._device import as_device, cpu
from ..._device import device as _device_cls
from ..._layout import (
    channels_last_order,
    is_contiguous_in,
    preserved_copy,
    preserved_strides,
    relayout,
    restrided,
)
from ..._size import Size
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from ...typed_storage import TypedStorage, is_storage
from .._dispatch import _fw_state, need_tensor, record, xp_for
from ..arg_types import boolean, int_list
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


def _check_ragged(data, dim, shape, on_array=None, dtype=None):
    """PyTorch's copy loop's checks, in its order; ``on_array()`` runs at each NumPy array met."""
    if on_array is not None and isinstance(data, np.ndarray):
        on_array()
    if dim >= len(shape):
        if isinstance(data, (list, tuple)):
            if dtype is not None:  # a sequence where a number belongs: the number's reading fails
                _check_storable([data], dtype)
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
        _check_ragged(x, dim + 1, shape, on_array, dtype)


def _infer_dtype(flat_kinds) -> D.dtype:
    cat = builtins.max(flat_kinds) if flat_kinds else D.FLOAT
    return {
        D.BOOL: D.bool,
        D.INT: D.int64,
        D.FLOAT: D.get_default_dtype(),
        D.COMPLEX: D.default_complex(),
    }[cat]


def _kind(x) -> int:
    # Python's and NumPy's own number types only: a Fraction or a Decimal is no number to
    # PyTorch's inference (though numbers.Real counts them)
    if isinstance(x, (bool, np.bool_)):
        return D.BOOL
    if isinstance(x, (int, np.integer)):
        return D.INT
    if isinstance(x, (float, np.floating)):
        return D.FLOAT
    if isinstance(x, (complex, np.complexfloating)):
        return D.COMPLEX
    if isinstance(x, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    from ..._tensor_arguments import type_name

    raise RuntimeError(f"Could not infer dtype of {type_name(x)}")


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


_BYTE_ORDER = (
    "given numpy array has byte order different from the native byte order. Conversion between "
    "byte orders is currently not supported."
)


def _to_array(data, dtype):
    """Turn Python data (numbers, nested lists, arrays, tensors) into (array, dtype)."""
    data = _ranges_as_lists(data)
    if isinstance(data, Tensor):
        a = _numpy(data)
        return a, dtype or data._dtype
    if isinstance(data, (np.ndarray, np.generic)):  # PyTorch checks the type, dtype= or not
        if not data.dtype.isnative:
            raise ValueError(_BYTE_ORDER)
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
        _check_ragged(data, 0, shape, _warn_ndarrays if math.prod(shape) else None, dtype)
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


def _ranges_as_lists(data):
    """Sequences other than lists and tuples (range, array.array, memoryview, bytearray,
    deque, a user's sequence class) as lists, the data itself or its items: PyTorch reads any
    Python sequence as one, element by element (``torch.tensor(array.array('d', [1.5]))`` is
    float32, the default type)."""
    if _other_sequence(data):
        return data.tolist() if data.__class__ is memoryview else list(data)
    if isinstance(data, (list, tuple)) and data and _other_sequence(data[0]):
        return [_ranges_as_lists(x) for x in data]
    return data


def _other_sequence(x) -> bool:
    if x.__class__ in (list, tuple, str, bytes) or isinstance(x, (Tensor, np.ndarray, np.generic)):
        return False
    if x.__class__ in (range, memoryview, bytearray):
        return True
    t = type(x)
    return (
        hasattr(t, "__len__") and hasattr(t, "__getitem__") and not isinstance(x, (dict, str, bytes))
        and not hasattr(t, "__array__") and not hasattr(t, "__array_interface__")
    )  # fmt: skip


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
    return D.cast_array(a, dtype.np).reshape(shape)


def _check_storable(flat, dtype) -> None:
    """PyTorch's error for an item that is no number, where dtype= skipped the inference: its
    scalar unpacking's message (integer and bool dtypes read an index, the others a double)."""
    real = dtype.category in (D.INT, D.FLOAT)  # a complex number is refused there (not by bool)
    for v in flat:
        if not isinstance(v, (numbers.Number, np.generic, np.ndarray, Tensor)) or (
            real and isinstance(v, (complex, np.complexfloating))
        ):
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
        if dtype in (D.float16, D.bfloat16):  # each number rounded to float32 first, as c10
            return np.array(vals, dtype=np.float32).astype(dtype.np)
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


COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor)."
)


def tensor_quiet(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``tensor(data)`` without its copy-construct warning (the caller warned in its own words)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def tensor(
    data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """A new tensor copying ``data``; dtype inferred as PyTorch does (float -> default dtype)."""
    dtype = D.dtype_argument("tensor", dtype)
    if requires_grad.__class__ is not bool:
        boolean("tensor", "requires_grad", None, requires_grad)
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(COPY_CONSTRUCT.format("torch.tensor"), UserWarning, stacklevel=2)
    elif isinstance(data, TypedStorage):  # PyTorch shares a typed storage's memory
        return data._as_tensor(dtype, requires_grad)
    arr, dt = _to_array(data, dtype)
    arr = D.cast_array(np.asarray(arr), dt.np)  # a copy (to a half type through float32)
    dev = (
        as_device(device)
        if device is not None
        else (data._device if isinstance(data, Tensor) else as_device(None))  # the default device
    )
    return _finish(arr, dt, dev, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share memory with ``data`` when possible (same dtype and device), else copy."""
    dtype = D.dtype_argument("as_tensor", dtype)
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
    arr = np.asarray(arr)
    return _finish(arr if arr.dtype == dt.np else D.cast_array(arr, dt.np), dt, as_device(device), False)  # fmt: skip


asarray = as_tensor


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing ``ndarray``'s memory (writes show on both sides)."""
    if not isinstance(ndarray, np.ndarray):
        t = type(ndarray)
        name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
        raise TypeError(f"expected np.ndarray (got {name})")
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
        raise ValueError(_BYTE_ORDER)
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
    from ...storage import mark_user_memory

    mark_user_memory(ndarray)  # (its storage cannot be resized)
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
    return _finish(
        np.asarray(D.half_scalar(value, dt), dt.np), dt, as_device(device), requires_grad
    )


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
        return D.half_scalar(v, dtype)
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
    packed = len(size) == 1 and isinstance(size[0], (tuple, list, Size))
    seq = tuple(size[0]) if packed else size
    out = []
    for s in seq:
        if isinstance(s, Tensor):
            s = s.__index__()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            from ..shape.view_ops import _size_error

            raise _size_error(name, "size", tuple(size), seq, len(out), packed)
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
        d = kwargs.get("dtype")
        if d is not None and d.__class__ is not D.dtype:
            kwargs["dtype"] = D.dtype_argument(make.__name__.rstrip("_"), d)
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
        if requires_grad.__class__ is not bool:
            boolean(name, "requires_grad", None, requires_grad)
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


def _like(fn):
    def make(
        input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
    ):
        need_tensor(f"{fn.__name__}_like", input)
        dt = D.dtype_argument(f"{fn.__name__}_like", dtype) or input._dtype
        dev = device or input._device
        cl = channels_last_order(memory_format, input._data.ndim)
        if cl is not None:
            t = fn([input.shape[i] for i in cl], dtype=dt, device=dev, requires_grad=requires_grad)
            t._data = t._data.transpose(sorted(range(len(cl)), key=cl.__getitem__))
            return t
        t = fn(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)
        if memory_format is None or memory_format.name == "preserve_format":
            t._data = restrided(xp_for(t), t._data, preserved_strides(input._data))
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
    dtype = D.dtype_argument("full_like", dtype)
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


# ---- conversions: Tensor.to ----------------------------------------------------------------------------
def _to_copy_vjp(node, g):
    return (g.to(node.in_dtype, device=node.in_device),)


_ToCopy = node_class("ToCopyBackward0", _to_copy_vjp)


_SCALAR_AS_DTYPE = {float: D.float64, complex: D.complex128, bool: D.bool}


def _python_type(a) -> bool:
    """``float``/``int``/``bool``/``complex`` themselves: dtypes to PyTorch's parser."""
    return isinstance(a, type) and a in D._PYTHON_TYPES


def _to_combination(args, kwargs) -> TypeError:
    """PyTorch's parser error for arguments that fit none of ``to``'s overloads."""

    def shown(v):
        if isinstance(v, Tensor):
            return "Tensor"
        if isinstance(v, (D.dtype, _device_cls)):
            return f"torch.{type(v).__name__}"
        from ..._tensor_arguments import type_name

        return type_name(v)

    got = ", ".join([shown(a) for a in args] + [f"{k}={shown(v)}" for k, v in kwargs.items()])
    return TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        + _TO_OVERLOADS
    )


_TO_OVERLOADS = "".join(
    f" * ({first}bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    for first in (
        "torch.device device = None, torch.dtype dtype = None, ",
        "torch.dtype dtype, ",
        "Tensor tensor, ",
    )
)


def _is_device(a) -> bool:
    return isinstance(a, (str, _device_cls, int)) and not isinstance(a, bool)


def _parse_to(args, kwargs):
    """``to``'s overloads as PyTorch's parser tells them apart: (device, dtype), (dtype) or
    (tensor), then non_blocking and copy; (dtype, device, copy) with the keywords too."""
    given = dict(kwargs)
    if len(args) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(args)} were given")
    first = args[0] if args else None
    if not args or type(first) in _SCALAR_AS_DTYPE:
        rest = ()  # (a Python scalar: checked below)
    elif isinstance(first, (Tensor, D.dtype)) or _python_type(first):
        rest = args[1:]  # to(tensor, ...) and to(dtype, ...): then non_blocking and copy
    elif first is None or _is_device(first):
        if len(args) > 1 and not (
            args[1] is None or isinstance(args[1], D.dtype) or _python_type(args[1])
        ):
            raise _to_combination(args, given)
        rest = args[2:]  # to(device, dtype, ...)
    else:
        raise _to_combination(args, given)
    if len(rest) > 2 or any(not isinstance(a, bool) for a in rest):
        raise _to_combination(args, given)
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    if args and type(args[0]) in _SCALAR_AS_DTYPE:
        # PyTorch's parser reads a leading Python scalar as the dtype of its type:
        # x.to(0.5) is x.to(torch.float64), x.to(True) is x.to(torch.bool).
        dtype, args = _SCALAR_AS_DTYPE[type(args[0])], args[1:]
        if any(not isinstance(a, bool) for a in args):  # only non_blocking, copy may follow
            raise _to_combination((0.0, *args), given)
    if dtype is not None and dtype.__class__ is not D.dtype and not _python_type(dtype):
        raise TypeError(
            f"to() received an invalid combination of arguments - got (dtype={type(dtype).__name__}, ), "
            "but expected one of:"
        )
    dtype = D.dtype_argument("to", dtype)
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif _python_type(a):
            dtype = D._PYTHON_TYPES[a]
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
        data = preserved_copy(xp_for(self), data)
    if dtype is not self._dtype:  # (a new array, in the layout preserve_format gives)
        data = preserved_copy(_xp(dev), data, lambda a: _cast(a, self._dtype, dtype))
    r = _wrap(data, dtype, dev)
    if self._rg and _gm.enabled and dtype.category >= D.FLOAT:
        record(_ToCopy, (self,), r, (), in_dtype=self._dtype, in_device=self._device)
    if _fw_state.level and self._fw is not None and dtype.category >= D.FLOAT:
        r._fw = self._fw.to(dtype=dtype, device=dev)
        _register(r)
    return r


_COMPLEX_TO_REAL = (
    "Casting complex values to real discards the imaginary part (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)"
)


@silent  # out of range: inf or wrapped; NaN to int: undefined
def _cast(data, src: D.dtype, dst: D.dtype):
    if src.category == D.COMPLEX and D.BOOL < dst.category < D.COMPLEX:
        # PyTorch warns (once per process) and drops the imaginary part (to bool: x != 0)
        from ..._flags import warn_once

        warn_once("complex_to_real", _COMPLEX_TO_REAL)
        data = data.real
    if src.category >= D.FLOAT and dst.category == D.INT:
        # Float to int: truncation toward zero (NumPy does that too, via C casts).
        return data.astype(dst.np)
    return D.cast_array(data, dst.np)  # to a half type through float32, as c10


_TYPE_STRINGS = {d._legacy: d for d in D.all_dtypes if d._legacy}


def dtype_from_type_string(s: str) -> D.dtype:
    name = s.rsplit(".", 1)[-1]
    if name in _TYPE_STRINGS:
        return _TYPE_STRINGS[name]
    raise ValueError(f"invalid type: '{s}'")


# ---- legacy constructors ----------------------------------------------------------------------------------
def legacy_new(cls, dtype: D.dtype, args, device, typed: bool = True) -> Tensor:
    """``torch.Tensor(...)`` (``typed=False``) / ``torch.FloatTensor(...)`` / ``x.new(...)``:
    sizes, a sequence, an array, a tensor, a storage, or nothing. A NumPy array of ``dtype``
    is shared, not copied; a tensor comes back as an alias of itself (a typed constructor wants
    its dtype)."""
    dev = as_device(device)
    first = args[0] if args else None
    if not args:
        t = _finish(np.zeros((0,), dtype.np), dtype, dev, False)
    elif len(args) == 1 and isinstance(first, Tensor):
        if typed and first._dtype is not dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(first._dtype)})")
        from ..shape.view_ops import alias

        return alias(first)
    elif len(args) == 1 and (isinstance(first, TypedStorage) or is_storage(first)):
        t = first._legacy_tensor(dtype) if isinstance(first, TypedStorage) else None
        if t is None:  # an UntypedStorage: its bytes read as ``dtype``
            t = _wrap(np.zeros((0,), dtype.np), dtype, first.device).set_(first)
    elif (isinstance(first, (int, np.integer)) and not isinstance(first, bool)) or (
        len(args) == 1 and isinstance(first, Size)
    ):
        t = _finish(np.zeros(_size_args(args, "new"), dtype.np), dtype, dev, False)
    elif len(args) == 1 and isinstance(first, np.ndarray) and dev.type == "cpu":
        same = first.dtype.isnative and D.from_user_numpy_dtype(first.dtype) is dtype
        # (PyTorch converts the array with copy=False: shared where its dtype is the constructor's)
        t = (
            _shared(first)
            if same
            else _finish(np.array(_to_array(first, dtype)[0], dtype=dtype.np), dtype, dev, False)
        )
    elif len(args) == 1:
        if isinstance(first, str):
            raise TypeError("new(): invalid data type 'str'")
        if first is None or isinstance(first, (numbers.Number, np.generic)):
            from ..._tensor_arguments import type_name

            raise TypeError(f"new(): data must be a sequence (got {type_name(first)})")
        arr, _ = _to_array(first, dtype)
        t = _finish(np.array(arr, dtype=dtype.np), dtype, dev, False)
    else:
        from ..._tensor_arguments import invalid_combination

        raise TypeError(invalid_combination("new", args, {}))
    if cls is not Tensor:
        t.__class__ = cls
    return t


def _options(dtype: D.dtype) -> str:
    """PyTorch's text for the TensorOptions of a CPU tensor of ``dtype``."""
    from ..contraction.matmul import _cname

    return (
        f"TensorOptions(dtype={_cname(dtype)}, device=cpu, layout=Strided, requires_grad=false "
        "(default), pinned_memory=false (default), memory_format=(nullopt))"
    )


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
