"""Run many scripts from one interpreter that imports the framework once, each script in its own
forked child, as if each were started with ``python SCRIPT ARGS...``.

A fresh interpreter per script costs an import of taimatsu or PyTorch (1-3 s of CPU each, more
without bytecode caches); forking after the import keeps each script's isolation (its own
globals, RNG state, grad mode, open files) for the cost of a fork. Each child's stdout and stderr
go to their own files, its exit status is the interpreter's (SystemExit's code, 1 and a traceback
on an uncaught exception), and its atexit handlers run.

As a program (what ``run_scripts`` starts)::

    python tests/forked_scripts.py [--torch] OUT_DIR JOBS_JSON

JOBS_JSON holds a list of argv lists; child i writes OUT_DIR/i.out, i.err and i.rc. With
``--torch`` PyTorch stands in for taimatsu (examples/seeds/with_torch.py's aliasing).
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import signal
import subprocess
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "examples" / "seeds"


def run_scripts(
    argvs: list[list[str]], *, torch: bool, out_dir: Path, env: dict, cwd: Path, timeout: float
) -> list[subprocess.CompletedProcess]:
    """One CompletedProcess per argv (stdout/stderr as str), from a single runner process.

    The runner and its children form their own session, killed whole on a timeout."""
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = out_dir / "jobs.json"
    jobs.write_text(json.dumps(argvs))
    cmd = [sys.executable, __file__, *(["--torch"] if torch else []), str(out_dir), str(jobs)]
    runner = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = runner.communicate(timeout=timeout)
    finally:
        # A child outliving a crashed or timed-out runner goes with the runner's session.
        try:
            os.killpg(runner.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        runner.wait()
    if runner.returncode != 0:
        raise RuntimeError(f"the script runner failed (rc={runner.returncode}):\n{out}\n{err}")
    return [
        subprocess.CompletedProcess(
            argv,
            int((out_dir / f"{i}.rc").read_text()),
            # Decoded as written: a "\r" stays one (text-mode reads would make it "\n").
            (out_dir / f"{i}.out").read_bytes().decode(),
            (out_dir / f"{i}.err").read_bytes().decode(),
        )
        for i, argv in enumerate(argvs)
    ]


def _exit_code(stop: SystemExit) -> int:
    # What the interpreter does with an uncaught SystemExit.
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    print(stop.code, file=sys.stderr)
    return 1


def _run_child(argv: list[str], out: Path, err: Path, path: list[str]) -> int:
    for fd, name in ((1, out), (2, err)):
        target = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = list(argv)
    sys.path[:] = [str(Path(argv[0]).resolve().parent), *path]  # as `python SCRIPT` sets it
    try:
        runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = _exit_code(stop)
    except BaseException:  # noqa: BLE001 -- the interpreter reports any uncaught exception
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def main(args: list[str]) -> None:
    use_torch = args[0] == "--torch"
    out_dir, jobs = (Path(a) for a in args[use_torch:])
    path = sys.path[1:]  # without this file's folder, which a script's run would not have
    if use_torch:
        sys.path.insert(0, str(SEEDS))
        from with_torch import alias_torch_as_taimatsu

        alias_torch_as_taimatsu()
    else:
        import taimatsu  # noqa: F401 -- imported once, before the forks

    for i, argv in enumerate(json.loads(jobs.read_text())):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _run_child(argv, out_dir / f"{i}.out", out_dir / f"{i}.err", path)
            finally:
                os._exit(code)
        status = os.waitpid(pid, 0)[1]
        (out_dir / f"{i}.rc").write_text(str(os.waitstatus_to_exitcode(status)))


if __name__ == "__main__":
    main(sys.argv[1:])
