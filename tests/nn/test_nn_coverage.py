"""Every layer and loss of issue #4 against PyTorch, from one table (tests/nn/nn_cases.py).

Per case and input variant, in train() and in eval() mode: the module is built in both libraries
after the same manual_seed, PyTorch's weights are copied into taimatsu, and forward outputs, the
state after forward (running statistics, max_norm renormalisation), gradients for a random
cotangent (inputs and every parameter) and ``repr`` must match. Random layers (dropout, RReLU,
dropout inside RNNs and transformers) are compared in train mode too: taimatsu's generator
reproduces PyTorch's CPU stream, so the same seed gives the same masks.

A second test checks default initialisation: the same seed gives bit-identical parameters and
buffers. A meta-test checks that the table covers the whole list of the issue.
"""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
from nn_cases import ISSUE_4_NAMES, MODULE_CASES, PENDING
from nn_oracle import T, copy_weights

pytestmark = pytest.mark.oracle


def _build(variant):
    """Torch inputs for one variant: (args, kwargs)."""
    if callable(variant):
        out = variant()
        return out if isinstance(out, tuple) else (out, {})
    shapes = (variant,) if all(isinstance(d, int) for d in variant) else variant
    return [torch.randn(s).requires_grad_() for s in shapes], {}


def _to_tm(obj):
    if isinstance(obj, torch.Tensor):
        return T(obj, obj.requires_grad)
    if isinstance(obj, dict):
        return {k: _to_tm(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_tm(v) for v in obj)
    return obj


def _flat(obj):
    if isinstance(obj, (torch.Tensor, tm.Tensor)):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in _flat(v)]
    return []


def _close(got, want, case, what):
    g = got.detach().numpy() if isinstance(got, tm.Tensor) else np.asarray(got)
    w = want.detach().numpy()
    assert g.shape == w.shape, f"{what}: shape {g.shape} vs {w.shape}"
    assert g.dtype == w.dtype, f"{what}: dtype {g.dtype} vs {w.dtype}"
    np.testing.assert_allclose(g, w, rtol=case.rtol, atol=case.atol, err_msg=what)


def _skip_pending(name):
    if name in PENDING and not hasattr(tm.nn, name):
        pytest.skip("not yet in taimatsu")


def _pair(case, variant):
    """The module in both libraries (same weights) and the same inputs."""
    torch.manual_seed(0)
    o = case.make(torch)
    tm.manual_seed(0)
    t = case.make(tm)
    torch.manual_seed(1)
    o_args, o_kw = _build(variant)
    t_args, t_kw = _to_tm(o_args), _to_tm(o_kw)
    if case.lazy:  # materialise the parameters from the input's shape first
        with torch.no_grad():
            o(*o_args, **o_kw)
        with tm.no_grad():
            t(*t_args, **t_kw)
    copy_weights(t, o)
    return t, o, (t_args, t_kw), (o_args, o_kw)


PARAMS = [
    pytest.param(c, i, mode, id=f"{c.id}-v{i}-{mode}")
    for c in MODULE_CASES
    for i in range(len(c.variants))
    for mode in ("train", "eval")
]


@pytest.mark.parametrize("case,vi,mode", PARAMS)
def test_module_matches_torch(case, vi, mode):
    _skip_pending(case.name)
    t, o, (t_args, t_kw), (o_args, o_kw) = _pair(case, case.variants[vi])
    getattr(t, mode)()
    getattr(o, mode)()
    assert repr(t) == repr(o)

    torch.manual_seed(2)
    tm.manual_seed(2)
    o_out = o(*o_args, **o_kw)
    t_out = t(*t_args, **t_kw)
    o_outs, t_outs = _flat(o_out), _flat(t_out)
    assert len(t_outs) == len(o_outs)
    for k, (a, b) in enumerate(zip(t_outs, o_outs)):
        _close(a, b, case, f"output {k}")

    t_sd, o_sd = t.state_dict(), o.state_dict()
    assert list(t_sd) == list(o_sd)
    for k in o_sd:
        _close(t_sd[k], o_sd[k], case, f"state {k} after forward")

    # backward: a random cotangent for every differentiable output
    diff = [i for i, b in enumerate(o_outs) if b.requires_grad]
    if not diff:
        return
    torch.manual_seed(3)
    cots = [torch.randn(o_outs[i].shape) for i in diff]
    o_leaves = [x for x in _flat((o_args, o_kw)) if x.requires_grad]
    t_leaves = [x for x in _flat((t_args, t_kw)) if x.requires_grad]
    o_names, o_params = zip(*o.named_parameters()) if list(o.parameters()) else ((), ())
    t_names, t_params = zip(*t.named_parameters()) if list(t.parameters()) else ((), ())
    assert t_names == o_names
    o_grads = torch.autograd.grad(
        [o_outs[i] for i in diff], o_leaves + list(o_params), cots, allow_unused=True
    )
    t_grads = tm.autograd.grad(
        [t_outs[i] for i in diff],
        t_leaves + list(t_params),
        [T(c) for c in cots],
        allow_unused=True,
    )
    names = [f"input {i}" for i in range(len(o_leaves))] + [f"param {n}" for n in o_names]
    for name, tg, og in zip(names, t_grads, o_grads):
        if og is None:
            assert tg is None or not tg.abs().sum().item(), name
        else:
            assert tg is not None, f"{name}: no gradient"
            _close(tg, og, case, f"grad of {name}")


INIT_CASES = [c for c in MODULE_CASES if not c.id.startswith(("Identity", "Flatten"))]


@pytest.mark.parametrize("case", INIT_CASES, ids=[c.id for c in INIT_CASES])
def test_default_init_is_bit_identical(case):
    """Same seed, same constructor: the same parameters and buffers, bit for bit."""
    _skip_pending(case.name)
    torch.manual_seed(0)
    o = case.make(torch)
    tm.manual_seed(0)
    t = case.make(tm)
    if case.lazy:
        torch.manual_seed(1)
        o_args, o_kw = _build(case.variants[0])
        t_args, t_kw = _to_tm(o_args), _to_tm(o_kw)
        torch.manual_seed(5)
        tm.manual_seed(5)
        with torch.no_grad():
            o(*o_args, **o_kw)
        with tm.no_grad():
            t(*t_args, **t_kw)
    t_sd, o_sd = t.state_dict(), o.state_dict()
    assert list(t_sd) == list(o_sd)
    for k in o_sd:
        np.testing.assert_array_equal(t_sd[k].numpy(), o_sd[k].numpy(), err_msg=k)
        assert t_sd[k].dtype.__repr__().replace("taimatsu", "torch") == repr(o_sd[k].dtype)
    # and the generators are left in the same state
    assert np.array_equal(tm.rand(4).numpy(), torch.rand(4).numpy())


def test_table_covers_issue_4():
    covered = {c.name for c in MODULE_CASES}
    assert not [n for n in ISSUE_4_NAMES if n not in covered]
    ids = {c.id for c in MODULE_CASES}
    assert {"GELU", "GELU-tanh"} <= ids  # both approximations
    for c in MODULE_CASES:
        if c.name.endswith("Loss"):  # every loss with every reduction
            base = c.id.rsplit("-", 1)[0]
            assert {f"{base}-{r}" for r in ("none", "mean", "sum")} <= ids, base
    for c in MODULE_CASES:  # several shapes per layer class
        n = sum(len(d.variants) for d in MODULE_CASES if d.name == c.name)
        assert n >= 2, c.name
    assert PENDING <= set(ISSUE_4_NAMES)
