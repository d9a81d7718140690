"""Gradients a user or a hook holds are never reused in place (on any Python).

The engine reuses a gradient's array where reference counts say only it holds the array
(``taimatsu.autograd.ownership``): as ``.grad`` (AccumulateGrad), as the sum of a node's
gradients, as GELU's backward output. These checks need no oracle: every holder keeps a copy and
compares after the backward, so they also run where PyTorch is not installed (other Pythons).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import taimatsu as T
from taimatsu.autograd import engine
from taimatsu.autograd.ownership import counts_every_holder
from taimatsu.ops.nn import activation


@pytest.fixture(params=[True, False], ids=["counted", "never_reused"])
def counted(request, monkeypatch):
    """Both ways: with the reference-count checks, and as on an interpreter they do not trust."""
    if not request.param:
        monkeypatch.setattr(engine, "_COUNTED", False)
        monkeypatch.setattr(activation, "_COUNTED", False)
    return request.param


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.clone(),
        lambda x: x * 1,
        lambda x: x + 0,
        lambda x: x.view(12).view(3, 4),
        lambda x: x.t().t(),
    ],
)
def test_users_gradient_never_becomes_grad(counted, make):
    x = T.randn(3, 4, requires_grad=True)
    v = T.randn(3, 4)
    v0 = v.clone()
    make(x).backward(v)
    x.grad.add_(1.0)
    assert T.equal(v, v0) and T.equal(x.grad, v0 + 1)


def test_gradients_hooks_keep_are_left_alone(counted):
    # a node hook keeps the first of three weight gradients summed at one node
    w = T.randn(64, 64, dtype=T.float64, requires_grad=True)
    outs = [T.randn(2, 64, dtype=T.float64) @ w for _ in range(3)]
    kept = []
    outs[2].grad_fn.register_hook(lambda gi, go: kept.append((gi[1], gi[1].clone())))
    sum((o * o).sum() for o in outs).backward()
    assert T.equal(*kept[0])
    # a tensor hook keeps a gradient that later ones meet
    x = T.randn(8, 8, requires_grad=True)
    held = []
    y = x * 2
    y.register_hook(lambda g: held.append((g, g.clone())))
    (y.sum() + (y * 3).sum()).backward()
    assert T.equal(*held[0]) and T.equal(x.grad, T.full((8, 8), 8.0))


def test_gelu_backward_leaves_held_gradients_alone(counted):
    x0 = T.randn(4, 8, 32)
    x = x0.clone().requires_grad_(True)
    g = T.randn(4, 8, 32)
    g0 = g.clone()
    T.nn.functional.gelu(x).backward(g)
    assert T.equal(g, g0)
    x = x0.clone().requires_grad_(True)
    y = T.nn.functional.gelu(x)
    kept = []
    y.register_hook(lambda g: kept.append((g, g.clone())))
    T.nn.functional.linear(y, T.randn(16, 32)).sum().backward()
    assert T.equal(*kept[0])


def test_two_leaves_never_share_one_grad(counted):
    a, b = T.randn(5, requires_grad=True), T.randn(5, requires_grad=True)
    (a + b).backward(T.ones(5))
    a.grad.add_(1)
    assert T.equal(b.grad, T.ones(5))


def test_interpreters_trusted():
    assert counts_every_holder("cpython", (3, 11, 7), False)
    assert counts_every_holder("cpython", (3, 13, 0), False)
    assert not counts_every_holder("cpython", (3, 13, 0), True)  # free-threaded
    assert not counts_every_holder("cpython", (3, 14, 0), False)  # borrowed references
    assert not counts_every_holder("pypy", (3, 11, 0), False)


def test_reuse_happens_where_counted(counted):
    """Where counts are trusted a fresh gradient becomes .grad as it is (the point of it); where
    not, it is copied, with the same values. The checks' counts were taken on 3.11; 3.12 and 3.13
    count as many holders on this path, 3.10 more (so it never reuses: safe, not fast)."""
    x = T.randn(256, 256, requires_grad=True)
    seen = []  # the address only: the hook keeps no reference
    x.register_hook(lambda g: seen.append(g.data_ptr()))
    (x * 3).backward(T.ones(256, 256))
    np.testing.assert_array_equal(x.grad.numpy(), np.full((256, 256), 3.0, np.float32))
    reused = x.grad.data_ptr() == seen[0]
    assert reused <= counted
    if counted and sys.version_info[:2] >= (3, 11):  # 3.10 counts one holder more: it copies
        assert reused
