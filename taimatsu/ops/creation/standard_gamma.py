"""``torch._standard_gamma`` (Gamma(alpha, 1) draws, differentiable in alpha),
``torch._standard_gamma_grad`` and ``torch._sample_dirichlet``: the samplers under
``distributions.Gamma``, ``Chi2``, ``StudentT``, ``Beta`` and ``Dirichlet``.

Drawn by the CPU generator as PyTorch's CPU kernels draw (``backend/gamma_sampler.py``), so a
seeded program gets PyTorch's numbers; CUDA tensors are sampled through the host.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.gamma_sampler import dirichlet_grad, standard_gamma, standard_gamma_grad
from .._dispatch import record, scalar_name
from ..on_host import on_host
from .random import _gen

__all__ = ["_dirichlet_grad", "_sample_dirichlet", "_standard_gamma", "_standard_gamma_grad"]


def _check_floating(input: Tensor, kernel: str) -> None:
    if input._dtype not in (D.float32, D.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._dtype)}'")


@on_host
def _standard_gamma(input: Tensor, generator=None) -> Tensor:
    """One Gamma(alpha, 1) draw per element; its gradient is the reparameterised
    ``_standard_gamma_grad(alpha, sample)`` (PyTorch's StandardGammaBackward0)."""
    _check_floating(input, "gamma_cpu")
    drawn = standard_gamma(_gen(generator), np.ascontiguousarray(input._data))
    out = _wrap(drawn, input._dtype, input._device)
    if _gm.enabled and input._rg:
        record(_StandardGammaNode, (input,), out, saved=(input, out))
    return out


def _standard_gamma_vjp(node, g):
    alpha, sample = node.saved()
    return (g * _standard_gamma_grad(alpha.detach(), sample.detach()),)


_StandardGammaNode = node_class("StandardGammaBackward0", _standard_gamma_vjp)


@on_host
def _standard_gamma_grad(self: Tensor, output: Tensor) -> Tensor:
    """d sample / d alpha for ``output`` ~ Gamma(``self``, 1) (not differentiable itself)."""
    _check_floating(self, "_standard_gamma_grad_cpu")
    grad = standard_gamma_grad(self._data, output._data).astype(self._dtype.np, copy=False)
    return _wrap(np.ascontiguousarray(grad), self._dtype, self._device)


@on_host
def _sample_dirichlet(input: Tensor, generator=None) -> Tensor:
    """Dirichlet draws along the last dim: Gamma draws in double (whatever ``input``'s dtype),
    divided by their row sum, cast and kept in [tiny, the float just below 1]."""
    _check_floating(input, "dirichlet")
    alphas = np.ascontiguousarray(input._data, np.float64)
    gammas = standard_gamma(_gen(generator), alphas)
    ratio = (gammas / gammas.sum(-1, keepdims=True)).astype(input._dtype.np)
    kind = input._dtype.np.type
    below_one = np.nextafter(kind(1), kind(0))
    return _wrap(np.clip(ratio, np.finfo(kind).tiny, below_one), input._dtype, input._device)


@on_host
def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """d x / d alpha for the Beta(alpha, total - alpha) marginal (see
    ``backend.gamma_sampler.dirichlet_grad``: to PyTorch's approximation error, not bits)."""
    _check_floating(x, "_dirichlet_grad_cpu")
    grad = dirichlet_grad(x._data, alpha._data, total._data).astype(x._dtype.np, copy=False)
    return _wrap(np.ascontiguousarray(grad), x._dtype, x._device)
