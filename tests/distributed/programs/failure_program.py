"""Ranks that go wrong: ``raise`` (rank 1 raises while rank 0 waits in a collective) or
``exit`` (rank 1 dies without a word)."""

import os
import sys

from rank_io import library

torch = library()
dist = torch.distributed
dist.init_process_group("gloo")
if dist.get_rank() == 1:
    if sys.argv[2] == "raise":
        raise ValueError("rank 1 fails on purpose")
    os._exit(3)
dist.all_reduce(torch.ones(4))  # never completes: rank 1 is gone
print("UNREACHABLE")
