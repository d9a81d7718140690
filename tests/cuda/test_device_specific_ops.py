"""Ops whose PyTorch CUDA behaviour differs from their CPU behaviour by design
(cuda_known_failures.DEVICE_SPECIFIC), on the CuPy test double's "cuda" device. The CUDA
behaviours were read off PyTorch 2.11 on an H200 (tests/cuda/verify_on_gpu.py, 2026-12-04)."""

import pytest

import taimatsu as torch


def test_histogram_has_no_cuda_kernel(fake_cupy):
    x = torch.randn(20, device="cuda")
    for bins, op in ((4, "histogram.bin_ct"), (torch.linspace(-2, 2, 5, device="cuda"),
                                               "histogram.bins_tensor")):  # fmt: skip
        with pytest.raises(NotImplementedError) as e:
            torch.histogram(x, bins)
        assert str(e.value).startswith(
            f"Could not run 'aten::{op}' with arguments from the 'CUDA' backend."
        )
    torch.histc(x, 4)  # histc has a CUDA kernel


def _tall_system():
    """A tall full-rank system, its CPU 'gels' solution, and the CPU default's residuals."""
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(5, 3, generator=g), torch.randn(5, 2, generator=g)
    return a, b, torch.linalg.lstsq(a, b, driver="gels")


def test_lstsq_default_driver_on_cpu_gives_no_residuals():
    a, b, _ = _tall_system()
    assert torch.linalg.lstsq(a, b).residuals.shape == (0,)  # gelsy


def test_lstsq_on_cuda_matches_cpu_gels(fake_cupy):
    """On CUDA the default (and only) driver is 'gels': the residuals of a tall full-rank
    system come back."""
    a, b, want = _tall_system()
    got = torch.linalg.lstsq(a.cuda(), b.cuda())
    assert got.solution.device.type == "cuda"
    for x, y in zip(got, want):
        assert x.shape == y.shape
        torch.testing.assert_close(x.cpu(), y)
    assert got.residuals.shape == (2,)
    for driver in ("gelsy", "gelsd", "gelss"):
        with pytest.raises(
            RuntimeError, match="`driver` other than `gels` is not supported on CUDA"
        ):
            torch.linalg.lstsq(a.cuda(), b.cuda(), driver=driver)
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        torch.linalg.lstsq(a.cuda(), b.cuda(), driver="qr")
