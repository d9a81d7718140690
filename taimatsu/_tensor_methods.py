"""Tensor's op methods and operators: one-line delegates to ``taimatsu.ops``.

Kept apart from _tensor.py so that file stays about what a tensor *is*. The op modules
import Tensor, so they are bound here by ``_bind()`` once Tensor exists.
"""

from __future__ import annotations

from ._tensor_methods_structure import StructureMethods
from ._tensor_methods_structure import _bind as _bind_structure

_pw = _red = _sh = _ix = _la = _rnd = _cr = _so = None


def _bind() -> None:
    global _pw, _red, _sh, _ix, _la, _rnd, _cr, _so
    from .ops import creation as _cr
    from .ops import indexing as _ix
    from .ops import linalg as _la
    from .ops import pointwise as _pw
    from .ops import random as _rnd
    from .ops import reduction as _red
    from .ops import shape as _sh
    from .ops import sorting as _so
    from .ops import complex_stats, linalg_more, pointwise_more, shape_extra, shape_more

    _bind_structure()

    # Ops whose function takes the tensor first are methods as they are (``t.sinc()``).
    for module, names in (
        (pointwise_more, _POINTWISE_MORE),
        (shape_more, "diag diag_embed diagflat repeat_interleave unfold kron trace"),
        (linalg_more, "cross dist renorm renorm_"),
        (shape_extra, _SHAPE_EXTRA),
        (complex_stats, "cov corrcoef pinverse"),
    ):
        for name in names.split():
            setattr(TensorMethods, name, getattr(module, name))

    _bind_namespace_extra()


def _bind_namespace_extra() -> None:
    """Methods of the namespace completions (tests/test_namespace_extra.py)."""
    from .ops import copy_family, histogram, misc_more, special_more

    for module, names in (
        (special_more, "igamma igamma_ igammac igammac_"),
        (copy_family, "unsafe_chunk unsafe_split unsafe_split_with_sizes"),
        (histogram, "histogram"),
        (misc_more, "is_same_size index_reduce index_reduce_"),
    ):
        for name in names.split():
            setattr(TensorMethods, name, getattr(module, name))


_SHAPE_EXTRA = (
    "hsplit vsplit dsplit rot90 put put_ diagonal_scatter slice_scatter select_scatter as_strided_scatter "
    "narrow_copy split_with_sizes diff"
)
_POINTWISE_MORE = (
    "sinc sinc_ i0 i0_ rad2deg rad2deg_ deg2rad deg2rad_ logaddexp2 nextafter nextafter_ heaviside "
    "heaviside_ gcd gcd_ lcm lcm_ ldexp ldexp_ frexp mvlgamma mvlgamma_ isreal float_power_ logcumsumexp"
)


class TensorMethods(StructureMethods):
    __slots__ = ()

    # ---- operators -------------------------------------------------------------------------
    def __add__(self, other):
        return _pw._add(self, other)

    def __radd__(self, other):
        return _pw._add(self, other)

    def __iadd__(self, other):
        return _pw.add_(self, other)

    def __sub__(self, other):
        return _pw.sub(self, other)

    def __rsub__(self, other):
        return _pw.rsub(self, other)

    def __isub__(self, other):
        return _pw.sub_(self, other)

    def __mul__(self, other):
        return _pw.mul(self, other)

    def __rmul__(self, other):
        return _pw.mul(self, other)

    def __imul__(self, other):
        return _pw.mul_(self, other)

    def __truediv__(self, other):
        return _pw._true_div(self, other)

    def __rtruediv__(self, other):
        return _pw.mul(_pw.reciprocal(self), other)

    def __itruediv__(self, other):
        return _pw._true_div_(self, other)

    def __floordiv__(self, other):
        return _pw.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _pw.floor_divide(_cr.scalar_tensor(other, dtype=_pw.result_dtype(self, other), device=self._device), self)

    def __ifloordiv__(self, other):
        return _pw.floor_divide_(self, other)

    def __mod__(self, other):
        return _pw.remainder(self, other)

    def __rmod__(self, other):
        return _pw.remainder(other, self)

    def __imod__(self, other):
        return _pw.remainder_(self, other)

    def __pow__(self, other):
        return _pw.pow(self, other)

    def __rpow__(self, other):
        return _pw._rpow(self, other)

    def __ipow__(self, other):
        return _pw.pow_(self, other)

    def __matmul__(self, other):
        if not hasattr(other, "_data"):
            return NotImplemented
        return _la.matmul(self, other)

    def __rmatmul__(self, other):
        return _la.matmul(other, self)

    def __neg__(self):
        return _pw.neg(self)

    def __pos__(self):
        return _pw.positive(self)

    def __abs__(self):
        return _pw.abs(self)

    def __invert__(self):
        if self._dtype.is_floating_point or self._dtype.is_complex:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return _pw.logical_not(self) if self._dtype.name == "bool" else _pw.bitwise_not(self)

    def __and__(self, other):
        return _pw.bitwise_and(self, other)

    __rand__ = __and__

    def __iand__(self, other):
        return _pw.bitwise_and_(self, other)

    def __or__(self, other):
        return _pw.bitwise_or(self, other)

    __ror__ = __or__

    def __ior__(self, other):
        return _pw.bitwise_or_(self, other)

    def __xor__(self, other):
        return _pw.bitwise_xor(self, other)

    __rxor__ = __xor__

    def __ixor__(self, other):
        return _pw.bitwise_xor_(self, other)

    def __lshift__(self, other):
        return _pw.bitwise_left_shift(self, other)

    def __rshift__(self, other):
        return _pw.bitwise_right_shift(self, other)

    def __eq__(self, other):
        return _pw.eq(self, other) if _comparable(other) else False

    def __ne__(self, other):
        return _pw.ne(self, other) if _comparable(other) else True

    def __lt__(self, other):
        return _pw.lt(self, other)

    def __le__(self, other):
        return _pw.le(self, other)

    def __gt__(self, other):
        return _pw.gt(self, other)

    def __ge__(self, other):
        return _pw.ge(self, other)

    def __getitem__(self, index):
        return _ix.getitem(self, index)

    def __setitem__(self, index, value):
        _ix.setitem(self, index, value)

    # ---- arithmetic ------------------------------------------------------------------------------
    def add(self, other, *, alpha=1):
        return _pw.add(self, other, alpha=alpha)

    def add_(self, other, *, alpha=1):
        return _pw.add_(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return _pw.sub(self, other, alpha=alpha)

    def sub_(self, other, *, alpha=1):
        return _pw.sub_(self, other, alpha=alpha)

    subtract, subtract_ = sub, sub_

    def rsub(self, other, *, alpha=1):
        return _pw.rsub(self, other, alpha=alpha)

    def mul(self, other):
        return _pw.mul(self, other)

    def mul_(self, other):
        return _pw.mul_(self, other)

    multiply, multiply_ = mul, mul_

    def div(self, other, *, rounding_mode=None):
        return _pw.div(self, other, rounding_mode=rounding_mode)

    def div_(self, other, *, rounding_mode=None):
        return _pw.div_(self, other, rounding_mode=rounding_mode)

    divide, divide_ = div, div_

    def true_divide(self, other):
        return _pw.true_divide(self, other)

    def true_divide_(self, other):
        return _pw.true_divide_(self, other)

    def floor_divide(self, other):
        return _pw.floor_divide(self, other)

    def floor_divide_(self, other):
        return _pw.floor_divide_(self, other)

    def remainder(self, other):
        return _pw.remainder(self, other)

    def remainder_(self, other):
        return _pw.remainder_(self, other)

    def fmod(self, other):
        return _pw.fmod(self, other)

    def fmod_(self, other):
        return _pw.fmod_(self, other)

    def pow(self, exponent):
        return _pw.pow(self, exponent)

    def pow_(self, exponent):
        return _pw.pow_(self, exponent)

    def float_power(self, exponent):
        return _pw.float_power(self, exponent)

    def square(self):
        return _pw.square(self)

    def square_(self):
        return _pw.pow_(self, 2)

    def atan2(self, other):
        return _pw.atan2(self, other)

    def atan2_(self, other):
        return _pw.atan2_(self, other)

    arctan2, arctan2_ = atan2, atan2_

    def hypot(self, other):
        return _pw.hypot(self, other)

    def maximum(self, other):
        return _pw.maximum(self, other)

    def minimum(self, other):
        return _pw.minimum(self, other)

    def fmax(self, other):
        return _pw.fmax(self, other)

    def fmin(self, other):
        return _pw.fmin(self, other)

    def lerp(self, end, weight):
        return _pw.lerp(self, end, weight)

    def lerp_(self, end, weight):
        return _pw.lerp_(self, end, weight)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return _pw.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        return _pw.addcmul_(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return _pw.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        return _pw.addcdiv_(self, tensor1, tensor2, value=value)

    def clamp(self, min=None, max=None):  # noqa: A002
        return _pw.clamp(self, min, max)

    def clamp_(self, min=None, max=None):  # noqa: A002
        return _pw.clamp_(self, min, max)

    clip, clip_ = clamp, clamp_

    def clamp_min(self, min):  # noqa: A002
        return _pw.clamp_min(self, min)

    def clamp_min_(self, min):  # noqa: A002
        return _pw.clamp_min_(self, min)

    def clamp_max(self, max):  # noqa: A002
        return _pw.clamp_max(self, max)

    def clamp_max_(self, max):  # noqa: A002
        return _pw.clamp_max_(self, max)

    def masked_fill(self, mask, value):
        return _pw.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        return _pw.masked_fill_(self, mask, value)

    def where(self, condition, other):
        return _pw.where(condition, self, other)

    def round(self, *, decimals=0):
        return _pw.round(self, decimals=decimals)

    def round_(self, *, decimals=0):
        return _pw.round_(self, decimals=decimals)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _pw.nan_to_num(self, nan, posinf, neginf)

    def conj(self):
        return _pw.conj(self)

    def conj_physical(self):
        return _pw.conj_physical(self)

    def conj_physical_(self):
        return _pw.conj_physical_(self)

    def polygamma(self, n):
        return _pw.polygamma(n, self)

    def logit(self, eps=None):
        return _pw.logit(self, eps)

    def xlogy(self, other):
        return _pw.xlogy(self, other)

    def logaddexp(self, other):
        return _pw.logaddexp(self, other)

    def copysign(self, other):
        return _pw.copysign(self, other)

    def copysign_(self, other):
        return _pw.copysign_(self, other)

    def xlogy_(self, other):
        return _pw.xlogy_(self, other)

    def logit_(self, eps=None):
        return _pw.logit_(self, eps)

    def hypot_(self, other):
        return _pw.hypot_(self, other)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        return _pw.nan_to_num_(self, nan, posinf, neginf)

    def logical_not_(self):
        return _pw.logical_not_(self)

    def logical_and_(self, other):
        return _pw.logical_and_(self, other)

    def logical_or_(self, other):
        return _pw.logical_or_(self, other)

    def logical_xor_(self, other):
        return _pw.logical_xor_(self, other)

    def bitwise_not_(self):
        return _pw.bitwise_not_(self)

    def bitwise_and_(self, other):
        return _pw.bitwise_and_(self, other)

    def bitwise_or_(self, other):
        return _pw.bitwise_or_(self, other)

    def bitwise_xor_(self, other):
        return _pw.bitwise_xor_(self, other)

    def bitwise_left_shift(self, other):
        return _pw.bitwise_left_shift(self, other)

    def bitwise_left_shift_(self, other):
        return _pw.bitwise_left_shift_(self, other)

    def bitwise_right_shift(self, other):
        return _pw.bitwise_right_shift(self, other)

    def bitwise_right_shift_(self, other):
        return _pw.bitwise_right_shift_(self, other)

    def angle(self):
        return _pw.angle(self)

    @property
    def real(self):
        return _pw.real(self)

    @real.setter
    def real(self, value):
        _pw.real(self).copy_(value)  # x.real = v writes into x's memory, as in PyTorch

    @property
    def imag(self):
        return _pw.imag(self)

    @imag.setter
    def imag(self, value):
        _pw.imag(self).copy_(value)

    # comparisons / logical
    def eq(self, other):
        return _pw.eq(self, other)

    def ne(self, other):
        return _pw.ne(self, other)

    def lt(self, other):
        return _pw.lt(self, other)

    def le(self, other):
        return _pw.le(self, other)

    def gt(self, other):
        return _pw.gt(self, other)

    def ge(self, other):
        return _pw.ge(self, other)

    def eq_(self, other):
        return _pw.eq_(self, other)

    def ne_(self, other):
        return _pw.ne_(self, other)

    def lt_(self, other):
        return _pw.lt_(self, other)

    def le_(self, other):
        return _pw.le_(self, other)

    def gt_(self, other):
        return _pw.gt_(self, other)

    def ge_(self, other):
        return _pw.ge_(self, other)

    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    def equal(self, other):
        return _pw.equal(self, other)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _pw.allclose(self, other, rtol, atol, equal_nan)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _pw.isclose(self, other, rtol, atol, equal_nan)

    def logical_and(self, other):
        return _pw.logical_and(self, other)

    def logical_or(self, other):
        return _pw.logical_or(self, other)

    def logical_xor(self, other):
        return _pw.logical_xor(self, other)

    def logical_not(self):
        return _pw.logical_not(self)

    def bitwise_and(self, other):
        return _pw.bitwise_and(self, other)

    def bitwise_or(self, other):
        return _pw.bitwise_or(self, other)

    def bitwise_xor(self, other):
        return _pw.bitwise_xor(self, other)

    def bitwise_not(self):
        return _pw.bitwise_not(self)

    def isnan(self):
        return _pw.isnan(self)

    def isinf(self):
        return _pw.isinf(self)

    def isfinite(self):
        return _pw.isfinite(self)

    def isposinf(self):
        return _pw.isposinf(self)

    def isneginf(self):
        return _pw.isneginf(self)

    def signbit(self):
        return _pw.signbit(self)

def _comparable(other) -> bool:
    return hasattr(other, "_data") or isinstance(other, (int, float, bool, complex)) or hasattr(other, "dtype")


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
        return getattr(_pw, name)(self)

    method.__name__ = method.__qualname__ = name
    return method


for _n in _UNARY:
    setattr(TensorMethods, _n, _unary_method(_n))
    setattr(TensorMethods, _n + "_", _unary_method(_n + "_"))
TensorMethods.arcsin, TensorMethods.arccos, TensorMethods.arctan = TensorMethods.asin, TensorMethods.acos, TensorMethods.atan
TensorMethods.arcsinh, TensorMethods.arccosh, TensorMethods.arctanh = TensorMethods.asinh, TensorMethods.acosh, TensorMethods.atanh
del _n


# The late-bound methods (top-level-function methods, in-place aliases, cumsum_/polygamma_/
# scatter_reduce_/as_strided_) live in _tensor_methods_more.py (house size limit). Imported last:
# it binds onto TensorMethods and the unary methods above. (_polygamma1, its lazily built node
# class, is a module global there and deliberately not copied here.)
from ._tensor_methods_more import (  # noqa: E402, F401
    _as_strided1, _as_strided1_class, _as_strided_, _cumprod_, _cumsum_, _polygamma_,
    _scatter_reduce_, _top_level_method,
)  # fmt: skip
