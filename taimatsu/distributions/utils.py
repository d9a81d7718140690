"""Helpers shared by the distributions: parameter broadcasting, probabilities <-> logits, and
the cached (lazy) parameter property."""

from __future__ import annotations

from numbers import Number

from .. import _dtype as D
from .._tensor.core import Tensor
from ..autograd.grad_mode import enable_grad

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]


def broadcast_all(*values):
    """The values as tensors of one shape; Python numbers take the first tensor's dtype and
    device (the default dtype when there is none)."""
    from .. import broadcast_tensors, tensor

    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    first = next((v for v in values if isinstance(v, Tensor)), None)
    if first is None:
        dtype, device = D.get_default_dtype(), None
    else:
        dtype, device = first.dtype, first.device
    made = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype, device=device) for v in values]
    return broadcast_tensors(*made)


def clamp_probs(probs):
    """Probabilities kept one machine epsilon away from 0 and 1 (finite logits)."""
    eps = D.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary: bool = False):
    from ..nn import functional as F

    return logits.sigmoid() if is_binary else F.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary: bool = False):
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


def expand_probs_or_logits(source, new, shape, param: bool = True) -> None:
    """For ``expand``: give ``new`` whichever of ``source``'s ``probs`` and ``logits`` it has
    computed (lazy properties live in its ``__dict__`` once read), expanded to ``shape``; with
    ``param``, ``new._param`` is the last of them, as the constructors set it."""
    for name in ("probs", "logits"):
        if name in source.__dict__:
            value = source.__dict__[name].expand(shape)
            setattr(new, name, value)
            if param:
                new._param = value


class lazy_property:
    """A parameter computed from another on first use (logits from probs), then stored on the
    instance, so later reads (and the repr) see it. Computed with grad enabled, as PyTorch."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class BinaryProbsLogits:
    """``probs`` and ``logits`` of a two-outcome parameter, each computed from the other on its
    first read (the families given one of them: Bernoulli, Binomial, Geometric, ...)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)
