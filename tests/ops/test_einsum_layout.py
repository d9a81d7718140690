"""einsum as PyTorch computes it: its result's shape, strides (a permuted view of the product
where PyTorch's is, contiguous where PyTorch's is, so ``.view`` works or fails alike), grad_fn,
values and gradients, for equations of every kind."""

import numpy as np
import pytest

import taimatsu as tm

SHAPES = {
    "ij,jk->ki": [(2, 3), (3, 4)], "ij,jk->ik": [(2, 3), (3, 4)], "i,j->ji": [(3,), (2,)],
    "i,j->ij": [(3,), (2,)], "ij,j->ij": [(2, 3), (3,)], "ij,i->ji": [(2, 3), (2,)],
    "bij->bji": [(2, 3, 4)], "ij->ji": [(2, 3)], "bij,bjk->bki": [(2, 3, 4), (2, 4, 5)],
    "bij,bjk->bik": [(2, 3, 4), (2, 4, 5)], "ijk->kj": [(2, 3, 4)], "ijk,k->ji": [(2, 3, 4), (4,)],
    "ii->i": [(3, 3)], "ii": [(3, 3)], "i,i": [(3,), (3,)], "i,i->": [(3,), (3,)],
    "ij,ij->ji": [(2, 3), (2, 3)], "ij,kj->ki": [(2, 3), (5, 3)],
    "bhqd,bhkd->bhqk": [(2, 3, 4, 5), (2, 3, 6, 5)], "bhqk,bhkd->bqhd": [(2, 3, 4, 6), (2, 3, 6, 5)],
    "ij,jk,kl->il": [(2, 3), (3, 4), (4, 5)], "iij->j": [(3, 3, 2)], "ij,ij->": [(2, 3), (2, 3)],
    "ij->": [(2, 3)], "i,j,k->ijk": [(2,), (3,), (4,)], "ab,cd->": [(2, 3), (4, 5)],
    "aBc,cD->BaD": [(2, 3, 4), (4, 5)], "...i,i": [(2, 3, 4), (4,)], "i...,i->...": [(4, 2, 3), (4,)],
    "ij,kl->ijkl": [(1, 3), (2, 1)], "bn,anm,bm->ba": [(2, 3), (4, 3, 5), (2, 5)],
}  # fmt: skip


@pytest.mark.parametrize("equation", SHAPES)
def test_einsum_as_pytorch(torch_oracle, equation):
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s) for s in SHAPES[equation]]
    got = []
    for lib in (tm, torch_oracle):
        ops = [lib.tensor(a, requires_grad=True) for a in data]
        y = lib.einsum(equation, *ops)
        g = lib.arange(float(y.numel()), dtype=lib.float64).view(y.shape) / 7
        grads = lib.autograd.grad(y, ops, g)
        got.append(
            (
                tuple(y.shape),
                y.stride(),
                y.grad_fn.name(),
                y.detach().numpy(),
                [x.numpy() for x in grads],
            )
        )
    (shape, strides, name, y, grads), (tshape, tstrides, tname, ty, tgrads) = got
    assert (shape, strides, name) == (tshape, tstrides, tname)
    np.testing.assert_allclose(y, ty, rtol=1e-12, atol=1e-12)
    for a, b in zip(grads, tgrads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_view_after_einsum(torch_oracle):
    for lib in (tm, torch_oracle):
        r = lib.einsum("ij,jk->ki", lib.ones(2, 3), lib.ones(3, 4))
        assert r.view(-1).shape == (8,)
