"""Every script in examples/ runs, so none of them rots.

- The concept examples run as written (exit 0); when PyTorch is installed they also run through
  examples/seeds/with_torch.py and must print exactly the same.
- examples/train_digits.py (the main job) runs on a 200-image subset for one or two epochs:
  checkpoint and plot are written, --resume continues bit-for-bit, a taimatsu checkpoint is
  resumed by PyTorch, and both frameworks print the same metrics. The full run (>= 97%
  validation accuracy) is marked slow.
- The VAE and the character-level GPT run for a few steps; the GPT prints the same losses and
  samples the same text with PyTorch.
"""

import difflib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
WITH_TORCH = EXAMPLES / "seeds" / "with_torch.py"
# Scripts that print the same with taimatsu and PyTorch, and take no arguments.
CONCEPTS = [
    "detach_clone_copy.py",
    "requires_grad_and_graph.py",
    "inplace_version_counter.py",
    "numpy_shared_memory.py",
    "broadcasting.py",
    "custom_function.py",
    "gan_detach.py",
]
TIMEOUT_S = 300


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    # The examples' matrices are tiny; on a busy 2-core machine OpenBLAS's threads mostly wait
    # for each other (several times slower), so the tests run BLAS on one thread.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return subprocess.run(
        [sys.executable, *args],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_every_example_is_tested():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    tested = set(CONCEPTS) | {"train_digits.py", "vae_digits.py", "char_gpt.py", "lstm_digits.py"}
    assert scripts <= tested, f"untested examples: {sorted(scripts - tested)}"


@pytest.mark.parametrize("script", CONCEPTS, ids=lambda s: s[:-3])
def test_concept_example(script):
    actual = ok(run(str(EXAMPLES / script)))
    if importlib.util.find_spec("torch") is None:
        return  # the comparison with PyTorch needs the oracle; running cleanly is checked
    expected = ok(run(str(WITH_TORCH), str(EXAMPLES / script)))
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile="pytorch",
            tofile="taimatsu",
        )
    )
    assert not diff, f"stdout diff (PyTorch -> taimatsu):\n{diff}"


# ---- the main job -------------------------------------------------------------------------

DIGITS = str(EXAMPLES / "train_digits.py")
TINY = ["--epochs", "2", "--subset", "200", "--batch-size", "32"]
EPOCH_LINE = re.compile(
    r"^epoch (\d+)/\d+: train loss ([\d.]+) acc ([\d.]+)% \| val loss ([\d.]+) acc ([\d.]+)%$"
)


def epoch_lines(stdout: str) -> list:
    return [line for line in stdout.splitlines() if EPOCH_LINE.match(line)]


@pytest.fixture(autouse=False)
def needs_example_deps():
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")


def test_digits_help(needs_example_deps):
    out = ok(run(DIGITS, "--help"))
    for flag in ["--epochs", "--batch-size", "--lr", "--device", "--seed", "--out-dir", "--resume"]:
        assert flag in out


def test_digits_tiny_run_and_resume(tmp_path, needs_example_deps):
    full = ok(run(DIGITS, *TINY, "--out-dir", str(tmp_path / "full")))
    assert len(epoch_lines(full)) == 2
    assert f"checkpoint: {tmp_path / 'full' / 'checkpoint.pt'}" in full
    assert f"plot: {tmp_path / 'full' / 'curves.png'}" in full
    assert (tmp_path / "full" / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list((tmp_path / "full").glob("*.tmp"))  # the atomic save cleaned up

    # Stop after one epoch, resume: the same numbers as the uninterrupted run.
    part = ok(run(DIGITS, *TINY, "--out-dir", str(tmp_path / "split"), "--stop-after", "1"))
    rest = ok(run(DIGITS, *TINY, "--out-dir", str(tmp_path / "split"), "--resume"))
    assert "resumed from" in rest
    assert epoch_lines(part) + epoch_lines(rest) == epoch_lines(full)

    # Same seed, same result.
    again = ok(run(DIGITS, *TINY, "--out-dir", str(tmp_path / "again")))
    assert epoch_lines(again) == epoch_lines(full)


def test_digits_resume_refuses_other_schedule(tmp_path, needs_example_deps):
    ok(run(DIGITS, *TINY, "--out-dir", str(tmp_path), "--stop-after", "1"))
    r = run(DIGITS, "--epochs", "5", "--subset", "200", "--out-dir", str(tmp_path), "--resume")
    assert r.returncode != 0 and "was written by a run with --epochs 2" in r.stderr


def assert_metrics_close(expected: list, actual: list) -> None:
    # Float32 sums in a different order may move a loss in its 4th decimal, or flip one
    # borderline prediction; the trajectories must otherwise agree.
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        ev = [float(v) for v in EPOCH_LINE.match(e).groups()]
        av = [float(v) for v in EPOCH_LINE.match(a).groups()]
        assert ev[0] == av[0]
        assert abs(ev[1] - av[1]) < 2e-3 and abs(ev[3] - av[3]) < 2e-3, (e, a)
        assert abs(ev[2] - av[2]) < 1.0 and abs(ev[4] - av[4]) < 2.0, (e, a)


@pytest.mark.oracle
def test_digits_same_with_pytorch(tmp_path, torch_oracle, needs_example_deps):
    ours = ok(run(DIGITS, *TINY, "--out-dir", str(tmp_path / "ours")))
    theirs = ok(run(str(WITH_TORCH), DIGITS, *TINY, "--out-dir", str(tmp_path / "theirs")))
    assert_metrics_close(epoch_lines(theirs), epoch_lines(ours))
    # A checkpoint written by taimatsu is resumed by PyTorch.
    part = ok(run(DIGITS, *TINY, "--out-dir", str(tmp_path / "mixed"), "--stop-after", "1"))
    rest = ok(run(str(WITH_TORCH), DIGITS, *TINY, "--out-dir", str(tmp_path / "mixed"), "--resume"))
    assert_metrics_close(epoch_lines(ours), epoch_lines(part) + epoch_lines(rest))


@pytest.mark.slow
def test_digits_full_run_reaches_97_percent(tmp_path, needs_example_deps):
    out = ok(run(DIGITS, "--out-dir", str(tmp_path)))
    final = float(EPOCH_LINE.match(epoch_lines(out)[-1]).group(5))
    assert final >= 97.0, out


# ---- the other workloads ------------------------------------------------------------------


def test_vae_runs(tmp_path, needs_example_deps):
    out = ok(
        run(str(EXAMPLES / "vae_digits.py"), "--epochs", "2", "--plot", str(tmp_path / "v.png"))
    )
    assert "-ELBO" in out and (tmp_path / "v.png").exists()


def test_lstm_runs():
    out = ok(run(str(EXAMPLES / "lstm_digits.py"), "--epochs", "1"))
    assert "validation accuracy" in out


LSTM_VS_TORCH = """
import runpy, sys
sys.path.insert(0, "examples/seeds")
from with_torch import alias_torch_as_taimatsu
import torch
alias_torch_as_taimatsu()
ours = runpy.run_path("examples/lstm_digits.py", run_name="lstm")["LSTM"](8, 16)
theirs = torch.nn.LSTM(8, 16, batch_first=True)
theirs.load_state_dict(ours.state_dict())
x = torch.randn(5, 7, 8)
(a, (ha, ca)), (b, (hb, cb)) = ours(x), theirs(x)
torch.testing.assert_close(a, b); torch.testing.assert_close(ha, hb); torch.testing.assert_close(ca, cb)
print("same")
"""


@pytest.mark.oracle
def test_lstm_layer_is_nn_lstm(torch_oracle):
    # The written-out layer has nn.LSTM's parameters and computes what nn.LSTM computes.
    assert ok(run("-c", LSTM_VS_TORCH)).strip() == "same"


def test_char_gpt_runs():
    out = ok(run(str(EXAMPLES / "char_gpt.py"), "--steps", "3", "--sample-chars", "20"))
    assert "sample:" in out


@pytest.mark.oracle
def test_char_gpt_same_with_pytorch(torch_oracle):
    # Same initialisation, batches, losses and sampled text: only the timing line differs.
    args = [str(EXAMPLES / "char_gpt.py"), "--steps", "20", "--sample-chars", "40"]
    ours = ok(run(*args)).splitlines()
    theirs = ok(run(str(WITH_TORCH), *args)).splitlines()
    drop = [i for i, line in enumerate(theirs) if line.startswith("trained in")]
    assert drop and [x for i, x in enumerate(ours) if i not in drop] == [
        x for i, x in enumerate(theirs) if i not in drop
    ]
