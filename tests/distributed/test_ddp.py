"""DistributedDataParallel on 2 ranks: the same gradients and parameters as one process on the
whole batch, and as PyTorch's DDP over gloo, in every configuration."""

from __future__ import annotations

import pytest
from launch import require_mpi, run_taimatsu, run_torch
from test_collectives import close

CONFIGS = ["default", "buckets", "view", "unused", "no_sync", "allreduce_hook", "fp16_hook"]
ARGS = [",".join([*CONFIGS, "error_unused", "sampler"])]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, torch_oracle):
    require_mpi()
    ours = run_taimatsu("ddp_program.py", 2, tmp_path_factory.mktemp("tai"), args=ARGS)
    theirs = run_torch("ddp_program.py", 2, tmp_path_factory.mktemp("torch"), args=ARGS)
    return ours, theirs


@pytest.mark.parametrize("config", CONFIGS)
def test_ddp_matches_single_process(runs, config):
    ours, _ = runs
    rel = 2e-3 if config == "fp16_hook" else 1e-5
    for rank in range(2):
        assert close(ours[rank][f"{config} params"], ours[0][f"{config} ref params"], rel), rank
        for step in range(3):
            got = ours[rank][f"{config} step{step} grads"]
            ref = ours[0][f"{config} step{step} ref grads"]
            if config == "unused":  # the unused layer keeps grad None, as in PyTorch
                assert got[4:] == [None, None] and ref[4:] == [None, None]
                got, ref = got[:4], ref[:4]
            assert close(got, ref, rel), (rank, step)
        # rank 0's buffer was broadcast to every rank
        assert ours[rank][f"{config} buffer"]["values"] == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("config", CONFIGS)
def test_ddp_matches_pytorch_ddp(runs, config):
    ours, theirs = runs
    for rank in range(2):
        for key, expected in theirs[rank].items():
            if key.startswith(config + " "):
                assert close(ours[rank][key], expected, 1e-5), key


def test_unfinished_reduction_error_and_sampler_match(runs):
    ours, theirs = runs
    for rank in range(2):
        assert ours[rank]["error_unused"] == theirs[rank]["error_unused"]
        assert ours[rank]["sampler"] == theirs[rank]["sampler"]
