"""``DataLoader``: batches from a dataset, in PyTorch's order.

Loading happens in the calling process. ``num_workers > 0`` is accepted and runs the same way
(with ``get_worker_info()`` returning None); the batches and their order are PyTorch's, since
they depend only on the sampler. Like PyTorch, each new iterator first draws a base seed from
``generator`` (or the global generator) and a shuffling sampler then draws its own seed, so the
global random stream advances exactly as PyTorch's does. ``pin_memory`` is accepted; on the
CPU it changes nothing.
"""

from __future__ import annotations

import math
import warnings

from ... import _dtype as D
from ... import cuda as _cuda
from ...ops.creation import empty
from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


def get_worker_info():
    """Information about the current loader worker: always None (loading is in-process)."""
    return


class _InfiniteConstantSampler(Sampler):
    """Yields None forever: the 'index' an iterable dataset's fetcher ignores."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over ``dataset`` in batches (``torch.utils.data.DataLoader``)."""

    __initialized = False

    def __init__(
        self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers: int = 0,
        collate_fn=None, pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
        worker_init_fn=None, multiprocessing_context=None, generator=None, *, prefetch_factor=None,
        persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True,
    ) -> None:  # fmt: skip
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                "multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(
                f"{attr} attribute should not be set after {self.__class__.__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _DataLoaderIter(self)

    def __len__(self) -> int:
        if self._dataset_kind == "iterable":
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = (
                    length // self.batch_size
                    if self.drop_last
                    else math.ceil(length / self.batch_size)
                )
            return length
        return len(self._index_sampler)


class _DataLoaderIter:
    """One pass over a DataLoader (PyTorch's single-process iterator)."""

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        if loader.pin_memory and not _cuda.is_available():
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't "
                "be used.",
                stacklevel=3,
            )
        self._sampler_iter = iter(self._index_sampler)
        # PyTorch draws the workers' base seed here even without workers: keep the stream in step.
        self._base_seed = empty((), dtype=D.int64).random_(generator=loader.generator).item()
        self._num_yielded = 0
        self._dataset_iter = iter(self._dataset) if self._dataset_kind == "iterable" else None
        self._ended = False

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __next__(self):
        index = next(self._sampler_iter)
        data = self._fetch(index)
        self._num_yielded += 1
        if (
            self._dataset_kind == "iterable"
            and self._IterableDataset_len_called is not None
            and self._num_yielded > self._IterableDataset_len_called
        ):
            warnings.warn(
                f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called}"
                f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ",
                stacklevel=2,
            )
        return data

    def _fetch(self, index):
        if self._dataset_kind == "iterable":
            return self._fetch_iterable(index)
        if self._auto_collation:
            getitems = getattr(self._dataset, "__getitems__", None)
            data = getitems(index) if getitems else [self._dataset[i] for i in index]
        else:
            data = self._dataset[index]
        return self._collate_fn(data)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if len(data) == 0 or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)
