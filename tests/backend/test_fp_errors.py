"""Ops give inf and NaN silently, as PyTorch's kernels do: no NumPy RuntimeWarning reaches the user.

NumPy's ufuncs report "divide by zero encountered in log" and the like; a user's
``warnings.simplefilter("error")`` (pytest's ``-W error``) would turn those into exceptions. Each
expression runs under that filter and must give PyTorch's values (NaN where PyTorch has NaN).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import taimatsu

CASES = [
    "T.log(T.tensor([-1.0, 0.0]))",
    "T.tensor([0.0]).log()",
    "1 / T.tensor([0.0])",
    "T.tensor([1.0]) / T.tensor([0.0])",
    "T.tensor([1e30]).exp()",
    "T.exp2(T.tensor(1e4))",
    "T.linspace(0, float('inf'), 5)",
    "T.logspace(0, 100, 5)",
    "T.tensor([1.0]) % 0",
    "T.tensor([1.0]) // 0",
    "T.fmod(T.tensor([1.0]), 0)",
    "T.div(T.tensor(1.0), 0.0, rounding_mode='trunc')",
    "T.sqrt(T.tensor(-1.0))",
    "T.atanh(T.tensor(2.0))",
    "T.acos(T.tensor(2.0))",
    "T.rsqrt(T.tensor(0.0))",
    "T.pow(T.tensor(0.0), -1.0)",
    "T.sin(T.tensor(float('inf')))",
    "T.tensor(float('inf')) * 0",
    "T.tensor(float('inf')) - float('inf')",
    "T.hypot(T.tensor(3e38), T.tensor(3e38))",
    "T.tensor([]).mean()",
    "T.tensor([1e6]).half()",
    "T.tensor([float('nan')]).long()",
    "T.tensor([1e30, 1e30]).cumprod(0)",
    "T.logsumexp(T.tensor([-float('inf')]), 0)",
    "T.log_softmax(T.tensor([float('inf'), 1.0]), 0)",
    "T.tensor([float('inf'), -float('inf')], dtype=T.float16).sum()",
    "T.logit(T.tensor(0.0))",
    "T.xlogy(T.tensor(1.0), T.tensor(0.0))",
    "T.cdist(T.tensor([[1e30]]), T.tensor([[-1e30]]))",
    "T.ldexp(T.tensor(1.0), T.tensor(1000))",
    "T.addcdiv(T.tensor([1.0]), T.tensor([0.0]), T.tensor([0.0]))",
    "T.tensor([[1e30]]) @ T.tensor([[1e30]])",
    "T.dot(T.tensor([1e30, 1e30]), T.tensor([1e30, 1e30]))",
    "T.nn.functional.linear(T.tensor([[1e30]]), T.tensor([[1e30]]), T.tensor([1.0]))",
    "T.addr(T.zeros(1, 1), T.tensor([float('inf')]), T.tensor([0.0]))",
    "T.tensor([100000]) + T.tensor([1.0], dtype=T.float16)",
    "T.tensor([1e30], dtype=T.float16)",
    "T.nn.functional.layer_norm(T.full((2, 2), float('inf')), (2,))",
    "T.nn.functional.batch_norm(T.full((4096, 8), float('inf')), None, None, training=True)",
    "T.nn.functional.conv2d(T.full((1, 1, 3, 3), float('inf')), T.zeros(1, 1, 2, 2))",
    "T.nn.functional.conv_transpose2d(T.full((1, 1, 2, 2), float('inf')), T.zeros(1, 1, 2, 2))",
    "T.nn.functional.group_norm(T.full((1, 2, 2, 2), float('inf')), 1)",
    "T.nn.functional.mish(T.tensor([float('-inf'), 1e4]))",
    "T.nn.functional.elu(T.tensor([float('-inf')]), 0.0)",
    "T.nn.functional.softplus(T.tensor([1e4, -1e4]), 0.0)",
    "T.nn.functional.binary_cross_entropy(T.tensor([0.0]), T.tensor([1.0]))",
    "T.nn.functional.mse_loss(T.tensor([float('inf')]), T.tensor([float('inf')]))",
    "T.distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(T.tensor(2.0))",
    "T.distributions.Beta(T.tensor(2.0), T.tensor(2.0), validate_args=False).log_prob(T.tensor(0.0))",
    "T.distributions.Gamma(T.tensor(2.0), T.tensor(2.0), validate_args=False).log_prob(T.tensor(0.0))",
]

BACKWARD = [
    "T.sqrt(x)",
    "T.log(x)",
    "x.reciprocal() * 0",
]


def _values(r):
    return np.asarray(r.detach().numpy(), dtype=np.float64)


@pytest.mark.parametrize("expr", CASES)
def test_no_numpy_warning(expr, torch_oracle):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = eval(expr, {"T": taimatsu})
    want = eval(expr, {"T": torch_oracle})
    np.testing.assert_array_equal(_values(got), _values(want))


@pytest.mark.parametrize("expr", BACKWARD)
def test_no_numpy_warning_in_backward(expr, torch_oracle):
    x = taimatsu.tensor([0.0, -1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eval(expr, {"T": taimatsu, "x": x}).sum().backward()
    tx = torch_oracle.tensor([0.0, -1.0], requires_grad=True)
    eval(expr, {"T": torch_oracle, "x": tx}).sum().backward()
    np.testing.assert_array_equal(_values(x.grad), _values(tx.grad))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_no_numpy_warning_in_optimizer_step(name, torch_oracle):
    steps = []
    for T, quiet in ((taimatsu, True), (torch_oracle, False)):
        p = T.nn.Parameter(T.full((3,), float("inf")))
        opt = getattr(T.optim, name)([p], lr=0.1)
        p.grad = T.full((3,), float("inf"))
        with warnings.catch_warnings():
            warnings.simplefilter("error" if quiet else "default")
            opt.step()
        steps.append(_values(p))
    np.testing.assert_array_equal(steps[0], steps[1])


def test_error_not_warning_for_alpha_beyond_half(torch_oracle):
    """PyTorch's RuntimeError, not NumPy's overflow warning first (an exception under "error")."""
    messages = []
    for T in (taimatsu, torch_oracle):
        x = T.ones(2, dtype=T.float16)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(RuntimeError) as e:
                T.add(x, x, alpha=1e6)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
