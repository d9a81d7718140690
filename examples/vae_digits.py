"""A variational autoencoder (VAE) on the 8x8 handwritten digits.

    python examples/vae_digits.py                  # 50 epochs, prints the -ELBO every 10
    python examples/vae_digits.py --plot           # and draws data, reconstructions, samples
    python examples/vae_digits.py --epochs 20 --plot vae.png

The encoder maps an image to the mean and log-variance of a Gaussian over a small latent code;
the reparameterisation trick (z = mu + sigma * eps, eps ~ N(0, 1)) keeps sampling differentiable;
the decoder maps z back to pixel logits. The loss is the negative ELBO: reconstruction
(binary cross-entropy on pixels scaled to [0, 1]) plus the KL divergence from N(0, 1).
The data file and its licence are described in data/README.md.
"""

import argparse
import gzip
import os
from pathlib import Path

import numpy as np

import taimatsu as torch
import taimatsu.nn.functional as F
from taimatsu import nn
from taimatsu.utils.data import DataLoader, TensorDataset

DATA = Path(__file__).resolve().parents[1] / "data" / "digits.csv.gz"
PLOT = "runs/vae_digits.png"


class VAE(nn.Module):
    def __init__(self, pixels: int = 64, hidden: int = 128, latent: int = 8) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(pixels, hidden), nn.ReLU())
        self.to_mu = nn.Linear(hidden, latent)
        self.to_logvar = nn.Linear(hidden, latent)
        self.decoder = nn.Sequential(
            nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, pixels)
        )

    def forward(self, x):
        h = self.encoder(x)
        mu, logvar = self.to_mu(h), self.to_logvar(h)
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)  # reparameterisation
        return self.decoder(z), mu, logvar


def negative_elbo(logits, x, mu, logvar):
    """Per-image negative ELBO, summed over pixels and latent dimensions."""
    reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="sum")
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (reconstruction + kl) / len(x), kl / len(x)


def positive_int(text: str) -> int:
    if int(text) < 1:  # argparse reports a ValueError from int() as an invalid value
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return int(text)


def seed_int(text: str) -> int:
    if not -(2**63) <= int(text) < 2**64:  # what torch.manual_seed accepts
        raise argparse.ArgumentTypeError(f"must be in [-2**63, 2**64), got {text}")
    return int(text)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="VAE on the UCI handwritten digits")
    p.add_argument(
        "--epochs",
        type=positive_int,
        default=50,
        help="passes over the data (default: %(default)s)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="random seed (default: %(default)s)")
    p.add_argument(
        "--plot",
        nargs="?",
        const=PLOT,
        default=None,
        metavar="PNG",
        help=f"draw data, reconstructions and samples into PNG, {PLOT} if no path is given "
        "(default: no plot)",
    )
    p.add_argument(
        "--device", default="cpu", choices=["cpu", "cuda"], help="train on (default: %(default)s)"
    )
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("argument --device: cuda: no CUDA device is available")
    if args.plot is not None:
        # Check before training, not when the plot is saved minutes later.
        folder = Path(args.plot).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            p.error(f"argument --plot: cannot write to {folder}: {e.strerror}")
        if not os.access(folder, os.W_OK):
            p.error(f"argument --plot: cannot write to {folder}: permission denied")
    return args


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)

    with gzip.open(DATA, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    images = torch.from_numpy(table[:, :64] / 16.0)  # (1797, 64) in [0, 1]
    loader = DataLoader(TensorDataset(images), batch_size=64, shuffle=True)

    model = VAE().to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(1, args.epochs + 1):
        total, total_kl = 0.0, 0.0
        for (x,) in loader:
            x = x.to(args.device)
            logits, mu, logvar = model(x)
            loss, kl = negative_elbo(logits, x, mu, logvar)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
            total_kl += kl.item() * len(x)
        if epoch == 1 or epoch % 10 == 0:
            n = len(images)
            print(f"epoch {epoch:3d}: -ELBO {total / n:.1f} nats/image (KL {total_kl / n:.1f})")

    # Generate: decode codes drawn from the prior.
    model.eval()
    with torch.no_grad():
        samples = torch.sigmoid(model.decoder(torch.randn(8, 8).to(args.device))).cpu()
        recon = torch.sigmoid(model(images[:8].to(args.device))[0]).cpu()
    print(
        "generated images:", tuple(samples.shape), "all pixels in [0, 1]:", bool(samples.min() >= 0)
    )
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = {"data": images[:8], "reconstruction": recon, "sample from prior": samples}
        fig, axes = plt.subplots(3, 8, figsize=(8, 3.4))
        for r, (title, batch) in enumerate(rows.items()):
            axes[r, 0].set_title(title, loc="left", fontsize=9)
            for c in range(8):
                axes[r, c].imshow(batch[c].reshape(8, 8).numpy(), cmap="gray_r", vmin=0, vmax=1)
                axes[r, c].axis("off")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
