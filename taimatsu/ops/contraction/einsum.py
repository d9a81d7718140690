"""Tensor contractions built from the BLAS products: tensordot and einsum.

Both reduce to permute + reshape + mm/bmm, so they are differentiable (to any order) through
those ops. tensordot follows PyTorch's graph (Permute -> View -> Mm/Dot -> View). einsum
contracts operands left to right; its values, gradients and errors match PyTorch, its
intermediate graph nodes do not (PyTorch's path choice differs).
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


def _take_diagonals(t: Tensor, labels: list):
    """Repeated labels within one operand select a diagonal."""
    while len(set(labels)) != len(labels):
        for i, c in enumerate(labels):
            j = labels.index(c, i + 1) if labels.count(c) > 1 else -1
            if j != -1:
                t = t.diagonal(0, i, j)
                labels = labels[:i] + labels[i + 1 : j] + labels[j + 1 :] + [c]
                break
    return t, labels


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


def _sum_unneeded(t, labels, keep):
    drop = [i for i, c in enumerate(labels) if c not in keep]
    if drop:
        t = t.sum(drop)
        labels = [c for c in labels if c in keep]
    return t, labels


def _contract(a, la, b, lb, keep, sizes):
    """Contract two operands over their shared labels not in ``keep``, via one bmm."""
    shared = [c for c in la if c in lb]
    batch = [c for c in shared if c in keep]
    summed = [c for c in shared if c not in keep]
    for c in summed:  # a size-1 contracted dim broadcasts: sum the other side over it
        ia, ib = la.index(c), lb.index(c)
        if a.shape[ia] != b.shape[ib]:
            if a.shape[ia] == 1:
                b = b.sum(ib, keepdim=True)
            else:
                a = a.sum(ia, keepdim=True)
    fa = [c for c in la if c not in shared]
    fb = [c for c in lb if c not in shared]
    a = a.permute([la.index(c) for c in batch + fa + summed])
    b = b.permute([lb.index(c) for c in batch + summed + fb])
    nbd = len(batch)
    bs = [sizes[c] for c in batch]
    if list(a.shape[:nbd]) != bs:
        a = a.expand(bs + list(a.shape[nbd:]))
    if list(b.shape[:nbd]) != bs:
        b = b.expand(bs + list(b.shape[nbd:]))
    sa = list(a.shape[nbd : nbd + len(fa)])
    sb = list(b.shape[nbd + len(summed) :])
    k = math.prod(a.shape[nbd + len(fa) :])
    nb = math.prod(bs)
    r = a.reshape(nb, math.prod(sa), k).bmm(b.reshape(nb, k, math.prod(sb)))
    return r.reshape(bs + sa + sb), batch + fa + fb


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
    sizes = _sizes(terms, operands)
    out = _output_labels(terms, out, tokens)
    ops = []
    for t, labels in zip(operands, terms):
        ops.append(_take_diagonals(t, list(labels)))
    # A label is still needed after step k if it is in the output or in a later operand.
    cur, lc = ops[0]
    later = [{c for _, ls in ops[k + 1 :] for c in ls} for k in range(len(ops))]
    cur, lc = _sum_unneeded(cur, lc, set(out) | later[0])
    for k in range(1, len(ops)):
        nxt, ln = ops[k]
        keep = set(out) | later[k]
        nxt, ln = _sum_unneeded(nxt, ln, keep | set(lc))
        cur, lc = _contract(cur, lc, nxt, ln, keep, sizes)
    cur, lc = _sum_unneeded(cur, lc, set(out))
    if len(operands) == 1 or lc != out:
        cur = cur.permute([lc.index(c) for c in out])
    full = [sizes[c] for c in out]
    return cur if list(cur.shape) == full else cur.expand(full)
