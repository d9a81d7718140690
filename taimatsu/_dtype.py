"""dtype objects and PyTorch's type-promotion rules.

NumPy's promotion differs from PyTorch's (0-d arrays are not "weak", int + float gives
float64, uint8 + int8 gives int16 in both but float16 + bfloat16 does not exist...), so
every op asks this module for the result dtype and casts before calling NumPy.
"""

from __future__ import annotations

import builtins
import sys

import numpy as np

# Categories order the kinds: a higher category wins over a lower one in promotion.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type; ``repr`` is PyTorch's (``torch.float32``).

    ``np`` is the NumPy dtype. bfloat16's comes from ml_dtypes, whose import takes ~1 s (its
    extension registers its types, ufuncs and casts with NumPy): it is imported when a bfloat16
    ``np`` is first read, not by ``import taimatsu`` (``__getattr__``)."""

    _tp_name = "torch.dtype"  # the name PyTorch's messages give its C type (type_name)

    __module__ = "taimatsu"  # <class 'taimatsu.dtype'>, as PyTorch's <class 'torch.dtype'>

    __slots__ = ("name", "np", "itemsize", "category", "is_signed", "_legacy", "_aliases")

    def __init__(self, name: str, np_dtype, category: int, legacy: str | None, itemsize: int = 0):
        self.name = name
        if np_dtype is not None:  # None: an ml_dtypes type, read on first use
            self.np = np.dtype(np_dtype)
            itemsize = self.np.itemsize
        self.itemsize = itemsize
        self.category = category
        self.is_signed = not name.startswith(("bool", "uint"))
        self._legacy = legacy

    def __getattr__(self, name: str):
        # Only reached when a slot is unset: ``np`` of an ml_dtypes dtype not used yet.
        if name == "np" and self in _ML_DTYPES:
            _load_ml_dtypes()
            return self.np
        raise AttributeError(f"'dtype' object has no attribute '{name}'")

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOAT

    @property
    def is_complex(self) -> bool:
        return self.category == COMPLEX

    def to_real(self) -> dtype:
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> dtype:
        if self in _SHELL_UINTS:
            raise RuntimeError(f"Unknown Complex ScalarType for {_C10_NAMES[self.name]}")
        return {float64: complex128, complex128: complex128}.get(self, complex64)

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


def _load_ml_dtypes() -> None:
    import ml_dtypes

    for d in _ML_DTYPES:
        d.np = np.dtype(getattr(ml_dtypes, d.name))
        _by_np[d.np] = d


bool = dtype("bool", np.bool_, BOOL, "BoolTensor")  # noqa: A001 - PyTorch's name
uint8 = dtype("uint8", np.uint8, INT, "ByteTensor")
int8 = dtype("int8", np.int8, INT, "CharTensor")
int16 = dtype("int16", np.int16, INT, "ShortTensor")
int32 = dtype("int32", np.int32, INT, "IntTensor")
int64 = dtype("int64", np.int64, INT, "LongTensor")
float16 = dtype("float16", np.float16, FLOAT, "HalfTensor")
bfloat16 = dtype("bfloat16", None, FLOAT, "BFloat16Tensor", itemsize=2)
float32 = dtype("float32", np.float32, FLOAT, "FloatTensor")
float64 = dtype("float64", np.float64, FLOAT, "DoubleTensor")
complex64 = dtype("complex64", np.complex64, COMPLEX, "ComplexFloatTensor")
# PyTorch's "shell" unsigned dtypes: they exist, cast, index and print, but few kernels take
# them and they promote with nothing but themselves and floating types (see ``_promote_table``).
# ``.type()`` names them "torch.UInt32Tensor" though no such legacy class exists.
uint16 = dtype("uint16", np.uint16, INT, "UInt16Tensor")
uint32 = dtype("uint32", np.uint32, INT, "UInt32Tensor")
uint64 = dtype("uint64", np.uint64, INT, "UInt64Tensor")
complex128 = dtype("complex128", np.complex128, COMPLEX, "ComplexDoubleTensor")

# PyTorch's aliases
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

all_dtypes = (
    bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64,
    complex128, uint16, uint32, uint64,
)  # fmt: skip
_SHELL_UINTS = (uint16, uint32, uint64)
# A pseudo-category for op dtype checks (``not_implemented("lt_cpu", COMPLEX, SHELL_UINT)``):
# the kernels PyTorch does not build for uint16/32/64. No dtype has it as its category.
SHELL_UINT = 4
_ML_DTYPES = (bfloat16,)
# NumPy type chars: "e" is float16, "E" ml_dtypes' bfloat16. Kernels test an array's dtype by its
# char: that needs no ml_dtypes import, and comparing a char is cheaper than comparing dtypes.
HALF_CHARS = ("e", "E")
BFLOAT16_CHAR = "E"
# The floating types' chars, and those with complex: ml_dtypes' bfloat16 is NumPy kind "V", not
# "f", so ``dtype.kind == "f"`` misses it (its NaNs and infinities would pass for numbers).
FLOAT_CHARS = "efdE"
INEXACT_CHARS = "efdEFD"
# Types whose every value a float32 holds exactly (float16, float32, bfloat16, bool, 8/16-bit
# integers): to a half type directly or through float32 is the same
_EXACT_IN_FLOAT32 = "efE?bBhH"


def cast_array(a, np_dtype):
    """``a.astype(np_dtype)`` (a new array) as c10 converts: its float16 and bfloat16 take a
    float, so a float64 (or 32/64-bit integer) value is rounded to float32 first and then to
    the half type -- twice, where NumPy rounds once (192.50000000000003 as bfloat16: 192, not
    193)."""
    np_dtype = np.dtype(np_dtype)
    if (
        np_dtype.char in HALF_CHARS
        and a.dtype.char not in _EXACT_IN_FLOAT32
        and a.dtype.kind != "c"
    ):
        with np.errstate(over="ignore"):  # beyond float32's range: inf, as C's conversion
            a = a.astype(np.float32)
    return a.astype(np_dtype)


def half_scalar(v, dtype: dtype):
    """A Python number about to be stored in ``dtype``: as a float32 for float16/bfloat16 (see
    ``cast_array``), unchanged otherwise."""
    if (
        (dtype is float16 or dtype is bfloat16)
        and isinstance(v, (builtins.float, builtins.int, np.floating, np.integer))
        and not isinstance(v, builtins.bool)
    ):
        with np.errstate(over="ignore"):
            return np.float32(v)
    return v


_by_name = {d.name: d for d in all_dtypes}
_by_np = {d.np: d for d in all_dtypes if d not in _ML_DTYPES}  # ml_dtypes' join when loaded


def _dtype_by_name(name: str) -> dtype:
    return _by_name[name]


# Python's types where a dtype belongs: PyTorch's parser reads float as float64, int as int64
_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool,
                 builtins.complex: complex128}  # fmt: skip


def dtype_argument(fn: str, value):
    """A ``dtype`` argument as PyTorch's parser takes it: a torch dtype or None as it is,
    ``float``/``int``/``bool``/``complex`` as float64/int64/bool/complex128; anything else (a
    string, a NumPy type) its TypeError."""
    if value is None or value.__class__ is dtype:
        return value
    try:
        return _PYTHON_TYPES[value]
    except (KeyError, TypeError):  # (TypeError: an unhashable value)
        raise TypeError(
            f"{fn}(): argument 'dtype' must be torch.dtype, not {type(value).__name__}"
        ) from None


def from_numpy_dtype(np_dtype) -> dtype:
    np_dtype = np.dtype(np_dtype)
    found = _by_np.get(np_dtype)
    if found is None and "ml_dtypes" in sys.modules and bfloat16 not in _by_np.values():
        # an ml_dtypes array made before taimatsu needed ml_dtypes: register its types now
        _load_ml_dtypes()
        found = _by_np.get(np_dtype)
    if found is None:
        raise _unconvertible(np_dtype)
    return found


def from_user_numpy_dtype(np_dtype) -> dtype:
    """``from_numpy_dtype`` for the arrays and NumPy scalars a user hands to ``from_numpy``,
    ``tensor`` and ``as_tensor``: PyTorch converts NumPy's own types only, so ml_dtypes'
    bfloat16, which taimatsu's bfloat16 tensors hold internally, is refused as PyTorch refuses
    it. (The library's own code wraps such arrays with ``from_numpy_dtype``.)"""
    np_dtype = np.dtype(np_dtype)
    found = _by_np.get(np_dtype)
    if found is None or found in _ML_DTYPES:
        raise _unconvertible(np_dtype)
    return found


def _unconvertible(np_dtype) -> TypeError:
    t = np_dtype.type  # PyTorch names the scalar type: numpy.str_, ml_dtypes.float8_e4m3fn
    return TypeError(
        f"can't convert np.ndarray of type {t.__module__}.{t.__name__}. The only "
        "supported types are: float64, float32, float16, complex64, complex128, int64, "
        "int32, int16, int8, uint64, uint32, uint16, uint8, and bool."
    )


# ---- default dtype --------------------------------------------------------------------
_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    if not isinstance(d, dtype) or d not in (float16, bfloat16, float32, float64):
        raise TypeError(
            "only floating-point types are supported as the default type"
            if isinstance(d, dtype)
            else f"invalid dtype object: only floating-point types are supported as the default type, got {d}"
        )
    _default[0] = d


def default_complex() -> dtype:
    return complex128 if _default[0] is float64 else complex64


# ---- promotion --------------------------------------------------------------------------
_INT_ORDER = (uint8, int8, int16, int32, int64)


def _promote_uncached(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.category == COMPLEX and lo in (float64,):
            return complex128
        return hi
    if a.category == INT:
        if {a, b} == {uint8, int8}:
            return int16
        if uint8 in (a, b):
            return a if b is uint8 else b
        return a if _INT_ORDER.index(a) > _INT_ORDER.index(b) else b  # (never a shell uint here)
    if a.category == FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize > b.itemsize else b
    return a if a.itemsize > b.itemsize else b


# c10's ScalarType names, which PyTorch's messages use.
_C10_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
    "uint64": "UInt64",
}  # fmt: skip


class _PromoteTable(dict):
    """(a, b) -> promoted dtype; a pair PyTorch refuses (a shell unsigned dtype with anything
    but itself or a floating type) is absent, and looking it up raises PyTorch's error."""

    def __missing__(self, key):
        a, b = key
        raise RuntimeError(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{_C10_NAMES[a.name]} and {_C10_NAMES[b.name]}"
        )


_promote_table = _PromoteTable(
    ((a, b), _promote_uncached(a, b))
    for a in all_dtypes
    for b in all_dtypes
    if a is b or not (a in _SHELL_UINTS or b in _SHELL_UINTS) or FLOAT in (a.category, b.category)
)


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """``torch.promote_types``: the smallest dtype both can be cast to."""
    return _promote_table[type1, type2]


def scalar_dtype(value) -> dtype:
    """The dtype PyTorch gives a Python number when it is wrapped as a tensor."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.float):
        return _default[0]
    if isinstance(value, builtins.complex):
        return default_complex()
    if isinstance(value, np.generic):
        return from_numpy_dtype(value.dtype)
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    # PyTorch's rule for merging priority classes (dimensioned > 0-d > Python scalar):
    # a lower class only matters if it is of a higher category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        return higher.to_complex() if higher.category == FLOAT else lower
    if higher.category == FLOAT:
        return higher
    if higher is bool or lower.category == FLOAT:
        return _promote_table[higher, lower]
    return higher


def result_type_of(dims, zeros, scalars) -> dtype:
    """Promote three priority classes of dtypes: dimensioned tensors, 0-d tensors, and the
    dtypes of Python scalars (already mapped through ``scalar_dtype``)."""

    def fold(ds):
        out = None
        for d in ds:
            out = d if out is None else _promote_table[out, d]
        return out

    s = fold(scalars)
    if s is not None and s.category == FLOAT:
        s = _default[0]  # a Python float participates as the default dtype
    elif s is not None and s.category == COMPLEX:
        s = default_complex()
    return _combine(fold(dims), _combine(fold(zeros), s))


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """``torch.can_cast``: casting allowed under PyTorch's same-kind rule."""
    return from_.category <= to.category and not (from_.category != BOOL and to is bool)


class finfo:
    _tp_name = "torch.finfo"  # the name PyTorch's messages give its C type (type_name)

    def __init__(self, type: dtype | None = None):  # noqa: A002
        type = type or _default[0]
        if type.category < FLOAT:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"
            )
        info = _finfo_of(type.to_real())
        self.bits = info.bits
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.tiny)
        # PyTorch's is 10**-digits in double; NumPy's is rounded to the type (0.0010004 for half)
        self.resolution = 10.0**-info.precision
        self.dtype = type.to_real().name

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )


def _finfo_of(type: dtype):
    if type in _ML_DTYPES:
        import ml_dtypes

        return ml_dtypes.finfo(type.np)
    return np.finfo(type.np)


class iinfo:
    _tp_name = "torch.iinfo"  # the name PyTorch's messages give its C type (type_name)

    def __init__(self, type: dtype):  # noqa: A002
        if type.category not in (INT, BOOL) or type is bool:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"
            )
        info = np.iinfo(type.np)
        self.bits, self.min, self.max, self.dtype = (
            info.bits,
            builtins.int(info.min),
            builtins.int(info.max),
            type.name,
        )

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
