"""``torch.fft``: discrete Fourier transforms, built like PyTorch's on three primitives.

* ``_c2c``: complex -> complex (FftC2CBackward0), forward or inverse sign;
* ``_r2c``: real -> complex, optionally one-sided (FftR2CBackward0), always the forward sign;
* ``_c2r``: one-sided complex -> real (FftC2RBackward0), always the inverse sign.

Each computes the *unnormalised* transform times a scale fixed by ``norm`` ("backward": the
inverse divides by n; "ortho": both by sqrt(n); "forward": the forward divides by n). Their
VJPs are the adjoint transforms, written with the same primitives, so double backward works:
c2c's adjoint is c2c of the other sign; r2c's is the real part of an inverse c2c of the
zero-padded cotangent; c2r's is a one-sided r2c with the mirrored bins counted twice.
``ifft``/``ihfft`` of real input are a conjugated r2c and ``hfft`` a c2r of the conjugate, as
in PyTorch, so grad_fn names match. Forward on arrays uses NumPy's pocketfft (single
precision stays single precision).
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype as D
from ._autocast import FP32, cast_policy
from ._tensor.core import Tensor, _wrap, _wrapdim
from .autograd.forward_ad import _register, on_primals
from .autograd.grad_mode import state as _gm
from .autograd.graph import node_class
from .ops._dispatch import OUT_FOUND as _OUT_FOUND
from .ops._dispatch import _fw_state, record, scalar_name, xp_for
from .ops._dispatch import with_out_signature as _with_out_signature
from .ops._dispatch import write_out as _write_out
from .ops.arg_types import as_int

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]  # fmt: skip


# ---- primitives ------------------------------------------------------------------------------------
def _tangent(res, fn, x):
    if _fw_state.level and x._fw is not None:
        res._fw = on_primals(fn, x._fw)
        _register(res)
    return res


def _c2c(x: Tensor, dims, forward: bool, scale: float) -> Tensor:
    xp = xp_for(x)
    a = x._data
    if dims:
        r = xp.fft.fftn(a, axes=dims) if forward else xp.fft.ifftn(a, axes=dims, norm="forward")
    else:
        r = a.copy()
    if scale != 1:
        r *= scale
    res = _wrap(xp.asarray(r, a.dtype), x._dtype, x._device)
    if x._rg and _gm.enabled:
        record(_C2C, (x,), res, (), dims=dims, forward=forward, scale=scale)
    return _tangent(res, lambda t: _c2c(t, dims, forward, scale), x)


def _c2c_vjp(node, g):
    return (_c2c(g, node.dims, not node.forward, node.scale),)


_C2C = node_class("FftC2CBackward0", _c2c_vjp)


def _r2c(x: Tensor, dims, onesided: bool, scale: float) -> Tensor:
    xp = xp_for(x)
    a = x._data
    r = xp.fft.rfftn(a, axes=dims)
    if not onesided:
        r = _two_sided(xp, r, dims, a.shape[dims[-1]])
    if scale != 1:
        r *= scale
    cdt = x._dtype.to_complex()
    res = _wrap(xp.asarray(r, cdt.np), cdt, x._device)
    if x._rg and _gm.enabled:
        record(_R2C, (x,), res, (), dims=dims, onesided=onesided, scale=scale, n=a.shape[dims[-1]])
    return _tangent(res, lambda t: _r2c(t, dims, onesided, scale), x)


def _two_sided(xp, half, dims, n: int):
    """The full transform of a real signal from its one-sided one (``half``: the last of
    ``dims`` holds n // 2 + 1 bins), the other bins filled by conjugate symmetry, as PyTorch's
    r2c does: X[k] = conj(X[-k]), so the imaginary parts of the self-mirrored bins (0 and
    n / 2) stay exactly zero."""
    d = dims[-1]
    m = half.shape[d]
    shape = list(half.shape)
    shape[d] = n
    full = xp.empty(shape, half.dtype)
    lead = (slice(None),) * d
    full[lead + (slice(0, m),)] = half
    if n > m:
        mirrored = half
        for e in dims[:-1]:  # index i of another transformed dim mirrors to (-i) mod size
            mirrored = xp.roll(xp.flip(mirrored, axis=e), 1, axis=e)
        # bins m .. n - 1 mirror to n - m .. 1
        full[lead + (slice(m, n),)] = xp.conj(
            xp.flip(mirrored[lead + (slice(1, n - m + 1),)], axis=d)
        )
    return full


def _r2c_vjp(node, g):
    if node.onesided:  # the bins the one-sided transform dropped get no gradient
        g = _resize(g, node.dims[-1], node.n)
    return (_real(_c2c(g, node.dims, False, node.scale)),)


_R2C = node_class("FftR2CBackward0", _r2c_vjp)


def _c2r(x: Tensor, dims, n: int, scale: float) -> Tensor:
    """``x``'s last transformed dim holds n // 2 + 1 bins; the result has ``n`` there."""
    xp = xp_for(x)
    a = x._data
    s = [a.shape[d] for d in dims[:-1]] + [n]
    r = xp.fft.irfftn(a, s=s, axes=dims, norm="forward")
    if scale != 1:
        r *= scale
    rdt = x._dtype.to_real()
    res = _wrap(xp.asarray(r, rdt.np), rdt, x._device)
    if x._rg and _gm.enabled:
        record(_C2R, (x,), res, (), dims=dims, n=n, scale=scale)
    return _tangent(res, lambda t: _c2r(t, dims, n, scale), x)


def _c2r_vjp(node, g):
    gi = _r2c(g, node.dims, True, node.scale)
    d = node.dims[-1]
    m = gi._data.shape[d]
    twice = node.n - m  # bins standing for a mirrored pair count twice
    if twice > 0:
        w = np.ones(m, gi._dtype.to_real().np)
        w[1 : 1 + twice] = 2
        shape = [1] * gi._data.ndim
        shape[d] = m
        gi = gi * _wrap(xp_for(gi).asarray(w.reshape(shape)), gi._dtype.to_real(), gi._device)
    return (gi,)


_C2R = node_class("FftC2RBackward0", _c2r_vjp)


def _real(x: Tensor) -> Tensor:
    """The real part, differentiable (its VJP is the cotangent as a complex tensor)."""
    res = _wrap(x._data.real.copy(), x._dtype.to_real(), x._device)
    if x._rg and _gm.enabled:
        record(_Real, (x,), res, (), cdt=x._dtype)
    return _tangent(res, _real, x)


_Real = node_class("RealBackward0", lambda node, g: (g.to(node.cdt),))


def _conj(x: Tensor, physical: bool = False) -> Tensor:
    """A materialised complex conjugate (PyTorch's is a lazy view; the values are the same)."""
    res = _wrap(xp_for(x).conj(x._data), x._dtype, x._device)
    if x._rg and _gm.enabled:
        record(_ConjPhysical if physical else _Conj, (x,), res, ())
    return _tangent(res, _conj, x)


_Conj = node_class("ConjBackward0", lambda node, g: (_conj(g),))
_ConjPhysical = node_class("ConjPhysicalBackward0", lambda node, g: (_conj(g, True),))


# ---- argument handling --------------------------------------------------------------------------------
def _scale(norm, n: int, forward: bool, name: str) -> float:
    if norm is None or norm == "backward":
        return 1.0 if forward else 1.0 / n
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if norm == "forward":
        return 1.0 / n if forward else 1.0
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _resize(x: Tensor, d: int, n: int) -> Tensor:
    """Crop or zero-pad ``x`` along ``d`` to ``n`` (SliceBackward0 / ConstantPadNdBackward0)."""
    size = x._data.shape[d]
    if n == size:
        return x
    if n < size:
        return x.narrow(d, 0, n)
    from .ops.nn.resample import constant_pad_nd

    pad = [0, 0] * (x._data.ndim - 1 - d) + [0, n - size]
    return constant_pad_nd(x, pad, 0)


def _promote(x: Tensor, name: str, complex_: bool) -> Tensor:
    if x._dtype.category < D.FLOAT:
        x = x.to(D.get_default_dtype())
    if x._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f"Unsupported dtype {scalar_name(x._dtype)}")
    if complex_ and x._dtype.category != D.COMPLEX:
        x = x.to(x._dtype.to_complex())
    return x


def _require_real(x: Tensor, name: str) -> None:
    if x._dtype.category == D.COMPLEX:
        if name in ("rfft2", "rfftn"):  # both go through rfftn, which words it its own way
            raise RuntimeError(
                f"rfftn expects a real-valued input tensor, but got {scalar_name(x._dtype)}"
            )
        raise RuntimeError(f"{name} expects a real input tensor, but got {scalar_name(x._dtype)}")


def _dims_sizes(x: Tensor, s, dim, name: str):
    """Transform dims and signal sizes (None for 'as is') for the n-dimensional transforms."""
    nd = x._data.ndim
    if dim is None:
        if s is None:
            dims = list(range(nd))
        else:
            dims = list(range(nd - len(s), nd))
    else:
        dims = [_wrapdim(d, nd) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    sizes = list(s) if s is not None else [None] * len(dims)
    if len(dims) > nd:
        raise RuntimeError(
            f"Got shape with {len(dims)} values but input tensor only has {nd} dimensions."
        )
    for n in sizes:
        if n is not None and n != -1 and n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return dims, sizes


def _size_at(x, d, n):
    return x._data.shape[d] if n is None or n == -1 else n


# ---- out= ----------------------------------------------------------------------------------------------
def _K_C2C(x):
    return "_fft_c2c"


def _K_R2C(x):
    return "_fft_r2c"


def _K_C2R(x):
    return "_fft_c2r"


def _takes_out(internal):
    """The transform's ``out=``: complex results want a complex ``out``, real ones a real one.

    ``internal(input)`` names the ATen kernel whose out= PyTorch reaches (it names the
    autograd error), or None where that path is composite (no error; ``out`` takes history).
    """

    def wrap(fn):
        name = fn.__name__

        def op(input, *args, out=None, **kwargs):
            r = fn(input, *args, **kwargs)
            if out is None:
                return r
            if isinstance(out, Tensor) and out._dtype.category != r._dtype.category:
                want = "complex" if r._dtype.category == D.COMPLEX else "floating point"
                shown = (
                    name if name[-1] not in "2n" else name.rstrip("2n").replace("ifft", "fft") + "n"
                )  # fft2: fftn
                raise RuntimeError(
                    f"{shown} expects a {want} output tensor, but got {scalar_name(out._dtype)}"
                )
            kernel = internal(input)
            # the composite path (conj of a real transform) wants exactly the result's dtype
            return _write_out(
                out,
                r,
                kernel or "conj_physical",
                None if kernel else _OUT_FOUND,
                grad=True if kernel else "aten",
            )

        op.__name__, op.__qualname__, op.__doc__ = name, fn.__qualname__, fn.__doc__
        op.__signature__ = _with_out_signature(fn)
        return op

    return wrap


# ---- complex-to-complex ------------------------------------------------------------------------------
def _fftn_c(name, input, s, dim, norm, forward):
    # Only the one-dimensional transforms take real input through r2c; the others promote it.
    x = _promote(input, name, name not in ("fft", "ifft"))
    dims, sizes = _dims_sizes(x, s, dim, name)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, _size_at(x, d, n))
    total = math.prod(x._data.shape[d] for d in dims)
    scale = _scale(norm, total, forward, name)
    if x._dtype.category == D.COMPLEX:
        return _c2c(x, tuple(dims), forward, scale)
    r = _r2c(x, tuple(dims), False, scale)  # real input: a full (two-sided) r2c
    return r if forward else _conj(r)  # the inverse of a real signal is the conjugated forward one


def _one(fn: str, n, dim):
    """A 1-d transform's ``n`` (an int, or an integer tensor of one element, as PyTorch's parser
    takes it) and ``dim`` as the n-d transforms' lists."""
    return None if n is None else [as_int(f"fft_{fn}", "n", 2, n)], [dim]


@cast_policy(FP32, ("cpu",))
@_takes_out(lambda x: "_fft_c2c" if x.is_complex() else "_fft_r2c")
def fft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _fftn_c("fft", input, *_one("fft", n, dim), norm, True)


@cast_policy(FP32, ("cpu",))
@_takes_out(lambda x: "_fft_c2c" if x.is_complex() else None)
def ifft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _fftn_c("ifft", input, *_one("ifft", n, dim), norm, False)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2C)
def fft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return _fftn_c("fft2", input, s, dim, norm, True)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2C)
def ifft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return _fftn_c("ifft2", input, s, dim, norm, False)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2C)
def fftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _fftn_c("fftn", input, s, dim, norm, True)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2C)
def ifftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _fftn_c("ifftn", input, s, dim, norm, False)


# ---- real-to-complex / complex-to-real ------------------------------------------------------------------------
def _rfftn(name, input, s, dim, norm, forward=True):
    _require_real(input, name)
    x = _promote(input, name, False)
    dims, sizes = _dims_sizes(x, s, dim, name)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, _size_at(x, d, n))
    total = math.prod(x._data.shape[d] for d in dims)
    r = _r2c(x, tuple(dims), True, _scale(norm, total, forward, name))
    return r if forward else _conj(r)


def _irfftn(name, input, s, dim, norm, forward=False, conj=False):
    x = _promote(input, name, True)
    dims, sizes = _dims_sizes(x, s, dim, name)
    last = dims[-1]
    n = sizes[-1]
    n = 2 * (x._data.shape[last] - 1) if n is None or n == -1 else n
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    for d, m in zip(dims[:-1], sizes[:-1]):
        x = _resize(x, d, _size_at(x, d, m))
    x = _resize(x, last, n // 2 + 1)
    if conj:
        x = _conj(x)
    total = math.prod([x._data.shape[d] for d in dims[:-1]] + [n])
    return _c2r(x, tuple(dims), n, _scale(norm, total, forward, name))


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_R2C)
def rfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _rfftn("rfft", input, *_one("rfft", n, dim), norm)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2R)
def irfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _irfftn("irfft", input, *_one("irfft", n, dim), norm)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_R2C)
def rfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return _rfftn("rfft2", input, s, dim, norm)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2R)
def irfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return _irfftn("irfft2", input, s, dim, norm)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_R2C)
def rfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _rfftn("rfftn", input, s, dim, norm)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2R)
def irfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _irfftn("irfftn", input, s, dim, norm)


@cast_policy(FP32, ("cpu",))
@_takes_out(_K_C2R)
def hfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The real spectrum of a Hermitian-symmetric signal given by its first half."""
    return _irfftn("hfft", input, *_one("hfft", n, dim), norm, forward=True, conj=True)


@cast_policy(FP32, ("cpu",))
@_takes_out(lambda x: None)
def ihfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    return _rfftn("ihfft", input, *_one("ihfft", n, dim), norm, forward=False)


@_takes_out(_K_C2R)
def hfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return _irfftn("hfft2", input, s, dim, norm, forward=True, conj=True)


@_takes_out(_K_C2R)
def hfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _irfftn("hfftn", input, s, dim, norm, forward=True, conj=True)


def _ihfftn(name, input, s, dim, norm):
    """One-sided r2c over the last dim, conjugated, then an inverse c2c over the others."""
    _require_real(input, name)
    x = _promote(input, name, False)
    dims, sizes = _dims_sizes(x, s, dim, name)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, _size_at(x, d, n))
    total = math.prod(x._data.shape[d] for d in dims)
    scale = _scale(norm, total, False, name)
    if len(dims) == 1:
        return _conj(_r2c(x, tuple(dims), True, scale))
    y = _conj(_r2c(x, (dims[-1],), True, 1.0), physical=True)
    return _c2c(y, tuple(dims[:-1]), False, scale)


@_takes_out(_K_C2C)
def ihfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    return _ihfftn("ihfft2", input, s, dim, norm)


@_takes_out(_K_C2C)
def ihfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _ihfftn("ihfftn", input, s, dim, norm)


# ---- helpers ---------------------------------------------------------------------------------------------
def _freq(values, dtype, device, requires_grad):
    from .ops.creation.factories import tensor

    dt = dtype or D.get_default_dtype()
    return tensor(values, dtype=dt, device=device, requires_grad=requires_grad)


def fftfreq(
    n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad=False, out=None
) -> Tensor:
    return _freq_out(np.fft.fftfreq, "fftfreq", n, d, dtype, device, requires_grad, out)


def rfftfreq(
    n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad=False, out=None
) -> Tensor:
    return _freq_out(np.fft.rfftfreq, "rfftfreq", n, d, dtype, device, requires_grad, out)


def _freq_out(f, name, n, d, dtype, device, requires_grad, out):
    dt = dtype or (out._dtype if out is not None else D.get_default_dtype())
    if dt.category < D.FLOAT:
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    r = _freq(f(n, d).astype(dt.np), dt, device, requires_grad)
    return r if out is None else _write_out(out, r, "fft_" + name, warn=False, grad="aten")


def _shift(input, dim, sign):
    nd = input._data.ndim
    dims = (
        list(range(nd))
        if dim is None
        else [_wrapdim(d, nd) for d in ([dim] if isinstance(dim, int) else dim)]
    )
    if not dims:
        return input.clone()
    shifts = [sign * (input._data.shape[d] // 2) for d in dims]
    return input.roll(shifts, dims)


def fftshift(input: Tensor, dim=None) -> Tensor:
    return _shift(input, dim, 1)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    return _shift(input, dim, -1)


# A non-Tensor first argument: PyTorch's parser TypeError, not an AttributeError
from ._tensor_arguments import guard as _guard

_guard(globals(), prefix="fft_")
