"""Ops on the second GPU of the CuPy test double, and mixing devices. The double refuses a
kernel on arrays of another device than the current one, as CuPy does ("Array device must be
same as the current device"), so an op that does not switch to its inputs' GPU fails here."""

import copy

import numpy as np
import pytest
from cuda_opdb_run import REGISTRY, check_entry

import taimatsu as torch
from taimatsu import nn

_SAMPLE = sorted(REGISTRY)[::10]  # the whole database runs in the slow test below


@pytest.mark.parametrize("name", _SAMPLE)
def test_op_on_second_gpu_matches_cpu(name, fake_cupy):
    check_entry(name, device="cuda:1")
    assert torch.cuda.current_device() == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(REGISTRY) - set(_SAMPLE)))
def test_every_op_on_second_gpu_matches_cpu(name, fake_cupy):
    check_entry(name, device="cuda:1")


def test_training_step_on_second_gpu(fake_cupy):
    torch.manual_seed(0)
    cpu = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    gpu = copy.deepcopy(cpu).to("cuda:1")
    x, y = torch.randn(6, 8), torch.tensor([0, 1, 2, 2, 1, 0])
    losses = []
    for model, xs, ys in [(cpu, x, y), (gpu, x.to("cuda:1"), y.to("cuda:1"))]:
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        for _ in range(2):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xs), ys)
            loss.backward()
            opt.step()
        losses.append(float(loss))
    assert torch.cuda.current_device() == 0
    for p in gpu.parameters():
        assert p.device == torch.device("cuda:1") and p._data.device.id == 1
        assert p.grad._data.device.id == 1
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)


def _mixed_calls(a, b, other):
    t, F = torch, nn.functional
    idx = t.tensor([0], device=other)
    return {
        "add": lambda: a + b, "mul_": lambda: a.mul_(b), "add_": lambda: a.add_(b),
        "matmul": lambda: a @ b, "mm": lambda: t.mm(a, b), "bmm": lambda: t.bmm(a[None], b[None]),
        "addmm": lambda: t.addmm(a, a, b), "dot": lambda: t.dot(a[0], b[0]),
        "einsum": lambda: t.einsum("ij,jk->ik", a, b), "cat": lambda: t.cat([a, b]),
        "stack": lambda: t.stack([a, b]), "where": lambda: t.where(a > 0, a, b),
        "linear": lambda: F.linear(a, b), "maximum": lambda: t.maximum(a, b),
        "conv2d": lambda: F.conv2d(a[None, None], b[None, None]),
        "index_select": lambda: a.index_select(0, idx), "gather": lambda: t.gather(a, 0, idx[None]),
        "embedding": lambda: F.embedding(idx, a), "layer_norm": lambda: F.layer_norm(a, (3,), b[0]),
        "mse_loss": lambda: F.mse_loss(a, b), "cross_entropy": lambda: F.cross_entropy(a, idx.repeat(3)),
    }  # fmt: skip


@pytest.mark.parametrize("other", ["cuda:1", "cpu"])
def test_mixing_devices_raises_pytorchs_error(other, fake_cupy):
    a, b = torch.randn(3, 3, device="cuda:0"), torch.randn(3, 3, device=other)
    for name, call in _mixed_calls(a, b, other).items():
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            call()
            pytest.fail(name)


def test_copies_between_gpus(fake_cupy):
    a = torch.arange(4.0, device="cuda:0")
    b = torch.zeros(4, device="cuda:1")
    b.copy_(a)  # a copy may cross devices, as in PyTorch
    assert b._data.device.id == 1 and b.tolist() == [0.0, 1.0, 2.0, 3.0]
    c = a.to("cuda:1") * 2
    assert c.device == torch.device("cuda:1") and c._data.device.id == 1
