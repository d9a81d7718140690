"""Driver: ``suite.py OUT part[:arg+arg],...`` joins the default group once (gloo or MPI),
runs each ``<part>_program.py`` in turn on that group, then saves this rank's results to OUT."""

import runpy
import sys
from pathlib import Path

from rank_io import Recorder, library, session

torch = library()
dist = torch.distributed
dist.init_process_group("gloo")
session.torch, session.dist = torch, dist
session.rank, session.n = dist.get_rank(), dist.get_world_size()
session.rec = Recorder(session.rank)
session.rec["rank_size_backend"] = [
    session.rank,
    session.n,
    dist.get_backend(),
    dist.is_initialized(),
]
for spec in sys.argv[2].split(","):
    name, _, args = spec.partition(":")
    session.args = args.split("+") if args else []
    runpy.run_path(str(Path(__file__).with_name(f"{name}_program.py")))
dist.barrier()
dist.destroy_process_group()
session.rec["initialized after destroy"] = dist.is_initialized()
session.rec.save()
