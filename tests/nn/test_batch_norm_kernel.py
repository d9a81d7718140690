"""Training-mode batch norm against PyTorch: the array forward (channel sums by rows, the
output as ``x * alpha + beta``) and the array backward from the forward's mean and invstd,
for every input rank, row length (BLAS rows, long and narrow rows reduced in float64),
dtype, affine or not, and each subset of gradients; the Tensor-op path for double backward."""

import numpy as np
import pytest

import taimatsu as tm
from taimatsu.ops.nn import normalization as tnorm

torch = pytest.importorskip("torch")
from nn_oracle import close

SHAPES = [
    (32, 16, 28, 28),  # BLAS rows
    (4, 3, 5),  # narrow rows: a float64 reduction
    (64, 10),  # BatchNorm1d's (N, C)
    (2, 3, 3, 4, 5),  # 3-d
    (2, 2, 80, 80),  # rows longer than _ROW_MAX
]


def _run(M, x, w, b, g, affine, need):
    xt = M.tensor(x, requires_grad=need[0])
    wt = M.tensor(w, requires_grad=need[1]) if affine else None
    bt = M.tensor(b, requires_grad=need[2]) if affine else None
    rm, rv = M.zeros(x.shape[1], dtype=xt.dtype), M.ones(x.shape[1], dtype=xt.dtype)
    y = M.nn.functional.batch_norm(xt, rm, rv, wt, bt, True, 0.1, 1e-5)
    leaves = [t for t in (xt, wt, bt) if t is not None and t.requires_grad]
    grads = M.autograd.grad(y, leaves, M.tensor(g)) if leaves else ()
    return [y.detach().numpy(), rm.numpy(), rv.numpy(), *(a.numpy() for a in grads)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("offset", [0.0, 50.0])
def test_batch_norm_training_matches_pytorch(shape, dtype, offset):
    rs = np.random.RandomState(sum(shape))
    x = (rs.randn(*shape) * 2 + offset).astype(dtype)
    w, b = rs.randn(shape[1]).astype(dtype), rs.randn(shape[1]).astype(dtype)
    g = rs.randn(*shape).astype(dtype)
    ours = _run(tm, x, w, b, g, True, (True, True, True))
    theirs = _run(torch, x, w, b, g, True, (True, True, True))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for a, e in zip(ours, theirs):
        assert a.dtype == e.dtype and a.shape == e.shape
        # gradients of weight and bias are sums over the batch: compare at their scale
        close(a, e, rtol=tol, atol=tol * max(1.0, np.abs(e).max()))


@pytest.mark.parametrize("need", [(True, False, False), (False, True, False),
                                  (False, False, True), (True, False, True)], ids=str)  # fmt: skip
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_gradient_subsets(need, affine):
    if not affine and not need[0]:
        pytest.skip("no parameters to differentiate")
    rs = np.random.RandomState(1)
    x, g = rs.randn(4, 3, 6, 5).astype(np.float32), rs.randn(4, 3, 6, 5).astype(np.float32)
    w, b = rs.randn(3).astype(np.float32), rs.randn(3).astype(np.float32)
    for a, e in zip(_run(tm, x, w, b, g, affine, need), _run(torch, x, w, b, g, affine, need)):
        close(a, e, rtol=1e-5, atol=1e-5)


def test_batch_norm_array_backward_is_used():
    """Without create_graph the node keeps the forward's mean and invstd for the array backward."""
    x = tm.randn(4, 3, 5, 5, requires_grad=True)
    y = tm.nn.functional.batch_norm(x, None, None, training=True)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    assert y.grad_fn.mean.dtype == np.float32 and y.grad_fn.invstd.shape == (3,)
    # eval mode with running statistics keeps the Tensor-op backward
    z = tm.nn.functional.batch_norm(x, tm.zeros(3), tm.ones(3), training=False)
    assert z.grad_fn.mean is None


def test_batch_norm_double_backward():
    rs = np.random.RandomState(2)
    x, w = rs.randn(3, 2, 4, 4), rs.randn(2)
    res = []
    for M in (tm, torch):
        xt, wt = M.tensor(x, requires_grad=True), M.tensor(w, requires_grad=True)
        y = M.nn.functional.batch_norm(xt, None, None, wt, None, True)
        (gx,) = M.autograd.grad((y * y).sum(), (xt,), create_graph=True)
        res.append([a.numpy() for a in M.autograd.grad((gx * gx).sum(), (xt, wt))])
    for a, e in zip(*res):
        close(a, e, rtol=1e-10, atol=1e-10)


def test_row_reductions_are_float64_accurate():
    """Rows reduced in float32 are added across the batch in float64."""
    x = np.full((8, 2, 64), 1000.0, np.float32) + np.arange(64, dtype=np.float32) / 64
    rows = np.empty((8, 2))
    tnorm._row_sums(np, x, rows)
    np.testing.assert_allclose(rows.sum(0), x.astype(np.float64).sum((0, 2)), rtol=1e-7)


@pytest.mark.parametrize("shape", [(8, 5, 6, 7), (16, 4)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval_matches_pytorch(shape, dtype, affine):
    """Evaluation mode: ``x * alpha + beta`` from the running statistics, and its gradients."""
    rs = np.random.RandomState(3)
    c = shape[1]
    x, g = (rs.randn(*shape) * 2 + 1).astype(dtype), rs.randn(*shape).astype(dtype)
    rm, rv = rs.randn(c).astype(dtype), (rs.rand(c) + 0.5).astype(dtype)
    w, b = rs.randn(c).astype(dtype), rs.randn(c).astype(dtype)
    res = []
    for M in (tm, torch):
        xt = M.tensor(x, requires_grad=True)
        wt, bt = (
            (M.tensor(w, requires_grad=True), M.tensor(b, requires_grad=True))
            if affine
            else (None, None)
        )
        y = M.nn.functional.batch_norm(xt, M.tensor(rm), M.tensor(rv), wt, bt, False, 0.1, 1e-5)
        leaves = [t for t in (xt, wt, bt) if t is not None]
        res.append(
            [y.detach().numpy(), *(a.numpy() for a in M.autograd.grad(y, leaves, M.tensor(g)))]
        )
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for a, e in zip(*res):
        assert a.dtype == e.dtype
        close(a, e, rtol=tol, atol=tol * max(1.0, np.abs(e).max()))


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("shape", [(8, 3, 5, 5), (4, 16, 16, 16), (2, 3, 2500), (3, 5, 1, 7)],
                         ids=str)  # fmt: skip
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_norm_forward_bits_match_pytorch(shape, threads):
    """float32 images of more than one value, up to ``_EXACT_MAX`` elements (larger batches take
    faster float32 sums: last bits may differ): the same output, running mean and running
    variance, bit for bit (float64 channel sums, PyTorch's float formulas and its fused
    x*alpha+beta), whatever the thread count; evaluation mode from those statistics likewise.
    (float64 input is not bit-exact: PyTorch fuses each square into its running sum.)"""
    dtype = np.float32
    assert np.prod(shape) <= tnorm._EXACT_MAX
    rs = np.random.RandomState(sum(shape))
    c = shape[1]
    x = (rs.randn(*shape) * 3 + 1).astype(dtype)
    w, b = rs.uniform(0.5, 1.5, c).astype(dtype), rs.uniform(-1, 1, c).astype(dtype)
    res = []
    for M in (tm, torch):
        before = M.get_num_threads()
        M.set_num_threads(threads)
        try:
            rm, rv = M.zeros(c, dtype=M.tensor(x).dtype), M.ones(c, dtype=M.tensor(x).dtype)
            y = M.nn.functional.batch_norm(M.tensor(x), rm, rv, M.tensor(w), M.tensor(b), True)
            z = M.nn.functional.batch_norm(M.tensor(x), rm, rv, M.tensor(w), M.tensor(b), False)
        finally:
            M.set_num_threads(before)
        res.append([t.numpy() for t in (y, rm, rv, z)])
    for a, e in zip(*res):
        assert (_bits(a) == _bits(e)).all()


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_norm_1d_mean_bits_match_pytorch(threads):
    """An (N, C) input: PyTorch's per-thread column sums give the same mean bit for bit (the
    variance's fused square-and-add is approximated: last bits may differ), and evaluation
    mode is exact."""
    rs = np.random.RandomState(4)
    x = (rs.randn(64, 10) * 3 + 1).astype(np.float32)
    rv = (rs.rand(10) + 0.5).astype(np.float32)
    res = []
    for M in (tm, torch):
        before = M.get_num_threads()
        M.set_num_threads(threads)
        try:
            rm = M.zeros(10)
            M.nn.functional.batch_norm(M.tensor(x), rm, M.ones(10), training=True)
            z = M.nn.functional.batch_norm(M.tensor(x), M.tensor(x[0]), M.tensor(rv), None,
                                           M.tensor(x[1]), False)  # fmt: skip
        finally:
            M.set_num_threads(before)
        res.append([rm.numpy(), z.numpy()])
    for a, e in zip(*res):
        assert (_bits(a) == _bits(e)).all()
