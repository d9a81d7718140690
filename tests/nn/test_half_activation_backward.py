"""Backward of the activations in float16/bfloat16, bit for bit against PyTorch.

PyTorch's backward kernels (tanh_backward, gelu_backward, elu_backward, ...) compute a half
precision gradient in float32 and round once; its float16 sigmoid_backward works in float16
steps, ``(g * (1 - out)) * out``; log_sigmoid's backward reads the ``exp(-|x|)`` its forward
kept in the half type; GELU's is ATen's vectorised erf and SLEEF's expf for float16, oneDNN's
backward for bfloat16 (which PyTorch runs in oneDNN). Composite functions (softsign) round at every op, a division's
gradient for the divisor in PyTorch's order ``-g * ((a / b) / b)``.
"""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

NAMES = [
    "silu", "mish", "elu", "celu", "selu", "softplus", "hardswish", "hardsigmoid", "leaky_relu",
    "hardtanh", "relu6", "logsigmoid", "softsign", "tanhshrink", "relu", "softshrink", "hardshrink",
    "sigmoid", "tanh", "gelu",
]  # fmt: skip


def _run(T, name, dtype, x, g):
    X = T.tensor(x).to(getattr(T, dtype)).requires_grad_()
    f = getattr(T.nn.functional, name, None) or getattr(T, name)
    y = f(X)
    y.backward(T.tensor(g).to(getattr(T, dtype)))
    return y.detach().float().numpy(), X.grad.float().numpy()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", NAMES)
def test_half_activation_gradients_match_pytorch(name, dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(2048) * 2).astype(np.float32)
    g = rng.standard_normal(2048).astype(np.float32)
    for mine, theirs in zip(_run(tm, name, dtype, x, g), _run(torch, name, dtype, x, g)):
        if dtype == "bfloat16":
            np.testing.assert_array_equal(mine, theirs)
        else:  # float16 keeps more bits: float32's last bit (NumPy's exp against SLEEF's) shows
            off = mine != theirs  # in an element or two, by one float16 ulp
            assert off.sum() <= 2, off.sum()
            np.testing.assert_allclose(mine[off], theirs[off], rtol=2**-10)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_division_gradients_in_pytorchs_order(dtype):
    rng = np.random.default_rng(1)
    a, g = (rng.standard_normal(4096).astype(np.float32) for _ in range(2))
    b = rng.standard_normal(4096).astype(np.float32) + 3

    def grads(T):
        A, B = (T.tensor(v).to(getattr(T, dtype)).requires_grad_() for v in (a, b))
        (A / B).backward(T.tensor(g).to(getattr(T, dtype)))
        return A.grad.double().numpy(), B.grad.double().numpy()

    for mine, theirs in zip(grads(tm), grads(torch)):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_half_mse_loss_gradient_matches_pytorch(dtype, reduction):
    # PyTorch's mse backward kernel: alpha * (x - t) * g in half-precision steps, alpha (2/N
    # or 2) rounded to the half type
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((16, 10)) * 2).astype(np.float32)
    t = rng.standard_normal((16, 10)).astype(np.float32)

    def grad(T):
        X = T.tensor(x).to(getattr(T, dtype)).requires_grad_()
        T.nn.functional.mse_loss(
            X, T.tensor(t).to(getattr(T, dtype)), reduction=reduction
        ).sum().backward()
        return X.grad.float().numpy()

    np.testing.assert_array_equal(grad(tm), grad(torch))


LOSSES = {
    "smooth_l1": lambda T, X, t, tb, w, r: T.nn.functional.smooth_l1_loss(X, t, reduction=r, beta=0.5),
    "bce_logits": lambda T, X, t, tb, w, r: T.nn.functional.binary_cross_entropy_with_logits(X, tb, weight=w, reduction=r),
    "bce": lambda T, X, t, tb, w, r: T.nn.functional.binary_cross_entropy(T.sigmoid(X), tb, weight=w, reduction=r),
    "huber": lambda T, X, t, tb, w, r: T.nn.functional.huber_loss(X, t, reduction=r, delta=0.7),
}  # fmt: skip


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_half_loss_gradients_match_pytorch(name, reduction, dtype):
    # smooth L1's backward kernel works in float32; the binary cross-entropies' in the half
    # type, dividing by the element count last; Huber's takes norm * clamped difference * g in
    # float32 from the half-type difference and norm
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((16, 10)) * 2).astype(np.float32)
    t = rng.standard_normal((16, 10)).astype(np.float32)
    tb = (rng.random((16, 10)) > 0.5).astype(np.float32)
    w = rng.random(10).astype(np.float32)

    def grad(T):
        d = getattr(T, dtype)
        X = T.tensor(x).to(d).requires_grad_()
        args = (T.tensor(a).to(d) for a in (t, tb, w))
        LOSSES[name](T, X, *args, reduction).sum().backward()
        return X.grad.float().numpy()

    np.testing.assert_array_equal(grad(tm), grad(torch))
