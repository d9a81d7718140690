"""Complex numbers: conj/conj_physical, view_as_real/view_as_complex, real/imag, angle, and
``torch.complex`` / ``torch.polar`` (complex numbers from real parts).
"""

from __future__ import annotations

import math

from ... import _dtype as D
from ..._autocast import FP32, cast_policy
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.forward_ad import on_primals as _on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.fp_errors import silent
from .._dispatch import (
    OUT_FOUND,
    _fw_state,
    broadcast_error,
    inplace,
    needs_input_grad,
    record,
    scalar_name,
    write_out,
    xp_for,
)
from ..shape.diagonal import _tangent
from .common import _FLOAT, _scalar


# ---- complex helpers --------------------------------------------------------------------------------------
def conj(input):
    if input._dtype.category != D.COMPLEX:
        return input
    return _conj_op(input)


def _conj_node(name):
    # conj is not holomorphic: its VJP and JVP conjugate the incoming gradient/tangent.
    return node_class(name, lambda node, g: (g.conj(),))


_ConjNode = _conj_node("ConjBackward0")
_ConjPhysicalNode = _conj_node("ConjPhysicalBackward0")


def _conj_with(node_cls, input):
    res = _wrap(xp_for(input).conj(input._data), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(node_cls, (input,), res)
    if _fw_state.level and input._fw is not None:
        res._fw = _on_primals(lambda t: t.conj(), input._fw)
        _register(res)
    return res


def _conj_op(input):
    return _conj_with(_ConjNode, input)


def conj_physical(input, *, out=None):
    if out is not None:
        real = input._dtype.category != D.COMPLEX  # a plain copy into out, history included
        return write_out(
            out, conj_physical(input), "conj_physical", OUT_FOUND, grad="aten" if real else True
        )
    if input._dtype.category != D.COMPLEX:
        return input  # PyTorch: a non-complex input is returned as is
    return _conj_with(_ConjPhysicalNode, input)


def conj_physical_(self):
    return inplace(self, conj_physical, (), False)


_ViewAsReal = node_class("ViewAsRealBackward0", lambda node, g: (view_as_complex(g.contiguous()),))
_ViewAsComplex = node_class("ViewAsComplexBackward0", lambda node, g: (view_as_real(g),))


def view_as_real(input):
    """A real view with a trailing dim of 2 (real, imaginary), sharing memory."""
    from ..shape.views import make_view

    if input._dtype.category != D.COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    rt = input._dtype.to_real()
    v = make_view(input, input._data[..., None].view(rt.np), _ViewAsReal, lambda t: view_as_real(t))
    v._dtype = rt
    return v


@cast_policy(FP32, ("cpu",))
def view_as_complex(input):
    """The inverse of view_as_real: the last dim (size 2, stride 1) becomes complex numbers."""
    from ..shape.views import make_view

    if input._dtype is D.float16:
        raise RuntimeError("view_as_complex: taimatsu has no complex32 (ComplexHalf) dtype")
    if input._dtype not in (D.float32, D.float64):
        raise RuntimeError(
            f"view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: "
            f"{_scalar(input._dtype)}"
        )
    if input._data.ndim == 0 or input._data.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input.stride(-1) != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    ct = input._dtype.to_complex()
    v = make_view(
        input, input._data.view(ct.np)[..., 0], _ViewAsComplex, lambda t: view_as_complex(t)
    )
    v._dtype = ct
    return v


def real(input):
    """The real part: a view (select of view_as_real), as in PyTorch; real tensors return self."""
    if input._dtype.category != D.COMPLEX:
        return input
    return view_as_real(input).select(-1, 0)


def imag(input):
    if input._dtype.category != D.COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return view_as_real(input).select(-1, 1)


def _angle_vjp(node, g):
    # angle(z) = atan2(im, re): its conjugate Wirtinger gradient is i g z / |z|^2 (0 at z = 0);
    # a real input's angle is piecewise constant.
    (x,) = node.saved()
    if x._dtype.category != D.COMPLEX:
        return (g * 0.0,)
    return ((g * x / x.abs().square() * 1j).masked_fill(x == 0, 0.0),)


def _angle_jvp(x, t):
    if x._dtype.category != D.COMPLEX:
        return t * 0.0
    return (t / x).imag.masked_fill(x == 0, 0.0)


_Angle = node_class("AngleBackward0", _angle_vjp)


def angle(input, *, out=None):
    """The argument of a complex number (for real inputs: pi where negative, else 0)."""
    xp = xp_for(input)
    dt = input._dtype.to_real() if input._dtype.category >= _FLOAT else D.get_default_dtype()
    a = input._data
    r = xp.angle(a) if a.dtype.kind == "c" else xp.where(a < 0, math.pi, xp.where(a != a, a, 0.0))
    res = _wrap(r.astype(dt.np), dt, input._device)
    if input._rg and _gm.enabled:
        record(_Angle, (input,), res, (input,))
    if _fw_state.level and input._fw is not None:
        res._fw = _on_primals(_angle_jvp, input, input._fw)
        _register(res)
    return res if out is None else write_out(out, res, "angle")


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
        raise RuntimeError(
            "taimatsu has no complex32 (ComplexHalf) dtype; use float32 or float64 parts"
        )
    xp = xp_for(a)
    try:
        shape = xp.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise broadcast_error((a._data.shape, b._data.shape)) from None
    return xp, shape, _TO_COMPLEX[a._dtype.name]


def _complex_vjp(node, g):
    return (
        g.real if needs_input_grad(node, 0) else None,
        g.imag if needs_input_grad(node, 1) else None,
    )


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


@cast_policy(FP32, ("cpu",))
@silent
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
    from .._dispatch import write_out

    return write_out(
        out,
        r,
        name,
        "Expected object of scalar type {res} but got scalar type {out} for argument 'out'",
    )
