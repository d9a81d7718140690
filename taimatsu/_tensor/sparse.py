"""Sparse tensors (``torch.sparse_coo`` and the compressed layouts ``sparse_csr``/``csc``/``bsr``/``bsc``).

A sparse tensor is a ``SparseTensor``: a ``Tensor`` subclass whose ``_data`` slot holds a small
``SparseData`` payload (index arrays, a values array, the logical shape) instead of a NumPy/CuPy
array. The dense hot path is untouched: the payload answers ``shape``/``ndim``/``size`` so the
metadata methods (``shape``, ``dim()``, ``numel()``, autograd's shape checks) work as they are,
and any dense kernel that reaches it through NumPy raises PyTorch's "Could not run 'aten::...'
with arguments from the 'SparseCPU' backend" NotImplementedError (add/sub/mul densify instead,
so ``dense.add_(sparse, alpha=...)`` -- SGD with a sparse gradient -- works as in PyTorch).

The sparse operations themselves live in ``taimatsu.sparse`` and are backed by ``scipy.sparse``
on the CPU (``cupyx.scipy.sparse`` would serve CUDA tensors; that path is unverified).

Deviation: ``type(s)`` is ``SparseTensor``, a subclass of ``Tensor`` (PyTorch: ``torch.Tensor``);
``isinstance(s, torch.Tensor)`` holds as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr
from .core import Tensor, _tensor_str, _wrap

_NOT_RUN = (
    "Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could be because "
    "the operator doesn't exist for this backend, or was omitted during the selective/custom build "
    "process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please "
    "visit https://fburl.com/ptmfixes for possible resolutions."
)
# NumPy ufunc names that differ from ATen's operator names.
_ATEN_NAME = {
    "true_divide": "div", "divide": "div", "negative": "neg", "absolute": "abs", "power": "pow",
    "greater": "gt", "less": "lt", "greater_equal": "ge", "less_equal": "le", "equal": "eq",
    "not_equal": "ne", "arctan": "atan", "arcsin": "asin", "arccos": "acos", "arctanh": "atanh",
    "matmul": "mm", "maximum": "maximum", "minimum": "minimum",
}  # fmt: skip
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
# Ufuncs a dense kernel may apply to a sparse operand: the payload turns dense first
# (``dense + sparse`` and ``dense.add_(sparse, alpha=a)`` are dense in PyTorch too).
_DENSIFYING = frozenset({"add", "subtract", "multiply"})


def not_implemented(op: str, layout, device) -> NotImplementedError:
    """PyTorch's dispatcher error for an operator with no kernel for this sparse layout."""
    kind = "Sparse" if layout is sparse_coo else "SparseCsr"  # one key for the compressed ones
    backend = kind + ("CPU" if device.type == "cpu" else "CUDA")
    return NotImplementedError(_NOT_RUN.format(op=op, backend=backend))


class SparseData:
    """The payload of a sparse tensor.

    COO: ``indices`` is an int64 ``(sparse_dim, nnz)`` array, ``values`` ``(nnz, *dense_shape)``.
    Compressed: ``indices`` is the pair ``(compressed_indices, plain_indices)`` (e.g.
    ``(crow_indices, col_indices)``), ``values`` ``(nnz,)``, or ``(nnz, bh, bw)`` blocks
    (``taimatsu/sparse/compressed.py``).
    """

    __slots__ = ("coalesced", "device", "indices", "layout", "shape", "values")

    def __init__(self, layout, indices, values, shape, coalesced=False, device=None):
        self.layout = layout
        self.indices = indices
        self.values = values
        self.shape = tuple(shape)
        self.coalesced = coalesced
        self.device = device

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def nnz(self) -> int:
        if isinstance(self.indices, tuple):  # compressed: per batch, the plain indices' length
            return self.indices[1].shape[-1]
        return self.values.shape[0]

    def copy(self) -> SparseData:
        idx = self.indices
        idx = tuple(a.copy() for a in idx) if isinstance(idx, tuple) else idx.copy()
        return SparseData(
            self.layout, idx, self.values.copy(), self.shape, self.coalesced, self.device
        )

    def dense(self):
        """The dense array (duplicates summed)."""
        from ..sparse import construction

        return construction.dense_array(self)

    # Dense kernels that reach the payload through NumPy: PyTorch's dispatcher error, except
    # the few elementwise ops whose result is dense in PyTorch anyway.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or ufunc.__name__ not in _DENSIFYING:
            if self.layout is not sparse_coo:  # PyTorch's TensorIterator refuses the layout
                from ..sparse.compressed import KIND

                raise RuntimeError(f"unsupported tensor layout: {KIND[self.layout]}")
            name = _ATEN_NAME.get(ufunc.__name__, ufunc.__name__)
            if name in _COMPARISONS:  # PyTorch names the overload: a tensor or a scalar other
                scalar = any(isinstance(x, (int, float, complex, np.generic)) for x in inputs)
                name += ".Scalar" if scalar else ".Tensor"
            raise not_implemented(name, self.layout, self.device)
        inputs = tuple(x.dense() if isinstance(x, SparseData) else x for x in inputs)
        return ufunc(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        raise not_implemented(func.__name__, self.layout, self.device)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def __getattr__(self, name):
        # Any other array attribute a dense kernel asks for (reshape, astype, strides, ...).
        kind = "Sparse" if self.layout is sparse_coo else "SparseCsr"
        raise NotImplementedError(
            f"taimatsu: this operation has no kernel for {kind} tensors (it needs the dense "
            f"array's '{name}'); convert with .to_dense() first"
        )


_NO_ARRAY = np.empty(0, np.uint8)


def make_sparse(data: SparseData, dtype: D.dtype, device) -> SparseTensor:
    """Wrap a payload (no copy, no checks): the one constructor sparse ops use. The fields are
    a dense tensor's (``core._wrap``: no grad, version 0, an inference tensor in inference mode,
    as PyTorch's sparse ones are), under the sparse class (the same slots: no layout change)."""
    data.device = device
    t = _wrap(_NO_ARRAY, dtype, device)
    t.__class__ = SparseTensor
    t._data = data
    return t


class SparseTensor(Tensor):
    """A COO or compressed sparse tensor (see the module docstring); methods delegate to ``taimatsu.sparse``."""

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise TypeError("sparse tensors are made by torch.sparse_coo_tensor or Tensor.to_sparse")

    # ---- metadata ----------------------------------------------------------------------------
    @property
    def layout(self):
        return self._data.layout

    @property
    def is_sparse(self) -> bool:
        return self._data.layout is sparse_coo

    @property
    def is_sparse_csr(self) -> bool:
        return self._data.layout is sparse_csr

    def stride(self, dim=None):
        if self._data.layout is not sparse_coo:
            raise RuntimeError(f"Sparse {_short_name(self)} tensors do not have strides")
        st = (0,) * self._data.ndim  # what PyTorch reports for a COO tensor
        return st if dim is None else st[dim]

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """'torch.sparse.FloatTensor' & co. without arguments (CSR has no legacy name), else a cast."""
        if dtype is not None:
            return super().type(dtype, non_blocking, **kwargs)
        if self._data.layout is not sparse_coo:
            raise RuntimeError("Unimplemented backend SparseCsrCPU")
        prefix = "torch.sparse." if self._device.type == "cpu" else "torch.cuda.sparse."
        return prefix + self._dtype._legacy

    @property
    def nbytes(self) -> int:
        raise RuntimeError(
            "nbytes is not defined for sparse tensors.  If you want the size of the constituent "
            "tensors, add the nbytes of the indices and values.  If you want the size of the  "
            "equivalent dense tensor, multiply numel() by element_size()"
        )

    def data_ptr(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def untyped_storage(self):
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    def storage_offset(self) -> int:
        return 0

    def is_contiguous(self, memory_format=None) -> bool:
        if self._data.layout is not sparse_coo:
            raise RuntimeError(f"Sparse {_short_name(self)} tensors do not have is_contiguous")
        return False

    def contiguous(self, memory_format=None):
        raise RuntimeError("unsupported memory format option Contiguous")

    def numpy(self, *, force: bool = False):
        kind = (
            "Sparse" + _short_name(self).capitalize() if self.layout is not sparse_coo else "Sparse"
        )
        raise TypeError(
            f"can't convert {kind} layout tensor to numpy. Use Tensor.to_dense() first."
        )

    def __array__(self, dtype=None, copy=None):
        self.numpy()

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self.to_dense().item()

    def view(self, *shape):
        raise not_implemented("view", self._data.layout, self._device)

    def reshape(self, *shape):
        if self._data.layout is not sparse_coo:
            raise RuntimeError(f"Sparse {_short_name(self)} tensors do not have is_contiguous")
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def t_(self):
        if self._data.layout is not sparse_coo:
            raise RuntimeError(
                "torch.transpose_: in-place transposition is not supported for "
                f"{_sp().kind(self)} layout"
            )
        return super().t_()

    def __iter__(self):
        raise not_implemented("unbind.int", self._data.layout, self._device)

    def unbind(self, dim: int = 0):
        """The slices along ``dim`` (``select``), as PyTorch's ``unbind`` of a sparse tensor."""
        return tuple(self.select(dim, i) for i in range(self.shape[dim]))

    def __getitem__(self, index):
        return _indexing().getitem(self, index)

    def select(self, dim: int, index: int):
        return _indexing().select(self, dim, index)

    def index_select(self, dim: int, index):
        return _indexing().index_select(self, dim, index)

    def __reduce_ex__(self, protocol):
        # plain pickle (torch.save writes PyTorch's record through its own pickler)
        layout, data = _sp().reduce_args(self.detach())
        return (_sp().rebuild_sparse_tensor, (layout.name, data))

    def __repr__(self, *, tensor_contents=None) -> str:
        return sparse_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self).__format__(spec)

    def __deepcopy__(self, memo):
        if self._data.layout is not sparse_coo:
            raise NotImplementedError("Cannot access storage of SparseCsrTensorImpl")
        if id(self) in memo:
            return memo[id(self)]
        new = make_sparse(self._data.copy(), self._dtype, self._device)
        new._rg = self._rg
        memo[id(self)] = new
        return new

    def __hash__(self) -> int:
        return id(self)

    # ---- autograd-free copies --------------------------------------------------------------
    @property
    def data(self) -> SparseTensor:
        return make_sparse(_shallow(self._data), self._dtype, self._device)

    @data.setter
    def data(self, value) -> None:
        self._data, self._dtype, self._device = value._data, value._dtype, value._device

    def detach(self) -> SparseTensor:
        t = make_sparse(_shallow(self._data), self._dtype, self._device)
        t._vc = self._vc
        return t

    # ---- sparse structure ------------------------------------------------------------------
    def sparse_dim(self) -> int:
        return 2 if self._data.layout is not sparse_coo else self._data.indices.shape[0]

    def dense_dim(self) -> int:
        data = self._data
        if data.layout is not sparse_coo:  # values: (*batch, nnz[, bh, bw], *dense)
            block = 2 if data.values.ndim > data.indices[1].ndim and data.layout in (
                sparse_bsr, sparse_bsc) else 0  # fmt: skip
            return data.values.ndim - data.indices[1].ndim - block
        return data.ndim - self.sparse_dim()

    def _nnz(self) -> int:
        return self._data.nnz

    def is_coalesced(self) -> bool:
        _sp().need_layout(self, "is_coalesced", sparse_coo)
        return self._data.coalesced

    def indices(self) -> Tensor:
        return _sp().indices(self, checked=True)

    def _indices(self) -> Tensor:
        return _sp().indices(self, checked=False)

    def values(self) -> Tensor:
        return _sp().values(self, checked=True)

    def _values(self) -> Tensor:
        return _sp().values(self, checked=False)

    def crow_indices(self) -> Tensor:
        return _sp().compressed_indices(self, 0, "crow_indices")

    def col_indices(self) -> Tensor:
        return _sp().compressed_indices(self, 1, "col_indices")

    def ccol_indices(self) -> Tensor:
        return _sp().compressed_indices(self, 0, "ccol_indices")

    def row_indices(self) -> Tensor:
        return _sp().compressed_indices(self, 1, "row_indices")

    def coalesce(self) -> SparseTensor:
        return _sp().coalesce(self)

    def to_dense(self, dtype=None, *, masked_grad=None) -> Tensor:
        return _sp().to_dense(self, dtype)

    def to_sparse(self, *args, **kwargs) -> SparseTensor:
        return _sp().to_sparse(self, *args, **kwargs)

    def to_sparse_coo(self) -> SparseTensor:
        return _sp().to_sparse(self)

    def to_sparse_csr(self, dense_dim=None) -> SparseTensor:
        return _sp().to_sparse_csr(self, dense_dim)

    def to_sparse_csc(self, dense_dim=None) -> SparseTensor:
        return _sp().to_sparse(self, layout=sparse_csc, dense_dim=dense_dim)

    def to_sparse_bsr(self, blocksize, dense_dim=None) -> SparseTensor:
        return _sp().to_sparse(self, layout=sparse_bsr, blocksize=blocksize, dense_dim=dense_dim)

    def to_sparse_bsc(self, blocksize, dense_dim=None) -> SparseTensor:
        return _sp().to_sparse(self, layout=sparse_bsc, blocksize=blocksize, dense_dim=dense_dim)

    def sparse_mask(self, mask) -> SparseTensor:
        return _sp().sparse_mask(self, mask)

    def clone(self, *, memory_format=None) -> SparseTensor:
        return _sp().clone(self)

    def to(self, *args, **kwargs) -> SparseTensor:
        return _sp().to(self, *args, **kwargs)

    def zero_(self) -> SparseTensor:
        return _sp().zero_(self)

    def copy_(self, src, non_blocking: bool = False) -> SparseTensor:
        return _sp().copy_(self, src)

    # ---- arithmetic ---------------------------------------------------------------------------
    def add(self, other, *, alpha=1):
        return _arith().add(self, other, alpha=alpha)

    def __add__(self, other):
        return _arith().add(self, other)

    def __radd__(self, other):
        return _arith().radd(self, other)

    def add_(self, other, *, alpha=1):
        return _arith().add_(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return _arith().add(self, other, alpha=-alpha)

    def __sub__(self, other):
        return _arith().add(self, other, alpha=-1)

    def __rsub__(self, other):
        return _arith().radd(-self, other)

    def mul(self, other):
        return _arith().mul(self, other)

    __mul__ = __rmul__ = mul

    def mul_(self, other):
        return _arith().mul_(self, other)

    def div(self, other):
        return _arith().div(self, other)

    __truediv__ = div

    def div_(self, other):
        return _arith().div_(self, other)

    def neg(self):
        return _arith().mul(self, -1)

    __neg__ = neg

    def unsqueeze(self, dim: int):
        from ..sparse import shape

        return shape.unsqueeze(self, dim)

    def t(self):
        return _arith().t(self)

    def transpose(self, dim0: int, dim1: int):
        return _arith().transpose(self, dim0, dim1)

    @property
    def mT(self):
        return _arith().transpose(self, -2, -1)

    @property
    def mH(self):
        out = _arith().transpose(self, -2, -1)
        return out.conj() if out.is_complex() else out

    def sum(self, dim=None, keepdim=False, dtype=None):
        return _arith().sum(self, dim, keepdim, dtype, method=True)

    def softmax(self, dim: int, dtype=None):
        if self._data.layout is not sparse_coo:
            raise _compressed_error(self, "softmax", "_softmax.out")
        return _arith().softmax(self, dim, dtype)

    def log_softmax(self, dim: int, dtype=None):
        if self._data.layout is not sparse_coo:
            raise _compressed_error(self, "softmax", "_log_softmax.out")
        return _arith().log_softmax(self, dim, dtype)

    # ---- matrix products ------------------------------------------------------------------------
    def mm(self, mat2):
        return _mm().mm(self, mat2)

    matmul = __matmul__ = mm

    def __rmatmul__(self, other):
        return _mm().rmm(other, self)

    def smm(self, mat):
        return _mm().smm(self, mat)

    def sspaddmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _mm().sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)


def _unary_method(name):
    def method(self, *args, **kwargs):
        return _arith().unary(self, name, *args, **kwargs)

    method.__name__ = name
    return method


def _no_kernel_method(name, aten):
    def method(self, *args, **kwargs):
        if self._data.layout is not sparse_coo:
            raise _compressed_error(self, name, aten)
        raise not_implemented(aten, self._data.layout, self._device)

    method.__name__ = name
    return method


_POINTWISE = frozenset(
    [
        "exp",
        "log",
        "sigmoid",
        "cos",
        "cosh",
        "exp2",
        "log2",
        "log10",
        "reciprocal",
        "rsqrt",
        "erfc",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
    ]
)
# The compressed layouts' errors where PyTorch reaches another kernel than COO's.
_COMPRESSED_ATEN = {"argmax": "argmax.out", "cumsum": "cumsum.out", "mean": "mean.out",
                    "permute": "as_strided"}  # fmt: skip


def _compressed_error(t: SparseTensor, name: str, aten: str) -> Exception:
    """PyTorch's error for a method with no kernel for a compressed layout."""
    from ..sparse.compressed import BLOCK, KIND

    layout = t._data.layout
    if name in _POINTWISE:
        return RuntimeError(f"unsupported tensor layout: {KIND[layout]}")
    if name == "squeeze":
        return RuntimeError(f"Sparse {_short_name(t)} tensors do not have strides")
    if name == "flatten":
        return RuntimeError(f"Sparse {_short_name(t)} tensors do not have is_contiguous")
    if name == "expand":
        return RuntimeError(f"expand is unsupported for {KIND[layout]} tensors")
    if name == "logsumexp" or (name in ("cumsum", "softmax") and layout in BLOCK):
        if name != "logsumexp":
            return RuntimeError(
                "empty_sparse_compressed expected sparse compressed (non-block) tensor layout "
                f"but got {KIND[layout]}"
            )
        return RuntimeError(
            "torch.empty: Only batched sparse compressed (non-block) tensors are supported, but "
            "got size [0]"
        )
    return not_implemented(_COMPRESSED_ATEN.get(name, aten), layout, t._device)


def _in_place_method(name):
    """``neg_``, ``abs_``, ``sqrt_``...: the op applied to the values where they are."""

    def method(self, *args, **kwargs):
        data = self._data
        if name == "square_":  # PyTorch runs pow_, which has no sparse kernel
            if data.layout is sparse_coo:
                raise not_implemented("pow_.Scalar", data.layout, self._device)
            raise _compressed_error(self, "exp", "pow_")
        if self._rg and _gm_enabled():
            if self.grad_fn is None:
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            raise NotImplementedError(f"taimatsu: {name} of a sparse tensor that requires grad")
        if data.layout is sparse_coo and not data.coalesced and name != "neg_":
            raise RuntimeError(f"{name} requires coalesced input")
        r = getattr(_wrap(data.values, self._dtype, self._device), name[:-1])(*args, **kwargs)
        data.values[...] = r._data
        self._vc[0] += 1
        return self

    method.__name__ = name
    return method


def _gm_enabled() -> bool:
    from ..autograd.grad_mode import state

    return state.enabled


# PyTorch runs these on a COO tensor's values; the common dense ops it has no sparse kernel for
# raise its dispatcher error by name (any other reaches the payload's generic error).
for _n in [
    "abs",
    "sin",
    "sinh",
    "tan",
    "tanh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "sqrt",
    "expm1",
    "log1p",
    "ceil",
    "floor",
    "round",
    "trunc",
    "sign",
    "sgn",
    "relu",
    "square",
    "frac",
    "deg2rad",
    "rad2deg",
    "erf",
    "isnan",
    "signbit",
    "nan_to_num",
    "pow",
]:
    setattr(SparseTensor, _n, _unary_method(_n))
for _n, _aten in (
    ("exp", "exp"),
    ("log", "log"),
    ("sigmoid", "sigmoid"),
    ("cos", "cos"),
    ("cosh", "cosh"),
    ("exp2", "exp2"),
    ("log2", "log2"),
    ("log10", "log10"),
    ("reciprocal", "reciprocal"),
    ("rsqrt", "rsqrt"),
    ("mean", "mean.dim"),
    ("std", "std.correction"),
    ("var", "var.correction"),
    ("max", "max"),
    ("min", "min"),
    ("argmax", "argmax"),
    ("argmin", "argmin"),
    ("prod", "prod"),
    ("cumsum", "cumsum"),
    ("logsumexp", "logsumexp"),
    ("erfc", "erfc"),
    ("squeeze", "squeeze"),
    ("flatten", "flatten"),
    ("permute", "permute"),
    ("expand", "expand"),
):
    setattr(SparseTensor, _n, _no_kernel_method(_n, _aten))
for _n in ("neg_", "abs_", "sqrt_", "sin_", "tanh_", "relu_", "square_"):
    setattr(SparseTensor, _n, _in_place_method(_n))


def _short_name(t: SparseTensor) -> str:
    """CSR, CSC, BSR, BSC: how PyTorch's messages name a compressed layout."""
    return t._data.layout.name[len("sparse_") :].upper()


def _shallow(data: SparseData) -> SparseData:
    return SparseData(
        data.layout, data.indices, data.values, data.shape, data.coalesced, data.device
    )


# ---- printing -----------------------------------------------------------------------------------
def sparse_repr(t: SparseTensor) -> str:
    """PyTorch's repr of a sparse tensor: its index and value tensors, then size, nnz, layout."""
    from .. import backend as _backend

    data = t._data
    indent = len("tensor(")
    if data.layout is not sparse_coo:
        names = _LAYOUT_INDEX_NAMES[data.layout]
        parts = [(names[0], data.indices[0]), (names[1], data.indices[1])]
    else:
        parts = [("indices", data.indices)]
    parts.append(("values", data.values))
    text = []
    for name, arr in parts:
        arr = _backend.to_numpy(arr)
        dtype_name = "int64" if name != "values" else t._dtype.name
        if t._dtype is D.bfloat16 and name == "values":
            arr = arr.astype(np.float32)
        prefix = name + "=tensor("
        body = _tensor_str._tensor_body(arr, dtype_name, indent + len(prefix)) if arr.size else "[]"
        if not arr.size:
            body += f", size={tuple(arr.shape)}"
        text.append(prefix + body + ")")
    suffixes = [] if t._device.type == "cpu" else [f"device='{t._device}'"]
    suffixes += [f"size={data.shape}", f"nnz={data.nnz}"]
    default = D.get_default_dtype()
    default_complex = D.complex128 if default is D.float64 else D.complex64
    if t._dtype not in (default, default_complex, D.int64, D.bool):
        suffixes.append(f"dtype=torch.{t._dtype.name}")
    suffixes.append(f"layout={data.layout!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    body = "tensor(" + (",\n" + " " * indent).join(text)
    return _suffixed(body, suffixes, indent, force_newline=data.layout is sparse_coo)


def _suffixed(text: str, suffixes: list, indent: int, force_newline: bool) -> str:
    """Suffixes wrap at linewidth; a COO tensor's first one always starts a new line."""
    last = len(text) - text.rfind("\n") + 1  # PyTorch's count, one more than the line's length
    pieces = [text]
    for suffix in suffixes:
        if force_newline or last + len(suffix) + 2 > _tensor_str.PRINT_OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
            force_newline = False
        else:
            pieces.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(pieces) + ")"


_LAYOUT_INDEX_NAMES = {
    sparse_csr: ("crow_indices", "col_indices"), sparse_bsr: ("crow_indices", "col_indices"),
    sparse_csc: ("ccol_indices", "row_indices"), sparse_bsc: ("ccol_indices", "row_indices"),
}  # fmt: skip


def _sp():
    from ..sparse import construction

    return construction


def _arith():
    from ..sparse import arithmetic

    return arithmetic


def _mm():
    from ..sparse import matmul

    return matmul


def _indexing():
    from ..sparse import indexing

    return indexing
