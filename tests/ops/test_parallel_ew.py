"""The two-thread split of large elementwise loops (backend/parallel.py): the same bits as one loop,
off with torch.set_num_threads(1), and safe in a forked DataLoader worker."""

import os

import numpy as np
import pytest

import taimatsu
from taimatsu.backend import parallel


def _machine(tmp_path, monkeypatch, others):
    """Make the load samples say other processes keep ``others`` cores busy."""
    from taimatsu.backend import threads

    monkeypatch.setattr(threads, "_other_cores", lambda now: float(others))
    monkeypatch.setitem(threads._busy, "t", -1.0)
    monkeypatch.setitem(threads._busy, "others", None)


@pytest.fixture
def idle(tmp_path, monkeypatch):
    _machine(tmp_path, monkeypatch, 0)


@pytest.fixture
def two_threads():
    n = taimatsu.get_num_threads()
    taimatsu.set_num_threads(2)
    yield
    taimatsu.set_num_threads(n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_split_gives_the_same_bits(dtype, idle, two_threads):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: nothing is split")
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


def test_busy_machine_turns_it_off(tmp_path, monkeypatch, two_threads):
    """With other processes' tasks on every core, nothing is split: the helper thread would
    wait for a core and contend with the calling thread for the GIL."""
    _machine(tmp_path, monkeypatch, 64)
    a = np.ones(parallel.MIN_SIZE, np.float32)
    assert parallel.split2(np.add, a, a) is None
    calls = []
    monkeypatch.setattr(parallel, "_pool", lambda: calls.append(1))
    x = np.linspace(-3, 3, parallel.MIN_SIZE_BLOCKWISE * 2, dtype=np.float32)
    r = parallel.blockwise(np.tanh, x, np.float32)
    assert calls == []
    assert np.array_equal(r, np.tanh(x.astype(np.float64)).astype(np.float32))
    parallel.halves(lambda lo, hi: None, 8, parallel.MIN_WORK * 4)
    assert calls == []


def test_the_helper_thread_does_not_split_again(idle, two_threads):
    """A split run on the helper thread (a kernel inside ``halves``) stays whole: the one helper
    is busy with it, so waiting for it would never end."""
    from concurrent.futures import ThreadPoolExecutor

    a = np.ones(parallel.MIN_SIZE, np.float32)
    with ThreadPoolExecutor(1) as ex:
        assert ex.submit(parallel.split2, np.add, a, a).result(timeout=30) is None


class _Big(taimatsu.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        x = taimatsu.ones(parallel.MIN_SIZE)
        return (x * x + x).sum()


def test_works_in_forked_dataloader_workers(idle, two_threads):
    a = np.ones(parallel.MIN_SIZE, np.float32)
    parallel.split2(np.add, a, a)  # the parent has a pool before the fork
    loader = taimatsu.utils.data.DataLoader(_Big(), batch_size=1, num_workers=2, timeout=60)
    assert [float(v) for v in loader] == [2.0 * parallel.MIN_SIZE] * 2
