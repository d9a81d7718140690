"""Window functions for spectral analysis: hann, hamming, blackman, bartlett and kaiser.

Each is computed step by step in the requested dtype (half precision through float32 with a
rounding after every step, the constants rounded to the dtype too), in the order PyTorch
applies its operations, so the rounding pattern follows PyTorch's. One deviation: PyTorch evaluates cos with a vectorised SLEEF
routine whose last bit sometimes differs from the correctly rounded value taimatsu uses, so
about 3% of float32 hann/hamming/blackman elements differ by one ulp (bartlett is bit-exact),
and kaiser is evaluated in float64 and rounded once, so float32 kaiser values can differ from
PyTorch's float-precision I0 by up to ~1e-6 (float64, half and bfloat16 windows are bit-exact).
``periodic=True`` computes the window of length ``N + 1`` and drops the last sample.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from .factories import tensor

_C_TYPES = {
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool",
}  # fmt: skip
_UNSET = object()


def _checked(name: str, window_length, dtype) -> D.dtype:
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(
            f"{name}(): argument 'window_length' (position 1) must be int, not {type(window_length).__name__}"
        )
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    dt = D.get_default_dtype() if dtype is None else dtype
    if dt.category == D.COMPLEX:
        from .._dispatch import scalar_name

        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{scalar_name(dt)}'")
    if dt.category != D.FLOAT:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={_C_TYPES.get(dt.name, dt.name)}, "
            "device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))"
        )
    return dt


def _make(name: str, window_length, periodic, dtype, device, requires_grad, body) -> Tensor:
    dt = _checked(name, window_length, dtype)
    n = int(window_length)
    if n <= 1:
        values = np.ones(n, np.float64)
    else:
        m = n + 1 if periodic else n
        work = np.float64 if dt is D.float64 else np.float32
        step = _rounder(dt.np, work)
        values = body(step(np.arange(m, dtype=work)), m, work, step)[:n]
    return tensor(values, dtype=dt, device=device, requires_grad=requires_grad)


def _rounder(target, work):
    """Round each intermediate to the tensor's dtype, as a chain of in-place tensor ops does."""
    if np.dtype(target) == np.dtype(work):
        return lambda a: a
    return lambda a: np.asarray(a).astype(target).astype(work)[()]


def _cos(x, work):
    return np.cos(x.astype(np.float64)).astype(work)


def _hamming_body(alpha: float, beta: float):
    def body(n, m, work, r):
        w = r(n * r(work(2 * math.pi / (m - 1))))
        w = r(_cos(w, work))
        return r(r(w * r(work(-beta))) + r(work(alpha)))

    return body


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``alpha - beta * cos(2 pi n / (N - 1))``."""
    return _make(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _hamming_body(alpha, beta),
    )


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``0.5 - 0.5 * cos(2 pi n / (N - 1))`` (PyTorch computes it as a hamming window)."""
    return _make(
        "hann_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _hamming_body(0.5, 0.5),
    )


def _blackman_body(n, m, work, r):
    w = r(n * r(work(math.pi / (m - 1))))
    four = r(r(_cos(r(w * work(4)), work)) * r(work(0.08)))
    two = r(r(_cos(r(w * work(2)), work)) * r(work(0.5)))
    return r(r(four - two) + r(work(0.42)))


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _make(
        "blackman_window", window_length, periodic, dtype, device, requires_grad, _blackman_body
    )


def _bartlett_body(n, m, work, r):
    w = r(n * r(work(2.0 / (m - 1))))
    half = ((m - 1) >> 1) + 1
    w[half:] = r(r(w[half:] * work(-1)) + work(2))
    return w


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The triangular window ``1 - |2n / (N - 1) - 1|``."""
    return _make(
        "bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett_body
    )


def kaiser_window(window_length: int, periodic=_UNSET, beta=_UNSET, *, dtype=None, layout=None, device=None,
                  pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)`` with ``a = (N - 1) / 2``; ``beta`` defaults to 12."""
    if periodic is _UNSET and beta is not _UNSET:
        raise TypeError(
            f"kaiser_window() received an invalid combination of arguments - got (int, beta={type(beta).__name__}), "
            "but expected one of:\n"
            " * (int window_length, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
            "None, bool pin_memory = False, bool requires_grad = False)\n"
            " * (int window_length, bool periodic, *, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
            " * (int window_length, bool periodic, float beta, *, torch.dtype dtype = None, torch.layout layout = "
            "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
        )
    periodic = True if periodic is _UNSET else periodic
    b = 12.0 if beta is _UNSET else float(beta)

    def body(n, m, work, r):
        # PyTorch's kernel, in float for every type but float64: calc_i0 of
        # beta * sqrt(|1 - q^2|), q = (n - a) / a, over calc_i0(beta) (``backend/bessel_i.py``);
        # its compiler makes pow(q, 2) a product and fuses 1 - q * q into one multiply-add
        from ...backend.bessel_i import i0
        from ...backend.float32_math.double_float import fused

        a, beta = work((m - 1) / 2.0), np.array([b], work)
        q = (n - a) / a
        inner = fused(-q, q, work(1), once=True)
        return i0(beta * np.sqrt(np.abs(inner))) / i0(beta)

    return _make("kaiser_window", window_length, periodic, dtype, device, requires_grad, body)
