"""DataLoader workers hand batches over through shared memory, as PyTorch's do: a worker collates
straight into shared memory, the main process maps it, and nothing is left behind afterwards."""

import gc

import numpy as np
import pytest
from test_shared_memory import _memfd_descriptors, _memfd_mappings

import taimatsu as tm

torch = pytest.importorskip("torch")

LIBS = pytest.mark.parametrize("lib", [tm, torch], ids=["taimatsu", "torch"])


class Samples:
    """Tensors, NumPy arrays, ints and strings: every kind default_collate turns into a batch."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 6

    def __getitem__(self, i):
        x = self.lib.arange(4, dtype=self.lib.float32) + i
        return x, np.full(2, i, np.int32), i, f"s{i}"


def _collate_and_report(batch):
    """default_collate, and whether its tensors were made in shared memory (in the worker)."""
    lib = tm if isinstance(batch[0][0], tm.Tensor) else torch
    out = lib.utils.data.default_collate(batch)
    return out, [t.is_shared() for t in out[:3]]


def _shared_flags(lib, **kw):
    dl = lib.utils.data.DataLoader(Samples(lib), batch_size=4, **kw)
    return [[t.is_shared() if hasattr(t, "is_shared") else t for t in batch] for batch in dl]


@pytest.mark.parametrize("num_workers", [0, 2])
def test_batches_arrive_in_shared_memory_as_in_torch(num_workers):
    assert _shared_flags(tm, num_workers=num_workers) == _shared_flags(
        torch, num_workers=num_workers
    )


@LIBS
def test_workers_collate_into_shared_memory(lib):
    dl = lib.utils.data.DataLoader(
        Samples(lib), batch_size=3, num_workers=1, collate_fn=_collate_and_report
    )
    batches = list(dl)
    assert [flags for _, flags in batches] == [[True, True, False]] * 2  # ints: torch.tensor
    assert [b[0].tolist() for b, _ in batches] == [
        [[i + j for j in range(4)] for i in range(k, k + 3)] for k in (0, 3)
    ]


class Mixed:
    """float32 and int64 samples, in the order given."""

    def __init__(self, lib, float_first):
        self.lib, self.float_first = lib, float_first

    def __len__(self):
        return 2

    def __getitem__(self, i):
        as_float = (i == 0) == self.float_first
        return self.lib.ones(2, dtype=self.lib.float32 if as_float else self.lib.int64)


@pytest.mark.parametrize("float_first", [True, False])
def test_mixed_dtypes_in_a_worker_as_in_torch(float_first):
    """In a worker the batch takes the first sample's dtype (PyTorch stacks into memory of that
    dtype): int64 then float32 is a cast error there, float32 then int64 a float32 batch."""
    got = []
    for lib in (tm, torch):
        dl = lib.utils.data.DataLoader(Mixed(lib, float_first), batch_size=2, num_workers=1)
        try:
            batch = next(iter(dl))
            got.append((str(batch.dtype), batch.tolist(), batch.is_shared()))
        except TypeError as e:
            got.append(str(e).strip().splitlines()[-1])
    assert got[0] == got[1]


def test_no_shared_memory_left_after_the_epoch():
    gc.collect()
    before = (_memfd_mappings(), _memfd_descriptors())
    dl = tm.utils.data.DataLoader(Samples(tm), batch_size=2, num_workers=2)
    total = sum(float(x.sum()) for x, *_ in dl)
    assert total == sum(4 * i + 6 for i in range(6))
    del dl
    gc.collect()
    assert (_memfd_mappings(), _memfd_descriptors()) == before
    assert not tm.multiprocessing.active_children()
