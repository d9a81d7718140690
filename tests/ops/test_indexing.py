"""Indexing against PyTorch: subscripts (get and set), gather/scatter/index_*/masked/take/nonzero,
their errors and in-place forms, and finite-difference gradchecks through views and indexing.

The cases are snippets compared as in test_views_indexing.py (views_indexing_helpers.py).
"""

from __future__ import annotations

import pytest
from views_indexing_helpers import same

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


# ---- subscripts --------------------------------------------------------------------------------------------------
GETITEM = [
    "0",
    "-1",
    "5",
    "-6",
    "(1, 2)",
    "(1, -1, 0)",
    "(slice(None), 1)",
    "(slice(None), -1)",
    "(slice(None), 3)",
    "(slice(None), -4)",
    "slice(1, None, 2)",
    "slice(-2, None)",
    "slice(10, 20)",
    "slice(2, 1)",
    "(Ellipsis, 1)",
    "(None, 0, None)",
    "(0, Ellipsis, None)",
    "Ellipsis",
    "(Ellipsis, Ellipsis)",
    "(1, 2, 3, 4)",
    "slice(None, None, -1)",
    "slice(None, None, 0)",
    "1.0",
    "'a'",
    "[0, 2]",
    "[[0, 1], [1, 2]]",
    "[-1, 0]",
    "[3]",
    "[]",
    "[True, False, True]",
    "([0, 1], [1, 2])",
    "([0, 1], [1, 2, 0])",
    "([0, 1], slice(None), [1, 2])",
    "(slice(None), [0, 2], [1, 3])",
    "([[0], [1]], [[1, 2]])",
    "(0, slice(None), [1, 2])",
    "(slice(None), 1, [0, 2, 3])",
    "T.tensor([0, 2])",
    "T.tensor([[0, 1], [2, 0]])",
    "T.tensor(1)",
    "T.tensor(-1)",
    "T.tensor(True)",
    "T.tensor(False)",
    "True",
    "False",
    "(True, 0)",
    "(None, False)",
    "T.tensor([0.])",
    "T.tensor([1, 0, 1], dtype=T.uint8)",
    "T.tensor([True, False, True])",
    "(slice(None), T.tensor([True, False, True]))",
    "T.tensor([[True, False, True], [False, False, True], [True, True, True]])",
    "T.tensor([True, False])",
    "(slice(None), slice(None), T.tensor([True, False, True, True]))",
    "(T.tensor([True, False, True]), slice(None), T.tensor([0, 3]))",
    "(T.tensor([0, 2]), T.tensor([True, False, True]))",
    "np.array([0, 2])",
    "np.int64(1)",
    "[T.tensor(0), T.tensor(1)]",
    "[0, slice(None)]",
    "[[0, 1]]",
    "T.tensor([], dtype=T.int64)",
    "(T.tensor([3]), 0)",
    "(slice(None), [0, -4])",
    "(slice(1, None), [0, 1])",
    "([0, 1], Ellipsis, None)",
    "(None, [0, 1], None, [1, 2])",
    "(T.tensor(1), [0, 1])",
    "(slice(None, 2), None, T.tensor([1, 0]), slice(1, 3))",
    "(T.tensor([0, 1]).view(2, 1), T.tensor([1, 2]))",
    "range(2)",
    "range(0)",
    "range(5)",
    "(range(2), range(1, 3))",
    "(slice(None), range(3, 0, -1))",
    "[range(2), range(2)]",
]


@pytest.mark.parametrize("index", GETITEM)
def test_getitem(index):
    base = "a = T.arange(36., dtype=T.float64).view(3, 3, 4)\n"
    same(
        base + f"r = a[{index}]\nout = (r, r.is_contiguous(), r._base is not None, r.stride())",
        check_warnings=True,
    )
    grad = (
        "a = (T.arange(36., dtype=T.float64).view(3, 3, 4) * 0.5).requires_grad_()\n"
        f"r = a[{index}]\n"
        "g = _cot(T, r.numel()).view(r.shape)\n"
        "ga, = T.autograd.grad(r, a, g, create_graph=True)\n"
        "gg, = T.autograd.grad((ga * ga).sum(), a, allow_unused=True) if ga.requires_grad else (None,)\n"
        "out = (r, ga, nodes(r), gg)"
    )
    same(grad)


def test_getitem_zero_dim():
    for index in [
        "0",
        "(0,)",
        "slice(None)",
        "[0]",
        "(None, 0)",
        "Ellipsis",
        "None",
        "True",
        "(Ellipsis, None)",
    ]:
        same(f"r = T.tensor(3.)[{index}]\nout = (r, r.stride())")


SETITEM = [
    ("0", "7."),
    ("(1, 2)", "7."),
    ("(slice(None), 1)", "T.arange(4.)"),
    ("slice(1, None, 2)", "T.arange(12.).view(1, 3, 4)"),
    ("(Ellipsis, 1)", "T.ones(3, 1)"),
    ("[0, 2]", "-1."),
    ("[[0, 1], [1, 2]]", "T.arange(4.)"),
    ("([0, 1], [1, 2])", "T.ones(2, 4)"),
    ("([0, 1], slice(None), [1, 2])", "T.ones(2, 3)"),
    ("(0, slice(None), [1, 2])", "T.ones(3, 2)"),
    ("T.tensor([True, False, True])", "0."),
    (
        "T.tensor([[True, False, True], [False, False, True], [True, True, True]])",
        "T.arange(24.).view(6, 4)",
    ),
    ("(slice(None), T.tensor([True, False, True]))", "T.ones(2, 4)"),
    ("(slice(None), T.tensor([True, False, True]))", "T.ones(4, 2)"),
    ("(slice(1, None), [0, 1])", "T.tensor(2.)"),
    ("T.tensor(1)", "T.arange(12.).view(3, 4)"),
    ("(None, 0)", "T.ones(1, 1, 3, 4)"),
    ("Ellipsis", "T.arange(4.)"),
    ("slice(None)", "T.arange(12.).view(1, 1, 3, 4)"),
    ("0", "T.ones(2, 4)"),
    ("[0]", "T.ones(2, 4)"),
    ("([0, 0], [1, 1])", "T.arange(8.).view(2, 4)"),
    ("True", "5."),
    ("0", "T.ones(3, 4, dtype=T.float32)"),
    ("[0, 1]", "T.ones(2, 3, 4, dtype=T.float32)"),
    ("5", "1."),
    ("(slice(None), [3])", "1."),
    ("(range(3), T.tensor([0, 1, 2]))", "5."),
    ("(range(3), T.tensor([0, 1, 2]))", "T.arange(4.)"),
    ("(slice(None), range(2), 1)", "T.ones(3, 2)"),
]


@pytest.mark.parametrize("index,value", SETITEM)
def test_setitem(index, value):
    same(
        f"a = T.arange(36., dtype=T.float64).view(3, 3, 4)\na[{index}] = {value}\nout = (a, a._version)"
    )
    same(
        "w = (T.arange(36., dtype=T.float64).view(3, 3, 4) / 7).requires_grad_()\n"
        f"v = {value}\nv = (v.double() if isinstance(v, T.Tensor) and v.dtype == T.float32 else v)\n"
        "v = v.requires_grad_() if isinstance(v, T.Tensor) else v\n"
        f"a = w * 2\na[{index}] = v\n"
        "g = _cot(T, a.numel()).view(a.shape)\n"
        "gs = T.autograd.grad(a, [w] + ([v] if isinstance(v, T.Tensor) else []), g)\n"
        "out = (a, gs, nodes(a, 4))"
    )


# ---- gather / scatter / index_* / masked / take / nonzero --------------------------------------------------------
IDX_OPS = [
    "x.gather(1, T.tensor([[0, 0], [1, 0], [2, 3]]))",
    "x.gather(0, T.tensor([[2, 1, 0, 0]]))",
    "T.gather(x, -1, T.tensor([[3], [2], [1]], dtype=T.int32))",
    "x.scatter(0, T.tensor([[2, 1, 0, 0]]), y)",
    "x.scatter(1, T.tensor([[0, 1], [3, 2], [1, 1]]), 2.5)",
    "x.scatter_add(0, T.tensor([[2, 1, 0, 0], [2, 2, 2, 2]]), y)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'sum')",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'sum', include_self=False)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'mean')",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'mean', include_self=False)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'amax')",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'amin', include_self=False)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'prod')",
    "x.index_select(1, T.tensor([3, 0, 0]))",
    "x.index_select(0, T.tensor([2], dtype=T.int32))",
    "x.index_add(0, T.tensor([2, 0, 2]), z)",
    "x.index_add(1, T.tensor([1, 1, 0, 2]), y.t()[:, :3].t().t(), alpha=2)",
    "x.index_fill(1, T.tensor([0, 2]), -1.)",
    "x.index_fill(0, T.tensor([1]), s)",
    "x.index_copy(0, T.tensor([2, 0, 1]), z)",
    "x.index_put((T.tensor([0, 2]), T.tensor([1, 3])), s)",
    "x.index_put((T.tensor([0, 0]), T.tensor([1, 1])), y[0, :2], accumulate=True)",
    "x.index_put((T.tensor([True, False, True]),), y[:1])",
    "x.index_put((None, T.tensor([1, 3])), z[:, :2])",
    "x.masked_select(x > 0.5)",
    "x.masked_select(T.tensor([True, False, True, False]))",
    "x.masked_scatter(x > 0.5, z.reshape(-1))",
    "x.masked_fill(x > 0.5, 2.)",
    "x.take(T.tensor([[0, 11], [-1, 5]]))",
    "x.take_along_dim(T.tensor([[0], [3], [1]]), 1)",
    "x.take_along_dim(T.tensor([[0, 1, 1, 2]]), 0)",
    "x.take_along_dim(T.tensor([5, 0]))",
    "T.nonzero(x > 0.5)",
    "T.nonzero(x > 0.5, as_tuple=True)",
    "T.argwhere(x < 0.3)",
    "T.nonzero(T.tensor(3.))",
    "T.nonzero(T.tensor(0.), as_tuple=True)",
]


@pytest.mark.parametrize("expr", IDX_OPS)
def test_index_ops(expr):
    same(
        "x = (T.arange(12., dtype=T.float64).view(3, 4) * 0.1).requires_grad_()\n"
        "y = (T.arange(8., dtype=T.float64).view(2, 4) * -0.3 + 1).requires_grad_()\n"
        "z = (T.arange(12., dtype=T.float64).view(3, 4) * 0.7 - 2).requires_grad_()\n"
        "s = T.tensor(1.5, dtype=T.float64, requires_grad=True)\n"
        f"r = {expr}\n"
        "rs = r if isinstance(r, tuple) else (r,)\n"
        "if r.requires_grad if not isinstance(r, tuple) else False:\n"
        "    g = _cot(T, r.numel()).view(r.shape)\n"
        "    ins = [t for t in (x, y, z, s)]\n"
        "    gs = T.autograd.grad(r, ins, g, allow_unused=True)\n"
        "else:\n"
        "    gs = None\n"
        "out = (rs, gs, r.grad_fn.name() if hasattr(r, 'grad_fn') and r.grad_fn else None)"
    )


IDX_ERRORS = [
    "x.gather(0, i.int())",
    "x.gather(0, i[0])",
    "x.gather(1, T.zeros(2, 5, dtype=T.long))",
    "x.gather(0, T.tensor([[3]]))",
    "x.gather(0, T.tensor([[-1]]))",
    "x.gather(0, T.tensor([[0.]]))",
    "x.scatter(0, T.tensor([[3]]), 1.)",
    "x.scatter(0, T.zeros(2, 5, dtype=T.long), T.ones(2, 4))",
    "x.scatter(0, i, T.ones(2, 4, dtype=T.float64))",
    "x.scatter(0, i[0], 1.)",
    "x.scatter(0, T.tensor([[0.]]), 1.)",
    "x.scatter_add(0, i, T.ones(2, 4, dtype=T.float64))",
    "x.scatter_reduce(0, i, T.ones(2, 4), 'foo')",
    "x.scatter(0, i, 1., reduce='foo')",
    "x.index_select(0, T.tensor([3]))",
    "x.index_select(0, T.tensor([[0]]))",
    "x.index_select(0, T.tensor([0.]))",
    "x.index_add(0, T.tensor([0]), T.ones(2, 4))",
    "x.index_add(0, T.tensor([5]), T.ones(1, 4))",
    "x.index_add(0, T.tensor([0]), T.ones(1, 4, dtype=T.float64))",
    "x.index_add(0, T.tensor([0.]), x[:1])",
    "x.index_copy(0, T.tensor([5]), T.ones(1, 4))",
    "x.index_copy(0, T.tensor([0]).int(), x[:1])",
    "x.index_fill(0, T.tensor([5]), 1.)",
    "x.index_fill(0, T.tensor([0]), T.ones(2))",
    "x.index_fill(0, T.tensor([0]).int(), 1)",
    "x.masked_select(T.ones(3, 4, dtype=T.long))",
    "x.masked_select(T.ones(2, 4, dtype=T.bool))",
    "x.masked_scatter(T.ones(3, 4, dtype=T.bool), T.ones(3))",
    "x.masked_scatter(T.ones(3, 4, dtype=T.long), T.ones(12))",
    "x.masked_scatter(T.ones(3, 4, dtype=T.bool), T.ones(12, dtype=T.float64))",
    "x.take(T.tensor([12]))",
    "x.take(T.tensor([1], dtype=T.int32))",
    "x.take_along_dim(T.tensor([1]), 0)",
    "x.take_along_dim(T.tensor([[1]], dtype=T.int32), 0)",
    "x.index_put((T.tensor([0]),), T.ones(2))",
    "x.index_put((T.tensor([0.]),), T.ones(1))",
    "x.index_put((T.tensor([0, 1]), T.tensor([0, 1, 2])), T.ones(1))",
    "x.index_put((T.tensor([0]),), T.ones(1, dtype=T.float64))",
    # source slices of another shape: PyTorch's texts (NumPy's broadcast errors leaked)
    "T.zeros(2, 3).index_add(0, T.tensor([0]), T.ones(1, 2))",
    "T.zeros(2, 3, 4).index_add(1, T.tensor([0]), T.ones(2, 1, 5))",
    "T.zeros(3).index_add(0, T.tensor([0]), T.ones(1, 1))",
    "T.zeros(2, 3).index_copy(0, T.tensor([0]), T.ones(1, 2))",
    "T.zeros(2, 3, 4).index_copy(1, T.tensor([0]), T.ones(2, 1, 5))",
    "T.zeros(2, 3).index_copy(0, T.tensor([0]), T.ones(3))",
    # an integer out of range: the dimension is the index's position in the subscript
    "x[0, 4]",
    "T.zeros(2, 3, 4)[0, 0, 9]",
    "T.zeros(2, 3, 4)[..., 9]",
    "x[None, 0, 4]",
    "x[:, 4]",
    "T.zeros(2, 3, 4)[1, ::2, 7]",
    "x[3]",
    # max/min: PyTorch's names for amax/amin
    "x.scatter_reduce(0, i, T.full((1, 4), 20.0), 'max')",
    "x.scatter_reduce(0, i, T.ones(1, 4), 'min')",
]


@pytest.mark.parametrize("expr", IDX_ERRORS)
def test_index_op_errors(expr):
    same(f"x = T.arange(12.).view(3, 4); i = T.tensor([[0, 1, 2, 0]])\nout = {expr}")


INPLACE_IDX = [
    "x.scatter_(0, T.tensor([[2, 1, 0, 0]]), y)",
    "x.scatter_(1, T.tensor([[0], [3], [1]]), 9.)",
    "x.scatter_add_(0, T.tensor([[2, 1, 0, 0]]), y)",
    "x.index_add_(0, T.tensor([2, 2]), y)",
    "x.index_fill_(1, T.tensor([1]), 0.)",
    "x.index_copy_(0, T.tensor([1, 0]), y)",
    "x.index_put_((T.tensor([0, 1]),), y[0], accumulate=True)",
    "x.masked_scatter_(x > 0.4, y)",
    "x.masked_fill_(x > 0.4, 0.)",
    "x.fill_(2.)",
    "x.zero_()",
    "x.copy_(y[0])",
    "x.t().copy_(T.ones(4, 1))",
    "x[1:].scatter_(1, T.tensor([[1], [2]]), 7.)",
    "x[:, 1].index_fill_(0, T.tensor([0, 2]), -2.)",
]


@pytest.mark.parametrize("expr", INPLACE_IDX)
def test_index_inplace(expr):
    same(
        "w = _cot(T, 12).view(3, 4).requires_grad_()\n"
        "y = (T.arange(8., dtype=T.float64).view(2, 4) * -0.3 + 1).requires_grad_()\n"
        f"x = w * 1\nr = {expr}\n"
        "g = _cot(T, x.numel()).view(x.shape)\n"
        "gs = T.autograd.grad(x, [w, y], g, allow_unused=True)\n"
        "out = (r is x, x, gs, nodes(x, 2), x._version)"
    )
    same(
        f"x = T.linspace(0, 1, 12).view(3, 4); y = T.arange(8.).view(2, 4)\nr = {expr}\nout = (r is x, x, x._version)"
    )


# ---- finite differences: first and second order through views and indexing -------------------------------------
GRADCHECK = [
    lambda x: x[1:, ::2].t()[0],
    lambda x: x.view(4, 3)[[0, 3, 3]].flip(0),
    lambda x: x.expand(2, 3, 4).permute(2, 0, 1).reshape(4, 6)[:, 1:].diagonal(),
    lambda x: x.unbind(1)[2] * x.split([1, 3], 1)[1].sum(1),
    lambda x: x.gather(1, _tensor([[0, 0], [1, 3], [2, 2]])) ** 2,
    lambda x: x.clone().scatter_(0, _tensor([[2, 1, 0, 0]]), x[:1] * 3) ** 2,
    lambda x: x.index_select(1, _tensor([3, 0, 3])).cumsum(0) if hasattr(x, "cumsum") else x,
    lambda x: x.masked_select(x > 0.3) ** 2,
    lambda x: x.take(_tensor([0, 5, 5])) * x.take_along_dim(_tensor([[1], [2], [0]]), 1).sum(),
    lambda x: _copyslices(x),
    lambda x: x.tril(-1) + x.triu(1) * 2 + x.roll(1, 1) * x.repeat(1, 2)[:, 3:7],
    lambda x: x.index_put((_tensor([0, 0, 2]), _tensor([1, 1, 3])), x[1, :3] ** 2, accumulate=True),
    lambda x: x.scatter_reduce(0, _tensor([[2, 1, 0, 0]]), x[1:2] * 2, "mean") * x,
]


def _tensor(v):
    return taimatsu.tensor(v)


def _copyslices(x):
    y = x * 1
    y[1:, 1] = y[0, :2].clone() ** 2
    y.t()[0].mul_(y[2, 0].clone())
    y[:, 2:].exp_()
    return y


@pytest.mark.parametrize("i", range(len(GRADCHECK)))
def test_gradcheck(i):
    fn = GRADCHECK[i]
    x = (taimatsu.arange(12, dtype=taimatsu.float64).view(3, 4) * 0.13 - 0.4).requires_grad_()
    assert taimatsu.autograd.gradcheck(fn, (x,))
    assert taimatsu.autograd.gradgradcheck(fn, (x,))


def test_forward_ad_through_views():
    same(
        "fwAD = T.autograd.forward_ad\n"
        "x = T.arange(12., dtype=T.float64).view(3, 4); t = _cot(T, 12).view(3, 4)\n"
        "with fwAD.dual_level():\n"
        "    d = fwAD.make_dual(x, t)\n"
        "    outs = [d[1:, ::2], d.t()[0], d[[0, 2]], d.gather(1, T.tensor([[1], [0], [3]])), d.index_select(0, T.tensor([2])),\n"
        "            d.reshape(-1), d.t().reshape(-1), d.unbind(1)[2], d.expand(2, 3, 4), d.take(T.tensor([3, 1])), d.flip(0)]\n"
        "    out = [fwAD.unpack_dual(o).tangent for o in outs]"
    )


def test_index_reduce_beta_warning_matches_pytorch():
    """index_reduce warns that it is in beta (once per process; each time under warn_always),
    after its argument checks and before the index range check, on the caller's line."""
    import warnings

    def run(lib):
        out = []
        lib.set_warn_always(True)
        try:
            for reduce, idx, n in (("median", [0], 1), ("prod", [0, 1], 1), ("prod", [9], 1),
                                   ("amax", [1], 1), ("mean", [0, 0], 2)):  # fmt: skip
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    try:
                        r = lib.zeros(4).index_reduce_(0, lib.tensor(idx), lib.ones(n) * 2, reduce)
                        res = r.tolist()
                    except Exception as e:  # noqa: BLE001
                        res = (type(e).__name__, str(e))
                out.append((res, [(str(x.message), x.lineno) for x in w]))
        finally:
            lib.set_warn_always(False)
        return out

    assert run(taimatsu) == run(torch)
