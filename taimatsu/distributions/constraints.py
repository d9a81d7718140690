"""``torch.distributions.constraints``: the sets a parameter or a sample must lie in.

``check(value)`` answers elementwise (a bool tensor, reduced over a constraint's event dims);
the reprs are PyTorch's (``GreaterThan(lower_bound=0.0)``), since they appear in the
validation errors users read.
"""

from __future__ import annotations

__all__ = [
    "Constraint",
    "MixtureSameFamilyConstraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """A set of values: ``check`` says which elements of a tensor belong to it."""

    is_discrete = False
    event_dim = 0  # rightmost dims that form one event (checked together)

    def check(self, value):
        raise NotImplementedError

    def _bounds(self) -> str:
        return ""

    def __repr__(self) -> str:
        # PyTorch names the classes with a leading underscore and shows the name without it
        return f"{type(self).__name__[1:]}({self._bounds()})"


class _Dependent(Constraint):
    """A constraint that depends on other parameters: never checked by itself."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete, self._event_dim = is_discrete, event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class dependent_property(property):
    """A property whose value is a constraint built from the instance (e.g. a support)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        super().__init__(fn)
        self._is_discrete, self._event_dim = is_discrete, event_dim

    def __call__(self, fn):
        return dependent_property(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _Real(Constraint):
    def check(self, value):
        return value == value  # noqa: PLR0124 - False only for NaN


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def _bounds(self) -> str:
        return f"lower_bound={self.lower_bound}"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def _bounds(self) -> str:
        return f"upper_bound={self.upper_bound}"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def _bounds(self) -> str:
        return f"lower_bound={self.lower_bound}, upper_bound={self.upper_bound}"


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerGreaterThan(_GreaterThan):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Simplex(Constraint):
    """Nonnegative vectors over the last dim that sum to 1 (to 1e-6)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative count vectors over the last dim summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


class _MixtureSameFamilyConstraint(Constraint):
    """A mixture's support: the component's, checked with the value broadcast against every
    component (the value gets a component dim before the event dims)."""

    def __init__(self, base_constraint):
        self.base_constraint = base_constraint

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        keep = value.dim() - self.event_dim
        return result.reshape(result.shape[:keep] + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}({self.base_constraint!r})"


class _OneHot(Constraint):
    """Vectors of zeros with a single one over the last dim."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        binary = (value == 0) | (value == 1)
        return binary.all(-1) & value.sum(-1).eq(1)


class _Square(Constraint):
    """Square matrices (one answer per matrix of the batch: the shape decides)."""

    event_dim = 2

    def check(self, value):
        from ..ops.creation.factories import full

        square = value.shape[-2] == value.shape[-1]
        return full(value.shape[:-2], square, dtype=_bool(), device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose, to 1e-6."""

    def check(self, value):
        square = super().check(value)
        if not square.all():
            return square
        return value.isclose(value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all >= 0."""

    def check(self, value):
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        from ..linalg import eigvalsh

        return eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric (to 1e-6) matrices with a Cholesky factor."""

    def check(self, value):
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        from ..linalg import cholesky_ex

        return cholesky_ex(value).info.eq(0)


class _LowerTriangular(Constraint):
    """Matrices equal to their lower triangle."""

    event_dim = 2

    def check(self, value):
        return (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]


def _bool():
    from .. import _dtype as D

    return D.bool


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]
        positive = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower & positive


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky factors whose rows have unit
    norm, to 10 * n * eps of the dtype (PyTorch's tolerance)."""

    event_dim = 2

    def check(self, value):
        from .. import finfo
        from ..linalg import vector_norm

        tol = finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = vector_norm(value.detach(), dim=-1)
        unit_rows = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return lower_cholesky.check(value) & unit_rows


def _check_constraints(cseq) -> list:
    cseq = list(cseq)
    if not all(isinstance(c, Constraint) for c in cseq):
        raise AssertionError("All elements of cseq must be Constraint instances")
    return cseq


def _check_dim(dim: int, value) -> None:
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for value with {value.dim()} dimensions")


class _Cat(Constraint):
    """Each constraint of ``cseq`` on its block of ``lengths`` entries along ``dim``."""

    def __init__(self, cseq, dim: int = 0, lengths=None):
        self.cseq = _check_constraints(cseq)
        self.lengths = list([1] * len(self.cseq) if lengths is None else lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})"
            )
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        from .. import cat

        _check_dim(self.dim, value)
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return cat(checks, self.dim)


class _Stack(Constraint):
    """Constraint i of ``cseq`` on the i-th slice along ``dim``."""

    def __init__(self, cseq, dim: int = 0):
        self.cseq = _check_constraints(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        # a negative stacking dim inside the event makes the stacked dim part of it
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value):
        from .. import stack

        _check_dim(self.dim, value)
        slices = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return stack([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)


class _IndependentConstraint(Constraint):
    """``base`` with its ``reinterpreted_batch_ndims`` rightmost dims taken as one event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims: int):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if ok.dim() < n:
            expected = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        return ok.reshape(ok.shape[: ok.dim() - n] + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


dependent = _Dependent()
real = _Real()
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
one_hot = _OneHot()
positive_definite = _PositiveDefinite()
positive_semidefinite = _PositiveSemidefinite()
square = _Square()
symmetric = _Symmetric()
lower_triangular = _LowerTriangular()
MixtureSameFamilyConstraint = _MixtureSameFamilyConstraint
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
cat = _Cat
stack = _Stack
real_vector = _IndependentConstraint(real, 1)
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
independent = _IndependentConstraint
multinomial = _Multinomial
