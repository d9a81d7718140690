"""fft/ifft of a real signal as PyTorch computes it: the one-sided transform, its other half
filled by conjugate symmetry, so the self-mirrored bins (0 and n / 2) have an imaginary part of
exactly zero (a complex transform of the real signal leaves ~1e-17 there, and print shows it)."""

import numpy as np
import pytest

import taimatsu as tm


@pytest.mark.parametrize("n", [1, 2, 5, 6, 7, 8])
@pytest.mark.parametrize("fn", ["fft", "ifft"])
def test_real_signal_transform(torch_oracle, n, fn):
    x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
    mine = getattr(tm.fft, fn)(tm.tensor(x)).resolve_conj().numpy()
    theirs = getattr(torch_oracle.fft, fn)(torch_oracle.tensor(x)).resolve_conj().numpy()
    np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    for k in {0, n // 2} if n % 2 == 0 else {0}:
        assert mine[:, k].imag.tolist() == theirs[:, k].imag.tolist() == [0.0] * 3
    # the mirrored bins are exact conjugates
    np.testing.assert_array_equal(mine[:, 1:], np.conj(mine[:, 1:][:, ::-1]))


def test_printed_like_pytorch(torch_oracle):
    data = [0.1, 0.7, 0.3, 0.9, 0.2, 0.6]
    mine = str(tm.fft.fft(tm.tensor(data)))
    theirs = str(torch_oracle.fft.fft(torch_oracle.tensor(data)))
    # the bins that print as +-0.0000e+00j match; bin 2's ~4e-8 imaginary part is rounding
    assert mine.split(",")[0] == theirs.split(",")[0]
    assert "-1.6000+0.0000e+00j" in mine


def test_gradient_and_options(torch_oracle):
    x = np.random.default_rng(0).standard_normal((4, 6))
    g = np.random.default_rng(1).standard_normal((4, 9)) + 1j
    grads = []
    for lib in (tm, torch_oracle):
        t = lib.tensor(x, requires_grad=True)
        y = lib.fft.fft(t, n=9, norm="ortho")
        assert type(y.grad_fn).__name__ == "FftR2CBackward0"
        grads.append(lib.autograd.grad(y, t, lib.tensor(g))[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)
