"""In-place ops whose *other* arguments require grad, against PyTorch: ``x.lerp_(end, w)``,
``x.addcmul_(t1, t2)``, ``x.clamp_(min=t)``, ``x.addmm_(a, b)`` ... record a graph even when
``x`` itself needs no gradient, and self's old value is saved where a gradient reads it
(``x.clone().mul_(w)``: w's gradient is the old x). Each program runs both ways: grad_fn name,
requires_grad, the gradient (or the same error)."""

import numpy as np
import pytest

import taimatsu as tm

CASES = [
    ("lerp_", lambda T, x, e: x.lerp_(e, 0.3)),
    ("lerp_w", lambda T, x, e: x.lerp_(T.ones(3), e)),
    ("addcmul_", lambda T, x, e: x.addcmul_(e, x.clone())),
    ("addcmul_2", lambda T, x, e: x.addcmul_(x.clone(), e)),
    ("addcdiv_", lambda T, x, e: x.addcdiv_(e, x.clone() + 1)),
    ("addcdiv_2", lambda T, x, e: x.addcdiv_(x.clone(), e)),
    ("copysign_", lambda T, x, e: x.copysign_(e)),
    ("ldexp_", lambda T, x, e: x.ldexp_(e)),
    ("hypot_", lambda T, x, e: x.hypot_(e)),
    ("atan2_", lambda T, x, e: x.atan2_(e)),
    ("pow_", lambda T, x, e: x.pow_(e)),
    ("xlogy_", lambda T, x, e: x.xlogy_(e)),
    ("remainder_", lambda T, x, e: x.remainder_(e)),
    ("fmod_", lambda T, x, e: x.fmod_(e)),
    ("maximum", lambda T, x, e: x.clamp_(min=e)),
    ("sub_", lambda T, x, e: x.sub_(e, alpha=2)),
    ("logaddexp", lambda T, x, e: x.copy_(e).mul_(e)),
    ("masked_fill_", lambda T, x, e: x.masked_fill_(x > 1, e[0])),
    ("index_add_", lambda T, x, e: x.index_add_(0, T.tensor([0, 2, 0]), e)),
    ("scatter_add_", lambda T, x, e: x.scatter_add_(0, T.tensor([0, 2, 0]), e)),
    ("mul_", lambda T, x, e: x.mul_(e)),
    ("div_", lambda T, x, e: x.div_(e)),
    ("clamp_min_", lambda T, x, e: x.clamp_min_(e)),
    ("clamp_max_", lambda T, x, e: x.clamp_max_(e)),
    ("masked_scatter_", lambda T, x, e: x.masked_scatter_(x > 1, e)),
    ("index_copy_", lambda T, x, e: x.index_copy_(0, T.tensor([2, 0, 1]), e)),
    ("index_put_", lambda T, x, e: x.index_put_((T.tensor([2, 0, 1]),), e)),
    ("index_put_acc", lambda T, x, e: x.index_put_((T.tensor([2, 0, 0]),), e, accumulate=True)),
    ("put_", lambda T, x, e: x.put_(T.tensor([2, 0, 1]), e)),
    ("scatter_", lambda T, x, e: x.scatter_(0, T.tensor([2, 0, 1]), e)),
    ("scatter_reduce_", lambda T, x, e: x.scatter_reduce_(0, T.tensor([2, 0, 1]), e, "sum")),
    ("index_fill_", lambda T, x, e: x.index_fill_(0, T.tensor([1]), e[1])),
    ("fill_", lambda T, x, e: x.fill_(e[1])),
    ("setitem", lambda T, x, e: x.__setitem__(slice(0, 2), e[:2]) or x),
    ("copy_", lambda T, x, e: x.copy_(e)),
    ("addmm_", lambda T, x, e: T.ones(3, 3).addmm_(T.outer(e, e), T.eye(3)).sum(0)),
    ("addr_", lambda T, x, e: T.ones(3, 3).addr_(e, e).sum(0)),
    ("addmv_", lambda T, x, e: x.addmv_(T.ones(3, 3), e)),
    (
        "baddbmm_",
        lambda T, x, e: (
            x.view(1, 1, 3).baddbmm_(e.view(1, 1, 3)[:, :, :1], T.ones(1, 1, 3)).view(3)
        ),
    ),
    (
        "addbmm_",
        lambda T, x, e: x.view(1, 3).addbmm_(e.view(1, 1, 3)[:, :, :1], T.ones(1, 1, 3)).view(3),
    ),
    ("sub_", lambda T, x, e: x.sub_(e)),
    ("add_", lambda T, x, e: x.add_(e, alpha=3)),
    ("where_", lambda T, x, e: x.where(x > 1, e)),
    ("float_power_", lambda T, x, e: x.double().float_power_(e).float()),
    ("logical", lambda T, x, e: x.lerp_(e, T.tensor(0.5))),
    ("xlogy_", lambda T, x, e: x.xlogy_(e)),
    ("nan_to_num", lambda T, x, e: x.mul_(e).nan_to_num_()),
    ("polygamma", lambda T, x, e: x.mul_(e).polygamma_(1)),
]


def _run(T, f):
    x = T.tensor([1.0, 2.0, 3.0])
    e = T.tensor([0.5, -1.0, 4.0], requires_grad=True)
    try:
        y = f(T, x, e)
        (y * T.tensor([1.0, 2.0, 3.0])).sum().backward()
    except RuntimeError as ex:
        return ("raises", str(ex)[:80])
    return (type(y.grad_fn).__name__, y.requires_grad, e.grad.numpy().tolist())


@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_inplace_with_other_inputs_requiring_grad(torch_oracle, name, f):
    want, got = _run(torch_oracle, f), _run(tm, f)
    assert got[:2] == want[:2]
    if want[0] != "raises":
        np.testing.assert_allclose(got[2], want[2], rtol=1e-6, atol=1e-7)


def _old_self_program(T):
    x = T.arange(12.0).reshape(4, 3)
    v = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone().mul_(v)
    z = x.clone().div_(v)
    saved = y.grad_fn._saved_self.tolist(), y.grad_fn._saved_other, z.grad_fn._saved_self.tolist()
    (y.sum() + z.sum()).backward()
    return saved, v.grad.tolist()


def test_old_value_of_self_is_saved(torch_oracle):
    assert _old_self_program(tm) == _old_self_program(torch_oracle)


def _hooked_program(T):
    """In-place ops under saved_tensors_hooks: what pack sees, and the gradients."""
    x = T.arange(6.0).reshape(2, 3).requires_grad_()
    seen = []
    with T.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t.tolist()) or t, lambda t: t):
        y = x.clone()
        y.exp_()
        z = x.clone()
        z.sigmoid_()
        w = x.clone()
        w.mul_(2)
        q = x.clone().pow_(2)
        u = T.arange(6.0).reshape(2, 3).mul_(x)
    (y.sum() + z.sum() + w.sum() + q.sum() + u.sum()).backward()
    return seen, x.grad.tolist()


def test_inplace_under_saved_tensor_hooks(torch_oracle):
    got, want = _hooked_program(tm), _hooked_program(torch_oracle)
    np.testing.assert_allclose(np.concatenate([np.ravel(s) for s in got[0]]),
                               np.concatenate([np.ravel(s) for s in want[0]]), rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5)
