"""``torch.distributions.Distribution``: the base class (shapes, sampling, argument and sample
validation with PyTorch's messages, the repr)."""

from __future__ import annotations

import warnings

from .._size import Size
from .._tensor.core import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.introspection import typename
from . import constraints
from .utils import lazy_property as _lazy

__all__ = ["Distribution"]

_NO_SHAPE = Size()  # the default batch, event and sample shape


def _shown(cls: type) -> str:
    """``str(cls)`` as PyTorch prints it: taimatsu's classes under their ``torch`` module names."""
    return f"<class '{typename(cls)}'>"


class Distribution:
    """A batch of probability distributions of shape ``batch_shape``, each over events of
    shape ``event_shape``; a sample of ``sample_shape`` has ``sample_shape + batch_shape +
    event_shape``."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__  # PyTorch validates unless Python runs with -O

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_NO_SHAPE, event_shape=_NO_SHAPE, validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{_shown(type(self))} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None), _lazy):
                continue  # the other parameterisation was given: this one is derived from it
            value = getattr(self, param)
            if not constraint.check(value).all():
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}"
                )

    # ---- shapes ------------------------------------------------------------------------------
    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape=_NO_SHAPE) -> Size:
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    # ---- what a subclass defines ---------------------------------------------------------------
    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{_shown(type(self))} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def rsample(self, sample_shape=_NO_SHAPE):
        raise NotImplementedError

    def sample(self, sample_shape=_NO_SHAPE):
        """A sample without a graph: rsample under no_grad where the subclass has one."""
        with no_grad():
            return self.rsample(sample_shape)

    def sample_n(self, n: int):
        warnings.warn(
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    # ---- validation and repr -----------------------------------------------------------------
    def _validate_sample(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")  # noqa: TRY004
        start = value.dim() - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs "
                f"{self._event_shape}."
            )
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {actual} vs "
                    f"{expected}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{_shown(type(self))} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.",
                stacklevel=3,
            )
            return
        if not support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, but found "
                f"invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        shown = []
        for p in self.arg_constraints:
            if p in self.__dict__:
                v = self.__dict__[p]
                shown.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{self.__class__.__name__}({', '.join(shown)})"
