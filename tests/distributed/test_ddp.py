"""DistributedDataParallel on 2 and 3 ranks: the same gradients and parameters as one process
on the whole batch, and as PyTorch's DDP over gloo, in every configuration."""

from __future__ import annotations

import pytest
from launch import DDP_CONFIGS
from test_collectives import close

CASES = [(n, config) for n, configs in DDP_CONFIGS.items() for config in configs]


@pytest.mark.parametrize(("n", "config"), CASES)
def test_ddp_matches_single_process(rank_runs, n, config):
    ours, _ = rank_runs[n]
    rel = 2e-3 if config == "fp16_hook" else 1e-5
    for rank in range(len(ours)):
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


@pytest.mark.parametrize(("n", "config"), CASES)
def test_ddp_matches_pytorch_ddp(rank_runs, n, config):
    ours, theirs = rank_runs[n]
    compared = 0
    for rank in range(len(ours)):
        for key, expected in theirs[rank].items():
            if key.startswith(config + " "):
                assert close(ours[rank][key], expected, 1e-5), key
                compared += 1
    assert compared >= 6 * len(ours)


def test_mixed_dtypes_and_batchnorm_buffers_match_pytorch_ddp(rank_runs):
    ours, theirs = rank_runs[2]
    for rank in range(2):
        for key in ("mixed params", "mixed buffers"):
            assert close(ours[rank][key], theirs[rank][key], 1e-5), (rank, key)


def test_unfinished_reduction_error_and_sampler_match(rank_runs):
    ours, theirs = rank_runs[2]
    for rank in range(2):
        assert ours[rank]["error_unused"] == theirs[rank]["error_unused"]
        assert ours[rank]["sampler"] == theirs[rank]["sampler"]
