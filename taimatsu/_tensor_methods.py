"""Tensor's op methods and operators: one-line delegates to ``taimatsu.ops``.

Kept apart from _tensor.py so that file stays about what a tensor *is*. The op modules
import Tensor, so they are bound here by ``_bind()`` once Tensor exists.
"""

from __future__ import annotations

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
    from .ops import linalg_more, pointwise_more, shape_more

    # Ops whose function takes the tensor first are methods as they are (``t.sinc()``).
    for module, names in (
        (pointwise_more, _POINTWISE_MORE),
        (shape_more, "diag diag_embed diagflat repeat_interleave unfold kron trace"),
        (linalg_more, "cross dist renorm renorm_"),
    ):
        for name in names.split():
            setattr(TensorMethods, name, getattr(module, name))


_POINTWISE_MORE = (
    "sinc sinc_ i0 i0_ rad2deg rad2deg_ deg2rad deg2rad_ logaddexp2 nextafter nextafter_ heaviside "
    "heaviside_ gcd gcd_ lcm lcm_ ldexp ldexp_ frexp mvlgamma mvlgamma_ isreal float_power_ logcumsumexp"
)


class TensorMethods:
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
        return _pw.remainder(_cr.scalar_tensor(other, dtype=_pw.result_dtype(self, other), device=self._device), self)

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

    @property
    def imag(self):
        return _pw.imag(self)

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

    # ---- reductions -------------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return _red.sum(self, dim, keepdim, dtype=dtype)

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        return _red.nansum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return _red.mean(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        return _red.nanmean(self, dim, keepdim, dtype=dtype)

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return _red.prod(self, dim, keepdim, dtype=dtype)

    def max(self, dim=None, keepdim=False):
        return _red.max(self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        return _red.min(self, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        return _red.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return _red.amin(self, dim, keepdim)

    def aminmax(self, *, dim=None, keepdim=False):
        return _red.aminmax(self, dim=dim, keepdim=keepdim)

    def argmax(self, dim=None, keepdim=False):
        return _red.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return _red.argmin(self, dim, keepdim)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _red.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _red.std(self, dim, unbiased, keepdim, correction=correction)

    def median(self, dim=None, keepdim=False):
        return _red.median(self, dim, keepdim)

    def logsumexp(self, dim, keepdim=False):
        return _red.logsumexp(self, dim, keepdim)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _red.norm(self, p, dim, keepdim, dtype)

    def all(self, dim=None, keepdim=False):
        return _red.all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return _red.any(self, dim, keepdim)

    def count_nonzero(self, dim=None):
        return _red.count_nonzero(self, dim)

    def cumsum(self, dim, *, dtype=None):
        return _red.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        return _red.cumprod(self, dim, dtype=dtype)

    # ---- sorting (ops/sorting.py) ------------------------------------------------------------------
    def sort(self, dim=-1, descending=False, *, stable=None):
        return _so.sort(self, dim, descending, stable=stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return _so.argsort(self, dim, descending, stable)

    def msort(self):
        return _so.msort(self)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        return _so.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k, dim=-1, keepdim=False):
        return _so.kthvalue(self, k, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        return _so.mode(self, dim, keepdim)

    def nanmedian(self, dim=None, keepdim=False):
        return _so.nanmedian(self, dim, keepdim)

    def cummax(self, dim):
        return _so.cummax(self, dim)

    def cummin(self, dim):
        return _so.cummin(self, dim)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return _so.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return _so.unique_consecutive(self, return_inverse, return_counts, dim)

    def histc(self, bins=100, min=0, max=0):
        return _so.histc(self, bins, min, max)

    def bincount(self, weights=None, minlength=0):
        return _so.bincount(self, weights, minlength)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _so.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _so.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    # ---- shape ------------------------------------------------------------------------------------------
    def view(self, *shape):
        return _sh.view(self, *shape)

    def view_as(self, other):
        return _sh.view_as(self, other)

    def reshape(self, *shape):
        return _sh.reshape(self, *shape)

    def reshape_as(self, other):
        return _sh.reshape_as(self, other)

    def flatten(self, start_dim=0, end_dim=-1):
        return _sh.flatten(self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        return _sh.unflatten(self, dim, sizes)

    def ravel(self):
        return _sh.ravel(self)

    def transpose(self, dim0, dim1):
        return _sh.transpose(self, dim0, dim1)

    swapaxes = swapdims = transpose

    def transpose_(self, dim0, dim1):
        return _sh.transpose_(self, dim0, dim1)

    swapaxes_ = swapdims_ = transpose_

    def t(self):
        return _sh.t(self)

    def t_(self):
        return _sh.t_(self)

    @property
    def T(self):  # noqa: N802
        return _sh.permute(self, tuple(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self):  # noqa: N802
        return _sh.transpose(self, -2, -1)

    @property
    def H(self):  # noqa: N802
        return _sh.t(self).conj() if self.dim() == 2 else self.T.conj()

    @property
    def mH(self):  # noqa: N802
        return _sh.adjoint(self)

    def adjoint(self):
        return _sh.adjoint(self)

    def permute(self, *dims):
        return _sh.permute(self, *dims)

    def movedim(self, source, destination):
        return _sh.movedim(self, source, destination)

    moveaxis = movedim

    def expand(self, *sizes):
        return _sh.expand(self, *sizes)

    def expand_as(self, other):
        return _sh.expand_as(self, other)

    def broadcast_to(self, size):
        return _sh.broadcast_to(self, size)

    def squeeze(self, dim=None):
        return _sh.squeeze(self, dim)

    def unsqueeze(self, dim):
        return _sh.unsqueeze(self, dim)

    def squeeze_(self, dim=None):
        return _sh.squeeze_(self, dim)

    def unsqueeze_(self, dim):
        return _sh.unsqueeze_(self, dim)

    def narrow(self, dim, start, length):
        return _sh.narrow(self, dim, start, length)

    def select(self, dim, index):
        return _sh.select(self, dim, index)

    def unbind(self, dim=0):
        return _sh.unbind(self, dim)

    def split(self, split_size, dim=0):
        return _sh.split(self, split_size, dim)

    def tensor_split(self, indices_or_sections, dim=0):
        return _sh.tensor_split(self, indices_or_sections, dim)

    def chunk(self, chunks, dim=0):
        return _sh.chunk(self, chunks, dim)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return _sh.diagonal(self, offset, dim1, dim2)

    def as_strided(self, size, stride, storage_offset=None):
        return _sh.as_strided(self, size, stride, storage_offset)

    def contiguous(self, memory_format=None):
        return _sh.contiguous(self)

    def clone(self, *, memory_format=None):
        return _sh.clone(self) if memory_format is None else _sh.clone(self, memory_format=memory_format)

    def repeat(self, *sizes):
        return _sh.repeat(self, *sizes)

    def tile(self, dims):
        return _sh.tile(self, dims)

    def flip(self, *dims):
        return _sh.flip(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)

    def fliplr(self):
        return _sh.fliplr(self)

    def flipud(self):
        return _sh.flipud(self)

    def roll(self, shifts, dims=None):
        return _sh.roll(self, shifts, dims)

    def tril(self, diagonal=0):
        return _sh.tril(self, diagonal)

    def triu(self, diagonal=0):
        return _sh.triu(self, diagonal)

    def tril_(self, diagonal=0):
        return _pw.inplace(self, lambda s: _sh.tril(s, diagonal), (), False)

    def triu_(self, diagonal=0):
        return _pw.inplace(self, lambda s: _sh.triu(s, diagonal), (), False)

    # ---- indexing -----------------------------------------------------------------------------------
    def gather(self, dim, index):
        return _ix.gather(self, dim, index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        return _ix.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        return _ix.scatter_(self, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim, index, src):
        return _ix.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        return _ix.scatter_add_(self, dim, index, src)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return _ix.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def index_select(self, dim, index):
        return _ix.index_select(self, dim, index)

    def index_add(self, dim, index, source, *, alpha=1):
        return _ix.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        return _ix.index_add_(self, dim, index, source, alpha=alpha)

    def index_fill(self, dim, index, value):
        return _ix.index_fill(self, dim, index, value)

    def index_fill_(self, dim, index, value):
        return _ix.index_fill_(self, dim, index, value)

    def index_copy(self, dim, index, source):
        return _ix.index_copy(self, dim, index, source)

    def index_copy_(self, dim, index, source):
        return _ix.index_copy_(self, dim, index, source)

    def index_put(self, indices, values, accumulate=False):
        return _ix.index_put(self, indices, values, accumulate)

    def index_put_(self, indices, values, accumulate=False):
        return _ix.index_put_(self, indices, values, accumulate)

    def masked_select(self, mask):
        return _ix.masked_select(self, mask)

    def masked_scatter(self, mask, source):
        return _ix.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask, source):
        return _ix.masked_scatter_(self, mask, source)

    def nonzero(self, *, as_tuple=False):
        return _ix.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        return _ix.argwhere(self)

    def take(self, index):
        return _ix.take(self, index)

    def take_along_dim(self, indices, dim=None):
        return _ix.take_along_dim(self, indices, dim)

    def copy_(self, src, non_blocking=False):
        return _ix.copy_(self, src, non_blocking)

    def zero_(self):
        return _ix.zero_(self)

    def fill_(self, value):
        return _ix.fill_(self, value)

    # ---- linear algebra --------------------------------------------------------------------------------
    def matmul(self, other):
        return _la.matmul(self, other)

    def mm(self, mat2):
        return _la.mm(self, mat2)

    def mv(self, vec):
        return _la.mv(self, vec)

    def dot(self, other):
        return _la.dot(self, other)

    def vdot(self, other):
        return _la.vdot(self, other)

    def inner(self, other):
        return _la.inner(self, other)

    def bmm(self, mat2):
        return _la.bmm(self, mat2)

    def outer(self, vec2):
        return _la.outer(self, vec2)

    ger = outer

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _la.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        return _pw.inplace(self, lambda s: _la.addmm(s, mat1, mat2, beta=beta, alpha=alpha), (), True)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return _la.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        return _pw.inplace(self, lambda s: _la.addmv(s, mat, vec, beta=beta, alpha=alpha), (), True)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        return _la.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        return _pw.inplace(self, lambda s: _la.addr(s, vec1, vec2, beta=beta, alpha=alpha), (), True)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _la.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return _pw.inplace(self, lambda s: _la.baddbmm(s, batch1, batch2, beta=beta, alpha=alpha), (), True)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _la.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return _pw.inplace(self, lambda s: _la.addbmm(s, batch1, batch2, beta=beta, alpha=alpha), (), True)

    # ---- random (in place) -------------------------------------------------------------------------------
    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        return _rnd.uniform_(self, from_, to, generator=generator)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return _rnd.normal_(self, mean, std, generator=generator)

    def random_(self, from_=None, to=None, *, generator=None):
        return _rnd.random_(self, from_, to, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        return _rnd.bernoulli_(self, p, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        return _rnd.bernoulli(self, p, generator=generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        return _rnd.exponential_(self, lambd, generator=generator)

    def geometric_(self, p, *, generator=None):
        return _rnd.geometric_(self, p, generator=generator)

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        return _rnd.cauchy_(self, median, sigma, generator=generator)

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        return _rnd.log_normal_(self, mean, std, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return _rnd.multinomial(self, num_samples, replacement, generator=generator)

    # ---- nn ops (taimatsu.nn._torch_functions) -------------------------------------------------
    def softmax(self, dim, dtype=None):
        from .nn import _torch_functions as _tf

        return _tf.softmax(self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        from .nn import _torch_functions as _tf

        return _tf.log_softmax(self, dim, dtype)

    def prelu(self, weight):
        from .nn import _torch_functions as _tf

        return _tf.prelu(self, weight)

    def hardshrink(self, lambd=0.5):
        from .nn import _torch_functions as _tf

        return _tf.hardshrink(self, lambd)


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
