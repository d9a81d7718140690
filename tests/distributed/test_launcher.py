"""``python -m taimatsu.distributed.run``: torchrun's CLI and environment, ranks through mpiexec."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from launch import HERE, REPO, launch_raw, require_mpi

from taimatsu.distributed import run
from taimatsu.distributed.rank_main import rank_environment


def _ranks(out: Path) -> list[dict]:
    found = [json.loads(f.read_text()) for f in out.glob("rank*.json")]
    return sorted(found, key=lambda r: int(r["env"]["RANK"]))


@pytest.mark.parametrize("as_module", [False, True], ids=["script", "module"])
def test_launcher_sets_torchrun_environment(as_module, tmp_path):
    require_mpi()
    target = ["-m", "show_env"] if as_module else [str(HERE / "programs" / "show_env.py")]
    cmd = [sys.executable, "-m", "taimatsu.distributed.run", "--nproc_per_node", "2",
           "--master-port", "29777", *target, "--lr", "0.1"]  # fmt: skip
    done = launch_raw(cmd, timeout=90, SHOW_ENV_OUT=str(tmp_path))
    assert done.returncode == 0, done.stderr
    ranks = _ranks(tmp_path)
    assert [r["env"]["RANK"] for r in ranks] == ["0", "1"]
    for i, r in enumerate(ranks):
        env = r["env"]
        assert env["LOCAL_RANK"] == env["ROLE_RANK"] == str(i)
        assert env["WORLD_SIZE"] == env["LOCAL_WORLD_SIZE"] == env["ROLE_WORLD_SIZE"] == "2"
        assert env["GROUP_RANK"] == "0"
        assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == ("127.0.0.1", "29777")
        assert env["TORCHELASTIC_RUN_ID"] == ranks[0]["env"]["TORCHELASTIC_RUN_ID"]
        assert r["argv"] == ["--lr", "0.1"]
        assert r["name"] == "__main__"
    # torchrun's notice that it set OMP_NUM_THREADS=1: only when the user had not set it
    assert ("OMP_NUM_THREADS" in done.stderr) == ("OMP_NUM_THREADS" not in os.environ)


def test_launcher_exit_status_is_the_ranks(tmp_path):
    require_mpi()
    script = tmp_path / "fail.py"
    script.write_text("import sys\nsys.exit(7)\n")
    cmd = [sys.executable, "-m", "taimatsu.distributed.run", "--nproc-per-node", "2", str(script)]
    assert launch_raw(cmd, timeout=90).returncode == 7


def test_multi_node_command(tmp_path, monkeypatch):
    monkeypatch.setenv("TAIMATSU_MPIEXEC", "/opt/mpi/bin/mpiexec")
    hosts = tmp_path / "hosts"
    args = run.parse_args(
        ["--nnodes", "2", "--nproc-per-node", "4", "--hostfile", str(hosts), "train.py", "--x"]
    )
    cmd, env = run.build_command(args)
    assert cmd[:3] == ["/opt/mpi/bin/mpiexec", "-n", "8"]
    assert cmd[3:7] == ["-f", str(hosts), "-ppn", "4"]
    assert cmd[-2:] == ["train.py", "--x"]
    assert env["WORLD_SIZE"] == "8" and env["LOCAL_WORLD_SIZE"] == "4"
    for argv, message in (
        (["--nnodes", "2", "train.py"], "needs --hostfile"),
        (["--nnodes", "2", "--node-rank", "1", "--hostfile", str(hosts), "train.py"], "node 0"),
    ):
        with pytest.raises(SystemExit, match=message):
            run.build_command(run.parse_args(argv))


def test_rank_environment_from_mpich_and_open_mpi():
    env = rank_environment(
        {"PMI_RANK": "5", "MPI_LOCALRANKID": "1", "TAIMATSU_NPROC_PER_NODE": "4"}
    )
    assert env == {"RANK": "5", "LOCAL_RANK": "1", "ROLE_RANK": "5", "GROUP_RANK": "1"}
    env = rank_environment(
        {
            "OMPI_COMM_WORLD_RANK": "2",
            "OMPI_COMM_WORLD_LOCAL_RANK": "0",
            "TAIMATSU_NPROC_PER_NODE": "2",
        }
    )
    assert env["RANK"] == "2" and env["LOCAL_RANK"] == "0" and env["GROUP_RANK"] == "1"


@pytest.mark.slow
def test_train_digits_ddp_on_two_ranks(tmp_path):
    """The example trains with --ddp on 2 ranks; the checkpoint has no "module." prefix."""
    require_mpi()
    cmd = [sys.executable, "-m", "taimatsu.distributed.run", "--nproc-per-node", "2",
           str(REPO / "examples" / "train_digits.py"), "--ddp", "--subset", "300", "--epochs", "3",
           "--out-dir", str(tmp_path)]  # fmt: skip
    done = launch_raw(cmd, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("validation accuracy after 3/3 epochs") == 1  # rank 0 only
    acc = float(re.search(r"validation accuracy after 3/3 epochs: ([\d.]+)%", done.stdout)[1])
    assert acc > 40.0
    import taimatsu as torch

    state = torch.load(Path(tmp_path) / "checkpoint.pt")["model"]
    assert not any(k.startswith("module.") for k in state)
