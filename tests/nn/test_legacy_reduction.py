"""The deprecated ``size_average`` / ``reduce`` loss arguments against PyTorch: the reduction they
select, and PyTorch's warning, raised on a line of the library's ``nn`` package as PyTorch's is
on one of ``torch/nn`` (not on the autocast wrapper's line, nor on the caller's)."""

import os
import warnings

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

CASES = [
    ("nll_loss", {"size_average": False}),
    ("cross_entropy", {"reduce": False}),
    ("mse_loss", {"size_average": False}),
    ("kl_div", {"size_average": False}),
    ("l1_loss", {"size_average": False, "reduce": True}),
    ("smooth_l1_loss", {"reduce": False}),
]


def _args(M, name):
    x = M.tensor(np.random.RandomState(0).randn(3, 4).astype(np.float32)).log_softmax(1)
    if name in ("nll_loss", "cross_entropy"):
        return x, M.tensor([0, 1, 2])
    return x, x.exp() if name == "kl_div" else x * 2


def _warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category, str(w.message), w.filename) for w in caught]


def _in_nn(filename, M):
    return os.path.dirname(filename).startswith(os.path.join(os.path.dirname(M.__file__), "nn"))


@pytest.mark.parametrize("name, kw", CASES, ids=[c[0] for c in CASES])
def test_functional_legacy_arguments(name, kw):
    res = []
    for M in (tm, torch):
        out, caught = _warned(lambda M=M: getattr(M.nn.functional, name)(*_args(M, name), **kw))
        assert len(caught) == 1 and _in_nn(caught[0][2], M)
        res.append((out.detach().numpy(), caught[0][:2]))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6)
    assert res[0][1] == res[1][1]


@pytest.mark.parametrize("cls, kw", [("NLLLoss", {"size_average": False}),
                                     ("MSELoss", {"reduce": False})], ids=str)  # fmt: skip
def test_module_legacy_arguments(cls, kw):
    res = []
    for M in (tm, torch):
        module, caught = _warned(lambda M=M: getattr(M.nn, cls)(**kw))
        assert len(caught) == 1 and _in_nn(caught[0][2], M)
        res.append((module.reduction, caught[0][:2]))
    assert res[0] == res[1]
