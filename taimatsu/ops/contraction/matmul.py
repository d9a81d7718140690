"""Matrix products: matmul and the BLAS family (mm, mv, dot, vdot, bmm, outer, inner) and the
fused ``beta * input + alpha * product`` forms (addmm, addmv, addr, addbmm, baddbmm).

Forwards are one NumPy/CuPy ``matmul`` (BLAS); VJPs are matmuls too, so double backward works.
``matmul`` follows PyTorch's dispatch (dot / mv / mm / folding a batch into mm / bmm) so its
graph -- grad_fn names, next_functions -- and its error messages are PyTorch's.
tensordot and einsum live in ``contraction.py``.
"""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from taimatsu.ops.reduction.distance import _fw
from taimatsu.ops.reduction.reduce import _sum_array
from taimatsu.ops.shape.diagonal import _tangent

from ... import _dtype as D
from ..._autocast import LOWER, cast_policy
from ..._flags import user_stacklevel
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ..._tensor.sparse import SparseTensor
from ...autograd import op_watch
from ...autograd.engine import _expandable
from ...autograd.forward_ad import _register, on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.float32_math.cascade_sum import column_sums
from ...backend.fp_errors import silent
from ...backend.threads import avx512_kernels, gemm_threads
from .._dispatch import (
    OUT_EXACT,
    _fw_state,
    check_devices,
    need_tensor,
    record,
    result_dtype,
    scalar_name,
    write_out,
    xp_for,
)

_DOT_OUT = "result dtype {out} does not match input dtype {res}"
_TENSORDOT_OUT = "tensordot: Expected the output tensor to have dtype {res}, but got an output tensor with dtype {out}"


def _h(t: Tensor) -> Tensor:
    """Conjugate transpose of the last two dims (plain transpose for real tensors)."""
    m = t.transpose(-2, -1)
    return m.conj() if t._dtype.category == D.COMPLEX else m


def _conj(t: Tensor) -> Tensor:
    return t.conj() if t._dtype.category == D.COMPLEX else t


def _need(node, i):
    return node.next_functions[i][0] is not None


def _cname(dtype) -> str:
    """The C++ type name PyTorch prints in some dtype errors ('float', 'long int')."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}[dtype.name]  # fmt: skip


def _not_bool(kernel: str, t: Tensor) -> None:
    if t._dtype is D.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


@silent  # an overflowing product is inf, silently as in PyTorch
def _matmul_array(xp, a, b):
    # One BLAS thread for a small product, all of them for a large one (backend/threads.py).
    rows_k = a.size if a.ndim < 3 else a.shape[-2] * a.shape[-1]
    one = gemm_threads(rows_k * (b.shape[-1] if b.ndim > 1 else 1)) == 1
    if a.dtype.char in D.HALF_CHARS:  # BLAS has no half kernels: float32, like PyTorch's CPU
        return xp.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
    if one and xp is np and _few_rows_by_weight(a, b):
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        np.copyto(out, np.matmul(b.T, a.T).T)
        return out
    return xp.matmul(a, b)


def _few_rows_by_weight(a, b) -> bool:
    """Whether ``a @ b`` is a few float32 rows (2 to 64) times a long column-major matrix (a
    Linear's ``weight.t()``, k >= 512, n >= 128) under OpenBLAS's AVX-512 kernels, which
    compute it faster as ``(b.T @ a.T).T`` (copied back to rows) on one thread: 64x784 @
    784x256 (the MLP benchmark's first layer) 307 -> 265 us, 32x784 @ 784x256 210 -> 133,
    8x784 @ 784x256 225 -> 114, 64x1024 @ 1024x4096 10.6 -> 8.7 ms; with 128+ rows or k <= 256
    it is slower. The same bits on every shape measured (73)."""
    return (
        a.ndim == 2 and b.ndim == 2 and 2 <= a.shape[0] <= 64 and a.shape[1] >= 512
        and b.shape[1] >= 128 and a.dtype == np.float32 and b.dtype == np.float32
        and a.flags.c_contiguous and _column_major(b) and avx512_kernels()
    )  # fmt: skip


def _factors(a: Tensor, b: Tensor) -> tuple:
    """The saved tensors of a product of ``a`` and ``b``: each factor only for the other's
    gradient, as PyTorch saves them. A factor that no gradient reads may then change in place
    before the backward (a weight updated under no_grad, where only the weight needs a
    gradient)."""
    if a._rg and b._rg:
        return (a, b)
    return (a if b._rg else None, b if a._rg else None)


def _layouts(a: Tensor, b: Tensor) -> tuple:
    """Whether each matrix is column-major: an mm backward gives each gradient its operand's
    layout even when the operand itself is not saved (PyTorch keeps its strides)."""
    return (_column_major(a._data), _column_major(b._data))


def _product(a: Tensor, b: Tensor, data, node) -> Tensor:
    """Wrap a product of ``a`` and ``b``; record ``node``; push tangents through ``op``."""
    r = _wrap(data, a._dtype, a._device)
    if _gm.enabled and (a._rg or b._rg):
        if node is _Mm:
            record(node, (a, b), r, _factors(a, b), layouts=_layouts(a, b))
        else:
            record(node, (a, b), r, _factors(a, b))
    if _fw_state.level and (a._fw is not None or b._fw is not None):
        r._fw = on_primals(_product_jvp, node.op, a, b)
        _register(r)
    return r


def _product_jvp(op, a, b):
    t = op(a._fw, b) if a._fw is not None else None
    if b._fw is not None:
        u = op(a, b._fw)
        t = u if t is None else t + u
    return t


# ---- mm / mv / dot / vdot -------------------------------------------------------------------------------
def _mm_vjp(node, g):
    a, b = node.saved()
    a_cm, b_cm = node.layouts
    # no graph of the backward and no profiler/exporter watching its mm ops: on arrays
    if not _gm.enabled and not op_watch._watchers and _real_dense(node, g, a, b):
        return _mm_arrays(node, g, a, b)
    return (_mat1_grad_op(g, a_cm, b) if _need(node, 0) else None), (
        _mat2_grad_op(g, a, b_cm) if _need(node, 1) else None
    )


def _mm_arrays(node, g, a, b, first=0):
    """The gradients of ``a`` and ``b`` (the node's inputs ``first`` and ``first + 1``) on
    arrays; a factor is None where its gradient is not needed (and it was not saved)."""
    xp, gd, (a_cm, b_cm) = xp_for(g), g._data, node.layouts
    ga = gb = None
    if _need(node, first):
        ga = _wrap(_mat1_grad(xp, gd, a_cm, b._data), b._dtype, b._device)
    if _need(node, first + 1):
        gb = _wrap(_mat2_grad(xp, gd, a._data, b_cm), a._dtype, a._device)
    return ga, gb


def _column_major(m) -> bool:
    # PyTorch's test in mm_mat1_backward / mm_mat2_backward, strides (1, rows): a matrix with a
    # size-1 dimension counts when its strides say so ((n, 1) strides (1, n): Linear(n, 1)'s
    # weight.t()), which NumPy's contiguity flags, blind to size-1 dimensions, cannot tell
    return m.ndim == 2 and m.strides[0] == m.itemsize and m.strides[1] == m.shape[0] * m.itemsize


def _mat1_grad(xp, gd, a_cm, bd):
    """``g @ mat2.T``; for a column-major mat1 (``a_cm``), in its layout (PyTorch's
    mm_mat1_backward)."""
    if a_cm:
        return _matmul_array(xp, bd, gd.T).T
    return _matmul_array(xp, gd, bd.T)


def _mat2_grad(xp, gd, ad, b_cm):
    """``mat1.T @ g``; for a column-major mat2 (``b_cm``; linear's ``weight.t()``), in its
    layout, as PyTorch's mm_mat2_backward computes it: transposed back, it is the weight's
    C-contiguous gradient, which AccumulateGrad keeps without a copy."""
    if b_cm:
        return _matmul_array(xp, gd.T, ad).T
    return _matmul_array(xp, ad.T, gd)


# The same two gradients as Tensor ops, for a recorded backward (create_graph): the same
# products in the same layouts as ``_mat1_grad``/``_mat2_grad``, so both paths give the same
# bits on any BLAS (OpenBLAS's kernels give ``A.T @ B`` and ``(B.T @ A).T`` other last bits:
# its AVX2 "Haswell" set for many shapes, its AVX-512 set for a few), with PyTorch's transposes
# in the double-backward graph.
def _mat1_grad_op(g: Tensor, a_cm: bool, b: Tensor) -> Tensor:
    if a_cm:
        return b.conj().mm(g.t()).t()
    return g.mm(_h(b))


def _mat2_grad_op(g: Tensor, a: Tensor, b_cm: bool) -> Tensor:
    if b_cm:
        return g.t().mm(a.conj()).t()
    return _h(a).mm(g)


_Mm = node_class("MmBackward0", _mm_vjp)


@cast_policy(LOWER)
def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    need_tensor("mm", mat2, "mat2", 2)  # the parser's check, before the shapes'
    check_devices(input, mat2)
    if input.__class__ is SparseTensor or mat2.__class__ is SparseTensor:
        return _sparse_mm(input, mat2)
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    (n, k), (k2, m) = input._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    if input._dtype is not mat2._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_cname(input._dtype)} != {_cname(mat2._dtype)}"
        )
    _not_bool("addmm_impl_cpu_", input)
    r = _product(input, mat2, _matmul_array(xp_for(input), input._data, mat2._data), _Mm)
    return r if out is None else write_out(out, r, "mm", OUT_EXACT)


def _mv_vjp(node, g):
    m, v = node.saved()
    gm = outer(g, _conj(v)) if _need(node, 0) else None
    return gm, (_h(m).mv(g) if _need(node, 1) else None)


_Mv = node_class("MvBackward0", _mv_vjp)


def _check_mv(input: Tensor, vec: Tensor, self_dtype) -> None:
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}"
        )
    (n, k), kv = input._data.shape, vec._data.shape[0]
    if k != kv:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({kv})")
    if not (self_dtype is input._dtype is vec._dtype):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {scalar_name(self_dtype)}, "
            f"{scalar_name(input._dtype)}, and {scalar_name(vec._dtype)}"
        )
    _not_bool("addmv_impl_cpu", input)


@cast_policy(LOWER, ("cuda",))
def mv(input: Tensor, vec: Tensor, *, out=None) -> Tensor:
    need_tensor("mv", vec, "vec", 2)  # the parser's check, before the shapes'
    check_devices(input, vec)
    if input.__class__ is SparseTensor and out is None:  # sparse @ vector: MvBackward0
        if (
            input.is_sparse
            and input.dim() == 2
            and vec.dim() == 1
            and input.shape[1] != vec.shape[0]
        ):
            raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")  # COO's check
        return _sparse_mm(input, vec)
    _check_mv(input, vec, vec._dtype)  # PyTorch runs mv as addmv into a result of vec's dtype
    r = _product(input, vec, _matmul_array(xp_for(input), input._data, vec._data), _Mv)
    return r if out is None else write_out(out, r, "mv", _mv_out_msg(out, r))


def _check_dot(input: Tensor, other: Tensor) -> None:
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors"
        )
    n, m = input._data.shape[0], other._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of elements, "
            f"but got {n} and {m} elements respectively"
        )
    if input._dtype is not other._dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {scalar_name(input._dtype)} and "
            f"{scalar_name(other._dtype)}"
        )
    _not_bool("dot", input)


def _dot_vjp(node, g):
    a, b = node.saved()
    return (g * _conj(b) if _need(node, 0) else None), (g * _conj(a) if _need(node, 1) else None)


_Dot = node_class("DotBackward0", _dot_vjp)


def dot(input: Tensor, tensor: Tensor, *, out=None) -> Tensor:
    need_tensor("dot", tensor, "tensor", 2)  # the parser's check, before the shapes'
    check_devices(input, tensor)
    _check_dot(input, tensor)
    xp = xp_for(input)
    r = _product(input, tensor, xp.asarray(_matmul_array(xp, input._data, tensor._data)), _Dot)
    return r if out is None else write_out(out, r, "dot", _DOT_OUT)


def _vdot_vjp(node, g):
    a, b = node.saved()
    return (b * _conj(g) if _need(node, 0) else None), (g * a if _need(node, 1) else None)


_Vdot = node_class("VdotBackward0", _vdot_vjp)


def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``sum(conj(input) * other)``."""
    check_devices(input, other)
    _check_dot(input, other)
    xp = xp_for(input)
    a = input._data.conj() if input._dtype.category == D.COMPLEX else input._data
    r = _product(input, other, xp.asarray(_matmul_array(xp, a, other._data)), _Vdot)
    return r if out is None else write_out(out, r, "vdot", _DOT_OUT)


# ---- bmm -----------------------------------------------------------------------------------------------
def _bmm_vjp(node, g):
    a, b = node.saved()
    return (g.bmm(_h(b)) if _need(node, 0) else None), (_h(a).bmm(g) if _need(node, 1) else None)


_Bmm = node_class("BmmBackward0", _bmm_vjp)


def _check_bmm(input: Tensor, mat2: Tensor) -> None:
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b1, _n, k), (b2, k2, _m) = input._data.shape, mat2._data.shape
    if b1 != b2 or k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b1}, {k}] but got: [{b2}, {k2}]."
        )


@cast_policy(LOWER)
def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    need_tensor("bmm", mat2, "mat2", 2)  # the parser's check, before the shapes'
    check_devices(input, mat2)
    _check_bmm(input, mat2)
    if input._dtype is not mat2._dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input._dtype)} but found {scalar_name(mat2._dtype)}"
        )
    _not_bool("bmm", input)
    r = _product(input, mat2, _matmul_array(xp_for(input), input._data, mat2._data), _Bmm)
    return r if out is None else write_out(out, r, "bmm", OUT_EXACT)


_Mm.op, _Mv.op, _Dot.op, _Vdot.op, _Bmm.op = mm, mv, dot, vdot, bmm
# grad_fn._saved_<name>: PyTorch's argument names (None for a factor no gradient needs)
_Mm.saved_names, _Mv.saved_names, _Bmm.saved_names = (
    ("self", "mat2"),
    ("self", "vec"),
    ("self", "mat2"),
)
_Dot.saved_names, _Vdot.saved_names = ("self", "tensor"), ("self", "other")


# ---- matmul ---------------------------------------------------------------------------------------------
def _squeeze0_vjp(node, g):
    return (g.unsqueeze(0),)


_SqueezeInplace = node_class(
    "SqueezeBackward4", _squeeze0_vjp
)  # PyTorch squeezes mm's result in place


def _squeeze_result0(r: Tensor) -> Tensor:
    s = _wrap(r._data.reshape(r._data.shape[1:]), r._dtype, r._device)
    if r._rg and _gm.enabled:
        record(_SqueezeInplace, (r,), s, ())
    if r._fw is not None:
        s._fw = r._fw.squeeze(0)
        _register(s)
    return s


def _unsafe_view(t: Tensor, shape) -> Tensor:
    from ..shape.view_ops import _UnsafeView

    shape = tuple(shape)
    r = _wrap(t._data.reshape(shape), t._dtype, t._device)
    if t._rg and _gm.enabled:
        record(_UnsafeView, (t,), r, (), in_shape=t._data.shape)
    if t._fw is not None:
        r._fw = t._fw.reshape(shape)
        _register(r)
    return r


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """Whether PyTorch folds the batch of the bigger operand into one mm/mv (no bmm)."""
    da, db = a._data.ndim, b._data.ndim
    a_larger = da >= db
    big = a._data if a_larger else b._data
    if not (big.ndim >= 3 and (db if a_larger else da) <= 2):
        return False
    if (b if a_larger else a)._rg:  # a smaller gradient in the backward is worth a copy
        return True
    if da == 2:
        return False
    if big.size == 0:
        return True
    shape, st = list(big.shape), list(big.strides)
    if not a_larger:  # the bigger operand enters transposed
        shape[-1], shape[-2], st[-1], st[-2] = shape[-2], shape[-1], st[-2], st[-1]
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _fold(a: Tensor, b: Tensor) -> Tensor:
    transpose = b._data.ndim > a._data.ndim
    if transpose:
        t1, t2 = b.transpose(-2, -1), (a.t() if a._data.ndim == 2 else a)
    else:
        t1, t2 = a, b
    lead = t1._data.shape[:-1]
    folded = t1.reshape(math.prod(lead), t1._data.shape[-1])
    if t2._data.ndim == 2:
        r = _unsafe_view(mm(folded, t2), lead + (t2._data.shape[1],))
        return r.transpose(-2, -1).contiguous() if transpose else r
    return _unsafe_view(mv(folded, t2), lead)


def _batched(a: Tensor, b: Tensor) -> Tensor:
    da, db = a._data.ndim, b._data.ndim
    sa, sb = a._data.shape, b._data.shape
    n = sa[-2] if da > 1 else 1
    m1 = sa[-1]
    m2, p = (sb[-2], sb[-1]) if db > 1 else (sb[0], 1)
    ba, bb = sa[: max(da - 2, 0)], sb[: max(db - 2, 0)]
    try:
        batch = np.broadcast_shapes(ba, bb)
    except ValueError:
        from .._dispatch import broadcast_error

        raise broadcast_error([ba, bb]) from None
    nb = math.prod(batch)
    b2 = b.unsqueeze(-1) if db == 1 else b
    a3 = a.expand(batch + (n, m1)).reshape(nb, n, m1)
    b3 = b2.expand(batch + (m2, p)).reshape(nb, m2, p)
    r = bmm(a3, b3)
    if db == 1:
        r = r.squeeze(-1)
    return _unsafe_view(r, batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ()))


@cast_policy(LOWER)
def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """PyTorch's matmul: dot, mv, mm, a batch folded into mm/mv, or a broadcast bmm."""
    check_devices(input, other)
    if not isinstance(other, Tensor):
        raise TypeError(
            f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    if input.__class__ is SparseTensor or other.__class__ is SparseTensor:
        return _sparse_mm(input, other)
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        r = dot(input, other)
    elif da == 2 and db == 1:
        r = mv(input, other)
    elif da == 1 and db == 2:
        r = _squeeze_result0(mm(input.unsqueeze(0), other))
    elif da == 2 and db == 2:
        r = mm(input, other)
    else:
        if da == 3 and db == 3:  # a 1-batch that requires grad is squeezed so that mm can be used
            if input._data.shape[0] == 1 and other._data.shape[0] != 1 and input._rg:
                input = input.squeeze(0)
            elif other._data.shape[0] == 1 and input._data.shape[0] != 1 and other._rg:
                other = other.squeeze(0)
            if input._data.ndim == 2 and other._data.ndim == 2:
                r = mm(input, other)
                return r if out is None else write_out(out, r, "matmul", OUT_EXACT)
        r = _fold(input, other) if _should_fold(input, other) else _batched(input, other)
    if out is None:
        return r
    return write_out(
        out,
        r,
        "matmul",
        _DOT_OUT if da == db == 1 else _mv_out_msg(out, r) if da == 2 and db == 1 else OUT_EXACT,
    )


def _mv_out_msg(out, r) -> str:
    """mv writes into an out of the right shape through addmv, which words the dtype error its own way."""
    if isinstance(out, Tensor) and out._data.shape == r._data.shape:
        return "addmv input tensors must have the same dtype, but got {out}, {res}, and {res}"
    return OUT_EXACT


# ---- outer / inner -----------------------------------------------------------------------------------------
def outer(input: Tensor, vec2: Tensor, *, out=None) -> Tensor:
    check_devices(input, vec2)
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    r = input.reshape(input._data.shape[0], 1) * vec2
    return r if out is None else write_out(out, r, "mul")


ger = outer


def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    if input._data.ndim == 0 or other._data.ndim == 0:
        r = input * other
    else:
        sa, sb = input._data.shape, other._data.shape
        if sa[-1] != sb[-1]:
            raise RuntimeError(
                "inner() the last dimension must match on both input tensors but got shapes "
                f"{list(sa)} and {list(sb)}"
            )
        from .einsum import tensordot

        r = tensordot(input, other, ([-1], [-1]))
    return r if out is None else write_out(out, r, "inner", _TENSORDOT_OUT, grad=False)


# ---- the fused add* forms --------------------------------------------------------------------------------
def _scaled(t, s):
    return t if s == 1 else t * s


def _fused_vjp(node, g):
    # input itself is not needed (PyTorch does not save it either); each factor is saved only
    # for the other's gradient (``_factors``)
    a, b = node.saved()
    if node.on_arrays and not _gm.enabled and not op_watch._watchers and _real_dense(node, g, a, b):
        return _addmm_arrays(node, g, a, b)
    gi = _scaled(g, node.beta) if _need(node, 0) else None
    ga = _scaled(node.grad_a(node, g, b), node.alpha) if _need(node, 1) else None
    gb = _scaled(node.grad_b(node, g, a), node.alpha) if _need(node, 2) else None
    return gi, ga, gb


def _real_dense(node, g, a, b) -> bool:
    """Whether a product node's backward may run on arrays: real float32/float64 factors of
    one dtype, dense (``a`` or ``b`` is None when not saved)."""
    dt = node._shapes[-1][1]
    return (
        dt in _REAL and node._shapes[-2][1] is dt and g._dtype is dt and g._device.type != "meta"
        and not g.is_sparse and not (a is not None and a.is_sparse or b is not None and b.is_sparse)
    )  # fmt: skip


_REAL = (D.float32, D.float64)


def _addmm_arrays(node, g, a, b):
    """AddmmBackward0 on arrays when no graph of the backward is recorded: the two products
    straight through BLAS, without Tensor-op dispatch (the same products, the same values)."""
    xp, gd = xp_for(g), g._data
    gi = ga = gb = None
    if _need(node, 0):  # the bias's gradient summed to its shape here, not by the engine
        gi = _wrap(_sum_to_array(xp, gd if node.beta == 1 else gd * node.beta, node._shapes[0][0]),
                   g._dtype, g._device)  # fmt: skip
    ga, gb = _mm_arrays(node, g, a, b, first=1)
    if node.alpha != 1:
        ga, gb = (None if t is None else t * node.alpha for t in (ga, gb))
    return gi, ga, gb


def _plain_mm(m1: Tensor, m2: Tensor) -> bool:
    """Whether ``mm(m1, m2)`` is a plain product of real dense matrices that passes mm's checks."""
    a, b = m1._data, m2._data
    return (
        a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0]
        and m1._dtype in _REAL and m2._dtype is m1._dtype
        and m1._device == m2._device and m1._device.type != "meta"
        and m1.__class__ is not SparseTensor and m2.__class__ is not SparseTensor
    )  # fmt: skip


def _sum_to_array(xp, a, shape):
    """``a`` summed down to ``shape`` (the engine's ``sum_to``, on arrays: the same reduction)."""
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1
    )
    if not dims:
        return a
    if dims == tuple(range(lead)):  # a bias: no reshape, so the sum is an array of its own
        if lead == 1 and xp is np and a.ndim == 2 and a.dtype.char in "fd":
            r = column_sums(a)  # PyTorch's order of additions, without sum's dispatch
            if r is not None:
                return r
        return _sum_array(xp, a, dims, False)
    return _sum_array(xp, a, dims, True).reshape(shape)


def _fused_node(name, product, grad_a, grad_b):
    cls = node_class(name, _fused_vjp)
    cls.on_arrays = False
    cls.product, cls.grad_a, cls.grad_b = (
        staticmethod(product),
        staticmethod(grad_a),
        staticmethod(grad_b),
    )
    return cls


def _fused_jvp(node, input, m1, m2, beta, alpha, shape):
    t = None
    for part in (
        _scaled(input._fw, beta) if input._fw is not None else None,
        _scaled(node.product(m1._fw, m2), alpha) if m1._fw is not None else None,
        _scaled(node.product(m1, m2._fw), alpha) if m2._fw is not None else None,
    ):
        if part is not None:
            t = part if t is None else t + part
    return t.expand(shape) if t.shape != shape else t


@silent
def _fused(name, node, input, m1, m2, beta, alpha, out, dtype=None):
    """``beta * input + alpha * product(m1, m2)`` on arrays, with one backward node."""
    owned = node.on_arrays and _plain_mm(m1, m2)  # mm's checks pass: skip its dispatch
    if name in _ROUNDED_ONCE and m1._data.dtype.char in D.HALF_CHARS and m2._dtype is m1._dtype:
        return _fused_half(name, node, input, m1, m2, beta, alpha, out)
    if owned:
        xp, device = xp_for(m1), m1._device
        pd, dt = _matmul_array(xp, m1._data, m2._data), dtype or m1._dtype
    else:
        from ...autograd.grad_mode import no_grad  # (imported here: a linear layer never needs it)

        with no_grad():
            p = node.product(m1.detach(), m2.detach())
        xp, device, pd, dt = xp_for(p), p._device, p._data, dtype or p._dtype
    pd = pd if alpha == 1 else pd * alpha
    if input._data.shape != pd.shape and not _expandable(input._data.shape, pd.shape):
        from ..shape.view_ops import expand

        expand(input.detach(), pd.shape)  # PyTorch's error when input does not broadcast
    if beta == 0:  # input is ignored, even its NaNs
        data = xp.array(xp.broadcast_to(pd, pd.shape), dtype=dt.np)
    elif beta == 1 and owned and pd.dtype == dt.np == input._data.dtype:
        # the product is this function's own array: the bias (a linear layer's) is added into
        # it, one buffer and one pass less; addition commutes, so the same bits
        data = xp.add(input._data, pd, out=pd)
    else:
        data = xp.add(input._data if beta == 1 else input._data * beta, pd, dtype=dt.np)
    if data.dtype != dt.np:
        data = xp.asarray(data, dt.np)
    r = _wrap(data, dt, device)
    if _gm.enabled and (input._rg or m1._rg or m2._rg):
        if node.on_arrays:  # addmm: mm's backward, which needs the factors' layouts
            layouts = _layouts(m1, m2)
            record(
                node, (input, m1, m2), r, _factors(m1, m2), beta=beta, alpha=alpha, layouts=layouts
            )
        else:
            record(node, (input, m1, m2), r, _factors(m1, m2), beta=beta, alpha=alpha)
    if _fw_state.level and any(t._fw is not None for t in (input, m1, m2)):
        r._fw = on_primals(_fused_jvp, node, input, m1, m2, beta, alpha, r.shape)
        _register(r)
    if name == "addbmm":  # resizes a non-empty out silently; wants out in the inputs' dtype
        msg = "self and mat2 must have the same dtype, but got {out} and {res}"
        return r if out is None else write_out(out, r, name, msg, warn=False)
    return r if out is None else write_out(out, r, name, None if name == "addr" else OUT_EXACT)


# PyTorch's CPU addmm/baddbmm/addmv in float16/bfloat16 add ``beta * input`` to the float32
# product and round once (a linear layer under autocast); rounding the product first differs
# in the last bit for about half of the elements.
_ROUNDED_ONCE = ("addmm", "baddbmm", "addmv")


def _fused_half(name, node, input, m1, m2, beta, alpha, out):
    """``_fused`` for half operands: computed in float32 on float32 copies, rounded once."""
    from ...autograd.grad_mode import no_grad

    with no_grad():
        r32 = _fused(name, node, input.detach().float(), m1.detach().float(), m2.detach().float(),
                     beta, alpha, None)  # fmt: skip
    data = r32._data.astype(m1._data.dtype)
    r = _wrap(data, m1._dtype, m1._device)
    if _gm.enabled and (input._rg or m1._rg or m2._rg):
        record(node, (input, m1, m2), r, _factors(m1, m2), beta=beta, alpha=alpha,
               layouts=_layouts(m1, m2))  # fmt: skip
    if _fw_state.level and any(t._fw is not None for t in (input, m1, m2)):
        r._fw = on_primals(_fused_jvp, node, input, m1, m2, beta, alpha, r.shape)
        _register(r)
    return r if out is None else write_out(out, r, name, OUT_EXACT)


_Addmm = _fused_node(
    "AddmmBackward0",
    mm,
    lambda node, g, b: _mat1_grad_op(g, node.layouts[0], b),
    lambda node, g, a: _mat2_grad_op(g, a, node.layouts[1]),
)
_Addmm.on_arrays = True  # real dense operands: the backward on arrays (_addmm_arrays)


def _sparse_mm(a: Tensor, b: Tensor) -> Tensor:
    from ...sparse.matmul import mm as sparse_mm

    return sparse_mm(a, b)


@cast_policy(LOWER)
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    check_devices(input, mat1, mat2)
    if mat1.__class__ is SparseTensor:  # PyTorch's sparse addmm (SparseAddmmBackward0)
        from ...sparse.matmul import addmm as sparse_addmm

        return sparse_addmm(input, mat1, mat2, beta=beta, alpha=alpha, sparse_grad=False)
    if mat1._data.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got " + f"{mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got " + f"{mat2._data.ndim}-D tensor")
    if input._dtype is not mat2._dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {scalar_name(input._dtype)} and {scalar_name(mat2._dtype)}"
        )
    return _fused("addmm", _Addmm, input, mat1, mat2, beta, alpha, out)


_Addmv = _fused_node(
    "AddmvBackward0", mv, lambda node, g, v: outer(g, _conj(v)), lambda node, g, m: _h(m).mv(g)
)


@cast_policy(LOWER, ("cuda",))
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    check_devices(input, mat, vec)
    _check_mv(mat, vec, input._dtype)
    n = mat._data.shape[0]
    if input._data.ndim > 1 or (input._data.ndim == 1 and input._data.shape[0] not in (1, n)):
        raise RuntimeError(
            f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}), "
            f"mat ({n}x{mat._data.shape[1]}), vec ({vec._data.shape[0]})"
        )
    return _fused("addmv", _Addmv, input, mat, vec, beta, alpha, out)


_Addr = _fused_node(
    "AddrBackward0",
    outer,
    lambda node, g, b: g.mv(_conj(b)),
    lambda node, g, a: _h(g).mv(a).conj() if g.is_complex() else g.t().mv(a),
)


@cast_policy(LOWER, ("cuda",))
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    from .._dispatch import result_dtype

    return _fused(
        "addr", _Addr, input, vec1, vec2, beta, alpha, out, dtype=result_dtype(input, vec1, vec2)
    )


def _check_baddbmm(name, input, b1, b2):
    if not (input._dtype is b1._dtype is b2._dtype):
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {_cname(input._dtype)}, batch1: {_cname(b1._dtype)}, "
            f"batch2: {_cname(b2._dtype)}"
        )


_Baddbmm = _fused_node(
    "BaddbmmBackward0", bmm, lambda node, g, b: g.bmm(_h(b)), lambda node, g, a: _h(a).bmm(g)
)


@cast_policy(LOWER)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    check_devices(input, batch1, batch2)
    _check_bmm(batch1, batch2)
    _check_baddbmm("baddbmm", input, batch1, batch2)
    return _fused("baddbmm", _Baddbmm, input, batch1, batch2, beta, alpha, out)


def _bmm_sum(a, b):
    return bmm(a, b).sum(0)


def _addbmm_grad_a(node, g, b):
    return g.unsqueeze(0).expand(b._data.shape[0], *g.shape).bmm(_h(b))


def _addbmm_grad_b(node, g, a):
    return _h(a).bmm(g.unsqueeze(0).expand(a._data.shape[0], *g.shape))


_Addbmm = _fused_node("AddbmmBackward0", _bmm_sum, _addbmm_grad_a, _addbmm_grad_b)


@cast_policy(LOWER)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1._data.shape[0] != batch2._data.shape[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {batch1._data.shape[0]} and {batch2._data.shape[0]}"
        )
    _check_bmm(batch1, batch2)
    _check_baddbmm("addbmm", input, batch1, batch2)
    return _fused("addbmm", _Addbmm, input, batch1, batch2, beta, alpha, out)


_Addmm.saved_names, _Addmv.saved_names, _Addr.saved_names = (
    ("mat1", "mat2"),
    ("mat", "vec"),
    ("vec1", "vec2"),
)
_Baddbmm.saved_names = _Addbmm.saved_names = ("batch1", "batch2")


# ---- kron / trace / vander ---------------------------------------------------------------------------------
def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    nd = builtins.max(input._data.ndim, other._data.ndim)
    a_shape = (1,) * (nd - input._data.ndim) + tuple(input.shape)
    b_shape = (1,) * (nd - other._data.ndim) + tuple(other.shape)
    a = input.reshape([s for k in a_shape for s in (k, 1)])
    b = other.reshape([s for k in b_shape for s in (1, k)])
    prod = a * b
    from ..shape.view_ops import _UnsafeView

    shape = tuple(x * y for x, y in zip(a_shape, b_shape))
    r = _wrap(prod._data.reshape(shape), prod._dtype, prod._device)
    if prod._rg and _gm.enabled:
        record(_UnsafeView, (prod,), r, (), in_shape=prod._data.shape)
    _tangent(r, (prod,), lambda t: t.reshape(shape))
    return r if out is None else write_out(out, r, "mul")


# ---- cross -------------------------------------------------------------------------------------------------------
def _cross_vjp(node, g):
    a, b = node.saved()
    d = node.dim
    ga = (
        linalg_cross(b.conj() if b.is_complex() else b, g, dim=d)
        if node.next_functions[0][0] is not None
        else None
    )
    gb = (
        linalg_cross(g, a.conj() if a.is_complex() else a, dim=d)
        if node.next_functions[1][0] is not None
        else None
    )
    return ga, gb


_Cross = node_class("LinalgCrossBackward0", _cross_vjp)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    nd = input._data.ndim
    d = _wrapdim(dim, nd)
    if input._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._data.shape[d]} and {other._data.shape[d]}"
        )
    dt = result_dtype(input, other)
    xp = xp_for(input)
    data = xp.cross(
        input._data.astype(dt.np, copy=False), other._data.astype(dt.np, copy=False), axis=d
    )
    r = _wrap(xp.ascontiguousarray(data.astype(dt.np, copy=False)), dt, input._device)
    if _gm.enabled and (input._rg or other._rg):
        record(_Cross, (input, other), r, (input, other), dim=d)
    if _fw_state.level and (input._fw is not None or other._fw is not None):
        r._fw = on_primals(
            lambda a, b: linalg_cross(_fw(a), b, dim=d) + linalg_cross(a, _fw(b), dim=d),
            input,
            other,
        )
        _register(r)
    if out is not None:
        from .._dispatch import write_out

        return write_out(out, r, "linalg_cross", OUT_EXACT)
    return r


def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    if dim is None:
        from ..._flags import warn_once

        warn_once(
            "cross_default_dim",
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)",
        )
        # PyTorch's default: the input's first dim of size 3 (not the broadcast shape's)
        dim = next((k for k, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim, out=out)


# ---- chain_matmul ------------------------------------------------------------------------------------------------
@cast_policy(LOWER, ("cuda",))
def chain_matmul(*matrices, out=None) -> Tensor:
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
        "instead, which accepts a list of two or more tensors rather than multiple parameters.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )
    for m in matrices:
        if isinstance(m, Tensor) and m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        r = matrices[0].clone()
    else:
        from ...linalg import multi_dot

        r = multi_dot(matrices)
    if out is None:
        return r
    return write_out(
        out, r, "mm", "multi_dot(): expected out tensor to have dtype {res_cpp} but got {out_cpp}"
    )
