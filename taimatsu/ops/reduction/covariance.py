"""torch.complex and torch.polar (complex numbers from real parts), torch.cov and torch.corrcoef.

complex/polar record ComplexBackward0/PolarBackward0. cov and corrcoef are compositions, as in
PyTorch, so their graphs end in SqueezeBackward0 and ClampBackward1 like PyTorch's.
"""

from __future__ import annotations

import warnings

from ... import _dtype as D
from ..._flags import user_stacklevel
from ..._tensor.core import Tensor
from .._dispatch import scalar_name


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
            raise RuntimeError(
                f"cov(): expected fweights to have integral dtype but got fweights with {scalar_name(fweights.dtype)} dtype"
            )
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n_obs)
        if not aweights.is_floating_point():
            raise RuntimeError(
                f"cov(): expected aweights to have floating point dtype but got aweights with {scalar_name(aweights.dtype)} dtype"
            )
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
            stacklevel=user_stacklevel(),
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
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.dim()} dimensions"
        )
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
