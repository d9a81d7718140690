"""torch.stft / torch.istft (and the Tensor methods) against PyTorch: values, shapes and dtypes,
gradients with random cotangents (input and window), warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _signal(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype in ("complex64", "complex128"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _window(M, kind, dtype, seed=1):
    if kind is None:
        return None, None
    if kind == "random":
        w = np.random.default_rng(seed).uniform(0.5, 1.5, M).astype(dtype)
        return T.tensor(w), torch.tensor(w)
    return getattr(T, f"{kind}_window")(M, dtype=getattr(T, dtype)), getattr(
        torch, f"{kind}_window"
    )(M, dtype=getattr(torch, dtype))


def _close(ours, theirs, dtype):
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


STFT_CASES = [
    {"n_fft": 16},
    {"n_fft": 16, "hop_length": 5, "win_length": 10},
    {"n_fft": 15, "hop_length": 3, "win_length": 15},
    {"n_fft": 16, "center": False},
    {"n_fft": 16, "pad_mode": "constant"},
    {"n_fft": 16, "pad_mode": "replicate"},
    {"n_fft": 16, "pad_mode": "circular"},
    {"n_fft": 16, "normalized": True},
    {"n_fft": 16, "onesided": False},
    {"n_fft": 32, "hop_length": 32},
    {"n_fft": 100, "center": False},
    {"n_fft": 16, "win_length": 9, "center": False, "align_to_window": True},
    {"n_fft": 16, "win_length": 10, "center": False, "align_to_window": False},
]


@pytest.mark.parametrize("kw", STFT_CASES, ids=str)
@pytest.mark.parametrize("window", [None, "hann", "random"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(100,), (3, 100)], ids=str)
def test_stft_values(kw, window, dtype, shape):
    x = _signal(shape, dtype)
    wt, wo = _window(kw.get("win_length", kw["n_fft"]), window, dtype)
    ours = T.stft(T.tensor(x), window=wt, return_complex=True, **kw)
    theirs = torch.stft(torch.tensor(x), window=wo, return_complex=True, **kw)
    _close(ours, theirs, dtype)
    if window == "hann":  # the method spells it the same
        _close(T.tensor(x).stft(window=wt, return_complex=True, **kw), theirs, dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize(
    "kw",
    [{"n_fft": 16}, {"n_fft": 16, "hop_length": 5, "win_length": 12, "normalized": True}],
    ids=str,
)
def test_stft_of_complex_signals(dtype, kw):
    x = _signal((2, 60), dtype)
    real = "float32" if dtype == "complex64" else "float64"
    wt, wo = _window(kw.get("win_length", 16), "hann", real)
    _close(
        T.stft(T.tensor(x), window=wt, **kw), torch.stft(torch.tensor(x), window=wo, **kw), dtype
    )


@pytest.mark.parametrize(
    "x_dtype, w_dtype", [("float32", "float64"), ("float64", "float32"), ("float32", "int64")]
)
def test_stft_promotes_with_the_window(x_dtype, w_dtype):
    x = _signal((50,), x_dtype)
    w = np.ones(16, w_dtype)
    ours = T.stft(T.tensor(x), 16, window=T.tensor(w), return_complex=True)
    theirs = torch.stft(torch.tensor(x), 16, window=torch.tensor(w), return_complex=True)
    assert str(ours.dtype) == str(theirs.dtype)
    _close(ours, theirs, "float32")


def test_stft_return_complex_false_is_the_real_view_with_pytorchs_warning():
    x = _signal((3, 64), "float32")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T._flags.set_warn_always(True)
        try:
            ours = T.stft(T.tensor(x), 16, window=T.hann_window(16), return_complex=False)
            T.stft(T.tensor(x), 16, return_complex=True)
        finally:
            T._flags.set_warn_always(False)
    theirs = torch.stft(torch.tensor(x), 16, window=torch.hann_window(16), return_complex=False)
    _close(ours, theirs, "float32")
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("stft with return_complex=False is deprecated.") for t in texts)
    assert any(
        t.startswith("A window was not provided. A rectangular window will be applied,which")
        for t in texts
    )
    assert all(
        w.filename == __file__ for w in caught
    )  # at the user's line, as PyTorch's C++ warnings


@pytest.mark.parametrize(
    "kw", [{"n_fft": 16}, {"n_fft": 16, "hop_length": 5, "win_length": 10, "normalized": True}, {"n_fft": 12, "onesided": False}],
    ids=str,
)  # fmt: skip
def test_stft_gradients(kw):
    x = _signal((2, 80), "float64")
    w = np.random.default_rng(3).uniform(0.5, 1.5, kw.get("win_length", kw["n_fft"]))
    xt, wt = T.tensor(x, requires_grad=True), T.tensor(w, requires_grad=True)
    xo, wo = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ours = T.view_as_real(T.stft(xt, window=wt, return_complex=True, **kw))
    theirs = torch.view_as_real(torch.stft(xo, window=wo, return_complex=True, **kw))
    cot = np.random.default_rng(4).standard_normal(tuple(theirs.shape))
    (ours * T.tensor(cot)).sum().backward()
    (theirs * torch.tensor(cot)).sum().backward()
    _close(xt.grad, xo.grad, "float64")
    _close(wt.grad, wo.grad, "float64")


ISTFT_CASES = [
    {"n_fft": 16},
    {"n_fft": 16, "hop_length": 5, "win_length": 10},
    {"n_fft": 15, "hop_length": 3},
    {"n_fft": 16, "normalized": True},
    {"n_fft": 16, "length": 90},
    {"n_fft": 16, "length": 130},
    {"n_fft": 16, "onesided": False},
    {"n_fft": 16, "hop_length": 8},
]


@pytest.mark.parametrize("kw", ISTFT_CASES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(100,), (2, 100)], ids=str)
def test_istft_inverts_stft(kw, dtype, shape):
    x = _signal(shape, dtype)
    st = {k: v for k, v in kw.items() if k != "length"}
    wt, wo = _window(kw.get("win_length", kw["n_fft"]), "hann", dtype)
    spec_o = torch.stft(torch.tensor(x), window=wo, return_complex=True, **st)
    ours = T.istft(T.tensor(spec_o.numpy()), window=wt, **kw)
    theirs = torch.istft(spec_o, window=wo, **kw)
    _close(ours, theirs, dtype)
    _close(T.tensor(spec_o.numpy()).istft(window=wt, **kw), theirs, dtype)
    if "length" not in kw:  # the round trip, up to the last whole hop
        n = ours.shape[-1]
        np.testing.assert_allclose(ours.numpy(), x[..., :n], rtol=1e-4, atol=1e-4)


def test_istft_complex_output_and_rectangular_window():
    x = _signal((2, 64), "complex64")
    spec = torch.stft(torch.tensor(x), 16, window=torch.hann_window(16))
    kw = {"window": None, "onesided": False, "return_complex": True}
    _close(T.istft(T.tensor(spec.numpy()), 16, **kw), torch.istft(spec, 16, **kw), "complex64")
    real = torch.stft(torch.tensor(x.real.copy()), 16, return_complex=True)
    _close(T.istft(T.tensor(real.numpy()), 16), torch.istft(real, 16), "float32")


def test_istft_gradients():
    x = _signal((2, 9, 30), "float64") + 1j * _signal((2, 9, 30), "float64", seed=5)
    w = np.random.default_rng(3).uniform(0.5, 1.5, 16)
    xt, wt = T.tensor(x, requires_grad=True), T.tensor(w, requires_grad=True)
    xo, wo = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ours = T.istft(xt, 16, hop_length=4, window=wt, length=120)
    theirs = torch.istft(xo, 16, hop_length=4, window=wo, length=120)
    _close(ours, theirs, "float64")
    cot = np.random.default_rng(4).standard_normal(tuple(theirs.shape))
    (ours * T.tensor(cot)).sum().backward()
    (theirs * torch.tensor(cot)).sum().backward()
    _close(xt.grad, xo.grad, "complex128")
    _close(wt.grad, wo.grad, "float64")


def _error(fn_t, fn_o):
    with pytest.raises(Exception) as theirs:
        fn_o(torch)
    with pytest.raises(Exception) as ours:
        fn_t(T)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)


def _x(M, shape=(100,), dtype="float32"):
    return M.tensor(_signal(shape, dtype))


STFT_ERRORS = {
    "no return_complex": lambda M: M.stft(_x(M), 16),
    "no return_complex, bad n_fft": lambda M: M.stft(_x(M), 0, center=False),
    "integer input": lambda M: M.stft(_x(M).long(), 16, return_complex=True),
    "3-d input": lambda M: M.stft(_x(M, (2, 2, 100)), 16, return_complex=True),
    "3-d integer input": lambda M: M.stft(_x(M, (2, 2, 100)).long(), 16, return_complex=True),
    "0-d input": lambda M: M.stft(M.tensor(1.0), 16, center=False, return_complex=True),
    "n_fft 0": lambda M: M.stft(_x(M), 0, center=False, return_complex=True),
    "n_fft too long": lambda M: M.stft(_x(M), 101, center=False, return_complex=True),
    "n_fft negative": lambda M: M.stft(_x(M), -4, center=False, return_complex=True),
    "reflect pad too long": lambda M: M.stft(_x(M), 200, return_complex=True),
    "hop 0": lambda M: M.stft(_x(M), 16, hop_length=0, return_complex=True),
    "hop negative": lambda M: M.stft(_x(M), 16, hop_length=-1, center=False, return_complex=True),
    "win_length 0": lambda M: M.stft(_x(M), 16, win_length=0, return_complex=True),
    "win_length > n_fft": lambda M: M.stft(_x(M), 16, win_length=20, return_complex=True),
    "window size": lambda M: M.stft(_x(M), 16, window=M.ones(10), return_complex=True),
    "2-d window": lambda M: M.stft(
        _x(M), 16, window=M.ones(4, 4), center=False, return_complex=True
    ),
    "bad pad mode": lambda M: M.stft(_x(M), 16, pad_mode="foo", return_complex=True),
    "onesided complex": lambda M: M.stft(
        _x(M, dtype="complex64"), 16, onesided=True, return_complex=True
    ),
    "complex input summary": lambda M: M.stft(
        _x(M, dtype="complex128"), 0, center=False, return_complex=True
    ),
    "align with center": lambda M: M.stft(
        _x(M), 16, window=M.ones(16), return_complex=True, align_to_window=True
    ),
    "align summary": lambda M: M.stft(
        _x(M), 0, center=False, return_complex=True, align_to_window=False
    ),
    "batch summary": lambda M: M.stft(_x(M, (3, 100)), 0, center=False, return_complex=True),
    "half": lambda M: M.stft(_x(M).half(), 16, center=False, return_complex=True),
    "bfloat16": lambda M: M.stft(_x(M).bfloat16(), 16, center=False, return_complex=True),
}


@pytest.mark.parametrize("case", sorted(STFT_ERRORS))
def test_stft_errors(case):
    _error(STFT_ERRORS[case], STFT_ERRORS[case])


def _spec(M, shape=(100,), **kw):
    x = torch.tensor(_signal(shape, "float32"))
    s = torch.stft(x, 16, window=torch.hann_window(16), return_complex=True, **kw)
    return M.tensor(s.numpy())


ISTFT_ERRORS = {
    "real input": lambda M: M.istft(_spec(M).real, 16, window=M.hann_window(16)),
    "real view": lambda M: M.istft(M.view_as_real(_spec(M)), 16, window=M.hann_window(16)),
    "1-d input": lambda M: M.istft(_spec(M)[0], 16, window=M.hann_window(16)),
    "4-d input": lambda M: M.istft(_spec(M)[None, None], 16, window=M.hann_window(16)),
    "empty": lambda M: M.istft(_spec(M)[:, :0], 16, window=M.hann_window(16)),
    "hop 0": lambda M: M.istft(_spec(M), 16, hop_length=0, window=M.hann_window(16)),
    "hop > win": lambda M: M.istft(_spec(M), 16, hop_length=17, window=M.hann_window(16)),
    "win > n_fft": lambda M: M.istft(_spec(M), 16, win_length=20, window=M.hann_window(16)),
    "window size": lambda M: M.istft(_spec(M), 16, window=M.ones(10)),
    "n_fft 0": lambda M: M.istft(_spec(M), 0, window=M.hann_window(16)),
    "freq mismatch onesided": lambda M: M.istft(_spec(M), 18, window=M.hann_window(18)),
    "freq mismatch full": lambda M: M.istft(_spec(M), 16, window=M.hann_window(16), onesided=False),
    "onesided not": lambda M: M.istft(
        _spec(M, onesided=False), 16, window=M.hann_window(16), onesided=True
    ),
    "complex output onesided": lambda M: M.istft(
        _spec(M), 16, window=M.hann_window(16), return_complex=True
    ),
    "envelope zero": lambda M: M.istft(_spec(M), 16, window=M.hann_window(16), center=False),
}


@pytest.mark.parametrize("case", sorted(ISTFT_ERRORS))
def test_istft_errors(case):
    _error(ISTFT_ERRORS[case], ISTFT_ERRORS[case])
