"""Helpers shared by tests/test_nn_new_layers*.py: the same module built in both frameworks after the
same seed, its forward + input/parameter gradients compared, and a float64 gradcheck."""

import pytest

torch = pytest.importorskip("torch")

import numpy as np
from nn_oracle import T, close

import taimatsu as tm
import taimatsu.nn as tnn


def _module_pair(name, *args, seed=0, **kwargs):
    torch.manual_seed(seed)
    o = getattr(torch.nn, name)(*args, **kwargs)
    tm.manual_seed(seed)
    t = getattr(tnn, name)(*args, **kwargs)
    return t, o


def _same_init(t, o):
    """Default initialisation after the same seed draws the same values."""
    ts, os_ = t.state_dict(), o.state_dict()
    assert list(ts) == list(os_)
    for k in os_:
        np.testing.assert_array_equal(ts[k].numpy(), os_[k].numpy())


def _run_module(t, o, inputs, rtol=1e-5, atol=1e-6):
    """Forward, input grads and parameter grads for a random cotangent."""
    o_in = [x.clone().requires_grad_() for x in inputs]
    t_in = [T(x, True) for x in inputs]
    o_out, t_out = o(*o_in), t(*t_in)
    close(t_out, o_out, rtol, atol)
    g = torch.randn(o_out.shape, dtype=o_out.dtype)
    o_out.backward(g)
    t_out.backward(T(g))
    for a, b in zip(t_in, o_in):
        close(a.grad, b.grad, rtol, atol)
    for (n, a), (_, b) in zip(t.named_parameters(), o.named_parameters()):
        close(a.grad, b.grad, rtol, atol)


def _gradcheck(fn, *arrays):
    xs = [tm.tensor(np.asarray(a, np.float64), requires_grad=True) for a in arrays]
    assert tm.autograd.gradcheck(fn, xs, eps=1e-6, atol=1e-5)
