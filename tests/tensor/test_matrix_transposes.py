"""x.mT, x.mH, x.H and x.adjoint() against PyTorch on tensors that are not matrices: the errors
for 1-D (and for H, not 2-D) tensors, the deprecation on 0-D tensors (identity or conjugate),
and Tensor._is_view."""

import warnings

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

CASES = {
    "mT_1d": lambda T: T.ones(3).mT,
    "mH_1d": lambda T: T.ones(3).mH,
    "adjoint_1d": lambda T: T.ones(3).adjoint(),
    "torch_adjoint_1d": lambda T: T.adjoint(T.ones(3)),
    "H_1d": lambda T: T.ones(3).H,
    "H_3d": lambda T: T.ones(2, 3, 4).H,
    "mT_0d": lambda T: T.tensor(1.0 + 1j).mT,
    "mH_0d": lambda T: T.tensor(1.0 + 1j).mH,
    "adjoint_0d": lambda T: T.tensor(1.0 + 1j).adjoint(),
    "H_0d": lambda T: T.tensor(1.0 + 1j).H,
    "mT_3d": lambda T: T.arange(24.0).view(2, 3, 4).mT,
    "mH_2d": lambda T: T.tensor([[1j, 2.0], [3.0, 4j]]).mH,
}


def _run(T, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f(T)
            out = ("ok", r.tolist())
        except RuntimeError as e:
            out = ("raises", str(e))
    return out, [str(x.message) for x in w]


@pytest.mark.parametrize("name", sorted(CASES))
def test_transposes_of_non_matrices(name):
    got, want = _run(tm, CASES[name]), _run(torch, CASES[name])
    assert got[0] == want[0]
    # both warn once per process: compared where both warned in this call
    if got[1] and want[1]:
        assert got[1] == want[1]


def test_mT_of_a_0d_tensor_is_itself_and_is_view():
    for T in (tm, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = T.tensor(2.0)
            assert x.mT is x
        y = T.ones(3)
        assert (y[1:]._is_view(), y._is_view(), y.view(3)._is_view()) == (True, False, True)
