"""torch.linalg core (inv, det, slogdet, logdet, solve, matrix_power, matrix_rank, vecdot, eigh):
cases the op database does not reach, each compared with PyTorch (the oracle)."""

import warnings

import numpy as np
import pytest
from snippet_bugs import refuse_test_bug

import taimatsu

torch = pytest.importorskip("torch")


def _run(T, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(T), None
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's below
        if T is torch:
            refuse_test_bug(e)
        return None, e


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return np.array(x.detach().cpu().tolist() if hasattr(x, "detach") else x)


def _assert_same_value(a, b, exact, where="result"):
    """Tensors: same dtype, shape and values; sequences: same kind and length; else equal."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, taimatsu.Tensor), f"{where}: {type(a).__name__}, torch gives a tensor"
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], f"{where}: dtype"
        assert tuple(a.shape) == tuple(b.shape), (
            f"{where}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
        )
        x, y = _np(a), _np(b)
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6, err_msg=where)
        if exact:
            np.testing.assert_array_equal(np.signbit(np.real(x)), np.signbit(np.real(y)), where)
    elif isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b), f"{where}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same_value(x, y, exact, f"{where}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} vs {b!r}"


def same(fn, exact=False):
    """``fn(T)`` in both libraries: the same values (signed zeros too if ``exact``) or the same error."""
    (a, ea), (b, eb) = _run(taimatsu, fn), _run(torch, fn)
    if eb is not None or ea is not None:
        assert ea is not None and eb is not None, f"taimatsu: {ea!r}, torch: {eb!r}"
        assert type(ea).__name__ in [c.__name__ for c in type(eb).__mro__], f"{ea!r} vs {eb!r}"
        assert str(ea) == str(eb)
        return
    _assert_same_value(a, b, exact)


SING = [[1.0, 2.0], [2.0, 4.0]]


@pytest.mark.parametrize(
    "fn",
    [
        lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1.0, 1e-3, 1e-9])), atol=1e-2),
        lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1.0, 1e-3, 1e-9])), rtol=1e-4),
        lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1.0, 1e-3, 1e-9])), 1e-2),
        lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1.0, 1e-3, 1e-9])), atol=1e-4, rtol=1e-2),
        lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1.0, 1e-3, 1e-17])), atol=0.0),
        lambda T: T.linalg.matrix_rank(T.eye(2).expand(2, 2, 2), atol=T.tensor([0.5, 2.0])),
        lambda T: T.linalg.matrix_rank(T.tensor(np.diag([2.0, -1.0, 1e-12])), hermitian=True),
        lambda T: T.linalg.matrix_rank(T.ones(0, 3)),
        lambda T: T.linalg.matrix_rank(T.ones(3)),
        lambda T: T.linalg.matrix_rank(T.ones(3, 3).long()),
        lambda T: T.linalg.matrix_rank(T.ones(3, 2), hermitian=True),
        lambda T: T.linalg.matrix_rank(T.eye(2), atol=T.tensor(1j)),
    ],
)
def test_matrix_rank(fn):
    same(fn)


@pytest.mark.parametrize(
    "fn",
    [
        lambda T: T.linalg.inv(T.stack([T.eye(2), T.tensor(SING)])),
        lambda T: T.linalg.inv(T.eye(2).half()),
        lambda T: T.linalg.det(T.eye(2).half()),
        lambda T: T.linalg.slogdet(T.eye(2).bfloat16()),
        lambda T: T.logdet(T.ones(2, 3)),
        lambda T: T.linalg.eigvalsh(T.eye(2).long()),
        lambda T: T.linalg.eigh(T.eye(2), UPLO="X"),
        lambda T: T.linalg.solve(T.eye(3), T.ones(2, 1), left=False),
        lambda T: T.linalg.solve(T.eye(3).expand(2, 3, 3), T.ones(4, 3, 1)),
        lambda T: T.linalg.solve(T.eye(3), T.tensor(1.0)),
        lambda T: T.linalg.solve(T.eye(2), T.ones(2, dtype=T.float64)),
        lambda T: T.linalg.solve(T.stack([T.eye(2), T.zeros(2, 2)]), T.ones(2, 2)),
        lambda T: T.linalg.matrix_power(T.ones(2, 3), 0),
        lambda T: T.linalg.matrix_power(T.eye(2), 2.0),
        lambda T: T.linalg.vecdot(T.ones(2), T.ones(2).double()),
        lambda T: T.linalg.vecdot(T.ones(2).long(), T.ones(2).long()),
        lambda T: T.linalg.slogdet(T.eye(2), out=T.empty(0)),
        lambda T: T.slogdet(T.eye(2), out=(T.empty(0),)),
        lambda T: T.linalg.matrix_power(T.eye(2), 3, out=T.empty(0, dtype=T.int64)),
        lambda T: T.linalg.matrix_rank(T.eye(2), out=T.empty(0, dtype=T.bool)),
        lambda T: T.linalg.vecdot(T.ones(2, 3), T.ones(2, 3), out=T.empty(0, dtype=T.float64)),
    ],
)
def test_errors(fn):
    same(fn)


@pytest.mark.parametrize(
    "fn",
    [
        lambda T: T.linalg.det(
            T.tensor([[1.0, 0], [0, 3]], dtype=T.float64)
        ),  # exact, not exp(log 3)
        lambda T: T.linalg.det(T.tensor([SING, [[1.0, 0], [0, 3]]])),  # -0. for the singular one
        lambda T: T.linalg.slogdet(T.tensor(SING)),
        lambda T: T.linalg.matrix_power(T.tensor([[True, False], [True, True]]), 0),
        lambda T: T.linalg.matrix_power(T.tensor([[1, 2], [3, 4]]), 5),
        lambda T: T.logdet(T.tensor(np.diag([2.0, -1.0, -3.0]))),
        lambda T: T.logdet(T.tensor([[2.0, 1j], [0, 1 + 1j]])),
    ],
)
def test_values(fn):
    same(fn, exact=True)


def _graph(fn):
    if fn is None:
        return None
    return (type(fn).__name__, tuple(_graph(f) for f, _ in fn.next_functions))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 6, 7, -1, -3])
def test_matrix_power_graph_and_grad(n):
    a = np.random.default_rng(n + 10).standard_normal((3, 3)) + 3 * np.eye(3)
    res = []
    for T in (taimatsu, torch):
        A = T.tensor(a, requires_grad=True)
        r = T.linalg.matrix_power(A, n)
        (g,) = T.autograd.grad(r, A, T.ones_like(r) * 0.5 + T.eye(3, dtype=T.float64))
        res.append((_graph(r.grad_fn), _np(g)))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_det_grad_at_singular_is_zero_like_pytorch(dtype):
    grads = []
    for T in (taimatsu, torch):
        A = T.tensor([SING, [[1.0, 0.5], [0.2, 3.0]]], dtype=getattr(T, dtype), requires_grad=True)
        (g,) = T.autograd.grad(T.linalg.det(A).sum().abs(), A)
        grads.append(_np(g))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


def test_slogdet_sign_requires_grad_and_complex_grad():
    a = np.random.default_rng(3).standard_normal((2, 3, 3)) * (1 + 0.5j) + 2 * np.eye(3)
    res = []
    for T in (taimatsu, torch):
        A = T.tensor(a, requires_grad=True)
        s, la = T.linalg.slogdet(A)
        assert s.requires_grad and s.grad_fn is la.grad_fn
        (g,) = T.autograd.grad((s * (0.3 + 0.7j)).real.sum() + la.sum(), A)
        res.append(_np(g))
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-12)
    A = taimatsu.tensor(a, requires_grad=True)
    assert taimatsu.autograd.gradcheck(lambda x: taimatsu.linalg.slogdet(x).sign, (A,))


def test_out_forms_match():
    A = np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(
        3, dtype=np.float32
    )
    for call in (
        lambda T, o: T.linalg.inv(T.tensor(A), out=o),
        lambda T, o: T.inverse(T.tensor(A), out=o),
        lambda T, o: T.linalg.det(T.tensor(A), out=o),
        lambda T, o: T.linalg.matrix_power(T.tensor(A), 5, out=o),
        lambda T, o: T.matrix_power(T.tensor(A), -2, out=o),
        lambda T, o: T.linalg.solve(T.tensor(A), T.tensor(A[:2]), left=False, out=o),
        lambda T, o: T.linalg.matrix_rank(T.tensor(A), out=o),
        lambda T, o: T.linalg.vecdot(T.tensor(A), T.tensor(A[0]), out=o),
    ):
        outs = [T.full((11,), 3.0) for T in (taimatsu, torch)]
        rs = [call(T, o) for T, o in zip((taimatsu, torch), outs)]
        assert rs[0] is outs[0] and rs[1] is outs[1]
        np.testing.assert_allclose(_np(outs[0]), _np(outs[1]), rtol=1e-5, atol=1e-5)
    for T in (taimatsu, torch):  # torch.slogdet's own return type, through the out tuple
        o = (T.empty(0), T.empty(0))
        r = T.slogdet(T.tensor(A), out=o)
        assert type(r).__name__ == "slogdet_out" and r[0] is o[0] and r[1] is o[1]
        assert type(T.linalg.slogdet(T.tensor(A), out=o)).__name__ == "linalg_slogdet_out"
        assert type(T.linalg.eigh(T.tensor(A), out=o)).__name__ == "linalg_eigh_out"
