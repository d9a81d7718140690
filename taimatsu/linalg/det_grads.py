"""VJPs and JVPs of ``linalg.det`` / ``slogdet`` (PyTorch's LinalgDetBackward0 / LinalgSlogdetBackward0).

Written in Tensor ops so double backward works. Both use ``A^{-1}``: like PyTorch's LU-based
formulas they assume a non-singular ``A``; at an exactly singular matrix (det == 0) the gradient of
``det`` is zero, as PyTorch 2.13 computes it (not the adjugate).
"""

from __future__ import annotations

from .._tensor.core import Tensor
from ..autograd.graph import node_class
from . import _h, inv, solve


def _mat(v: Tensor) -> Tensor:
    """A per-matrix scalar, broadcastable against the batch of matrices."""
    return v.unsqueeze(-1).unsqueeze(-1)


def _trace_solve(A: Tensor, dA: Tensor) -> Tensor:
    """tr(A^{-1} dA) for every matrix of the batch: the tangent of log det A."""
    return solve(A, dA).diagonal(0, -2, -1).sum(-1)


def _det_vjp(node, g):
    # d det / dA = det(A) A^{-T}: the gradient is g * conj(det) * A^{-H}.
    A, out = node.saved()
    scale = g * out.conj() if A.is_complex() else g * out
    singular = out == 0
    if bool(singular.any()):
        # PyTorch 2.13 gives an exactly singular matrix (det == 0) a zero gradient, not its adjugate:
        # keep the zero scale and invert the identity in its place.
        from ..ops.creation.ranges import eye
        from ..ops.pointwise.select import where

        A = where(_mat(singular), eye(A.shape[-1], dtype=A.dtype, device=A.device), A)
    return (_mat(scale) * _h(inv(A)),)


def det_jvp(A: Tensor, out: Tensor, dA: Tensor) -> Tensor:
    # d det A = det A * tr(A^{-1} dA)
    return out * _trace_solve(A, dA)


def _slogdet_vjp(node, g_sign, g_logabs):
    # log det A = logabsdet + i*angle(sign); the gradient of a real loss wrt log det A is
    # g_logabs + i * Im(conj(sign) g_sign) (the sign only moves for complex A), and
    # d(log det A)/dA = A^{-T}, whose conjugate carries it back to A.
    A, sign = node.saved()
    gL = g_logabs
    if A.is_complex():
        gL = (sign.conj() * g_sign).imag * 1j + g_logabs
    return (_mat(gL) * _h(inv(A)),)


def slogdet_jvp(A: Tensor, sign: Tensor, dA: Tensor):
    t = _trace_solve(A, dA)
    if A.is_complex():
        return sign * (t.imag * 1j), t.real
    return sign * 0, t  # a real sign is piecewise constant: a zero tangent, as in PyTorch


DetNode = node_class("LinalgDetBackward0", _det_vjp)
SlogdetNode = node_class("LinalgSlogdetBackward0", _slogdet_vjp)
