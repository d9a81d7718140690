"""Printing of tensors: the text of ``repr(tensor)`` / ``str(tensor)``, identical to PyTorch's.

The rules follow ``torch._tensor_str`` (PyTorch 2.x, strided CPU/CUDA tensors):

- One formatter per tensor (two for complex: real and imaginary parts) picks a common width and a
  mode from the elements that are shown: integer mode (``1.``), fixed (``1.2346``) or scientific
  (``1.2346e+08``), chosen from the nonzero finite values unless ``sci_mode`` forces it.
- Past ``threshold`` elements, every dimension longer than ``2 * edgeitems`` is cut to its first
  and last ``edgeitems`` entries, with ``...`` in between.
- 1-d rows wrap at ``linewidth``; nested dimensions are indented one column per level, with
  ``dim - 1`` newlines between blocks.
- Suffixes (device, size, dtype, then the caller's ``grad_fn=``/``requires_grad=``) go after the
  data, each moved to a new line when it would overflow ``linewidth``.

Only numpy is needed: every value is formatted as a Python float/complex/int, which holds
float16, bfloat16 and float32 values exactly, as PyTorch's ``.item()``/``.tolist()`` do.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "printoptions", "set_printoptions"]


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

_FLOAT_NAMES = {"float16", "bfloat16", "float32", "float64"}
_COMPLEX_NAMES = {"complex64", "complex128"}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set print options, as ``torch.set_printoptions``.

    As in PyTorch, an unknown profile is ignored, and ``sci_mode`` is always reset (to ``None``,
    automatic, when not given).
    """
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(PRINT_OPTS, name, value)
    given = {
        "precision": precision,
        "threshold": threshold,
        "edgeitems": edgeitems,
        "linewidth": linewidth,
    }
    for name, value in given.items():
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments for :func:`set_printoptions`."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the print options (same arguments as :func:`set_printoptions`)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Formats the numbers of one real array to a common width, in the mode PyTorch would pick."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        if not floating:
            self.width = max([1] + [len(str(v)) for v in values.ravel().tolist()])
            return
        # Only nonzero finite values decide the mode and the width: zeros, nan and inf fit any mode.
        shown = values[np.isfinite(values) & (values != 0)]
        self.width = 1
        if shown.size == 0:
            return
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        if PRINT_OPTS.sci_mode is None:
            magnitudes = np.abs(shown)
            lo, hi = float(magnitudes.min()), float(magnitudes.max())
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = bool(PRINT_OPTS.sci_mode)
        self.width = max(len(self._text(v)) for v in shown.tolist())

    def _text(self, value: float) -> str:
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            return f"{value:.{precision}e}"
        if self.int_mode:
            # The trailing dot tells a float tensor of whole numbers from an integer tensor.
            text = f"{value:.0f}"
            return text + "." if math.isfinite(value) else text
        return f"{value:.{precision}f}"

    def format(self, value: float | bool) -> str:
        text = self._text(value) if self.floating else str(value)
        return text.rjust(self.width)


def _complex_text(value: complex, real: _Formatter, imag: _Formatter) -> str:
    imag_text = (imag.format(value.imag) + "j").lstrip()
    # The imaginary part carries its own sign ("-", or "-0." for negative zero); else add "+".
    sign = "" if imag_text[0] in "+-" else "+"
    return real.format(value.real) + sign + imag_text


def _summary_indices(shape: tuple[int, ...], edgeitems: int) -> tuple[list[bool], tuple]:
    """Which dims are cut, and an index selecting the first/last ``edgeitems`` of each."""
    cut = [size > 2 * edgeitems for size in shape]
    kept = [
        np.r_[0:edgeitems, size - edgeitems : size] if is_cut else np.arange(size)
        for size, is_cut in zip(shape, cut, strict=True)
    ]
    return cut, np.ix_(*kept)


def _row(cells: list[str], cut: bool, indent: int, item_width: int) -> str:
    if cut:
        cells = cells[: PRINT_OPTS.edgeitems] + [" ..."] + cells[PRINT_OPTS.edgeitems :]
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / item_width))
    lines = [", ".join(cells[i : i + per_line]) for i in range(0, len(cells), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _block(cells: list, cut: list[bool], indent: int, item_width: int) -> str:
    """The text of nested lists of formatted cells (one list level per dim)."""
    if len(cut) == 1:
        return _row(cells, cut[0], indent, item_width)
    parts = [_block(sub, cut[1:], indent + 1, item_width) for sub in cells]
    if cut[0]:
        parts.insert(PRINT_OPTS.edgeitems, "...")
    return "[" + ("," + "\n" * (len(cut) - 1) + " " * (indent + 1)).join(parts) + "]"


def _map_nested(values: Any, fn: Any) -> Any:
    if isinstance(values, list):
        return [_map_nested(v, fn) for v in values]
    return fn(values)


def _tensor_body(data: np.ndarray, dtype_name: str, indent: int) -> str:
    """The bracketed values of a non-empty tensor."""
    summarize = data.size > PRINT_OPTS.threshold
    if data.ndim > 0 and summarize and not PRINT_OPTS.edgeitems:
        return "[...]"
    cut = [False] * data.ndim
    if summarize and data.ndim > 0:
        # Cut before converting: only the shown elements are ever looked at.
        cut, index = _summary_indices(data.shape, PRINT_OPTS.edgeitems)
        data = data[index]
    # float64/complex128 hold every float dtype's values exactly (bfloat16 too), as .item() does.
    if dtype_name in _COMPLEX_NAMES:
        values = np.asarray(data, dtype=np.complex128)
        real = _Formatter(values.real, floating=True)
        imag = _Formatter(values.imag, floating=True)
        item_width = real.width + imag.width + 3  # ", " and the "j"

        def fmt(v: complex) -> str:
            return _complex_text(v, real, imag)
    else:
        floating = dtype_name in _FLOAT_NAMES
        values = np.asarray(data, dtype=np.float64) if floating else data
        formatter = _Formatter(values, floating)
        item_width = formatter.width + 2
        fmt = formatter.format

    cells = _map_nested(values.tolist(), fmt)
    if values.ndim == 0:
        return cells
    return _block(cells, cut, indent, item_width)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    # PyTorch's count is two more than the last line's length when it has no newline, and
    # one more otherwise; kept as is so suffixes wrap at exactly the same place.
    last_line = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > PRINT_OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(pieces) + ")"


def format_tensor(
    data: np.ndarray,
    dtype_name: str,
    *,
    default_dtype_name: str = "float32",
    device: str | None = None,
    tail: tuple[str, ...] = (),
    prefix: str = "tensor(",
) -> str:
    """The repr of a strided tensor holding ``data`` (a CPU array), as PyTorch prints it.

    ``dtype_name`` is the tensor's dtype without ``torch.``; ``default_dtype_name`` the current
    default float dtype; ``device`` is ``None`` for CPU (not shown); ``tail`` holds the caller's
    ready-made suffixes (``grad_fn=<...>`` or ``requires_grad=True``), placed last.
    """
    data = np.asarray(data)
    indent = len(prefix)
    suffixes = [] if device is None else [f"device='{device}'"]
    if data.size == 0:
        # Shapes other than (0,) cannot be read off "[]", nor can the dtype, even int64.
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if dtype_name != default_dtype_name:
            suffixes.append(f"dtype=torch.{dtype_name}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(data.shape)}")
        default_complex = "complex128" if default_dtype_name == "float64" else "complex64"
        if dtype_name not in (default_dtype_name, default_complex, "int64", "bool"):
            suffixes.append(f"dtype=torch.{dtype_name}")
        body = _tensor_body(data, dtype_name, indent)
    suffixes.extend(tail)
    return _add_suffixes(prefix + body, suffixes, indent)
