"""``torch.utils.benchmark`` against PyTorch. Timings are never compared: Measurements are built
from fixed times in both frameworks and their statistics and reprs must agree; the Timer is run
only for a few milliseconds to check what it returns and how it refuses what it cannot do."""

from __future__ import annotations

import pytest

import taimatsu
from taimatsu.utils import benchmark as ours

torch = pytest.importorskip("torch")
theirs = pytest.importorskip("torch.utils.benchmark")
pytestmark = pytest.mark.oracle


def body(m) -> str:
    """A Measurement's repr without its first line (the object's class path and address)."""
    first, _, rest = repr(m).partition("\n")
    assert first.startswith("<") and first.endswith(">") and "Measurement object at 0x" in first
    return rest


SPECS = [
    {"stmt": "x + y", "setup": "pass"},
    {"stmt": "x + y", "setup": "", "label": "add", "sub_label": "small", "description": "float32"},
    {"stmt": "f(x)\ng(x)", "setup": "import math\nx = 2", "sub_label": "two", "num_threads": 4},
    {"stmt": "f(x)\ng(x)", "setup": "x = 1", "description": "multi\nline", "env": "eager"},
    {"stmt": "y = x.sum()", "setup": "x = 1", "sub_label": "s", "num_threads": 2},
]

TIMES = [
    (100, [1.2e-3, 1.3e-3, 1.25e-3, 1.4e-3]),  # IQR 7% of the median: no warning
    (1000, [5e-6, 5e-6, 5e-6, 9e-6]),  # IQR 20%: "system fluctuation"
    (1, [2.5, 2.6]),  # two measurements: no IQR line
    (10, [1.0e-1, 1.2e-1, 0.9e-1, 1.1e-1, 2e-1, 0.95e-1]),  # IQR > 25%: "environmental influence"
    (7, [3.3e-8]),  # one measurement, nanoseconds
    (1, [12.0, 11.0, 13.5, 12.2, 12.1, 12.3, 11.9, 12.05]),  # seconds
    (100000, [0.0123, 0.0124, 0.01235, 0.01231, 0.01229]),  # 1.23e-7 s per run
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("number, raw", TIMES)
def test_measurement_from_fixed_times(spec, number, raw):
    mine = ours.Measurement(number, list(raw), ours.TaskSpec(**spec))
    ref = theirs.Measurement(number, list(raw), theirs.TaskSpec(**spec))
    assert body(mine) == body(ref)
    assert str(mine).partition("\n")[2] == str(ref).partition("\n")[2]
    for name in ("times", "median", "mean", "iqr"):
        assert getattr(mine, name) == pytest.approx(getattr(ref, name), rel=1e-12), name
    for name in (
        "stmt",
        "setup",
        "label",
        "sub_label",
        "description",
        "num_threads",
        "as_row_name",
    ):
        assert getattr(mine, name) == getattr(ref, name), name
    assert mine.meets_confidence(0.15) == ref.meets_confidence(0.15)
    assert mine.task_spec.summarize() == ref.task_spec.summarize()


def test_merge_pools_replicates():
    def merged(B):
        spec = B.TaskSpec("x", "pass", label="a")
        other = B.TaskSpec("y", "pass")
        ms = [B.Measurement(10, [1e-3, 2e-3], spec), B.Measurement(2, [4e-4], other),
              B.Measurement(5, [1e-3], spec)]  # fmt: skip
        return [(m.number_per_run, m.times, m.stmt) for m in B.Measurement.merge(ms)]

    assert merged(ours) == merged(theirs)


@pytest.mark.parametrize("t", [3.2e-10, 1e-9, 4.5e-7, 1e-6, 0.0123, 0.999, 1.0, 75.0])
def test_select_unit(t):
    assert ours.select_unit(t) == theirs.select_unit(t)


@pytest.mark.parametrize(
    "x, n", [(3.14159, 2), (3.14159, 4), (0.000123456, 3), (98765.4, 2), (-2.5, 1), (12.5, 2)]
)
def test_trim_sigfig(x, n):
    assert ours.trim_sigfig(x, n) == theirs.trim_sigfig(x, n)


def test_helpers():
    assert [ours.unit_to_english(u) for u in ("ns", "us", "ms", "s")] == [
        theirs.unit_to_english(u) for u in ("ns", "us", "ms", "s")
    ]
    assert ours.ordered_unique([3, 1, 3, 2, 1]) == theirs.ordered_unique([3, 1, 3, 2, 1])
    assert [e.name for e in ours.Language] == [e.name for e in theirs.Language]
    with pytest.raises(AssertionError, match="must be an integer"):
        ours.trim_sigfig(1.0, 1.5)


def test_timer_runs_with_torch_bound_to_taimatsu():
    seen = {}
    t = ours.Timer(
        "seen['torch'] = torch; y = x * 2",
        setup="""
            x = torch.ones(3)
        """,
        globals={"seen": seen},
        label="mul",
        num_threads=1,
    )
    m = t.timeit(number=3)
    assert seen["torch"] is taimatsu
    assert (m.number_per_run, len(m.raw_times), m.setup, m.label) == (
        3,
        1,
        "x = torch.ones(3)",
        "mul",
    )
    calls = []
    m = t.blocked_autorange(callback=lambda n, s: calls.append(n), min_run_time=0.002)
    assert m.number_per_run >= 1 and len(m.raw_times) == len(calls) >= 1
    m = t.adaptive_autorange(threshold=10.0, min_run_time=0.001, max_run_time=0.05)
    assert len(m.raw_times) >= 4 or sum(m.raw_times) > 0.05
    prior = taimatsu.get_num_threads()
    ours.Timer("seen['n'] = torch.get_num_threads()", globals={"seen": seen}, num_threads=2).timeit(
        2
    )
    assert (seen["n"], taimatsu.get_num_threads()) == (2, prior)  # set while timing, then restored


def outcome(fn):
    try:
        fn()
        return "ok"
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return (type(e).__name__, str(e))


@pytest.mark.parametrize(
    "call",
    [
        lambda B: B.Timer(stmt=lambda: 1),
        lambda B: B.Timer("pass", global_setup="int x = 1;"),
        lambda B: B.Timer("pass", language="rust"),
        lambda B: B.Timer("pass").repeat(),
        lambda B: B.Timer("pass").autorange(),
    ],
)
def test_timer_errors(call):
    assert outcome(lambda: call(ours)) == outcome(lambda: call(theirs))


def test_cpp_and_callgrind_refused():
    with pytest.raises(NotImplementedError, match="C\\+\\+"):
        ours.Timer("x;", language="cpp")
    with pytest.raises(NotImplementedError, match="Callgrind"):
        ours.Timer("pass").collect_callgrind()


def _ops_results(B):
    """Two thread counts x two sizes x two ops, one noisy cell (a warning), two labels."""
    out = []
    for threads in (1, 4):
        for row, base in (("small", 1.2e-5), ("large", 3.4e-4)):
            for desc, factor in (("add", 1.0), ("mul", 1.7)):
                t = base * factor * 100
                noisy = 1.8 if (threads, row, desc) == (4, "large", "mul") else 1.3
                spec = B.TaskSpec("x + y", "pass", label="ops", sub_label=row, description=desc,
                                  num_threads=threads)  # fmt: skip
                out.append(B.Measurement(100, [t, t * 1.01, t * 0.99, t * noisy], spec))
    out.append(B.Measurement(1, [2e-3], B.TaskSpec("y", "pass", label="other", description="d")))
    return out


def _env_results(B):
    return [
        B.Measurement(
            1, [1e-3, 1.1e-3], B.TaskSpec("x", "pass", label="a", description="c1", env="E22")
        ),
        B.Measurement(
            1,
            [2e-3, 1e-3, 1e-3, 5e-3],
            B.TaskSpec("y", "pass", label="a", env="E1", description="c2"),
        ),
        # a replicate of the first TaskSpec: merged before the table is laid out
        B.Measurement(2, [2.4e-3], B.TaskSpec("x", "pass", label="a", description="c1", env="E22")),
        B.Measurement(
            1,
            [3e-8, 3.1e-8],
            B.TaskSpec("z", "pass", label="a", env="E1", description="c1", num_threads=2),
        ),
    ]


@pytest.mark.parametrize("make", [_ops_results, _env_results])
@pytest.mark.parametrize(
    "options",
    [(), ("trim",), ("highlight",), ("trim", "highlight"), ("columnwise",), ("rowwise", "trim")],
)
def test_compare_tables(make, options):
    def table(B):
        c = B.Compare(make(B))
        if "trim" in options:
            c.trim_significant_figures()
        if "highlight" in options:
            c.highlight_warnings()
        if "columnwise" in options or "rowwise" in options:
            c.colorize(rowwise="rowwise" in options)
        return str(c)

    assert table(ours) == table(theirs)


def test_compare_errors():
    assert outcome(lambda: ours.Compare([1])) == outcome(lambda: theirs.Compare([1]))
    mixed = [  # env None next to a named env: PyTorch's row sort fails on comparing them
        lambda B: B.Measurement(1, [1e-3], B.TaskSpec("x", "pass", label="a")),
        lambda B: B.Measurement(1, [1e-3], B.TaskSpec("y", "pass", label="a", env="e")),
    ]
    assert outcome(lambda: str(ours.Compare([m(ours) for m in mixed]))) == outcome(
        lambda: str(theirs.Compare([m(theirs) for m in mixed]))
    )
