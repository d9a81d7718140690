"""torch.profiler: op names and counts as PyTorch's, PyTorch's table layout, a valid Chrome
trace, schedules, record_function; and no hook left once the profiler stops."""

import json
import re
import sys
import warnings

import numpy as np
import pytest

import taimatsu
from taimatsu.autograd import op_watch


def _forward(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32)
    w = lib.tensor(rng.standard_normal((3, 2)), dtype=lib.float32, requires_grad=True)
    y = lib.mm(x, w) + 1
    z = y.relu() * y.exp()
    return lib.nn.functional.linear(z, w).sum(), x, w


def _counts(prof, names):
    averages = {e.key: e.count for e in prof.key_averages()}
    return {n: averages.get(n, 0) for n in names}


OPS = ["aten::mm", "aten::add", "aten::relu", "aten::exp", "aten::mul", "aten::linear", "aten::sum"]


def _profiled(lib, backward, **kw):
    from importlib import import_module

    prof_mod = import_module(lib.__name__ + ".profiler")
    cpu = [prof_mod.ProfilerActivity.CPU]
    with prof_mod.profile(activities=cpu, **kw) as prof, prof_mod.record_function("step"):
        loss, _, _ = _forward(lib)
        if backward:
            loss.backward()
    return prof


def test_op_counts_match_pytorch(torch_oracle):
    ours, theirs = _profiled(taimatsu, False), _profiled(torch_oracle, False)
    assert _counts(ours, OPS) == _counts(theirs, OPS)
    assert _counts(ours, OPS)["aten::mm"] == 2 and _counts(ours, ["step"]) == {"step": 1}


def test_backward_nodes_named_as_pytorch(torch_oracle):
    def engine_rows(prof):
        return sorted(
            (e.key, e.count)
            for e in prof.key_averages()
            if e.key.startswith("autograd::engine::evaluate_function: ")
        )

    ours, theirs = _profiled(taimatsu, True), _profiled(torch_oracle, True)
    assert engine_rows(ours) == engine_rows(theirs)
    nodes = {e.key: e.count for e in ours.key_averages()}
    assert nodes["MmBackward0"] == 2 and nodes["torch::autograd::AccumulateGrad"] == 1
    # an engine step holds its node's range, which holds the ops of its backward formula
    step = next(
        e for e in ours.events() if e.name == "autograd::engine::evaluate_function: MmBackward0"
    )
    assert [c.name for c in step.cpu_children] == ["MmBackward0"]
    assert "aten::mm" in {c.name for c in step.cpu_children[0].cpu_children}


def _header(table):
    lines = table.splitlines()
    return lines[0].count("  "), re.split(r"\s{2,}", lines[1].strip())


@pytest.mark.parametrize(
    "kw,group",
    [({}, False), ({"profile_memory": True}, False), ({"record_shapes": True}, True)],
)
def test_table_columns_match_pytorch(torch_oracle, kw, group):
    ours, theirs = _profiled(taimatsu, True, **kw), _profiled(torch_oracle, True, **kw)
    t_ours = ours.key_averages(group_by_input_shape=group).table(
        sort_by="self_cpu_time_total", row_limit=5
    )
    t_theirs = theirs.key_averages(group_by_input_shape=group).table(
        sort_by="self_cpu_time_total", row_limit=5
    )
    assert _header(t_ours) == _header(t_theirs)
    lines = t_ours.splitlines()
    assert len(lines) == len(t_theirs.splitlines()) == 10
    assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", lines[-1])
    widths = [len(c) for c in lines[0].split("  ")[:-1]]
    assert widths[1:] == [12] * (len(widths) - 1 - group) + ([widths[-1]] if group else [])
    for row in lines[3:8]:
        assert re.search(r"\d+\.\d\d%\s+\d+\.\d{3}(us|ms|s)\s", row)


def test_record_shapes_and_memory(torch_oracle):
    ours = _profiled(taimatsu, False, record_shapes=True, profile_memory=True)
    theirs = _profiled(torch_oracle, False, record_shapes=True, profile_memory=True)

    def mm(prof):
        return [(e.input_shapes, e.cpu_memory_usage) for e in prof.events() if e.name == "aten::mm"]

    assert mm(ours)[0] == mm(theirs)[0] == ([[4, 3], [3, 2]], 32)
    (row,) = [e for e in ours.key_averages() if e.key == "step"]
    assert row.cpu_memory_usage == sum(
        c.cpu_memory_usage for c in ours.events() if c.cpu_parent and c.cpu_parent.name == "step"
    )


def test_chrome_trace_is_valid(tmp_path):
    prof = _profiled(taimatsu, True, record_shapes=True, with_stack=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    assert all({"ph", "name", "pid", "tid"} <= e.keys() for e in events)
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == len(prof.events())
    for e in complete:
        assert (
            isinstance(e["ts"], float)
            and e["dur"] >= 0
            and e["cat"] in ("cpu_op", "user_annotation")
        )
    mm = next(e for e in complete if e["name"] == "aten::mm")
    assert mm["args"]["Input Dims"] == [[4, 3], [3, 2]]
    assert "test_profiler.py" in mm["args"]["Call stack"]
    # children lie inside their parents' interval, as the trace viewer nests them
    for e in prof.events():
        for c in e.cpu_children:
            assert e.time_range.start <= c.time_range.start <= c.time_range.end <= e.time_range.end


SCHEDULES = [
    {"wait": 1, "warmup": 1, "active": 2},
    {"wait": 0, "warmup": 2, "active": 1, "repeat": 2},
    {"wait": 2, "warmup": 1, "active": 3, "repeat": 1, "skip_first": 3},
    {"wait": 2, "warmup": 1, "active": 2, "skip_first_wait": 1},
]


@pytest.mark.parametrize("kw", SCHEDULES)
def test_schedule_and_trace_ready_as_pytorch(torch_oracle, kw):
    def run(lib):
        from importlib import import_module

        pm = import_module(lib.__name__ + ".profiler")
        s = pm.schedule(**kw)
        actions = [s(i).name for i in range(14)]
        calls = []

        def ready(p):
            top = [e.name for e in p.events() if e.cpu_parent is None]
            calls.append((p.step_num, sum(1 for e in p.events() if e.name == "aten::add"), top))

        with pm.profile(schedule=s, on_trace_ready=ready) as p:
            for i in range(10):
                lib.ones(2) + i
                p.step()
        return actions, calls

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns that events are cleared between cycles
        assert run(taimatsu) == run(torch_oracle)


def test_schedule_errors():
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        taimatsu.profiler.schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        taimatsu.profiler.schedule(wait=1, warmup=0, active=1)


def test_inactive_costs_nothing_and_hook_restored(tmp_path):
    before = sys.getprofile()
    with taimatsu.profiler.record_function("idle"):  # no profiler: nothing recorded, no error
        taimatsu.ones(1)
    with taimatsu.profiler.profile() as prof:
        assert sys.getprofile() is op_watch._hook
        taimatsu.ones(1) * 2
    assert sys.getprofile() is before
    assert [e.name for e in prof.events()] == ["aten::ones", "aten::mul"]
    handler = taimatsu.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")
    handler(prof)
    (written,) = tmp_path.glob("w.*.pt.trace.json")
    assert json.loads(written.read_text())["traceEvents"]


def test_record_function_decorator_and_table_str():
    @taimatsu.profiler.record_function("my_fn")
    def f():
        return taimatsu.zeros(2).sum()

    with taimatsu.profiler.profile() as prof:
        f()
    (e,) = [e for e in prof.events() if e.name == "my_fn"]
    assert [c.name for c in e.cpu_children] == ["aten::zeros", "aten::sum"]
    assert str(prof.key_averages()) == prof.key_averages().table()


def test_legacy_autograd_profiler(torch_oracle):
    def run(lib):
        ap = lib.autograd.profiler
        with ap.profile(record_shapes=True) as prof, ap.record_function("block"):
            lib.mm(lib.ones(2, 3), lib.ones(3, 1))
        names = {e.key for e in prof.key_averages()}
        return (
            type(prof.function_events).__name__,
            _header(prof.table(row_limit=3)),
            {"block", "aten::mm"} <= names,
            prof.self_cpu_time_total > 0,
            lib.autograd.profiler.record_function is lib.profiler.record_function,
        )

    assert run(taimatsu) == run(torch_oracle)
