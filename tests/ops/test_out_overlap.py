"""out= tensors sharing memory with an input, against PyTorch: elementwise ops (unary, binary,
add/sub with alpha) refuse an out that partly overlaps an input and accept one that is exactly
it; cat refuses any overlap; in-place ops and copies refuse partial overlaps too."""

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

CASES = {
    "add_partial": lambda T, x: T.add(x[:3], 1, out=x[1:4]),
    "add_alpha_partial": lambda T, x: T.add(x[:3], x[3:], alpha=2, out=x[2:5]),
    "sub_same": lambda T, x: T.sub(x[:3], 1, out=x[:3]),
    "mul_partial": lambda T, x: T.mul(x[:3], x[2:5], out=x[1:4]),
    "div_other_partial": lambda T, x: T.div(x[3:], x[:3] + 1, out=x[1:4]),
    "exp_partial": lambda T, x: T.exp(x[:3], out=x[1:4]),
    "exp_same": lambda T, x: T.exp(x[:3], out=x[:3]),
    "neg_disjoint": lambda T, x: T.neg(x[:3], out=x[3:]),
    "atan2_partial": lambda T, x: T.atan2(x[:3], x[3:], out=x[2:5]),
    "cat_partial": lambda T, x: T.cat([x[:2], x[2:4]], out=x[1:5]),
    "cat_same": lambda T, x: T.cat([x[:3]], out=x[:3]),
    "cat_disjoint": lambda T, x: T.cat([x[:2], x[:2]], out=x[2:6]),
    "inplace_partial": lambda T, x: x[1:4].add_(x[:3]),
    "copy_partial": lambda T, x: x[1:4].copy_(x[:3]),
    "setitem_partial": lambda T, x: x.__setitem__(slice(1, 4), x[:3]),
}


def _run(T, f):
    x = T.arange(6.0)
    try:
        f(T, x)
    except RuntimeError as e:
        return "raises", str(e)
    return "ok", x.tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_overlap(name):
    assert _run(tm, CASES[name]) == _run(torch, CASES[name])
