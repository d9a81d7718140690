"""Tensor methods for reductions, sorting, shape, indexing, linear algebra, random sampling and
nn ops: one-line delegates to ``taimatsu.ops`` (the arithmetic and pointwise ones are in
_tensor/methods.py, which binds this module's op modules too)."""

from __future__ import annotations

_ops = None  # every op, by name: op_namespace.py
_ABSENT = object()  # an argument not passed, where passing None means something else


def _bind(ops) -> None:
    """``ops``: methods.py's namespace (built once: the walk over every op module takes ~50 ms)."""
    global _ops
    _ops = ops


class StructureMethods:
    __slots__ = ()

    # ---- reductions -------------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.sum(self, dim, keepdim, dtype=dtype)

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.nansum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.mean(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.nanmean(self, dim, keepdim, dtype=dtype)

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.prod(self, dim, keepdim, dtype=dtype)

    def max(self, dim=_ABSENT, keepdim=False):
        return _ops.max_min_method("max", self, dim is _ABSENT, dim, keepdim)

    def min(self, dim=_ABSENT, keepdim=False):
        return _ops.max_min_method("min", self, dim is _ABSENT, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        return _ops.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return _ops.amin(self, dim, keepdim)

    def aminmax(self, *, dim=None, keepdim=False):
        return _ops.aminmax(self, dim=dim, keepdim=keepdim)

    def argmax(self, dim=None, keepdim=False):
        return _ops.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return _ops.argmin(self, dim, keepdim)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _ops.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _ops.std(self, dim, unbiased, keepdim, correction=correction)

    def median(self, dim=None, keepdim=False):
        return _ops.median(self, dim, keepdim)

    def logsumexp(self, dim, keepdim=False):
        return _ops.logsumexp(self, dim, keepdim)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _ops.norm(self, p, dim, keepdim, dtype=dtype)

    def all(self, dim=None, keepdim=False):
        return _ops.all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return _ops.any(self, dim, keepdim)

    def count_nonzero(self, dim=None):
        return _ops.count_nonzero(self, dim)

    def cumsum(self, dim, *, dtype=None):
        return _ops.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        return _ops.cumprod(self, dim, dtype=dtype)

    # ---- sorting (ops/sorting/sort.py) ------------------------------------------------------------------
    def sort(self, dim=-1, descending=False, *, stable=None):
        return _ops.sort(self, dim, descending, stable=stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return _ops.argsort(self, dim, descending, stable)

    def msort(self):
        return _ops.msort(self)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        return _ops.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k, dim=-1, keepdim=False):
        return _ops.kthvalue(self, k, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        return _ops.mode(self, dim, keepdim)

    def nanmedian(self, dim=None, keepdim=False):
        return _ops.nanmedian(self, dim, keepdim)

    def cummax(self, dim):
        return _ops.cummax(self, dim)

    def cummin(self, dim):
        return _ops.cummin(self, dim)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return _ops.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return _ops.unique_consecutive(self, return_inverse, return_counts, dim)

    def histc(self, bins=100, min=0, max=0):
        return _ops.histc(self, bins, min, max)

    def bincount(self, weights=None, minlength=0):
        return _ops.bincount(self, weights, minlength)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _ops.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _ops.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    # ---- shape ------------------------------------------------------------------------------------------
    def view(self, *shape, **kw):
        if kw or not shape:  # view(size=...), view(dtype=...), view(): PyTorch's parser
            if not shape and list(kw) == ["dtype"]:
                return _ops.view(self, kw["dtype"])
            if not shape and not kw:
                raise TypeError(
                    "view() received an invalid combination of arguments - got (), but expected one of:\n"
                    " * (torch.dtype dtype)\n * (tuple of ints size)\n"
                )
            shape = _keyword_sizes("view", shape, kw, "size")
        return _ops.view(self, *shape)

    def view_as(self, other):
        if not isinstance(other, StructureMethods):  # (guard_methods words PyTorch's text)
            raise TypeError("view_as: other must be a Tensor")
        return _ops.view_as(self, other)

    def reshape(self, *shape, **kw):
        if kw or not shape:
            shape = _keyword_sizes("reshape", shape, kw, "shape")
        return _ops.reshape(self, *shape)

    def reshape_as(self, other):
        if not isinstance(other, StructureMethods):  # (guard_methods words PyTorch's text)
            raise TypeError("reshape_as: other must be a Tensor")
        return _ops.reshape_as(self, other)

    def flatten(self, start_dim=0, end_dim=-1):
        return _ops.flatten(self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        return _ops.unflatten(self, dim, sizes)

    def ravel(self):
        return _ops.ravel(self)

    def transpose(self, dim0, dim1):
        return _ops.transpose(self, dim0, dim1)

    swapdims = transpose

    def swapaxes(self, axis0, axis1):  # PyTorch names this one's arguments axis0/axis1
        return self.transpose(axis0, axis1)

    def transpose_(self, dim0, dim1):
        return _ops.transpose_(self, dim0, dim1)

    swapdims_ = transpose_

    def swapaxes_(self, axis0, axis1):
        return self.transpose_(axis0, axis1)

    def t(self):
        return _ops.t(self)

    def t_(self):
        return _ops.t_(self)

    @property
    def T(self):  # noqa: N802
        if self._data.ndim != 2:
            _deprecated_T(self._data.ndim)
        return _ops.permute(self, tuple(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self):  # noqa: N802
        if _ops.matrices_only(
            self, "Tensor.mT", "tensor.mT", "This function is the identity in these cases", 4373
        ):
            return _ops.transpose(self, -2, -1)
        return self

    @property
    def H(self):  # noqa: N802
        n = self._data.ndim
        if n == 2:
            return _ops.t(self).conj()
        if n == 0:
            _ops.matrices_only(self, "Tensor.H", "", "Consider using x.conj()", 4335)
            return self.conj()
        more = " For batches of matrices, consider using tensor.mH" if n > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{more}"
        )

    @property
    def mH(self):  # noqa: N802
        if _ops.matrices_only(self, "Tensor.mH", "tensor.mH", "Consider using x.conj()", 4382):
            return _ops.adjoint(self)
        return self.conj()

    def adjoint(self):
        if not _ops.adjoint_applies(self):  # (1-D: an error; 0-D: a warning, as PyTorch's)
            return self.conj()
        return _ops.adjoint(self)

    def permute(self, *dims, **kw):
        if kw or not dims:
            dims = _keyword_sizes("permute", dims, kw, "dims")
        return _ops.permute(self, *dims)

    def movedim(self, source, destination):
        return _ops.movedim(self, source, destination)

    moveaxis = movedim

    def expand(self, *sizes, **kw):
        if kw or not sizes:
            sizes = _keyword_sizes("expand", sizes, kw, "size")
        return _ops.expand(self, *sizes)

    def expand_as(self, other):
        if not isinstance(other, StructureMethods):  # (guard_methods words PyTorch's text)
            raise TypeError("expand_as: other must be a Tensor")
        return _ops.expand_as(self, other)

    def broadcast_to(self, size):
        return _ops.broadcast_to(self, size)

    def sum_to_size(self, *size):
        """Sum down to ``size`` (which must expand to this shape): the adjoint of ``expand``."""
        if not size:
            raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = size[0]
        size, shape = tuple(int(s) for s in size), tuple(self._data.shape)
        lead = len(shape) - len(size)
        if lead < 0 or any(s not in (1, n) for s, n in zip(size, shape[lead:])):
            raise RuntimeError(
                f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}."
            )
        return _ops.sum_to(self, size)

    def squeeze(self, *dim, **kw):
        # No dim squeezes every size-1 dim; an explicit None matches none of PyTorch's overloads.
        if (dim and dim[0] is None) or ("dim" in kw and kw["dim"] is None):
            given = ", ".join(
                ["NoneType"] * len(dim) + [f"{k}={type(v).__name__}" for k, v in kw.items()]
            )
            raise TypeError(
                f"squeeze() received an invalid combination of arguments - got ({given})"
            )
        if len(dim) > 1:  # x.squeeze(0, 1): the dims as varargs, as PyTorch's int[] takes them
            dim = (dim,)
        return _ops.squeeze(self, *dim, **kw)

    def unsqueeze(self, dim):
        return _ops.unsqueeze(self, dim)

    def squeeze_(self, *dim, **kw):
        if len(dim) > 1:  # x.squeeze_(0, 1), as squeeze
            dim = (dim,)
        return _ops.squeeze_(self, *dim, **kw)

    def unsqueeze_(self, dim):
        return _ops.unsqueeze_(self, dim)

    def narrow(self, dim, start, length):
        return _ops.narrow(self, dim, start, length)

    def select(self, dim, index):
        return _ops.select(self, dim, index)

    def unbind(self, dim=0):
        return _ops.unbind(self, dim)

    def split(self, split_size, dim=0):
        return _ops.split(self, split_size, dim)

    def tensor_split(self, *args, **kw):
        return _ops.tensor_split(self, *args, **kw)

    def chunk(self, chunks, dim=0):
        return _ops.chunk(self, chunks, dim)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return _ops.diagonal(self, offset, dim1, dim2)

    def as_strided(self, size, stride, storage_offset=None):
        return _ops.as_strided(self, size, stride, storage_offset)

    def contiguous(self, memory_format=None):
        return (
            _ops.contiguous(self) if memory_format is None else _ops.contiguous(self, memory_format)
        )

    def clone(self, *, memory_format=None):
        return (
            _ops.clone(self)
            if memory_format is None
            else _ops.clone(self, memory_format=memory_format)
        )

    def repeat(self, *sizes, **kw):
        if kw or not sizes:
            sizes = _keyword_sizes("repeat", sizes, kw, "repeats")
        return _ops.repeat(self, *sizes)

    def tile(self, dims):
        return _ops.tile(self, dims)

    def flip(self, *dims, **kw):
        if kw or not dims:
            return _ops.flip(self, *dims, **kw)
        return _ops.flip(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)

    def fliplr(self):
        return _ops.fliplr(self)

    def flipud(self):
        return _ops.flipud(self)

    def roll(self, shifts, dims=None):
        return _ops.roll(self, shifts, dims)

    def tril(self, diagonal=0):
        return _ops.tril(self, diagonal)

    def triu(self, diagonal=0):
        return _ops.triu(self, diagonal)

    def tril_(self, diagonal=0):
        return _ops.inplace(self, lambda s: _ops.tril(s, diagonal), (), False)

    def triu_(self, diagonal=0):
        return _ops.inplace(self, lambda s: _ops.triu(s, diagonal), (), False)

    # ---- indexing -----------------------------------------------------------------------------------
    def gather(self, dim, index):
        return _ops.gather(self, dim, index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        return _ops.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        return _ops.scatter_(self, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim, index, src):
        return _ops.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        return _ops.scatter_add_(self, dim, index, src)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return _ops.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def index_select(self, dim, index):
        return _ops.index_select(self, dim, index)

    def index_add(self, dim, index, source, *, alpha=1):
        return _ops.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        return _ops.index_add_(self, dim, index, source, alpha=alpha)

    def index_fill(self, dim, index, value):
        return _ops.index_fill(self, dim, index, value)

    def index_fill_(self, dim, index, value):
        return _ops.index_fill_(self, dim, index, value)

    def index_copy(self, dim, index, source):
        return _ops.index_copy(self, dim, index, source)

    def index_copy_(self, dim, index, source):
        return _ops.index_copy_(self, dim, index, source)

    def index_put(self, indices, values, accumulate=False):
        return _ops.index_put(self, indices, values, accumulate)

    def index_put_(self, indices, values, accumulate=False):
        return _ops.index_put_(self, indices, values, accumulate)

    def masked_select(self, mask):
        return _ops.masked_select(self, mask)

    def masked_scatter(self, mask, source):
        return _ops.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask, source):
        return _ops.masked_scatter_(self, mask, source)

    def nonzero(self, *, as_tuple=False):
        return _ops.nonzero(self, as_tuple=as_tuple)

    def hash_tensor(self, dim=None, *, keepdim=False, mode=0):
        from ..ops.reduction.hashing import hash_tensor

        return hash_tensor(self, dim, keepdim=keepdim, mode=mode)

    def stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
             normalized=False, onesided=None, return_complex=None, align_to_window=None):  # fmt: skip
        from ..ops.short_time_fourier import stft

        return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                    return_complex, align_to_window)  # fmt: skip

    def istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
              onesided=None, length=None, return_complex=False):  # fmt: skip
        from ..ops.short_time_fourier import istft

        return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                     return_complex)  # fmt: skip

    def nonzero_static(self, *, size, fill_value=-1):
        return _ops.nonzero_static(self, size=size, fill_value=fill_value)

    def argwhere(self):
        return _ops.argwhere(self)

    def take(self, index):
        return _ops.take(self, index)

    def take_along_dim(self, indices, dim=None):
        return _ops.take_along_dim(self, indices, dim)

    def copy_(self, src, non_blocking=False):
        return _ops.copy_(self, src, non_blocking)

    def zero_(self):
        return _ops.zero_(self)

    def fill_(self, value):
        return _ops.fill_(self, value)

    def fill_diagonal_(self, fill_value, wrap=False):
        return _ops.fill_diagonal_(self, fill_value, wrap)

    # ---- linear algebra --------------------------------------------------------------------------------
    def matmul(self, other):
        return _ops.matmul(self, other)

    def mm(self, mat2):
        return _ops.mm(self, mat2)

    def mv(self, vec):
        return _ops.mv(self, vec)

    def dot(self, other):
        return _ops.dot(self, other)

    def vdot(self, other):
        return _ops.vdot(self, other)

    def inner(self, other):
        return _ops.inner(self, other)

    def bmm(self, mat2):
        return _ops.bmm(self, mat2)

    def outer(self, vec2):
        return _ops.outer(self, vec2)

    ger = outer

    def matrix_exp(self):
        from ..linalg.structured import matrix_exp

        return matrix_exp(self)

    def orgqr(self, input2):
        from ..linalg.structured import householder_product

        return householder_product(self, input2)

    def ormqr(self, input2, input3, left=True, transpose=False):
        from ..linalg.legacy import ormqr

        return ormqr(self, input2, input3, left, transpose)

    def geqrf(self):
        from ..linalg.legacy import geqrf

        return geqrf(self)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        from ..linalg.legacy import triangular_solve

        return triangular_solve(self, A, upper, transpose, unitriangular)

    def lu(self, pivot=True, get_infos=False):
        from ..linalg.legacy import lu

        return lu(self, pivot, get_infos)

    def lu_solve(self, LU_data, LU_pivots):
        from ..linalg.legacy import lu_solve

        return lu_solve(self, LU_data, LU_pivots)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        return _ops.inplace(  # (mat1 and mat2 are inputs of the graph too; self is not saved)
            self, lambda s, a, b: _ops.addmm(s, a, b, beta=beta, alpha=alpha), (mat1, mat2), False
        )

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return _ops.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        return _ops.inplace(  # (mat and vec are inputs of the graph too; self is not saved)
            self, lambda s, a, b: _ops.addmv(s, a, b, beta=beta, alpha=alpha), (mat, vec), False
        )

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        return _ops.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        return _ops.inplace(  # (vec1 and vec2 are inputs of the graph too; self is not saved)
            self, lambda s, a, b: _ops.addr(s, a, b, beta=beta, alpha=alpha), (vec1, vec2), False
        )

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _ops.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return _ops.inplace(  # (batch1 and batch2 are inputs of the graph too; self is not saved)
            self,
            lambda s, a, b: _ops.baddbmm(s, a, b, beta=beta, alpha=alpha),
            (batch1, batch2),
            False,
        )

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _ops.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return _ops.inplace(  # (batch1 and batch2 are inputs of the graph too; self is not saved)
            self,
            lambda s, a, b: _ops.addbmm(s, a, b, beta=beta, alpha=alpha),
            (batch1, batch2),
            False,
        )

    # ---- random (in place) -------------------------------------------------------------------------------
    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        return _ops.uniform_(self, from_, to, generator=generator)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return _ops.normal_(self, mean, std, generator=generator)

    def random_(self, *args, **kwargs):
        return _ops.random_(self, *args, **kwargs)

    def bernoulli_(self, p=0.5, *, generator=None):
        return _ops.bernoulli_(self, p, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        return _ops.bernoulli(self, p, generator=generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        return _ops.exponential_(self, lambd, generator=generator)

    def geometric_(self, p, *, generator=None):
        return _ops.geometric_(self, p, generator=generator)

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        return _ops.cauchy_(self, median, sigma, generator=generator)

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        return _ops.log_normal_(self, mean, std, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return _ops.multinomial(self, num_samples, replacement, generator=generator)

    # ---- nn ops (taimatsu.nn._torch_functions) -------------------------------------------------
    def softmax(self, dim, dtype=None):
        from ..nn import _torch_functions as _tf

        return _tf.softmax(self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        from ..nn import _torch_functions as _tf

        return _tf.log_softmax(self, dim, dtype)

    def prelu(self, weight):
        from ..nn import _torch_functions as _tf

        return _tf.prelu(self, weight)

    def hardshrink(self, lambd=0.5):
        from ..nn import _torch_functions as _tf

        return _tf.hardshrink(self, lambd)


def _keyword_sizes(name: str, sizes: tuple, kw: dict, arg: str) -> tuple:
    """A shape method's sizes given as ``*sizes`` or as PyTorch's keyword (``view(size=)``,
    ``reshape(shape=)``, ``permute(dims=)``, ``repeat(repeats=)``), with PyTorch's TypeErrors
    for both, neither, or another keyword."""
    from ..ops.creation.factories import NO_SIZE, size_keyword

    given = kw.pop(arg, NO_SIZE)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
    return size_keyword(name, sizes, given, arg=arg)


def _deprecated_T(ndim: int) -> None:
    """PyTorch's once-per-process warnings for ``x.T`` on a tensor that is not a matrix."""
    from .._flags import warn_once

    if ndim == 0:
        warn_once(
            "T_0d",
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
            "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)",
            stacklevel=4,
        )
    else:
        warn_once(
            "T_nd",
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
            "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
            "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
            "tensor. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)",
            stacklevel=4,
        )
