"""Direct oracle tests for reductions and matrix products: what the op database cannot say.

Result-type reprs, gradients at ties and NaNs (PyTorch's distribution rules), grad_fn graphs
of matmul's dispatch paths, warnings, and empty-tensor values.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(1234)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _grads(T, fn, arrays, seed=0):
    """fn's outputs and the gradients of its first output w.r.t. the arrays (random cotangent)."""
    xs = [T.tensor(a, requires_grad=True) for a in arrays]
    out = fn(T, *xs)
    first = out[0] if isinstance(out, tuple) else out
    ct = np.random.default_rng(seed).standard_normal(tuple(first.shape))
    gs = T.autograd.grad(first, xs, T.tensor(ct), allow_unused=True)
    return out, [None if g is None else _np(g) for g in gs]


def _same_grads(fn, *arrays):
    (o1, g1), (o2, g2) = _grads(taimatsu, fn, arrays), _grads(torch, fn, arrays)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-12, equal_nan=True)
    return o1, o2


TIES = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])


# ---- return types -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda T, x: T.max(x, 1),
        lambda T, x: x.min(0, keepdim=True),
        lambda T, x: T.median(x, 1),
        lambda T, x: T.aminmax(x, dim=0),
        lambda T, x: T.max(x[0], 0),
    ],
)
def test_return_type_repr_and_fields(fn):
    x = np.array([[1.5, -2.0, 3.0], [0.25, 8.0, -1.0]], dtype=np.float32)
    r, e = fn(taimatsu, taimatsu.tensor(x)), fn(torch, torch.tensor(x))
    assert repr(r) == repr(e)
    assert type(r).__name__ == type(e).__name__
    assert isinstance(r, tuple) and len(r) == 2
    assert r.n_fields == e.n_fields
    a, b = r
    assert a is r[0] and b is r[1]
    first = "min" if type(e).__name__ == "aminmax" else "values"
    assert getattr(r, first) is r[0]


def test_return_type_repr_with_grad():
    x = np.array([[1.0, 2.0], [4.0, 3.0]])
    r = taimatsu.tensor(x, requires_grad=True).max(1)
    e = torch.tensor(x, requires_grad=True).max(1)
    assert repr(r) == repr(e)
    assert (
        "torch.return_types.max(\nvalues=tensor([2., 4.], dtype=torch.float64, grad_fn=<MaxBackward0>)"
        in repr(r)
    )


# ---- ties and NaNs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda T, x: x.max(),
        lambda T, x: x.min(),
        lambda T, x: x.max(1),
        lambda T, x: x.min(1, keepdim=True),
        lambda T, x: x.amax(1),
        lambda T, x: x.amax(),
        lambda T, x: x.amin((0, 1), keepdim=True),
        lambda T, x: T.aminmax(x, dim=1),
        lambda T, x: x.median(),
        lambda T, x: x.norm(float("inf")),
        lambda T, x: x.norm(float("-inf"), dim=1),
        lambda T, x: x.prod(1),
        lambda T, x: x.cumprod(1),
    ],
)
def test_tie_gradients(fn):
    tm, th = _same_grads(fn, TIES)
    if isinstance(th, tuple):
        np.testing.assert_array_equal(_np(tm[1]), _np(th[1]))  # indices: first occurrence


def test_aminmax_both_outputs_gradient():
    def fn(T, x):
        lo, hi = T.aminmax(x, dim=0)
        return lo * 2 + hi * 3

    _same_grads(fn, TIES)


@pytest.mark.parametrize(
    "fn",
    [
        lambda T, x: x.max(),
        lambda T, x: x.max(1),
        lambda T, x: x.amax(1),
        lambda T, x: x.min(1),
        lambda T, x: x.median(),
        lambda T, x: x.median(1),
        lambda T, x: x.logsumexp(1),
        lambda T, x: T.nansum(x, 1),
        lambda T, x: T.nanmean(x),
    ],
)
def test_nan_values_and_gradients(fn):
    x = np.array([[1.0, np.nan, np.nan, 0.5], [2.0, 1.0, -1.0, 4.0]])
    tm, th = _same_grads(fn, x)
    for a, b in zip(tm if isinstance(tm, tuple) else (tm,), th if isinstance(th, tuple) else (th,)):
        np.testing.assert_array_equal(_np(a), _np(b))


def test_argmax_argmin_nan_and_ties():
    x = np.array([[1.0, np.nan, 5.0, np.nan], [3.0, 3.0, 1.0, 1.0]])
    for name in ("argmax", "argmin"):
        a = getattr(taimatsu.tensor(x), name)(1)
        b = getattr(torch.tensor(x), name)(1)
        np.testing.assert_array_equal(_np(a), _np(b))


def test_median_dim_picks_pytorch_indices():
    x = np.array([[1.0, 2.0, 2.0, 2.0, 3.0, 0.0], [5, 5, 5, 5, 5, 5], [2, 2, 1, 1, 7, 7]])
    a, b = taimatsu.tensor(x).median(1), torch.tensor(x).median(1)
    assert repr(a) == repr(b)


@pytest.mark.parametrize(
    "fn",
    [
        lambda T, x: x.norm(),
        lambda T, x: x.norm(1),
        lambda T, x: x.norm(0.5),
        lambda T, x: x.norm(1.5),
        lambda T, x: x.norm(3),
        lambda T, x: x.std(),
        lambda T, x: x.std(1),
    ],
)
def test_gradients_at_zero(fn):
    x = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, -2.0]])
    _same_grads(fn, x)


def test_norm_zero_order_has_no_gradient():
    x = taimatsu.tensor([0.0, 1.0, 2.0], requires_grad=True)
    n = x.norm(0)
    assert n.grad_fn.name() == "LinalgVectorNormBackward0"
    (g,) = taimatsu.autograd.grad(n, x, allow_unused=True)
    assert g is None or not g.any()


# ---- empty inputs, degrees of freedom ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda T: T.ones(0).mean(),
        lambda T: T.ones(0).sum(),
        lambda T: T.ones(0).prod(),
        lambda T: T.ones(2, 0).mean(1),
        lambda T: T.ones(0).median(),
        lambda T: T.ones(0).norm(),
        lambda T: T.ones(0).logsumexp(0),
        lambda T: T.ones(0, 3).amax(1),
        lambda T: T.ones(0, 3).median(1),
        lambda T: T.aminmax(T.ones(0, 3), dim=1),
        lambda T: T.ones(0, 3).norm(float("inf"), 1),
        lambda T: T.ones(0).all(),
        lambda T: T.ones(0).any(),
        lambda T: T.ones(2, 0).max(0),
    ],
)
def test_empty_reductions(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = fn(taimatsu), fn(torch)
    assert repr(a) == repr(b)


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_dof_warning_and_value(name):
    for T in (taimatsu, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = getattr(T, name)(T.ones(1))
        msgs = [str(x.message) for x in w]
        assert any(m.startswith(f"{name}(): degrees of freedom is <= 0.") for m in msgs), (
            T.__name__,
            msgs,
        )
        first = r[0] if isinstance(r, tuple) else r
        assert np.isnan(first.item())


def test_sum_out_casts_and_mean_out_errors():
    vals = []
    for T in (taimatsu, torch):
        out = T.zeros((), dtype=T.int64)
        T.sum(T.tensor([1.5, 2.5]), 0, out=out)  # computed in the out dtype: 1 + 2
        vals.append((out.item(), str(out.dtype)))
    assert vals[0] == vals[1]
    msgs = []
    for T in (taimatsu, torch):
        with pytest.raises(RuntimeError) as e:
            T.mean(T.ones(3), out=T.zeros((), dtype=T.int64))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---- matmul's graph ------------------------------------------------------------------------------------------
def _chain(fn, depth=0):
    if fn is None:
        return ["  " * depth + "None"]
    out = ["  " * depth + (fn.name() if hasattr(fn, "name") else type(fn).__name__)]
    for nxt, _ in fn.next_functions:
        out += _chain(nxt, depth + 1)
    return out


MATMUL_CASES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((2, 3, 2, 3), (2, 3, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((2, 1, 2, 3), (3, 3, 4)),
    ((2, 1, 2, 3), (3, 4)),
]


@pytest.mark.parametrize(("sa", "sb"), MATMUL_CASES)
@pytest.mark.parametrize("rg", [(True, True), (True, False), (False, True)])
def test_matmul_graph_values_and_grads(sa, sb, rg):
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    res = []
    for T in (taimatsu, torch):
        x, y = T.tensor(a, requires_grad=rg[0]), T.tensor(b, requires_grad=rg[1])
        out = x @ y
        ct = T.tensor(np.random.default_rng(7).standard_normal(tuple(out.shape)))
        diff = [t for t in (x, y) if t.requires_grad]
        gs = T.autograd.grad(out, diff, ct)
        res.append((_chain(out.grad_fn), _np(out), [_np(g) for g in gs], tuple(out.shape)))
    (c1, o1, g1, s1), (c2, o2, g2, s2) = res
    assert c1 == c2
    assert s1 == s2
    np.testing.assert_allclose(o1, o2, rtol=1e-10)
    for p, q in zip(g1, g2):
        np.testing.assert_allclose(p, q, rtol=1e-10)


def test_matmul_noncontiguous_batch_folds_like_pytorch():
    a, b = RNG.standard_normal((2, 5, 3)), RNG.standard_normal((3, 4))
    chains = []
    for T in (taimatsu, torch):
        x, y = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        out = x.transpose(0, 1) @ y
        chains.append(_chain(out.grad_fn))
        out.backward(T.ones_like(out))
    assert chains[0] == chains[1]


@pytest.mark.parametrize(
    "fn",
    [
        lambda T, a, b: T.vdot(a[0], b[0]),
        lambda T, a, b: T.outer(a[0], b[1]),
        lambda T, a, b: T.inner(a[0], b[0]),
        lambda T, a, b: T.tensordot(a, b, 2),
        lambda T, a, b: T.tensordot(a, b[0], 1),
        lambda T, a, b: T.nanmean(a, 1),
        lambda T, a, b: T.var_mean(a, 1)[0],
        lambda T, a, b: T.std_mean(a)[1],
        lambda T, a, b: T.aminmax(a).max,
        lambda T, a, b: T.addmm(a[0], a.t(), b),
        lambda T, a, b: T.addmv(b[0], a.t(), a[:, 0]),
        lambda T, a, b: T.addr(a, a[0][:2], b[1]),
    ],
)
def test_graph_names(fn):
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    chains = []
    for T in (taimatsu, torch):
        chains.append(
            _chain(fn(T, T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)).grad_fn)
        )
    assert chains[0] == chains[1]


# ---- einsum --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("eq", "shapes"),
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
        ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]),
        ("i,j->ij", [(3,), (4,)]),
        ("ij->", [(2, 3)]),
        ("ij->ji", [(2, 3)]),
        ("i,ij,j->", [(2,), (2, 3), (3,)]),
        ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
        ("b...,b...->...", [(2, 3, 4), (2, 1, 4)]),
        ("bij,jk->bik", [(2, 2, 3), (3, 4)]),
        ("i,i", [(2,), (1,)]),
        ("Ab,ba", [(2, 3), (3, 2)]),
        ("iij->j", [(2, 2, 3)]),
        ("ij,kl", [(2, 3), (1, 2)]),
        (" i j , j k -> i k ", [(2, 3), (3, 4)]),
    ],
)
def test_einsum(eq, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    tm, th = _same_grads(lambda T, *xs: T.einsum(eq, *xs), *arrays)
    assert tuple(tm.shape) == tuple(th.shape)
    np.testing.assert_allclose(_np(tm), _np(th), rtol=1e-10, atol=1e-12)


E = Ellipsis
EINSUM_SUBLISTS = [
    ([0, 1], [(2, 3)], None), ([0, 1], [(2, 3)], [1, 0]), ([0, 1, 1, 2], [(2, 3), (3, 4)], None),
    ([0, 1, 1, 2], [(2, 3), (3, 4)], [2, 0]), ([0, 1, 1, 2], [(2, 3), (3, 4)], [0]),
    ([E, 1], [(2, 3)], [1, E]), ([E, 0, 1, E, 1, 2], [(5, 2, 3), (5, 3, 4)], [E, 0, 2]),
    ([26, 51], [(2, 3)], [51]), ([0, 0], [(3, 3)], [0]), ((0, 1), [(2, 3)], ()),
]  # fmt: skip


@pytest.mark.parametrize(("subs", "shapes", "out"), EINSUM_SUBLISTS)
def test_einsum_sublist_form(subs, shapes, out):
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])``: integer subscripts, Ellipsis, an output list."""
    arrays = [RNG.standard_normal(s) for s in shapes]

    def fn(T, *xs):
        k = len(subs) // len(xs)
        args = [v for i, x in enumerate(xs) for v in (x, list(subs[i * k : (i + 1) * k]))]
        return T.einsum(*args, *([] if out is None else [out]))

    tm, th = _same_grads(fn, *arrays)
    assert tuple(tm.shape) == tuple(th.shape) and str(tm.dtype) == str(th.dtype)
    np.testing.assert_allclose(_np(tm), _np(th), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda T, a, b: T.einsum(a, [0, 52]),
        lambda T, a, b: T.einsum(a, [0, -1]),
        lambda T, a, b: T.einsum(a, [0, 1.0]),
        lambda T, a, b: T.einsum(a, [0, 1], [2]),
        lambda T, a, b: T.einsum(a, [0]),
        lambda T, a, b: T.einsum(a),
        lambda T, a, b: T.einsum([a, b]),
        lambda T, a, b: T.einsum("ij"),
        lambda T, a, b: T.einsum(a, [0, 0]),
        lambda T, a, b: T.einsum("ii->i", a),
        lambda T, a, b: T.einsum(a, [E, 0], b, [0, E], [E]),
        lambda T, a, b: T.einsum("...i,i...->...", a, b),
    ],
)
def test_einsum_errors(call):
    def err(T):
        try:
            call(T, T.ones(2, 3), T.ones(3, 4))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            return type(e).__name__, str(e)
        return None

    expected = err(torch)
    assert expected is not None and err(taimatsu) == expected


def test_einsum_list_operands_and_double_backward():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
    xa, xb = taimatsu.tensor(a, requires_grad=True), taimatsu.tensor(b, requires_grad=True)
    assert taimatsu.autograd.gradgradcheck(
        lambda x, y: taimatsu.einsum("ij,jk->ik", [x, y]), (xa, xb)
    )


# ---- double backward and forward AD through the compositions ------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.cumprod(1),
        lambda x: x.prod(),
        lambda x: x.prod(0),
        lambda x: x @ x.t(),
        lambda x: x.unsqueeze(0).expand(2, 2, 3) @ x.t(),
        lambda x: x.std(1),
        lambda x: taimatsu.var_mean(x, 1),
        lambda x: x.logsumexp(1),
        lambda x: x.norm(3, dim=1),
        lambda x: x.max(1).values,
    ],
)
def test_gradgradcheck_with_zeros(fn):
    x = RNG.standard_normal((2, 3))
    x[0, 1] = 0.0
    if fn(taimatsu.tensor(x)) is None:
        return
    t = taimatsu.tensor(x, requires_grad=True)
    assert taimatsu.autograd.gradcheck(fn, (t,))
    assert taimatsu.autograd.gradgradcheck(fn, (t,))
