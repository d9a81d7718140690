"""A training run saved at step 10 (model, optimizer, scheduler through torch.save/torch.load)
and resumed gives exactly the losses of the uninterrupted run, and the same losses as PyTorch."""

from __future__ import annotations

import io

import numpy as np
import pytest

import taimatsu


def _losses(T, steps, resume_at=None):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 1))
    opt = T.optim.Adam(model.parameters(), lr=0.05)
    sched = T.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    x = T.linspace(-1, 1, 32).reshape(8, 4)
    y = (x.sum(1, keepdim=True) * 0.7).sin()
    losses = []
    for step in range(steps):
        if step == resume_at:
            buf = io.BytesIO()
            T.save(
                {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()},
                buf,
            )
            buf.seek(0)
            ckpt = T.load(buf)
            # A fresh process would rebuild everything from the checkpoint alone.
            model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 1))
            model.load_state_dict(ckpt["model"])
            opt = T.optim.Adam(model.parameters(), lr=0.05)
            opt.load_state_dict(ckpt["opt"])
            sched = T.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
            sched.load_state_dict(ckpt["sched"])
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


def test_resume_matches_uninterrupted_run():
    straight = _losses(taimatsu, 20)
    resumed = _losses(taimatsu, 20, resume_at=10)
    assert straight == resumed


def test_losses_match_pytorch():
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(
        _losses(taimatsu, 20, resume_at=10), _losses(torch, 20, resume_at=10), rtol=1e-5, atol=1e-7
    )


def test_pytorch_checkpoint_resumes_in_taimatsu(tmp_path):
    """Train 10 steps in PyTorch, save, continue 10 steps in taimatsu: same losses as PyTorch."""
    torch = pytest.importorskip("torch")
    expected = _losses(torch, 20)

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    x = torch.linspace(-1, 1, 32).reshape(8, 4)
    y = (x.sum(1, keepdim=True) * 0.7).sin()
    for _ in range(10):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        sched.step()
    path = tmp_path / "ckpt.pt"
    torch.save(
        {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, path
    )

    T = taimatsu
    ckpt = T.load(path)
    model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 1))
    model.load_state_dict(ckpt["model"])
    opt = T.optim.Adam(model.parameters(), lr=0.05)
    opt.load_state_dict(ckpt["opt"])
    sched = T.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    sched.load_state_dict(ckpt["sched"])
    x = T.linspace(-1, 1, 32).reshape(8, 4)
    y = (x.sum(1, keepdim=True) * 0.7).sin()
    losses = []
    for _ in range(10):
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    np.testing.assert_allclose(losses, expected[10:], rtol=1e-5, atol=1e-7)
