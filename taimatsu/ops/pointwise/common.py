"""Small helpers shared by the elementwise op families (``pointwise``, ``binary``, ``select``)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import cpu
from ..._tensor.core import Tensor
from ...autograd.forward_ad import state as _fw_state
from ...autograd.grad_mode import state as _gm
from ...autograd.op_watch import _watchers
from ...backend.parallel import BLOCK as blockwise_size
from ...backend.parallel import blockwise

_FLOAT = D.FLOAT


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def _conj(t):
    if isinstance(t, Tensor):
        return t.conj() if t._dtype.category == D.COMPLEX else t
    return t.conjugate() if isinstance(t, complex) else t


def plain_backward(g) -> bool:
    """``g`` is a real float32/float64 CPU gradient of a plain backward: no graph being built
    (create_graph), no forward-mode tangent, no op watched by a profiler. A VJP may then compute
    on the arrays with the ops' own kernels (the same bits), without their dispatch."""
    return (
        g.__class__ is Tensor
        and not _gm.enabled
        and not _fw_state.level
        and not _watchers
        and g._device is cpu
        and (g._dtype is D.float32 or g._dtype is D.float64)
    )


def _scalar(dtype):
    from .._dispatch import scalar_name

    return scalar_name(dtype)


def _shape(x):
    return x._data.shape if isinstance(x, Tensor) else ()


def _tensor_or_none(x):
    return x if isinstance(x, Tensor) else None


def not_implemented(kernel, *categories):
    """``check(dtype)``: PyTorch's '"kernel" not implemented for 'ComplexFloat'' for these categories
    (``D.SHELL_UINT`` among them: uint16/32/64, which few PyTorch kernels take)."""

    def check(dtype):
        if dtype.category in categories or (dtype in D._SHELL_UINTS and D.SHELL_UINT in categories):
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{_scalar(dtype)}'")

    check.kernel = kernel  # a kernel's dtype check: PyTorch runs it after broadcasting
    return check


def no_complex(message, exc=NotImplementedError):
    """``check(dtype)`` raising ``exc(message)`` for complex dtypes (ops PyTorch refuses on them)."""

    def check(dtype):
        if dtype.category == D.COMPLEX:
            raise exc(message)

    return check


def checks(*fns):
    """Several dtype checks run in order."""

    def check(dtype):
        for f in fns:
            f(dtype)

    return check


# ---- float32 maths rounded like PyTorch's ------------------------------------------------------
# PyTorch's CPU float32 transcendentals (exp, log, sin, tanh, ...) are correctly rounded in ~99% of
# elements; NumPy's SIMD float32 kernels are one ulp off in 15-40%. Computing a float32 CPU array in
# float64 and rounding once gives the correctly rounded result but for rare double roundings. CuPy
# arrays keep float32 maths: PyTorch's CUDA kernels are not correctly rounded either.
_F32 = np.dtype(np.float32)


def rounded_once(forward):
    """``forward(xp, a, *params)``, for a float32 NumPy array computed in float64 and rounded once."""

    def f(xp, a, *params):
        if xp is np and a.dtype == _F32:
            return in_float64(lambda d: forward(xp, d, *params), a)
        return forward(xp, a, *params)

    return f


def rounded(xp, f, a):
    """``f(a)`` rounded once for a float32 NumPy array: a correctly rounded building block for the
    activations PyTorch writes as float32 arithmetic around exp/log1p/tanh (sigmoid, gelu, ...)."""
    if xp is np and a.dtype == _F32:
        return in_float64(f, a)
    return f(a)


def half_in_float32(forward):
    """``forward(xp, a, *params)`` for a float16/bfloat16 array computed in float32 and rounded
    once to its dtype, as PyTorch's kernels compute half types (in half arithmetic a formula such
    as sigmoid's rounds at every step)."""

    def f(xp, a, *params):
        if a.dtype.char in D.HALF_CHARS:
            return forward(xp, a.astype(np.float32), *params).astype(a.dtype)
        return forward(xp, a, *params)

    return f


def in_float64(f, a):
    """``f(a in float64)`` rounded once to float32 (``a``: a float32 NumPy array)."""
    if a.size >= 2 * blockwise_size and a.flags.c_contiguous:
        return blockwise(f, a, _F32)
    return np.asarray(f(a.astype(np.float64))).astype(_F32)


_HALVES = (D.float16, D.bfloat16)


def in_float32_once(g, deriv, x, out, *params):
    """``g * deriv(x, out, *params)`` of float16/bfloat16 tensors as PyTorch's backward kernels
    (tanh_backward, gelu_backward, ...) compute it: in float32, rounded once to ``g``'s type
    (in the half type each product and sum would round). Tensor ops: double backward works."""
    wide = [t if t is None else t.float() for t in (x, out)]
    return (g.float() * deriv(*wide, *params)).to(g.dtype)


def bound_first(xp, ufunc, bound, a):
    """``ufunc(bound, a)`` for ``ufunc`` maximum or minimum, the bound first: NumPy keeps the
    second operand of a tie, as PyTorch's SIMD max/min keep x (relu(-0.) and clamp(-0., min=0.)
    are -0.). A contiguous float32/float64 NumPy array meets an array filled with the bound,
    made in the result's own buffer, rather than the scalar: NumPy's array-array loop is
    several times faster than its loop over a broadcast scalar ((256, 256): ~7 against ~25 us;
    (32, 16, 28, 28): ~55 against 124), the same values."""
    if xp is np and a.dtype.char in "fd" and a.flags.c_contiguous and a.size >= 1024:
        r = np.empty(a.shape, a.dtype)
        r.fill(bound)
        return ufunc(r, a, out=r)
    return ufunc(bound, a)
