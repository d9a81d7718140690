"""Sparse tensors on the CUDA code path, run on the CuPy test double (tests/cuda/cupy_double.py)
plus a TEST DOUBLE for ``cupyx.scipy.sparse`` defined here (scipy.sparse over the double's
arrays, reading them with an explicit ``.get()``). What it checks: the sparse code picks the
device's array module everywhere (no NumPy-only call on a device array) and gives the CPU's
results. What it cannot: cupyx's real kernels, their rounding or speed."""

import sys
import types
import warnings

import numpy as np
import pytest
import scipy.sparse

import taimatsu as tm

warnings.filterwarnings("ignore", message="Sparse (invariant checks|CSR tensor support)")


class _Matrix:
    """A ``cupyx.scipy.sparse`` matrix double: a scipy matrix whose arrays live on the 'device'."""

    def __init__(self, m, cp):
        self._m, self._cp = m, cp

    shape = property(lambda self: self._m.shape)
    T = property(lambda self: _Matrix(self._m.T, self._cp))
    row = property(lambda self: self._cp.asarray(self._m.row))
    col = property(lambda self: self._cp.asarray(self._m.col))
    data = property(lambda self: self._cp.asarray(self._m.data))

    def tocsr(self):
        return _Matrix(self._m.tocsr(), self._cp)

    def tocoo(self):
        return _Matrix(self._m.tocoo(), self._cp)

    def __matmul__(self, other):
        if isinstance(other, _Matrix):
            return _Matrix(self._m @ other._m, self._cp)
        if not isinstance(other, self._cp.ndarray):
            raise TypeError("Unsupported type: a host array met a device sparse matrix")
        return self._cp.asarray(np.asarray(self._m @ other.get()))


def _sparse_module(cp):
    host = lambda a: a.get() if isinstance(a, cp.ndarray) else a
    mod = types.ModuleType("cupyx.scipy.sparse")

    def coo_matrix(arg, shape=None):
        data, (row, col) = arg
        return _Matrix(
            scipy.sparse.coo_matrix((host(data), (host(row), host(col))), shape=shape), cp
        )

    def csr_matrix(arg, shape=None):
        data, indices, indptr = arg
        return _Matrix(
            scipy.sparse.csr_matrix((host(data), host(indices), host(indptr)), shape=shape), cp
        )

    mod.coo_matrix, mod.csr_matrix = coo_matrix, csr_matrix
    return mod


@pytest.fixture
def cuda_double():
    import cupy_double

    from taimatsu import backend
    from taimatsu.backend import cuda_random

    extra = {"cupyx.scipy.sparse": _sparse_module(cupy_double._module)}
    saved = {k: sys.modules.get(k) for k in [*cupy_double.MODULES, *extra]}
    cupy_double.install()
    sys.modules.update(extra)
    cupy_double.cupyx.scipy.sparse = extra["cupyx.scipy.sparse"]
    cupy_double.cupyx.scatter_max = lambda a, idx, v: np.maximum.at(a._a, idx._a, v._a)
    backend._cupy, backend._cuda_index[0] = None, 0
    try:
        yield cupy_double
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        del cupy_double.cupyx.scipy.sparse, cupy_double.cupyx.scatter_max
        backend._cupy, backend._cuda_index[0] = None, 0
        # as tests/cuda/conftest.py's fake_cupy: no device check or CUDA generator outlives a test
        backend._pending.clear()
        cuda_random._default.clear()
        cupy_double._HOOKS.clear()


IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]
VAL = [3.0, 4.0, 5.0, -1.5]
D = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)


def _run(device):
    s = tm.sparse_coo_tensor(
        tm.tensor(IDX), tm.tensor(VAL), (2, 3), device=device, requires_grad=True
    )
    d = tm.tensor(D, device=device, requires_grad=True)
    y = tm.sparse.mm(s, d)
    y.sum().backward()
    other = tm.sparse_coo_tensor(
        tm.tensor([[1, 0], [2, 0]]), tm.tensor([1.0, 2.0]), (2, 3), device=device
    )
    c = s.detach().coalesce()
    results = {
        "mm": y, "s.grad": s.grad, "d.grad": d.grad, "dense": s.detach().to_dense(),
        "coalesce": c, "add": s.detach() + other, "mul": s.detach() * 2.5, "sum": s.detach().sum(),
        "sum1": tm.sparse.sum(s.detach(), 1), "softmax": tm.sparse.softmax(s.detach(), 1),
        "t": s.detach().t(), "csr": c.to_sparse_csr(), "csr_mm": tm.mm(c.to_sparse_csr(), d.detach()),
        "to_sparse": tm.tensor([[0.0, 1.0], [2.0, 0.0]], device=device).to_sparse(),
        "select": s.detach()[1], "matmul_dense_sparse": d.detach().t() @ s.detach().t(),
    }  # fmt: skip
    return {k: v.detach().to("cpu") for k, v in results.items()}


def test_sparse_ops_on_the_cuda_code_path_match_the_cpu(cuda_double):
    cpu, gpu = _run("cpu"), _run("cuda")
    for k in cpu:
        assert repr(gpu[k]) == repr(cpu[k]), k


def test_sparse_repr_names_the_cuda_device(cuda_double):
    s = tm.sparse_coo_tensor(tm.tensor(IDX), tm.tensor(VAL), (2, 3), device="cuda")
    assert "device='cuda:0'" in repr(s) and s.is_cuda


def test_embedding_sparse_adam_on_the_cuda_code_path(cuda_double):
    def train(device):
        tm.manual_seed(0)
        e = tm.nn.Embedding(6, 3, sparse=True).to(device)
        opt = tm.optim.SparseAdam(e.parameters(), lr=0.1)
        for ids in ([1, 2, 2], [0, 5, 1]):
            opt.zero_grad()
            e(tm.tensor(ids, device=device)).sum().backward()
            opt.step()
        return e.weight.detach().to("cpu").numpy()

    np.testing.assert_allclose(train("cuda"), train("cpu"), rtol=1e-6, atol=1e-7)


def _run_compressed(device):
    x = tm.tensor([[1.0, 0, 2, 0], [0, 0, 3, 4], [5, 0, 0, 0], [0, 6, 0, 7]], device=device)
    d = tm.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3), device=device)
    csc, bsr = x.to_sparse_csc(), x.to_sparse_bsr(2)
    csr = x.to_sparse_csr()
    results = {
        "csc": csc, "bsr": bsr, "bsc": x.to_sparse_bsc(2), "csc_t": csc.t(), "bsr_t": bsr.t(),
        "csc_dense": csc.to_dense(), "bsr_coo": bsr.to_sparse(), "csc_csr": csc.to_sparse_csr(),
        "csc_mm": csc @ d, "bsr_mm": bsr @ d, "csr_csr": csr @ csr,
        "hspmm": tm.hspmm(x.to_sparse(), d), "smm": tm.smm(x.to_sparse(), d),
        "sampled": tm.sparse.sampled_addmm(csr, x, x),
        "factory": tm.sparse_bsr_tensor(tm.tensor([0, 1, 2], device=device),
                                        tm.tensor([0, 1], device=device), bsr.values()[:2]),
    }  # fmt: skip
    return {k: v.detach().to("cpu") for k, v in results.items()}


def test_compressed_layouts_on_the_cuda_code_path_match_the_cpu(cuda_double):
    cpu, gpu = _run_compressed("cpu"), _run_compressed("cuda")
    for k in cpu:
        assert repr(gpu[k]) == repr(cpu[k]), k
