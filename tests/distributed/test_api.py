"""torch.distributed's surface without a process group: errors, ReduceOp, Backend, groups."""

from __future__ import annotations

import pytest

import taimatsu as tm

dist = tm.distributed


@pytest.mark.parametrize(
    "call",
    [
        lambda d, t: d.get_rank(),
        lambda d, t: d.get_world_size(),
        lambda d, t: d.all_reduce(t.ones(1)),
        lambda d, t: d.broadcast(t.ones(1), src=0),
        lambda d, t: d.barrier(),
        lambda d, t: d.new_group([0]),
        lambda d, t: d.get_backend(),
    ],
)
def test_uninitialized_errors_match(call, torch_oracle):
    with pytest.raises(Exception) as theirs:
        call(torch_oracle.distributed, torch_oracle)
    with pytest.raises(type(theirs.value)) as ours:
        call(dist, tm)
    assert str(ours.value) == str(theirs.value)


def test_destroy_without_group_matches(torch_oracle):
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        torch_oracle.distributed.destroy_process_group()
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        dist.destroy_process_group()


def test_reduce_op_and_backend_match(torch_oracle):
    td = torch_oracle.distributed
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(td.ReduceOp, name)
        assert (repr(ours), str(ours), int(ours)) == (repr(theirs), str(theirs), int(theirs))
        assert ours == getattr(dist.ReduceOp.RedOpType, name)
    for name in ("gloo", "GLOO", "mpi", "Nccl"):
        assert dist.Backend(name) == td.Backend(name)
    assert (dist.Backend.GLOO, dist.Backend.MPI, dist.Backend.NCCL) == ("gloo", "mpi", "nccl")
    assert dist.group.WORLD is None and td.group.WORLD is None
    assert dist.GroupMember.NON_GROUP_MEMBER == -100
    assert dist.is_initialized() is td.is_initialized() is False


def test_env_rendezvous_without_rank_matches(torch_oracle, monkeypatch):
    for var in ("RANK", "WORLD_SIZE", "PMI_RANK", "PMI_SIZE"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError) as theirs:
        torch_oracle.distributed.init_process_group("gloo")
    with pytest.raises(ValueError) as ours:
        dist.init_process_group("gloo")
    assert str(ours.value) == str(theirs.value)
    assert not dist.is_initialized()


def test_import_does_not_start_mpi():
    import subprocess
    import sys

    code = "import sys, taimatsu; taimatsu.distributed; print('mpi4py' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.stdout.strip() == "False", out.stderr


def test_future_then_chain():
    fut = tm.futures.Future()
    doubled = fut.then(lambda f: f.value() * 2)
    assert not doubled.done()
    fut.set_result(21)
    assert doubled.wait() == 42
    with pytest.raises(RuntimeError, match="completed more than once"):
        fut.set_result(1)
    failing = tm.futures.Future()
    err = failing.then(lambda f: 1 / 0)
    failing.set_result(0)
    with pytest.raises(ZeroDivisionError):
        err.wait()


def test_unknown_backend_matches(torch_oracle):
    """PyTorch warns about the device capability, then asserts; nothing is initialised."""
    got = []
    for d in (torch_oracle.distributed, dist):
        with pytest.warns(UserWarning) as caught, pytest.raises(AssertionError) as err:
            d.init_process_group("foo", init_method="tcp://127.0.0.1:29619", rank=0, world_size=1)
        got.append(([str(w.message) for w in caught], str(err.value), d.is_initialized()))
    assert got[0] == got[1]


def test_default_backend_for_device_matches(torch_oracle):
    """What the DDP tutorial's accelerator-agnostic setup calls before init_process_group."""
    td = torch_oracle.distributed
    for name in ("cpu", "cuda:1"):
        assert dist.get_default_backend_for_device(name) == td.get_default_backend_for_device(name)
    assert dist.get_default_backend_for_device(tm.device("cpu")) == "gloo"
    # PyTorch's map as it is at import (backends registered later, such as the "fake" one some
    # of torch's own modules register for "hpu" when imported by other tests, are not compared)
    ours = dist.Backend.default_device_backend_map
    assert ours == {k: v for k, v in td.Backend.default_device_backend_map.items() if k in ours}
    assert set(ours) == {"cpu", "cuda", "xpu", "mps"}
    with pytest.raises(ValueError) as theirs:
        td.get_default_backend_for_device("meta")
    with pytest.raises(ValueError) as ours:
        dist.get_default_backend_for_device("meta")
    assert str(ours.value) == str(theirs.value)
    errors = (
        td.DistError, td.DistStoreError, td.DistNetworkError, td.DistBackendError
    )  # fmt: skip
    for theirs_cls in errors:
        ours_cls = getattr(dist, theirs_cls.__name__)
        assert [c.__name__ for c in ours_cls.__mro__] == [c.__name__ for c in theirs_cls.__mro__]
