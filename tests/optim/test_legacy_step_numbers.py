"""A checkpoint from an older PyTorch holds ``step`` (NAdam's ``mu_product``, ASGD's ``eta``
and ``mu``) as Python numbers: load_state_dict turns them into 0-d tensors, and training goes on
with PyTorch's values (taimatsu kept the numbers, and the next step raised AttributeError)."""

import numpy as np
import pytest

import taimatsu as tm

NAMES = [
    "Adam",
    "AdamW",
    "Adagrad",
    "Adamax",
    "NAdam",
    "RAdam",
    "ASGD",
    "RMSprop",
    "Adadelta",
    "Rprop",
]


def _run(T, name, number):
    T.manual_seed(0)
    m = T.nn.Linear(3, 2)
    x, y = T.randn(4, 3), T.randn(4, 2)
    opt = getattr(T.optim, name)(m.parameters(), lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        T.nn.functional.mse_loss(m(x), y).backward()
        opt.step()
    sd = opt.state_dict()
    for s in sd["state"].values():
        for key in ("step", "mu_product", "eta", "mu"):
            if key in s:
                s[key] = number(s[key].item())
    opt2 = getattr(T.optim, name)(m.parameters(), lr=0.01)
    opt2.load_state_dict(sd)
    kinds = sorted((k, type(v).__name__, str(v.dtype)) for k, v in opt2.state[m.weight].items()
                   if k in ("step", "mu_product", "eta", "mu"))  # fmt: skip
    opt2.zero_grad()
    T.nn.functional.mse_loss(m(x), y).backward()
    opt2.step()
    return kinds, m.weight.detach().numpy().copy()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("number", [int, float])
def test_python_number_counters_load(torch_oracle, name, number):
    if number is int and name in ("NAdam", "ASGD"):
        number = float  # their other counters are fractions
    (k1, w1), (k2, w2) = _run(tm, name, number), _run(torch_oracle, name, number)
    assert [
        (k, t.replace("taimatsu", "torch"), d.replace("taimatsu", "torch")) for k, t, d in k1
    ] == k2
    np.testing.assert_allclose(w1, w2, rtol=1e-5, atol=1e-6)
