"""``monitored_barrier`` with late ranks: ``monitored_barrier_program.py OUT PORT N``.

``mp.Process`` starts N ranks joined over tcp://; all pass one monitored barrier in time, then
ranks 1.. arrive late at the next one (once with ``wait_all_ranks``), and rank 0 records what
it raised. The group is then left and joined again (PyTorch's gloo aborts it after the failure)."""

import datetime
import sys
import time

from rank_io import Recorder, library

OUT, PORT, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def run(rank: int) -> None:
    torch = library()
    dist = torch.distributed
    rec = Recorder(rank)
    for i, wait_all in enumerate((False, True)):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{PORT + i}", rank=rank, world_size=N, timeout=datetime.timedelta(seconds=20))  # fmt: skip
        rec[f"in time {wait_all}"] = dist.monitored_barrier(timeout=datetime.timedelta(seconds=10))
        if rank > 0:
            time.sleep(1.0)
        try:
            dist.monitored_barrier(timeout=datetime.timedelta(milliseconds=500), wait_all_ranks=wait_all)  # fmt: skip
            outcome = None
        except RuntimeError as e:
            outcome = e
        if rank == 0:  # the late ranks fail too, but differently (see collectives.py)
            rec[f"late {wait_all}"] = outcome
        else:
            rec[f"late {wait_all} failed"] = outcome is not None
        try:
            dist.destroy_process_group()
        except RuntimeError:
            pass
    rec.save()


if __name__ == "__main__":
    mp = library().multiprocessing
    procs = [mp.Process(target=run, args=(rank,)) for rank in range(N)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    sys.exit(max(p.exitcode for p in procs))
