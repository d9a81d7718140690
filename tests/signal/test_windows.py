"""torch.signal.windows against PyTorch: values (float32 to a few ulps, where PyTorch's vectorised
sin/cos/exp round differently; float64 to 1e-14), dtypes, requires_grad, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")

PARAMS = {
    "bartlett": [{}],
    "blackman": [{}],
    "cosine": [{}],
    "exponential": [{}, {"tau": 3.5}, {"sym": False, "center": 2.0}],
    "gaussian": [{}, {"std": 2.5}, {"std": 0.3}],
    "general_cosine": [{"a": [0.5, 0.3, 0.2]}, {"a": (1.0,)}, {"a": [0.25, 0.25, 0.25, 0.25]}],
    "general_hamming": [{}, {"alpha": 0.6}],
    "hamming": [{}],
    "hann": [{}],
    "kaiser": [{}, {"beta": 0.0}, {"beta": 1.0}, {"beta": 8.0}],
    "nuttall": [{}],
}
CASES = [(name, kw) for name, kws in PARAMS.items() for kw in kws]


@pytest.mark.parametrize("name, kw", CASES, ids=str)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 16, 51])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values(name, kw, M, sym, dtype):
    kw = dict(kw)
    kw.setdefault("sym", sym)
    if kw["sym"] and "center" in kw:
        kw.pop("center")
    ours = getattr(T.signal.windows, name)(M, dtype=getattr(T, dtype), **kw)
    theirs = getattr(torch.signal.windows, name)(M, dtype=getattr(torch, dtype), **kw)
    a, b = ours.numpy(), theirs.numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_default_dtype_and_requires_grad(name):
    kw = PARAMS[name][0]
    ours = getattr(T.signal.windows, name)(7, requires_grad=True, **kw)
    theirs = getattr(torch.signal.windows, name)(7, requires_grad=True, **kw)
    assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
    assert ours.requires_grad == theirs.requires_grad
    assert ours.is_leaf == theirs.is_leaf
    prev = T.get_default_dtype()
    T.set_default_dtype(T.float64)
    try:
        assert getattr(T.signal.windows, name)(4, **kw).dtype == T.float64
    finally:
        T.set_default_dtype(prev)


def test_module_layout():
    import taimatsu.signal.windows as w

    assert T.signal.windows is w and sorted(w.__all__) == sorted(torch.signal.windows.__all__)


ERRORS = {
    "negative length": lambda M: M.signal.windows.hann(-1),
    "sparse layout": lambda M: M.signal.windows.cosine(4, layout=M.sparse_coo),
    "integer dtype": lambda M: M.signal.windows.bartlett(4, dtype=M.int64),
    "half dtype": lambda M: M.signal.windows.kaiser(4, dtype=M.float16),
    "complex dtype": lambda M: M.signal.windows.gaussian(4, dtype=M.complex64),
    "tau": lambda M: M.signal.windows.exponential(4, tau=0),
    "center of a symmetric window": lambda M: M.signal.windows.exponential(4, center=1.0),
    "std": lambda M: M.signal.windows.gaussian(4, std=-1.0),
    "beta": lambda M: M.signal.windows.kaiser(4, beta=-0.5),
    "coefficients not iterable": lambda M: M.signal.windows.general_cosine(4, a=5),
    "no coefficients": lambda M: M.signal.windows.general_cosine(4, a=[]),
    "blackman dtype": lambda M: M.signal.windows.blackman(4, dtype=M.int32),
    "nuttall dtype": lambda M: M.signal.windows.nuttall(3, dtype=M.bfloat16),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    with pytest.raises(Exception) as theirs:
        ERRORS[case](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[case](T)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_torch_windows_is_signal_windows():
    assert torch.windows is torch.signal.windows
    assert T.windows is T.signal.windows
