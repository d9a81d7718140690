"""``torch.hspmm``, ``torch.smm`` and ``torch.sspaddmm`` against PyTorch: results (reprs, so
entry order and the coalesced flag too), PyTorch's errors, and its missing derivatives."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from sparse_oracle import both, error

warnings.filterwarnings("ignore", message="Sparse (invariant checks|CSR tensor support)")

IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]  # uncoalesced, row 2 empty
VAL = [3.0, 4.0, 5.0, -1.5]
D = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 4


def s(lib, size=(3, 3), **kw):
    return lib.sparse_coo_tensor(lib.tensor(IDX), lib.tensor(VAL), size, **kw)


def m(lib):  # an uncoalesced input for sspaddmm
    return lib.sparse_coo_tensor(
        lib.tensor([[1, 0, 1], [3, 1, 3]]), lib.tensor([1.0, 2, 5]), (3, 4)
    )


def d(lib):
    return lib.tensor(D)


RESULTS = [
    lambda lib: lib.hspmm(s(lib), d(lib)),
    lambda lib: lib.hspmm(s(lib).coalesce(), d(lib)),
    lambda lib: lib.hspmm(lib.sparse_coo_tensor(size=(2, 3)), d(lib)),
    lambda lib: lib.hspmm(s(lib).long(), d(lib).long()),
    lambda lib: lib.smm(s(lib), d(lib)),
    lambda lib: s(lib).smm(d(lib)),
    lambda lib: lib.smm(lib.sparse_coo_tensor([[2], [0]], [0.0], (3, 3)), d(lib)),
    lambda lib: lib.sspaddmm(m(lib), s(lib), d(lib)),
    lambda lib: lib.sspaddmm(m(lib).coalesce(), s(lib), d(lib), beta=0.5, alpha=2.0),
    lambda lib: m(lib).sspaddmm(s(lib), d(lib), beta=0),
    lambda lib: lib.sspaddmm(lib.sparse_coo_tensor(size=(3, 4)), s(lib), d(lib)),
    lambda lib: lib.hspmm(s(lib, requires_grad=True), d(lib)),
]


@pytest.mark.parametrize("k", range(len(RESULTS)))
def test_results_match_torch(k):
    got, want = both(RESULTS[k])
    assert repr(got) == repr(want)
    assert got.is_coalesced() == want.is_coalesced()


ERRORS = [
    lambda lib: lib.hspmm(s(lib), d(lib).t()),
    lambda lib: lib.hspmm(s(lib), lib.ones(3, 2, 2)),
    lambda lib: lib.hspmm(s(lib), d(lib).double()),
    lambda lib: lib.hspmm(s(lib), d(lib).to_sparse()),
    lambda lib: lib.hspmm(lib.sparse_coo_tensor(IDX, lib.ones(4, 2), (3, 3, 2)), d(lib)),
    lambda lib: lib.smm(d(lib), d(lib)),
    lambda lib: lib.smm(s(lib), d(lib).t()),
    lambda lib: lib.smm(s(lib), d(lib).double()),
    lambda lib: lib.smm(s(lib), d(lib).to_sparse()),
    lambda lib: lib.smm(lib.sparse_coo_tensor(size=(3, 4, 1)), d(lib)),
    lambda lib: lib.smm(s(lib).to_sparse_csr(), d(lib)),
    lambda lib: lib.sspaddmm(d(lib), s(lib), d(lib)),
    lambda lib: lib.sspaddmm(m(lib), s(lib), d(lib).t()),
    lambda lib: lib.sspaddmm(lib.sparse_coo_tensor(size=(2, 4)), s(lib), d(lib)),
    lambda lib: lib.sspaddmm(lib.sparse_coo_tensor(size=(3, 5)), s(lib), d(lib)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    got, want = both(lambda lib: error(lambda: ERRORS[k](lib)))
    assert want is not None
    assert got == want


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_hspmm_of_other_layouts_raises_the_dispatcher_error(layout):
    def run(lib):
        a = d(lib).t() @ d(lib) if layout == "dense" else s(lib).to_sparse_csr()
        return error(lambda: lib.hspmm(a, d(lib)))

    got, want = both(run)
    assert got[0] == want[0] == "NotImplementedError"
    assert want[1].startswith(got[1])  # PyTorch's goes on with the list of backends


@pytest.mark.parametrize("op", ["hspmm", "smm", "sspaddmm"])
def test_backward_raises_as_torch(op):
    def run(lib):
        a, b = s(lib, requires_grad=True), lib.tensor(D, requires_grad=True)
        out = lib.sspaddmm(m(lib), a, b) if op == "sspaddmm" else getattr(lib, op)(a, b)
        return type(out.grad_fn).__name__, error(lambda: out.to_dense().sum().backward())

    got, want = both(run)
    assert got == want
