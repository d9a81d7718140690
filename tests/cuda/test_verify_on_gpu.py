"""The GPU verification script (verify_on_gpu.py) in its dry mode: CuPy test double, PyTorch on
the CPU, a few entries. A GPU session runs the real mode once; this keeps the script working."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).with_name("verify_on_gpu.py")


def test_dry_run_writes_every_section(tmp_path):
    out = tmp_path / "results.md"
    cmd = [sys.executable, str(SCRIPT), "--dry-run", "--out", str(out), "--budget", "150",
           "--limit", "4", "--profile"]  # fmt: skip
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=400, check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    text = out.read_text()
    assert "DRY RUN" in text and "Traceback" not in text, text
    for title in (
        "1. Environment",
        "2. Op database",
        "3. nn table",
        "4. Examples",
        "5. Benchmarks",
        "6. Where taimatsu's training steps spend host time",
    ):
        assert f"## {title}" in text
    assert "4 entries: {'pass': 4, 'fail': 0, 'error': 0}" in text, text
    assert "| lstm_digits.py | ok |" in text, text
    assert text.count("x |") >= 6, text  # a ratio for every benchmark
