"""Tensor's op methods and operators: one-line delegates to ``taimatsu.ops``.

Kept apart from _tensor/core.py so that file stays about what a tensor *is*. The op modules
import Tensor, so they are bound here by ``_bind()`` once Tensor exists.
"""

from __future__ import annotations

import numbers

from .op_namespace import op_namespace
from .structural_methods import StructureMethods
from .structural_methods import _bind as _bind_structure

_ops = None  # every op, by name: op_namespace.py


def _bind() -> None:
    global _ops
    _ops = op_namespace()

    _bind_structure(_ops)

    # Ops whose function takes the tensor first are methods as they are (``t.sinc()``).
    for name in _SAME_AS_FUNCTION.split():
        fn = getattr(_ops, name)
        setattr(TensorMethods, name, getattr(fn, "method", fn))  # its parser text, if it differs

    from .._numpy_keywords import accept_on_methods

    accept_on_methods(TensorMethods)  # p.sum(axis=0, keepdims=True), as PyTorch's parser takes it


_SAME_AS_FUNCTION = (
    "diag diag_embed diagflat repeat_interleave unfold kron trace cross dist renorm renorm_ "
    "cov corrcoef pinverse igamma igamma_ igammac igammac_ unsafe_chunk unsafe_split "
    "unsafe_split_with_sizes histogram is_same_size index_reduce index_reduce_ hsplit vsplit "
    "dsplit rot90 put put_ diagonal_scatter slice_scatter select_scatter as_strided_scatter "
    "narrow_copy split_with_sizes diff sinc sinc_ i0 i0_ rad2deg rad2deg_ deg2rad deg2rad_ "
    "logaddexp2 nextafter nextafter_ heaviside heaviside_ gcd gcd_ lcm lcm_ ldexp ldexp_ "
    "frexp mvlgamma mvlgamma_ isreal float_power_ logcumsumexp"
)


def _operator(name: str, swap: bool = False):
    """A binary operator: ``_ops.<name>(self, other)`` (``(other, self)`` with ``swap``), or
    NotImplemented where the op refuses the other operand with a TypeError."""

    def op(self, other):
        try:
            fn = getattr(_ops, name)
            return fn(other, self) if swap else fn(self, other)
        except TypeError:
            return NotImplemented

    op.__name__ = op.__qualname__ = name
    return op


class TensorMethods(StructureMethods):
    __slots__ = ()

    # ---- operators -------------------------------------------------------------------------
    # PyTorch's operators give the other operand its turn (NotImplemented) where the op refuses
    # its type: ``t + ndarray`` is NumPy's, ``t + obj`` is ``obj.__radd__``'s, ``t + [1]`` is
    # Python's "unsupported operand type(s)" TypeError
    __add__ = __radd__ = _operator("_add")
    __iadd__ = _operator("add_")
    __sub__ = _operator("sub")
    __rsub__ = _operator("rsub")
    __isub__ = _operator("sub_")
    __mul__ = __rmul__ = _operator("mul")
    __imul__ = _operator("mul_")
    __truediv__ = _operator("_true_div")
    __itruediv__ = _operator("_true_div_")
    __floordiv__ = _operator("floor_divide")
    __ifloordiv__ = _operator("floor_divide_")
    __mod__ = _operator("remainder")
    __rmod__ = _operator("remainder", swap=True)
    __imod__ = _operator("remainder_")
    __pow__ = _operator("pow")
    __rpow__ = _operator("_rpow")
    __ipow__ = _operator("pow_")
    __and__ = __rand__ = _operator("bitwise_and")
    __iand__ = _operator("bitwise_and_")
    __or__ = __ror__ = _operator("bitwise_or")
    __ior__ = _operator("bitwise_or_")
    __xor__ = __rxor__ = _operator("bitwise_xor")
    __ixor__ = _operator("bitwise_xor_")
    __lshift__ = _operator("bitwise_left_shift")
    __rshift__ = _operator("bitwise_right_shift")
    __rlshift__ = _operator("bitwise_left_shift", swap=True)
    __rrshift__ = _operator("bitwise_right_shift", swap=True)
    __ilshift__ = _operator("bitwise_left_shift_")
    __irshift__ = _operator("bitwise_right_shift_")
    __lt__ = _operator("lt")
    __le__ = _operator("le")
    __gt__ = _operator("gt")
    __ge__ = _operator("ge")

    def __eq__(self, other):
        return _compared(_ops.eq, self, other, arrays=True)

    def __ne__(self, other):
        return _compared(_ops.ne, self, other)

    def __contains__(self, element) -> bool:
        # PyTorch: whether any element equals it (Python's fallback iterated over the rows)
        if isinstance(element, (TensorMethods, numbers.Number)):
            return bool((element == self).any().item())
        raise RuntimeError(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."
        )

    def __rtruediv__(self, other):
        try:
            return _ops.mul(_ops.reciprocal(self), other)
        except TypeError:
            return NotImplemented

    def __rfloordiv__(self, other):
        try:
            dt = _ops.result_dtype(self, other)
        except TypeError:
            return NotImplemented
        return _ops.floor_divide(_ops.scalar_tensor(other, dtype=dt, device=self._device), self)

    def __matmul__(self, other):
        if not hasattr(other, "_data"):
            return NotImplemented
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        if not hasattr(other, "_data"):  # ndarray @ tensor: unsupported, as in PyTorch
            return NotImplemented
        return _ops.matmul(other, self)

    def __neg__(self):
        return _ops.neg(self)

    def __pos__(self):
        return _ops.positive(self)

    def __abs__(self):
        return _ops.abs(self)

    def __invert__(self):
        if self._dtype.is_floating_point or self._dtype.is_complex:
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _ops.logical_not(self) if self._dtype.name == "bool" else _ops.bitwise_not(self)

    def __getitem__(self, index):
        return _ops.getitem(self, index)

    def __setitem__(self, index, value):
        _ops.setitem(self, index, value)

    # ---- arithmetic ------------------------------------------------------------------------------
    def add(self, other, *, alpha=1):
        return _ops.add(self, other, alpha=alpha)

    def add_(self, other, *, alpha=1):
        return _ops.add_(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return _ops.sub(self, other, alpha=alpha)

    def sub_(self, other, *, alpha=1):
        return _ops.sub_(self, other, alpha=alpha)

    subtract, subtract_ = sub, sub_

    def rsub(self, other, *, alpha=1):
        return _ops.rsub(self, other, alpha=alpha)

    def mul(self, other):
        return _ops.mul(self, other)

    def mul_(self, other):
        return _ops.mul_(self, other)

    multiply, multiply_ = mul, mul_

    def div(self, other, *, rounding_mode=None):
        return _ops.div(self, other, rounding_mode=rounding_mode)

    def div_(self, other, *, rounding_mode=None):
        return _ops.div_(self, other, rounding_mode=rounding_mode)

    divide, divide_ = div, div_

    def true_divide(self, other):
        return _ops.true_divide(self, other)

    def true_divide_(self, other):
        return _ops.true_divide_(self, other)

    def floor_divide(self, other):
        return _ops.floor_divide(self, other)

    def floor_divide_(self, other):
        return _ops.floor_divide_(self, other)

    def remainder(self, other):
        return _ops.remainder(self, other)

    def remainder_(self, other):
        return _ops.remainder_(self, other)

    def fmod(self, other):
        return _ops.fmod(self, other)

    def fmod_(self, other):
        return _ops.fmod_(self, other)

    def pow(self, exponent):
        return _ops.pow(self, exponent)

    def pow_(self, exponent):
        return _ops.pow_(self, exponent)

    def float_power(self, exponent):
        return _ops.float_power(self, exponent)

    def square(self):
        return _ops.square(self)

    def square_(self):
        return _ops.pow_(self, 2)

    def atan2(self, other):
        return _ops.atan2.method(self, other)

    def atan2_(self, other):
        return _ops.atan2_(self, other)

    arctan2, arctan2_ = atan2, atan2_

    def hypot(self, other):
        return _ops.hypot.method(self, other)

    def maximum(self, other):
        return _ops.maximum.method(self, other)

    def minimum(self, other):
        return _ops.minimum.method(self, other)

    def fmax(self, other):
        return _ops.fmax.method(self, other)

    def fmin(self, other):
        return _ops.fmin.method(self, other)

    def lerp(self, end, weight):
        return _ops.lerp(self, end, weight)

    def lerp_(self, end, weight):
        return _ops.lerp_(self, end, weight)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return _ops.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        return _ops.addcmul_(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return _ops.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        return _ops.addcdiv_(self, tensor1, tensor2, value=value)

    def clamp(self, min=None, max=None):  # noqa: A002
        return _ops.clamp(self, min, max)

    def clamp_(self, min=None, max=None):  # noqa: A002
        return _ops.clamp_(self, min, max)

    clip, clip_ = clamp, clamp_

    def clamp_min(self, min):  # noqa: A002
        return _ops.clamp_min(self, min)

    def clamp_min_(self, min):  # noqa: A002
        return _ops.clamp_min_(self, min)

    def clamp_max(self, max):  # noqa: A002
        return _ops.clamp_max(self, max)

    def clamp_max_(self, max):  # noqa: A002
        return _ops.clamp_max_(self, max)

    def masked_fill(self, mask, value):
        return _ops.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        return _ops.masked_fill_(self, mask, value)

    def where(self, condition, other):
        return _ops.where(condition, self, other)

    def round(self, *, decimals=0):
        return _ops.round(self, decimals=decimals)

    def round_(self, *, decimals=0):
        return _ops.round_(self, decimals=decimals)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _ops.nan_to_num(self, nan, posinf, neginf)

    def conj(self):
        return _ops.conj(self)

    def conj_physical(self):
        return _ops.conj_physical(self)

    def conj_physical_(self):
        return _ops.conj_physical_(self)

    def polygamma(self, n):
        return _ops.polygamma(n, self)

    def logit(self, eps=None):
        return _ops.logit(self, eps)

    def xlogy(self, other):
        return _ops.xlogy(self, other)

    def logaddexp(self, other):
        return _ops.logaddexp(self, other)

    def copysign(self, other):
        return _ops.copysign(self, other)

    def copysign_(self, other):
        return _ops.copysign_(self, other)

    def xlogy_(self, other):
        return _ops.xlogy_(self, other)

    def logit_(self, eps=None):
        return _ops.logit_(self, eps)

    def hypot_(self, other):
        return _ops.hypot_(self, other)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        return _ops.nan_to_num_(self, nan, posinf, neginf)

    def logical_not_(self):
        return _ops.logical_not_(self)

    def logical_and_(self, other):
        return _ops.logical_and_(self, other)

    def logical_or_(self, other):
        return _ops.logical_or_(self, other)

    def logical_xor_(self, other):
        return _ops.logical_xor_(self, other)

    def bitwise_not_(self):
        return _ops.bitwise_not_(self)

    def bitwise_and_(self, other):
        return _ops.bitwise_and_(self, other)

    def bitwise_or_(self, other):
        return _ops.bitwise_or_(self, other)

    def bitwise_xor_(self, other):
        return _ops.bitwise_xor_(self, other)

    def bitwise_left_shift(self, other):
        return _ops.bitwise_left_shift(self, other)

    def bitwise_left_shift_(self, other):
        return _ops.bitwise_left_shift_(self, other)

    def bitwise_right_shift(self, other):
        return _ops.bitwise_right_shift(self, other)

    def bitwise_right_shift_(self, other):
        return _ops.bitwise_right_shift_(self, other)

    def angle(self):
        return _ops.angle(self)

    @property
    def real(self):
        return _ops.real(self)

    @real.setter
    def real(self, value):
        _ops.real(self).copy_(value)  # x.real = v writes into x's memory, as in PyTorch

    @property
    def imag(self):
        return _ops.imag(self)

    @imag.setter
    def imag(self, value):
        _ops.imag(self).copy_(value)

    # comparisons / logical
    def eq(self, other):
        return _ops.eq(self, other)

    def ne(self, other):
        return _ops.ne(self, other)

    def lt(self, other):
        return _ops.lt(self, other)

    def le(self, other):
        return _ops.le(self, other)

    def gt(self, other):
        return _ops.gt(self, other)

    def ge(self, other):
        return _ops.ge(self, other)

    def eq_(self, other):
        return _ops.eq_(self, other)

    def ne_(self, other):
        return _ops.ne_(self, other)

    def lt_(self, other):
        return _ops.lt_(self, other)

    def le_(self, other):
        return _ops.le_(self, other)

    def gt_(self, other):
        return _ops.gt_(self, other)

    def ge_(self, other):
        return _ops.ge_(self, other)

    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    def equal(self, other):
        return _ops.equal(self, other)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops.allclose(self, other, rtol, atol, equal_nan)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops.isclose(self, other, rtol, atol, equal_nan)

    def logical_and(self, other):
        return _ops.logical_and.method(self, other)

    def logical_or(self, other):
        return _ops.logical_or.method(self, other)

    def logical_xor(self, other):
        return _ops.logical_xor.method(self, other)

    def logical_not(self):
        return _ops.logical_not(self)

    def bitwise_and(self, other):
        return _ops.bitwise_and(self, other)

    def bitwise_or(self, other):
        return _ops.bitwise_or(self, other)

    def bitwise_xor(self, other):
        return _ops.bitwise_xor(self, other)

    def bitwise_not(self):
        return _ops.bitwise_not(self)

    def isnan(self):
        return _ops.isnan(self)

    def isinf(self):
        return _ops.isinf(self)

    def isfinite(self):
        return _ops.isfinite(self)

    def isposinf(self):
        return _ops.isposinf(self)

    def isneginf(self):
        return _ops.isneginf(self)

    def signbit(self):
        return _ops.signbit(self)


def _compared(op, t, other, arrays: bool = False):
    """``t == other`` / ``t != other``: anything the op refuses gets NotImplemented (Python then
    compares identities: ``t == None`` is False). With ``arrays``, a NumPy array compares as a
    tensor, as PyTorch's ``==`` takes it (its ``!=`` does not: ``t != ndarray`` is True)."""
    if not _comparable(other):
        return NotImplemented
    if arrays and other.__class__.__module__ == "numpy" and hasattr(other, "shape"):
        other = _ops.as_tensor(other)
    try:
        return op(t, other)
    except TypeError:
        return NotImplemented


def _comparable(other) -> bool:
    return (
        hasattr(other, "_data")
        or isinstance(other, (int, float, bool, complex))
        or hasattr(other, "dtype")
    )


def _inplace_view(self, v):
    """Metadata-only in-place ops (t_, squeeze_, ...): the tensor takes ``v``'s layout."""
    self._data = v._data
    return self


# Elementwise unary methods and their in-place forms: generated from one list because each
# is literally ``return ops.pointwise.<name>(self)``.
_UNARY = (
    "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh asinh "
    "acosh atanh reciprocal sigmoid erf erfc erfinv lgamma digamma neg negative abs absolute relu sign "
    "sgn floor ceil trunc fix frac"
).split()


def _unary_method(name):
    def method(self):
        return getattr(_ops, name)(self)

    method.__name__ = method.__qualname__ = name
    return method


for _n in _UNARY:
    setattr(TensorMethods, _n, _unary_method(_n))
    setattr(TensorMethods, _n + "_", _unary_method(_n + "_"))
TensorMethods.arcsin, TensorMethods.arccos, TensorMethods.arctan = (
    TensorMethods.asin,
    TensorMethods.acos,
    TensorMethods.atan,
)
TensorMethods.arcsinh, TensorMethods.arccosh, TensorMethods.arctanh = (
    TensorMethods.asinh,
    TensorMethods.acosh,
    TensorMethods.atanh,
)
del _n


# The aliases and late in-place methods (alias_methods.py) extend TensorMethods.
from . import alias_methods  # noqa: E402, F401
