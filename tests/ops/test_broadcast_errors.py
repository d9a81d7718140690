"""Ops whose operands do not broadcast raise PyTorch's RuntimeError ("The size of tensor a
...") rather than NumPy's ValueError; cross without dim wants a dim of size 3 in its input."""

import pytest

import taimatsu as tm

CASES = {
    "allclose": lambda L: L.allclose(L.ones(2), L.ones(3)),
    "isclose": lambda L: L.isclose(L.ones(2, 1), L.ones(3, 2)),
    "isclose_rows": lambda L: L.isclose(L.ones(2, 3), L.ones(2)),
    "heaviside": lambda L: L.heaviside(L.ones(2), L.ones(3)),
    "logaddexp": lambda L: L.logaddexp(L.ones(2), L.ones(3)),
    "logaddexp_float64": lambda L: L.logaddexp(
        L.ones(2, dtype=L.float64), L.ones(4, 3, dtype=L.float64)
    ),
    "take_along_dim": lambda L: L.take_along_dim(L.ones(3, 4), L.tensor([[0], [1]]), dim=1),
    "cross_no_size_3": lambda L: L.cross(L.ones(2), L.ones(3)),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.filterwarnings("ignore:Using torch.cross")
def test_error(torch_oracle, case):
    errors = []
    for lib in (tm, torch_oracle):
        with pytest.raises(RuntimeError) as info:
            CASES[case](lib)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.filterwarnings("ignore:Using torch.cross")
def test_cross_default_dim_is_the_inputs_first_size_3(torch_oracle):
    for lib in (tm, torch_oracle):
        assert lib.cross(lib.ones(1, 3), lib.ones(2, 3)).shape == (2, 3)
        assert lib.cross(lib.ones(4, 3), lib.ones(4, 3)).shape == (4, 3)
