"""float32 activations as PyTorch's vectorised CPU kernels write them: float32 arithmetic around
SLEEF's exp/expm1/log1p/tanh (``exp``, ``log1p``), in PyTorch's order of operations.

The formulas are PyTorch's (``aten/src/ATen/native/cpu/Activation.cpp``, ``UnaryOpsKernel.cpp``,
``BinaryOpsKernel.cpp``): e.g. sigmoid is ``1 / (1 + exp(-x))`` with each operation rounded to
float32. Where GCC contracts a multiply and an add of those kernels into one FMA (it does for
GELU's ``x + kappa * x**3``), so does the emulation. Arguments are float32 values (float32
arrays, or float64 arrays holding float32 values); results are float32 arrays.
"""

from __future__ import annotations

import numpy as np

from . import glibc
from .exp import exp_neg, expf, expm1f, tanhf
from .log1p import log1pf
from .primitives import F32, add, fma, mul, select

_ONE = np.float32(1)


def _div(a, b):
    return np.divide(a, b, dtype=F32)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (PyTorch's vectorised sigmoid): each step rounded to float32, in
    place in the result (``exp_neg``: no ``-x`` array)."""
    r = exp_neg(x)
    r += _ONE
    return np.divide(_ONE, r, out=r)


def silu(x):
    """``x / (1 + exp(-x))``."""
    x = np.asarray(x)
    r = exp_neg(x)
    r += _ONE
    return np.divide(x, r, out=r, dtype=F32)


# Kernels that take float32 arrays as they are (``exp_neg`` reads float32 or float64 alike, the
# rest is float32 arithmetic): ``run`` hands them float32 blocks, without blockwise's float64 copy.
sigmoid.takes_float32 = silu.takes_float32 = True


def softplus(x, beta, threshold):
    """``x`` where ``x * beta > threshold``, else ``log1p(exp(x * beta)) / beta``."""
    x = np.asarray(x)
    beta = np.float32(beta)
    bx = mul(x, beta)
    with np.errstate(over="ignore"):
        r = _div(log1pf(expf(bx)), beta)
    return np.where(bx > np.float32(threshold), x, r).astype(F32, copy=False)


def softplus_scalar(x, beta, threshold):
    """``softplus``'s scalar loop: glibc's expf and log1pf."""
    x = np.asarray(x, F32)
    beta = np.float32(beta)
    bx = mul(x, beta)
    with np.errstate(over="ignore"):
        r = _div(glibc.log1pf(glibc.expf(bx)), beta)
    return np.where(bx > np.float32(threshold), x, r).astype(F32, copy=False)


def mish(x):
    """``x * tanh(log1p(exp(x)))`` (SLEEF's tanhf: mish does not go through MKL)."""
    x = np.asarray(x)
    return mul(x, tanhf(log1pf(expf(x))))


def mish_scalar(x):
    """``mish``'s scalar loop: glibc's expf, log1pf and tanhf."""
    x = np.asarray(x, F32)
    return mul(x, glibc.tanhf(glibc.log1pf(glibc.expf(x))))


def log_sigmoid(x):
    """``min(x, 0) - log1p(exp(-|x|))``."""
    x = np.asarray(x)
    return add(np.minimum(x, 0), -log1pf(expf(-np.abs(x))))


def elu(x, alpha, scale, input_scale):
    """ELU/SELU/CELU: ``x * scale`` for x > 0, else ``expm1(x * input_scale) * (alpha * scale)``,
    the coefficients rounded to float32 first (PyTorch converts each Scalar to float)."""
    x = np.asarray(x)
    negcoef = mul(np.float32(alpha), np.float32(scale))
    neg = mul(expm1f(mul(x, np.float32(input_scale))), negcoef)
    # select: x's sign is as random as the data, where np.where mispredicts a branch per element
    return select(x > 0, mul(x, np.float32(scale)), neg).astype(F32, copy=False)


def elu_scalar(x, alpha, scale, input_scale):
    """``elu``'s scalar loop: ``x <= 0 ? expm1(x * input_scale) * (alpha * scale) : x * scale``
    with glibc's expm1f."""
    x = np.asarray(x, F32)
    negcoef = mul(np.float32(alpha), np.float32(scale))
    neg = mul(glibc.expm1f(mul(x, np.float32(input_scale))), negcoef)
    return select(x <= 0, neg, mul(x, np.float32(scale))).astype(F32, copy=False)


# Their float32 steps cast float64-held values to float32 first (``mul``/``add`` with dtype, the
# SLEEF functions' ``asarray(..., F32)``): float32 blocks give the same bits, one pass cheaper.
softplus.takes_float32 = mish.takes_float32 = elu.takes_float32 = True


_KBETA = np.float32(np.sqrt(2.0) * (2.0 / np.sqrt(np.pi)) * 0.5)
_KKAPPA = np.float32(0.044715)


def gelu_tanh(x):
    """``0.5 * x * (1 + tanh(kBeta * (x + kKappa * x**3)))``, ``x + kKappa * x**3`` in one FMA."""
    x = np.asarray(x)
    cube = mul(mul(x, x), x)
    inner = mul(_KBETA, fma(_KKAPPA, cube, x))
    return mul(mul(np.float32(0.5), x), add(_ONE, tanhf(inner)))


def logaddexp(a, b):
    """``max(a, b) + log1p(exp(-|a - b|))``; ``a`` where a == b is infinite."""
    a, b = np.asarray(a), np.asarray(b)
    with np.errstate(invalid="ignore"):
        r = add(np.maximum(a, b), log1pf(expf(-np.abs(add(a, -b)))))
    return np.where((a == b) & np.isinf(a), a, r).astype(F32, copy=False)


def logaddexp_scalar(a, b):
    """``logaddexp``'s scalar loop: glibc's expf and log1pf."""
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    with np.errstate(invalid="ignore", over="ignore"):
        r = add(np.maximum(a, b), glibc.log1pf(glibc.expf(-np.abs(add(a, -b)))))
    return np.where((a == b) & np.isinf(a), a, r).astype(F32, copy=False)
