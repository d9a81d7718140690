"""torch.fx.Interpreter, Transformer and passes.shape_prop.ShapeProp against PyTorch."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from fx_models import build, copy_weights

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def traced_pair(name):
    theirs_model = build(torch)[name]().eval()
    ours_model = build(taimatsu)[name]().eval()
    copy_weights(theirs_model, ours_model, taimatsu.from_numpy)
    return taimatsu.fx.symbolic_trace(ours_model), torch.fx.symbolic_trace(theirs_model)


def sample(shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    return taimatsu.from_numpy(x.copy()), torch.from_numpy(x.copy())


def test_interpreter_subclass_counts_and_matches():
    ours_gm, theirs_gm = traced_pair("ResidualConv")
    x_ours, x_theirs = sample((2, 2, 4, 4))
    logs = []
    for lib, gm, x in ((taimatsu, ours_gm, x_ours), (torch, theirs_gm, x_theirs)):

        class Counting(lib.fx.Interpreter):
            def __init__(self, module):
                super().__init__(module)
                self.calls = []

            def call_module(self, target, args, kwargs):
                self.calls.append(("module", target, tuple(args[0].shape)))
                return super().call_module(target, args, kwargs)

            def call_function(self, target, args, kwargs):
                self.calls.append(("function", getattr(target, "__name__", "?")))
                return super().call_function(target, args, kwargs)

        interp = Counting(gm)
        out = interp.run(x)
        logs.append((interp.calls, out.detach().numpy()))
    assert logs[0][0] == logs[1][0]
    np.testing.assert_allclose(logs[0][1], logs[1][1], rtol=1e-5, atol=1e-6)
    # the plain Interpreter computes what the generated forward computes
    np.testing.assert_allclose(
        taimatsu.fx.Interpreter(ours_gm).run(x_ours).detach().numpy(),
        ours_gm(x_ours).detach().numpy(),
    )


def matmul_plus_one(lib):
    return lambda x, y: lib.matmul(x, y) + 1


def test_interpreter_errors_match():
    outs = []
    for lib in (taimatsu, torch):
        gm = lib.fx.symbolic_trace(matmul_plus_one(lib))
        res = []
        for args in ((lib.ones(2, 3), lib.ones(2, 3)), (lib.ones(2),)):
            try:
                lib.fx.Interpreter(gm).run(*args)
            except Exception as e:  # noqa: BLE001
                msg = str(e)
                res.append((type(e).__name__, msg[msg.index("While executing") :]))
        outs.append(res)
    assert outs[0] == outs[1]


def test_transformer_rewrites_add_to_mul():
    results = []
    for lib in (taimatsu, torch):

        class AddToMul(lib.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is operator.add:
                    target = operator.mul
                return super().call_function(target, args, kwargs)

        class ReluToSigmoid(lib.fx.Transformer):
            relu, sigmoid = lib.nn.functional.relu, lib.sigmoid

            def call_function(self, target, args, kwargs):
                if target is self.relu:
                    target = self.sigmoid
                    kwargs = {}
                return super().call_function(target, args, kwargs)

        ns = build(lib)
        gm = lib.fx.symbolic_trace(ns["ResidualConv"]())
        new = AddToMul(gm).transform()
        newer = ReluToSigmoid(new).transform()
        results.append((new.code, str(new), newer.code, type(newer).__name__))
    assert results[0] == results[1]


def test_shape_prop():
    metas = []
    for lib, gm, x in zip((taimatsu, torch), traced_pair("MLP"), sample((5, 4))):
        lib.fx.passes.shape_prop.ShapeProp(gm).propagate(x)
        metas.append(
            [
                (
                    n.name,
                    str(m.dtype),
                    tuple(m.shape),
                    m.requires_grad,
                    m.stride,
                    str(m.memory_format),
                    n.meta["type"].__name__,
                )
                for n in gm.graph.nodes
                for m in [n.meta["tensor_meta"]]
            ]
        )
        metas.append(gm.print_readable(print_output=False))
    assert metas[0] == metas[2]
    assert metas[1] == metas[3]


def transformer_doc_examples(lib):
    class NegSigmSwapXformer(lib.fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target == lib.sigmoid:
                return lib.neg(*args, **kwargs)
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "neg":
                call_self, *args_tail = args
                return call_self.sigmoid(*args_tail, **kwargs)
            return super().call_method(target, args, kwargs)

    gm = lib.fx.symbolic_trace(lambda x: lib.sigmoid(x).neg())
    swapped = NegSigmSwapXformer(gm).transform()
    x = lib.linspace(-2, 2, 12).reshape(3, 4)
    rules = {
        lib.relu: lambda x: (x > 0) * x,
        lib.nn.functional.gelu: lambda x: x * lib.sigmoid(1.702 * x),
    }

    class Decompose(lib.fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target in rules:
                return rules[target](*args)
            return super().call_function(target, args, kwargs)

    decomposed = Decompose(
        lib.fx.symbolic_trace(lambda x: lib.relu(x) + lib.nn.functional.gelu(x))
    ).transform()
    return (
        swapped.code,
        bool(lib.equal(swapped(x), lib.neg(x).sigmoid())),
        decomposed.code,
        decomposed(x).tolist(),
    )


def test_transformer_overrides_calling_torch_functions():
    ours, theirs = transformer_doc_examples(taimatsu), transformer_doc_examples(torch)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-6)
    assert taimatsu.relu.__module__.startswith("taimatsu")  # restored after the transform
