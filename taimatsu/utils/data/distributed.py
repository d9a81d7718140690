"""``torch.utils.data.DistributedSampler``: the slice of a dataset one replica visits.

Each of ``num_replicas`` processes gets every ``num_replicas``-th index starting at its
``rank``, from one order shared by all of them: ``randperm(len(dataset))`` drawn from a
generator seeded ``seed + epoch`` (taimatsu's CPU generator is bit-exact with PyTorch's, so the
orders are PyTorch's), or ``0 .. len - 1`` unshuffled. The order is padded by repeating its
head (or, with ``drop_last``, cut) so every replica gets ``len(self)`` indices.

``num_replicas`` and ``rank`` default to the default process group's world size and rank
(``torch.distributed``); without one, PyTorch's "Default process group has not been
initialized" ValueError.
"""

from __future__ import annotations

import math

from ...ops.creation import random as _random
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Restrict sampling to the ``rank``-th of ``num_replicas`` equal slices of ``dataset``."""

    def __init__(
        self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
        seed: int = 0, drop_last: bool = False,
    ) -> None:  # fmt: skip
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
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
