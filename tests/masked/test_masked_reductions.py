"""torch.masked's reductions and normalizations against PyTorch 2.13 on random inputs and random
masks (full-shape, broadcastable, with fully masked-out slices, non-bool, None): values including
what masked-out and fully masked-out positions hold, dtypes, gradients with random cotangents, and
the errors (type and message)."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")
# NumPy's "invalid value" warning of a softmax over a fully masked-out (all -inf) slice: taimatsu
# silences RuntimeWarnings of its own modules (ops/_dispatch.py), pytest's capture shows them again
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

SHAPE = (3, 4, 5)


def _masks() -> dict[str, np.ndarray | None]:
    g = np.random.default_rng(7)
    full = g.random(SHAPE) > 0.4
    full[1, 2] = False  # a fully masked-out slice along dim 2
    full[:, 0, 1] = False  # ... along dim 0
    full[2, :, 3] = False  # ... along dim 1
    rows = g.random((4, 1)) > 0.5  # broadcast over dims 0 and 2
    rows[0, 0], rows[1, 0] = True, False
    return {
        "full": full,
        "broadcast": rows,
        "last_dim": np.array([True, False, True, True, False]),
        "none_masked_in": np.zeros(SHAPE, bool),
        "float": (g.random(SHAPE) > 0.5).astype(np.float32),  # read as mask != 0
        "None": None,
    }


MASKS = _masks()


def _pair(a: np.ndarray | None, grad: bool = False):
    if a is None:
        return None, None
    return T.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _input(dtype=np.float64, seed=0) -> np.ndarray:
    g = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return g.integers(-9, 10, SHAPE).astype(dtype)
    return g.standard_normal(SHAPE).astype(dtype)


def _check(ours, theirs, rtol=1e-7, atol=1e-9):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True
    )


def _compare(name, args, kwargs, mask_name, x=None, grad=True, rtol=1e-7):
    """Run taimatsu.masked.<name> and torch.masked.<name> on the same input and mask; compare the
    results and, for a differentiable result, the input gradients under a random cotangent."""
    xs, ms = _pair(_input() if x is None else x, grad)
    mt, mo = _pair(MASKS[mask_name])
    ours = getattr(T.masked, name)(xs, *args, mask=mt, **kwargs)
    theirs = getattr(torch.masked, name)(ms, *args, mask=mo, **kwargs)
    _check(ours, theirs, rtol=rtol)
    assert ours.requires_grad == theirs.requires_grad
    if grad and theirs.requires_grad:
        cot = np.random.default_rng(1).standard_normal(tuple(theirs.shape))
        (g_ours,) = T.autograd.grad(ours, xs, T.tensor(cot))
        (g_theirs,) = torch.autograd.grad(theirs, ms, torch.tensor(cot))
        _check(g_ours, g_theirs, rtol=rtol)


REDUCING = ["sum", "prod", "amax", "amin", "mean", "logsumexp", "norm", "var", "std"]
DIMS = [None, 0, -1, (0, 2), (2, 1), ()]


@pytest.mark.parametrize("mask_name", list(MASKS))
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", REDUCING)
def test_reductions(name, dim, keepdim, mask_name):
    args = (2.0, dim) if name == "norm" else (dim,)
    _compare(name, args, {"keepdim": keepdim}, mask_name)


@pytest.mark.parametrize("mask_name", list(MASKS))
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_have_the_input_dtype(name, dim, keepdim, mask_name):
    _compare(name, (dim,), {"keepdim": keepdim}, mask_name, grad=False)


@pytest.mark.parametrize("mask_name", list(MASKS))
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median(dim, keepdim, mask_name):
    # a nan among the masked-in elements is skipped (PyTorch reduces with nanmedian)
    x = _input()
    x[0, 1, 2] = np.nan
    _compare("median", (dim,), {"keepdim": keepdim}, mask_name, x=x)


@pytest.mark.parametrize("mask_name", list(MASKS))
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "softmax", "log_softmax", "softmin"])
def test_normalizations_and_scans(name, dim, mask_name):
    _compare(name, (dim,), {}, mask_name)


@pytest.mark.parametrize("mask_name", list(MASKS))
@pytest.mark.parametrize("ord", [2.0, 1, 3.5, float("inf"), float("-inf"), 0])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)], ids=str)
def test_norm_orders(ord, dim, mask_name):
    # ord=0 counts nonzeros: its result is in the graph, but no gradient reaches the input
    _compare("norm", (ord, dim), {}, mask_name, grad=ord != 0)


@pytest.mark.parametrize("mask_name", list(MASKS))
@pytest.mark.parametrize("ord", [2.0, 1, float("inf")])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("eps", [1e-12, 0.5])
def test_normalize(ord, dim, eps, mask_name):
    _compare("normalize", (ord, dim), {"eps": eps}, mask_name)


@pytest.mark.parametrize("mask_name", ["full", "broadcast", "None"])
@pytest.mark.parametrize(
    "kw",
    [
        {"unbiased": False},
        {"unbiased": True},
        {"correction": 0},
        {"correction": 2},
        {"correction": 7},
    ],
    ids=str,
)
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_corrections(name, kw, mask_name):
    _compare(name, (1,), {"keepdim": False, **kw}, mask_name)
    _compare(name, ((0, 2),), {"keepdim": True, **kw}, mask_name)


@pytest.mark.parametrize(
    "name, args, kw",
    [
        ("sum", (1,), {"dtype": T.float64}),
        ("prod", ((0, 1),), {"dtype": T.float64}),
        ("mean", (None,), {"dtype": T.float64}),
        ("amax", (2,), {"dtype": T.float64}),
        ("norm", (2.0, 1), {"dtype": T.float64}),
        ("var", (1,), {"dtype": T.float64}),
        ("softmax", (1,), {"dtype": T.float64}),
        ("log_softmax", (2,), {"dtype": T.float64}),
        ("cumsum", (0,), {"dtype": T.float64}),
        ("logsumexp", (1,), {}),
        ("std", (1,), {}),
        ("softmin", (0,), {}),
        ("normalize", (2.0, 1), {}),
    ],
    ids=str,
)
def test_float32_and_dtype_argument(name, args, kw):
    x = _input(np.float32)
    for mask_name in ("full", "broadcast"):
        xs, ms = _pair(x, True)
        mt, mo = _pair(MASKS[mask_name])
        kw_t = {
            k: getattr(torch, str(v).split(".")[1]) if k == "dtype" else v for k, v in kw.items()
        }
        ours = getattr(T.masked, name)(xs, *args, mask=mt, **kw)
        theirs = getattr(torch.masked, name)(ms, *args, mask=mo, **kw_t)
        _check(ours, theirs, rtol=1e-5, atol=1e-6)
        cot = np.random.default_rng(2).standard_normal(tuple(theirs.shape))
        (g_ours,) = T.autograd.grad(ours, xs, T.tensor(cot).to(ours.dtype))
        (g_theirs,) = torch.autograd.grad(theirs, ms, torch.tensor(cot).to(theirs.dtype))
        _check(g_ours, g_theirs, rtol=1e-5, atol=1e-6)


INT_CASES = [
    ("sum", (1,)),
    ("prod", ((0, 2),)),
    ("amax", (None,)),
    ("amin", (2,)),
    ("argmax", (1,)),
    ("argmin", (None,)),
    ("logsumexp", (1,)),
    ("cumsum", (2,)),
    ("cumprod", (0,)),
    ("var", (1,)),
    ("std", (None,)),
]


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.uint8, np.int64])
@pytest.mark.parametrize("name, args", INT_CASES, ids=str)
def test_integer_inputs(name, args, dtype):
    x = _input(dtype)
    if dtype is np.uint8:
        x = x % 4  # small values: the products stay exact
    for mask_name in ("full", "None"):
        _compare(name, args, {}, mask_name, x=x, grad=False)


def test_integer_median_with_and_without_fully_masked_slices():
    x = _input(np.int32)
    mask = np.ones(SHAPE, bool)
    mask[..., 0] = False
    ours = T.masked.median(T.tensor(x), 2, mask=T.tensor(mask))
    theirs = torch.masked.median(torch.tensor(x), 2, mask=torch.tensor(mask))
    _check(ours, theirs)
    mask[0, 0] = False
    msg = "masked median expects no fully masked out rows if dtype is not floating point"
    with pytest.raises(ValueError, match=msg):
        torch.masked.median(torch.tensor(x), 2, mask=torch.tensor(mask))
    with pytest.raises(ValueError, match=msg):
        T.masked.median(T.tensor(x), 2, mask=T.tensor(mask))


@pytest.mark.parametrize("with_masks", ["both", "input", "neither"])
def test_logaddexp(with_masks):
    g = np.random.default_rng(3)
    a, b = g.standard_normal((4, 5)), g.standard_normal((4, 5))
    ma, mb = g.random((4, 5)) > 0.5, g.random(5) > 0.5
    ma[0] = False
    mb[1] = ma[0, 1] = False  # both masked out: -inf
    (at, ao), (bt, bo) = _pair(a, True), _pair(b, True)
    kw_t, kw_o = {}, {}
    if with_masks != "neither":
        kw_t["input_mask"], kw_o["input_mask"] = _pair(ma)
    if with_masks == "both":
        kw_t["other_mask"], kw_o["other_mask"] = _pair(mb)
    ours = T.masked.logaddexp(at, bt, **kw_t)
    theirs = torch.masked.logaddexp(ao, bo, **kw_o)
    _check(ours, theirs)
    cot = g.standard_normal((4, 5))
    g_ours = T.autograd.grad(ours, (at, bt), T.tensor(cot))
    g_theirs = torch.autograd.grad(theirs, (ao, bo), torch.tensor(cot))
    for o, t in zip(g_ours, g_theirs, strict=True):
        _check(o, t)


def test_zero_dim_input():
    x = np.array(1.5)
    for name in ("sum", "prod", "amax", "mean", "logsumexp", "var"):
        for m in (np.array(True), np.array(False)):
            ours = getattr(T.masked, name)(T.tensor(x), mask=T.tensor(m))
            theirs = getattr(torch.masked, name)(torch.tensor(x), mask=torch.tensor(m))
            _check(ours, theirs)


def test_docs_example_reprs():
    """torch.masked's documented example: a fully masked-out row holds the reduction's identity."""
    for name in ("sum", "amax", "amin", "argmax", "prod", "cumsum"):
        reprs = []
        for lib in (T, torch):
            x = lib.tensor([[-3, -2, -1], [0, 1, 2]])
            mask = lib.tensor([[True, False, True], [False, False, False]])
            reprs.append(repr(getattr(lib.masked, name)(x, 1, mask=mask)))
            reprs.append(repr(lib.masked.mean(x.float(), 1, mask=mask)))
        assert reprs[:2] == reprs[2:]


def _errors(call):
    """(type, message) of what call raises with each library."""
    out = []
    for lib in (T, torch):
        with pytest.raises(Exception) as info:
            call(lib)
        out.append((info.type.__name__, str(info.value)))
    return out


ERRORS = {
    "mask of more dims": lambda L: L.masked.sum(
        L.ones(3, 4), 1, mask=L.ones(2, 3, 4, dtype=L.bool)
    ),
    "mask not broadcastable": lambda L: L.masked.sum(L.ones(3, 4), 1, mask=L.ones(3, dtype=L.bool)),
    "dim out of range": lambda L: L.masked.sum(L.ones(3, 4), 2, mask=L.ones(4, dtype=L.bool)),
    "dim repeated": lambda L: L.masked.amax(L.ones(3, 4), (1, -1), mask=L.ones(4, dtype=L.bool)),
    "softmax dim out of range": lambda L: L.masked.softmax(L.ones(3), -2),
    "mean of ints": lambda L: L.masked.mean(L.ones(3, dtype=L.int32)),
    "mean to int dtype": lambda L: L.masked.mean(L.ones(3), dtype=L.int64),
    "amax of bool": lambda L: L.masked.amax(L.ones(3, dtype=L.bool), mask=L.ones(3, dtype=L.bool)),
    "amax of complex": lambda L: L.masked.amax(
        L.ones(3, dtype=L.complex64), mask=L.ones(3, dtype=L.bool)
    ),
    "norm -inf of ints": lambda L: L.masked.norm(
        L.ones(3, dtype=L.int64), float("-inf"), mask=L.ones(3, dtype=L.bool)
    ),
    "norm of ints": lambda L: L.masked.norm(L.ones(3, dtype=L.int64), 2.0),
    "var unbiased and correction": lambda L: L.masked.var(L.ones(3), 0, True, correction=1),
    "softmax of sparse": lambda L: L.masked.softmax(L.ones(2, 3).to_sparse(), 1),
    "mask not a tensor": lambda L: L.masked.sum(L.ones(3), mask=[True, False, True]),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    ours, theirs = _errors(ERRORS[case])
    assert ours == theirs


@pytest.mark.parametrize("name", T.masked.__all__)
def test_signatures(name):
    import inspect

    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert params(getattr(T.masked, name)) == params(getattr(torch.masked, name))


def test_public_names():
    ours = set(T.masked.__all__)
    theirs = set(torch.masked.__all__)
    # MaskedTensor is not in taimatsu (see tests/tensor/namespace_omissions.py)
    assert theirs - ours == {
        "MaskedTensor",
        "masked_tensor",
        "as_masked_tensor",
        "is_masked_tensor",
    }
    assert ours < theirs


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "name, args",
    [
        ("sum", (1,)),
        ("softmax", (1,)),
        ("mean", (1,)),
        ("var", (1,)),
        ("median", (1,)),
        ("norm", (2.0, 1)),
    ],
    ids=str,
)
def test_half_dtypes(name, args, dtype):
    # median: masked-out elements are nan, which bfloat16's nanmedian must see (its NumPy kind is "V")
    x = _input(np.float32)
    m = MASKS["full"]
    ours = getattr(T.masked, name)(T.tensor(x).to(getattr(T, dtype)), *args, mask=T.tensor(m))
    theirs = getattr(torch.masked, name)(
        torch.tensor(x).to(getattr(torch, dtype)), *args, mask=torch.tensor(m)
    )
    assert str(ours.dtype) == str(theirs.dtype)
    # one ulp: taimatsu's half softmax over a middle dim rounds differently from PyTorch's kernel
    ulp = 2.0**-7 if dtype == "bfloat16" else 2.0**-10
    np.testing.assert_allclose(
        ours.float().numpy(), theirs.float().numpy(), rtol=ulp if name == "softmax" else 0, atol=0
    )
