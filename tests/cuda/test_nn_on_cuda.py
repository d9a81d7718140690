"""nn modules, losses and training steps on the CuPy test double's "cuda" device: the same numbers
as on the CPU, and no host synchronisation inside a training step (the double's counter)."""

import copy
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

import taimatsu as torch

nn = torch.nn


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(
        a.detach().cpu().numpy(), b.detach().cpu().numpy(), rtol=tol, atol=tol
    )


MODULES = [
    ("Linear", lambda: nn.Linear(5, 3), (4, 5)),
    ("Conv2d", lambda: nn.Conv2d(2, 3, 3, padding=1, stride=2), (2, 2, 7, 7)),
    ("Conv1d", lambda: nn.Conv1d(2, 3, 3), (2, 2, 9)),
    ("BatchNorm2d", lambda: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    ("LayerNorm", lambda: nn.LayerNorm(6), (3, 4, 6)),
    ("LSTM", lambda: nn.LSTM(4, 5, num_layers=2, batch_first=True), (3, 6, 4)),
    ("GRU", lambda: nn.GRU(4, 5), (6, 3, 4)),
    ("MultiheadAttention", lambda: nn.MultiheadAttention(8, 2, batch_first=True), (2, 5, 8)),
    ("TransformerEncoderLayer",
     lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), (2, 5, 8)),
    ("MaxPool2d", lambda: nn.MaxPool2d(2), (2, 3, 6, 6)),
    ("AvgPool2d", lambda: nn.AvgPool2d(2), (2, 3, 6, 6)),
    ("Dropout-eval", lambda: nn.Dropout(0.5).eval(), (4, 5)),
    ("GELU", lambda: nn.GELU(), (4, 5)),
    ("Softmax", lambda: nn.Softmax(-1), (4, 5)),
]  # fmt: skip


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize(("name", "make", "shape"), MODULES, ids=[m[0] for m in MODULES])
def test_module_matches_cpu(name, make, shape, fake_cupy):
    torch.manual_seed(0)
    cpu = make()
    gpu = copy.deepcopy(cpu).cuda()
    x = torch.randn(*shape, requires_grad=True)
    xg = x.detach().cuda().requires_grad_()
    args = (x, x, x) if name == "MultiheadAttention" else (x,)
    gargs = (xg, xg, xg) if name == "MultiheadAttention" else (xg,)
    out, gout = _first(cpu(*args)), _first(gpu(*gargs))
    assert gout.is_cuda
    _close(out, gout)
    cot = torch.randn(*out.shape)
    out.backward(cot)
    gout.backward(cot.cuda())
    _close(x.grad, xg.grad)
    for (n, p), (_, q) in zip(cpu.named_parameters(), gpu.named_parameters()):
        assert q.grad.is_cuda, n
        _close(p.grad, q.grad)


LOSSES = [
    ("CrossEntropyLoss", nn.CrossEntropyLoss(label_smoothing=0.1), (4, 3), lambda: torch.tensor([0, 2, 1, 2])),
    ("NLLLoss", nn.NLLLoss(), (4, 3), lambda: torch.tensor([0, 2, 1, 1])),
    ("MSELoss", nn.MSELoss(), (4, 3), lambda: torch.randn(4, 3)),
    ("BCEWithLogitsLoss", nn.BCEWithLogitsLoss(), (4, 3), lambda: torch.rand(4, 3)),
    ("L1Loss", nn.L1Loss(), (4, 3), lambda: torch.randn(4, 3)),
    ("SmoothL1Loss", nn.SmoothL1Loss(), (4, 3), lambda: torch.randn(4, 3)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "loss", "shape", "target"), LOSSES, ids=[x[0] for x in LOSSES])
def test_loss_matches_cpu(name, loss, shape, target, fake_cupy):
    torch.manual_seed(1)
    x, t = torch.randn(*shape, requires_grad=True), target()
    xg = x.detach().cuda().requires_grad_()
    a, b = loss(x, t), loss(xg, t.cuda())
    _close(a, b)
    a.backward()
    b.backward()
    _close(x.grad, xg.grad)


def test_bad_target_raises_at_the_next_synchronisation(fake_cupy):
    """As PyTorch's device-side assert, the check does not stop the stream: it is raised when
    the host next reads from the device (here ``item``), with the CPU's message."""
    x = torch.randn(2, 3, device="cuda")
    fake_cupy.STATS.reset()
    loss = nn.functional.cross_entropy(x, torch.tensor([0, 5], device="cuda"))
    assert fake_cupy.STATS.syncs == 0
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        loss.item()
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 1 with size 3"):
        torch.gather(x, 1, torch.tensor([[7]], device="cuda"))
        torch.cuda.synchronize()
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        nn.functional.cross_entropy(x.cpu(), torch.tensor([0, 5]))  # the CPU raises at once


def _mlp():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))


def _cnn():  # examples/train_digits.py's network, smaller
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(8 * 2 * 2, 3),
    )  # fmt: skip


OPTIMIZERS = {
    "SGD": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-4),
    "Adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "AdamW": lambda p: torch.optim.AdamW(p, lr=0.01),
}


def _train(model, opt, x, y, steps, stats=None):
    losses, syncs = [], []
    for _ in range(steps):
        if stats is not None:
            stats.reset()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if stats is not None:
            syncs.append(list(zip(stats.log, stats.where)))
        losses.append(loss)
    return [float(v) for v in losses], syncs


@pytest.mark.parametrize("opt_name", list(OPTIMIZERS))
@pytest.mark.parametrize(
    ("net", "xshape"), [(_mlp, (6, 8)), (_cnn, (6, 1, 8, 8))],
    ids=["mlp", "cnn"],
)  # fmt: skip
def test_training_step_has_no_host_sync(net, xshape, opt_name, fake_cupy):
    torch.manual_seed(2)
    cpu = net()
    gpu = copy.deepcopy(cpu).cuda()
    x, y = torch.randn(*xshape), torch.tensor([0, 1, 2, 2, 1, 0])
    want, _ = _train(cpu.eval(), OPTIMIZERS[opt_name](cpu.parameters()), x, y, 3)
    got, syncs = _train(gpu.eval(), OPTIMIZERS[opt_name](gpu.parameters()), x.cuda(), y.cuda(), 3,
                        fake_cupy.STATS)  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for p, q in zip(cpu.parameters(), gpu.parameters()):
        _close(p, q)
    assert syncs == [[], [], []]


def _char_gpt(device, monkeypatch, capsys) -> list[str]:
    script = Path(__file__).parents[2] / "examples" / "char_gpt.py"
    argv = [str(script), "--device", device, "--steps", "5", "--sample-chars", "20"]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(script), run_name="__main__")
    return [ln for ln in capsys.readouterr().out.splitlines() if not ln.startswith("trained in")]


def test_char_gpt_example_on_cuda(fake_cupy, monkeypatch, capsys):
    """examples/char_gpt.py --device cuda: the CPU run's losses; the sampled text is drawn by
    the GPU's generator (multinomial), so it differs from the CPU's, as in PyTorch, but a
    second run repeats it."""
    gpu, cpu = _char_gpt("cuda", monkeypatch, capsys), _char_gpt("cpu", monkeypatch, capsys)
    assert len(gpu) == len(cpu) and gpu[:-1] == cpu[:-1]
    assert len(gpu[-1]) == len(cpu[-1]) and _char_gpt("cuda", monkeypatch, capsys) == gpu


def _example(argv, monkeypatch, capsys) -> list[str]:
    script = Path(__file__).parents[2] / "examples" / argv[0]
    monkeypatch.setattr(sys, "argv", [str(script), *argv[1:]])
    runpy.run_path(str(script), run_name="__main__")
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("argv", [["lstm_digits.py", "--epochs", "1"],
                                  ["vae_digits.py", "--epochs", "1"]], ids=["lstm", "vae"])  # fmt: skip
def test_digits_examples_on_cuda(argv, fake_cupy, monkeypatch, capsys):
    """examples/lstm_digits.py and vae_digits.py with --device cuda print the CPU run's lines
    (the VAE's noise comes from the GPU's generator: its -ELBO within 1%, and reproducible)."""
    gpu = _example([*argv, "--device", "cuda"], monkeypatch, capsys)
    cpu = _example([*argv, "--device", "cpu"], monkeypatch, capsys)
    assert gpu[0].startswith("epoch  ") and len(gpu) == len(cpu)
    if argv[0] == "lstm_digits.py":
        assert gpu == cpu
    else:
        elbo = [float(lines[0].split()[3]) for lines in (gpu, cpu)]
        assert abs(elbo[0] - elbo[1]) <= 0.01 * elbo[1]
        assert _example([*argv, "--device", "cuda"], monkeypatch, capsys) == gpu


def _digits(device, out_dir, monkeypatch, capsys) -> list[str]:
    script = Path(__file__).parents[2] / "examples" / "train_digits.py"
    argv = [str(script), "--device", device, "--epochs", "1", "--subset", "200",
            "--out-dir", str(out_dir)]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(script), run_name="__main__")
    return capsys.readouterr().out.splitlines()


def test_train_digits_example_on_cuda(fake_cupy, tmp_path, monkeypatch, capsys):
    """examples/train_digits.py --device cuda (one epoch, 200 images) prints the CPU's numbers."""
    gpu = _digits("cuda", tmp_path / "gpu", monkeypatch, capsys)
    cpu = _digits("cpu", tmp_path / "cpu", monkeypatch, capsys)
    assert gpu[0].endswith("device cuda") and cpu[0].endswith("device cpu")
    assert gpu[1].startswith("epoch 1/1: train loss") and gpu[1] == cpu[1]
    sd = torch.load(tmp_path / "gpu" / "checkpoint.pt", map_location="cpu")
    assert sd  # a checkpoint saved from CUDA tensors loads on the CPU


def test_host_only_op_round_trip(fake_cupy):
    """A LAPACK-backed op on CUDA tensors runs through host memory (taimatsu/ops/on_host.py):
    CUDA results, gradients back on the CUDA input, one synchronisation for the copy."""
    a = torch.randn(4, 4)
    a = (a @ a.T + 4 * torch.eye(4)).cuda().requires_grad_()
    fake_cupy.STATS.reset()
    low = torch.linalg.cholesky(a)
    assert low.is_cuda and fake_cupy.STATS.syncs == 1
    assert type(low.grad_fn).__name__ == "ToCopyBackward0"  # the deviation documented there
    low.sum().backward()
    assert a.grad.is_cuda
    ref = a.detach().cpu().requires_grad_()
    torch.linalg.cholesky(ref).sum().backward()
    _close(a.grad, ref.grad)


class _TinyGPT(nn.Module):
    """Embedding, causal self-attention block (dropout on), LSTM, LayerNorm, head."""

    def __init__(self) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(20, 16), nn.Parameter(torch.zeros(8, 16))
        self.blk = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True,
                                              norm_first=True)  # fmt: skip
        self.lstm = nn.LSTM(16, 16, batch_first=True)
        self.ln, self.head = nn.LayerNorm(16), nn.Linear(16, 20)

    def forward(self, x):
        h = self.tok(x) + self.pos[: x.shape[1]]
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
        h, _ = self.lstm(self.blk(h, src_mask=mask, is_causal=True))
        return self.head(self.ln(h))


def _no_dropout(model: nn.Module) -> None:
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
        elif isinstance(m, nn.MultiheadAttention):
            m.dropout = 0.0


@pytest.mark.parametrize("dropout", [True, False], ids=["dropout", "no_dropout"])
def test_gpt_style_training_step_has_no_host_sync(dropout, fake_cupy):
    """Dropout draws on the GPU (CuPy's generator): no sync.
    With dropout the CUDA losses differ from the CPU's (another stream, as in PyTorch) but a
    seeded run repeats them; without, they are the CPU's."""
    torch.manual_seed(3)
    cpu = _TinyGPT()
    if not dropout:
        _no_dropout(cpu)
    gpu = copy.deepcopy(cpu).cuda()
    x, y = torch.randint(0, 20, (4, 8)), torch.randint(0, 20, (4, 8))
    if dropout:
        first = _gpt_losses(copy.deepcopy(gpu), x.cuda(), y.cuda(), fake_cupy.STATS)
        again = _gpt_losses(copy.deepcopy(gpu), x.cuda(), y.cuda(), fake_cupy.STATS)
        want = _gpt_losses(cpu, x, y, None)
        assert first == again and first != want
        np.testing.assert_allclose(first, want, rtol=0.1)
        return
    got = _gpt_losses(gpu, x.cuda(), y.cuda(), fake_cupy.STATS)
    np.testing.assert_allclose(got, _gpt_losses(cpu, x, y, None), rtol=1e-5, atol=1e-6)
    for (n, p), (_, q) in zip(cpu.named_parameters(), gpu.named_parameters()):
        if n == "blk.self_attn.in_proj_bias":
            # The key bias's gradient is 0 in exact arithmetic (softmax ignores a constant per
            # query): rounding noise, which Adam scales up to full steps. Query and value parts.
            p, q = torch.cat([p[:16], p[32:]]), torch.cat([q[:16], q[32:]])
        _close(p, q, 1e-4)


def _gpt_losses(model, xs, ys, stats) -> list[float]:
    """Three AdamW steps from seed 4; with ``stats`` (CUDA), each step must not synchronise."""
    torch.manual_seed(4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        if stats is not None:
            stats.reset()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xs).reshape(-1, 20), ys.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if stats is not None:
            assert stats.syncs == 0, stats.where
        losses.append(float(loss))
    return losses
