"""Train a small CNN on the UCI handwritten digits (1,797 8x8 images) with taimatsu.

    python examples/train_digits.py                    # 97-99% validation accuracy in seconds
    python examples/train_digits.py --epochs 20 --lr 3e-3 --out-dir runs/try2
    python examples/train_digits.py --resume           # continue the run in --out-dir
    python examples/seeds/with_torch.py examples/train_digits.py   # the same script on PyTorch

The script uses PyTorch's API only (`import taimatsu as torch`), so it runs unchanged on real
PyTorch: a seeded train/validation split, a DataLoader, a Conv2d/ReLU/MaxPool2d/Linear network,
CrossEntropyLoss, AdamW with a OneCycleLR schedule, a checkpoint written atomically with
torch.save after every epoch, and a PNG plot of the loss and accuracy curves.
The data file and its licence (CC BY 4.0) are described in data/README.md.
"""

import argparse
import gzip
import os
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import taimatsu as torch
from taimatsu import nn
from taimatsu.utils.data import DataLoader, TensorDataset

DATA = Path(__file__).resolve().parents[1] / "data" / "digits.csv.gz"
CHECKPOINT = "checkpoint.pt"
PLOT = "curves.png"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=12, help="number of epochs (default: 12)")
    p.add_argument("--batch-size", type=int, default=32, help="training batch size (default: 32)")
    p.add_argument("--lr", type=float, default=5e-3, help="peak learning rate (default: 5e-3)")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="default: cpu")
    p.add_argument("--seed", type=int, default=0, help="seed for the split, init, shuffling")
    p.add_argument("--out-dir", default="runs/digits", help="checkpoint and plot go here")
    p.add_argument("--resume", action="store_true", help=f"continue from OUT_DIR/{CHECKPOINT}")
    p.add_argument(
        "--stop-after",
        type=int,
        default=None,
        metavar="K",
        help="stop after K epochs in this run (then continue with --resume)",
    )
    p.add_argument(
        "--subset", type=int, default=None, metavar="N", help="use only N images (quick tests)"
    )
    return p.parse_args(argv)


def load_digits() -> tuple:
    """Images as float32 (N, 1, 8, 8) scaled to [0, 1], labels as int64 (N,)."""
    with gzip.open(DATA, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    images = torch.from_numpy(table[:, :64].reshape(-1, 1, 8, 8) / 16.0)
    labels = torch.from_numpy(table[:, 64].astype(np.int64))
    return images, labels


def split(images, labels, seed: int, subset: int | None, val_fraction: float = 0.2) -> tuple:
    """A seeded shuffle, then the first 20% for validation and the rest for training."""
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed))
    if subset is not None:
        order = order[:subset]
    n_val = max(1, int(len(order) * val_fraction))
    val, train = order[:n_val], order[n_val:]
    return TensorDataset(images[train], labels[train]), TensorDataset(images[val], labels[val])


def make_model() -> nn.Module:
    # 8x8 -> conv 3x3 (same) -> 8x8 -> pool -> 4x4 -> conv 3x3 (same) -> 4x4 -> pool -> 2x2
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(64 * 2 * 2, 128),
        nn.ReLU(),
        nn.Linear(128, 10),
    )


def train_one_epoch(model, loader, loss_fn, optimizer, scheduler, device, desc: str) -> tuple:
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    bar = tqdm(loader, desc=desc, unit="batch", leave=False)
    for x, y in bar:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = loss_fn(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()  # OneCycleLR steps once per batch
        total_loss += loss.item() * len(y)
        correct += (logits.argmax(dim=1) == y).sum().item()
        seen += len(y)
        bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.2%}")
    return total_loss / seen, correct / seen


@torch.no_grad()
def evaluate(model, loader, loss_fn, device) -> tuple:
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        total_loss += loss_fn(logits, y).item() * len(y)
        correct += (logits.argmax(dim=1) == y).sum().item()
        seen += len(y)
    return total_loss / seen, correct / seen


def save_checkpoint(state: dict, path: Path) -> None:
    # Write to a temporary file and rename it over the old checkpoint: an interrupted save
    # never leaves a truncated checkpoint behind (os.replace is atomic on POSIX and Windows).
    tmp = path.with_name(path.name + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def plot_curves(history: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    epochs = range(1, len(history["train_loss"]) + 1)
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss.plot(epochs, history["train_loss"], "o-", label="train")
    ax_loss.plot(epochs, history["val_loss"], "o-", label="validation")
    ax_loss.set(title="Cross-entropy loss", xlabel="epoch", ylabel="loss", yscale="log")
    ax_acc.plot(epochs, [100 * a for a in history["train_acc"]], "o-", label="train")
    ax_acc.plot(epochs, [100 * a for a in history["val_acc"]], "o-", label="validation")
    ax_acc.set(title="Accuracy", xlabel="epoch", ylabel="accuracy (%)")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("CNN on UCI handwritten digits (8x8)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: no CUDA device is available")
    device = torch.device(args.device)
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ckpt_path = out_dir / CHECKPOINT

    torch.manual_seed(args.seed)
    train_set, val_set = split(*load_digits(), seed=args.seed, subset=args.subset)
    shuffle_gen = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(
        train_set, batch_size=args.batch_size, shuffle=True, generator=shuffle_gen
    )
    val_loader = DataLoader(val_set, batch_size=256)

    model = make_model().to(device)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader)
    )
    history = {"train_loss": [], "train_acc": [], "val_loss": [], "val_acc": []}
    start_epoch = 0

    config = {k: getattr(args, k) for k in ("epochs", "batch_size", "seed", "subset")}
    if args.resume:
        if not ckpt_path.exists():
            raise SystemExit(f"--resume: no checkpoint at {ckpt_path}")
        ckpt = torch.load(ckpt_path, map_location=device)
        # The split, the batches and the learning-rate schedule (which spans all epochs)
        # depend on these settings; a resumed run must keep them.
        changed = {k: v for k, v in ckpt["config"].items() if getattr(args, k) != v}
        if changed:
            flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in changed.items())
            raise SystemExit(f"--resume: {ckpt_path} was written by a run with {flags}")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        shuffle_gen.set_state(ckpt["shuffle_rng"])
        torch.set_rng_state(ckpt["rng"])
        history = ckpt["history"]
        start_epoch = ckpt["epoch"]
        print(f"resumed from {ckpt_path} after epoch {start_epoch}")

    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"digits: {len(train_set)} train / {len(val_set)} validation images, "
        f"model with {n_params:,} parameters, device {device}"
    )
    started = time.perf_counter()
    stop = args.epochs if args.stop_after is None else min(args.epochs, args.stop_after)
    for epoch in range(start_epoch, stop):
        desc = f"epoch {epoch + 1}/{args.epochs}"
        train_loss, train_acc = train_one_epoch(
            model, train_loader, loss_fn, optimizer, scheduler, device, desc
        )
        val_loss, val_acc = evaluate(model, val_loader, loss_fn, device)
        for key, value in zip(history, (train_loss, train_acc, val_loss, val_acc)):
            history[key].append(value)
        print(
            f"{desc}: train loss {train_loss:.4f} acc {train_acc:.2%} | "
            f"val loss {val_loss:.4f} acc {val_acc:.2%}"
        )
        save_checkpoint(
            {
                "epoch": epoch + 1,
                "config": config,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "shuffle_rng": shuffle_gen.get_state(),
                "rng": torch.get_rng_state(),
                "history": history,
            },
            ckpt_path,
        )

    plot_curves(history, out_dir / PLOT)
    elapsed = time.perf_counter() - started
    done = len(history["val_acc"])
    print(
        f"validation accuracy after {done}/{args.epochs} epochs: {history['val_acc'][-1]:.2%} "
        f"({elapsed:.1f} s of training in this run)"
    )
    print(f"checkpoint: {ckpt_path}")
    print(f"plot: {out_dir / PLOT}")


if __name__ == "__main__":
    main()
