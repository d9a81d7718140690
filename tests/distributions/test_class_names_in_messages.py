"""Messages that show a distribution's or transform's class name it as PyTorch does:
``<class 'torch.distributions.<module>.<Name>'>`` for taimatsu's own classes, the user's module
for the user's subclasses."""

from __future__ import annotations

import warnings

import pytest

import taimatsu

NO_MODE = {
    "continuous_bernoulli": lambda D, T: D.ContinuousBernoulli(T.tensor(0.3)),
    "transformed": lambda D, T: D.TransformedDistribution(
        D.Normal(0.0, 1.0), [D.transforms.ExpTransform()]
    ),
    "lkj_cholesky": lambda D, T: D.LKJCholesky(3, 1.0),
    "multinomial": lambda D, T: D.Multinomial(3, T.tensor([0.2, 0.8])),
    "relaxed_bernoulli": lambda D, T: D.RelaxedBernoulli(T.tensor(0.5), T.tensor(0.3)),
}


def _message(call):
    with pytest.raises(NotImplementedError) as e:
        call()
    return str(e.value)


@pytest.mark.parametrize("name", sorted(NO_MODE))
def test_mode_not_implemented(torch_oracle, name):
    msgs = [
        _message(lambda lib=lib: NO_MODE[name](lib.distributions, lib).mode)
        for lib in (taimatsu, torch_oracle)
    ]
    assert msgs[0] == msgs[1]


def _subclass_messages(lib):
    class Custom(lib.distributions.Distribution):
        pass

    class CustomTransform(lib.distributions.transforms.Transform):
        def __init__(self):
            super().__init__(cache_size=0)

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        Custom(validate_args=True)
    shown = [str(x.message) for x in w]
    shown.append(_message(lambda: Custom(validate_args=False).mode))
    shown.append(_message(lambda: CustomTransform().with_cache(1)))
    return [s.replace(__name__, "<test module>") for s in shown]


def test_user_subclasses(torch_oracle):
    ours, theirs = _subclass_messages(taimatsu), _subclass_messages(torch_oracle)
    assert ours == theirs
    assert len(ours) == 3
