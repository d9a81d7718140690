"""retain_grad() across in-place changes, against PyTorch: the retained gradient follows the
tensor's current value (its new grad_fn after an in-place op on it, on a view of it, or on the
base of a view that retains), while register_hook hooks stay with the value they were put on."""

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


def _g(t):
    return None if t is None else t.tolist()


CASES = {
    "inplace_on_it": lambda T, x: _chain(T, x, lambda y: y.mul_(3), lambda y, v: y.sum()),
    "inplace_on_its_view": lambda T, x: _chain(T, x, lambda y: y[1:].mul_(3), lambda y, v: y.sum()),
    "two_inplace_ops": lambda T, x: _chain(T, x, lambda y: y.add_(1).mul_(2), lambda y, v: (y * y).sum()),
    "view_retains_view_changed": lambda T, x: _chain(T, x, None, lambda y, v: y.sum(), view=lambda v: v.mul_(3)),
    "view_retains_base_changed": lambda T, x: _chain(T, x, lambda y: y.mul_(3), lambda y, v: (v * 2).sum(), view=lambda v: None),
    "view_retains_own_change_used": lambda T, x: _chain(T, x, None, lambda y, v: (v * 2).sum(), view=lambda v: v.mul_(3)),
}  # fmt: skip


def _chain(T, x, change, loss, view=None):
    y = x * 2
    v = y[1:] if view is not None else None
    (v if view is not None else y).retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    if view is not None:
        view(v)
    if change is not None:
        change(y)
    loss(y, v).backward()
    kept = v if view is not None else y
    return _g(kept.grad), kept.retains_grad, _g(x.grad), seen


@pytest.mark.parametrize("name", sorted(CASES))
def test_retained_gradient_follows_inplace_changes(name):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of a view that no longer retains (PyTorch warns)
        got = CASES[name](tm, tm.ones(3, requires_grad=True))
        want = CASES[name](torch, torch.ones(3, requires_grad=True))
    assert got == want
