"""torch.set_num_threads / get_num_threads drive the BLAS that NumPy loaded."""

import os
import time

import pytest

import taimatsu


def test_set_and_get_num_threads():
    before = taimatsu.get_num_threads()
    try:
        taimatsu.set_num_threads(1)
        assert taimatsu.get_num_threads() == 1
        out = taimatsu.ones(64, 64) @ taimatsu.ones(64, 64)  # BLAS still works single-threaded
        assert out[0, 0].item() == 64
    finally:
        taimatsu.set_num_threads(before)
    assert taimatsu.get_num_threads() == before


@pytest.mark.parametrize(
    "bad, message",
    [
        (0, "expects a positive integer"),
        (-1, "expects a positive integer"),
        (True, "expects an int, but got bool"),
    ],
)
def test_rejects_bad_counts(bad, message):
    with pytest.raises(RuntimeError, match=message):
        taimatsu.set_num_threads(bad)


def _blas_count():
    """What NumPy's OpenBLAS is set to now (None where there is no OpenBLAS)."""
    from taimatsu.backend import threads

    threads._load()
    for lib in threads._blas_libraries():
        fn = threads._entry(lib, threads._GETTERS)
        if fn is not None:
            return int(fn())
    return None


def _idle_machine(tmp_path, monkeypatch, others=0):
    """Make the load samples say other processes keep ``others`` cores busy."""
    from taimatsu.backend import threads

    monkeypatch.setattr(threads, "_other_cores", lambda now: float(others))
    monkeypatch.setitem(threads._busy, "t", -1.0)
    monkeypatch.setitem(threads._busy, "others", None)


def test_small_products_run_on_one_blas_thread(tmp_path, monkeypatch):
    from taimatsu.backend import threads

    _idle_machine(tmp_path, monkeypatch)
    before = taimatsu.get_num_threads()
    try:
        taimatsu.set_num_threads(2)
        taimatsu.ones(8, 8) @ taimatsu.ones(8, 8)  # 512 multiply-adds: one thread
        if _blas_count() is not None:
            assert _blas_count() == 1
        assert taimatsu.get_num_threads() == 2  # what the user asked for, not the BLAS's state
        n = 240  # 13.8M multiply-adds: all the threads asked for
        big = taimatsu.ones(n, n) @ taimatsu.ones(n, n)
        assert big[0, 0].item() == n
        if _blas_count() is not None:
            assert _blas_count() == 2
        taimatsu.set_num_threads(1)
        taimatsu.ones(n, n) @ taimatsu.ones(n, n)
        if _blas_count() is not None:
            assert _blas_count() == 1
        assert threads.SMALL_GEMM_MACS > 8**3
    finally:
        taimatsu.set_num_threads(before)


def test_small_kernel_rows(monkeypatch):
    # Row blocks for OpenBLAS's small-matrix kernel only on its AVX-512 kernel sets, only
    # for one-thread products above its limit, k small enough, blocks of 32 rows or more.
    from taimatsu.backend import threads

    threads._load()
    monkeypatch.setitem(threads._state, "core", "skylakex")
    rows = threads.small_kernel_rows(512, 162, 32)  # the LSTM benchmark's step product
    assert 32 <= rows < 512 and rows % 16 == 0
    assert rows * 162 * 32 <= threads.SMALL_KERNEL_MACS < (rows + 16) * 162 * 32
    assert threads.small_kernel_rows(128, 384, 32) == 80
    assert threads.small_kernel_rows(100, 100, 100) == 100  # within the limit already
    assert threads.small_kernel_rows(128, 512, 32) == 128  # k over SMALL_KERNEL_K
    assert threads.small_kernel_rows(2048, 64, 32) == 2048  # 4M: the thread policy's
    assert threads.small_kernel_rows(64, 384, 96) == 64  # blocks under 32 rows
    assert threads.small_kernel_rows(512, 162, 8) == 512  # n not a multiple of 16
    monkeypatch.setitem(threads._state, "core", "haswell")
    assert threads.small_kernel_rows(512, 162, 32) == 512


def test_products_equal_at_one_and_two_threads():
    torch = pytest.importorskip("torch")
    before = taimatsu.get_num_threads()
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(300, 200, generator=g), torch.randn(200, 250, generator=g)
    x, w = torch.randn(4, 8, 20, 20, generator=g), torch.randn(16, 8, 3, 3, generator=g)
    try:
        outs = []
        for n in (1, 2):
            taimatsu.set_num_threads(n)
            ta, tb = taimatsu.tensor(a.numpy()), taimatsu.tensor(b.numpy())
            conv = taimatsu.nn.functional.conv2d(
                taimatsu.tensor(x.numpy()), taimatsu.tensor(w.numpy())
            )
            outs.append(((ta @ tb).numpy(), conv.numpy()))
        for t, o in zip(
            outs[0] + outs[1], [(a @ b).numpy(), torch.nn.functional.conv2d(x, w).numpy()] * 2
        ):
            assert abs(t - o).max() < 1e-3
    finally:
        taimatsu.set_num_threads(before)


@pytest.mark.parametrize("others, expect_one", [(0, False), (64, True)])
def test_busy_machine_uses_one_blas_thread(tmp_path, monkeypatch, others, expect_one):
    """Other processes' runnable tasks (/proc/loadavg) take cores: large products then stay
    on one BLAS thread."""
    from taimatsu.backend import threads

    _idle_machine(tmp_path, monkeypatch, others)
    before = taimatsu.get_num_threads()
    try:
        taimatsu.set_num_threads(2)
        taimatsu.ones(8, 8) @ taimatsu.ones(8, 8)  # BLAS on one thread: none of ours spinning
        threads._busy["t"] = -1.0
        usable = threads.usable_threads()
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        assert usable == (1 if expect_one or cores < 2 else 2)
        n = 240  # 13.8M multiply-adds
        taimatsu.ones(n, n) @ taimatsu.ones(n, n)
        if _blas_count() is not None:
            assert _blas_count() == usable
    finally:
        taimatsu.set_num_threads(before)


def test_load_counts_at_once_and_is_forgotten_slowly(monkeypatch):
    """One quiet sample on a busy machine (the other processes happened to sleep) must not bring
    a second BLAS thread back; a machine that stays quiet gets it back within a second."""
    from taimatsu.backend import threads

    if (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1) != 2:
        pytest.skip("the counts below are for two cores")
    monkeypatch.setitem(threads._busy, "others", None)
    monkeypatch.setitem(threads._state, "target", 2)

    def sample(others):
        monkeypatch.setattr(threads, "_other_cores", lambda now: others)
        threads._busy["t"] = time.monotonic() - threads.BUSY_SAMPLE_S  # the next sample, now
        return threads.usable_threads()

    assert sample(0) == 2
    assert sample(0.2) == 2  # an idle machine's kernel threads and agents
    assert sample(0.4) == 1  # a core busy part of the time: at once
    assert sample(1) == 1
    assert sample(0) == 1  # one quiet sample: still busy
    assert sample(0) == 2  # two: free again
    assert sample(2) == 1
    assert [sample(0) for _ in range(3)] == [1, 1, 2]  # two busy cores go away more slowly
    assert sample(None) == 2  # no /proc: every thread asked for
    assert sample(2) == 1
    threads._busy["t"] = time.monotonic() - 2 * threads.LOAD_MEMORY_S  # after a long pause:
    monkeypatch.setattr(threads, "_other_cores", lambda now: 0.0)  # afresh, no decay
    assert threads.usable_threads() == 2


def test_other_cores_reads_the_cpu_clock(tmp_path, monkeypatch):
    """Other processes' load: the fewer of their runnable tasks now (/proc/loadavg less this
    process's own) and the cores' busy time since the last sample (user, nice, system, irq,
    softirq in /proc/stat; not idle, iowait or steal) less this process's CPU time, per second;
    the first sample, or one after a long pause, has only the count."""
    from taimatsu.backend import threads

    tick = os.sysconf("SC_CLK_TCK")
    stat, loadavg = tmp_path / "stat", tmp_path / "loadavg"
    monkeypatch.setattr(threads, "_STAT", str(stat))
    monkeypatch.setattr(threads, "_LOADAVG", str(loadavg))
    monkeypatch.setattr(threads, "_own_runnable", lambda: 1)
    monkeypatch.setitem(threads._busy, "clock", None)
    own = iter([1.0, 1.4, 1.5])
    monkeypatch.setattr(threads.time, "process_time", lambda: next(own))
    loadavg.write_text("0.50 0.50 0.50 3/300 12345\n")
    stat.write_text(f"cpu  {tick} 0 {tick} 9000 5 0 0 7 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")
    assert threads._other_cores(10.0) == 2.0  # 3 runnable, 1 of them this process's
    # half a second: 0.9 s busy (user, nice, system, irq, softirq), 0.4 s of it this process's
    busy = [tick + tick // 2, tick // 10, tick + tick // 10, 9000, 5 + tick, tick // 10, tick // 10]
    stat.write_text("cpu  " + " ".join(map(str, busy)) + f" {7 + tick} 0 0\n")
    assert abs(threads._other_cores(10.5) - 1.0) < 1e-9
    stat.write_text("cpu  " + " ".join(map(str, busy)) + f" {7 + tick} 0 0\n")
    assert threads._other_cores(11.0) == 0.0  # this process's time alone: never negative
    loadavg.write_text("0.50 0.50 0.50 2/300 12345\n")
    own = iter([2.0, 2.0])
    assert threads._other_cores(13.0) == 1.0  # 2 s since the last: /proc/loadavg, afresh
    # the fewer of the two: busy cores since the last sample, but none of theirs runnable now
    busy[0] += tick
    stat.write_text("cpu  " + " ".join(map(str, busy)) + f" {7 + tick} 0 0\n")
    loadavg.write_text("0.50 0.50 0.50 1/300 12345\n")
    assert threads._other_cores(13.5) == 0.0


def _numpy_openblas():
    """NumPy's OpenBLAS, where it exports the entry points the spin timeout needs (else skip)."""
    from taimatsu.backend import threads

    threads._load()
    libs = [lib for lib in threads._blas_libraries() if "numpy" in lib._name]
    if not libs or not all(
        hasattr(libs[0], f)
        for f in ("openblas_read_env", "blas_thread_shutdown_", "openblas_thread_timeout")
    ):
        pytest.skip("no OpenBLAS of NumPy's with a settable thread timeout")
    return libs[0]


def test_blas_workers_spin_briefly():
    """Loading gives NumPy's OpenBLAS workers taimatsu's short spin-wait, through the variable
    OpenBLAS reads, which is not left behind for the programs this process starts."""
    from taimatsu.backend import threads

    if threads._ENV_TIMEOUT in os.environ:
        pytest.skip("OPENBLAS_THREAD_TIMEOUT is set for this process")
    lib = _numpy_openblas()
    assert threads._state["spin_timeout"] == threads.SPIN_TIMEOUT_LOG2
    assert lib.openblas_thread_timeout() == threads.SPIN_TIMEOUT_LOG2
    assert threads._ENV_TIMEOUT not in os.environ
    threads._load()  # once per process: a second call neither reads nor stops anything
    assert lib.openblas_thread_timeout() == threads.SPIN_TIMEOUT_LOG2


@pytest.mark.slow  # a fresh interpreter: OpenBLAS reads the variable when it loads
def test_users_blas_thread_timeout_wins():
    import subprocess
    import sys

    _numpy_openblas()
    code = (
        "import os, taimatsu\n"
        "from taimatsu.backend import threads\n"
        "threads._load()\n"
        "lib = [l for l in threads._blas_libraries() if 'numpy' in l._name][0]\n"
        "print(threads._state['spin_timeout'], lib.openblas_thread_timeout(),"
        " os.environ['OPENBLAS_THREAD_TIMEOUT'])\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, OPENBLAS_THREAD_TIMEOUT="25", PYTHONPATH=root)
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["None", "25", "25"]


@pytest.mark.slow  # a fresh interpreter: OpenBLAS picks its kernels when it loads
def test_blas_core_names_the_kernels_the_environment_forces():
    import subprocess
    import sys

    from taimatsu.backend import threads

    _numpy_openblas()
    if not threads.blas_core():
        pytest.skip("NumPy's OpenBLAS does not name its kernels")
    try:
        with open("/proc/cpuinfo") as f:
            avx2 = " avx2" in f.read()
    except OSError:
        avx2 = False
    if not avx2:  # OpenBLAS refuses a kernel set the CPU cannot run
        pytest.skip("no AVX2: OpenBLAS's Haswell kernels cannot run here")
    code = "from taimatsu.backend import threads\nprint(threads.blas_core())\n"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, OPENBLAS_CORETYPE="Haswell", PYTHONPATH=root)
    out = subprocess.run(
        [sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "haswell"
