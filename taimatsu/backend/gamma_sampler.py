"""``torch._standard_gamma`` on the CPU generator, and its reparameterised gradient.

The draw replays PyTorch's CPU sampler (its documented algorithm, Marsaglia & Tsang 2000, with
the shape boosted by one below 1): per element in C order, in double, from the generator's
double uniforms (one each) and its cached Box-Muller normals (``normal_distribution<double>``),
so a seeded program draws PyTorch's numbers and leaves the stream where PyTorch does. A float32
shape does its own ``alpha < 1`` boost (``1 / alpha``, ``alpha + 1``) and ``alpha - 1/3`` in
float32, as PyTorch's template does; every result is at least the dtype's smallest normal.

The gradient d sample / d alpha (implicit reparameterisation, Figurnov et al. 2018) uses the
approximations PyTorch uses, so gradients agree to rounding: a Taylor series of the incomplete
gamma function for x < 0.8, Rice's saddle-point expansion for alpha > 8, and a bivariate
rational fit in (log(x / alpha), log(alpha)) elsewhere.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["standard_gamma", "standard_gamma_grad"]

_F32 = np.float32
_THIRD_F32 = float(_F32(1.0) / _F32(3.0))  # PyTorch writes 1.0f / 3.0f
_C0331 = float(_F32(0.0331))


def standard_gamma(gen, alphas: np.ndarray) -> np.ndarray:
    """One Gamma(alpha, 1) draw per element of ``alphas`` (float32 or float64), in its dtype."""
    single = alphas.dtype == np.float32
    tiny = float(np.finfo(alphas.dtype).tiny)
    out = [max(tiny, _one(gen, a, single)) for a in alphas.reshape(-1).tolist()]
    return np.array(out, alphas.dtype).reshape(alphas.shape)


def _one(gen, alpha: float, single: bool) -> float:
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(_F32(1.0) / _F32(alpha)) if single else 1.0 / alpha
        scale *= (1.0 - gen._uniform_one()) ** inv
        alpha = float(_F32(alpha) + _F32(1.0)) if single else alpha + 1.0
    d = float(_F32(alpha) - _F32(_THIRD_F32)) if single else alpha - _THIRD_F32
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = float(gen._standard_normal_scalar(1)[0])
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - gen._uniform_one()
        xx = x * x
        if u < 1.0 - _C0331 * xx * xx:
            break
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            break
    value = scale * d * v
    return float(_F32(value)) if single else value


# the rational fit's coefficients: row k multiplies u**k; columns 0-3 the numerator's powers
# of v, 4-7 the denominator's
_COEF_UV = np.array(
    [
        [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084],
        [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
        [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07],
    ]
)  # fmt: skip


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """d x / d alpha for x ~ Gamma(alpha, 1), elementwise, computed in double."""
    dtype = np.result_type(alpha, x)
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        out = np.where(x < float(_F32(0.8)), _taylor(a, x), _rational(a, x))
        large = a > 8.0
        out = np.where(large & (x >= float(_F32(0.8))), _saddle(a, x), out)
    return out.astype(dtype)


def _taylor(a, x):
    from scipy.special import digamma  # here: ``import taimatsu`` does not load scipy

    numer, denom = np.ones_like(x), a.copy()
    series1, series2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = x**a
    pdf = x ** (a - 1) * np.exp(-x)
    cdf = pow_x_alpha * series1
    cdf_alpha = (np.log(x) - digamma(a)) * cdf - pow_x_alpha * series2
    result = -cdf_alpha / pdf
    return np.where(np.isnan(result), 0.0, result)


def _saddle(a, x):
    near = (float(_F32(0.9)) * a <= x) & (x <= float(_F32(1.1)) * a)
    numer_1 = 1 + 24 * a * (1 + 12 * a)
    numer_2 = 1440 * (a * a) + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x)
    centre = numer_1 * numer_2 / (1244160 * (a * a) * (a * a))
    denom = np.sqrt(8 * a)
    term2 = denom / (a - x)
    term3 = (x - a - a * np.log(x / a)) ** -1.5
    term23 = np.where(x < a, term2 - term3, term2 + term3)
    term1 = np.log(x / a) * term23 - np.sqrt(2 / a) * (a + x) / ((a - x) * (a - x))
    stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
    return np.where(near, centre, -stirling * (x * term1) / denom)


def _rational(a, x):
    u, v = np.log(x / a), np.log(a)
    c = _COEF_UV[0][:, None] + u.reshape(-1) * (
        _COEF_UV[1][:, None] + u.reshape(-1) * _COEF_UV[2][:, None]
    )
    v = v.reshape(-1)
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return np.exp(p / q).reshape(a.shape)


def dirichlet_grad(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """d x / d alpha for x ~ Beta(alpha, total - alpha) (the marginal of a Dirichlet draw),
    in the form PyTorch's Dirichlet backward combines: -(d/d alpha) cdf(x) / pdf(x) with
    beta = total - alpha held fixed, divided by 1 - x (checked against PyTorch's values).

    DEVIATION: PyTorch evaluates this with its own asymptotic and rational approximations; here
    the derivative of the regularised incomplete beta function is taken numerically (a central
    difference of scipy's ``betainc`` in alpha), so values
    agree with PyTorch's to its approximation error (about 1e-3 relative), not to rounding."""
    from scipy.special import betainc, betaln

    dtype = np.result_type(x, alpha, total)
    x, a, t = (np.asarray(v, np.float64) for v in np.broadcast_arrays(x, alpha, total))
    b = t - a
    h = 1e-5 * a
    with np.errstate(all="ignore"):
        dcdf = (betainc(a + h, b, x) - betainc(a - h, b, x)) / (2 * h)
        log_pdf = (a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - betaln(a, b)
        out = -dcdf / np.exp(log_pdf) / (1 - x)
    return np.where(np.isfinite(out), out, 0.0).astype(dtype)
