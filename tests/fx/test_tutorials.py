"""PyTorch's torch.fx tutorials run with taimatsu: the Conv/BatchNorm fuser and the
profiling Interpreter, compared with PyTorch."""

from __future__ import annotations

import copy
import importlib

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def conv_bn_fuser(lib):
    nn, fx = lib.nn, lib.fx
    fuse_conv_bn_eval = importlib.import_module(lib.__name__ + ".nn.utils.fusion").fuse_conv_bn_eval

    def parent_name(target):
        *parent, name = target.rsplit(".", 1)
        return parent[0] if parent else "", name

    def replace_node_module(node, modules, new_module):
        parent, name = parent_name(node.target)
        modules[node.target] = new_module
        setattr(modules[parent], name, new_module)

    def fuse(model):
        model = copy.deepcopy(model)
        fx_model = fx.symbolic_trace(model)
        modules = dict(fx_model.named_modules())
        for node in fx_model.graph.nodes:
            if node.op != "call_module":
                continue
            if (
                type(modules[node.target]) is nn.BatchNorm2d
                and type(modules[node.args[0].target]) is nn.Conv2d
            ):
                if len(node.args[0].users) > 1:
                    continue
                fused_conv = fuse_conv_bn_eval(modules[node.args[0].target], modules[node.target])
                replace_node_module(node.args[0], modules, fused_conv)
                node.replace_all_uses_with(node.args[0])
                fx_model.graph.erase_node(node)
        fx_model.graph.lint()
        fx_model.recompile()
        return fx_model

    class WrappedBatchNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.mod = nn.BatchNorm2d(1)

        def forward(self, x):
            return self.mod(x)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 1, 1)
            self.bn1 = nn.BatchNorm2d(1)
            self.conv2 = nn.Conv2d(1, 1, 1)
            self.nested = nn.Sequential(nn.BatchNorm2d(1), nn.Conv2d(1, 1, 1))
            self.wrapped = WrappedBatchNorm()

        def forward(self, x):
            x = self.conv1(x)
            x = self.bn1(x)
            x = self.conv2(x)
            x = self.nested(x)
            return self.wrapped(x)

    model = M().eval()
    fused = fuse(model)
    x = lib.randn(5, 1, 1, 1)
    return fused.code, str(fused), bool(lib.allclose(fused(x), model(x), atol=1e-6))


def test_conv_bn_fuser():
    ours, theirs = conv_bn_fuser(taimatsu), conv_bn_fuser(torch)
    assert ours == theirs
    assert ours[2]


def profile(lib):
    class ProfilingInterpreter(lib.fx.Interpreter):
        def __init__(self, mod):
            super().__init__(lib.fx.symbolic_trace(mod))
            self.runs = {}

        def run(self, *args):
            self.total = 0
            return super().run(*args)

        def run_node(self, n):
            self.total += 1
            result = super().run_node(n)
            self.runs[n.name] = (
                tuple(result.shape) if hasattr(result, "shape") else type(result).__name__
            )
            return result

    model = lib.nn.Sequential(
        lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(3, 2)
    )
    interp = ProfilingInterpreter(model)
    out = interp.run(lib.ones(5, 4))
    return interp.total, interp.runs, tuple(out.shape)


def test_profiling_interpreter():
    assert profile(taimatsu) == profile(torch)


def test_shape_prop_tutorial_output():
    lines = []
    for lib in (taimatsu, torch):

        class TwoLayerNet(lib.nn.Module):
            def __init__(self, d_in, h, d_out, nn=lib.nn):
                super().__init__()
                self.linear1 = nn.Linear(d_in, h)
                self.linear2 = nn.Linear(h, d_out)

            def forward(self, x):
                return self.linear2(self.linear1(x).clamp(min=0))

        gm = lib.fx.symbolic_trace(TwoLayerNet(1000, 100, 10))
        lib.fx.passes.shape_prop.ShapeProp(gm).propagate(
            lib.from_numpy(np.ones((50, 1000), np.float32))
        )
        lines.append(
            [
                (n.name, str(n.meta["tensor_meta"].dtype), str(n.meta["tensor_meta"].shape))
                for n in gm.graph.nodes
            ]
        )
    assert lines[0] == lines[1]
    assert lines[0][-1] == ("output", "torch.float32", "torch.Size([50, 10])")
