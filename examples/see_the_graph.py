"""See the autograd graph of a tiny model, and find the bug in a broken training loop.

    python examples/see_the_graph.py [--out-dir DIR]

1. A two-layer network learns y = sin(3x) for a few hundred steps. Its loss graph is written
   to DIR/graph.dot (always) and DIR/graph.svg (when Graphviz's `dot` program is installed),
   and printed as a text tree: the same nodes PyTorch's `loss.grad_fn.next_functions` walk
   reaches (AddmmBackward0, TanhBackward0, ...), with the parameters named.
2. The same training with one misplaced `.detach()`: the first layer never learns. The loss
   stalls, `fc1.weight.grad` stays None, and `taimatsu.autograd.explain` says why and where.

taimatsu only (PyTorch has no graph viewer or explainer).
"""

from __future__ import annotations

import argparse
import math
import shutil
from pathlib import Path

import taimatsu as torch
from taimatsu import nn
from taimatsu.autograd import explain, graph_view, trace_origins


class TinyNet(nn.Module):
    def __init__(self, detach_hidden: bool = False) -> None:
        super().__init__()
        self.fc1 = nn.Linear(1, 16)
        self.fc2 = nn.Linear(16, 1)
        self.detach_hidden = detach_hidden

    def forward(self, x):
        h = torch.tanh(self.fc1(x))
        if self.detach_hidden:
            h = h.detach()  # the bug: cuts fc1 out of the graph
        return self.fc2(h)


def data(n: int = 128):
    x = torch.linspace(-1.0, 1.0, n).unsqueeze(1)
    return x, torch.sin(3.0 * x)


def train(model: nn.Module, steps: int = 200):
    """Adam on the MSE; returns the first and last losses and the last loss tensor."""
    x, y = data()
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    first = None
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    return first, loss.item(), loss


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--out-dir",
        default="runs/see_the_graph",
        help="where graph.dot/.svg go (default: %(default)s)",
    )
    args = ap.parse_args(argv)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(0)
    model = TinyNet()
    first, last, _ = train(model)
    print(f"healthy loop: loss {first:.4f} -> {last:.4f}")
    x, y = data()
    loss = nn.functional.mse_loss(model(x), y)
    view = graph_view(loss, params=model)
    print(view)
    print(f"wrote {view.render(out / 'graph.dot')}")
    if shutil.which("dot"):
        print(f"wrote {view.render(out / 'graph.svg')}")
    else:
        print("Graphviz's `dot` is not installed: no SVG (apt-get install graphviz)")

    torch.manual_seed(0)
    broken = TinyNet(detach_hidden=True)
    with trace_origins():  # records where graphs are cut, for explain
        first, last, loss = train(broken)
    print(f"\nbroken loop: loss {first:.4f} -> {last:.4f} (it stalls: fc1 never learns)")
    print(f"fc1.weight.grad is {broken.fc1.weight.grad}")
    for line in str(explain(broken, loss)).splitlines():
        print("  " + line.replace(str(Path(__file__).resolve()), Path(__file__).name))
    assert math.isfinite(last)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
