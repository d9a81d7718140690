"""``torch.special``: special functions. Most are the same ops as ``torch.<name>`` (same grad_fn);
the rest (Bessel i0e/i1/i1e, erfcx, the normal distribution's ndtr/ndtri/log_ndtr, entr,
xlog1py, zeta) are declared in ``ops/pointwise/special.py``, the orthogonal polynomials in
``ops/pointwise/orthogonal_polynomials.py``, the Bessel functions of ``bessel_j0``'s family in
``ops/pointwise/bessel_functions.py``."""

from __future__ import annotations

from . import _dtype as D
from .ops.pointwise import bessel_functions as _bf
from .ops.pointwise import orthogonal_polynomials as _op
from .ops.pointwise.fused import logit, xlogy  # noqa: F401
from .ops.pointwise.special import i0, sinc  # noqa: F401
from .ops.pointwise.special import mvlgamma as multigammaln  # noqa: F401
from .ops.pointwise.special import special_entr as entr  # noqa: F401  # noqa: F401
from .ops.pointwise.special import special_erfcx as erfcx  # noqa: F401
from .ops.pointwise.special import special_i0e as i0e  # noqa: F401
from .ops.pointwise.special import special_i1 as i1  # noqa: F401  # noqa: F401
from .ops.pointwise.special import special_i1e as i1e  # noqa: F401
from .ops.pointwise.special import special_log_ndtr as log_ndtr  # noqa: F401
from .ops.pointwise.special import special_ndtr as ndtr  # noqa: F401  # noqa: F401
from .ops.pointwise.special import special_ndtri as ndtri  # noqa: F401
from .ops.pointwise.special import special_xlog1py as xlog1py  # noqa: F401  # noqa: F401
from .ops.pointwise.special import special_zeta as zeta  # noqa: F401
from .ops.pointwise.unary import digamma, erf, erfc, erfinv, exp2, expm1, log1p, polygamma  # noqa: F401
from .ops.pointwise.unary import digamma as psi  # noqa: F401
from .ops.pointwise.unary import lgamma as gammaln  # noqa: F401
from .ops.pointwise.unary import sigmoid as expit  # noqa: F401
from .ops.reduction.reduce import logsumexp  # noqa: F401


def softmax(input, dim, *, dtype=None):
    from .nn import functional as F

    return F.softmax(input, dim, dtype=D.dtype_argument("special_softmax", dtype))


def log_softmax(input, dim, *, dtype=None):
    from .nn import functional as F

    return F.log_softmax(input, dim, dtype=D.dtype_argument("special_log_softmax", dtype))


def round(input, *, decimals=0, out=None):
    """``torch.special.round`` is the ``decimals`` overload even for 0 (grad_fn RoundBackward1)."""
    from .ops.pointwise import unary as _pw
    from .ops.pointwise.fused import _fused

    if decimals != 0:
        return _pw.round(input, decimals=decimals, out=out)
    if input._dtype.category < _pw._FLOAT:
        raise NotImplementedError(
            f"\"round_vml_cpu\" not implemented for '{_pw._scalar(input._dtype)}'"
        )
    res = _fused(_pw._RoundDecimals, (input,), lambda: _pw.round(input))
    return res if out is None else _pw.write_out(out, res, "round", _pw.OUT_FOUND)


from .ops.pointwise.incomplete_gamma import gammainc, gammaincc  # noqa: F401

chebyshev_polynomial_t = _op.special_chebyshev_polynomial_t
chebyshev_polynomial_u = _op.special_chebyshev_polynomial_u
chebyshev_polynomial_v = _op.special_chebyshev_polynomial_v
chebyshev_polynomial_w = _op.special_chebyshev_polynomial_w
hermite_polynomial_h = _op.special_hermite_polynomial_h
hermite_polynomial_he = _op.special_hermite_polynomial_he
laguerre_polynomial_l = _op.special_laguerre_polynomial_l
legendre_polynomial_p = _op.special_legendre_polynomial_p
shifted_chebyshev_polynomial_t = _op.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _op.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _op.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _op.special_shifted_chebyshev_polynomial_w

airy_ai = _bf.special_airy_ai
bessel_j0 = _bf.special_bessel_j0
bessel_j1 = _bf.special_bessel_j1
bessel_y0 = _bf.special_bessel_y0
bessel_y1 = _bf.special_bessel_y1
modified_bessel_i0 = _bf.special_modified_bessel_i0
modified_bessel_i1 = _bf.special_modified_bessel_i1
modified_bessel_k0 = _bf.special_modified_bessel_k0
modified_bessel_k1 = _bf.special_modified_bessel_k1
scaled_modified_bessel_k0 = _bf.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _bf.special_scaled_modified_bessel_k1
spherical_bessel_j0 = _bf.special_spherical_bessel_j0


# A non-Tensor first argument: PyTorch's parser TypeError, not an AttributeError
from ._tensor_arguments import guard as _guard

_guard(globals(), prefix="special_")
