"""``python -m taimatsu.distributed.run``: torchrun's command line, with MPI starting the ranks.

    python -m taimatsu.distributed.run --nproc-per-node 2 train.py --lr 0.1
    python -m taimatsu.distributed.run --nnodes 2 --nproc-per-node 4 --hostfile hosts train.py

The ranks are started by the MPI implementation's launcher (``mpiexec``: the pip ``mpich``
wheel's, next to this Python, else the one on PATH, or ``$TAIMATSU_MPIEXEC``); each one
runs ``script`` (or ``-m module``) with the environment torchrun gives it: ``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``ROLE_RANK``,
``ROLE_WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``, ``TORCHELASTIC_RUN_ID`` (and
``OMP_NUM_THREADS=1`` unless set, with torchrun's notice).

Deviation: several machines are started once, from the first one, through a hostfile (one
host name per line, MPICH's ``host:slots`` accepted): MPI launches every node's ranks over
ssh. Run on a node with ``--node-rank`` other than 0, the launcher explains this and exits.
Elastic options (``--max-restarts``, ``--rdzv-*``) are accepted and ignored.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import uuid
from pathlib import Path


def _flag(parser, name: str, **kwargs) -> None:
    """``--nproc-per-node`` also spelled ``--nproc_per_node``, as torchrun accepts both."""
    parser.add_argument(name, name.replace("-", "_").replace("__", "--"), **kwargs)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m taimatsu.distributed.run",
        description="Start N copies of a training script as the ranks of one process group "
        "(torchrun's options; MPI's launcher underneath).",
    )
    _flag(p, "--nnodes", default="1", help="number of machines, or MIN:MAX (MAX is used)")
    _flag(p, "--nproc-per-node", default="1", help="ranks per machine (default: 1)")
    _flag(p, "--node-rank", type=int, default=0, help="this machine's index (only 0 launches)")
    _flag(p, "--master-addr", default="127.0.0.1", help="exported as MASTER_ADDR")
    _flag(p, "--master-port", type=int, default=29500, help="exported as MASTER_PORT")
    p.add_argument("--standalone", action="store_true", help="single machine (the default here)")
    p.add_argument("--hostfile", type=Path, default=None, help="MPI hostfile for several machines")  # fmt: skip
    _flag(p, "--run-id", default=None, help="exported as TORCHELASTIC_RUN_ID")
    for ignored in (
        "--max-restarts",
        "--rdzv-backend",
        "--rdzv-endpoint",
        "--rdzv-id",
        "--rdzv-conf",
        "--monitor-interval",
        "--log-dir",
        "--redirects",
        "--tee",
        "--role",
    ):
        _flag(p, ignored, default=None, help=argparse.SUPPRESS)
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")  # fmt: skip
    p.add_argument("--no-python", "--no_python", action="store_true", help="run the script as a program")  # fmt: skip
    p.add_argument("training_script", help="the script (or module) every rank runs")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p.parse_args(argv)


def find_mpiexec() -> str:
    """``$TAIMATSU_MPIEXEC``, else the mpiexec next to this Python, else the one on PATH."""
    chosen = os.environ.get("TAIMATSU_MPIEXEC")
    if chosen:
        return chosen
    local = Path(sys.executable).parent / "mpiexec"
    if local.exists():
        return str(local)
    found = shutil.which("mpiexec")
    if found is None:
        raise SystemExit(
            "taimatsu.distributed.run: no mpiexec found; install an MPI implementation "
            "(pip install mpi4py mpich) or set TAIMATSU_MPIEXEC"
        )
    return found


def _nproc(text: str) -> int:
    if text in ("auto", "cpu"):
        return os.cpu_count() or 1
    if text == "gpu":
        from .. import cuda

        return max(cuda.device_count(), 1)
    return int(text)


def build_command(args: argparse.Namespace) -> tuple[list[str], dict]:
    """The mpiexec command line and the environment every rank shares."""
    nnodes = int(str(args.nnodes).split(":")[-1])
    nproc = _nproc(args.nproc_per_node)
    if nnodes > 1 and args.node_rank != 0:
        raise SystemExit(
            "taimatsu.distributed.run: with MPI, every machine's ranks are started from node "
            "0 (run the launcher once there with --hostfile); nothing to do on --node-rank "
            f"{args.node_rank}"
        )
    if nnodes > 1 and args.hostfile is None:
        raise SystemExit(
            "taimatsu.distributed.run: --nnodes > 1 needs --hostfile (one host per line) so MPI "
            "can start the ranks on every machine"
        )
    env = {
        "MASTER_ADDR": args.master_addr,
        "MASTER_PORT": str(args.master_port),
        "WORLD_SIZE": str(nnodes * nproc),
        "ROLE_WORLD_SIZE": str(nnodes * nproc),
        "LOCAL_WORLD_SIZE": str(nproc),
        "TORCHELASTIC_RUN_ID": args.run_id or uuid.uuid4().hex[:12],
        "TAIMATSU_NPROC_PER_NODE": str(nproc),
    }
    if nproc > 1 and "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = "1"
        print(
            "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
            "to avoid your system being overloaded, please further tune the variable for "
            "optimal performance in your application as needed.",
            file=sys.stderr,
        )
    cmd = [find_mpiexec(), "-n", str(nnodes * nproc)]
    if args.hostfile is not None:
        cmd += ["-f", str(args.hostfile), "-ppn", str(nproc)]
    for name, value in env.items():  # hydra's -genv reaches the ranks on every machine
        cmd += ["-genv", name, value]
    # rank_main.py runs as a file, not ``-m``: a rank then imports taimatsu only if the script does.
    cmd += [sys.executable, str(Path(__file__).with_name("rank_main.py"))]
    if args.module:
        cmd.append("-m")
    elif args.no_python:
        cmd.append("--no-python")
    cmd += [args.training_script, *args.training_script_args]
    return cmd, env


def main(argv=None) -> None:
    args = parse_args(argv)
    cmd, env = build_command(args)
    sys.stdout.flush()
    # mpiexec replaces this process: Ctrl-C and the exit status go straight to and from it.
    os.execve(cmd[0], cmd, {**os.environ, **env})


if __name__ == "__main__":
    main()
