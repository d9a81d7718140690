"""``torch.utils.data.DistributedSampler``: the slice of a dataset one replica visits.

Each of ``num_replicas`` processes gets every ``num_replicas``-th index starting at its
``rank``, from one order shared by all of them: ``randperm(len(dataset))`` drawn from a
generator seeded ``seed + epoch`` (taimatsu's CPU generator is bit-exact with PyTorch's, so the
orders are PyTorch's), or ``0 .. len - 1`` unshuffled. The order is padded by repeating its
head (or, with ``drop_last``, cut) so every replica gets ``len(self)`` indices.

taimatsu has no process groups: ``num_replicas`` and ``rank`` must be given, and when either
is missing the constructor raises the error PyTorch raises when no default process group has
been initialized.
"""

from __future__ import annotations

import math

from ...ops.creation import random as _random
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_NO_PROCESS_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class DistributedSampler(Sampler):
    """Restrict sampling to the ``rank``-th of ``num_replicas`` equal slices of ``dataset``."""

    def __init__(
        self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
        seed: int = 0, drop_last: bool = False,
    ) -> None:  # fmt: skip
        if num_replicas is None or rank is None:
            raise ValueError(_NO_PROCESS_GROUP)
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = _random.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = _random.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            pad = self.total_size - len(indices)
            # A dataset shorter than the padding is repeated whole as often as needed.
            indices += (
                (indices * math.ceil(pad / len(indices)))[:pad]
                if pad > len(indices)
                else indices[:pad]
            )
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Seed the next shuffle with ``seed + epoch`` (call it before each epoch's iterator)."""
        self.epoch = epoch
