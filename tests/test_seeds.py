"""The seed examples print the same with taimatsu as with PyTorch.

Each script in examples/seeds runs twice in a subprocess: once as written (taimatsu), once
through examples/seeds/with_torch.py, which makes `import taimatsu` resolve to PyTorch. Their
stdout must be identical; on a mismatch the test shows a unified diff.
"""

import difflib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "examples" / "seeds"
SCRIPTS = sorted(SEEDS.glob("seed*.py"))
TIMEOUT_S = 300


def run(*args: str) -> subprocess.CompletedProcess:
    # The repository root goes first on the path, so the checkout's taimatsu is the one
    # imported even without `pip install -e .`.
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    return subprocess.run(
        [sys.executable, *args],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def test_seed_scripts_found():
    assert len(SCRIPTS) >= 5


@pytest.mark.oracle
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_seed_matches_pytorch(script, torch_oracle):
    expected = run(str(SEEDS / "with_torch.py"), str(script))
    assert expected.returncode == 0, f"the PyTorch run failed:\n{expected.stderr}"

    actual = run(str(script))
    diff = "".join(
        difflib.unified_diff(
            expected.stdout.splitlines(keepends=True),
            actual.stdout.splitlines(keepends=True),
            fromfile="pytorch",
            tofile="taimatsu",
        )
    )
    if actual.returncode != 0 or diff:
        pytest.fail(
            f"taimatsu exit code {actual.returncode}; stdout diff (PyTorch -> taimatsu):\n{diff}"
            f"\n--- taimatsu stderr (tail) ---\n{actual.stderr[-3000:]}",
            pytrace=False,
        )
