"""DDP on n ranks vs one process on the whole batch, in several configurations.

Every rank starts from a different random model (DDP must broadcast rank 0's), trains a few
SGD steps on its shard of a global batch, and records its parameters and gradients; rank 0
also trains a plain copy of the initial model on the whole batch (the reference).
"""

from rank_io import session

torch, dist, rec, rank, n = session.torch, session.dist, session.rec, session.rank, session.n
nn = torch.nn
DDP = torch.nn.parallel.DistributedDataParallel
from_hooks = __import__(
    f"{torch.__name__}.distributed.algorithms.ddp_comm_hooks.default_hooks", fromlist=["x"]
)

GLOBAL_BATCH = 6 * n


class Net(nn.Module):
    def __init__(self, unused: bool = False) -> None:
        super().__init__()
        self.fc1 = nn.Linear(5, 16)
        self.fc2 = nn.Linear(16, 3)
        self.extra = nn.Linear(16, 3) if unused else None
        self.register_buffer("scale", torch.full((3,), float(rank + 1)))

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x))) * self.scale


def data(step):
    g = torch.Generator().manual_seed(100 + step)
    x = torch.randn(GLOBAL_BATCH, 5, generator=g)
    y = torch.randn(GLOBAL_BATCH, 3, generator=g)
    return x, y


def shard(t):
    per = t.shape[0] // n
    return t[rank * per : (rank + 1) * per]


def train(name, steps=3, accumulate=1, hook=None, **ddp_kwargs):
    torch.manual_seed(rank)  # different on every rank: DDP must broadcast rank 0's weights
    model = Net(unused=ddp_kwargs.get("find_unused_parameters", False))
    ddp = DDP(model, **ddp_kwargs)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    ref = Net(unused=ddp_kwargs.get("find_unused_parameters", False))
    ref.load_state_dict(model.state_dict())
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(steps):
        opt.zero_grad()
        ref_opt.zero_grad()
        for micro in range(accumulate):
            x, y = data(step * accumulate + micro)
            sync = micro == accumulate - 1
            ctx = ddp.no_sync() if not sync else _null()
            with ctx:
                loss = ((ddp(shard(x)) - shard(y)) ** 2).mean() / accumulate
                loss.backward()
            ((ref(x) - y) ** 2).mean().div(accumulate).backward()
        rec[f"{name} step{step} grads"] = [p.grad for p in ddp.module.parameters()]
        if rank == 0:
            rec[f"{name} step{step} ref grads"] = [p.grad for p in ref.parameters()]
        opt.step()
        ref_opt.step()
    rec[f"{name} params"] = list(ddp.module.parameters())
    rec[f"{name} buffer"] = ddp.module.scale
    if rank == 0:
        rec[f"{name} ref params"] = list(ref.parameters())
    rec[f"{name} state_dict keys"] = list(ddp.state_dict().keys())


class MixedNet(nn.Module):
    """float32 and float64 layers (two bucket dtypes) and a BatchNorm whose running stats
    are broadcast from rank 0 before every forward."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(5, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 3).double()

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))).double())


def train_mixed():
    torch.manual_seed(rank)
    ddp = DDP(MixedNet(), bucket_cap_mb=0.0001)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for step in range(3):
        x, y = data(step)
        opt.zero_grad()
        ((ddp(shard(x)) - shard(y).double()) ** 2).mean().backward()
        opt.step()
    rec["mixed params"] = list(ddp.module.parameters())
    rec["mixed buffers"] = [ddp.module.bn.running_mean, ddp.module.bn.running_var]


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


configs = session.args
if "default" in configs:
    train("default")
if "buckets" in configs:
    train("buckets", bucket_cap_mb=0.0002)  # several buckets of a few hundred bytes
if "view" in configs:
    train("view", gradient_as_bucket_view=True, bucket_cap_mb=0.0002)
if "unused" in configs:
    train("unused", find_unused_parameters=True)
if "no_sync" in configs:
    train("no_sync", accumulate=2)
if "allreduce_hook" in configs:
    train("allreduce_hook", hook=from_hooks.allreduce_hook)
if "fp16_hook" in configs:
    train("fp16_hook", hook=from_hooks.fp16_compress_hook)
if "mixed" in configs:
    train_mixed()
if "error_unused" in configs:
    torch.manual_seed(0)
    ddp = DDP(Net(unused=True))
    ((ddp(torch.ones(2, 5))) ** 2).sum().backward()
    try:
        ddp(torch.ones(2, 5))
    except RuntimeError as e:
        rec["error_unused"] = e
if "sampler" in configs:
    sampler = torch.utils.data.DistributedSampler(list(range(11)), seed=3)
    sampler.set_epoch(2)
    loader = torch.utils.data.DataLoader(list(range(11)), batch_size=2, sampler=sampler)
    rec["sampler"] = [
        sampler.num_replicas,
        sampler.rank,
        list(sampler),
        [b.tolist() for b in loader],
    ]
