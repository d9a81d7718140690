"""taimatsu.utils.data against PyTorch: batch order after manual_seed, samplers, random_split,
default_collate, datasets, DataLoader options and errors."""

import collections

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


def _batches(lib, n=23, epochs=2, gen_seed=None, **kw):
    """Two epochs of a loader over (arange, 2*arange) plus the next global random numbers."""
    lib.manual_seed(7)
    ds = lib.utils.data.TensorDataset(lib.arange(n), lib.arange(n, dtype=lib.float32) * 2)
    if gen_seed is not None:
        kw["generator"] = lib.Generator().manual_seed(gen_seed)
    dl = lib.utils.data.DataLoader(ds, **kw)
    out = [[[t.tolist() for t in b] for b in dl] for _ in range(epochs)]
    return out, len(dl), lib.rand(3).tolist()


LOADERS = [
    {"batch_size": 5, "shuffle": True},
    {"batch_size": 5, "shuffle": True, "drop_last": True},
    {"batch_size": 4, "shuffle": True, "gen_seed": 3},
    {"batch_size": 4},
    {"batch_size": 6, "drop_last": True},
    {"batch_size": None, "shuffle": True},
    {"batch_size": 1, "shuffle": True, "pin_memory": False},
    {"batch_size": 64, "shuffle": True},
]


@pytest.mark.parametrize("kw", LOADERS, ids=[str(k) for k in LOADERS])
def test_batch_order_matches_after_manual_seed(kw):
    assert _batches(tm, **dict(kw)) == _batches(torch, **dict(kw))


def test_batch_dtypes_and_shapes():
    ds = tm.utils.data.TensorDataset(tm.randn(10, 3), tm.arange(10))
    x, y = next(iter(tm.utils.data.DataLoader(ds, batch_size=4)))
    assert x.shape == (4, 3) and x.dtype is tm.float32
    assert y.shape == (4,) and y.dtype is tm.int64


@pytest.mark.parametrize(
    "make", ["random", "subset", "weighted", "weighted_noreplace", "replacement", "num_samples"]
)
def test_random_samplers_match(make):
    def sample(lib):
        lib.manual_seed(11)
        D = lib.utils.data
        g = lib.Generator().manual_seed(5)
        sampler = {
            "random": lambda: D.RandomSampler(range(17)),
            "subset": lambda: D.SubsetRandomSampler([3, 9, 4, 12, 0, 7], generator=g),
            "weighted": lambda: D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0], 25),
            "weighted_noreplace": lambda: D.WeightedRandomSampler(
                [0.1, 0.9, 0.4, 0.7, 3.0], 4, replacement=False
            ),
            "replacement": lambda: D.RandomSampler(
                range(10), replacement=True, num_samples=70, generator=g
            ),
            "num_samples": lambda: D.RandomSampler(range(7), num_samples=19),
        }[make]()
        return list(sampler), list(sampler), len(sampler), lib.rand(2).tolist()

    assert sample(tm) == sample(torch)


def test_batch_sampler_and_sequential():
    for lib in (torch, tm):
        D = lib.utils.data
        assert list(D.BatchSampler(D.SequentialSampler(range(10)), 3, drop_last=False)) == [
            [0, 1, 2],
            [3, 4, 5],
            [6, 7, 8],
            [9],
        ]
        assert list(D.BatchSampler(range(10), 3, drop_last=True)) == [
            [0, 1, 2],
            [3, 4, 5],
            [6, 7, 8],
        ]
        assert len(D.BatchSampler(range(10), 3, drop_last=False)) == 4
        with pytest.raises(
            ValueError, match="batch_size should be a positive integer value, but got batch_size=0"
        ):
            D.BatchSampler(range(3), 0, False)


def test_custom_sampler_and_batch_sampler():
    data = [float(i) for i in range(10)]
    for lib in (torch, tm):
        D = lib.utils.data
        dl = D.DataLoader(data, batch_size=3, sampler=[9, 1, 4, 4, 0])
        assert [b.tolist() for b in dl] == [[9.0, 1.0, 4.0], [4.0, 0.0]]
        dl = D.DataLoader(data, batch_sampler=[[1, 2], [7], [3, 3, 3]])
        assert [b.tolist() for b in dl] == [[1.0, 2.0], [7.0], [3.0, 3.0, 3.0]]
        assert len(dl) == 3


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [0.34, 0.33, 0.33]])
def test_random_split_matches(lengths):
    def split(lib, seeded):
        lib.manual_seed(
            7
        )  # the global generator too: the rand(1) below must not hang on test order
        if seeded:
            g = lib.Generator().manual_seed(42)
            parts = lib.utils.data.random_split(
                range(10 if lengths == [3, 7] else 31), lengths, generator=g
            )
        else:
            lib.manual_seed(3)
            parts = lib.utils.data.random_split(range(10 if lengths == [3, 7] else 31), lengths)
        return [list(p.indices) for p in parts], [list(p) for p in parts], lib.rand(1).tolist()

    for seeded in (True, False):
        assert split(tm, seeded) == split(torch, seeded)


def test_random_split_errors():
    for lib in (torch, tm):
        with pytest.raises(
            ValueError, match="Sum of input lengths does not equal the length of the input dataset!"
        ):
            lib.utils.data.random_split(range(10), [3, 4])


Point = collections.namedtuple("Point", ["x", "y"])


def _collate_cases(lib):
    return [
        [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
        [1, 2, 3],
        [1.5, 2.5],
        [True, False],
        ["a", "b"],
        [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
        [np.float32(1.5), np.float32(2.5)],
        [np.float64(1.5), np.int64(2)],
        [{"a": 1, "b": lib.tensor([1])}, {"a": 2, "b": lib.tensor([2])}],
        [(1, 2.0, "x"), (3, 4.0, "y")],
        [[1, 2], [3, 4]],
        [Point(1, lib.tensor(1.0)), Point(2, lib.tensor(2.0))],
        [(np.zeros((2, 2)), {"k": [1.0, 2.0]}), (np.ones((2, 2)), {"k": [3.0, 4.0]})],
    ]


def _describe(value):
    if isinstance(value, (torch.Tensor, tm.Tensor)):
        return ("T", str(value.dtype).replace("torch.", ""), tuple(value.shape), value.tolist())
    if isinstance(value, dict):
        return ("dict", {k: _describe(v) for k, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, [_describe(v) for v in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_describe(v) for v in value])
    return (type(value).__name__, value)


@pytest.mark.parametrize("i", range(13))
def test_default_collate_matches(i):
    got = tm.utils.data.default_collate(_collate_cases(tm)[i])
    expected = torch.utils.data.default_collate(_collate_cases(torch)[i])
    assert _describe(got) == _describe(expected)


def test_default_collate_errors():
    for lib in (torch, tm):
        collate = lib.utils.data.default_collate
        with pytest.raises(
            RuntimeError, match="each element in list of batch should be of equal size"
        ):
            collate([[1, 2], [3]])
        with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
            collate([object(), object()])
        with pytest.raises(
            TypeError, match="default_collate: batch must contain tensors, numpy arrays"
        ):
            collate([np.array(["a"]), np.array(["b"])])


def test_default_convert_matches():
    for sample in ([np.arange(3), 1.5], {"a": np.float32(2.0), "b": "s"}, (np.ones(2), 3)):
        got = tm.utils.data.default_convert(sample)
        expected = torch.utils.data.default_convert(sample)
        assert _describe(got) == _describe(expected)


def test_datasets():
    for lib in (torch, tm):
        D = lib.utils.data
        a = D.TensorDataset(lib.arange(4), lib.arange(4) * 10)
        b = D.TensorDataset(lib.arange(3) + 100, lib.arange(3))
        c = a + b
        assert isinstance(c, D.ConcatDataset) and len(c) == 7 and c.cumulative_sizes == [4, 7]
        assert [int(c[i][0]) for i in (0, 3, 4, -1)] == [0, 3, 100, 102]
        with pytest.raises(
            ValueError, match="absolute value of index should not exceed dataset length"
        ):
            c[-8]
        s = D.Subset(c, [6, 0, 5])
        assert len(s) == 3 and [int(x[0]) for x in s] == [102, 0, 101]
        st = D.StackDataset(a, b=None) if False else D.StackDataset(x=a, y=list(range(4)))
        assert st[2]["y"] == 2 and len(st) == 4
        with pytest.raises(AssertionError, match="Size mismatch between tensors"):
            D.TensorDataset(lib.arange(3), lib.arange(4))


class _Stream:
    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def make(self):
        lib, n = self.lib, self.n

        class Stream(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(lib.tensor([float(i)]) for i in range(n))

            def __len__(self):
                return n

        return Stream()


@pytest.mark.parametrize(
    "kw", [{"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}]
)
def test_iterable_dataset(kw):
    def run(lib):
        dl = lib.utils.data.DataLoader(_Stream(lib, 8).make(), **kw)
        return [b.tolist() for b in dl], len(dl)

    assert run(tm) == run(torch)


def test_chain_dataset():
    for lib in (torch, tm):
        s = _Stream(lib, 2).make() + _Stream(lib, 3).make()
        assert isinstance(s, lib.utils.data.ChainDataset)
        assert [x.item() for x in s] == [0.0, 1.0, 0.0, 1.0, 2.0] and len(s) == 5


def test_loader_option_errors():
    for lib in (torch, tm):
        D = lib.utils.data
        ds = list(range(5))
        with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
            D.DataLoader(ds, sampler=[0], shuffle=True)
        with pytest.raises(
            ValueError, match="batch_sampler option is mutually exclusive with batch_size"
        ):
            D.DataLoader(ds, batch_sampler=[[0]], batch_size=2)
        with pytest.raises(ValueError, match="batch_size=None option disables auto-batching"):
            D.DataLoader(ds, batch_size=None, drop_last=True)
        with pytest.raises(
            ValueError, match="expected unspecified shuffle option, but got shuffle=True"
        ):
            D.DataLoader(_Stream(lib, 2).make(), shuffle=True)
        with pytest.raises(ValueError, match="num_workers option should be non-negative"):
            D.DataLoader(ds, num_workers=-1)
        dl = D.DataLoader(ds)
        with pytest.raises(
            ValueError,
            match="batch_size attribute should not be set after DataLoader is initialized",
        ):
            dl.batch_size = 3


def test_collate_fn_and_getitems():
    class Batched(tm.utils.data.Dataset):
        def __init__(self):
            self.calls = []

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [i * 2 for i in indices]

        def __len__(self):
            return 6

    ds = Batched()
    dl = tm.utils.data.DataLoader(ds, batch_size=4, collate_fn=lambda batch: sum(batch))
    assert list(dl) == [12, 18]
    assert ds.calls == [[0, 1, 2, 3], [4, 5]]


def test_num_workers_accepted():
    ds = tm.utils.data.TensorDataset(tm.arange(10))
    dl = tm.utils.data.DataLoader(ds, batch_size=4, num_workers=2)
    assert [b[0].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert tm.utils.data.get_worker_info() is None


def test_iterable_dataset_is_abstract():
    """PyTorch's IterableDataset is an abstract Iterable: it cannot be instantiated, and a
    subclass defining __iter__ is an Iterable."""
    for D in (tm.utils.data, torch.utils.data):
        with pytest.raises(TypeError, match="abstract method __iter__"):
            D.IterableDataset()

        class Stream(D.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        assert isinstance(Stream(), collections.abc.Iterable)
        assert [b.tolist() for b in D.DataLoader(Stream(), batch_size=2)] == [[0, 1], [2]]
