"""Driver for ranks the program starts itself, as PyTorch's tutorials do (no MPI launcher):
``spawn_suite.py OUT LAUNCH INIT PARTS [N]``. LAUNCH is ``spawn`` (``mp.spawn``) or ``process``
(``mp.Process`` + ``join``); INIT is ``env`` (MASTER_ADDR/MASTER_PORT), ``tcp`` or ``file``.
N ranks (default 2) join with ``init_process_group("gloo", rank=, world_size=)`` and run the parts as
suite.py does, then record whether MPI was started at all."""

import datetime
import os
import socket
import sys

from rank_io import library, run_parts, session

N = int(sys.argv[5]) if len(sys.argv) > 5 else 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(rank: int, init: str, port: int, parts: str) -> None:
    torch = library()
    dist = torch.distributed
    kwargs = {}
    if init == "env":
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    elif init == "tcp":
        kwargs["init_method"] = f"tcp://127.0.0.1:{port}"
    else:
        kwargs["init_method"] = "file://" + os.path.join(sys.argv[1], "rendezvous")
    timeout = datetime.timedelta(seconds=60)
    dist.init_process_group("gloo", rank=rank, world_size=N, timeout=timeout, **kwargs)
    run_parts(torch, parts)
    session.rec["TAIMATSU mpi4py imported"] = "mpi4py" in sys.modules
    session.rec.save()


if __name__ == "__main__":
    mp = library().multiprocessing
    launch, init, parts = sys.argv[2:5]
    args = (init, free_port(), parts)
    if launch == "spawn":
        mp.spawn(run, args=args, nprocs=N, join=True)
    else:
        procs = [mp.Process(target=run, args=(rank, *args)) for rank in range(N)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        sys.exit(max(p.exitcode for p in procs))
