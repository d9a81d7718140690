"""Shared helpers for the nn oracle tests: the same inputs and weights in both frameworks."""

import numpy as np
from snippet_bugs import refuse_test_bug

import taimatsu as tm

try:
    import torch
except ImportError:  # the tests importing this skip themselves
    torch = None


def T(x, requires_grad=False):
    """The taimatsu copy of a torch tensor (or array)."""
    a = x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
    t = tm.tensor(a.copy())
    return t.requires_grad_() if requires_grad else t


def close(a, b, rtol=1e-5, atol=1e-6):
    a = a.detach().numpy() if isinstance(a, tm.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def copy_weights(t_mod, o_mod):
    t_mod.load_state_dict({k: T(v) for k, v in o_mod.state_dict().items()})


def errors(fn, oracle=False):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        if oracle:
            refuse_test_bug(e)
        return type(e).__name__, str(e)
    return None


def same_error(t_fn, o_fn):
    te, oe = errors(t_fn), errors(o_fn, oracle=True)
    assert oe is not None
    assert te == oe


def grad_name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


def check_vjp(t_out, o_out, t_inputs, o_inputs, rtol=1e-5, atol=1e-6, name=True):
    """Forward values, grad_fn name and gradients for a random cotangent."""
    close(t_out, o_out, rtol, atol)
    if name:
        assert grad_name(t_out) == grad_name(o_out)
    g = torch.randn(o_out.shape, dtype=o_out.dtype)
    o_grads = torch.autograd.grad(o_out, o_inputs, g, allow_unused=True)
    t_grads = tm.autograd.grad(t_out, t_inputs, T(g), allow_unused=True)
    for tg, og in zip(t_grads, o_grads):
        if og is None:
            assert tg is None or not tg.abs().sum().item()
            continue
        close(tg, og, rtol, atol)


def pair(*shapes, dtype=None, low=None, high=None, requires_grad=True):
    """Random torch inputs (leaf tensors) and their taimatsu copies."""
    o = []
    for s in shapes:
        x = torch.randn(s, dtype=dtype or torch.float32)
        if low is not None:
            x = torch.rand(s, dtype=dtype or torch.float32) * (high - low) + low
        o.append(x.requires_grad_(requires_grad))
    return [T(x, requires_grad) for x in o], o
