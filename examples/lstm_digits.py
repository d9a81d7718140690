"""An LSTM classifier: read each 8x8 digit one pixel row at a time (8 steps of 8 values) and
classify it from the last hidden state.

    python examples/lstm_digits.py [--epochs 15]

The model uses nn.LSTM. To show what it computes, `LSTM` below writes the same layer out from
its equations, with PyTorch's parameter names, shapes and gate order (input, forget, cell,
output); `--written-out` trains with it instead, and gives the same numbers:

    i, f, g, o = split(x_t @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)

The data file and its licence are described in data/README.md.
"""

import argparse
import gzip
import math
from pathlib import Path

import numpy as np

import taimatsu as torch
from taimatsu import nn
from taimatsu.utils.data import DataLoader, TensorDataset, random_split

DATA = Path(__file__).resolve().parents[1] / "data" / "digits.csv.gz"


class LSTM(nn.Module):
    """One layer of nn.LSTM(input_size, hidden_size, batch_first=True), written out."""

    def __init__(self, input_size: int, hidden_size: int) -> None:
        super().__init__()
        self.hidden_size = hidden_size
        self.weight_ih_l0 = nn.Parameter(torch.empty(4 * hidden_size, input_size))
        self.weight_hh_l0 = nn.Parameter(torch.empty(4 * hidden_size, hidden_size))
        self.bias_ih_l0 = nn.Parameter(torch.empty(4 * hidden_size))
        self.bias_hh_l0 = nn.Parameter(torch.empty(4 * hidden_size))
        bound = 1 / math.sqrt(hidden_size)  # nn.LSTM's initialisation
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def forward(self, x):  # x: (batch, time, features)
        batch, steps, _ = x.shape
        h = x.new_zeros(batch, self.hidden_size)
        c = x.new_zeros(batch, self.hidden_size)
        # The input projection of all time steps at once: one matrix product instead of `steps`.
        x_proj = x @ self.weight_ih_l0.T + self.bias_ih_l0
        outputs = []
        for t in range(steps):
            gates = x_proj[:, t] + h @ self.weight_hh_l0.T + self.bias_hh_l0
            i, f, g, o = gates.chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outputs.append(h)
        return torch.stack(outputs, dim=1), (h.unsqueeze(0), c.unsqueeze(0))


class RowReader(nn.Module):
    def __init__(self, hidden: int = 64, written_out: bool = False) -> None:
        super().__init__()
        self.lstm = LSTM(8, hidden) if written_out else nn.LSTM(8, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 10)

    def forward(self, images):  # (batch, 8, 8): 8 rows, read top to bottom
        _, (h, _) = self.lstm(images)
        return self.head(h[-1])


def accuracy(model, loader, device="cpu") -> float:
    model.eval()
    with torch.no_grad():
        hits = sum((model(x.to(device)).argmax(1) == y.to(device)).sum().item() for x, y in loader)
    model.train()
    return hits / sum(len(y) for _, y in loader)


def positive_int(text: str) -> int:
    if int(text) < 1:  # argparse reports a ValueError from int() as an invalid value
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return int(text)


def seed_int(text: str) -> int:
    if not -(2**63) <= int(text) < 2**64:  # what torch.manual_seed accepts
        raise argparse.ArgumentTypeError(f"must be in [-2**63, 2**64), got {text}")
    return int(text)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="LSTM classifier on the UCI handwritten digits")
    p.add_argument(
        "--epochs",
        type=positive_int,
        default=15,
        help="passes over the data (default: %(default)s)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="random seed (default: %(default)s)")
    p.add_argument("--written-out", action="store_true", help="use the LSTM written out above")
    p.add_argument(
        "--device", default="cpu", choices=["cpu", "cuda"], help="train on (default: %(default)s)"
    )
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("argument --device: cuda: no CUDA device is available")
    return args


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)

    with gzip.open(DATA, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    images = torch.from_numpy(table[:, :64].reshape(-1, 8, 8) / 16.0)
    labels = torch.from_numpy(table[:, 64].astype(np.int64))
    train, val = random_split(
        TensorDataset(images, labels), [0.8, 0.2], generator=torch.Generator().manual_seed(0)
    )
    train_loader = DataLoader(train, batch_size=64, shuffle=True)
    val_loader = DataLoader(val, batch_size=512)

    model = RowReader(written_out=args.written_out).to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, args.epochs + 1):
        total = 0.0
        for x, y in train_loader:
            x, y = x.to(args.device), y.to(args.device)
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # RNNs can have gradient spikes
            optimizer.step()
            total += loss.item() * len(y)
        scheduler.step()
        if epoch == 1 or epoch % 5 == 0 or epoch == args.epochs:
            print(
                f"epoch {epoch:2d}: train loss {total / len(train):.3f}  "
                f"validation accuracy {accuracy(model, val_loader, args.device):.1%}"
            )


if __name__ == "__main__":
    main()
