"""F.ctc_loss against PyTorch: losses and gradients over random shapes, lengths (zero lengths,
infeasible targets), repeated labels, blank positions, dtypes, reductions, zero_infinity,
unbatched input and concatenated targets; the graph's node names."""

import numpy as np
import pytest

import taimatsu as tm

CASES = range(40)


def _case(seed):
    rng = np.random.default_rng(seed)
    T, N, C = int(rng.integers(1, 9)), int(rng.integers(1, 4)), int(rng.integers(2, 6))
    S = int(rng.integers(0, 5))
    blank = int(rng.choice([0, C - 1]))
    labels = [c for c in range(C) if c != blank]
    targets = rng.choice(labels, size=(N, max(S, 1)))
    if rng.random() < 0.3:  # repeats need a blank between them: often infeasible
        targets[:, 1:] = targets[:, :1]
    tl = rng.integers(0, S + 1, size=N)
    il = rng.integers(0, T + 1, size=N)
    lp = rng.standard_normal((T, N, C))
    return lp, targets, il, tl, blank


def _run(T, seed, dtype, reduction, zero_infinity, concatenated):
    lp0, targets, il, tl, blank = _case(seed)
    lp = T.tensor(lp0, dtype=getattr(T, dtype)).log_softmax(2).detach().requires_grad_()
    tg = T.tensor(targets)
    if concatenated:
        tg = T.tensor(np.concatenate([targets[i, :n] for i, n in enumerate(tl)]).astype(np.int64))
    loss = T.nn.functional.ctc_loss(lp, tg, T.tensor(il), T.tensor(tl), blank=blank,
                                    reduction=reduction, zero_infinity=zero_infinity)  # fmt: skip
    g = T.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(loss.shape), dtype=loss.dtype)
    loss.backward(g)
    return loss.detach().numpy(), lp.grad.numpy(), type(loss.grad_fn).__name__


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_matches_pytorch(torch_oracle, seed, dtype, reduction, zero_infinity):
    tol = 2e-5 if dtype == "float32" else 1e-10
    for concatenated in (False, True):
        args = (seed, dtype, reduction, zero_infinity, concatenated)
        (l1, g1, n1), (l2, g2, n2) = _run(tm, *args), _run(torch_oracle, *args)
        assert n1 == n2
        np.testing.assert_allclose(l1, l2, rtol=tol, atol=tol)
        np.testing.assert_array_equal(np.isnan(g1), np.isnan(g2))
        np.testing.assert_allclose(g1, g2, rtol=tol, atol=tol)


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_ctc_loss_unbatched(torch_oracle, reduction):
    out = []
    for T in (tm, torch_oracle):
        T.manual_seed(0)
        lp = T.randn(6, 5, dtype=T.float64).log_softmax(1).requires_grad_()
        loss = T.nn.functional.ctc_loss(lp, T.tensor([1, 2, 2]), [6], [3], reduction=reduction)
        loss.sum().backward()
        out.append((loss.detach().numpy(), lp.grad.numpy(), type(loss.grad_fn).__name__))
    assert out[0][2] == out[1][2]
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10, atol=1e-12)


def test_ctc_loss_half_is_refused(torch_oracle):
    msgs = []
    for T in (tm, torch_oracle):
        lp = T.zeros(5, 3, 4).half()
        with pytest.raises(NotImplementedError) as info:
            T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1], [3, 3]]), [5, 4, 3], [2, 2, 1])
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_ctc_loss_with_minus_infinity_log_probs(torch_oracle):
    # impossible labels (log-probability -inf) stay -inf through the recursions, never NaN
    # from a shifted row (-inf * 0)
    out = []
    for T in (tm, torch_oracle):
        inf = float("inf")
        x = T.tensor(
            [[[0.0, -inf, 0.0]], [[0.0, 0.0, -inf]], [[-inf, 0.0, 0.0]], [[0.0, 0.0, 0.0]]]
        )
        lp = x.log_softmax(2).requires_grad_()
        loss = T.nn.functional.ctc_loss(lp, T.tensor([[1, 2]]), [4], [2], reduction="sum")
        loss.backward()
        out.append((loss.item(), lp.grad.numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
    np.testing.assert_array_equal(np.isnan(out[0][1]), np.isnan(out[1][1]))
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-5, atol=1e-6, equal_nan=True)
