"""torch.multiprocessing: tensors cross processes through shared memory; spawn's error reports.

Every test bounds its waits (queue timeouts, join timeouts) and checks that no child process is
left behind; the shared memory a test made is gone (no mapping, no descriptor) once its tensors
are. Children run with the ``fork`` start method except where ``spawn`` is the point (a spawned
child imports taimatsu, which takes seconds on a loaded machine).
"""

import gc
import os
import pickle
import signal

import pytest
from test_shared_memory import _memfd_descriptors, _memfd_mappings

import taimatsu as tm
import taimatsu.multiprocessing as mp

WAIT = 60  # seconds; generous for a loaded machine, and never reached when things work


@pytest.fixture
def no_leftovers():
    """No child processes and no shared memory left once the test's tensors are gone."""
    gc.collect()
    before = (_memfd_mappings(), _memfd_descriptors())
    yield
    for child in mp.active_children():
        child.kill()
        child.join(WAIT)
        pytest.fail(f"child process {child.pid} left running")
    gc.collect()
    assert (_memfd_mappings(), _memfd_descriptors()) == before


def _child_writes(q, r, done):
    """Add 1 to the tensor received, double the parameter, send back a new tensor."""
    t = q.get(timeout=WAIT)
    t += 1
    p = q.get(timeout=WAIT)
    p.data.mul_(2)
    r.put((type(p).__name__, p.requires_grad, t.is_shared(), tm.arange(3.0)))
    done.wait(WAIT)  # the sender's descriptors must outlive the receiver's get (as in PyTorch)


@pytest.mark.parametrize("method", ["fork", pytest.param("spawn", marks=pytest.mark.slow)])
def test_queue_shares_memory_both_ways(method, no_leftovers):
    ctx = mp.get_context(method)
    q, r, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    x = tm.zeros(2, 3)
    p = tm.nn.Parameter(tm.ones(2))
    proc = ctx.Process(target=_child_writes, args=(q, r, done))
    proc.start()
    try:
        q.put(x[1])
        q.put(p)
        kind, requires_grad, shared, back = r.get(timeout=WAIT)
    finally:
        done.set()
        proc.join(WAIT)
    assert proc.exitcode == 0
    assert x.tolist() == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]  # the child's write, seen here
    assert p.tolist() == [2.0, 2.0] and isinstance(p, tm.nn.Parameter)
    assert (kind, requires_grad, shared) == ("Parameter", True, True)
    assert back.tolist() == [0.0, 1.0, 2.0] and back.is_shared()
    for c in (q, r):
        c.close()
        c.join_thread()
    del x, p, back


def _train_step(rank, model, data):
    """One SGD step on the shared parameters (the Hogwild pattern)."""
    loss = (model(data[rank]) ** 2).sum()
    loss.backward()
    with tm.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad


def test_module_share_memory_then_processes_update_it(no_leftovers):
    tm.manual_seed(0)
    model = tm.nn.Linear(3, 1).share_memory()
    data = tm.randn(2, 4, 3)
    expected = [p.detach().clone() for p in model.parameters()]
    for rank in range(2):  # the same steps, one after the other, on private copies
        copy = tm.nn.Linear(3, 1)
        copy.load_state_dict({"weight": expected[0], "bias": expected[1]})
        _train_step(rank, copy, data)
        expected = [p.detach().clone() for p in copy.parameters()]
    ctx = mp.get_context("fork")
    for rank in range(2):
        proc = ctx.Process(target=_train_step, args=(rank, model, data))
        proc.start()
        proc.join(WAIT)
        assert proc.exitcode == 0
    for p, e in zip(model.parameters(), expected):
        assert tm.allclose(p.detach(), e)
    del model, data


def _square(t):
    return t * t


def test_pool_map(no_leftovers):
    with mp.get_context("fork").Pool(2) as pool:
        out = pool.map(_square, [tm.arange(3.0) + i for i in range(4)], chunksize=1)
    assert [o.tolist() for o in out] == [[(j + i) ** 2 for j in range(3)] for i in range(4)]
    del out


def test_simple_queue_and_pipe_share_memory(no_leftovers):
    ctx = mp.get_context("fork")
    sq = ctx.SimpleQueue()
    t = tm.zeros(4)
    sq.put(t)  # same process: the reader maps the same memory
    got = sq.get()
    got[0] = 5.0
    assert t.tolist() == [5.0, 0.0, 0.0, 0.0] and got.is_shared()
    a, b = ctx.Pipe()
    a.send({"x": t[1:], "y": t})  # one segment for both: pickle's memo
    out = b.recv()
    out["y"][1] = 7.0
    assert out["x"][0].item() == 7.0 and t[1].item() == 7.0
    sq.close()
    a.close()
    b.close()
    del t, got, out


def test_non_leaf_requiring_grad_is_refused(torch_oracle):
    from multiprocessing.reduction import ForkingPickler

    import torch.multiprocessing  # noqa: F401 - registers PyTorch's reducers

    errors = []
    for lib in (tm, torch_oracle):
        x = lib.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError) as info:
            ForkingPickler.dumps(x)
        errors.append(str(info.value))
        assert ForkingPickler.loads(ForkingPickler.dumps(x.detach())).tolist() == [2.0, 2.0]
    assert errors[0] == errors[1]


@pytest.mark.parametrize(
    "dtype", ["float32", "bfloat16", "float16", "int8", "bool", "complex64", "uint16", "int64"]
)
def test_every_dtype_and_layout_round_trips_through_shared_memory(dtype, torch_oracle):
    from multiprocessing.reduction import ForkingPickler

    got = []
    for lib in (tm, torch_oracle):
        base = lib.arange(12).reshape(3, 4).to(getattr(lib, dtype))
        for t in (base, base.t(), base[1:, ::2], base[2, 3], lib.zeros(0, 3)):
            u = ForkingPickler.loads(ForkingPickler.dumps(t))
            same = u.shape == t.shape and u.tolist() == t.tolist()
            got.append((same, u.dtype == t.dtype, u.stride(), u.storage_offset(), u.is_shared()))
    assert got[: len(got) // 2] == got[len(got) // 2 :]


def test_leaf_requiring_grad_arrives_as_one(torch_oracle):
    from multiprocessing.reduction import ForkingPickler

    got = []
    for lib in (tm, torch_oracle):
        u = ForkingPickler.loads(ForkingPickler.dumps(lib.ones(2, requires_grad=True)))
        p = ForkingPickler.loads(ForkingPickler.dumps(lib.nn.Parameter(lib.ones(2))))
        again = ForkingPickler.loads(ForkingPickler.dumps(u.detach()))  # re-sent: same memory
        again += 1
        got.append((u.requires_grad, u.is_leaf, type(p).__name__, u.tolist()))
    assert got[0] == got[1]


def test_plain_pickle_still_copies():
    t = tm.arange(3.0)
    u = pickle.loads(pickle.dumps(t))
    u += 1
    assert t.tolist() == [0.0, 1.0, 2.0] and not u.is_shared()


def test_sharing_strategy_matches_torch(torch_oracle):
    import torch.multiprocessing as tmp

    for lib in (mp, tmp):
        assert lib.get_sharing_strategy() == "file_descriptor"
        assert lib.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
        lib.set_sharing_strategy("file_system")
        assert lib.get_sharing_strategy() == "file_system"
        lib.set_sharing_strategy("file_descriptor")
        with pytest.raises(AssertionError):
            lib.set_sharing_strategy("nope")
    assert set(tmp.__all__) == set(mp.__all__)


# ---- spawn / start_processes --------------------------------------------------------------------
def _ok(i, out):
    out[i] = i + 1


def _raises(i):
    if i == 1:
        raise ValueError("bad rank")


def _exits(i, code):
    if i == 0:
        os._exit(code)


def _killed(i):
    if i == 0:
        os.kill(os.getpid(), signal.SIGKILL)


def test_start_processes_share_a_tensor(no_leftovers):
    out = tm.zeros(3).share_memory_()
    assert mp.start_processes(_ok, args=(out,), nprocs=3, start_method="fork") is None
    assert out.tolist() == [1.0, 2.0, 3.0]
    del out


@pytest.mark.slow
def test_spawn_passes_tensors_to_spawned_processes(no_leftovers):
    out = tm.zeros(2)
    ctx = mp.spawn(_ok, args=(out,), nprocs=2, join=False)
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 2
    while not ctx.join(WAIT):
        pass
    assert out.tolist() == [1.0, 2.0]
    del out, ctx


def test_process_raised_exception(torch_oracle, no_leftovers):
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(_raises, nprocs=2, start_method="fork")
    e = info.value
    assert (e.error_index, type(e).__mro__[1]) == (1, mp.spawn.__globals__["ProcessException"])
    assert str(e).startswith("\n\n-- Process 1 terminated with the following error:\nTraceback")
    assert str(e).endswith("ValueError: bad rank\n")
    assert e.error_pid > 0
    copy = pickle.loads(pickle.dumps(e))
    assert (str(copy), copy.error_index, copy.error_pid) == (str(e), 1, e.error_pid)
    from torch.multiprocessing.spawn import ProcessRaisedException as TorchRaised

    assert [c.__name__ for c in type(e).__mro__] == [c.__name__ for c in TorchRaised.__mro__]


@pytest.mark.parametrize(
    ("target", "args", "message", "code", "signal_name"),
    [
        (_exits, (3,), "process 0 terminated with exit code 3", 3, None),
        (_killed, (), "process 0 terminated with signal SIGKILL", -9, "SIGKILL"),
    ],
)
def test_process_exited_exception(target, args, message, code, signal_name, no_leftovers):
    with pytest.raises(mp.ProcessExitedException) as info:
        mp.start_processes(target, args=args, nprocs=2, start_method="fork")
    e = info.value
    assert (str(e), e.exit_code, e.signal_name, e.error_index) == (message, code, signal_name, 0)


@pytest.mark.slow
def test_spawn_warns_for_another_start_method(torch_oracle):
    import torch.multiprocessing as tmp

    messages = []
    for lib in (mp, tmp):
        with pytest.warns(FutureWarning) as record:
            lib.spawn(_raises, nprocs=1, start_method="fork")  # rank 0 does not raise
        messages.append(str(record[0].message))
    assert messages[0] == messages[1]
