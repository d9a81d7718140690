"""The fused CUDA kernels (taimatsu/backend/fused.py) on the CuPy test double, whose ``fuse``
runs the Python chain as it is: the fused path runs (recorded in FUSED_CALLS) and gives the
CPU path's values to float rounding and the Tensor ops' version counters; the CPU never takes it."""

import copy

import numpy as np
import pytest

import taimatsu as torch
from taimatsu import nn

OPTIMIZERS = {
    "adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "adam_l2_amsgrad": lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.1, amsgrad=True),
    "adamw_maximize": lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1, maximize=True),
    "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3),
    "sgd_nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "sgd_dampening": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, dampening=0.3,
                                               maximize=True),
}  # fmt: skip


def _run(model, make_opt, x, y, steps=3):
    opt = make_opt(model.parameters())
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return opt


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_optimizer_step_matches_cpu(name, dtype, fake_cupy):
    torch.manual_seed(0)
    dt = getattr(torch, dtype)
    cpu = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)).to(dt)
    gpu = copy.deepcopy(cpu).cuda()
    x, y = torch.randn(5, 6, dtype=dt), torch.tensor([0, 1, 2, 1, 0])
    fake_cupy.FUSED_CALLS.clear()
    before = [(p._version, q._version) for p, q in zip(cpu.parameters(), gpu.parameters())]
    opt_cpu = _run(cpu, lambda p: OPTIMIZERS[name](p), x, y)
    assert fake_cupy.FUSED_CALLS == []  # the CPU never takes the fused path
    opt_gpu = _run(gpu, lambda p: OPTIMIZERS[name](p), x.cuda(), y.cuda())
    kernel = "taimatsu__adam" if name.startswith("adam") else "taimatsu__sgd_momentum"
    assert any(k.startswith(kernel) for k in fake_cupy.FUSED_CALLS), fake_cupy.FUSED_CALLS
    tol = 1e-5 if dtype == "float32" else 1e-12
    for (p, q), (vp, vq) in zip(zip(cpu.parameters(), gpu.parameters()), before):
        np.testing.assert_allclose(q.detach().cpu().numpy(), p.detach().numpy(), rtol=tol, atol=tol)
        assert q._version - vq == p._version - vp  # the Tensor ops' version bumps
        for k, v in opt_cpu.state[p].items():
            w = opt_gpu.state[q][k]
            np.testing.assert_allclose(w.cpu().numpy(), v.numpy(), rtol=tol, atol=tol)
            if k != "step":
                assert w._version == v._version, k


def test_foreach_false_versions_agree(fake_cupy):
    """The CPU's single-tensor path bumps the same counters as the fused CUDA step."""
    torch.manual_seed(0)
    cpu = nn.Linear(4, 2)
    gpu = copy.deepcopy(cpu).cuda()
    x = torch.randn(3, 4)
    bumps = []
    for model, xs in ((cpu, x), (gpu, x.cuda())):
        before = [p._version for p in model.parameters()]
        opt = torch.optim.AdamW(model.parameters(), lr=0.1, foreach=False)
        model(xs).sum().backward()
        opt.step()
        bumps.append([p._version - v for p, v in zip(model.parameters(), before)])
    assert bumps[0] == bumps[1] == [2, 2]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "silu"])
def test_fused_activations_match_cpu(act, dtype, fake_cupy):
    fn = {
        "gelu": nn.functional.gelu,
        "gelu_tanh": lambda t: nn.functional.gelu(t, approximate="tanh"),
        "silu": nn.functional.silu,
    }[act]
    x = (torch.randn(4, 7, dtype=getattr(torch, dtype)) * 3).requires_grad_()
    x.data[0, 0] = 0.0  # gelu's backward special-cases x = 0 on the CPU
    want = fn(x)
    (gx,) = torch.autograd.grad(want.sum(), x)
    fake_cupy.FUSED_CALLS.clear()
    xc = x.detach().cuda().requires_grad_()
    fake_cupy.STATS.reset()
    got = fn(xc)
    (gxc,) = torch.autograd.grad(got.sum(), xc)
    assert fake_cupy.STATS.syncs == 0, fake_cupy.STATS.log
    assert fake_cupy.FUSED_CALLS, "the fused kernel did not run"
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(
        got.detach().cpu().numpy(), want.detach().numpy(), rtol=tol, atol=tol
    )
    np.testing.assert_allclose(gxc.cpu().numpy(), gx.numpy(), rtol=10 * tol, atol=10 * tol)
