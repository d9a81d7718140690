"""Random fills follow memory order, as PyTorch's CPU kernels do: PyTorch's in-place random fills
(``uniform_``, ``bernoulli_``, ...) run over a tensor in memory order, so on a transposed tensor a
seeded fill puts the numbers where PyTorch puts them (ops/creation/random.py ``_sampled``); ``*_like``
results keep the input's dense layout, as PyTorch's preserve_format does."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.oracle


def test_empty_like_keeps_the_dimension_order():
    assert (
        tm.empty_like(tm.ones(4, 3).t()).stride() == torch.empty_like(torch.ones(4, 3).t()).stride()
    )


@pytest.mark.parametrize(
    "fill",
    ["uniform_", "normal_", "bernoulli_", "random_", "exponential_", "cauchy_", "log_normal_"],
)
def test_random_fill_of_a_transposed_tensor(fill):
    out = []
    for lib in (torch, tm):
        lib.manual_seed(0)
        out.append(getattr(lib.empty(4, 5).t(), fill)().numpy())
    np.testing.assert_array_equal(out[1], out[0])


def test_dropout_on_a_transposed_tensor_matches():
    out = []
    for lib in (torch, tm):
        lib.manual_seed(0)
        x = lib.ones(6, 5, 4).permute(2, 0, 1)
        out.append(
            (
                lib.nn.functional.dropout(x, 0.4).numpy(),
                lib.nn.functional.alpha_dropout(x, 0.4, True).numpy(),
            )
        )
    for got, want in zip(out[1], out[0]):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", ["rand_like", "randn_like"])
def test_random_like_of_a_transposed_tensor(fn):
    out = []
    for lib in (torch, tm):
        lib.manual_seed(0)
        r = getattr(lib, fn)(lib.empty(40, 5).t())
        out.append((r.numpy(), r.stride()))
    np.testing.assert_array_equal(out[1][0], out[0][0])
    assert out[1][1] == out[0][1]
