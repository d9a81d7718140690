"""``torch.special``'s Bessel functions: ``airy_ai``, ``bessel_j0/j1/y0/y1``,
``modified_bessel_i0/i1/k0/k1``, ``scaled_modified_bessel_k0/k1`` (``exp(x) K(x)``) and
``spherical_bessel_j0`` (``sin(x) / x``).

As in PyTorch these have kernels for float32 and float64 only (integer and bool inputs compute
in the default dtype), take a tensor ``input`` and ``out=``, and their results never require
grad (there is no derivative). Values are SciPy's, computed in float64 on the host and rounded
to the dtype, with PyTorch's (Cephes') conventions where they differ: ``airy_ai`` is 0 beyond
x = 103.892 and, for very negative x where SciPy gives up (NaN), takes the leading asymptotic
term, whose phase is rounding noise there in PyTorch too; ``airy_ai(inf)`` is NaN. PyTorch's own float64 ``bessel_j*``,
``bessel_y*`` and ``airy_ai`` are only accurate to about 1e-6 beyond |x| = 5 (and -x = 2.09),
and its float32 kernels lose the phase at large |x|; these return the correctly rounded values.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import _wrap
from .._dispatch import need_tensor, scalar_name, write_out

_AIRY_ZERO_FROM = 103.892  # Cephes' MAXAIRY: Ai(x) is 0 beyond it


def _airy_ai(x: np.ndarray) -> np.ndarray:
    from scipy import special

    ai = special.airy(x)[0]
    lost = np.isnan(ai) & ~np.isnan(x)
    if lost.any():  # very large |x|: Ai(-z) ~ sin(2/3 z^1.5 + pi/4) / (sqrt(pi) z^0.25)
        z = -x[lost]
        ai[lost] = np.where(
            z > 0, np.sin(2.0 / 3.0 * z**1.5 + np.pi / 4) / (np.sqrt(np.pi) * z**0.25), 0.0
        )
    tiny = (ai == 0) & (x > 0) & (x <= _AIRY_ZERO_FROM)  # subnormal: scaled Ai times exp(-zeta)
    if tiny.any():
        xt = x[tiny]
        half = np.exp(-(xt**1.5) / 3)  # exp(-zeta / 2), zeta = 2/3 x^1.5
        ai[tiny] = special.airye(xt)[0] * half * half
    ai[x > _AIRY_ZERO_FROM] = 0.0
    ai[x == np.inf] = np.nan  # Cephes' airy has no limit at +inf
    return ai


def _scipy(fname):
    def call(x):
        from scipy import special

        return getattr(special, fname)(x)

    return call


def _spherical_j0(x):
    from scipy import special

    return special.spherical_jn(0, x)


def _op(name: str, fn, arg: str = "input"):
    """``torch.special.<name>``: its argument is ``arg`` in PyTorch's messages; the functions
    whose argument is ``input`` also take it as ``x=`` (as PyTorch's do)."""
    kernel_name = f"{name}_cpu"
    op_name = f"special_{name}"
    names = (arg,) if arg == "x" else (arg, "x")

    def op(*args, out=None, **kwargs):
        if len(args) + len(kwargs) != 1 or len(args) > 1 or any(k not in names for k in kwargs):
            got = ", ".join([type(a).__name__ for a in args] + [f"{k}=" for k in kwargs])
            raise TypeError(
                f"{op_name}() received an invalid combination of arguments - got ({got})"
            )
        input = args[0] if args else next(iter(kwargs.values()))
        need_tensor(op_name, input, arg)
        dt = input.dtype
        if dt.category < D.FLOAT:
            dt = D.get_default_dtype()
        if dt not in (D.float32, D.float64):
            raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{scalar_name(dt)}'")
        host = input.detach().cpu()._data
        with np.errstate(all="ignore"):
            flat = np.asarray(host, np.float64).reshape(-1)
            vals = np.asarray(fn(flat), np.float64).astype(dt.np)
        res = _wrap(vals.reshape(host.shape), dt, input.detach().cpu()._device)
        if input.device.type != "cpu":  # computed on the host (SciPy)
            res = res.to(input.device)
        return res if out is None else write_out(out, res, op_name, grad="inputs")

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = f"``torch.special.{name}(input)``: see the module docstring."
    return op


special_airy_ai = _op("airy_ai", _airy_ai, "x")
special_bessel_j0 = _op("bessel_j0", _scipy("j0"))
special_bessel_j1 = _op("bessel_j1", _scipy("j1"))
special_bessel_y0 = _op("bessel_y0", _scipy("y0"))
special_bessel_y1 = _op("bessel_y1", _scipy("y1"))
special_modified_bessel_i0 = _op("modified_bessel_i0", _scipy("i0"))
special_modified_bessel_i1 = _op("modified_bessel_i1", _scipy("i1"))
special_modified_bessel_k0 = _op("modified_bessel_k0", _scipy("k0"))
special_modified_bessel_k1 = _op("modified_bessel_k1", _scipy("k1"))
special_scaled_modified_bessel_k0 = _op("scaled_modified_bessel_k0", _scipy("k0e"), "x")
special_scaled_modified_bessel_k1 = _op("scaled_modified_bessel_k1", _scipy("k1e"), "x")
special_spherical_bessel_j0 = _op("spherical_bessel_j0", _spherical_j0, "x")
