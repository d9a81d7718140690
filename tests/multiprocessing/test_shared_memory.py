"""Storage identity, share_memory_() and is_shared(), in one process, against PyTorch."""

import gc
import os

import numpy as np
import pytest

import taimatsu as tm


def _memfd_mappings() -> int:
    with open("/proc/self/maps") as fh:
        return sum("memfd:taimatsu" in line for line in fh)


def _memfd_descriptors() -> int:
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += "memfd:taimatsu" in os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass
    return n


def test_storage_identity_matches_torch(torch_oracle):
    for lib in (tm, torch_oracle):
        t = lib.arange(6.0)
        a, b = t.untyped_storage(), t[2:].untyped_storage()
        assert a is b and a == b and t.untyped_storage() is a
        assert {a: 1}[b] == 1  # hashable, as PyTorch's storages are
        assert a.data_ptr() == t.data_ptr() and a.nbytes() == 24
        assert t.view(lib.int32).untyped_storage() is a
        assert lib.arange(6.0).untyped_storage() is not a
        assert t.clone().untyped_storage() != a


def test_load_hands_map_location_the_public_storage(tmp_path):
    tm.save({"x": tm.arange(4.0)}, tmp_path / "c.pt")
    seen = []
    out = tm.load(tmp_path / "c.pt", map_location=lambda s, loc: seen.append(type(s)) or s)
    assert seen == [tm.UntypedStorage] and out["x"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_share_memory_matches_torch(torch_oracle):
    """A view moves into shared memory with its base (taimatsu: other views made earlier stay)."""
    got = []
    for lib in (tm, torch_oracle):
        t = lib.zeros(2, 3)
        v = t[1]
        before = (t.is_shared(), v.is_shared(), t.untyped_storage().is_shared())
        assert v.share_memory_() is v
        after = (t.is_shared(), v.is_shared(), t.untyped_storage().is_shared())
        v.add_(1)
        z = lib.zeros(0).share_memory_()
        got.append((before, after, t.tolist(), v.data_ptr() - t.data_ptr(), z.is_shared()))
    assert got[0] == got[1]


def test_storage_share_memory_and_new_shared(torch_oracle):
    for lib in (tm, torch_oracle):
        s = lib.UntypedStorage(8).fill_(0)
        s[3] = 7
        assert not s.is_shared() and s.share_memory_() is s and s.is_shared()
        assert s.tolist() == [0, 0, 0, 7, 0, 0, 0, 0]
        assert lib.UntypedStorage._new_shared(4).is_shared()


def test_module_share_memory_shares_parameters_and_grads():
    m = tm.nn.Linear(3, 2)
    m(tm.randn(4, 3)).sum().backward()
    ids = [id(p) for p in m.parameters()]
    values = [p.detach().clone() for p in m.parameters()]
    assert m.share_memory() is m
    for p, i, v in zip(m.parameters(), ids, values):
        assert id(p) == i and p.is_shared() and p.grad.is_shared()
        assert tm.equal(p.detach(), v) and p.requires_grad


def test_shared_memory_is_freed_with_its_last_tensor():
    gc.collect()
    maps, fds = _memfd_mappings(), _memfd_descriptors()
    t = tm.ones(1000).share_memory_()
    v = t[10:20]
    assert _memfd_mappings() == maps + 1 and _memfd_descriptors() == fds + 1
    del t
    gc.collect()
    assert _memfd_mappings() == maps + 1  # v still holds the memory
    assert v.sum().item() == 10.0
    del v
    gc.collect()
    assert (_memfd_mappings(), _memfd_descriptors()) == (maps, fds)


def test_shared_memory_leaves_nothing_in_dev_shm():
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm")
    before = set(os.listdir("/dev/shm"))
    t = tm.randn(100).share_memory_()
    assert not {n for n in set(os.listdir("/dev/shm")) - before if "taimatsu" in n}
    np.testing.assert_array_equal(t.numpy(), t.clone().numpy())
