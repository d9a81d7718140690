"""``DataLoader``: batches from a dataset, in PyTorch's order.

With ``num_workers=0`` loading happens in the calling process; with ``num_workers > 0`` in worker
processes (see ``_multiprocessing_iter.py`` and ``_utils/worker.py``). The batches and their
order are PyTorch's, since they depend only on the sampler. Like PyTorch, each new iterator
first draws a base seed from ``generator`` (or the global generator) and a shuffling sampler then
draws its own seed, so the global random stream advances exactly as PyTorch's does. With
``pin_memory`` and CUDA the batches come in page-locked memory; without CUDA it warns, as PyTorch.
"""

from __future__ import annotations

import math
import multiprocessing as python_multiprocessing
import os
import warnings

from ... import _dtype as D
from ... import cuda as _cuda
from ...ops.creation.factories import empty
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import create_fetcher
from ._utils.worker import get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


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
        self.multiprocessing_context = multiprocessing_context  # validated by the property below
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
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context) -> None:
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading (num_workers > 0), but got "
                    f"num_workers={self.num_workers}"
                )
            if isinstance(multiprocessing_context, str):
                valid_start_methods = python_multiprocessing.get_all_start_methods()
                if multiprocessing_context not in valid_start_methods:
                    raise ValueError(
                        f"multiprocessing_context option should specify a valid start method in "
                        f"{valid_start_methods!r}, but got multiprocessing_context={multiprocessing_context!r}"
                    )
                multiprocessing_context = python_multiprocessing.get_context(
                    multiprocessing_context
                )
            if not isinstance(multiprocessing_context, python_multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a string specifying the "
                    f"start method, but got multiprocessing_context={multiprocessing_context}"
                )
        self.__multiprocessing_context = multiprocessing_context

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

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        from ._multiprocessing_iter import _MultiProcessingDataLoaderIter

        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        # Persistent workers: one iterator, reset at each epoch instead of restarting its workers.
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

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

    def check_worker_number_rationality(self) -> None:
        """Warn (as PyTorch does) when more workers are requested than this process has CPUs."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        suggest = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            suggestion = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            suggestion = (
                f"Our suggested max number of worker in current system is {suggest}"
                f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}, which is smaller than what "
                "this DataLoader is going to create."
            )
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. {suggestion} Please be "
            "aware that excessive worker creation might get DataLoader running slow or even freeze, lower the "
            "worker number to avoid potential slowness/freeze if necessary.",
            stacklevel=2,
        )


class _BaseDataLoaderIter:
    """State shared by both iterators: sampler, base seed, yielded count and length warning."""

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as the device,"
                f"ignore pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=3,
            )
        if loader.pin_memory and not _cuda.is_available():
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't "
                "be used.",
                stacklevel=3,
            )
        self._pin_memory = loader.pin_memory and _cuda.is_available()
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # Drawn even without workers (PyTorch does): keeps the global random stream in step.
        self._base_seed = empty((), dtype=D.int64).random_(generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        if self._pin_memory:
            from ._utils.pin_memory import pin_memory

            data = pin_memory(data)
        self._num_yielded += 1
        if (
            self._dataset_kind == "iterable"
            and self._IterableDataset_len_called is not None
            and self._num_yielded > self._IterableDataset_len_called
        ):
            message = (
                f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called}"
                f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. "
            )
            if self._num_workers > 0:
                message += (
                    "For multiprocessing data-loading, this could be caused by not properly configuring the "
                    "IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples."
                )
            warnings.warn(message, stacklevel=2)
        return data


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Loads in the calling process (``num_workers=0``)."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._dataset_fetcher = create_fetcher(
            self._dataset_kind,
            self._dataset,
            self._auto_collation,
            self._collate_fn,
            self._drop_last,
        )

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        return self._dataset_fetcher.fetch(index)  # may raise StopIteration
