"""The regularized incomplete gamma functions (``igamma``/``igammac``, ``special.gammainc``/
``gammaincc``), ``nuclear_norm``, ``frobenius_norm`` and ``binomial`` sampling.

igamma's derivative exists only in its second argument (PyTorch raises for the first):
``d/dx P(a, x) = exp(-x) x**(a - 1) / Gamma(a)``, and igammac's is its negative.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from .._dispatch import scalar_name
from .binary import _broadcast_shape, binary
from .unary import _special


def _gamma_forward(fname: str):
    lower = fname == "gammainc"

    def forward(xp, a, x):
        # scipy has float32/float64 loops; half types go through float32 and round once.
        dtype = a.dtype
        work = dtype if dtype in (np.float32, np.float64) else np.float32
        a, x = a.astype(work, copy=False), x.astype(work, copy=False)
        r = getattr(_special(xp), fname)(a, x)
        return _boundaries(xp, a, x, r, lower).astype(dtype, copy=False)

    return forward


def _boundaries(xp, a, x, r, lower: bool):
    """PyTorch's boundary cases, tested in its order (a NaN argument passes the tests that do
    not hold for it: P(nan, inf) = 1, P(nan, 0) = 0, P(inf, nan) = 0): outside the domain NaN;
    a = 0: P = 1 for x > 0; x = 0: P = 0; a = inf: P = 0 (NaN for x = inf); x = inf: P = 1.
    Q = 1 - P in each case."""
    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)
    nan = float("nan")
    a_inf, x_inf = xp.isinf(a), xp.isinf(x)
    # the last case first, so that each earlier one overrides it
    r = xp.where(x_inf, one, r)
    r = xp.where(a_inf, xp.where(x_inf, nan, zero), r)
    r = xp.where(x == 0, zero, r)
    r = xp.where(a == 0, xp.where(x > 0, one, nan), r)
    return xp.where((x < 0) | (a < 0), nan, r)


def _density(a: Tensor, x: Tensor) -> Tensor:
    return ((a - 1) * x.log() - x - a.lgamma()).exp()


def _gamma_vjp(name: str, sign: float):
    def vjp(node, g):
        a, x = node.saved()
        if node.next_functions[0][0] is not None:
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        gx = g * _density(a, x) * sign if node.next_functions[1][0] is not None else None
        return None, gx

    return vjp


def _floats_only(kernel: str):
    def check(dtype):
        if dtype.category != D.FLOAT:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dtype)}'")

    return check


_check, _checkc = _floats_only("igamma_cpu"), _floats_only("igammac_cpu")
_igamma, _igamma_ = binary(
    "igamma",
    _gamma_forward("gammainc"),
    _gamma_vjp("igamma", 1.0),
    None,
    check=_check,
)
_igammac, _igammac_ = binary("igammac", _gamma_forward("gammaincc"), _gamma_vjp("igammac", -1.0), None, check=_checkc)  # fmt: skip


def _tensors_only(name: str, input, other) -> None:
    """PyTorch's type errors, and its refusal of forward-mode AD (igamma has no JVP formula)."""
    from ...linalg.legacy import _no_forward_ad

    for arg, v, pos in (("input", input, 1), ("other", other, 2)):
        if not isinstance(v, Tensor):
            raise TypeError(
                f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
            )
    _broadcast_shape(input, other)  # PyTorch's size error comes before its kernel's dtype check
    _no_forward_ad(
        name.replace("special_gammaincc", "igammac").replace("special_gammainc", "igamma"),
        input,
        other,
    )


def igamma(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(input, other)``."""
    _tensors_only("igamma", input, other)
    return _igamma(input, other, out=out)


def igammac(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``."""
    _tensors_only("igammac", input, other)
    return _igammac(input, other, out=out)


def igamma_(self: Tensor, other: Tensor) -> Tensor:
    _tensors_only("igamma", self, other)
    return _igamma_(self, other)


def igammac_(self: Tensor, other: Tensor) -> Tensor:
    _tensors_only("igammac", self, other)
    return _igammac_(self, other)


def gammainc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    _tensors_only("special_gammainc", input, other)
    return _igamma(input, other, out=out)


def gammaincc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    _tensors_only("special_gammaincc", input, other)
    return _igammac(input, other, out=out)
