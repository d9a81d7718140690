"""The main job's --amp path: trains under CPU bfloat16 autocast and learns."""

import importlib.util
import re
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_digits.py"


def test_train_digits_amp_learns(tmp_path, capsys):
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location("train_digits_amp", EXAMPLE)
    digits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(digits)
    digits.main(["--amp", "--subset", "400", "--epochs", "4", "--out-dir", str(tmp_path)])
    out = capsys.readouterr().out
    final = float(re.search(r"validation accuracy after 4/4 epochs: ([\d.]+)%", out).group(1))
    assert final >= 80.0, out
    import taimatsu as torch

    ckpt = torch.load(tmp_path / "checkpoint.pt")
    assert ckpt["config"]["amp"] is True
    assert all(v.dtype is torch.float32 for v in ckpt["model"].values())  # weights stay float32
