"""Small top-level functions: isin, unravel_index, the tensor predicates PyTorch exposes as
functions (is_same_size, is_signed, is_conj, ...), typename, fill, nonzero_static,
empty_permuted, get_device, index_reduce, the ``sym_*`` helpers on plain numbers and the eager
forms of ``cond``/``while_loop``.

taimatsu's conj() and neg() materialise their result, so no tensor ever carries the lazy
conjugate or negative bit: ``is_conj``/``is_neg`` are always False and ``resolve_conj``/
``resolve_neg`` return their input (PyTorch returns ``input`` too when the bit is unset).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap, _wrapdim
from ..autograd.grad_mode import state as _gm
from ._dispatch import (
    OUT_EXACT,
    as_array,
    node_class,
    record,
    result_dtype,
    scalar_name,
    takes_out,
    xp_for,
)
from .shape_more import _tangent


def _need_tensor(name: str, x, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


# ---- isin ----------------------------------------------------------------------------------------------
_ISIN_SIGNATURES = (
    " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
)


def _isin_checked_dtype(x) -> None:
    # A Python number is wrapped as a double-precision tensor here, not the default dtype.
    dt = (
        x._dtype
        if isinstance(x, Tensor)
        else D.complex128
        if isinstance(x, complex)
        else D.scalar_dtype(x)
    )
    if dt is D.bool or dt.category == D.COMPLEX:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {scalar_name(dt)}")


def _isin_array(x, dtype: D.dtype):
    a = np.asarray(as_array(x.cpu() if isinstance(x, Tensor) else x, dtype), dtype=dtype.np)
    # NumPy's set routines want a native float type; a widening cast keeps equality exact.
    return a.astype(np.float32) if dtype.category == D.FLOAT and dtype.itemsize < 4 else a


@takes_out("isin", OUT_EXACT)
def isin(elements=None, test_elements=None, *, assume_unique: bool = False, invert: bool = False,
         element=None, test_element=None) -> Tensor:  # fmt: skip
    """``elements`` membership in ``test_elements`` under PyTorch's type promotion (NaN is never in).

    ``element=`` / ``test_element=`` are the keyword names of PyTorch's scalar overloads."""
    elements = element if elements is None else elements
    test_elements = test_element if test_elements is None else test_elements
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        got = f"{type(elements).__name__}, {type(test_elements).__name__}"
        raise TypeError(
            f"isin() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            + _ISIN_SIGNATURES
        )
    _isin_checked_dtype(elements)
    _isin_checked_dtype(test_elements)
    dtype = result_dtype(elements, test_elements)
    ref = elements if isinstance(elements, Tensor) else test_elements
    a, b = _isin_array(elements, dtype), _isin_array(test_elements, dtype)
    hit = np.isin(a, b.reshape(-1), assume_unique=False, invert=invert)
    xp = xp_for(ref)
    return _wrap(xp.asarray(np.asarray(hit, dtype=np.bool_)), D.bool, ref._device)


# ---- unravel_index ---------------------------------------------------------------------------------------
def unravel_index(indices: Tensor, shape) -> tuple:
    """Coordinates of flat ``indices`` in ``shape`` (int64); out-of-range indices wrap, as in PyTorch."""
    _need_tensor("unravel_index", indices, "indices")
    if indices._dtype.category != D.INT or indices._dtype is D.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, Sequence):
        for s in shape:
            if not isinstance(s, (int, np.integer)):
                raise TypeError(
                    f"expected 'shape' sequence to only contain ints, but got {type(s)}"
                )
        shape = tuple(int(s) for s in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    xp = xp_for(indices)
    flat = indices._data.astype(np.int64)
    out, coef = [], 1
    for s in reversed(shape):
        # PyTorch: floor_divide by the trailing product, then the remainder (Python-style) by s.
        q = xp.floor_divide(flat, coef)
        out.append(xp.remainder(q, s) if s else xp.zeros_like(q))
        coef *= s
    return tuple(_wrap(o, D.int64, indices._device) for o in reversed(out))


# ---- predicates --------------------------------------------------------------------------------------------
def is_same_size(input: Tensor, other: Tensor) -> bool:
    _need_tensor("is_same_size", input)
    _need_tensor("is_same_size", other, "other", 2)
    return tuple(input._data.shape) == tuple(other._data.shape)


def is_signed(input: Tensor) -> bool:
    _need_tensor("is_signed", input)
    return input.is_signed()


def is_inference(input: Tensor) -> bool:
    _need_tensor("is_inference", input)
    return input.is_inference()


def is_conj(input: Tensor) -> bool:
    _need_tensor("is_conj", input)
    return input.is_conj()


def is_neg(input: Tensor) -> bool:
    _need_tensor("is_neg", input)
    return input.is_neg()


def resolve_conj(input: Tensor) -> Tensor:
    _need_tensor("resolve_conj", input)
    return input.resolve_conj()


def resolve_neg(input: Tensor) -> Tensor:
    _need_tensor("resolve_neg", input)
    return input.resolve_neg()


def typename(obj, /) -> str:
    """PyTorch's fully qualified type name; taimatsu's own classes are named under ``torch``."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "taimatsu" or module.startswith("taimatsu."):
        module = "torch" + module[len("taimatsu") :]
    return f"{module}.{qualname}"


# ---- fill ----------------------------------------------------------------------------------------------------
def _fill_vjp(node, g):
    return (g.new_zeros(g.shape),)


def _fill_tensor_vjp(node, g):
    return g.new_zeros(g.shape), g.sum()


_Fill = node_class("FillBackward0", _fill_vjp)
_FillTensor = node_class("FillBackward1", _fill_tensor_vjp)


def fill(input: Tensor, value) -> Tensor:
    """A new tensor shaped like ``input`` holding ``value`` (a number or a 0-d tensor)."""
    _need_tensor("fill", input)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        v = value._data[()]
    else:
        v = value
    r = input.new_empty(input.shape)
    r.fill_(v)
    vt = value if isinstance(value, Tensor) else None
    if _gm.enabled and (input._rg or (vt is not None and vt._rg)):
        if vt is None:
            record(_Fill, (input,), r)
        else:
            record(_FillTensor, (input, vt), r)
    _tangent(r, (input,) if vt is None else (input, vt), lambda *t: _fill_tangent(t, input, vt))
    return r


def _fill_tangent(tangents, input: Tensor, vt):
    if vt is None:
        return input.new_zeros(input.shape)
    return tangents[1].expand(input.shape).clone()


# ---- nonzero_static, empty_permuted, get_device -------------------------------------------------------------
@takes_out(
    "nonzero_static",
    "nonzero_static: Expected out tensor to have scalar type Long but got scalar type{out}",
)
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` padded with ``fill_value`` (or truncated) to exactly ``size`` rows."""
    _need_tensor("nonzero_static", input)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    xp = xp_for(input)
    data = input._data
    idx = (
        xp.stack(xp.nonzero(data), axis=1)
        if data.ndim
        else xp.zeros((int(bool(data)), 0), np.int64)
    )
    out = xp.full((size, data.ndim), fill_value, dtype=np.int64)
    n = min(size, idx.shape[0])
    out[:n] = idx[:n]
    return _wrap(out, D.int64, input._device)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:  # fmt: skip
    """An uninitialised tensor of ``size`` whose memory runs over the dims in ``physical_layout``
    order (outermost first)."""
    from .creation import empty

    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = "
            f"{len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    inverse = [order.index(d) for d in range(len(order))]
    base = empty([size[d] for d in order], dtype=dtype, device=device)
    return base.permute(inverse).detach().requires_grad_(requires_grad)


def get_device(input: Tensor) -> int:
    _need_tensor("get_device", input)
    return input.get_device()


# ---- symbolic-shape helpers: on plain Python numbers they are the plain operations ----------------------------
newaxis = None


def sym_int(a) -> int:
    return int(a)


def sym_float(a) -> float:
    return float(a)


def sym_max(a, b):
    r = max(a, b)
    return float(r) if isinstance(a, float) or isinstance(b, float) else r


def sym_min(a, b):
    r = min(a, b)
    return float(r) if isinstance(a, float) or isinstance(b, float) else r


def sym_not(a) -> bool:
    return not a


def sym_sqrt(a) -> float:
    import math

    return math.sqrt(a)


def sym_ite(b, t, f):
    return t if b else f


def sym_sum(args):
    return sum(args)


# ---- index_reduce ---------------------------------------------------------------------------------------------
def _index_reduce_checks(
    input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str
) -> int:
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    if index._dtype not in (D.int32, D.int64):
        raise RuntimeError(
            f"index_reduce_(): Expected dtype int32/int64 for index but got: {scalar_name(index._dtype)}"
        )
    if index.dim() > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{scalar_name(index._dtype)} and size: {list(index.shape)}"
        )
    d = _wrapdim(dim, input.dim())
    if source._dtype is not input._dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({scalar_name(input._dtype)}) and source ({scalar_name(source._dtype)}) must have "
            "the same scalar type"
        )
    n_src = source.shape[d] if source.dim() else 1
    if index.numel() != n_src:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): ({n_src}), "
            f"for dim: {d}"
        )
    rest = lambda t: [s for i, s in enumerate(t.shape) if i != d]
    if source.dim() != input.dim() or rest(source) != rest(input):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"{list(input.shape)} source.shape = {list(source.shape)}"
        )
    idx = np.asarray(index.cpu()._data)
    size = input.shape[d] if input.dim() else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError("index out of range in self")
    return d


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:  # fmt: skip
    """Rows ``index[i]`` of ``input`` along ``dim`` reduced ('prod', 'mean', 'amax', 'amin') with
    slice ``i`` of ``source``: ``scatter_reduce`` with the index spread over each slice."""
    from .._linalg_legacy import _no_forward_ad
    from .copy_family import renamed
    from .indexing import scatter_reduce

    d = _index_reduce_checks(input, dim, index, source, reduce)
    _no_forward_ad("index_reduce", input, source)
    size = input.shape[d] if input.dim() else 1
    shape = [1] * source.dim()
    if shape:
        shape[d] = -1
    spread = index.to(D.int64).remainder(size).reshape(shape).expand(source.shape)
    r = scatter_reduce(input, d, spread, source, reduce, include_self=include_self)
    return renamed(input, r, "IndexReduceBackward0")


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:  # fmt: skip
    from ._dispatch import check_inplace, commit_inplace

    check_inplace(self, (source,))
    return commit_inplace(
        self, index_reduce(self, dim, index, source, reduce, include_self=include_self)
    )


# ---- control flow: eager forms of torch.cond / torch.while_loop ----------------------------------------------
def _truth(pred) -> bool:
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(
                f"Expected pred to be bool or single-element tensor, but got {pred!r}."
            )
        return bool(pred.item())
    return bool(pred)


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)`` (run eagerly: one branch)."""
    return (true_fn if _truth(pred) else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Apply ``body_fn`` to the carried values while ``cond_fn`` holds; returns them as a tuple."""
    carried = tuple(carried_inputs)
    while _truth(cond_fn(*carried)):
        carried = tuple(body_fn(*carried))
    return carried
