"""torch.utils.data.DistributedSampler against PyTorch: per-rank index orders, lengths, errors."""

import itertools

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.oracle

# (dataset length, num_replicas)
SIZES = [(10, 3), (12, 4), (7, 2), (2, 5), (1, 3), (0, 2), (17, 1), (23, 6)]


def _orders(lib, n, replicas, shuffle, drop_last, epoch, seed):
    out = []
    for rank in range(replicas):
        s = lib.utils.data.DistributedSampler(
            list(range(n)),
            num_replicas=replicas,
            rank=rank,
            shuffle=shuffle,
            seed=seed,
            drop_last=drop_last,
        )
        if epoch is not None:
            s.set_epoch(epoch)
        out.append((list(s), len(s), s.num_samples, s.total_size, s.epoch))
    return out


@pytest.mark.parametrize("n,replicas", SIZES)
@pytest.mark.parametrize(
    "shuffle,drop_last,epoch,seed",
    [
        (True, False, None, 0),
        (True, True, 3, 0),
        (False, False, 2, 0),
        (False, True, None, 0),
        (True, False, 5, 41),
    ],
)
def test_rank_orders_match_torch(n, replicas, shuffle, drop_last, epoch, seed):
    want = _orders(torch, n, replicas, shuffle, drop_last, epoch, seed)
    got = _orders(tm, n, replicas, shuffle, drop_last, epoch, seed)
    assert got == want


def test_epochs_change_the_shuffle_and_ranks_partition_the_data():
    samplers = [tm.utils.data.DistributedSampler(range(12), 3, r) for r in range(3)]
    first = [list(s) for s in samplers]
    assert sorted(itertools.chain(*first)) == list(range(12))
    for s in samplers:
        s.set_epoch(1)
    second = [list(s) for s in samplers]
    assert second != first and sorted(itertools.chain(*second)) == list(range(12))
    # the same epoch gives the same order again
    assert [list(s) for s in samplers] == second


def test_with_dataloader_matches_torch():
    def batches(lib):
        ds = lib.utils.data.TensorDataset(lib.arange(11))
        s = lib.utils.data.DistributedSampler(ds, num_replicas=2, rank=1, seed=7)
        s.set_epoch(4)
        return [b[0].tolist() for b in lib.utils.data.DataLoader(ds, batch_size=2, sampler=s)]

    assert batches(tm) == batches(torch)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize(
    "kw",
    [{}, {"num_replicas": 2}, {"rank": 0}, {"num_replicas": 2, "rank": 2}, {"num_replicas": 3, "rank": -1},
     {"num_replicas": 0, "rank": 0}],
)  # fmt: skip
def test_errors_match_torch(kw):
    want = _error(lambda: torch.utils.data.DistributedSampler(range(5), **kw))
    got = _error(lambda: tm.utils.data.DistributedSampler(range(5), **kw))
    assert got == want


def test_is_a_sampler_in_its_module():
    s = tm.utils.data.DistributedSampler(range(3), 1, 0)
    assert isinstance(s, tm.utils.data.Sampler)
    assert type(s).__module__ == "taimatsu.utils.data.distributed"
    assert tm.utils.data.distributed.DistributedSampler is tm.utils.data.DistributedSampler
