"""Every script in examples/ runs, so none of them rots.

- The concept examples run as written (exit 0); when PyTorch is installed they also run with
  PyTorch standing in for taimatsu (examples/seeds/with_torch.py) and must print exactly the same.
- examples/train_digits.py (the main job) runs on a 200-image subset for one or two epochs:
  checkpoint and plot are written, --resume continues bit-for-bit, a taimatsu checkpoint is
  resumed by PyTorch, and both frameworks print the same metrics. The full run (>= 97%
  validation accuracy) is marked slow.
- The VAE and the character-level GPT run for a few steps; the GPT prints the same losses and
  samples the same text with PyTorch.
- As a new user meets them: a bad argument ends in argparse's one-line error (exit 2, no
  traceback), --help shows every default, a trial run does not overwrite another run's results,
  and a log redirected to a file gets no progress-bar carriage returns.

Every example run is its own process, as on the command line; the runs are forked from one
interpreter per framework (tests/forked_scripts.py), which pays the import of taimatsu or PyTorch
once instead of once per run.
"""

import difflib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from forked_scripts import run_scripts

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


def script_env() -> dict:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    # The examples' matrices are tiny; on a busy 2-core machine OpenBLAS's threads mostly wait
    # for each other (several times slower), so the tests run BLAS on one thread.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        check=False,
        cwd=cwd,
        env=script_env(),
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
    tested |= {"mnist_hogwild.py"}
    tested |= {"see_the_graph.py"}
    tested |= {"gcn_sparse.py"}
    assert scripts <= tested, f"untested examples: {sorted(scripts - tested)}"


@pytest.fixture(scope="module")
def concept_runs(tmp_path_factory) -> dict:
    """{script: (taimatsu's run, PyTorch's run or None without PyTorch)}.

    Each script runs in its own process, forked from one interpreter per framework
    (tests/forked_scripts.py): the import of taimatsu and of PyTorch is paid once, not per script.
    """
    argvs = [[str(EXAMPLES / script)] for script in CONCEPTS]
    runs = {}
    for use_torch in (False, True):
        if use_torch and importlib.util.find_spec("torch") is None:
            runs[use_torch] = [None] * len(CONCEPTS)
            continue
        out_dir = tmp_path_factory.mktemp("concepts")
        runs[use_torch] = run_scripts(
            argvs, torch=use_torch, out_dir=out_dir, env=script_env(), cwd=ROOT, timeout=TIMEOUT_S
        )
    return dict(zip(CONCEPTS, zip(runs[False], runs[True])))


@pytest.mark.parametrize("script", CONCEPTS, ids=lambda s: s[:-3])
def test_concept_example(script, concept_runs):
    ours, theirs = concept_runs[script]
    actual = ok(ours)
    if theirs is None:
        # It ran cleanly; the comparison needs the oracle, so say it was not made.
        pytest.skip("PyTorch is not installed: the output was not compared with PyTorch's")
    expected = ok(theirs)
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


def has_example_deps() -> bool:
    return all(importlib.util.find_spec(name) for name in ("tqdm", "matplotlib"))


# Every run of an example below is made once, in one of two runners (tests/forked_scripts.py):
# taimatsu's runs, then PyTorch's. Each run is its own process forked from an interpreter that
# imported the framework once (a fresh interpreter per run paid that import ~20 times). The jobs
# run in order: a resume follows the run whose checkpoint it resumes.


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("example_runs")


def run_jobs(jobs: dict, out_dir: Path, *, torch: bool) -> dict:
    argvs = [[str(arg) for arg in argv] for argv in jobs.values()]
    results = run_scripts(
        argvs, torch=torch, out_dir=out_dir, env=script_env(), cwd=ROOT,
        timeout=TIMEOUT_S * len(argvs),
    )  # fmt: skip
    return dict(zip(jobs, results))


@pytest.fixture(scope="module")
def ours(runs_dir) -> dict:
    """{job: taimatsu's run}; the digits and VAE jobs only with their dependencies installed."""
    d = runs_dir
    jobs = {
        "lstm": [EXAMPLES / "lstm_digits.py", "--epochs", "1"],
        "char_gpt": [EXAMPLES / "char_gpt.py", "--steps", "3", "--sample-chars", "20"],
        "char_gpt_20": CHAR_GPT_20,
        "hogwild": [EXAMPLES / "mnist_hogwild.py", *HOGWILD],
        "see_the_graph": [EXAMPLES / "see_the_graph.py", "--out-dir", d / "graph"],
        "gcn": GCN,
    }
    if has_example_deps():
        jobs |= {
            "digits_help": [DIGITS, "--help"],
            "digits_bad_argument": [DIGITS, "--epochs", "-3"],
            "digits": [DIGITS, *TINY, "--out-dir", d / "full"],
            "digits_part": [DIGITS, *TINY, "--out-dir", d / "split", "--stop-after", "1"],
            "digits_rest": [DIGITS, *TINY, "--out-dir", d / "split", "--resume"],
            "digits_again": [DIGITS, *TINY, "--out-dir", d / "again"],
            "digits_other_part": [DIGITS, *TINY, "--out-dir", d / "other", "--stop-after", "1"],
            "digits_other_schedule": [DIGITS, "--epochs", "5", "--subset", "200",
                                      "--out-dir", d / "other", "--resume"],
            "digits_mixed_part": [DIGITS, *TINY, "--out-dir", d / "mixed", "--stop-after", "1"],
            "vae": [EXAMPLES / "vae_digits.py", "--epochs", "2", "--plot", d / "v.png"],
        }  # fmt: skip
    return run_jobs(jobs, d / "ours", torch=False)


@pytest.fixture(scope="module")
def theirs(runs_dir, ours, torch_oracle) -> dict:
    """{job: PyTorch's run}, after taimatsu's: one of them resumes a taimatsu checkpoint."""
    d = runs_dir
    lstm_vs_torch = d / "lstm_vs_torch.py"
    lstm_vs_torch.write_text(LSTM_VS_TORCH)
    jobs = {"lstm_vs_torch": [lstm_vs_torch], "char_gpt_20": CHAR_GPT_20, "gcn": GCN}
    if has_example_deps():
        jobs |= {
            "digits": [DIGITS, *TINY, "--out-dir", d / "theirs"],
            "digits_mixed_rest": [DIGITS, *TINY, "--out-dir", d / "mixed", "--resume"],
        }
    return run_jobs(jobs, d / "theirs_logs", torch=True)


def test_digits_help(ours, needs_example_deps):
    out = ok(ours["digits_help"])
    for flag in ["--epochs", "--batch-size", "--lr", "--device", "--seed", "--out-dir", "--resume"]:
        assert flag in out


def load_example(script: str):
    """The script as a module, without running its main(): its parser is tested in-process."""
    spec = importlib.util.spec_from_file_location(f"example_{script[:-3]}", EXAMPLES / script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def option_helps(help_text: str) -> dict:
    """--flag -> its help text, from `--help` output (argparse indents options by two spaces)."""
    options, current = {}, None
    for line in help_text.split("options:", 1)[1].splitlines():
        if line.startswith("  -"):
            current = line.split()[0].rstrip(",")
            options[current] = line
        elif current:
            options[current] += " " + line.strip()
    return options


WITH_ARGUMENTS = ["train_digits.py", "vae_digits.py", "lstm_digits.py", "char_gpt.py"]
WITH_ARGUMENTS += ["mnist_hogwild.py"]


@pytest.mark.parametrize("script", WITH_ARGUMENTS)
def test_help_shows_every_default(script, capsys, needs_example_deps):
    with pytest.raises(SystemExit) as stopped:
        load_example(script).parse_args(["--help"])
    assert stopped.value.code == 0
    options = option_helps(capsys.readouterr().out)
    assert len(options) > 2
    for text in options.values():
        metavar = text.split()[1]  # a flag without a value is off by default: nothing to show
        if metavar.isupper() or metavar[0] in "[{":
            assert "(default:" in text, text


BAD_ARGUMENTS = [
    ("train_digits.py", "--epochs", "-3"),
    ("train_digits.py", "--batch-size", "0"),
    ("train_digits.py", "--lr", "-1"),
    ("train_digits.py", "--subset", "1"),
    ("train_digits.py", "--stop-after", "0"),
    ("train_digits.py", "--seed", str(2**64)),
    ("train_digits.py", "--out-dir", "{not_a_dir}/run"),
    ("vae_digits.py", "--epochs", "0"),
    ("vae_digits.py", "--plot", "{not_a_dir}/vae.png"),
    ("lstm_digits.py", "--epochs", "-1"),
    ("char_gpt.py", "--steps", "0"),
    ("char_gpt.py", "--n-head", "3"),  # does not divide --n-embd 64
    ("char_gpt.py", "--block-size", "5000"),  # longer than the text
    ("char_gpt.py", "--text", "{not_a_dir}/text.txt"),
    ("mnist_hogwild.py", "--num-processes", "0"),
]


@pytest.mark.parametrize("script, flag, value", BAD_ARGUMENTS, ids=lambda x: str(x)[:12])
def test_bad_argument_is_one_line_error(
    tmp_path, monkeypatch, capsys, script, flag, value, needs_example_deps
):
    monkeypatch.chdir(tmp_path)
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("a file, not a directory")
    # argparse's error: exit status 2 and "PROG: error: ..." after the usage; any other
    # exception (a traceback for the user) propagates and fails the test.
    with pytest.raises(SystemExit) as stopped:
        load_example(script).parse_args([flag, value.format(not_a_dir=not_a_dir)])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and re.fullmatch(
        rf"\S+: error: .*{flag}.*", err.splitlines()[-1]
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing was written


def test_bad_argument_from_the_command_line(ours, needs_example_deps):
    r = ours["digits_bad_argument"]
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    last = r.stderr.splitlines()[-1]
    assert last == "train_digits.py: error: argument --epochs: must be a positive integer, got -3"


def test_with_torch_says_it_needs_pytorch():
    # As if PyTorch were not installed: a None entry in sys.modules makes `import torch` fail.
    hide_torch = (
        "import runpy, sys; sys.modules['torch'] = None; "
        f"sys.argv = ['with_torch.py', {str(EXAMPLES / 'broadcasting.py')!r}]; "
        f"runpy.run_path({str(WITH_TORCH)!r}, run_name='__main__')"
    )
    r = run("-c", hide_torch)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "pip install torch==2.13.0" in r.stderr and not r.stdout


def test_digits_trial_run_keeps_other_runs(tmp_path, monkeypatch, capsys, needs_example_deps):
    monkeypatch.chdir(tmp_path)  # the default run folders are relative: runs/digits...
    digits = load_example("train_digits.py")

    def files(run_dir: str) -> dict:
        return {p.name: p.read_bytes() for p in (tmp_path / run_dir).iterdir()}

    # The default settings (one epoch of the full run) and a trial run get their own folders.
    digits.main(["--stop-after", "1"])
    assert "checkpoint: runs/digits/checkpoint.pt" in capsys.readouterr().out
    before = files("runs/digits")
    digits.main(["--subset", "50", "--epochs", "1"])
    assert "checkpoint: runs/digits-epochs1-subset50/checkpoint.pt" in capsys.readouterr().out
    assert files("runs/digits") == before

    # Pointed at the full run's folder, the trial run refuses, unless told to overwrite it.
    trial_there = ["--subset", "50", "--epochs", "1", "--out-dir", "runs/digits"]
    with pytest.raises(SystemExit) as refused:
        digits.main(trial_there)
    assert str(refused.value.code).startswith(
        "runs/digits holds a run with --epochs 12 no --subset:"
    )
    assert "--overwrite" in str(refused.value.code) and files("runs/digits") == before
    digits.main([*trial_there, "--overwrite"])
    assert "--overwrite: replacing the run in runs/digits" in capsys.readouterr().out
    assert files("runs/digits") != before


def test_digits_tiny_run_and_resume(runs_dir, ours, needs_example_deps):
    redirected = ours["digits"]
    full = ok(redirected)
    # Not a terminal: no progress bar (its carriage returns would fill a log), a line per epoch.
    # (The runner hands the output over as written: a "\r" stays a "\r".)
    assert "\r" not in redirected.stdout + redirected.stderr, redirected.stderr
    assert len(epoch_lines(full)) == 2
    assert f"checkpoint: {runs_dir / 'full' / 'checkpoint.pt'}" in full
    assert f"plot: {runs_dir / 'full' / 'curves.png'}" in full
    assert (runs_dir / "full" / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list((runs_dir / "full").glob("*.tmp"))  # the atomic save cleaned up

    # Stop after one epoch, resume: the same numbers as the uninterrupted run.
    part = ok(ours["digits_part"])
    rest = ok(ours["digits_rest"])
    assert "resumed from" in rest
    assert epoch_lines(part) + epoch_lines(rest) == epoch_lines(full)

    # Same seed, same result.
    again = ok(ours["digits_again"])
    assert epoch_lines(again) == epoch_lines(full)


def test_digits_resume_refuses_other_schedule(ours, needs_example_deps):
    ok(ours["digits_other_part"])
    r = ours["digits_other_schedule"]
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
def test_digits_same_with_pytorch(ours, theirs, needs_example_deps):
    our_run = ok(ours["digits"])
    assert_metrics_close(epoch_lines(ok(theirs["digits"])), epoch_lines(our_run))
    # A checkpoint written by taimatsu is resumed by PyTorch.
    part = ok(ours["digits_mixed_part"])
    rest = ok(theirs["digits_mixed_rest"])
    assert_metrics_close(epoch_lines(our_run), epoch_lines(part) + epoch_lines(rest))


@pytest.mark.slow
def test_digits_full_run_reaches_97_percent(tmp_path, needs_example_deps):
    out = ok(run(DIGITS, "--out-dir", str(tmp_path)))
    final = float(EPOCH_LINE.match(epoch_lines(out)[-1]).group(5))
    assert final >= 97.0, out


# ---- the other workloads ------------------------------------------------------------------


def test_vae_runs(runs_dir, ours, needs_example_deps):
    out = ok(ours["vae"])
    assert "-ELBO" in out and (runs_dir / "v.png").exists()


def test_lstm_runs(ours):
    out = ok(ours["lstm"])
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
def test_lstm_layer_is_nn_lstm(theirs):
    # The written-out layer has nn.LSTM's parameters and computes what nn.LSTM computes.
    assert ok(theirs["lstm_vs_torch"]).strip() == "same"


def test_char_gpt_runs(ours):
    out = ok(ours["char_gpt"])
    assert "sample:" in out


CHAR_GPT_20 = [EXAMPLES / "char_gpt.py", "--steps", "20", "--sample-chars", "40"]


@pytest.mark.oracle
def test_char_gpt_same_with_pytorch(ours, theirs):
    # Same initialisation, batches, losses and sampled text: only the timing line differs.
    our_lines = ok(ours["char_gpt_20"]).splitlines()
    their_lines = ok(theirs["char_gpt_20"]).splitlines()
    drop = [i for i, line in enumerate(their_lines) if line.startswith("trained in")]
    assert drop and [x for i, x in enumerate(our_lines) if i not in drop] == [
        x for i, x in enumerate(their_lines) if i not in drop
    ]


HOGWILD = ["--epochs", "2", "--num-processes", "2", "--start-method", "fork"]


def test_hogwild_trains_one_shared_model(ours):
    # The main process only evaluates: its accuracy comes from the two processes' updates to
    # the shared parameters (an unshared model would stay at chance, ~10%). Hogwild's lock-free
    # updates race, so the accuracy varies from run to run (64.6-80% seen; 70 was a flaky bar,
    # and 40 failed once at 39.83% with three jobs on the two cores): 25 still tells a shared
    # model from an unshared one.
    out = ok(ours["hogwild"])
    assert "process 0 " in out and "process 1 " in out
    accuracy = float(re.search(r"accuracy ([\d.]+)% \(2 processes\)", out).group(1))
    assert accuracy > 25, out


def test_see_the_graph_runs(runs_dir, ours):
    out = ok(ours["see_the_graph"])
    assert "AccumulateGrad #" in out and "[fc1.weight (16, 1) float32]" in out
    assert (runs_dir / "graph" / "graph.dot").read_text().startswith("digraph autograd {")
    assert "fc1.weight.grad is None" in out
    cut = r"fc1\.weight: the path from the loss to fc1\.weight was cut by \.detach\(\) at \S*see_the_graph\.py:\d+"
    assert re.search(cut, out)


GCN = [EXAMPLES / "gcn_sparse.py", "--nodes", "200", "--epochs", "100"]


def test_gcn_sparse_trains(ours):
    # The graph lifts the accuracy well above what the noisy features give on their own.
    out = ok(ours["gcn"])
    test_acc = float(re.findall(r"test acc ([\d.]+)", out)[-2])
    alone = float(re.search(r"features only \(no graph\): test acc ([\d.]+)", out).group(1))
    assert "(torch.sparse_coo)" in out
    assert test_acc >= 0.9 and test_acc > alone + 0.2, out


@pytest.mark.oracle
def test_gcn_sparse_same_with_pytorch(ours, theirs):
    # Same graph, initialisation, dropout masks, losses and accuracies: only the timing differs.
    our_lines = [x for x in ok(ours["gcn"]).splitlines() if not x.startswith("trained in")]
    their_lines = [x for x in ok(theirs["gcn"]).splitlines() if not x.startswith("trained in")]
    assert our_lines == their_lines
