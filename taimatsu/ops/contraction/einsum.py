"""Tensor contractions built from the BLAS products: tensordot and einsum.

Both reduce to permute + reshape + mm/bmm, so they are differentiable (to any order) through
those ops. tensordot follows PyTorch's graph (Permute -> View -> Mm/Dot -> View). einsum follows
PyTorch's algorithm (operands aligned to one order of labels, contracted left to right by one
bmm per pair laid out as PyTorch lays it out), so its result's strides and grad_fn are
PyTorch's too. (PyTorch contracts 3+ operands along an opt_einsum path when that package is
installed; here always left to right.)
"""

from __future__ import annotations

import math
import operator

from ..._autocast import LOWER, cast_policy
from ..._tensor.core import Tensor
from .._dispatch import check_devices


# ---- tensordot --------------------------------------------------------------------------------------
def _dims_list(d):
    if isinstance(d, Tensor):
        d = d.tolist()
    return [d] if isinstance(d, int) else list(d)


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    from .._dispatch import write_out
    from .matmul import dot, mm

    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of dim lists")
        da, db = _dims_list(dims[0]), _dims_list(dims[1])
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    na, nb = a.dim(), b.dim()
    ca = [d % na if na else 0 for d in da]
    cb = [d % nb if nb else 0 for d in db]
    csize = 1
    for i, (d1, d2) in enumerate(zip(ca, cb)):
        s1, s2 = a.shape[d1], b.shape[d2]
        if s1 == s2:
            csize *= s1
        elif s2 == 1:  # a size-1 contracted dim broadcasts: sum the other side over it
            a = a.sum(d1, keepdim=True)
        elif s1 == 1:
            b = b.sum(d2, keepdim=True)
        else:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {s1} in dim {da[i]} and second has "
                f"size {s2} in dim {db[i]}"
            )
    fa = [d for d in range(na) if d not in ca]
    fb = [d for d in range(nb) if d not in cb]
    size1 = math.prod(a.shape[d] for d in fa)
    size2 = math.prod(b.shape[d] for d in fb)
    rsizes = [a.shape[d] for d in fa] + [b.shape[d] for d in fb]
    t1 = a.permute(fa + ca)
    t2 = b.permute(cb + fb)
    if size1 == 1 and size2 == 1:
        r = dot(
            t1 if t1.dim() == 1 else t1.reshape(csize), t2 if t2.dim() == 1 else t2.reshape(csize)
        )
    else:
        r = mm(t1.reshape(size1, csize), t2.reshape(csize, size2))
    r = r.reshape(rsizes)
    return (
        r
        if out is None
        else write_out(
            out,
            r,
            "tensordot",
            "tensordot: Expected the output tensor to have dtype {res}, but got an output tensor with dtype {out}",
            grad=False,
        )
    )


# ---- einsum --------------------------------------------------------------------------------------------------
_ELL = "..."


def _parse_term(term: str, pos: int, eq_len: int) -> list:
    """Labels of one operand: letters, and one '...' (kept as the token _ELL)."""
    labels, i = [], 0
    while i < len(term):
        c = term[i]
        if term.startswith(_ELL, i):
            if _ELL in labels:
                raise RuntimeError(
                    "einsum(): found '.' for operand 0 that is not part of any ellipsis"
                )
            labels.append(_ELL)
            i += 3
            continue
        if not c.isascii() or not c.isalpha():
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {pos + i} in the equation string, subscripts must be in "
                "[a-zA-Z]"
            )
        labels.append(c)
        i += 1
    return labels


def _parse(equation: str, ops):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms, pos = [], 0
    for term in lhs.split(","):
        terms.append(_parse_term(term, pos, len(eq)))
        pos += len(term) + 1
    if len(terms) > len(ops):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(ops):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    out = _parse_term(rhs, len(lhs) + 2, len(eq)) if arrow else None
    return terms, out


def _expand_ellipsis(terms, ops):
    """Replace '...' by per-dim tokens ('.0', '.1', ... right-aligned); check dim counts."""
    ell = 0
    for i, (labels, t) in enumerate(zip(terms, ops)):
        n = len(labels) - (_ELL in labels)
        if _ELL in labels:
            if n > t.dim():
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({n}) is more than the number of dimensions "
                    f"({t.dim()}) for operand {i}"
                )
            ell = max(ell, t.dim() - n)
        elif n != t.dim():
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({n}) does not match the number of dimensions "
                f"({t.dim()}) for operand {i} and no ellipsis was given"
            )
    tokens = [f".{k}" for k in range(ell)]
    out = []
    for labels, t in zip(terms, ops):
        if _ELL in labels:
            k = t.dim() - (len(labels) - 1)
            j = labels.index(_ELL)
            labels = labels[:j] + tokens[ell - k :] + labels[j + 1 :]
        out.append(labels)
    return out, tokens


def _output_labels(terms, out, tokens):
    if out is None:
        counts = {}
        for labels in terms:
            for c in labels:
                counts[c] = counts.get(c, 0) + 1
        letters = sorted(c for c, n in counts.items() if n == 1 and not c.startswith("."))
        return tokens + letters
    seen = set()
    used = {c for labels in terms for c in labels}
    res = []
    for c in out:
        if c == _ELL:
            res.extend(tokens)
            continue
        if c in seen:
            raise RuntimeError(
                f"einsum(): output subscript {c} appears more than once in the output"
            )
        if c not in used:
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any input operand"
            )
        seen.add(c)
        res.append(c)
    return res


def _check_repeats(terms, ops):
    """A label repeated within one operand (a diagonal) needs equal sizes, not broadcasting."""
    for i, (labels, t) in enumerate(zip(terms, ops)):
        first = {}
        for c, s in zip(labels, t.shape):
            prev = first.setdefault(c, s)
            if s != prev:
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't match, "
                    f"{s} != {prev}"
                )


def _sizes(terms, ops):
    _check_repeats(terms, ops)
    sizes = {}
    for i, (labels, t) in enumerate(zip(terms, ops)):
        for j, (c, s) in enumerate(zip(labels, t.shape)):
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = s
            elif s != prev and s != 1:
                raise _broadcast_error(c, i, j, s, prev)
    return sizes


def _broadcast_error(label, i, j, size, prev) -> RuntimeError:
    if label.startswith("."):  # PyTorch's text, its missing space included
        return RuntimeError(
            f"einsum(): dimension {j} covered by ellipsis in operand {i}has size {size} which does "
            f"not broadcast with previously seen ellipsis with size {prev} for the respective dimension"
        )
    return RuntimeError(
        f"einsum(): subscript {label} has size {size} for operand {i} which does not broadcast "
        f"with previously seen size {prev}"
    )


def _sublist_letters(sublist) -> str:
    """Subscripts 0..51 as the letters A..Z, a..z (PyTorch's mapping), ``Ellipsis`` as '...'."""
    out = []
    for n in sublist:
        if n is Ellipsis:
            out.append("...")
            continue
        n = operator.index(n)
        if not 0 <= n < 52:
            raise ValueError(
                "einsum(): subscript in subscript list is not within the valid range [0, 52)"
            )
        out.append(chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26))
    return "".join(out)


def _from_sublists(args):
    """``einsum(op0, sublist0, op1, sublist1, ..., [out_sublist])`` as (equation, operands)."""
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, "
            "or at least one operand and its subscripts list"
        )
    operands, sublists = args[0::2], args[1::2]
    equation = ",".join(_sublist_letters(s) for s in sublists[: len(operands)])
    if len(args) % 2:  # an odd count ends with the output sublist
        operands = operands[:-1]
        equation += "->" + _sublist_letters(args[-1])
    return equation, operands


@cast_policy(LOWER, ("cuda",))
def einsum(equation: str, *operands) -> Tensor:
    """``torch.einsum``: Einstein summation (with '...' and size-1 broadcasting), written with an
    equation string or in the sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    check_devices(*operands)
    if isinstance(equation, Tensor):
        equation, operands = _from_sublists((equation, *operands))
    elif not operands:
        _from_sublists((equation,))  # PyTorch's message for a lone argument
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    terms, out = _parse(equation, operands)
    terms, tokens = _expand_ellipsis(terms, operands)
    _sizes(terms, operands)  # PyTorch's errors for sizes that do not broadcast
    out = _output_labels(terms, out, tokens)
    return _contract_aligned(operands, terms, out, tokens)


def _contract_aligned(operands, terms, out, tokens) -> Tensor:
    """PyTorch's einsum from here on (so the result's layout, a view of a product or a sum,
    is PyTorch's): every operand permuted to one aligned order -- the output's labels, then the
    ellipsis's dims if the output drops them, then the other labels in subscript order (A-Z,
    a-z) -- with size-1 dims for its missing labels and diagonals for repeated ones; operands
    contracted left to right (``_sumproduct_pair``), each dim summed as soon as no later operand
    has it; the summed dims finally viewed away."""
    order = list(out)
    if not any(t in out for t in tokens):
        order += tokens
    used = {c for labels in terms for c in labels}
    order += sorted(c for c in used if c not in order and not c.startswith("."))
    position = {c: i for i, c in enumerate(order)}
    n_out, n_all = len(out), len(order)
    counts = [0] * n_all  # operands with a dim of size != 1 for each aligned position
    ops = []
    for t, labels in zip(operands, terms):
        perm, dim = [-1] * n_all, 0
        for c in labels:
            p = position[c]
            if perm[p] == -1:
                if t.shape[dim] != 1:
                    counts[p] += 1
                perm[p] = dim
                dim += 1
            else:  # a repeated label: its diagonal, in the first one's place
                t = t.diagonal(0, perm[p], dim).movedim(-1, perm[p])
        for p in range(n_all):
            if perm[p] == -1:
                t = t.unsqueeze(dim)
                perm[p] = dim
                dim += 1
        ops.append(t.permute(perm))
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(n_out, n_all):
            sa, sb = a.shape[d] != 1, b.shape[d] != 1
            if sa and sb:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if sa:
                    a_sum.append(d)
                    counts[d] = 0
                elif sb:
                    b_sum.append(d)
                    counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, keepdim=True)
        if b_sum:
            b = b.sum(b_sum, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    r = ops[0]
    if n_all > n_out:
        if len(operands) > 1:  # every summed dim has size 1 by now
            return r.view(list(r.shape[:n_out]))
        return r.sum(list(range(n_out, n_all)))
    return r


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` by one bmm, as PyTorch lays it out: the dims
    of both operands (batch), of the left, summed, of the right; the operands swapped when all
    of the right's own dims come first in the output, so the product is in the output's order."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
        elif sl and sr:
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    if lo and ro and ro[-1] < lo[0]:
        left, right, lo, ro = right, left, ro, lo
    sizes = [left.shape[d] for d in lro + lo] + [1] * len(sum_dims) + [right.shape[d] for d in ro]
    lperm, rperm = lro + lo + list(sum_dims) + ro, lro + list(sum_dims) + ro + lo
    operm = [0] * left.dim()
    for k, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = k
    n_lro = math.prod(left.shape[d] for d in lro)
    n_lo = math.prod(left.shape[d] for d in lo)
    n_ro = math.prod(right.shape[d] for d in ro)
    a = left.permute(lperm).reshape(n_lro, n_lo, sum_size)
    b = right.permute(rperm).reshape(n_lro, sum_size, n_ro)
    return a.bmm(b).view(sizes).permute(operm)
