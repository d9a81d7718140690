"""The glibc malloc policy (backend/allocator.py): set at import, fewer page faults per step,
the user's own malloc settings respected. Each case runs in a fresh interpreter (bounded)."""

import os
import subprocess
import sys

import pytest

from taimatsu.backend import allocator

pytestmark = pytest.mark.skipif(allocator._glibc() is None, reason="glibc only")

# Allocate, touch and free a 4 MiB array twenty times: with glibc's defaults each one is a
# fresh mmap faulted in page by page; kept in the heap, the pages are touched once.
_SCRIPT = """
import resource, numpy as np
import taimatsu
np.ones(1 << 20, np.float32)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    a = np.ones(1 << 20, np.float32)
    del a
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(**env) -> int:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    full.update(env)
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=full, capture_output=True, text=True, timeout=120,
        check=True,
    )  # fmt: skip
    return int(out.stdout.split()[-1])


def test_freed_blocks_are_reused_without_page_faults():
    tuned = _faults()
    untuned = _faults(TAIMATSU_MALLOC_TUNING="0")
    assert tuned < 100
    assert untuned > 10 * max(tuned, 10)  # the default really does fault each block in again


def test_user_settings_are_kept(monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "0")
    assert allocator.tune_malloc() is False
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    monkeypatch.setenv("TAIMATSU_MALLOC_TUNING", "0")
    assert allocator.tune_malloc() is False
    monkeypatch.delenv("TAIMATSU_MALLOC_TUNING")
    assert allocator.tune_malloc() is True
