"""Optimizers given sparse gradients (an ``Embedding(sparse=True)``), against PyTorch: Adagrad and
SGD step on them; the others refuse them with PyTorch's message before making any state."""

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

REFUSING = ["Adam", "AdamW", "RMSprop", "NAdam", "RAdam", "Adamax", "Adadelta", "ASGD", "Rprop",
            "Adafactor"]  # fmt: skip


def _embedding_with_sparse_grad(T, weight):
    emb = T.nn.Embedding(10, 3, sparse=True)
    with T.no_grad():
        emb.weight.copy_(T.tensor(weight))
    emb(T.tensor([1, 2, 1, 7])).pow(2).sum().backward()
    return emb


@pytest.mark.parametrize("name", REFUSING)
@pytest.mark.parametrize("foreach", [False, True])
def test_refuses_sparse_gradients(name, foreach):
    def run(T):
        emb = _embedding_with_sparse_grad(T, [[0.5] * 3] * 10)
        kw = (
            {}
            if name in ("Rprop", "ASGD", "Adadelta", "Adafactor") and foreach
            else {"foreach": foreach}
        )
        opt = getattr(T.optim, name)(emb.parameters(), **kw)
        with pytest.raises(RuntimeError) as e:
            opt.step()
        return str(e.value), len(opt.state)

    assert run(taimatsu) == run(torch)


@pytest.mark.parametrize(
    "kw", [{}, {"lr_decay": 0.1}, {"initial_accumulator_value": 0.2, "eps": 1e-3}]
)
def test_adagrad_sparse_trajectory(kw):
    weight = [[0.1 * i - 0.3 * j for j in range(3)] for i in range(10)]

    def run(T):
        emb = _embedding_with_sparse_grad(T, weight)
        opt = T.optim.Adagrad(emb.parameters(), lr=0.5, **kw)
        for _ in range(3):
            opt.step()
            opt.zero_grad()
            emb(T.tensor([1, 2, 1, 7])).pow(2).sum().backward()
        return emb.weight.detach().numpy().copy(), opt.state[emb.weight]["sum"].numpy().copy()

    (w, s), (tw, ts) = run(taimatsu), run(torch)
    np.testing.assert_allclose(w, tw, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s, ts, rtol=1e-6, atol=1e-7)


def test_adagrad_sparse_weight_decay_error():
    def run(T):
        emb = _embedding_with_sparse_grad(T, [[0.5] * 3] * 10)
        with pytest.raises(RuntimeError) as e:
            T.optim.Adagrad(emb.parameters(), weight_decay=0.1).step()
        return str(e.value)

    assert run(taimatsu) == run(torch)


def test_sparse_tensor_is_not_a_dense_legacy_type():
    s = taimatsu.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse()
    assert not isinstance(s, taimatsu.FloatTensor)
    assert isinstance(s, taimatsu.sparse.FloatTensor)
    assert isinstance(taimatsu.ones(2), taimatsu.FloatTensor)
