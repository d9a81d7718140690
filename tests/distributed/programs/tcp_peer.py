"""Rank 1 of a 2-rank TCP world whose rank 0 is the test process: ``tcp_peer.py MODE URL``.

MODE ``late``: wait 2 s, then a barrier and an all-reduce of a tensor of ones, then destroy the
group; ``exit``: die right after joining (os._exit, no goodbye)."""

import datetime
import os
import sys
import time

import taimatsu as torch

dist = torch.distributed
mode, url = sys.argv[1:3]
dist.init_process_group("gloo", init_method=url, rank=1, world_size=2, timeout=datetime.timedelta(seconds=20))  # fmt: skip
if mode == "exit":
    os._exit(3)
time.sleep(2)
dist.barrier()
t = torch.ones(3)
dist.all_reduce(t)
print(t.tolist())
dist.destroy_process_group()
