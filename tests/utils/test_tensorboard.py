"""SummaryWriter: what taimatsu writes, read back with tensorboard's EventAccumulator, equals what
PyTorch's SummaryWriter writes for the same calls (scalars, scalars dicts, histograms, text,
hparams, the run directories). Skipped when tensorboard is not installed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

HAVE_IMAGE_LIBS = all(importlib.util.find_spec(m) for m in ("PIL", "matplotlib"))
ALL = {"scalars": 0, "histograms": 0, "tensors": 0, "images": 0}


def _log(lib, log_dir):
    from importlib import import_module

    writer_cls = import_module(f"{lib.__name__}.utils.tensorboard").SummaryWriter
    rng = np.random.default_rng(0)
    with writer_cls(str(log_dir), purge_step=0) as w:
        for step in range(4):
            w.add_scalar("loss", lib.tensor(1.0 / (step + 1)), step)
            w.add_scalar("lr", 0.1 * step, step, new_style=True)
            w.add_scalar("lr64", 0.1 * step, step, new_style=True, double_precision=True)
            w.add_scalars("pair", {"train": float(step), "val": 2.0 * step}, step)
        values = rng.standard_normal(500).astype(np.float32)
        w.add_histogram("weights", lib.tensor(values), 1)
        w.add_histogram("weights_auto", values, 2, bins="auto", max_bins=7)
        w.add_histogram_raw("raw", 0.0, 3.0, 4, 6.0, 14.0, [1.0, 2.0, 3.0], [1, 2, 1], 3)
        w.add_text("note", "héllo **world**", 5)
        w.add_hparams({"lr": 0.1, "opt": "adam", "flag": True}, {"hp/acc": 0.9}, run_name="hp")
        if not HAVE_IMAGE_LIBS:  # images need Pillow (and figures Matplotlib), as in PyTorch
            return
        pictures = rng.random((10, 1, 6, 5)).astype(np.float32)
        w.add_image("one", lib.tensor(pictures[0].repeat(3, 0)), 0)
        w.add_image(
            "hwc", (pictures[1].transpose(1, 2, 0) * 255).astype(np.uint8), 1, dataformats="HWC"
        )
        w.add_image("grey", lib.tensor(pictures[2, 0]), 2, dataformats="HW")
        w.add_images("batch", lib.tensor(pictures), 3)
        w.add_figure("figure", _figure(), 4)


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    ax.plot([0, 1, 2], [1, 0, 2])
    return fig


def _read(path):
    ea = EventAccumulator(str(path), size_guidance=ALL)
    ea.Reload()
    tags = ea.Tags()
    out = {"scalars": {}, "histograms": {}, "tensors": {}, "images": {}}
    for t in tags["scalars"]:
        out["scalars"][t] = [(e.step, e.value) for e in ea.Scalars(t)]
    for t in tags["histograms"]:
        out["histograms"][t] = [(e.step, e.histogram_value) for e in ea.Histograms(t)]
    for t in tags["images"]:
        out["images"][t] = [
            (e.step, e.width, e.height, e.encoded_image_string) for e in ea.Images(t)
        ]
    for t in tags["tensors"]:
        out["tensors"][t] = [(e.step, e.tensor_proto.SerializeToString()) for e in ea.Tensors(t)]
    try:
        out["hparams"] = ea.PluginTagToContent("hparams")
    except KeyError:  # no hparams summary in this run
        out["hparams"] = {}
    return out


def _runs(root):
    return sorted(os.path.relpath(d, root) for d, _, files in os.walk(root) if files)


def test_event_files_read_back_as_pytorch_writes_them(tmp_path):
    _log(torch, tmp_path / "torch")
    _log(taimatsu, tmp_path / "ours")
    assert (
        _runs(tmp_path / "ours")
        == _runs(tmp_path / "torch")
        == [".", "hp", "pair_train", "pair_val"]
    )
    for run in _runs(tmp_path / "torch"):
        assert _read(tmp_path / "ours" / run) == _read(tmp_path / "torch" / run), run


def test_default_log_dir_and_close_reopens(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from taimatsu.utils.tensorboard import SummaryWriter

    w = SummaryWriter(comment="_lr0.1")
    assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_lr0.1")
    w.add_scalar("a", 1.0, 0)
    w.close()
    w.add_scalar("a", 2.0, 1)  # PyTorch opens a new event file after close
    w.close()
    assert len(os.listdir(w.get_logdir())) == 2
    assert _read(w.get_logdir())["scalars"]["a"] == [(0, 1.0), (1, 2.0)]


@pytest.mark.parametrize("bad", [[1.0, 2.0], np.zeros((2, 2))])
def test_non_scalar_refused_as_pytorch(tmp_path, bad):
    from torch.utils.tensorboard import SummaryWriter as Ref

    from taimatsu.utils.tensorboard import SummaryWriter

    with pytest.raises(Exception) as expected:
        Ref(str(tmp_path / "t")).add_scalar("x", torch.tensor(bad))
    with pytest.raises(type(expected.value)) as got:
        SummaryWriter(str(tmp_path / "o")).add_scalar("x", taimatsu.tensor(bad))
    assert str(got.value) == str(expected.value)


def test_empty_histogram_refused(tmp_path):
    from taimatsu.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(tmp_path))
    with pytest.raises(ValueError, match="The input has no element."):
        w.add_histogram("h", taimatsu.tensor([]))
    w.close()


def _net(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.Sigmoid()

        def forward(self, x):
            return self.act(self.fc(x)) + x

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 4)
            self.blocks = nn.Sequential(Block(), Block())
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            h = lib.relu(self.fc1(lib.flatten(x, 1)))
            return self.head(self.blocks(h))

    return Net()


def _graph_ops(path):
    ea = EventAccumulator(str(path))
    ea.Reload()
    nodes = ea.Graph().node
    ops = [(n.op, n.name.rsplit("/", 1)[0]) for n in nodes if n.op.startswith("aten::")]
    io = sorted(n.name for n in nodes if n.op == "IO Node")
    return ops, io, ea.Tags()["run_metadata"]


def test_add_graph_has_pytorchs_ops_and_scopes(tmp_path):
    """The aten ops of the graph, in order, each under the module scope PyTorch gives it."""
    for lib, sub in ((torch, "torch"), (taimatsu, "ours")):
        writer_cls = __import__(
            f"{lib.__name__}.utils.tensorboard", fromlist=["SummaryWriter"]
        ).SummaryWriter
        with writer_cls(str(tmp_path / sub)) as w:
            w.add_graph(_net(lib), lib.ones(3, 2, 3))
    ops, io, meta = _graph_ops(tmp_path / "ours")
    ref_ops, ref_io, ref_meta = _graph_ops(tmp_path / "torch")
    assert ops == ref_ops
    assert io == ref_io == ["input/x", "output/output.1"]
    assert meta == ref_meta == ["step1"]


@pytest.mark.slow  # two fresh interpreters importing torch and taimatsu
def test_missing_tensorboard_raises_pytorchs_error():
    """With tensorboard hidden, both libraries fail the import the same way (a fresh process)."""
    code = (
        "import sys; sys.modules['tensorboard'] = None\n"
        "try:\n    import {}.utils.tensorboard\n"
        "except ImportError as e:\n    print(type(e).__name__, e)\n"
    )
    out = [
        subprocess.run(
            [sys.executable, "-c", code.format(lib)],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        for lib in ("torch", "taimatsu")
    ]
    assert out[0] == out[1] and out[0].startswith("ModuleNotFoundError")


def test_version_gate():
    from taimatsu.utils.tensorboard._version import older_than

    assert older_than("1.14.0", (1, 15)) and not older_than("1.15.0", (1, 15))
    assert not older_than("2.21.0rc1", (1, 15)) and older_than("0", (1, 15))
