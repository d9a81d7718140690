"""float32/float64 ``sum`` and ``mean`` give PyTorch's bits (``backend.float32_math.cascade_sum``
replays its CPU kernel's order of additions).

Sizes sit around the cascade's block boundaries (16, 256, 4096 elements and vectors of 8) and the
parallel grain (32768); layouts are contiguous, transposed, strided and 3-d with every dim set.
The thread split is compared at 1, 2 and 3 threads; the AVX2 kernel by a PyTorch subprocess
started with ``ATEN_CPU_CAPABILITY=avx2`` (ATen's sum runs its AVX2 build on AVX-512 CPUs too).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import taimatsu as tm
from taimatsu.backend.float32_math.cascade_sum import cascade_sum, column_sums

_SIZES = (1, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 255, 256, 257, 1000, 4095, 4097, 32767, 32768,
          32769, 65541)  # fmt: skip
_SHAPES = ((3, 5), (7, 33), (16, 16), (64, 100), (100, 64), (2000, 100), (37, 1000), (3, 70001),
           (5, 17, 300), (300, 17, 5), (2, 1, 40))  # fmt: skip


def _array(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * np.exp(rng.standard_normal(shape) * 2)).astype(dtype)


def _layouts(a):
    """(name, NumPy array) pairs: the array, its transpose and a strided slice of it."""
    yield "contiguous", a
    yield "transposed", a.transpose()
    if a.ndim > 1:
        yield "strided", a[..., ::2]


def _dims(nd):
    dims = [None, *range(nd)]
    if nd == 3:
        dims += [(0, 2), (1, 2), (0, 1)]
    return dims


def _differ(ours, theirs) -> int:
    ours, theirs = np.asarray(ours), theirs.numpy()
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    bits = np.dtype(f"u{ours.itemsize}")
    return int(np.count_nonzero(ours.reshape(-1).view(bits) != theirs.reshape(-1).view(bits)))


@pytest.fixture
def oracle(torch_oracle):
    """PyTorch at taimatsu's thread count (their defaults can differ: physical cores for
    PyTorch, the BLAS's count for taimatsu), since the thread split decides the order."""
    before = torch_oracle.get_num_threads()
    torch_oracle.set_num_threads(tm.get_num_threads())
    yield torch_oracle
    torch_oracle.set_num_threads(before)


def _count_sum_differences(torch, dtype):
    bad = []
    arrays = [_array(n, dtype, n) for n in _SIZES] + [_array(s, dtype, 1) for s in _SHAPES]
    for a in arrays:
        for name, v in _layouts(a):
            ours, theirs = tm.from_numpy(v), torch.from_numpy(v)
            for d in _dims(v.ndim):
                args = () if d is None else (d,)
                n = _differ(ours.sum(*args), theirs.sum(*args))
                if n:
                    bad.append((v.shape, name, d, n))
    return bad


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_bits_match_oracle(oracle, dtype):
    assert _count_sum_differences(oracle, dtype) == []


@pytest.mark.parametrize("nthreads", [1, 3])
def test_thread_splits_match_oracle(torch_oracle, nthreads):
    before = torch_oracle.get_num_threads()
    torch_oracle.set_num_threads(nthreads)
    try:
        for a in (_array(262147), _array((2000, 100)), _array((3, 70001)), _array((300, 17, 5))):
            for _, v in _layouts(a):
                for d in _dims(v.ndim):
                    dims = tuple(range(v.ndim)) if d is None else np.atleast_1d(d).tolist()
                    theirs = torch_oracle.from_numpy(v).sum(dims)
                    assert _differ(cascade_sum(v, dims, num_threads=nthreads), theirs) == 0
    finally:
        torch_oracle.set_num_threads(before)


@pytest.mark.parametrize("nthreads", [2, 4, 16])
def test_column_sums_over_threads_match_oracle(torch_oracle, nthreads):
    # Over threads, a Linear's bias gradient of 32768+ elements takes ``column_sums`` too where
    # PyTorch's per-thread column chunks keep one thread's groups (``_whole_groups``); 100
    # columns on 16 threads do not (a last chunk of 4 columns)
    before = torch_oracle.get_num_threads(), tm.get_num_threads()
    torch_oracle.set_num_threads(nthreads)
    tm.set_num_threads(nthreads)
    try:
        bad = []
        for rows, cols in ((512, 64), (512, 100), (512, 192), (512, 256), (64, 784), (2047, 33)):
            for dtype in (np.float32, np.float64):
                a = _array((rows, cols), dtype, rows + cols)
                theirs = torch_oracle.from_numpy(a).sum(0)
                direct = column_sums(a)
                n = _differ(tm.from_numpy(a).sum(0), theirs)
                n += 0 if direct is None else _differ(direct, theirs)
                if n:
                    bad.append((rows, cols, dtype, n))
        assert bad == []
        assert column_sums(_array((512, 256))) is not None
        assert (column_sums(_array((512, 100))) is None) == (nthreads == 16)
    finally:
        torch_oracle.set_num_threads(before[0])
        tm.set_num_threads(before[1])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_mean_and_keepdim_match_oracle(oracle, dtype):
    a = _array((37, 1000))
    for f in (
        lambda t: t.mean(),
        lambda t: t.mean(1),
        lambda t: t.mean(0, keepdim=True),
        lambda t: t.t().mean((0, 1), keepdim=True),
        lambda t: t[:, ::3].mean(1),
        lambda t: t.sum(1, keepdim=True),
    ):
        theirs = f(oracle.from_numpy(a).to(getattr(oracle, dtype)))
        ours = f(tm.from_numpy(a).to(getattr(tm, dtype)))
        assert ours.shape == theirs.shape and ours.dtype is getattr(tm, dtype)
        np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_column_sums_match_oracle(oracle, dtype):
    # sum(0) of C-contiguous matrices (a Linear's bias gradient) takes a short path
    # (``_columns``, ``column_sums``): rows and columns around its blocks and groups of 16
    # rows (one and two levels; 4111 rows take the general path), 4 interleaved rows, and groups
    # of 4 vectors / 4 columns
    bad = []
    one_level = (1, 2, 3, 4, 5, 15, 16, 17, 31, 33, 63, 64, 65, 100, 255)
    for rows in one_level + (256, 257, 271, 512, 527, 2047, 4111):
        for cols in (2, 3, 4, 5, 7, 8, 9, 10, 31, 32, 33, 40, 65, 128, 130):
            a = _array((rows, cols), dtype, rows * 1000 + cols)
            theirs = oracle.from_numpy(a).sum(0)
            n = _differ(tm.from_numpy(a).sum(0), theirs)
            direct = column_sums(a)  # the entry a Linear's bias gradient takes
            if direct is not None:
                n += _differ(direct, theirs)
            elif rows < 2048 and a.size < 32768:  # (over threads, or more rows: the general path)
                n += 1
            if n:
                bad.append((rows, cols, n))
    assert bad == []


def test_edge_values():
    z = tm.tensor([-0.0, -0.0])
    assert str(z.sum()) == "tensor(0.)"  # the output starts at +0: no -0 sum, as in PyTorch
    assert tm.zeros(0, 3).sum(0).tolist() == [0.0, 0.0, 0.0]
    assert tm.tensor([1.0, float("inf"), float("-inf")]).sum().isnan()
    assert tm.tensor(2.5).sum().item() == 2.5


_AVX2_SCRIPT = """
import json, sys
import numpy as np, torch
assert torch.backends.cpu.get_cpu_capability() in ("AVX2", "DEFAULT")
out = []
for spec in json.loads(sys.argv[1]):
    rng = np.random.default_rng(spec["seed"])
    a = rng.standard_normal(spec["shape"]).astype(np.float32)
    t = torch.from_numpy(a)
    if spec["t"]:
        t = t.t()
    out.append(t.sum(spec["dims"]).numpy().view(np.uint32).tolist())
print(json.dumps(out))
"""


@pytest.mark.slow  # a second PyTorch process: ~2 s
def test_avx2_kernel_matches(torch_oracle):
    specs = [
        {"shape": s, "seed": i, "t": t, "dims": d}
        for i, s in enumerate([[1000], [4097], [70001], [40, 1000], [1000, 40]])
        for t in ([False, True] if len(s) == 2 else [False])
        for d in ([0, 1] if len(s) == 2 else [0])
    ]
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "avx2"}
    run = subprocess.run([sys.executable, "-c", _AVX2_SCRIPT, json.dumps(specs)], env=env,
                         capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    for spec, bits in zip(specs, json.loads(run.stdout), strict=True):
        a = np.random.default_rng(spec["seed"]).standard_normal(spec["shape"]).astype(np.float32)
        v = a.T if spec["t"] else a
        ours = cascade_sum(v, (spec["dims"],), vector_bytes=32)
        assert np.asarray(ours).view(np.uint32).tolist() == bits


def test_losses_reduced_by_mean_match_oracle(oracle):
    """Losses whose reduction is ``mean`` (or a sum) inherit its order of additions."""
    x, z = _array((37, 300), seed=3), _array((37, 300), seed=4)
    p = np.abs(z) / np.abs(z).sum(1, keepdims=True)
    y = np.random.default_rng(5).integers(0, 300, 37)
    for f in (
        lambda T, a, b, c: T.nn.functional.mse_loss(a, b),
        lambda T, a, b, c: T.nn.functional.mse_loss(a, b, reduction="sum"),
        lambda T, a, b, c: T.nn.functional.l1_loss(a, b),
        lambda T, a, b, c: T.nn.functional.cross_entropy(a, c),
        lambda T, a, b, c: T.nn.functional.cross_entropy(a, T.from_numpy(y), label_smoothing=0.1),
    ):
        theirs = f(oracle, *(oracle.from_numpy(v) for v in (x, z, p)))
        ours = f(tm, *(tm.from_numpy(v) for v in (x, z, p)))
        assert _differ(ours.numpy(), theirs) == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nansum_bits_match_oracle(oracle, dtype):
    """nansum is the same kernel, its loads turning NaN into 0 (strided inputs keep their order)."""
    rng = np.random.default_rng(9)
    for shape in ((1000,), (7, 33), (300, 17, 5), (2000, 100)):
        a = rng.standard_normal(shape).astype(dtype)
        a.reshape(-1)[rng.integers(0, a.size, a.size // 10)] = np.nan
        for _, v in _layouts(a):
            for d in _dims(v.ndim):
                args = () if d is None else (d,)
                theirs = oracle.from_numpy(v).nansum(*args)
                assert _differ(tm.from_numpy(v).nansum(*args).numpy(), theirs) == 0
