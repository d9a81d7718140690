"""torch.set_flush_denormal sets the CPU's flush-to-zero / denormals-are-zero modes (x86-64)."""

from __future__ import annotations

import platform
import threading

import pytest

import taimatsu

pytestmark = pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64"), reason="MXCSR is x86-64's"
)


def _observe(T):
    """Results under flush_denormal(True), in this thread and a thread started afterwards, and
    after flush_denormal(False); the mode is always switched off again."""
    seen = {}
    try:
        seen["set"] = T.set_flush_denormal(True)
        seen["f32"] = (T.tensor([1e-39]) * 1).tolist()
        seen["f64"] = (T.tensor([1e-39, 1e-320], dtype=T.float64) * 1).tolist()
        seen["made"] = T.tensor([1e-39]).tolist()
        box = []
        t = threading.Thread(target=lambda: box.append((T.tensor([1e-39]) * 1).tolist()))
        t.start()
        t.join()
        seen["thread"] = box
    finally:
        seen["unset"] = T.set_flush_denormal(False)
    seen["after"] = (T.tensor([1e-39]) * 1).tolist()
    return seen


def test_flush_denormal_as_pytorch(torch_oracle):
    ours = _observe(taimatsu)
    theirs = _observe(torch_oracle)  # both set the same thread's MXCSR: one after the other
    assert ours == theirs
    assert ours["f32"] == [0.0] and ours["after"] != [0.0]
