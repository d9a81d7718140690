"""Tensors of evenly spaced values and the identity: ``arange``, ``range``, ``linspace``,
``logspace`` and ``eye``, with PyTorch's argument checks, messages and float arithmetic."""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from ... import _dtype as D
from ..._device import as_device
from ..._tensor.core import Tensor
from ...backend.fp_errors import silent
from ..arg_types import python_int_range
from .factories import (
    _checked_fill,
    _finish,
    _fits_float,
    _not_bool,
    _not_shell_uint,
    allocate,
    asarray,
    creation_out,
    empty,
    fill,
    tensor,
    zeros,
)


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
    if isinstance(v, Tensor):  # one element (any dims), as the parser's __index__ takes it
        return v.numel() == 1 and not v.is_floating_point() and not v.is_complex()
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


_UNSET = object()  # an argument not given (arange's end=None is an error, not "no end")

# The overloads PyTorch's parser lists after "received an invalid combination of arguments"
_FACTORY_KWARGS = (
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False)"
)
_ARANGE_FORMS = (
    f" * (Number end, *, Tensor out = None, {_FACTORY_KWARGS}\n"
    f" * (Number start, Number end, *, {_FACTORY_KWARGS}\n"
    f" * (Number start, Number end, Number step = 1, *, Tensor out = None, {_FACTORY_KWARGS}\n"
)


def _spacing_forms(base: str) -> str:
    return "".join(
        f" * ({a} start, {b} end, int steps, {base}*, Tensor out = None, {_FACTORY_KWARGS}\n"
        for a, b in (
            ("Tensor", "Tensor"),
            ("Number", "Tensor"),
            ("Tensor", "Number"),
            ("Number", "Number"),
        )
    )


_SPACING_FORMS = {"linspace": _spacing_forms(""), "logspace": _spacing_forms("float base = 10.0, ")}


def _invalid_combination(fn: str, args, forms: str) -> TypeError:
    got = ", ".join(type(v).__name__ for v in args)
    return TypeError(
        f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        + forms
    )


def _number(v) -> bool:
    """A Number argument of the parser: a Python number, or a tensor of no dims."""
    return isinstance(v, Tensor) and v._data.ndim == 0 or isinstance(v, numbers.Number)


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
    given = [v for v in (start, end, step) if v is not _UNSET]
    if end is _UNSET and step is _UNSET and not _number(start):
        raise TypeError(
            f"arange(): argument 'end' (position 1) must be Number, not {type(start).__name__}"
        )
    if end is _UNSET and step is not _UNSET or not all(map(_number, given)):
        # PyTorch's overloads: (end), (start, end), (start, end, step) of Numbers (a tensor
        # passes as one only without dims); no None among them
        raise _invalid_combination("arange", given, _ARANGE_FORMS)
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
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
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


def _linspace_parser(start, end, steps, fn: str = "linspace") -> None:
    """PyTorch's parser: numbers or tensors for the ends (NumPy would read None as NaN), an int
    (or an integer tensor) for ``steps``, else no overload matches; then a Python int end must
    fit int64/uint64."""
    ends_ok = all(isinstance(v, (numbers.Number, Tensor)) for v in (start, end))
    steps_ok = (
        isinstance(steps, Tensor)
        and steps._data.ndim == 0
        and not steps.is_floating_point()
        or (isinstance(steps, numbers.Integral) and not isinstance(steps, bool))
    )
    if not (ends_ok and steps_ok):
        raise _invalid_combination(fn, (start, end, steps), _SPACING_FORMS[fn])
    python_int_range(start)
    python_int_range(end)


def _zero_dim_ends(fn: str, start, end) -> None:
    """linspace/logspace take tensor ends without dims only."""
    for name, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v._data.ndim:
            raise RuntimeError(
                f"{fn} only supports 0-dimensional start and end tensors, but got {name} with "
                f"{v._data.ndim} dimension(s)."
            )


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

        s, e = (D.cast_array(np.asarray(v, np.float64), dtype.np).astype(f) for v in (start, end))
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
    _zero_dim_ends("linspace", start, end)
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
    _linspace_parser(start, end, steps, "logspace")
    _zero_dim_ends("logspace", start, end)
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
