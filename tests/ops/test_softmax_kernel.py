"""The float32 softmax kernel's two layouts and expf's chunks give PyTorch's bits.

``backend.float32_math.softmax`` computes rows up to ``_SHORT`` keys long on a transposed copy
and longer rows in place, and ``expf`` runs a chunk at a time: neither choice may change a bit,
whatever the SIMD width reproduced (8 or 16 lanes). Values at the edge of expf's range (results
in the subnormals, 0 below -104, -inf, NaN) are compared with PyTorch's softmax bit for bit.
"""

import numpy as np
import pytest

import taimatsu as tm
from taimatsu.backend.float32_math import exp as f32_exp
from taimatsu.backend.float32_math import softmax as f32_softmax


def _rows(shape, seed=0, spread=4.0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * spread).astype(np.float32)
    x.reshape(-1)[rng.integers(0, x.size, x.size // 8)] = -np.inf
    return x


def _bits(a):
    return np.asarray(a, np.float32).view(np.uint32)


@pytest.mark.parametrize("lanes", [8, 16])
@pytest.mark.parametrize("n", [1, 5, 8, 16, 17, 32, 65, 100, 128, 129, 300])
@pytest.mark.parametrize("log", [False, True])
def test_transposed_and_row_layouts_agree(monkeypatch, lanes, n, log):
    monkeypatch.setattr(f32_softmax, "LANES", lanes)
    x = _rows((37, n))
    monkeypatch.setattr(f32_softmax, "_SHORT", 1 << 20)
    columns = f32_softmax.softmax_lastdim(x, log)
    monkeypatch.setattr(f32_softmax, "_SHORT", 0)
    rows = f32_softmax.softmax_lastdim(x, log)
    np.testing.assert_array_equal(_bits(columns), _bits(rows))


def test_expf_chunks_do_not_change_bits(monkeypatch):
    x = np.random.default_rng(1).uniform(-110, 90, 10_001).astype(np.float32)
    whole = f32_exp.expf(x)
    monkeypatch.setattr(f32_exp, "_EXPF_CHUNK", 999)
    np.testing.assert_array_equal(_bits(f32_exp.expf(x)), _bits(whole))
    out = np.empty_like(x)
    assert f32_exp.expf(x, out=out) is out
    np.testing.assert_array_equal(_bits(out), _bits(whole))
    assert f32_exp.expf(np.float32(0)).shape == () and f32_exp.expf(x[:0]).shape == (0,)


@pytest.mark.parametrize("n", [20, 200])  # both layouts
def test_softmax_at_the_edge_of_exp_matches_oracle(torch_oracle, n):
    rng = np.random.default_rng(2)
    x = rng.uniform(-106, -86, (64, n)).astype(np.float32)  # exps in the subnormals, and 0
    x[:, 0] = 0  # each row's maximum
    x[0, 1:4] = [-np.inf, -104.0, -103.97]
    x[1, 1] = np.nan
    for name in ("softmax", "log_softmax"):
        want = getattr(torch_oracle, name)(torch_oracle.from_numpy(x.copy()), -1).numpy()
        got = getattr(tm, name)(tm.from_numpy(x.copy()), -1).numpy()
        same = (_bits(want) == _bits(got)) | (np.isnan(want) & np.isnan(got))
        assert same.mean() > 0.999, (name, same.mean())
        assert np.isnan(got[1]).all() and not np.isnan(got[[0, 2]]).any()


@pytest.mark.parametrize("shape", [(300, 7), (300, 32), (300, 65), (30, 1000), (4, 5, 33)])
def test_backward_bits_match_oracle(torch_oracle, shape):
    # PyTorch's backward kernels: lane-ordered sums, SLEEF's exp and an FMA for log_softmax
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    for name, bar in (("softmax", 0.99), ("log_softmax", 0.995)):
        grads = []
        for lib in (torch_oracle, tm):
            xt = lib.from_numpy(x.copy()).requires_grad_()
            (gx,) = lib.autograd.grad(getattr(lib, name)(xt, -1), xt, lib.from_numpy(g.copy()))
            grads.append(gx.numpy())
        assert (_bits(grads[0]) == _bits(grads[1])).mean() >= bar, name


def test_two_threads_give_the_same_bits(monkeypatch):
    from taimatsu.backend import parallel

    x = _rows((300, 40))
    g = np.random.default_rng(5).standard_normal(x.shape).astype(np.float32)
    one = [f32_softmax.softmax_lastdim(x, log) for log in (False, True)]
    one += [f32_softmax.backward_lastdim(one[i], g, bool(i)) for i in (0, 1)]
    pool, submitted = parallel._pool(), []

    class Counting:
        def submit(self, fn, *args):
            submitted.append(args)
            return pool.submit(fn, *args)

    monkeypatch.setattr(parallel, "_second_core", lambda: True)
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    monkeypatch.setattr(parallel, "_pool", Counting)
    two = [f32_softmax.softmax_lastdim(x, log) for log in (False, True)]
    two += [f32_softmax.backward_lastdim(one[i], g, bool(i)) for i in (0, 1)]
    assert len(submitted) == 4
    for a, b in zip(one, two):
        np.testing.assert_array_equal(_bits(a), _bits(b))


@pytest.mark.parametrize("log", [False, True])
def test_even_blocks_give_the_same_bits(monkeypatch, log):
    # rows go a block at a time, blocks evened out (cross-entropy's (512, 65) logits: one
    # block, not 504 + 8 rows forward and 4 x 126 + 8 backward): any blocks, same bits
    assert f32_softmax._even_step(512, 504) == 512 and f32_softmax._even_step(512, 126) == 128
    assert f32_softmax._even_step(1000, 504) == 500 and f32_softmax._even_step(7, 100) == 7
    x = _rows((512, 65))
    g = np.random.default_rng(6).standard_normal(x.shape).astype(np.float32)
    y = f32_softmax.softmax_lastdim(x, log)
    gx = f32_softmax.backward_lastdim(y, g, log)
    monkeypatch.setattr(f32_softmax, "_BLOCK", 65 * 7)  # ~7-row blocks
    monkeypatch.setattr(f32_softmax, "CHUNK", 65 * 3)
    np.testing.assert_array_equal(_bits(f32_softmax.softmax_lastdim(x, log)), _bits(y))
    np.testing.assert_array_equal(_bits(f32_softmax.backward_lastdim(y, g, log)), _bits(gx))
    # rows longer than the float64 scratch (row by row) and blocks of one row: the same bits
    monkeypatch.setattr(f32_softmax, "CHUNK", 64)
    np.testing.assert_array_equal(_bits(f32_softmax.backward_lastdim(y, g, log)), _bits(gx))
    monkeypatch.setattr(f32_softmax, "CHUNK", 65)
    np.testing.assert_array_equal(_bits(f32_softmax.backward_lastdim(y, g, log)), _bits(gx))


@pytest.mark.parametrize("log", [False, True])
def test_backward_scratch_stays_small(monkeypatch, log):
    # cross-entropy's backward runs first in a training step's backward, where the saved
    # activations are all alive: its lane sums take a quarter block at a time (whole-block sums
    # held ~190-320 KiB besides the gradient here, and raised the GPT step's peak)
    import tracemalloc

    from taimatsu.backend import parallel

    monkeypatch.setattr(parallel, "_second_core", lambda: False)  # one thread's scratch
    x = _rows((2048, 65))
    g = np.random.default_rng(7).standard_normal(x.shape).astype(np.float32)
    y = f32_softmax.softmax_lastdim(x, log)
    f32_softmax.backward_lastdim(y, g, log)  # expf's per-thread scratch exists from here on
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = f32_softmax.backward_lastdim(y, g, log)
        extra = tracemalloc.get_traced_memory()[1] - base - out.nbytes
    finally:
        tracemalloc.stop()
    assert extra < 0.8 * f32_softmax._BLOCK * 4, extra


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize(
    ("shape", "dim", "log"),
    [((64, 33, 7), 0, True), ((64, 33, 7), 1, True), ((4, 9, 15), 1, True), ((64, 33, 7), 1, False),
     ((4, 9, 15), 1, False), ((5, 3), 0, False), ((64, 33, 7), 2, True), ((64, 33, 7), 2, False)],
)  # fmt: skip
def test_half_softmax_over_other_dims_matches_pytorch(dtype, shape, dim, log):
    # PyTorch's kernel for a dim other than the last works in float32 (log_softmax: rounded
    # once; the last-dim kernel rounds the sum and its log to the half type); its softmax
    # stores exp in the half type where the inner size fills no vector (< 16 elements)
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x = (torch.randn(*shape) * 3).to(getattr(torch, dtype))
    ref = (torch.log_softmax if log else torch.softmax)(x, dim).float().numpy()
    y = tm.tensor(x.float().numpy()).to(getattr(tm, dtype))
    got = (tm.log_softmax if log else tm.softmax)(y, dim).float().numpy()
    # float16 keeps more bits: expf's last bit (SLEEF's against NumPy's) shows in a rare element
    assert (got != ref).sum() <= (0 if dtype == "bfloat16" else ref.size // 500)
