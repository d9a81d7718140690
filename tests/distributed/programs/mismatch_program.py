"""taimatsu only: mismatched collectives raise on every rank; a late rank times out a
monitored barrier (gloo would hang or crash on these)."""

import datetime
import time

from rank_io import session

torch, dist, rec, rank = session.torch, session.dist, session.rec, session.rank
try:
    dist.all_reduce(torch.ones(2 + rank))
except RuntimeError as e:
    rec["mismatch all_reduce"] = e
try:
    dist.broadcast(torch.ones(3, dtype=torch.float64 if rank else torch.float32), src=0)
except RuntimeError as e:
    rec["mismatch broadcast"] = e
if rank == 0:  # the others are late: the monitored barrier gives up after its timeout
    try:
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=0.5))
    except RuntimeError as e:
        rec["monitored_barrier"] = e
else:  # rank 0 gave up before they came: nobody releases them, their own wait times out
    time.sleep(2.0)
    try:
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=0.5))
    except RuntimeError as e:
        rec["late monitored_barrier"] = e
t = torch.arange(3.0)
dist.all_reduce(t)  # the group still works afterwards
rec["after errors"] = t
