"""End-to-end training parity with PyTorch (issue #4): an MLP, a small CNN, an LSTM classifier and a
small GPT-style decoder, each trained for 50 steps from identical weights (PyTorch's state_dict
copied into taimatsu) on identical batches, with an optimizer, a scheduler and, where the model
has them, dropout layers active: taimatsu's generator reproduces PyTorch's CPU stream, so both
libraries are seeded alike and drop the same units. The 50 losses must agree to rtol 1e-3, and so
must the final parameters.
"""

import gzip
from pathlib import Path

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
from nn_oracle import T

pytestmark = pytest.mark.oracle

STEPS = 50
DIGITS = Path(__file__).resolve().parents[2] / "data" / "digits.csv.gz"


def _digits():
    with gzip.open(DIGITS, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return rows[:, :64] / 16.0, rows[:, 64].astype(np.int64)


def _train(lib, model_fn, opt_fn, sched_fn, batches, loss_fn, init, clip=None):
    """Train ``model_fn(lib)`` from ``init`` (a torch state_dict) and return losses and the model."""
    model = model_fn(lib)
    model.load_state_dict(init if lib is torch else {k: T(v) for k, v in init.items()})
    model.train()
    opt = opt_fn(lib, model.parameters())
    sched = sched_fn(lib, opt)
    lib.manual_seed(1234)  # the same dropout masks in both
    losses = []
    for xb, yb in batches:
        x, y = lib.tensor(xb), lib.tensor(yb)
        opt.zero_grad()
        loss = loss_fn(lib, model, x, y)
        loss.backward()
        if clip:
            lib.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        sched.step()
        losses.append(loss.item())
    return np.array(losses), model


def _compare(
    model_fn, opt_fn, sched_fn, batches, loss_fn, clip=None, rtol=1e-3, atol=1e-5, skip=()
):
    torch.manual_seed(0)
    init = {k: v.clone() for k, v in model_fn(torch).state_dict().items()}
    want, o_model = _train(torch, model_fn, opt_fn, sched_fn, batches, loss_fn, init, clip)
    got, t_model = _train(tm, model_fn, opt_fn, sched_fn, batches, loss_fn, init, clip)
    assert len(got) == STEPS
    np.testing.assert_allclose(got, want, rtol=rtol, err_msg="loss curve")
    assert want[-5:].mean() < want[:5].mean()  # it did learn something
    o_sd, t_sd = o_model.state_dict(), t_model.state_dict()
    assert list(t_sd) == list(o_sd)
    for k in o_sd:
        keep = np.ones(o_sd[k].shape, bool)
        for name, where in skip:
            if k.endswith(name):
                keep[where] = False
        np.testing.assert_allclose(
            t_sd[k].numpy()[keep], o_sd[k].numpy()[keep], rtol=rtol, atol=atol, err_msg=f"final {k}"
        )


def _cross_entropy(lib, model, x, y):
    return lib.nn.functional.cross_entropy(model(x), y)


def test_mlp_adamw_onecycle_on_digits():
    X, Y = _digits()
    rng = np.random.default_rng(0)
    batches = [(X[i], Y[i]) for i in (rng.choice(len(X), 32, replace=False) for _ in range(STEPS))]

    def model(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.Linear(64, 48), nn.ReLU(), nn.Dropout(0.1), nn.Linear(48, 32), nn.GELU(),
            nn.Linear(32, 10),
        )  # fmt: skip

    _compare(
        model,
        lambda lib, p: lib.optim.AdamW(p, lr=3e-3, weight_decay=0.05),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=1e-2, total_steps=STEPS),
        batches,
        _cross_entropy,
    )


def test_cnn_sgd_nesterov_steplr_on_digits():
    X, Y = _digits()
    rng = np.random.default_rng(1)
    batches = [
        (X[i].reshape(-1, 1, 8, 8), Y[i])
        for i in (rng.choice(len(X), 16, replace=False) for _ in range(STEPS))
    ]

    def model(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.Conv2d(1, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 8, 3), nn.ReLU(), nn.Dropout2d(0.1), nn.AdaptiveAvgPool2d(1),
            nn.Flatten(), nn.Linear(8, 10),
        )  # fmt: skip

    _compare(
        model,
        lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4),
        lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=15, gamma=0.5),
        batches,
        _cross_entropy,
    )


class _LSTMClassifier:
    """Embedding -> 2-layer LSTM (dropout between layers) -> linear head on the last step."""

    @staticmethod
    def make(lib):
        nn = lib.nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(12, 8, padding_idx=0)
                self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True, dropout=0.1)
                self.head = nn.Linear(16, 3)

            def forward(self, x):
                out, _ = self.lstm(self.emb(x))
                return self.head(out[:, -1])

        return Model()


def test_lstm_classifier_adam_cosine():
    rng = np.random.default_rng(2)
    batches = []
    for _ in range(STEPS):
        x = rng.integers(1, 12, size=(16, 10))
        y = x[:, -2] % 3  # the next-to-last token decides the class
        batches.append((x.astype(np.int64), y.astype(np.int64)))
    _compare(
        _LSTMClassifier.make,
        lambda lib, p: lib.optim.Adam(p, lr=2e-2),
        lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=STEPS, eta_min=1e-4),
        batches,
        _cross_entropy,
        clip=1.0,
    )


def _gpt(lib, vocab=16, d=16, heads=2, layers=2, ctx=12):
    nn = lib.nn

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(ctx, d)
            layer = nn.TransformerEncoderLayer(
                d, heads, 4 * d, dropout=0.1, activation="gelu", batch_first=True, norm_first=True
            )
            self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            n = idx.shape[1]
            x = self.tok(idx) + self.pos(lib.arange(n))
            mask = nn.Transformer.generate_square_subsequent_mask(n)
            return self.head(self.ln(self.blocks(x, mask=mask, is_causal=True)))

    return GPT()


def _next_token_loss(lib, model, x, y):
    logits = model(x)
    return lib.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def test_gpt_decoder_adamw_warmup_lambda():
    rng = np.random.default_rng(3)
    batches = []
    for _ in range(STEPS):  # arithmetic sequences mod 16: the next token is predictable
        start = rng.integers(0, 16, size=(8, 1))
        step = rng.integers(1, 4, size=(8, 1))
        seq = (start + step * np.arange(13)) % 16
        batches.append((seq[:, :-1].astype(np.int64), seq[:, 1:].astype(np.int64)))
    _compare(
        _gpt,
        lambda lib, p: lib.optim.AdamW(p, lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1),
        lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda s: min(1.0, (s + 1) / 10)),
        batches,
        _next_token_loss,
        clip=1.0,
        # The key bias has a zero gradient in exact arithmetic (softmax ignores a constant added
        # to a row of scores); its float32 rounding noise, which AdamW scales up to full-size
        # steps, is all that moves it, so it cannot be compared.
        skip=[("self_attn.in_proj_bias", slice(16, 32))],
    )
