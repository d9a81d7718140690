"""Matrix products: matmul and the BLAS family (mm, mv, dot, bmm, addmm, addmv, addr,
addbmm, baddbmm, outer). Forwards go to NumPy/CuPy matmul (BLAS); VJPs are matmuls too."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from ..autograd.forward_ad import _register
from ..autograd.grad_mode import state as _gm
from ._dispatch import Tensor, _fw_state, _wrap, node_class, record, scalar_name, write_out, xp_for


def _h(t: Tensor) -> Tensor:
    """Conjugate transpose of the last two dims (plain transpose for real tensors)."""
    m = t.transpose(-2, -1)
    return m.conj() if t._dtype.category == D.COMPLEX else m


def _need(node, i):
    return node.next_functions[i][0] is not None


def _check_dtypes(name, a, b):
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_sname(a)} != {_sname(b)}"
            if name in ("mm", "addmm", "matmul")
            else f"expected scalar type {scalar_name(a._dtype)} but found {scalar_name(b._dtype)}"
        )


def _sname(t):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}.get(t._dtype.name, t._dtype.name)  # fmt: skip


def _check_float(name, t):
    if t._dtype.category == D.BOOL:
        raise RuntimeError(f'"{name}" not implemented for \'Bool\'')


def _product(a: Tensor, b: Tensor, data, node, saved=None, **attrs) -> Tensor:
    r = _wrap(data, a._dtype, a._device)
    if _gm.enabled and (a._rg or b._rg):
        record(node, (a, b), r, (a, b) if saved is None else saved, **attrs)
    if _fw_state.level and (a._fw is not None or b._fw is not None):
        t = None
        if a._fw is not None:
            t = matmul(a._fw, b)
        if b._fw is not None:
            u = matmul(a, b._fw)
            t = u if t is None else t + u
        r._fw = t
        _register(r)
    return r


# ---- mm / mv / dot -----------------------------------------------------------------------------
def _mm_vjp(node, g):
    a, b = node.saved()
    return (g.mm(_h(b)) if _need(node, 0) else None), (_h(a).mm(g) if _need(node, 1) else None)


_Mm = node_class("MmBackward0", _mm_vjp)


def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    (n, k), (k2, m) = input._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    _check_dtypes("mm", input, mat2)
    _check_float("addmm_impl_cpu_", input)
    r = _product(input, mat2, xp_for(input).matmul(input._data, mat2._data), _Mm)
    return r if out is None else write_out(out, r, "mm")


def _mv_vjp(node, g):
    m, v = node.saved()
    gm = g.unsqueeze(-1) * (v.conj() if v.is_complex() else v) if _need(node, 0) else None
    return gm, (_h(m).mv(g) if _need(node, 1) else None)


_Mv = node_class("MvBackward0", _mv_vjp)


def mv(input: Tensor, vec: Tensor, *, out=None) -> Tensor:
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}"
        )
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({input._data.shape[0]}), mat ({input._data.shape[0]}x{input._data.shape[1]}), "
            f"vec ({vec._data.shape[0]})"
        )
    _check_dtypes("mv", input, vec)
    r = _product(input, vec, xp_for(input).matmul(input._data, vec._data), _Mv)
    return r if out is None else write_out(out, r, "mv")


def _dot_vjp(node, g):
    a, b = node.saved()
    return (g * b if _need(node, 0) else None), (g * a if _need(node, 1) else None)


_Dot = node_class("DotBackward0", _dot_vjp)


def dot(input: Tensor, tensor: Tensor, *, out=None) -> Tensor:
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors"
        )
    if input._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and src [{tensor._data.shape[0]}] "
            "to have the same number of elements, but got "
            f"{input._data.shape[0]} and {tensor._data.shape[0]} elements respectively"
        )
    if input._dtype is not tensor._dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {scalar_name(input._dtype)} and "
            f"{scalar_name(tensor._dtype)}"
        )
    xp = xp_for(input)
    r = _product(input, tensor, xp.asarray(xp.dot(input._data, tensor._data), input._dtype.np), _Dot)
    return r if out is None else write_out(out, r, "dot")


def vdot(input: Tensor, other: Tensor) -> Tensor:
    return dot(input.conj(), other)


inner_dot = dot


# ---- batched --------------------------------------------------------------------------------------
def _batched_vjp(node, g):
    a, b = node.saved()
    ga = gb = None
    if _need(node, 0):
        ga = matmul(g, _h(b))
    if _need(node, 1):
        gb = matmul(_h(a), g)
    return ga, gb


_Bmm = node_class("BmmBackward0", _batched_vjp)
_BatchedMatmul = node_class("UnsafeViewBackward0", _batched_vjp)


def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b1, _n, k), (b2, k2, _m) = input._data.shape, mat2._data.shape
    if b1 != b2 or k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b1}, {k}] but got: [{b2}, {k2}]."
        )
    _check_dtypes("bmm", input, mat2)
    r = _product(input, mat2, xp_for(input).matmul(input._data, mat2._data), _Bmm)
    return r if out is None else write_out(out, r, "bmm")


def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """PyTorch's matmul dispatch: dot, mv, mm, or a broadcast batched product."""
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        r = dot(input, other)
    elif da == 2 and db == 1:
        r = mv(input, other)
    elif da == 2 and db == 2:
        r = mm(input, other)
    elif da == 1 and db == 2:
        r = mm(input.unsqueeze(0), other).squeeze(0) if input._data.shape[0] == other._data.shape[0] else _mm_err(input, other)
    elif db == 1:
        if input._data.shape[-1] != other._data.shape[0]:
            _mm_err(input, other)
        lead = input._data.shape[:-1]
        r = mv(input.reshape(-1, input._data.shape[-1]), other).view(lead) if input.is_contiguous() else _batched(input, other.unsqueeze(-1)).squeeze(-1)
    elif da >= 3 and db == 2 and input.is_contiguous():
        if input._data.shape[-1] != other._data.shape[0]:
            _mm_err(input, other)
        lead = input._data.shape[:-1]
        r = _unsafe_view(mm(input.reshape(-1, input._data.shape[-1]), other), lead + (other._data.shape[-1],))
    elif da == 1:
        r = _batched(input.unsqueeze(0), other).squeeze(-2)
    else:
        r = _batched(input, other)
    return r if out is None else write_out(out, r, "matmul")


def _unsafe_view(t: Tensor, shape) -> Tensor:
    from .shape import _UnsafeView

    r = _wrap(t._data.reshape(shape), t._dtype, t._device)
    if t._rg and _gm.enabled:
        record(_UnsafeView, (t,), r, (), in_shape=t._data.shape)
    if t._fw is not None:
        r._fw = t._fw.reshape(shape)
        _register(r)
    return r


def _mm_err(a, b):
    sa = "x".join(map(str, a._data.shape[-2:] if a._data.ndim > 1 else (1, a._data.shape[0])))
    sb = "x".join(map(str, b._data.shape[-2:] if b._data.ndim > 1 else b._data.shape))
    raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")


def _batched(a: Tensor, b: Tensor) -> Tensor:
    if a._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(a._data.shape[:-2]))}, {a._data.shape[-1]}] but got: "
            f"[{int(np.prod(b._data.shape[:-2]))}, {b._data.shape[-2]}]."
        )
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(a._dtype)} but found {scalar_name(b._dtype)}"
        )
    try:
        np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
    except ValueError:
        from ._dispatch import broadcast_error

        raise broadcast_error([a._data.shape[:-2], b._data.shape[:-2]]) from None
    same3 = a._data.ndim == 3 and b._data.ndim == 3 and a._data.shape[0] == b._data.shape[0]
    return _product(a, b, xp_for(a).matmul(a._data, b._data), _Bmm if same3 else _BatchedMatmul)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    return input.unsqueeze(-1) * vec2


ger = outer


def inner(input: Tensor, other: Tensor) -> Tensor:
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    return matmul(input, other.transpose(-1, -2) if other.dim() > 1 else other) if other.dim() <= 2 else tensordot(input, other, dims=([-1], [-1]))


# ---- add* fused forms -----------------------------------------------------------------------------
def _scaled(t, s):
    return t if s == 1 else t * s


def _addmm_vjp(node, g):
    inp, a, b = node.saved()
    gi = _scaled(g, node.beta) if _need(node, 0) else None
    ga = _scaled(g.mm(_h(b)), node.alpha) if _need(node, 1) else None
    gb = _scaled(_h(a).mm(g), node.alpha) if _need(node, 2) else None
    return gi, ga, gb


_Addmm = node_class("AddmmBackward0", _addmm_vjp)


def _fused(name, node, input, m1, m2, prod_fn, beta, alpha, out):
    """``beta * input + alpha * prod(m1, m2)`` computed on arrays, one backward node."""
    with _no_grad():
        p = prod_fn(m1.detach(), m2.detach())
    xp = xp_for(p)
    pd = p._data if alpha == 1 else p._data * alpha
    if beta == 0:
        data = xp.broadcast_to(pd, pd.shape).copy()
    else:
        i = input._data if beta == 1 else input._data * beta
        try:
            data = pd + i
        except ValueError:
            from ._dispatch import broadcast_error

            raise broadcast_error([input._data.shape, pd.shape]) from None
        if data.shape != pd.shape:
            raise RuntimeError(f"The expanded size of the tensor ({pd.shape[-1]}) must match the existing size ({i.shape[-1]}) at non-singleton dimension")
    r = _wrap(data.astype(p._data.dtype, copy=False), p._dtype, p._device)
    if _gm.enabled and (input._rg or m1._rg or m2._rg):
        record(node, (input, m1, m2), r, (input, m1, m2), beta=beta, alpha=alpha)
    if _fw_state.level and any(t._fw is not None for t in (input, m1, m2)):
        t = None
        for part in (
            _scaled(input._fw, beta) if input._fw is not None else None,
            _scaled(prod_fn(m1._fw, m2), alpha) if m1._fw is not None else None,
            _scaled(prod_fn(m1, m2._fw), alpha) if m2._fw is not None else None,
        ):
            if part is not None:
                t = part if t is None else t + part
        r._fw = t.expand(r.shape) if t.shape != r.shape else t
        _register(r)
    return r if out is None else write_out(out, r, name)


def _no_grad():
    from ..autograd.grad_mode import no_grad

    return no_grad()


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    return _fused("addmm", _Addmm, input, mat1, mat2, mm, beta, alpha, out)


def _addmv_vjp(node, g):
    inp, m, v = node.saved()
    gi = _scaled(g, node.beta) if _need(node, 0) else None
    gm = _scaled(g.unsqueeze(-1) * v, node.alpha) if _need(node, 1) else None
    gv = _scaled(_h(m).mv(g), node.alpha) if _need(node, 2) else None
    return gi, gm, gv


_Addmv = node_class("AddmvBackward0", _addmv_vjp)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    return _fused("addmv", _Addmv, input, mat, vec, mv, beta, alpha, out)


def _addr_vjp(node, g):
    inp, a, b = node.saved()
    gi = _scaled(g, node.beta) if _need(node, 0) else None
    ga = _scaled(g.mv(b), node.alpha) if _need(node, 1) else None
    gb = _scaled(g.t().mv(a), node.alpha) if _need(node, 2) else None
    return gi, ga, gb


_Addr = node_class("AddrBackward0", _addr_vjp)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    return _fused("addr", _Addr, input, vec1, vec2, outer, beta, alpha, out)


def _baddbmm_vjp(node, g):
    inp, a, b = node.saved()
    gi = _scaled(g, node.beta) if _need(node, 0) else None
    ga = _scaled(g.bmm(_h(b)), node.alpha) if _need(node, 1) else None
    gb = _scaled(_h(a).bmm(g), node.alpha) if _need(node, 2) else None
    return gi, ga, gb


_Baddbmm = node_class("BaddbmmBackward0", _baddbmm_vjp)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    return _fused("baddbmm", _Baddbmm, input, batch1, batch2, bmm, beta, alpha, out)


def _addbmm_vjp(node, g):
    inp, a, b = node.saved()
    gi = _scaled(g, node.beta) if _need(node, 0) else None
    ge = g.unsqueeze(0).expand(a.shape[0], *g.shape)
    ga = _scaled(ge.bmm(_h(b)), node.alpha) if _need(node, 1) else None
    gb = _scaled(_h(a).bmm(ge), node.alpha) if _need(node, 2) else None
    return gi, ga, gb


_Addbmm = node_class("AddbmmBackward0", _addbmm_vjp)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    return _fused("addbmm", _Addbmm, input, batch1, batch2, lambda a, b: bmm(a, b).sum(0), beta, alpha, out)


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    if isinstance(dims, int):
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        da, db = ([dims[0]] if isinstance(dims[0], int) else list(dims[0])), ([dims[1]] if isinstance(dims[1], int) else list(dims[1]))
    da = [d % a.dim() for d in da]
    db = [d % b.dim() for d in db]
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    k = int(np.prod([a.shape[d] for d in da]))
    am = a.permute(fa + da).reshape(-1, k)
    bm = b.permute(db + fb).reshape(k, -1)
    return mm(am, bm).reshape([a.shape[d] for d in fa] + [b.shape[d] for d in fb])


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation via pairwise contractions of permuted/reshaped operands."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if "..." in eq:
        raise NotImplementedError("einsum with ellipsis is not supported yet")
    if not _:
        letters = sorted(c for c in set(lhs.replace(",", "")) if lhs.replace(",", "").count(c) == 1)
        rhs = "".join(letters)
    ops = [_diag_reduce(t, term) for t, term in zip(operands, terms)]
    cur, cur_term = ops[0]
    for nxt, nxt_term in ops[1:]:
        "".join(t for _, t in ops) + rhs
        cur, cur_term = _contract(cur, cur_term, nxt, nxt_term, rhs, [t for _, t in ops])
    # sum out letters not in the output, then permute
    drop = [i for i, c in enumerate(cur_term) if c not in rhs]
    if drop:
        cur = cur.sum(drop)
        cur_term = "".join(c for c in cur_term if c in rhs)
    return cur.permute([cur_term.index(c) for c in rhs]) if cur_term != rhs else cur


def _diag_reduce(t, term):
    """Handle repeated letters within one operand by taking diagonals."""
    while len(set(term)) != len(term):
        for i, c in enumerate(term):
            j = term.find(c, i + 1)
            if j != -1:
                t = t.diagonal(0, i, j)
                term = term[:i] + term[i + 1 : j] + term[j + 1 :] + c
                break
    return t, term


def _contract(a, ta, b, tb, rhs, all_terms):
    keep = set(rhs)
    for term in all_terms:
        pass
    shared = [c for c in ta if c in tb]
    batch = [c for c in shared if c in keep]
    summed = [c for c in shared if c not in keep]
    fa = [c for c in ta if c not in shared]
    fb = [c for c in tb if c not in shared]
    pa = a.permute([ta.index(c) for c in batch + fa + summed])
    pb = b.permute([tb.index(c) for c in batch + summed + fb])
    sb = [a.shape[ta.index(c)] for c in batch]
    sfa = [a.shape[ta.index(c)] for c in fa]
    sfb = [b.shape[tb.index(c)] for c in fb]
    k = int(np.prod([a.shape[ta.index(c)] for c in summed])) if summed else 1
    nb = int(np.prod(sb)) if sb else 1
    ma = pa.reshape(nb, int(np.prod(sfa)) if sfa else 1, k)
    mb = pb.reshape(nb, k, int(np.prod(sfb)) if sfb else 1)
    r = ma.bmm(mb).reshape(sb + sfa + sfb)
    return r, "".join(batch + fa + fb)
