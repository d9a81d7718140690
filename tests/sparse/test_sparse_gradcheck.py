"""``torch.sparse.as_sparse_gradcheck`` against PyTorch: the same verdicts for functions of
sparse inputs of each layout (masked or not), including one whose gradient is wrong."""

import warnings

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
warnings.filterwarnings("ignore", message="Sparse (invariant checks|CSR tensor support)")

M = [[0.0, 1.0], [2.0, 0.0]]
D = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def _wrong(lib):
    class Wrong(lib.autograd.Function):  # forward doubles, backward forgets the 2
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g

    return Wrong


CASES = [
    ("coo", lambda lib, s: s.to_sparse_csr(), {}),
    ("coo", lambda lib, s: lib.sparse.mm(s, lib.tensor(D, dtype=lib.float64)), {"masked": True}),
    ("coo", lambda lib, s: lib.sparse.mm(s, lib.tensor(D, dtype=lib.float64)), {}),
    ("csr", lambda lib, s: lib.mm(s, lib.tensor(D, dtype=lib.float64)), {}),
    ("csc", lambda lib, s: s.to_dense() * 3, {}),
    ("bsr", lambda lib, s: s.to_dense().sin(), {}),
    ("coo", lambda lib, s: _wrong(lib).apply(s.to_dense()), {"raise_exception": False}),
    ("csr", lambda lib, s: _wrong(lib).apply(s.to_dense()), {"raise_exception": False}),
]


def _input(lib, layout):
    t = lib.tensor(M, dtype=lib.float64)
    s = {"coo": t.to_sparse(), "csr": t.to_sparse_csr(), "csc": t.to_sparse_csc(),
         "bsr": t.to_sparse_bsr(1)}[layout]  # fmt: skip
    return s.requires_grad_(True)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_verdicts_match_torch(k):
    layout, fn, kwargs = CASES[k]

    def run(lib):
        check = lib.sparse.as_sparse_gradcheck(lib.autograd.gradcheck)
        return check(lambda s: fn(lib, s), _input(lib, layout), **kwargs)

    got, want = run(tm), run(torch)
    assert got == want
    assert want is (k < 6)
