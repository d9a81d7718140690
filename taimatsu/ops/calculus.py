"""Numerical integration and differentiation of sampled data: trapezoid (trapz),
cumulative_trapezoid and gradient.

All three are compositions of Tensor ops in PyTorch too, so gradients, double backward and
forward-mode come from the pieces; the result's grad_fn is the last piece's, as in PyTorch
(MulBackward1 / DivBackward1 / CumsumBackward0 / CatBackward0).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor.core import Tensor, _wrapdim
from .._tensor_arguments import type_name
from ._dispatch import write_out
from .pointwise.binary import div_scalar, mul_scalar
from .shape.copies import cat


def _as_float(y: Tensor) -> Tensor:
    # Integer samples integrate to the default float dtype, like PyTorch's true division.
    return y if y._dtype.category >= D.FLOAT else y.to(D.get_default_dtype())


def _along(x: Tensor, dim: int, nd: int) -> Tensor:
    """A 1-D ``x`` shaped to broadcast along ``dim`` of an ``nd``-dim tensor."""
    return x.reshape([-1 if i == dim else 1 for i in range(nd)])


def _diff(t: Tensor, dim: int) -> Tensor:
    n = t.shape[dim]
    return t.narrow(dim, 1, n - 1) - t.narrow(dim, 0, n - 1)


def _pair_sum(y: Tensor, dim: int) -> Tensor:
    n = y.shape[dim]
    return y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)


def _x_steps(y: Tensor, x: Tensor, d: int, dim: int, name: str) -> Tensor:
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        return _along(_diff(x, 0), d, y.dim())
    return _diff(x, _wrapdim(dim, x.dim()))  # the user's dim, counted in x's own dims


def _trapezoid_signature_error(name: str, y, x, dx) -> TypeError:
    got = ", ".join(["Tensor", type(x).__name__ if not isinstance(x, Tensor) else "Tensor"])
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}, dx={type(dx).__name__}), "
        "but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
        " * (Tensor y, *, Number dx = 1, int dim = -1)\n"
    )


def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim`` with sample points ``x`` or uniform spacing ``dx``."""
    if x is not None and dx is not None:
        raise _trapezoid_signature_error("trapezoid", y, x, dx)
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrapdim(dim, y.dim())
    if isinstance(x, Tensor):
        if y.shape[d] == 0:
            return _as_float(y).sum(d) * 0
        return div_scalar((_pair_sum(y, d) * _x_steps(y, x, d, dim, "trapezoid")).sum(d), 2.0)
    step = 1 if dx is None else dx
    if y.shape[d] == 0:
        return _as_float(y).sum(d) * 0
    n = y.shape[d]
    ends = (y.narrow(d, 0, 1) + y.narrow(d, n - 1, 1)).squeeze(d)
    return mul_scalar(y.sum(d) - ends * 0.5, step)


def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """Alias of :func:`trapezoid` (PyTorch keeps both names)."""
    if x is not None and dx is not None:
        raise _trapezoid_signature_error("trapz", y, x, dx)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """Running trapezoidal integral along ``dim``: one fewer element than ``y`` there."""
    if x is not None and dx is not None:
        raise _trapezoid_signature_error("cumulative_trapezoid", y, x, dx)
    if y.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrapdim(dim, y.dim())
    if y.shape[d] == 0:
        return _as_float(y).narrow(d, 0, 0)
    if isinstance(x, Tensor):
        return div_scalar(
            (_pair_sum(y, d) * _x_steps(y, x, d, dim, "cumulative_trapezoid")).cumsum(d), 2.0
        )
    step = 1 if dx is None else dx
    return (_pair_sum(y, d) * (step / 2.0)).cumsum(d)


# ---- gradient ---------------------------------------------------------------------------------------------
def _gradient_dims(input: Tensor, dim):
    nd = input.dim()
    if dim is None:
        return list(range(nd)), False
    dims = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
    dims = [_wrapdim(int(d), nd) for d in dims]
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims, True


def _gradient_spacings(input: Tensor, spacing, dims, dim_given: bool) -> list:
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, Tensor) and spacing.dim() == 0:
        spacing = spacing.item()
    if not isinstance(spacing, (list, tuple)):
        return [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments "
                f"to have the same length, but got a spacing argument of length {len(spacing)} and a dim "
                f"argument of length {len(dims)}."
            )
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
            f"'self.dim() = {input.dim()}', since dim argument was not given, but got a list of length "
            f"{len(spacing)}"
        )
    if any(isinstance(s, Tensor) for s in spacing):
        for i, s in enumerate(spacing):
            if not isinstance(s, Tensor):
                raise TypeError(
                    f"expected Tensor as element {i} in argument 1, but got {type_name(s)}"
                )
            if s.dim() != 1:
                raise RuntimeError(
                    "torch.gradient expected each element of spacing to have one dimension, but got an "
                    f"element with {s.dim()} dimensions!"
                )
    return spacing


def _uniform_gradient(y: Tensor, h, d: int, edge_order: int) -> Tensor:
    n = y.shape[d]
    s = lambda start, length: y.narrow(d, start, length)
    inner = (s(2, n - 2) - s(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (s(1, 1) - s(0, 1)) / h
        last = (s(n - 1, 1) - s(n - 2, 1)) / h
    else:
        first = (s(0, 1) * -1.5 + s(1, 1) * 2 - s(2, 1) * 0.5) / h
        last = (s(n - 3, 1) * 0.5 - s(n - 2, 1) * 2 + s(n - 1, 1) * 1.5) / h
    return cat([first, inner, last], d)


def _coordinate_gradient(y: Tensor, x: Tensor, d: int, edge_order: int) -> Tensor:
    n, nd = y.shape[d], y.dim()
    s = lambda start, length: y.narrow(d, start, length)
    dx = _diff(x, 0)
    hl, hr = _along(dx[:-1], d, nd), _along(dx[1:], d, nd)
    a = -hr / (hl * (hl + hr))
    b = (hr - hl) / (hl * hr)
    c = hl / (hr * (hl + hr))
    inner = a * s(0, n - 2) + b * s(1, n - 2) + c * s(2, n - 2)
    if edge_order == 1:
        first = (s(1, 1) - s(0, 1)) / dx[0]
        last = (s(n - 1, 1) - s(n - 2, 1)) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (
            s(0, 1) * (-(2 * h1 + h2) / (h1 * (h1 + h2)))
            + s(1, 1) * ((h1 + h2) / (h1 * h2))
            + s(2, 1) * (-h1 / (h2 * (h1 + h2)))
        )
        h1, h2 = dx[-2], dx[-1]
        last = (
            s(n - 3, 1) * (h2 / (h1 * (h1 + h2)))
            + s(n - 2, 1) * (-(h1 + h2) / (h1 * h2))
            + s(n - 1, 1) * ((2 * h2 + h1) / (h2 * (h1 + h2)))
        )
    return cat([first, inner, last], d)


def gradient(input: Tensor, *, spacing=None, dim=None, edge_order: int = 1) -> tuple:
    """Second-order central differences inside, one-sided differences of ``edge_order`` at the ends
    (the same scheme as NumPy's and PyTorch's ``gradient``); one tensor per dimension in ``dim``."""
    if input._dtype is D.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims, dim_given = _gradient_dims(input, dim)
    spacings = _gradient_spacings(input, spacing, dims, dim_given)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    y = _as_float(input)
    out = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor):
            out.append(_coordinate_gradient(y, h, d, edge_order))
        else:
            out.append(_uniform_gradient(y, h, d, edge_order))
    return tuple(out)


# ---- diff ----------------------------------------------------------------------------------------------
def diff(
    input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None, *, out=None
) -> Tensor:
    if out is not None:  # PyTorch's out= form ends in sub(out=): its autograd error names sub
        return write_out(out, diff(input, n, dim, prepend, append), "sub")
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:  # PyTorch returns a copy made by copy_ (CopyBackwards), keeping the input's strides
        from .creation.factories import empty_like
        from .indexing.fill_copy import copy_

        return copy_(empty_like(input), input)
    x = input
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        x = cat(parts, dim)
    for _ in range(n):
        m = x.shape[_wrapdim(dim, x.dim())]
        if m == 0:
            break
        a, b = x.narrow(dim, 1, m - 1), x.narrow(dim, 0, m - 1)
        x = a.logical_xor(b) if x.dtype is D.bool else a - b
    return x
