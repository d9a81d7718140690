"""Hogwild training: several processes train ONE model whose parameters live in shared memory.

    python examples/mnist_hogwild.py                        # 2 processes, spawn, 10 epochs
    python examples/mnist_hogwild.py --num-processes 1      # the single-process baseline
    python examples/mnist_hogwild.py --num-processes 4 --start-method fork
    python examples/seeds/with_torch.py examples/mnist_hogwild.py --start-method fork  # on PyTorch

The pattern of pytorch/examples' mnist_hogwild, on the bundled UCI digits (1,797 8x8 images)
instead of MNIST: ``model.share_memory()`` moves the parameters into shared memory, each process
gets the model (and the training set, also shared rather than copied), and runs its own
DataLoader and SGD optimizer on it without locks. Every ``optimizer.step()`` writes into the
same parameters, so the processes see each other's updates; each epoch of each process visits
the whole training set, as in the original. The main process then evaluates the shared model.
The data file and its licence are described in data/README.md.
"""

import argparse
import gzip
import os
from pathlib import Path

import numpy as np

import taimatsu as torch
import taimatsu.multiprocessing as mp
from taimatsu import nn
from taimatsu.nn import functional as F
from taimatsu.utils.data import DataLoader, TensorDataset

DATA = Path(__file__).resolve().parents[1] / "data" / "digits.csv.gz"


class Net(nn.Module):
    """A small CNN for 8x8 digits: conv, pool, conv, pool, two linear layers, log-softmax."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return F.log_softmax(self.fc2(x), dim=1)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--num-processes",
        type=positive_int,
        default=2,
        metavar="N",
        help="training processes sharing the model",
    )
    p.add_argument(
        "--epochs", type=positive_int, default=10, metavar="N", help="epochs each process trains"
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=32,
        metavar="N",
        help="batch size of each process",
    )
    p.add_argument(
        "--lr", type=positive_float, default=0.05, metavar="LR", help="SGD learning rate"
    )
    p.add_argument("--momentum", type=float, default=0.5, metavar="M", help="SGD momentum")
    p.add_argument(
        "--seed",
        type=int,
        default=1,
        metavar="S",
        help="seed of the split and the model; process r seeds with S + r",
    )
    p.add_argument(
        "--subset",
        type=positive_int,
        default=None,
        metavar="N",
        help="use only N images (a quick trial)",
    )
    p.add_argument(
        "--start-method",
        choices=("spawn", "fork", "forkserver"),
        default="spawn",
        help="how the training processes are started",
    )
    return p.parse_args(argv)  # fmt: skip


def load_digits(seed: int, subset) -> tuple:
    """A seeded 80/20 train/test split of the digits: images (N, 1, 8, 8) in [0, 1], labels."""
    with gzip.open(DATA, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    images = torch.from_numpy(table[:, :64].reshape(-1, 1, 8, 8) / 16.0)
    labels = torch.from_numpy(table[:, 64].astype(np.int64))
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed))
    if subset is not None:
        order = order[:subset]
    n_test = max(1, len(order) // 5)
    test, train = order[:n_test], order[n_test:]
    return TensorDataset(images[train], labels[train]), TensorDataset(images[test], labels[test])


def train(rank: int, args: argparse.Namespace, model: nn.Module, dataset) -> None:
    """One Hogwild worker: its own shuffling and optimizer state, the shared parameters."""
    torch.manual_seed(args.seed + rank)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    model.train()
    for epoch in range(1, args.epochs + 1):
        total, seen = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
            seen += len(y)
        print(f"process {rank} (pid {os.getpid()}) epoch {epoch}: train loss {total / seen:.4f}",
              flush=True)  # fmt: skip


@torch.no_grad()
def test(model: nn.Module, dataset) -> tuple:
    model.eval()
    x, y = dataset.tensors
    out = model(x)
    loss = F.nll_loss(out, y).item()
    accuracy = (out.argmax(dim=1) == y).float().mean().item()
    return loss, accuracy


def main(argv=None) -> None:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    train_set, test_set = load_digits(args.seed, args.subset)
    model = Net()
    model.share_memory()  # the parameters move to shared memory: every process updates them
    ctx = mp.get_context(args.start_method)
    processes = []
    for rank in range(args.num_processes):
        p = ctx.Process(target=train, args=(rank, args, model, train_set))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    failed = [p.exitcode for p in processes if p.exitcode != 0]
    if failed:
        raise SystemExit(f"a training process failed (exit codes {failed})")
    loss, accuracy = test(model, test_set)
    print(f"test loss {loss:.4f}, accuracy {accuracy:.2%} "
          f"({args.num_processes} process{'es' if args.num_processes > 1 else ''})")  # fmt: skip


if __name__ == "__main__":
    main()
