"""Driver: ``suite.py OUT part[:arg+arg],...`` joins the default group once (gloo or MPI),
runs each ``<part>_program.py`` in turn on that group, then saves this rank's results to OUT."""

import sys

from rank_io import library, run_parts, session

torch = library()
torch.distributed.init_process_group("gloo")
run_parts(torch, sys.argv[2])
session.rec.save()
