"""PyTorch's DDP tutorial ("Getting Started with Distributed Data Parallel") as written there:
``mp.spawn`` starts the ranks, ``setup`` sets MASTER_ADDR/MASTER_PORT and calls
``init_process_group("gloo", rank=rank, world_size=world_size)``; ``demo_basic`` trains a
ToyModel, ``demo_checkpoint`` saves it on rank 0 and loads it on every rank with
``map_location``. ``ddp_tutorial.py OUT PORT``: each rank appends what it computes to
``OUT/rank<r>.txt`` (one ``name value...`` line each)."""

import os
import sys

from rank_io import library

torch = library()
dist = torch.distributed
mp = torch.multiprocessing
nn = torch.nn
DDP = torch.nn.parallel.DistributedDataParallel


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = sys.argv[2]
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def log(rank, name, *values):
    with open(os.path.join(sys.argv[1], f"rank{rank}.txt"), "a") as f:
        print(name, *values, file=f)


def train(rank, ddp_model, steps, tag):
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.001)
    for step in range(steps):
        optimizer.zero_grad()
        g = torch.Generator().manual_seed(100 * rank + step)
        outputs = ddp_model(torch.randn(20, 10, generator=g))
        labels = torch.randn(20, 5, generator=g)
        loss = loss_fn(outputs, labels)
        loss.backward()
        optimizer.step()
        log(rank, f"{tag} loss{step}", loss.item())
    log(rank, f"{tag} params", *(p.sum().item() for p in ddp_model.parameters()))


def demo_basic(rank, world_size):
    setup(rank, world_size)
    torch.manual_seed(rank)  # different weights on each rank: DDP broadcasts rank 0's
    ddp_model = DDP(ToyModel())
    train(rank, ddp_model, 3, "basic")
    log(rank, "basic rank world", dist.get_rank(), dist.get_world_size(), dist.is_initialized())
    cleanup()
    log(rank, "basic initialized after cleanup", dist.is_initialized())


def demo_checkpoint(rank, world_size):
    setup(rank, world_size)
    torch.manual_seed(rank)
    model = ToyModel()
    ddp_model = DDP(model)
    checkpoint_path = os.path.join(sys.argv[1], "model.checkpoint")
    if rank == 0:
        # All processes should see same parameters as they all start from same random
        # parameters and gradients are synchronized in backward passes. Therefore, saving
        # it in one process is sufficient.
        torch.save(ddp_model.state_dict(), checkpoint_path)
    # Use a barrier() to make sure that process 1 loads the model after process 0 saves it.
    dist.barrier()
    map_location = {"cuda:%d" % 0: "cuda:%d" % rank}  # noqa: UP031  (the tutorial's line)
    ddp_model.load_state_dict(torch.load(checkpoint_path, map_location=map_location, weights_only=True))  # fmt: skip
    log(rank, "checkpoint keys", *ddp_model.state_dict().keys())
    train(rank, ddp_model, 2, "checkpoint")
    # Not necessary to use a dist.barrier() to guard the file deletion below as the
    # AllReduce ops in the backward pass of DDP already served as a synchronization.
    if rank == 0:
        os.remove(checkpoint_path)
    cleanup()


def run_demo(demo_fn, world_size):
    mp.spawn(demo_fn, args=(world_size,), nprocs=world_size, join=True)


if __name__ == "__main__":
    run_demo(demo_basic, 2)
    run_demo(demo_checkpoint, 2)
