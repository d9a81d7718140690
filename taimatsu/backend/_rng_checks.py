"""The dtype facts, casts and argument checks of PyTorch's CPU random kernels.

Split from `random.py` (the generator and its samplers): the tables of each dtype's names and
ranges as PyTorch's messages print them, C++'s `static_cast` into a dtype, and the checks that
`uniform_`, `random_`, `randperm` and `multinomial` run before drawing, with PyTorch's messages.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._flags import user_stacklevel

_INT64_MIN = -(2**63)

# numpy name, ScalarType name (in messages), C++ type name (in messages), digits or int range
_DTYPE_TABLE = """
float64   Double   double              53
float32   Float    float               24
float16   Half     c10::Half           11
bfloat16  BFloat16 c10::BFloat16       8
int64     Long     long_int            -9223372036854775808 9223372036854775807
int32     Int      int                 -2147483648 2147483647
int16     Short    short_int           -32768 32767
int8      Char     signed_char         -128 127
uint8     Byte     unsigned_char       0 255
bool      Bool     bool                0 1
uint16    UInt16   short_unsigned_int  0 65535
uint32    UInt32   unsigned_int        0 4294967295
uint64    UInt64   long_unsigned_int   0 9223372036854775807
"""
_ROWS = [line.split() for line in _DTYPE_TABLE.strip().splitlines()]
_SCALAR_NAME = {r[0]: r[1] for r in _ROWS} | {
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}
_CPP_NAME = {r[0]: r[2].replace("_", " ") for r in _ROWS}
_DIGITS = {r[0]: int(r[3]) for r in _ROWS if len(r) == 4}  # std::numeric_limits<T>::digits
_INT_RANGE = {r[0]: (int(r[3]), int(r[4])) for r in _ROWS if len(r) == 5}  # uint64: torch's bound
_FLOAT_MAX = {"float64": 1.7976931348623157e308, "float32": 3.4028234663852886e38}
_FLOAT_MAX |= {"float16": 65504.0, "bfloat16": 3.3895313892515355e38}
_INTEGERS = ("uint8", "int8", "int16", "int32", "int64")  # AT_DISPATCH_ALL_TYPES' integers


def _num(x: float) -> str:
    """A double as C++'s ostream prints it in PyTorch's messages."""
    return f"{x:g}"


def _not_implemented(kernel: str, dtype: np.dtype) -> NotImplementedError:
    name = _SCALAR_NAME.get(dtype.name, dtype.name)
    return NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _from_float(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """static_cast<scalar_t>(x): half and bfloat16 are built from float, so a double reaches them
    through float32 (two roundings, as in C++)."""
    with np.errstate(over="ignore"):  # out-of-range values become inf, silently as in C++
        if dtype.name in ("float16", "bfloat16") and x.dtype == np.float64:
            x = x.astype(np.float32)
        return x.astype(dtype, copy=False)


def _from_int64(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """static_cast<scalar_t>(int64): wraps for integers, rounds for floats, nonzero for bool."""
    with np.errstate(over="ignore"):
        if dtype.name in ("float16", "bfloat16"):
            x = x.astype(np.float32)
        return x.astype(dtype)


def _check_uniform_bounds(dtype: np.dtype, low: float, high: float) -> None:
    if dtype.name not in _DIGITS:
        raise _not_implemented("check_uniform_bounds", dtype)
    limit = _FLOAT_MAX[dtype.name]
    for value, what in ((low, "from"), (high, "to")):
        if not -limit <= value <= limit:
            raise RuntimeError(f"{what} is out of bounds for {_CPP_NAME[dtype.name]}")
    if not low <= high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_num(low)} > to={_num(high)}"
        )
    if not high - low <= limit:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_SCALAR_NAME[dtype.name]}>::max(), "
            f"but found to={_num(high)} and from={_num(low)} which result in to-from to exceed the limit"
        )


def _random_range(dtype: np.dtype, low: int, high: int | None) -> tuple[int, int]:
    """random_from_to_impl: (base, span) of [low, high), or of [low, the dtype's max] when high
    is None, after PyTorch's checks."""
    name = dtype.name
    if name not in _DIGITS and name not in _INT_RANGE:
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    if high is not None:
        if not low < high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if name in _DIGITS:
            low, high = _float_bound(dtype, low, up=True), _float_bound(dtype, high, up=False)
            if not low < high:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                    f"but got from={low} >= to={high}"
                )
        _check_from_to(dtype, low, high - 1)
        return low, high - low
    if name in _DIGITS:
        to_inc = 2 ** _DIGITS[name]
        low = _float_bound(dtype, low, up=True)
        if not low < to_inc:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                f"to dtype, but got from={low} > to_inc={to_inc}"
            )
    else:
        to_inc = _INT_RANGE[name][1] if name != "uint64" else 2**64 - 1
    _check_from_to(dtype, low, to_inc)
    return low, to_inc - low + 1


def _float_bound(dtype: np.dtype, value: int, up: bool) -> int:
    """update_from / update_to: move a bound inward until it survives a round trip through the
    float dtype, so that e.g. random_(0, 65504) on half cannot produce 65504."""
    step = 1 if up else -1
    rounded = float(_from_int64(np.array([value + step], np.int64), dtype)[0])
    # static_cast<int64_t> of an infinity gives INT64_MIN on x86
    moved = int(rounded) if abs(rounded) < 2.0**63 else _INT64_MIN
    if (moved < value) if up else (moved >= value):
        shift = 1 << (abs(value + step).bit_length() - _DIGITS[dtype.name])
        return moved + shift if up else moved - shift
    return value


def _check_from_to(dtype: np.dtype, low: int, to_inc: int) -> None:
    """check_from_to_in_range: an error outside the dtype, a warning past 2**digits for floats."""
    name = dtype.name
    lo, hi = (-_FLOAT_MAX[name], _FLOAT_MAX[name]) if name in _DIGITS else _INT_RANGE[name]
    cpp = _CPP_NAME[name]
    for value, what in ((low, "from"), (to_inc, "to - 1")):
        if not lo <= value <= hi:
            raise RuntimeError(f"{what} is out of bounds for {cpp}")
    digits = _DIGITS.get(name)
    for value, what in ((low, "from"), (to_inc, "to - 1")):
        if digits and not -(2**digits) <= value <= 2**digits:
            warnings.warn(
                f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                f"{cpp} can support discrete uniform distribution only within this range. This "
                "warning will become an error in version 1.7 release, please fix the code in advance",
                UserWarning,
                stacklevel=user_stacklevel(),
            )


def _check_randperm(n: int, dtype: np.dtype) -> None:
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    name = dtype.name
    if name not in _DIGITS and name not in _INTEGERS:
        raise _not_implemented("randperm", dtype)
    if name in _INT_RANGE and n - 1 > _INT_RANGE[name][1]:
        c_type = "uint8_t" if name == "uint8" else f"{name}_t"
        raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
    limit = {"float16": (2049, "2049", "Half"), "float32": (2**24 + 1, "2^24+1", "Float")}
    limit["float64"] = (2**53 + 1, "2^53+1", "Double")
    if name in limit and n > limit[name][0]:
        raise RuntimeError(f"n cannot be greater than {limit[name][1]} for {limit[name][2]} type.")


def _check_multinomial(probs: np.ndarray, num_samples: int, replacement: bool) -> None:
    if probs.dtype.name not in _DIGITS:
        name = _SCALAR_NAME.get(probs.dtype.name, probs.dtype.name)
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {name}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if probs.shape[-1] > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )


def _check_multinomial_rows(rows: np.ndarray, values: np.ndarray) -> None:
    """The with-replacement kernel's checks, in the order its loop meets them. (PyTorch draws a
    row's samples before checking the next row; we check every row first.)"""
    for row, value in zip(rows, values):
        bad = ~(row >= 0) | ~np.isfinite(value)
        if bad.any():
            if not row[np.argmax(bad)] >= 0:
                raise RuntimeError(
                    "invalid multinomial distribution (encountering probability entry < 0)"
                )
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
            )
        if not value.sum(dtype=value.dtype) > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


# The distributions' argument checks, shared by the CPU and CUDA generators; ``device`` names
# the kernel in PyTorch's NotImplementedError ("geometric_cpu" / "geometric_cuda").
def _check_continuous(dist: str, param: str, value: float, dtype: np.dtype, names) -> None:
    """A continuous distribution's checks: its parameter positive, the tensor floating point
    (``names``: how PyTorch's message spells the dtype, which differs between the two)."""
    if not value > 0.0:
        raise RuntimeError(
            f"{dist.lower()}_ expects {param} > 0.0, but found {param}={_num(value)}"
        )
    if dtype.name not in _DIGITS:
        raise RuntimeError(
            f"{dist} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {names.get(dtype.name, dtype.name)}"
        )


def _check_exponential(dtype: np.dtype, lambd: float) -> None:
    _check_continuous("Exponential", "lambda", lambd, dtype, _SCALAR_NAME)


def _check_geometric(dtype: np.dtype, p: float, device: str) -> None:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    if dtype.name not in _DIGITS and dtype.name not in _INTEGERS:
        raise _not_implemented(f"geometric_{device}", dtype)


def _check_cauchy(dtype: np.dtype, sigma: float) -> None:
    _check_continuous("Cauchy", "sigma", sigma, dtype, _CPP_NAME)


def _check_log_normal(dtype: np.dtype, std: float, device: str) -> None:
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    if dtype.name not in _DIGITS:
        raise _not_implemented(f"log_normal_{device}", dtype)
