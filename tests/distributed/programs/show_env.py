"""Prints, as one JSON line per rank, the variables torchrun sets and the script's argv."""

import json
import os
import sys

NAMES = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK",
         "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID"]  # fmt: skip
print(
    "ENV "
    + json.dumps(
        {"env": {k: os.environ.get(k) for k in NAMES}, "argv": sys.argv[1:], "name": __name__}
    ),
    flush=True,
)
