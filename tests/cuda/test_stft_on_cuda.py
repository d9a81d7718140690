"""torch.stft / torch.istft on a CUDA tensor (the CuPy double): the same values as on the CPU,
on the device, without host synchronisation in stft."""

from __future__ import annotations

import numpy as np

import taimatsu as T


def test_stft_and_istft_on_cuda(fake_cupy):
    x = np.random.default_rng(0).standard_normal((2, 100)).astype(np.float32)
    w = T.hann_window(16)
    cpu = T.stft(T.tensor(x), 16, window=w, return_complex=True)
    fake_cupy.STATS.reset()
    gpu = T.stft(T.tensor(x).cuda(), 16, window=w.cuda(), return_complex=True)
    assert gpu.device.type == "cuda" and fake_cupy.STATS.syncs == 0
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=1e-6, atol=1e-6)
    back = T.istft(gpu, 16, window=w.cuda())
    assert back.device.type == "cuda"
    np.testing.assert_allclose(back.cpu().numpy(), x, rtol=1e-5, atol=1e-5)
