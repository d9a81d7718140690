"""``torch.set_num_threads`` / ``get_num_threads``, and the BLAS thread policy for products.

NumPy offers no API for this, so the OpenBLAS libraries mapped into the process (NumPy's and
SciPy's wheels each bundle one) are found in /proc/self/maps and driven through their C entry
points. Where no OpenBLAS is found (another BLAS, another OS) the setting is remembered but
has no effect on BLAS.

The policy (``gemm_threads``): a product below ``SMALL_GEMM_MACS`` multiply-adds runs on one
BLAS thread, a larger one on ``usable_threads()``. OpenBLAS already keeps tiny products on
one thread, but between its threshold and a couple of million multiply-adds its second thread
costs more than it saves: it is woken, works a few microseconds, then spin-waits for the next
job, taking a core from the Python thread. PyTorch makes the same choice inside its BLAS calls; here
the thread count is switched only when the size class of consecutive products changes, so a run
of small products costs one comparison each.

``usable_threads()``: ``get_num_threads()``, less the cores other processes keep busy. On a
busy machine a second thread does not run beside ours but waits for a core, and spin-waiting
threads make every product slower than one thread would (measured: a small MLP step 20x slower
at two threads than at one with the machine's two cores taken; a 512x64x256 product 9x). Every
``BUSY_SAMPLE_S`` seconds at most, two views of the other processes are sampled: their runnable
tasks now (/proc/loadavg's count less this process's runnable threads) and the cores they used
since the last sample (the cores' busy time in /proc/stat less this process's CPU time); the
smaller one counts (``_other_cores``), and a core counts as free while they use less than
``IDLE_SHARE`` of it. The estimate rises at once when other processes appear and falls back by
``LOAD_DECAY`` per sample, so that one quiet moment on a busy machine does not bring back a
second thread that then spins against them. Where /proc cannot be read, every requested thread
is used.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time

import numpy as np

_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_GETTERS = (
    "scipy_openblas_get_num_threads64_",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",
)
# Below this many multiply-adds per product, one BLAS thread. First measured on an Intel VM
# (2 cores, OpenBLAS's AVX-512 kernels; the benchmark at real-time priority, so that other
# processes could not take the second core), one / two threads, median us, the product after a
# 4 ms pause (its worker asleep: woken) | five in a row: 2.1M 81/113 | 43/48 (64x256x128); 6.3M
# 153/147 | 101/81 (512x64x192, GPT's qkv); 8.4M 194/181 | 197/144; 12.8M 310-526/257-321 |
# 207-416/178-220 (the MLP's first layer); there the 6-8M products gained nothing in a training
# step and the bar stood at 10M. On an AMD Zen 5 VM (2 cores, OpenBLAS's AVX2 kernels, as
# OPENBLAS_CORETYPE=Haswell selects) two threads nearly halve them, in a row: 512x64x64 (2.1M)
# 43 -> 23 us, 512x64x192 121 -> 65, 512x256x64 153 -> 86; in-process A/B of training steps at
# default threads (5 blocks each, median ms): LSTM 10.8 -> 8.4, GPT 12.9 -> 11.9, LSTMCell loop
# 19.9 -> 16.7, GRU 12.1 -> 11.6, MLP 1.00 -> 0.95; under the AVX-512 kernels on the same VM
# LSTM, GRU and the LSTMCell loop the same within noise (their step products are cut into
# small-kernel row blocks, each a product of its own: ``small_kernel_rows``), GPT 10-15% faster.
# The price: an idle worker spin-waits between products (``SPIN_TIMEOUT_LOG2``), so the CPU time
# of a step with such products doubles where the machine has the core to spare.
SMALL_GEMM_MACS = 2_000_000

# OpenBLAS's AVX-512 kernel sets compute a product of at most SMALL_KERNEL_MACS multiply-adds
# with a small-matrix kernel that reads the operands in place instead of packing them first:
# the LSTM's per-step product (512x162 @ 162x32, 2.7M) took 53 us in one call and 40 us in four
# of 128 rows (SkylakeX kernels on a Sapphire Rapids core, best of 7 x 100). Its sum over k
# is the packed kernel's while k fits one of the packed kernel's k blocks (measured: equal bits
# up to k = 448, not from 480), and for n (the columns) a multiple of 16 (other n from 2 to
# 100 gave other bits for some k, float32 and float64): rows are cut only up to SMALL_KERNEL_K
# and for such n.
SMALL_KERNEL_MACS = 1_000_000
SMALL_KERNEL_K = 384
# Products from this size are not cut: measured up to the LSTM's 2.7M, below the 4M from which
# the thread policy then ran products on two threads.
SMALL_KERNEL_MAX_MACS = 4_000_000
_SMALL_KERNEL_CORES = ("skylakex", "cooperlake", "sapphirerapids")
_CORENAMES = ("scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename")

# How long an idle OpenBLAS worker spin-waits for the next product, as log2 of CPU cycles
# (OpenBLAS's default, 2^28, is ~0.13 s here). While it spins it takes the second core from
# taimatsu's own helper thread (``parallel``: GELU, batch norm, pooling, ...) and from the
# other processes. 2^22 cycles (~2 ms at 2.1 GHz) still covers the gap to the next product in a
# training step, where the wake-up of a sleeping worker would cost more than it saves.
# Measured (2 cores, idle): a 512x1024x512 product every 50 ms cost 80 ms of CPU per product
# with the default, 17 ms with 2^22; default-thread training steps: wall time the same within
# the noise of 11 back-to-back pairs (GPT, CNN, LSTM, MLP), CPU time of GPT and MLP 20-30% lower.
# OpenBLAS's setting is read once per process at load time; a user's OPENBLAS_THREAD_TIMEOUT wins.
SPIN_TIMEOUT_LOG2 = 22
_ENV_TIMEOUT = "OPENBLAS_THREAD_TIMEOUT"

_MAIN = threading.main_thread().ident

# "target": the count torch.set_num_threads asked for (or the BLAS's own default);
# "current": what NumPy's BLAS is set to now; "setter": its C entry point (or None).
_state = {
    "target": None,
    "current": None,
    "setter": None,
    "loaded": False,
    "core": "",
    "spin_timeout": None,  # the log2 spin timeout taimatsu gave NumPy's OpenBLAS (None: none)
}


def _blas_libraries() -> list:
    try:
        with open("/proc/self/maps") as f:
            paths = sorted(
                {w for w in f.read().split() if "openblas" in os.path.basename(w) and ".so" in w}
            )
    except OSError:
        return []
    libs = []
    for path in paths:
        try:
            libs.append(ctypes.CDLL(path))
        except OSError:
            continue
    return libs


def _entry(lib, names):
    for name in names:
        fn = getattr(lib, name, None)
        if fn is not None:
            return fn
    return None


def _load() -> None:
    """Find the BLAS (once) and read its default thread count before the policy changes it."""
    if _state["loaded"]:
        return
    _state["loaded"] = True
    # NumPy's own OpenBLAS first: products go through it (SciPy's may be mapped as well).
    for lib in sorted(_blas_libraries(), key=lambda lib: "numpy" not in lib._name):
        setter, getter = _entry(lib, _SETTERS), _entry(lib, _GETTERS)
        if setter is not None and _state["setter"] is None:
            _state["setter"] = setter
            core = _entry(lib, _CORENAMES)
            if core is not None:
                core.restype = ctypes.c_char_p
                _state["core"] = (core() or b"").decode("ascii", "replace").lower()
            if getter is not None:
                _state["current"] = int(getter())
                if _state["target"] is None:
                    _state["target"] = _state["current"]
            _shorten_spin(lib)
    if _state["target"] is None:
        _state["target"] = os.cpu_count() or 1


def _shorten_spin(lib) -> None:
    """Give NumPy's OpenBLAS workers the ``SPIN_TIMEOUT_LOG2`` spin-wait, unless the user set
    ``OPENBLAS_THREAD_TIMEOUT``. OpenBLAS reads the variable when it loads (before taimatsu is
    imported) and gives it to the workers it starts: so it is set for one ``openblas_read_env``
    call, and the workers are stopped; the next parallel product starts them again with it.
    The variable is removed again, so that other programs this process starts keep their own."""
    if _ENV_TIMEOUT in os.environ:
        return
    read_env = getattr(lib, "openblas_read_env", None)
    shutdown = getattr(lib, "blas_thread_shutdown_", None)
    if read_env is None or shutdown is None:
        return
    os.environ[_ENV_TIMEOUT] = str(SPIN_TIMEOUT_LOG2)
    try:
        read_env()
    finally:
        del os.environ[_ENV_TIMEOUT]
    shutdown()
    _state["spin_timeout"] = SPIN_TIMEOUT_LOG2


def get_num_threads() -> int:
    """The thread count ops may use (``torch.get_num_threads``)."""
    if _state["target"] is None:
        _load()
    return _state["target"]


def aten_chunks(n: int, grain: int) -> list:
    """The ``(lo, hi)`` ranges ``at::parallel_for(0, n, grain)`` gives its threads at the
    thread count ops may use: one range below the grain (or on one thread), else as many as
    threads, at most one per grain, ``ceil(n / chunks)`` long. Kernels whose bits depend on
    where PyTorch's threads split their work (a vector loop's scalar tail, per-thread sums)
    reproduce the split with it."""
    threads = get_num_threads()
    if n <= 0:
        return []
    if n < grain or threads == 1:
        return [(0, n)]
    size = -(-n // min(threads, -(-n // grain)))
    return [(lo, min(lo + size, n)) for lo in range(0, n, size)]


def gemm_threads(macs: int) -> int | None:
    """Set NumPy's BLAS to the thread count a product of ``macs`` multiply-adds should use, and
    return the count BLAS runs with now (None before any was set).

    Only the main thread switches: OpenBLAS's setter is not meant to run while another
    thread is inside a BLAS call, and products on other threads (a user's, or the halves of a
    split batch) run with the count the main thread last set."""
    if threading.get_ident() != _MAIN:
        return _state["current"]
    want = 1 if macs < SMALL_GEMM_MACS else usable_threads()
    if want != _state["current"]:
        _switch(want)
    return _state["current"]


def blas_core() -> str:
    """The kernel set NumPy's OpenBLAS runs, lower case (``"haswell"``, ``"skylakex"``, ...; its
    own choice for the CPU unless ``OPENBLAS_CORETYPE`` names one), or "" where it cannot say."""
    _load()
    return _state["core"]


def avx512_kernels() -> bool:
    """Whether NumPy's OpenBLAS runs one of its AVX-512 kernel sets (``_SMALL_KERNEL_CORES``)."""
    _load()
    return _state["core"] in _SMALL_KERNEL_CORES


def small_kernel_rows(m: int, k: int, n: int) -> int:
    """Rows per call for an ``(m, k) @ (k, n)`` product of row-major operands (no transposed
    view: the small kernels for those sum in another order) cut into row blocks that
    OpenBLAS's small-matrix kernel takes (see ``SMALL_KERNEL_MACS``); ``m`` (one call) where it
    would not pay or could change the bits: another BLAS or kernel set, a product small enough
    already, or of ``SMALL_KERNEL_MAX_MACS`` or more (not measured), ``k`` over
    ``SMALL_KERNEL_K``, ``n`` not a multiple of 16, or blocks under 32 rows (slower than one
    packed call)."""
    macs = m * k * n
    if macs <= SMALL_KERNEL_MACS or macs >= SMALL_KERNEL_MAX_MACS or k > SMALL_KERNEL_K or n % 16:
        return m
    _load()
    if _state["core"] not in _SMALL_KERNEL_CORES:
        return m
    rows = SMALL_KERNEL_MACS // (k * n) // 16 * 16
    return rows if rows >= 32 else m


def matmul_rows(a, b, out, rows: int) -> None:
    """``out = a @ b`` in blocks of ``rows`` rows of ``a`` (``small_kernel_rows``): the bits
    of one call."""
    if rows >= a.shape[0]:
        np.matmul(a, b, out=out)
        return
    for lo in range(0, a.shape[0], rows):
        np.matmul(a[lo : lo + rows], b, out=out[lo : lo + rows])


BUSY_SAMPLE_S = 0.25
# Other processes' average use of the cores (in cores) below which every core still counts as
# free. Idle, this 2-core VM reads 0.00-0.20 (kernel threads, the agents); one busy process 1.0
# (0.7 while it shares the cores with two threads of ours); and a second BLAS thread that finds
# its core taken even part of the time makes a product up to 50x slower.
IDLE_SHARE = 0.25
# The share of a drop in other processes' use believed per sample: from one busy core to two
# free ones in two quiet samples (0.5 s).
LOAD_DECAY = 0.5
# A sample further back than this says nothing of now: after such a pause (another process's
# turn in a benchmark, data loading) the load is sampled afresh, with no decay from the last
# estimate (an average since the pause counted the 0.3 s PyTorch had just run on both cores in
# bench_training.py and kept taimatsu's steps on one thread).
LOAD_MEMORY_S = 1.0
_LOADAVG = "/proc/loadavg"
_STAT = "/proc/stat"
# "clock": (monotonic s, all cores' busy s, this process's CPU s) at the last sample.
_busy = {"t": -1.0, "others": None, "usable": None, "clock": None}


def usable_threads() -> int:
    """The threads worth using now: ``get_num_threads()``, fewer while other processes keep
    cores busy (see the module docstring)."""
    target = _state["target"] or get_num_threads()
    if target == 1:
        return 1
    now = time.monotonic()
    if now - _busy["t"] >= BUSY_SAMPLE_S:
        _sample_load(now, target)
    return min(target, _busy["usable"])


def _sample_load(now: float, target: int) -> None:
    recent = now - _busy["t"] <= LOAD_MEMORY_S
    _busy["t"] = now
    others = _other_cores(now)
    if others is None:
        _busy["usable"] = target
        return
    prev = _busy["others"] if recent else None
    if prev is not None and others < prev:  # load leaving: believe it once it stays away
        others = prev + LOAD_DECAY * (others - prev)
    _busy["others"] = others
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    _busy["usable"] = max(1, min(target, int((cores or 1) - others + IDLE_SHARE)))


def _cpu_clock(now: float):
    """(now, busy seconds of all cores, this process's CPU seconds), or None without /proc/stat."""
    own = time.process_time()
    try:
        with open(_STAT, "rb") as f:
            v = f.readline().split()
        # user, nice, system, irq, softirq: not idle, iowait or steal (time the VM did not run)
        busy = sum(int(v[i]) for i in (1, 2, 3, 6, 7)) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError, AttributeError):
        return None
    return now, busy, own


def _other_cores(now: float) -> float | None:
    """The cores other processes keep busy: the fewer of their runnable tasks now (/proc/loadavg
    less this process's own) and the cores they used since the last sample, on average (/proc/stat;
    its ticks make this +-0.1 over a quarter second). Either alone misleads: the count is one
    instant, and on an idle machine ~1% of its samples count a task no /proc/*/task shows
    runnable (a thread that has just gone to sleep, still on a run queue); the average lags, and
    after another process's burst (PyTorch's turn in bench_training.py, ended 50 ms before) it
    kept taimatsu on one thread for a second. With no sample long enough before (the first) or
    recent enough (``LOAD_MEMORY_S``), the count alone."""
    clock, last = _cpu_clock(now), _busy["clock"]
    _busy["clock"] = clock
    try:
        with open(_LOADAVG, "rb") as f:
            runnable = int(f.read().split()[3].split(b"/")[0])
        instant = float(max(0, runnable - _own_runnable()))
    except (OSError, IndexError, ValueError):
        instant = None
    if clock is None or last is None or not 0.5 * BUSY_SAMPLE_S <= now - last[0] <= LOAD_MEMORY_S:
        return instant
    used = max(0.0, (clock[1] - last[1] - (clock[2] - last[2])) / (now - last[0]))
    return used if instant is None else min(used, instant)


def _own_runnable() -> int:
    """This process's runnable threads (this one, BLAS threads still spinning from a product, and
    any other library's pool in the process): they are not another process's load."""
    try:
        n = 0
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                stat = f.read()
            n += stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] == b"R"
        return max(n, 1)
    except (OSError, ValueError):  # no /proc: this thread and the BLAS threads last asked for
        return 1 + max(0, (_state["current"] or 1) - 1)


def _switch(want) -> None:
    if not _state["loaded"]:
        _load()
        if want is None:
            want = _state["target"]
        if want == _state["current"]:
            return
    if _state["setter"] is not None:
        _state["setter"](ctypes.c_int(want))
    _state["current"] = want


def set_num_threads(num: int) -> None:
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")  # noqa: TRY004 (PyTorch's type)
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _load()
    _state["target"] = num
    from .parallel import set_threads

    set_threads(num)
    for lib in _blas_libraries():  # every OpenBLAS loaded (SciPy's too), not only NumPy's
        fn = _entry(lib, _SETTERS)
        if fn is not None:
            fn(ctypes.c_int(num))
    _state["current"] = num


def get_num_interop_threads() -> int:
    return 1


def set_num_interop_threads(num: int) -> None:
    if not isinstance(num, int) or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")


# The first sample's average reaches back to the import (this process's own CPU taken out).
_busy["clock"] = _cpu_clock(time.monotonic())
