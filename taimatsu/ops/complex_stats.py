"""torch.complex and torch.polar (complex numbers from real parts), torch.cov and torch.corrcoef.

complex/polar record ComplexBackward0/PolarBackward0. cov and corrcoef are compositions, as in
PyTorch, so their graphs end in SqueezeBackward0 and ClampBackward1 like PyTorch's.
"""

from __future__ import annotations

import warnings

from .. import _dtype as D
from ..autograd.grad_mode import state as _gm
from ._dispatch import Tensor, _wrap, broadcast_error, needs_input_grad, node_class, record, scalar_name, xp_for
from .shape_more import _tangent

_TO_COMPLEX = {"float32": D.complex64, "float64": D.complex128}


def _complex_pair_checks(a: Tensor, b: Tensor):
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"Expected object of scalar type {scalar_name(a._dtype)} but got scalar type "
            f"{scalar_name(b._dtype)} for second argument"
        )
    if a._dtype.name not in ("float16", "float32", "float64"):
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{scalar_name(a._dtype)} and {scalar_name(b._dtype)}"
        )
    if a._dtype.name == "float16":
        raise RuntimeError("taimatsu has no complex32 (ComplexHalf) dtype; use float32 or float64 parts")
    xp = xp_for(a)
    try:
        shape = xp.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise broadcast_error((a._data.shape, b._data.shape)) from None
    return xp, shape, _TO_COMPLEX[a._dtype.name]


def _complex_vjp(node, g):
    return (g.real if needs_input_grad(node, 0) else None, g.imag if needs_input_grad(node, 1) else None)


_Complex = node_class("ComplexBackward0", _complex_vjp)


def complex(real: Tensor, imag: Tensor, *, out=None) -> Tensor:
    xp, shape, dt = _complex_pair_checks(real, imag)
    data = xp.empty(shape, dt.np)
    data.real, data.imag = real._data, imag._data
    r = _wrap(data, dt, real._device)
    if (real._rg or imag._rg) and _gm.enabled:
        record(_Complex, (real, imag), r)
    _tangent(r, (real, imag), complex)
    return _maybe_out(r, out, "complex")


def _polar_vjp(node, g):
    (out,) = node.saved()
    # PyTorch differentiates through the result: d/dabs uses sgn(out) (so a negative abs flips it)
    ga = (g * out.sgn().conj()).real if needs_input_grad(node, 0) else None
    gt = (g * (out * 1j).conj()).real if needs_input_grad(node, 1) else None
    return ga, gt


_Polar = node_class("PolarBackward0", _polar_vjp)


def polar(abs: Tensor, angle: Tensor, *, out=None) -> Tensor:  # noqa: A002 (PyTorch's parameter name)
    xp, shape, dt = _complex_pair_checks(abs, angle)
    data = xp.empty(shape, dt.np)
    data.real = abs._data * xp.cos(angle._data)
    data.imag = abs._data * xp.sin(angle._data)
    r = _wrap(data, dt, abs._device)
    if (abs._rg or angle._rg) and _gm.enabled:
        record(_Polar, (abs, angle), r, (r,))
    _tangent(
        r,
        (abs, angle),
        lambda da, dth: complex(angle.cos(), angle.sin()) * complex(da, abs * dth),
    )
    return _maybe_out(r, out, "polar")


def _maybe_out(r: Tensor, out, name: str) -> Tensor:
    if out is None:
        return r
    from ._dispatch import write_out

    return write_out(out, r, name, "Expected object of scalar type {res} but got scalar type {out} for argument 'out'")


# ---- cov / corrcoef ------------------------------------------------------------------------------------
def cov(input: Tensor, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:
    if input.dim() > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    x = input if input.dim() == 2 else input.reshape(1, -1)
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, n_obs)
        if fweights.is_floating_point() or fweights.is_complex():
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with {scalar_name(fweights.dtype)} dtype")
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n_obs)
        if not aweights.is_floating_point():
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with {scalar_name(aweights.dtype)} dtype")
        if bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(D.get_default_dtype())
    if w is None:
        avg = x.mean(1)
        w_sum = n_obs
        norm = float(w_sum - correction)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None or correction == 0:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if _le_zero(norm):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm = 0.0 if not isinstance(norm, Tensor) else norm.clamp(min=0)
    xc = x - avg.unsqueeze(1)
    xw = xc if w is None else xc * w
    c = xc.mm(xw.t().conj())
    return (c / norm).squeeze()


def _le_zero(v) -> bool:
    return bool(v <= 0) if isinstance(v, Tensor) else v <= 0


def _check_weights(name: str, w: Tensor, n_obs: int) -> None:
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.dim()} dimensions")
    if w.numel() != n_obs:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the input but got {w.numel()} != {n_obs}"
        )


def corrcoef(input: Tensor) -> Tensor:
    if input.dim() > 2:
        raise RuntimeError(
            f"corrcoef(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = (d.real if d.is_complex() else d).sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.is_complex():
        return complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    from .. import linalg

    return linalg.pinv(input, rtol=rcond)

