"""One rank's entry point under ``taimatsu.distributed.run``: torchrun's per-rank variables
from the MPI launcher's, then the user's script (or module, or program) in this process.

MPICH's hydra gives ``PMI_RANK`` and ``MPI_LOCALRANKID``; Open MPI gives
``OMPI_COMM_WORLD_RANK`` and ``OMPI_COMM_WORLD_LOCAL_RANK``.
"""

from __future__ import annotations

import os
import runpy
import sys


def rank_environment(environ=os.environ) -> dict:
    """``RANK``, ``LOCAL_RANK``, ``GROUP_RANK``, ``ROLE_RANK`` for this process."""
    rank = environ.get("PMI_RANK", environ.get("OMPI_COMM_WORLD_RANK"))
    local = environ.get("MPI_LOCALRANKID", environ.get("OMPI_COMM_WORLD_LOCAL_RANK"))
    if rank is None:
        raise SystemExit("taimatsu.distributed.rank_main: not started by an MPI launcher")
    nproc = int(environ.get("TAIMATSU_NPROC_PER_NODE", "1"))
    if local is None:
        local = str(int(rank) % nproc)
    return {
        "RANK": rank,
        "LOCAL_RANK": local,
        "ROLE_RANK": rank,
        "GROUP_RANK": str(int(rank) // nproc),
    }


def main(argv: list[str]) -> None:
    os.environ.update(rank_environment())
    # This file runs as a script, so sys.path[0] is its folder: give that slot to what
    # ``python script.py`` / ``python -m module`` would have put there instead.
    if argv and argv[0] == "-m":
        sys.argv = argv[1:]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv and argv[0] == "--no-python":
        os.execvp(argv[1], argv[1:])
    else:
        sys.argv = argv
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
