"""``torch.signal.windows``: SciPy-style window functions of length ``M``.

Every window is a formula over an evenly spaced grid made by ``torch.linspace`` in the requested
dtype (float32 or float64), evaluated with taimatsu's ops in the order PyTorch's own Python
implementation evaluates it, so the values follow its roundings and ``requires_grad=True`` gives
a graph back to the grid. ``sym=False`` gives the periodic window (the symmetric window of length
``M + 1`` without its last sample, for spectral analysis). The checks and their messages are
PyTorch's (ValueError for a negative length, a non-strided layout, another dtype, and for bad
window parameters).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .. import _dtype as D
from .._layout import strided

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _dtype_of(name: str, M: int, dtype, layout):
    """The window's dtype, after PyTorch's checks of the length, layout and dtype."""
    dtype = D.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (D.float32, D.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, dtype, device, requires_grad):
    """The windows of length 0 (empty) and 1 (a single one), or None."""
    from ..ops.creation.factories import empty, ones

    if M == 0:
        return empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _grid(M: int, first: float, last: float, dtype, device, requires_grad):
    from ..ops.creation.ranges import linspace

    return linspace(first, last, M, dtype=dtype, device=device, requires_grad=requires_grad)


def _span(M: int, sym: bool) -> int:
    """The denominator of the grid's step: M - 1 (symmetric) or M (periodic)."""
    return M - 1 if sym else M


def exponential(M: int, *, center=None, tau: float = 1.0, sym: bool = True, dtype=None, layout=strided,
                device=None, requires_grad: bool = False):  # fmt: skip
    """``exp(-|n - center| / tau)``."""
    from ..ops.pointwise.unary import abs as abs_
    from ..ops.pointwise.unary import exp

    dtype = _dtype_of("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    k = _grid(M, -center * scale, (M - 1 - center) * scale, dtype, device, requires_grad)
    return exp(-abs_(k))


def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=strided,
    device=None,
    requires_grad: bool = False,
):
    """``sin(pi (n + 1/2) / M)`` (the sine window)."""
    from ..ops.pointwise.unary import sin

    dtype = _dtype_of("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return sin(_grid(M, 0.5 * step, (M - 0.5) * step, dtype, device, requires_grad))


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False):  # fmt: skip
    """``exp(-(n - (M - 1) / 2)^2 / (2 std^2))``."""
    from ..ops.pointwise.unary import exp

    dtype = _dtype_of("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    first = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _grid(M, first * scale, (first + (M - 1)) * scale, dtype, device, requires_grad)
    return exp(-(k**2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=strided, device=None,
           requires_grad: bool = False):  # fmt: skip
    """``I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)``, from a grid over [-beta, beta]."""
    from ..ops.creation.factories import tensor
    from ..ops.pointwise.special import i0
    from ..ops.pointwise.unary import sqrt

    dtype = _dtype_of("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    # the grid's ends in the window's dtype, as PyTorch computes them on a 0-d tensor
    b = dtype.np.type(beta)
    with np.errstate(all="ignore"):
        first = -b
        last = np.minimum(
            b,
            first + dtype.np.type(M - 1) * (dtype.np.type(2.0) * b / dtype.np.type(_span(M, sym))),
        )
    k = _grid(M, float(first), float(last), dtype, device, requires_grad)
    bt = tensor(beta, dtype=dtype, device=device)
    return i0(sqrt(bt * bt - k**2)) / i0(bt)


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=strided, device=None,
                   requires_grad: bool = False):  # fmt: skip
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``."""
    from ..ops.creation.factories import tensor
    from ..ops.creation.ranges import arange
    from ..ops.pointwise.unary import cos

    dtype = _dtype_of("general_cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _grid(M, 0, (M - 1) * (2 * math.pi / _span(M, sym)), dtype, device, requires_grad)
    coef = tensor([w if i % 2 == 0 else -w for i, w in enumerate(a)], dtype=dtype, device=device,
                  requires_grad=requires_grad)  # fmt: skip
    order = arange(coef.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (coef.unsqueeze(-1) * cos(order.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=strided, device=None,
                    requires_grad: bool = False):  # fmt: skip
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)  # fmt: skip


def _cosine_sum(name: str, a: list, doc: str, own_check: bool = False):
    """A ``general_cosine`` window with fixed coefficients. PyTorch checks the arguments in
    ``general_cosine`` (its messages name it), except for blackman, which checks them first."""

    def window(
        M: int,
        *,
        sym: bool = True,
        dtype=None,
        layout=strided,
        device=None,
        requires_grad: bool = False,
    ):
        if own_check:
            dtype = _dtype_of(name, M, dtype, layout)
        return general_cosine(M, a=a, sym=sym, dtype=dtype, layout=layout, device=device,
                              requires_grad=requires_grad)  # fmt: skip

    window.__name__ = window.__qualname__ = name
    window.__doc__ = doc
    return window


hamming = _cosine_sum("hamming", [0.54, 1.0 - 0.54], "``general_hamming`` with alpha 0.54.")
hann = _cosine_sum("hann", [0.5, 1.0 - 0.5], "``general_hamming`` with alpha 0.5.")
blackman = _cosine_sum(
    "blackman", [0.42, 0.5, 0.08], "``general_cosine`` with a = (0.42, 0.5, 0.08).", True
)
nuttall = _cosine_sum(
    "nuttall", [0.3635819, 0.4891775, 0.1365995, 0.0106411],
    "``general_cosine`` with Nuttall's four coefficients (minimum 4-term Blackman-Harris).",
)  # fmt: skip


def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=strided,
    device=None,
    requires_grad: bool = False,
):
    """``1 - |2n / (M - 1) - 1|`` (the triangular window)."""
    from ..ops.pointwise.unary import abs as abs_

    dtype = _dtype_of("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    k = _grid(M, -1, -1 + (M - 1) * (2 / _span(M, sym)), dtype, device, requires_grad)
    return 1 - abs_(k)
