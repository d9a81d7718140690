"""The two-thread split of large elementwise loops (backend/parallel.py): the same bits as one loop,
off with torch.set_num_threads(1), and safe in a forked DataLoader worker."""

import numpy as np
import pytest

import taimatsu
from taimatsu.backend import parallel


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_split_gives_the_same_bits(dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(parallel.MIN_SIZE + 3).astype(dtype) for _ in range(2))
    for uf in (np.add, np.subtract, np.multiply):
        r = parallel.split2(uf, a, b)
        assert r is not None
        assert np.array_equal(r, uf(a, b))
    x, y = taimatsu.from_numpy(a), taimatsu.from_numpy(b)
    assert np.array_equal((x * y + x - y).numpy(), a * b + a - b)


def test_small_broadcast_or_mixed_arrays_are_not_split():
    a = np.ones(parallel.MIN_SIZE, np.float32)
    assert parallel.split2(np.add, a[:10], a[:10]) is None
    assert parallel.split2(np.add, a, np.ones(1, np.float32)) is None
    assert parallel.split2(np.add, a, a.astype(np.float64)) is None
    assert parallel.split2(np.add, a.reshape(2, -1).T, a.reshape(2, -1).T) is None
    assert parallel.split2(np.add, a.astype(np.int64), a.astype(np.int64)) is None


def test_one_thread_turns_it_off():
    a = np.ones(parallel.MIN_SIZE, np.float32)
    n = taimatsu.get_num_threads()
    try:
        taimatsu.set_num_threads(1)
        assert parallel.split2(np.add, a, a) is None
    finally:
        taimatsu.set_num_threads(n)


class _Big(taimatsu.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        x = taimatsu.ones(parallel.MIN_SIZE)
        return (x * x + x).sum()


def test_works_in_forked_dataloader_workers():
    a = np.ones(parallel.MIN_SIZE, np.float32)
    parallel.split2(np.add, a, a)  # the parent has a pool before the fork
    loader = taimatsu.utils.data.DataLoader(_Big(), batch_size=1, num_workers=2, timeout=60)
    assert [float(v) for v in loader] == [2.0 * parallel.MIN_SIZE] * 2
