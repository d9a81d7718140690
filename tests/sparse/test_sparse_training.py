"""Sparse gradients in training against PyTorch: Embedding(sparse=True) / F.embedding(sparse=True)
gradients (padding_idx, scale_grad_by_freq, accumulation), SparseAdam and SGD trajectories,
and a tied embedding whose dense and sparse gradients meet."""

import warnings

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
warnings.filterwarnings("ignore", message="Sparse (invariant checks|CSR tensor support)")

RNG = np.random.default_rng(1)
W = RNG.standard_normal((7, 3)).astype(np.float32)
BATCHES = [RNG.integers(0, 7, size=(2, 4)) for _ in range(4)]
COTS = [RNG.standard_normal((2, 4, 3)).astype(np.float32) for _ in range(4)]


def emb(lib, **kw):
    e = lib.nn.Embedding(7, 3, sparse=True, **kw)
    with lib.no_grad():
        e.weight.copy_(lib.tensor(W))
    return e


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 2}, {"padding_idx": 0}])
def test_embedding_sparse_gradient_matches_torch(kw):
    def run(lib):
        e = emb(lib, **kw)
        e(lib.tensor(BATCHES[0])).backward(lib.tensor(COTS[0]))
        first = (repr(e.weight.grad), e.weight.grad.is_coalesced())
        e(lib.tensor(BATCHES[1][:1])).backward(lib.tensor(COTS[1][:1]))  # accumulates: merged
        return first, repr(e.weight.grad), e.weight.grad.is_coalesced()

    got, want = run(tm), run(torch)
    assert got == want


def test_scale_grad_by_freq_with_sparse_gradients_is_refused_as_torch():
    def run(lib):
        e = emb(lib, scale_grad_by_freq=True)
        out = e(lib.tensor(BATCHES[0]))
        with pytest.raises(RuntimeError) as info:
            out.backward(lib.tensor(COTS[0]))
        return str(info.value)

    assert run(tm) == run(torch)


def test_functional_embedding_sparse_matches_torch():
    def run(lib):
        w = lib.tensor(W, requires_grad=True)
        lib.nn.functional.embedding(lib.tensor([[1, 1, 4]]), w, sparse=True).sum().backward()
        return repr(w.grad), type(w.grad).__mro__[-2].__name__

    got, want = run(tm), run(torch)
    assert got[0] == want[0]


def _train(lib, make_opt, steps=4, **kw):
    e = emb(lib, **kw)
    opt = make_opt(lib, e)
    for ids, cot in zip(BATCHES[:steps], COTS[:steps]):
        opt.zero_grad()
        e(lib.tensor(ids)).backward(lib.tensor(cot))
        opt.step()
    return e.weight.detach().numpy().copy(), opt.state[e.weight]


OPTS = [
    lambda lib, e: lib.optim.SparseAdam(e.parameters(), lr=0.1),
    lambda lib, e: lib.optim.SparseAdam(
        e.parameters(), lr=0.05, betas=(0.8, 0.99), eps=1e-6, maximize=True
    ),
    lambda lib, e: lib.optim.SGD(e.parameters(), lr=0.1),
    lambda lib, e: lib.optim.SGD(e.parameters(), lr=0.1, momentum=0.9),
]


@pytest.mark.parametrize("k", range(len(OPTS)))
def test_optimizer_trajectory_with_sparse_gradients_matches_torch(k):
    (gw, gs), (ww, ws) = _train(tm, OPTS[k]), _train(torch, OPTS[k])
    np.testing.assert_allclose(gw, ww, rtol=1e-6, atol=1e-6)
    assert sorted(gs) == sorted(ws)
    if "step" in ws:
        assert gs["step"] == ws["step"]
        for key in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_allclose(gs[key].numpy(), ws[key].numpy(), rtol=1e-6, atol=1e-7)


def test_tied_embedding_dense_and_sparse_gradients_sum_as_torch():
    def run(lib):
        e = emb(lib)
        h = e(lib.tensor(BATCHES[2]))  # sparse gradient for the weight
        logits = h @ e.weight.t()  # dense gradient for the same weight
        logits.backward(lib.tensor(RNG_TIED))
        return e.weight.grad.layout, e.weight.grad.to_dense().numpy()

    got, want = run(tm), run(torch)
    assert repr(got[0]) == repr(want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-5)


RNG_TIED = RNG.standard_normal((2, 4, 7)).astype(np.float32)


def test_gradients_meeting_in_one_backward_sum_as_torch():
    # Three lookups of one embedding: PyTorch sums new + old; the values of a sum's gradient
    # are an expanded (non-contiguous) view, so the entries are concatenated, not merged.
    # Three sparse.mm gradients of one matrix have contiguous values: merged.
    def run(lib):
        e = emb(lib)
        ids = [lib.tensor(b) for b in ([1, 2], [2, 5], [0, 1])]
        (e(ids[0]).sum() + e(ids[1]).sum() * 2 + e(ids[2]).sum() * 3).backward()
        s = lib.sparse_coo_tensor(lib.tensor([[0, 1, 1], [2, 0, 2]]), lib.tensor([3.0, 4, 5]),
                                  (2, 3), requires_grad=True)  # fmt: skip
        d = lib.tensor(W[:3, :2])
        sum(lib.sparse.mm(s, d * k).sum() for k in (1.0, 2.0, 3.0)).backward()
        return repr(e.weight.grad), repr(s.grad)

    got, want = run(tm), run(torch)
    assert got == want


def test_sparse_add_merges_contiguous_values_and_concatenates_strided_ones():
    def run(lib):
        a = lib.sparse_coo_tensor(lib.tensor([[1, 2]]), lib.ones(2, 3), (6, 3))
        b = lib.sparse_coo_tensor(lib.tensor([[2, 5]]), lib.ones(2, 3) * 2, (6, 3))
        c = lib.sparse_coo_tensor(lib.tensor([[2, 5]]), lib.ones(1, 3).expand(2, 3), (6, 3))
        return repr(a + b), repr(a + c), (a + c).is_coalesced()

    got, want = run(tm), run(torch)
    assert got == want


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_sparse_gradient_matches_torch(mode, padding_idx):
    cot = RNG.standard_normal((2, 3)).astype(np.float32)

    def run(lib):
        bag = lib.nn.EmbeddingBag(7, 3, mode=mode, sparse=True, padding_idx=padding_idx)
        with lib.no_grad():
            bag.weight.copy_(lib.tensor(W))
        out = bag(lib.tensor([1, 2, 4, 4, 0, 6]), lib.tensor([0, 2]))
        out.backward(lib.tensor(cot))
        return repr(bag.weight.grad), bag.weight.grad.is_coalesced()

    got, want = run(tm), run(torch)
    assert got == want


def _pygcn_losses(lib):
    """pygcn's idioms: scipy.sparse -> torch.sparse.FloatTensor, torch.spmm, dropout, Adam."""
    import scipy.sparse as sp

    F, nn = lib.nn.functional, lib.nn

    def sparse_mx_to_torch_sparse_tensor(sparse_mx):  # as pygcn writes it
        sparse_mx = sparse_mx.tocoo().astype(np.float32)
        indices = lib.from_numpy(np.vstack((sparse_mx.row, sparse_mx.col)).astype(np.int64))
        values = lib.from_numpy(sparse_mx.data)
        return lib.sparse.FloatTensor(indices, values, lib.Size(sparse_mx.shape))

    class GraphConvolution(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(lib.empty(n_in, n_out).uniform_(-0.3, 0.3))
            self.bias = nn.Parameter(lib.zeros(n_out))

        def forward(self, x, adj):
            return lib.spmm(adj, lib.mm(x, self.weight)) + self.bias

    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    a = sp.random(30, 30, density=0.1, random_state=1, format="coo")
    a = a + a.T + sp.eye(30)
    adj = sparse_mx_to_torch_sparse_tensor(sp.diags(np.asarray(a.sum(1)).ravel() ** -1.0) @ a)
    x = lib.from_numpy(rng.standard_normal((30, 5)).astype(np.float32))
    y = lib.from_numpy((np.arange(30) % 3).astype(np.int64))
    gc1, gc2 = GraphConvolution(5, 8), GraphConvolution(8, 3)
    params = list(gc1.parameters()) + list(gc2.parameters())
    opt = lib.optim.Adam(params, lr=0.05, weight_decay=5e-4)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        h = F.dropout(F.relu(gc1(x, adj)), 0.5, True)
        loss = F.nll_loss(F.log_softmax(gc2(h, adj), dim=1), y)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    return losses


def test_pygcn_style_training_gives_torchs_losses():
    got, want = _pygcn_losses(tm), _pygcn_losses(torch)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _sparse_parameter_program(lib):
    """A sparse tensor as a Parameter (and a Buffer): what it prints, its gradient through
    torch.sparse.mm, a module holding it, an SGD step on it, and SparseAdam's refusal."""
    p = lib.nn.Parameter(lib.eye(3).to_sparse())
    out = [repr(p), type(p).__name__, p.is_sparse, p.requires_grad, isinstance(p, lib.nn.Parameter)]
    lib.sparse.mm(p, lib.arange(6.0).reshape(3, 2)).sum().backward()
    out.append(repr(p.grad))
    m = lib.nn.Module()
    m.w = p
    m.b = lib.nn.Buffer(lib.eye(2).to_sparse())
    out.append(([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()]))
    out.append(m.b.is_sparse)
    try:
        lib.optim.SparseAdam([lib.nn.Parameter(lib.ones(2)), p])
    except ValueError as e:
        out.append(str(e))
    return out


def test_sparse_parameter_matches_torch():
    got, want = _sparse_parameter_program(tm), _sparse_parameter_program(torch)
    assert got == want
