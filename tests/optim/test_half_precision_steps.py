"""Training steps with float16/bfloat16 parameters give PyTorch's parameters bit for bit.

PyTorch's half-precision kernels compute in float32 and round once, except where its scalar
loop works in the half type (add/sub's alpha on the tail of a vector loop); an in-place
addcmul_/addcdiv_ that multiplied in half precision, or alpha rounded at the wrong place, shows
here within a few steps as parameters one ulp apart.
"""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

OPTIMIZERS = {
    "sgd": lambda T, p: T.optim.SGD(p, lr=0.05),
    "sgd_momentum": lambda T, p: T.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3),
    "sgd_nesterov": lambda T, p: T.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "adam": lambda T, p: T.optim.Adam(p, lr=1e-3),
    "adamw": lambda T, p: T.optim.AdamW(p, lr=1e-3, weight_decay=0.01),
    "adam_amsgrad": lambda T, p: T.optim.Adam(p, lr=1e-3, amsgrad=True),
    "rmsprop": lambda T, p: T.optim.RMSprop(p, lr=1e-3),
    "adagrad": lambda T, p: T.optim.Adagrad(p, lr=1e-2),
    "sgd_foreach": lambda T, p: T.optim.SGD(p, lr=0.05, momentum=0.9, foreach=True),
    "adam_foreach": lambda T, p: T.optim.Adam(p, lr=1e-3, foreach=True),
    "adamw_foreach": lambda T, p: T.optim.AdamW(p, lr=1e-3, foreach=True),
}


def _train(T, dtype, make_opt, steps=4):
    T.manual_seed(0)
    nn, F = T.nn, T.nn.functional
    # 20x48 and 48x10 weights (multiples of 32), biases of 48 and 10 (a scalar tail)
    model = nn.Sequential(nn.Linear(20, 48), nn.ReLU(), nn.Linear(48, 10)).to(getattr(T, dtype))
    opt = make_opt(T, model.parameters())
    x = T.randn(64, 20).to(getattr(T, dtype))
    y = T.randint(0, 10, (64,))
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return [p.detach().float().numpy() for p in model.parameters()]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_half_precision_training_steps_match_pytorch(name, dtype):
    mine = _train(tm, dtype, OPTIMIZERS[name])
    theirs = _train(torch, dtype, OPTIMIZERS[name])
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("n", [37, 960])
def test_inplace_addcmul_addcdiv_in_float32(dtype, n):
    rng = np.random.default_rng(n)
    s, t1, t2 = (rng.standard_normal(n).astype(np.float32) for _ in range(3))

    def run(T):
        d = getattr(T, dtype)
        a, b, c = (T.tensor(v).to(d) for v in (s, t1, t2))
        return [
            a.clone().addcmul_(b, c, value=1e-3).float().numpy(),
            a.clone().addcdiv_(b, c.abs() + 0.1, value=-1e-3).float().numpy(),
        ]

    for a, b in zip(run(tm), run(torch)):
        np.testing.assert_array_equal(a, b)


def _train_cnn(T, steps=3):
    T.manual_seed(0)
    nn, F = T.nn, T.nn.functional
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.AvgPool2d(1), nn.Flatten(), nn.Linear(4 * 4 * 4, 10),
    ).to(T.bfloat16)  # fmt: skip
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = T.randn(8, 1, 8, 8).to(T.bfloat16)
    y = T.randint(0, 10, (8,))
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    # (the running statistics' update is not bit-exact: not compared)
    return [p.detach().float().numpy() for p in model.parameters()]


def test_bfloat16_cnn_training_steps_match_pytorch():
    # conv, batch norm (parameters of the input's type), ReLU, max and average pooling,
    # linear, cross-entropy and SGD with momentum, all in bfloat16: every parameter bit for bit
    for a, b in zip(_train_cnn(tm), _train_cnn(torch)):
        np.testing.assert_array_equal(a, b)
