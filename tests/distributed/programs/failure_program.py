"""Ranks that go wrong: ``raise`` (one rank raises while the others wait in a collective),
``exit`` (one rank dies without a word), ``mismatch`` (shapes differ between ranks)."""

import datetime
import os
import sys
import time

from rank_io import Recorder, library

torch = library()
dist = torch.distributed
dist.init_process_group("gloo")
rank = dist.get_rank()
mode = sys.argv[2]
if mode == "mismatch":
    rec = Recorder(rank)
    try:
        dist.all_reduce(torch.ones(2 + rank))
    except RuntimeError as e:
        rec["all_reduce"] = e
    try:
        dist.broadcast(torch.ones(3, dtype=torch.float64 if rank else torch.float32), src=0)
    except RuntimeError as e:
        rec["broadcast"] = e
    if rank == 0:  # rank 1 is late: the monitored barrier gives up after its timeout
        try:
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=0.5))
        except RuntimeError as e:
            rec["monitored_barrier"] = e
    else:
        time.sleep(2.0)
        dist.barrier()  # meets rank 0's abandoned barrier
    rec.save()
elif rank == 1:
    if mode == "raise":
        raise ValueError("rank 1 fails on purpose")
    os._exit(3)
else:
    dist.all_reduce(torch.ones(4))  # never completes: rank 1 is gone
    print("UNREACHABLE")
