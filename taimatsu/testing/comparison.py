"""``torch.testing.assert_close``: compare tensors, NumPy arrays, numbers and nested sequences /
mappings of them, with PyTorch's default tolerances per dtype and PyTorch's failure messages
(mismatch counts, greatest absolute and relative differences at their index, the failing item's
path), so a test suite written for PyTorch reads the same."""

from __future__ import annotations

import cmath
import collections.abc
import math
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor.core import Tensor

__all__ = ["assert_allclose", "assert_close"]

# (rtol, atol) by dtype; integer and bool dtypes compare exactly
_TOLERANCES = {
    D.float16: (1e-3, 1e-5),
    D.bfloat16: (1.6e-2, 1e-5),
    D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7),
    D.complex64: (1.3e-6, 1e-5),
    D.complex128: (1e-7, 1e-7),
}


class _Mismatch(Exception):
    """A failed comparison: its exception type, message and the path of the failing item."""

    def __init__(self, kind, msg: str, path: str = ""):
        super().__init__(msg)
        self.kind, self.msg, self.path = kind, msg, path


def assert_close(
    actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
    check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None,
) -> None:  # fmt: skip
    """Raise AssertionError (or TypeError / ValueError) with PyTorch's message unless
    ``actual`` and ``expected`` are close: ``|actual - expected| <= atol + rtol * |expected|``."""
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    options = {
        "rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_device": check_device,
        "check_dtype": check_dtype, "check_layout": check_layout, "check_stride": check_stride,
    }  # fmt: skip
    try:
        _compare(actual, expected, "", options)
    except _Mismatch as m:
        text = m.msg
        if m.kind is AssertionError and msg is not None:
            text = msg(text) if callable(msg) else msg
        elif m.path:
            text += f"\n\nThe failure occurred for item {m.path}"
        raise m.kind(text) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """The deprecated spelling: tensors made of both sides, the larger tolerances of
    ``torch.allclose``'s era (float32: rtol 1e-4, atol 1e-5), NaNs equal by default."""
    from .. import as_tensor

    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
        "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
        "instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    actual = actual if isinstance(actual, Tensor) else as_tensor(actual)
    expected = expected if isinstance(expected, Tensor) else as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        old = {D.float16: (1e-3, 1e-3), D.float32: (1e-4, 1e-5), D.float64: (1e-5, 1e-8)}
        rtol, atol = (
            max(old.get(t.dtype, (0.0, 0.0))[i] for t in (actual, expected)) for i in (0, 1)
        )
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)  # fmt: skip


# ---- pairing the inputs ----------------------------------------------------------------------------
def _type_name(x) -> str:
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))


def _compare(actual, expected, path: str, options: dict) -> None:
    if actual is None and expected is None:
        return
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        if bool(actual) != bool(expected):
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)
        return
    if _is_number(actual) and _is_number(expected):
        return _compare_numbers(actual, expected, path, options)
    both_tensors = isinstance(actual, Tensor) and isinstance(expected, Tensor)
    if both_tensors or (isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray)):
        return _compare_tensors(_as_tensor(actual), _as_tensor(expected), path, options)
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                path,
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{path}[{i}]", options)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(
        expected, collections.abc.Mapping
    ):
        return _compare_mappings(actual, expected, path, options)
    raise _Mismatch(
        TypeError,
        f"No comparison pair was able to handle inputs of type {_type_name(actual)} and "
        f"{_type_name(expected)}.",
        path,
    )


def _is_number(x) -> bool:
    return isinstance(x, (int, float, complex, np.number)) and not isinstance(x, (bool, np.bool_))


def _is_sequence(x) -> bool:
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _as_tensor(x) -> Tensor:
    from .. import as_tensor

    return x if isinstance(x, Tensor) else as_tensor(x)


def _compare_mappings(actual, expected, path: str, options: dict) -> None:
    a_keys, e_keys = set(actual), set(expected)
    if a_keys != e_keys:
        lines = ["The keys of the mappings do not match:"]
        if e_keys - a_keys:
            lines.append(f"Missing keys in the actual mapping: {sorted(e_keys - a_keys)}")
        if a_keys - e_keys:
            lines.append(f"Additional keys in the actual mapping: {sorted(a_keys - e_keys)}")
        raise _Mismatch(AssertionError, "\n".join(lines), path)
    for key in expected:
        _compare(actual[key], expected[key], f"{path}[{key!r}]", options)


# ---- numbers -----------------------------------------------------------------------------------------
def _number_tolerances(x) -> tuple:
    if isinstance(x, (complex, np.complexfloating)):
        return _TOLERANCES[D.complex128]
    if isinstance(x, (float, np.floating)):
        return _TOLERANCES[D.float64]
    return (0, 0)


def _compare_numbers(actual, expected, path: str, options: dict) -> None:
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(
            AssertionError,
            f"The (d)types do not match: {type(actual)} != {type(expected)}.",
            path,
        )
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol, atol = (max(t) for t in zip(_number_tolerances(actual), _number_tolerances(expected)))
    a, e = _python_number(actual), _python_number(expected)
    if _numbers_close(a, e, rtol, atol, options["equal_nan"]):
        return
    raise _Mismatch(AssertionError, _scalar_message(a, e, rtol, atol), path)


def _python_number(x):
    return x.item() if isinstance(x, np.generic) else x


def _numbers_close(a, e, rtol, atol, equal_nan) -> bool:
    if a == e:
        return True
    if cmath.isnan(a) or cmath.isnan(e):
        return bool(equal_nan and cmath.isnan(a) and cmath.isnan(e))
    if cmath.isinf(a) or cmath.isinf(e):
        return False
    return abs(a - e) <= atol + rtol * abs(e)


def _scalar_message(a, e, rtol, atol) -> str:
    diff = abs(a - e)
    rel = math.inf if e == 0 else diff / abs(e)
    return _message("Scalars", f"Expected {e} but got {a}.", diff, None, atol, rel, None, rtol)


def _message(what, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", "", extra]
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol), ("relative", rel_diff, rel_idx, rtol)):  # fmt: skip
        line = (
            f"{kind.title()} difference: {diff}"
            if idx is None
            else f"Greatest {kind} difference: {diff} at index {idx}"
        )
        lines.append(line if exact else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


# ---- tensors -----------------------------------------------------------------------------------------
def _compare_tensors(actual: Tensor, expected: Tensor, path: str, options: dict) -> None:
    checks = [("shape", actual.shape, expected.shape, True)]
    checks.append(("device", actual.device, expected.device, options["check_device"]))
    checks.append(("dtype", actual.dtype, expected.dtype, options["check_dtype"]))
    checks.append(("layout", actual.layout, expected.layout, options["check_layout"]))
    for name, a, e, wanted in checks:
        if wanted and a != e:
            raise _Mismatch(
                AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.", path
            )
    if options["check_stride"] and actual.stride() != expected.stride():
        raise _Mismatch(
            AssertionError,
            f"The values for attribute 'stride()' do not match: {actual.stride()} != "
            f"{expected.stride()}.",
            path,
        )
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        pairs = [_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    actual, expected = _common(actual.detach(), expected.detach())
    if actual.layout != expected.layout or actual.is_sparse:
        actual, expected = actual.to_dense(), expected.to_dense()
    matches = _isclose(actual, expected, rtol, atol, options["equal_nan"])
    if bool(matches.all()):
        return
    if actual.dim() == 0:
        msg = _scalar_message(actual.item(), expected.item(), rtol, atol)
    else:
        msg = _tensor_message(actual, expected, matches, rtol, atol)
    raise _Mismatch(AssertionError, msg, path)


def _common(actual: Tensor, expected: Tensor):
    if actual.dtype == expected.dtype:
        return actual, expected
    dtype = D.promote_types(actual.dtype, expected.dtype)
    return actual.to(dtype), expected.to(dtype)


def _isclose(actual, expected, rtol, atol, equal_nan) -> Tensor:
    from .. import isclose

    if actual.dtype.is_floating_point or actual.dtype.is_complex:
        return isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return actual == expected


def _tensor_message(actual, expected, matches, rtol, atol) -> str:
    """The mismatch count and the greatest differences among the mismatched elements (computed
    in the inputs' dtype; integers in int64), each at its index."""
    from .. import int64

    total = matches.numel()
    wrong = total - int(matches.sum())
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    a, e, same = actual.flatten(), expected.flatten(), matches.flatten()
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        a, e = a.to(int64), e.to(int64)
    abs_diff = (a - e).abs()
    abs_diff[same] = 0
    rel_diff = abs_diff / e.abs()
    rel_diff[same] = 0
    abs_max, abs_at = abs_diff.max(0)
    rel_max, rel_at = rel_diff.max(0)
    return _message(
        "Tensor-likes", extra, abs_max.item(), _unravel(int(abs_at), actual.shape), atol,
        rel_max.item(), _unravel(int(rel_at), actual.shape), rtol,
    )  # fmt: skip


def _unravel(flat: int, shape) -> tuple:
    return tuple(int(i) for i in np.unravel_index(flat, tuple(shape)))
