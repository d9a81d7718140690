"""Train a small CNN on the UCI handwritten digits (1,797 8x8 images) with taimatsu.

    python examples/train_digits.py                    # ~99% validation accuracy, in runs/digits
    python examples/train_digits.py --subset 200       # a quick trial, in runs/digits-subset200
    python examples/train_digits.py --epochs 20 --lr 3e-3 --out-dir runs/try2
    python examples/train_digits.py --stop-after 4 && python examples/train_digits.py --resume
    python examples/seeds/with_torch.py examples/train_digits.py   # the same script on PyTorch
    python -m taimatsu.distributed.run --nproc-per-node 2 examples/train_digits.py --ddp
    python examples/train_digits.py --amp              # mixed precision, in runs/digits-ampTrue

The script uses PyTorch's API only (`import taimatsu as torch`), so it runs unchanged on real
PyTorch: a seeded train/validation split, a DataLoader, a Conv2d/ReLU/MaxPool2d/Linear network,
CrossEntropyLoss, AdamW with a OneCycleLR schedule, a checkpoint written atomically with
torch.save after every epoch, and a PNG plot of the loss and accuracy curves. With --amp the
forward pass runs under torch.autocast (bfloat16 on the CPU; float16 with a GradScaler on CUDA).
Each setting of --epochs/--batch-size/--lr/--seed/--subset gets its own default run directory;
a directory holding a run with other settings is never overwritten unless --overwrite says so.
The data file and its licence (CC BY 4.0) are described in data/README.md.
"""

import argparse
import gzip
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import taimatsu as torch
from taimatsu import nn
from taimatsu.utils.data import DataLoader, DistributedSampler, TensorDataset

DATA = Path(__file__).resolve().parents[1] / "data" / "digits.csv.gz"
CHECKPOINT = "checkpoint.pt"
PLOT = "curves.png"


DEFAULTS = {"epochs": 12, "batch_size": 32, "lr": 5e-3, "seed": 0, "subset": None, "amp": False}
# The settings a run's results depend on: they name the default run directory, and a checkpoint
# records them so that neither --resume nor a new run mixes two different runs.
RUN_SETTINGS = tuple(DEFAULTS)


def positive_int(text: str) -> int:
    value = int(text)  # argparse turns the ValueError into "invalid positive_int value"
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def seed_int(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**64:  # what torch.manual_seed accepts
        raise argparse.ArgumentTypeError(f"must be in [-2**63, 2**64), got {text}")
    return value


def subset_size(text: str) -> int:
    value = int(text)
    if value < 2:  # one validation image and at least one training image
        raise argparse.ArgumentTypeError(f"must be at least 2, got {text}")
    return value


def default_out_dir(args: argparse.Namespace) -> Path:
    """runs/digits for the default settings; otherwise the settings that differ are appended
    (runs/digits-epochs20-lr0.003, runs/digits-subset5), so a trial run never lands on another."""
    changed = [
        f"{k.split('_')[0]}{getattr(args, k)}"
        for k in RUN_SETTINGS
        if getattr(args, k) != DEFAULTS[k]
    ]
    return Path("-".join(["runs/digits", *changed]))


def writable_dir(path: Path) -> str | None:
    """None if `path` is (now) a directory this process can write into, else why not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        # os.access says yes to root even on read-only file systems: try a real write.
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        return e.strerror or str(e)
    return None


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    d = DEFAULTS
    p.add_argument(
        "--epochs",
        type=positive_int,
        default=d["epochs"],
        help="number of epochs (default: %(default)s)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=d["batch_size"],
        help="training batch size (default: %(default)s)",
    )
    p.add_argument(
        "--lr",
        type=positive_float,
        default=d["lr"],
        help="peak learning rate (default: %(default)s)",
    )
    p.add_argument(
        "--device", default="cpu", choices=["cpu", "cuda"], help="train on (default: %(default)s)"
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=d["seed"],
        help="seed for the split, init, shuffling (default: %(default)s)",
    )
    p.add_argument(
        "--subset",
        type=subset_size,
        default=d["subset"],
        metavar="N",
        help="use only N images, for quick trials (default: all 1,797)",
    )
    p.add_argument(
        "--amp",
        action="store_true",
        help="mixed precision: autocast (CPU bfloat16, CUDA float16 with a GradScaler)",
    )
    p.add_argument(
        "--out-dir",
        type=Path,
        default=None,
        help="checkpoint and plot go here (default: runs/digits for the default settings; "
        "settings that differ are appended, e.g. runs/digits-epochs2-subset200)",
    )
    p.add_argument(
        "--ddp",
        action="store_true",
        help="data-parallel on the ranks started by `python -m taimatsu.distributed.run "
        "--nproc-per-node N` (or torchrun): DistributedDataParallel, a DistributedSampler, "
        "--batch-size split over the ranks; rank 0 prints and saves (in OUT_DIR-ddpN)",
    )
    again = p.add_mutually_exclusive_group()
    again.add_argument(
        "--resume", action="store_true", help=f"continue the run in OUT_DIR/{CHECKPOINT}"
    )
    again.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a run with other settings in OUT_DIR (without it, the script refuses)",
    )
    p.add_argument(
        "--stop-after",
        type=positive_int,
        default=None,
        metavar="K",
        help="stop after K epochs in this run, then continue with --resume "
        "(default: run to --epochs)",
    )
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("argument --device: cuda: no CUDA device is available")
    if args.out_dir is None:
        args.out_dir = default_out_dir(args)
        if args.ddp:
            args.out_dir = args.out_dir.with_name(f"{args.out_dir.name}-ddp{world_size()}")
    why = writable_dir(args.out_dir)
    if why is not None:
        p.error(f"argument --out-dir: cannot write to {args.out_dir}: {why}")
    return args


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


def train_one_epoch(
    model, loader, loss_fn, optimizer, scheduler, device, desc: str, amp=False, scaler=None
) -> tuple:
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    # On a terminal a bar shows the running loss; in a log it would be a stream of carriage
    # returns, and the line printed after every epoch says what a log needs.
    bar = tqdm(loader, desc=desc, unit="batch", leave=False, disable=not sys.stderr.isatty())
    for x, y in bar:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device.type, enabled=amp):
            logits = model(x)
            loss = loss_fn(logits, y)
        optimizer.zero_grad()
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:  # float16 gradients can underflow: scale the loss, skip steps with inf/NaN
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()  # OneCycleLR steps once per batch
        total_loss += loss.item() * len(y)
        correct += (logits.argmax(dim=1) == y).sum().item()
        seen += len(y)
        bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.2%}")
    return total_loss / seen, correct / seen


@torch.no_grad()
def evaluate(model, loader, loss_fn, device, amp=False) -> tuple:
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device.type, enabled=amp):
            logits = model(x)
        total_loss += loss_fn(logits, y).item() * len(y)
        correct += (logits.argmax(dim=1) == y).sum().item()
        seen += len(y)
    return total_loss / seen, correct / seen


def world_size() -> int:
    """The number of ranks the launcher started (WORLD_SIZE, as torchrun sets it)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def is_main_rank() -> bool:
    """False on every rank but 0 of a --ddp run: only rank 0 prints, saves and plots."""
    return not torch.distributed.is_initialized() or torch.distributed.get_rank() == 0


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside DistributedDataParallel, so checkpoints have no "module." prefix."""
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model


def start_ddp(args, train_set) -> tuple:
    """Join the process group; each rank's loader then sees its shard of every epoch."""
    if "RANK" not in os.environ:
        raise SystemExit(
            "--ddp: start the ranks with "
            "`python -m taimatsu.distributed.run --nproc-per-node N examples/train_digits.py --ddp`"
        )
    torch.distributed.init_process_group("gloo")
    if not is_main_rank():
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (rank 0 reports for all)
    sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    per_rank = max(1, args.batch_size // torch.distributed.get_world_size())
    return DataLoader(train_set, batch_size=per_rank, sampler=sampler), sampler


def save_checkpoint(state: dict, path: Path) -> None:
    if not is_main_rank():
        return
    # Write to a temporary file and rename it over the old checkpoint: an interrupted save
    # never leaves a truncated checkpoint behind (os.replace is atomic on POSIX and Windows).
    tmp = path.with_name(path.name + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def plot_curves(history: dict, path: Path) -> None:
    if not is_main_rank():
        return
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


def describe(settings: dict) -> str:
    """The command-line flags that give these run settings."""
    words = []
    for name, value in settings.items():
        flag = "--" + name.replace("_", "-")
        words.append(f"no {flag}" if value is None else f"{flag} {value}")
    return " ".join(words)


def earlier_run(args: argparse.Namespace, ckpt_path: Path, device) -> dict | None:
    """The checkpoint to resume from, or None for a fresh run. Refuses (exits with a message)
    to resume a run with other settings, or to overwrite one unless --overwrite says so."""
    if not ckpt_path.exists():
        if args.resume:
            raise SystemExit(f"--resume: no checkpoint at {ckpt_path}")
        return None
    if args.overwrite:
        print(f"--overwrite: replacing the run in {ckpt_path.parent}")
        return None
    ckpt = torch.load(ckpt_path, map_location=device)
    # The split, the batches and the learning-rate schedule (which spans all epochs) depend on
    # these settings: a resumed run must keep them, and a run with others must not replace it.
    changed = {k: v for k, v in ckpt["config"].items() if getattr(args, k) != v}
    if changed and args.resume:
        raise SystemExit(f"--resume: {ckpt_path} was written by a run with {describe(changed)}")
    if changed:
        raise SystemExit(
            f"{ckpt_path.parent} holds a run with {describe(changed)}: continue it with those "
            "settings and --resume, replace it with --overwrite, or choose another --out-dir"
        )
    if args.resume:
        return ckpt
    print(f"starting over: replacing the run with the same settings in {ckpt_path.parent}")
    return None


def main(argv=None) -> None:
    args = parse_args(argv)
    device = torch.device(args.device)
    out_dir = args.out_dir
    ckpt_path = out_dir / CHECKPOINT
    ckpt = earlier_run(args, ckpt_path, device)

    torch.manual_seed(args.seed)
    train_set, val_set = split(*load_digits(), seed=args.seed, subset=args.subset)
    shuffle_gen = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(
        train_set, batch_size=args.batch_size, shuffle=True, generator=shuffle_gen
    )
    val_loader = DataLoader(val_set, batch_size=256)
    sampler = None
    if args.ddp:
        train_loader, sampler = start_ddp(args, train_set)

    model = make_model().to(device)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader)
    )
    history = {"train_loss": [], "train_acc": [], "val_loss": [], "val_acc": []}
    start_epoch = 0
    # bfloat16 has float32's range, so only CUDA's float16 autocast needs loss scaling
    scaler = torch.amp.GradScaler("cuda") if args.amp and device.type == "cuda" else None

    config = {k: getattr(args, k) for k in RUN_SETTINGS}
    if ckpt is not None:
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        shuffle_gen.set_state(ckpt["shuffle_rng"])
        torch.set_rng_state(ckpt["rng"])
        if scaler is not None:
            scaler.load_state_dict(ckpt["scaler"])
        history = ckpt["history"]
        start_epoch = ckpt["epoch"]
        print(f"resumed from {ckpt_path} after epoch {start_epoch}")

    if args.ddp:  # after loading a checkpoint: rank 0's weights are broadcast to every rank
        model = nn.parallel.DistributedDataParallel(model)
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"digits: {len(train_set)} train / {len(val_set)} validation images, "
        f"model with {n_params:,} parameters, device {device}"
    )
    started = time.perf_counter()
    stop = args.epochs if args.stop_after is None else min(args.epochs, args.stop_after)
    for epoch in range(start_epoch, stop):
        desc = f"epoch {epoch + 1}/{args.epochs}"
        if sampler is not None:
            sampler.set_epoch(epoch)
        train_loss, train_acc = train_one_epoch(
            model, train_loader, loss_fn, optimizer, scheduler, device, desc, args.amp, scaler
        )
        val_loss, val_acc = evaluate(model, val_loader, loss_fn, device, args.amp)
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
                "model": unwrap(model).state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "shuffle_rng": shuffle_gen.get_state(),
                "rng": torch.get_rng_state(),
                "history": history,
                **({"scaler": scaler.state_dict()} if scaler is not None else {}),
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
    if args.ddp:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
