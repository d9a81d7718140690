"""One GAN, and why the discriminator step uses `fake.detach()`.

    python examples/gan_detach.py

A generator G maps noise to samples; a discriminator D scores samples as real or fake.
Each iteration has two steps that share one batch of fakes:

1. D step: D should say "real" to real data and "fake" to G's output. Only D is updated, so
   the fakes go in as `fake.detach()`: the backward pass stops at the fakes instead of running
   through G (wasted work that also leaves stale gradients in G's .grad).
2. G step: G wants D to say "real" to its fakes. Now the gradient must go through D into G,
   so the fakes are used *without* detach.

The data is one-dimensional (a Gaussian with mean 4 and std 1.25), small enough to train in
a second; the script prints how the fakes' mean and std approach the real ones.
"""

import taimatsu as torch
from taimatsu import nn

torch.manual_seed(0)
REAL_MEAN, REAL_STD, NOISE, BATCH = 4.0, 1.25, 8, 64

G = nn.Sequential(nn.Linear(NOISE, 32), nn.ReLU(), nn.Linear(32, 1))
D = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 1))  # returns a logit
loss_fn = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
ones, zeros = torch.ones(BATCH, 1), torch.zeros(BATCH, 1)


def sample_real():
    return torch.randn(BATCH, 1) * REAL_STD + REAL_MEAN


# What goes wrong without detach: the D loss reaches G's parameters.
fake = G(torch.randn(BATCH, NOISE))
d_loss = loss_fn(D(sample_real()), ones) + loss_fn(D(fake), zeros)
d_loss.backward()
print("without detach, D's loss put gradients into G:", G[0].weight.grad is not None)
# ...and G's own step can no longer backpropagate through that graph, which is already freed:
try:
    loss_fn(D(fake), ones).backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(". Specify")[0])
G.zero_grad(set_to_none=True)
D.zero_grad(set_to_none=True)

# With detach, the D step touches D only.
fake = G(torch.randn(BATCH, NOISE))
d_loss = loss_fn(D(sample_real()), ones) + loss_fn(D(fake.detach()), zeros)
d_loss.backward()
print("with fake.detach(), G's gradients after the D step:", G[0].weight.grad)
D.zero_grad(set_to_none=True)

for step in range(1, 601):
    # 1. Discriminator: real -> 1, fake -> 0, fakes detached.
    fake = G(torch.randn(BATCH, NOISE))
    d_loss = loss_fn(D(sample_real()), ones) + loss_fn(D(fake.detach()), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    # 2. Generator: make D call the same fakes real; gradients flow through D into G.
    g_loss = loss_fn(D(fake), ones)
    opt_g.zero_grad()  # D's parameters also got gradients here; opt_d.zero_grad() clears them
    g_loss.backward()
    opt_g.step()
    if step % 200 == 0:
        with torch.no_grad():
            samples = G(torch.randn(1000, NOISE))
        print(
            f"step {step:4d}: D loss {d_loss.item():.2f}  G loss {g_loss.item():.2f}  "
            f"fakes mean {samples.mean().item():.1f} std {samples.std().item():.1f}"
        )
print(f"real data:  mean {REAL_MEAN:.2f} std {REAL_STD:.2f}")
