"""Complex helpers: conj/conj_physical, view_as_real/view_as_complex, real/imag and angle.

Split out of ``pointwise.py`` (house size limit), which re-exports every name defined here, so
``ops.pointwise.<name>`` still reaches them.
"""

from __future__ import annotations

import math

from .. import _dtype as D
from ..autograd.forward_ad import _register
from ..autograd.forward_ad import on_primals as _on_primals
from ..autograd.grad_mode import state as _gm
from ._dispatch import OUT_FOUND, _fw_state, _wrap, inplace, node_class, record, write_out, xp_for
from ._elementwise import _FLOAT, _scalar


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
        return write_out(out, conj_physical(input), "conj_physical", OUT_FOUND, grad="aten" if real else True)
    if input._dtype.category != D.COMPLEX:
        return input  # PyTorch: a non-complex input is returned as is
    return _conj_with(_ConjPhysicalNode, input)


def conj_physical_(self):
    return inplace(self, conj_physical, (), False)


_ViewAsReal = node_class("ViewAsRealBackward0", lambda node, g: (view_as_complex(g.contiguous()),))
_ViewAsComplex = node_class("ViewAsComplexBackward0", lambda node, g: (view_as_real(g),))


def view_as_real(input):
    """A real view with a trailing dim of 2 (real, imaginary), sharing memory."""
    from .views import make_view

    if input._dtype.category != D.COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    rt = input._dtype.to_real()
    v = make_view(input, input._data[..., None].view(rt.np), _ViewAsReal, lambda t: view_as_real(t))
    v._dtype = rt
    return v


def view_as_complex(input):
    """The inverse of view_as_real: the last dim (size 2, stride 1) becomes complex numbers."""
    from .views import make_view

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
    v = make_view(input, input._data.view(ct.np)[..., 0], _ViewAsComplex, lambda t: view_as_complex(t))
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
