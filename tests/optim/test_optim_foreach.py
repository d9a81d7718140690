"""The multi-tensor (foreach / fused) paths of Adam, AdamW and SGD (optim/_foreach.py): the
same trajectories as the single-tensor path, bit for bit, and as PyTorch's; the same state,
state_dict, version counters and constructor errors."""

import numpy as np
import pytest

import taimatsu as tm
from taimatsu.optim import _foreach

torch = pytest.importorskip("torch")

SHAPES = [(7, 5), (5,), (3, 2, 4), ()]

CASES = [
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "maximize": True, "betas": (0.3, 0.9)}),  # lerp weight above 1/2
    ("AdamW", {"lr": 0.05, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3}),
]


def _run(lib, name, kw, dtype, steps=6, skip=None):
    """Parameters after ``steps`` steps of random gradients; parameter ``skip[1]`` gets no
    gradient at step ``skip[0]`` (the flat layout changes for a step)."""
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    params = [lib.nn.Parameter(lib.tensor(a.copy())) for a in init]
    opt = getattr(lib.optim, name)(params, **kw)
    for k, gs in enumerate(grads):
        for i, (p, g) in enumerate(zip(params, gs)):
            p.grad = None if skip == (k, i) else lib.tensor(g.copy())
        opt.step()
    return [p.detach().numpy().copy() for p in params], opt


@pytest.mark.parametrize("name,kw", CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block", [None, 8])
def test_foreach_equals_for_loop_and_torch(name, kw, dtype, block, monkeypatch):
    if block:  # small blocks: large parameters updated slice by slice, small ones in runs
        monkeypatch.setattr(_foreach, "BLOCK", block)
    loop, _ = _run(tm, name, {**kw, "foreach": False}, dtype)
    for flags in ({}, {"foreach": True}, {"fused": True}):
        flat, _ = _run(tm, name, {**kw, **flags}, dtype)
        for a, b in zip(flat, loop):
            np.testing.assert_array_equal(a, b)
    expected, _ = _run(torch, name, {**kw, "foreach": False}, dtype)
    tol = {"rtol": 1e-5, "atol": 2e-6} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    for a, b in zip(loop, expected):
        np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize("name,kw", [CASES[1], CASES[5]], ids=lambda v: str(v))
def test_a_parameter_without_gradient_for_a_step(name, kw):
    got, _ = _run(tm, name, kw, np.float64, skip=(2, 1))
    expected, _ = _run(torch, name, kw, np.float64, skip=(2, 1))
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _state_arrays(opt):
    return [
        (k, v.numpy() if hasattr(v, "numpy") else v)
        for st in opt.state_dict()["state"].values()
        for k, v in st.items()
    ]


@pytest.mark.parametrize("name,kw", [CASES[1], CASES[5]], ids=lambda v: str(v))
def test_state_dict_and_resume(name, kw):
    _, flat = _run(tm, name, kw, np.float64, steps=3)
    _, loop = _run(tm, name, {**kw, "foreach": False}, np.float64, steps=3)
    _, oracle = _run(torch, name, kw, np.float64, steps=3)
    for (ka, a), (kb, b) in zip(_state_arrays(flat), _state_arrays(loop)):
        assert ka == kb
        np.testing.assert_array_equal(a, b)
    # Resume from a state_dict (new state tensors: the flat buffer is rebuilt from them).
    rng = np.random.default_rng(1)
    start = [rng.standard_normal(s) for s in SHAPES]
    params = [tm.nn.Parameter(tm.tensor(a.copy())) for a in start]
    tparams = [torch.nn.Parameter(torch.tensor(a.copy())) for a in start]
    opt = getattr(tm.optim, name)(params, **kw)
    topt = getattr(torch.optim, name)(tparams, **kw)
    opt.load_state_dict(flat.state_dict())
    topt.load_state_dict(oracle.state_dict())
    for _ in range(2):
        for p, tp in zip(params, tparams):
            g = rng.standard_normal(tuple(p.shape))
            p.grad, tp.grad = tm.tensor(g), torch.tensor(g)
        opt.step()
        topt.step()
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-10, atol=1e-12)
    for (ka, a), (kb, b) in zip(_state_arrays(opt), _state_arrays(topt)):
        assert ka == kb
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_state_tensors_are_live_slices():
    """A user's in-place edit of a state tensor is seen by the next step, as in PyTorch."""
    out = []
    for lib in (tm, torch):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64))
        q = lib.nn.Parameter(lib.tensor([[0.5, 0.25]], dtype=lib.float64))
        opt = lib.optim.Adam([p, q], lr=0.1)
        for step in range(3):
            p.grad = lib.tensor([0.1, 0.2, -0.3], dtype=lib.float64)
            q.grad = lib.tensor([[1.0, -1.0]], dtype=lib.float64)
            opt.step()
            if step == 0:
                opt.state[p]["exp_avg"].mul_(3.0)
                opt.state[q]["exp_avg_sq"].zero_()
        out.append((p.detach().numpy().copy(), q.detach().numpy().copy()))
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize(
    "name,flags",
    [
        ("Adam", {"foreach": True}),
        ("Adam", {"foreach": False}),
        ("Adam", {"fused": True}),
        ("AdamW", {}),
        ("SGD", {"momentum": 0.9}),
        ("SGD", {"momentum": 0.9, "fused": True}),
    ],
    ids=str,
)
def test_version_counters(name, flags):
    versions = []
    for lib in (tm, torch):
        p = lib.nn.Parameter(lib.ones(3))
        opt = getattr(lib.optim, name)([p], lr=0.1, **flags)
        for _ in range(2):
            p.grad = lib.ones(3)
            opt.step()
        versions.append((p._version, {k: v._version for k, v in opt.state[p].items()}))
    assert versions[0] == versions[1]


@pytest.mark.parametrize("name", ["Adam", "AdamW", "SGD"])
def test_fused_constructor_errors(name):
    for kw in ({"fused": True, "foreach": True}, {"fused": True, "differentiable": True}):
        msgs = []
        for lib in (torch, tm):
            with pytest.raises(RuntimeError) as e:
                getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], lr=0.1, **kw)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


@pytest.mark.parametrize("momentum", [0, 0.5])
def test_float32_update_rounds_once_as_pytorch(momentum):
    """``p.add_(buf, alpha=-lr)`` is one fused multiply-add in PyTorch; the flat path's BLAS
    saxpy is too, where the float64 emulation rounds twice: here alpha * buf is
    2^-24 - 2^-70 and p is 1 + 2^-23, the exact sum just below a float32 halfway point."""
    from taimatsu.backend.float32_math import primitives

    if primitives._fusing_saxpy() is False:
        pytest.skip("no BLAS saxpy that rounds once on this machine")
    lr = float(np.float32(1 + 2.0**-23))
    p0 = np.full(40000, 1 + 2.0**-23, np.float32)  # large: updated slice by slice
    g = np.full(40000, -(2.0**24 - 2) * 2.0**-48, np.float32)
    g[::3] = np.float32(0.01)
    out = []
    for lib in (tm, torch):
        p = lib.nn.Parameter(lib.tensor(p0.copy()))
        q = lib.nn.Parameter(lib.tensor(p0[:10].copy()))  # small: gathered
        opt = lib.optim.SGD([p, q], lr=lr, momentum=momentum)
        p.grad, q.grad = lib.tensor(g.copy()), lib.tensor(g[:10].copy())
        opt.step()
        out.append([t.detach().numpy().copy() for t in (p, q)])
    for a, b in zip(*out):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
