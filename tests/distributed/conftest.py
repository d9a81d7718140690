"""One run of the rank programs per world size, shared by the test files of this folder.

For 2 and 3 ranks, ``programs/suite.py`` runs the collectives and DDP parts once under
PyTorch's gloo (the oracle) and once under taimatsu with mpiexec; the tests then compare the
recorded results. Sharing the runs keeps the folder's rank launches to four.
"""

from __future__ import annotations

import pytest
from launch import DDP_CONFIGS, require_mpi, run_taimatsu, run_torch

PARTS = {
    2: "collectives,ddp:" + "+".join([*DDP_CONFIGS[2], "mixed", "error_unused", "sampler"]),
    3: "collectives,ddp:" + "+".join(DDP_CONFIGS[3]),
}


@pytest.fixture(scope="session")
def rank_runs(tmp_path_factory, torch_oracle):
    """``{n: (taimatsu results, torch results)}``, each a list of per-rank dicts."""
    require_mpi()
    runs = {}
    for n, parts in PARTS.items():
        ours = run_taimatsu(
            "suite.py", n, tmp_path_factory.mktemp(f"tai{n}"), args=[parts + ",mismatch"]
        )
        theirs = run_torch("suite.py", n, tmp_path_factory.mktemp(f"torch{n}"), args=[parts])
        runs[n] = (ours, theirs)
    return runs
