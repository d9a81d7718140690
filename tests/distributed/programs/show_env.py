"""Writes ``$SHOW_ENV_OUT/rank<RANK>.json``: the variables torchrun sets, argv and __name__.

(A file per rank: lines that several ranks print through mpiexec may interleave.)
"""

import json
import os
import sys

NAMES = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK",
         "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID"]  # fmt: skip
report = {"env": {k: os.environ.get(k) for k in NAMES}, "argv": sys.argv[1:], "name": __name__}
with open(os.path.join(os.environ["SHOW_ENV_OUT"], f"rank{os.environ['RANK']}.json"), "w") as f:
    json.dump(report, f)
