"""The seed examples print the same with taimatsu as with PyTorch.

Each script in examples/seeds runs twice, each time in its own process: once as written
(taimatsu), once with PyTorch standing in for taimatsu (examples/seeds/with_torch.py's aliasing).
Their stdout must be identical; on a mismatch the test shows a unified diff. The processes are
forked from one interpreter per framework (tests/forked_scripts.py), which pays each import once.
"""

import difflib
import os
from pathlib import Path

import pytest
from forked_scripts import run_scripts

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "examples" / "seeds"
SCRIPTS = sorted(SEEDS.glob("seed*.py"))
TIMEOUT_S = 300


@pytest.fixture(scope="module")
def runs(tmp_path_factory, torch_oracle) -> dict:
    """{script: (PyTorch's run, taimatsu's run)}, every script run once per framework."""
    # The repository root goes first on the path, so the checkout's taimatsu is the one
    # imported even without `pip install -e .`.
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    argvs = [[str(script)] for script in SCRIPTS]
    theirs, ours = (
        run_scripts(argvs, torch=use_torch, out_dir=tmp_path_factory.mktemp("seeds"), env=env,
                    cwd=ROOT, timeout=TIMEOUT_S)
        for use_torch in (True, False)
    )  # fmt: skip
    return dict(zip(SCRIPTS, zip(theirs, ours)))


def test_seed_scripts_found():
    assert len(SCRIPTS) >= 5


@pytest.mark.oracle
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_seed_matches_pytorch(script, runs):
    expected, actual = runs[script]
    assert expected.returncode == 0, f"the PyTorch run failed:\n{expected.stderr}"

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
