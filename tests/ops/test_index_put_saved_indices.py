"""index_put (and ``x[mask] = v``) saves its index tensors for backward, as PyTorch's
IndexPutBackward0 does: an index tensor written in place before the backward raises PyTorch's
version error. Wishart's batched ``rsample`` hits this (its redraw loop rewrites the mask)."""

from __future__ import annotations

import pytest

import taimatsu


def _error(call):
    with pytest.raises(RuntimeError) as e:
        call()
    return str(e.value)


def _setitem_then_write_mask(T, mask_dtype):
    x = T.zeros(4, 2, requires_grad=True).clone()
    m = T.tensor([True, False, True, False])
    if mask_dtype == "long":
        m = T.tensor([0, 2])
    x[m] = T.ones(2, 2, requires_grad=True)
    if mask_dtype == "long":
        m.zero_()
    else:
        m[m.clone()] = T.tensor([False, True])
    x.sum().backward()


def _index_put_then_write_index(T, mask_dtype):
    x = T.zeros(4, requires_grad=True)
    i = T.tensor([0, 2]) if mask_dtype == "long" else T.tensor([True, False, True, False])
    y = x.index_put((i,), T.ones(2))
    i.zero_()
    y.sum().backward()


def _wishart_batched_rsample(T, shape):
    T.manual_seed(0)
    df = T.full(shape, 5.0, requires_grad=True) if shape else T.tensor(5.0, requires_grad=True)
    cov = T.eye(3).expand(*shape, 3, 3).clone().requires_grad_()
    T.distributions.Wishart(df, covariance_matrix=cov).rsample((4,)).sum().backward()


@pytest.mark.parametrize("mask_dtype", ["bool", "long"])
@pytest.mark.parametrize("case", [_setitem_then_write_mask, _index_put_then_write_index])
def test_modified_index_raises(torch_oracle, case, mask_dtype):
    ours = _error(lambda: case(taimatsu, mask_dtype))
    assert ours == _error(lambda: case(torch_oracle, mask_dtype))
    assert "modified by an inplace operation" in ours


@pytest.mark.parametrize("shape", [(), (2,)])
def test_wishart_batched_rsample_backward(torch_oracle, shape):
    ours = _error(lambda: _wishart_batched_rsample(taimatsu, shape))
    assert ours == _error(lambda: _wishart_batched_rsample(torch_oracle, shape))


def test_unmodified_index_backward(torch_oracle):
    grads = []
    for T in (taimatsu, torch_oracle):
        a = T.zeros(4, 2, requires_grad=True)
        v = T.ones(2, 2, requires_grad=True)
        x = a.clone()
        m = T.tensor([True, False, True, False])
        x[m] = v * 3
        (x * T.arange(8.0).reshape(4, 2)).sum().backward()
        grads.append((a.grad.tolist(), v.grad.tolist()))
    assert grads[0] == grads[1]
