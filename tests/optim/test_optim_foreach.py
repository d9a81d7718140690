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


def _identity_program(T, name, kw, key):
    """References to state tensors held across steps in which the set of parameters with a
    gradient changes, and across load_state_dict: they stay the state and follow the steps."""
    a = T.nn.Parameter(T.ones(3))
    b = T.nn.Parameter(T.ones(2))
    opt = getattr(T.optim, name)([a, b], lr=0.1, **kw)
    out = []
    a.grad, b.grad = T.ones(3), T.ones(2)
    opt.step()
    ra, rb = opt.state[a][key], opt.state[b][key]
    b.grad = None
    opt.step()
    out.append((opt.state[a][key] is ra, ra.tolist()))
    a.grad, b.grad = T.full((3,), 0.5), T.full((2,), 2.0)
    opt.step()
    out.append((opt.state[a][key] is ra, opt.state[b][key] is rb, ra.tolist(), rb.tolist()))
    opt.load_state_dict(opt.state_dict())
    la = opt.state[a][key]
    opt.step()
    out.append((opt.state[a][key] is la, la.tolist()))
    return out


@pytest.mark.parametrize(
    "name,kw,key",
    [("SGD", {"momentum": 0.9}, "momentum_buffer"), ("Adam", {}, "exp_avg"),
     ("AdamW", {"amsgrad": True}, "max_exp_avg_sq"), ("SGD", {"momentum": 0.9, "fused": True}, "momentum_buffer")],
    ids=str,
)  # fmt: skip
def test_state_tensors_keep_their_identity(name, kw, key):
    got, want = _identity_program(tm, name, kw, key), _identity_program(torch, name, kw, key)
    assert [g[:-1] if len(g) == 2 else g[:2] for g in got] == [
        w[:-1] if len(w) == 2 else w[:2] for w in want
    ]
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.concatenate([np.ravel(x) for x in g if isinstance(x, list)]),
                                   np.concatenate([np.ravel(x) for x in w if isinstance(x, list)]),
                                   rtol=1e-6)  # fmt: skip


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

    if primitives._fusing_saxpy()[0] is False:
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


def test_midpoint_test_equals_primitives():
    """The flat path's float32-midpoint test (temporaries in the workspace) finds what
    ``primitives.midpoints`` finds: planted midpoints, values below float32's normal range
    (where the bit test does not apply), negative ones, NaN and inf, empty blocks."""
    from taimatsu.backend.float32_math.primitives import midpoints

    rng, ws = np.random.default_rng(1), _foreach.workspace()
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0**-140 + 2.0**-150, 2.0**-126 - 2.0**-150]
    found = 0
    for trial in range(200):
        n = int(rng.integers(0, 3000))
        x = rng.standard_normal(n) * 10.0 ** int(rng.integers(-45, 5))
        if trial % 2:
            x = np.abs(x)
        for i in rng.integers(0, max(n, 1), size=int(rng.integers(0, 3)) if n else 0):
            u = x[i : i + 1].view(np.uint64)  # a float32 midpoint: the low 29 bits 1000...0
            u[:] = (u & ~np.uint64((1 << 29) - 1)) | np.uint64(1 << 28)
        if n and trial % 3 == 0:
            x[rng.integers(0, n)] = specials[trial % len(specials)]
        got, want = _foreach._midpoints(x, ws), midpoints(x)
        if want is None:
            assert got is None
        else:
            found += 1
            assert got is not None
            for a, b in zip(got, want, strict=True):
                np.testing.assert_array_equal(a, b)
    assert found > 50


@pytest.mark.parametrize("flags", [{}, {"fused": True}], ids=str)
def test_float32_adam_exp_avg_sq_rounds_once(flags):
    """exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2) where the float64 sum lands on a
    float32 midpoint the exact one lies just below (tests/ops/test_fused_multiply_add.py's
    case): beta2 = 1 - 2^-24 + 2^-46 makes beta2 * (1 + 2^-22) round to 1 + 2^-23 and
    (1 - beta2) * g to (2^24 - 2) 2^-48 for g = 1 + 2^-23. A large parameter (slices) and a
    small one (gathered), against PyTorch bit for bit. (The single-tensor path's in-place
    ``addcmul_`` rounds this case twice: ops/pointwise/unary.py's float32 fast path.)"""
    beta2, y0 = 1 - 2.0**-24 + 2.0**-46, np.float32(1 + 2.0**-23)
    out = []
    for lib, kw in ((tm, flags), (torch, {"foreach": False})):
        params = [lib.nn.Parameter(lib.zeros(n)) for n in (40000, 10)]
        opt = lib.optim.Adam(params, lr=0.1, betas=(0.9, beta2), **kw)
        for g in (1.0, float(y0)):
            for p in params:
                p.grad = lib.full_like(p, g)
            opt.step()
            if g == 1.0:
                for p in params:
                    opt.state[p]["exp_avg_sq"].fill_(1 + 2.0**-22)
        out.append([opt.state[p]["exp_avg_sq"].numpy().view(np.uint32).copy() for p in params])
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)
    assert out[0][0][0] == np.float32(1 + 2.0**-23).view(
        np.uint32
    )  # not the float64 double rounding


def test_adam_step_allocates_little():
    """The flat Adam step keeps its temporaries in the thread's workspace: after a first step
    it allocates a few KB (PyTorch's CPU step ~130 KB for 0.8M parameters), not a float64
    mask per 16K-element block."""
    import gc
    import tracemalloc

    tm.manual_seed(0)
    params = [tm.nn.Parameter(tm.randn(128, 128)) for _ in range(3)]
    params += [tm.nn.Parameter(tm.randn(128)) for _ in range(3)]
    for p in params:
        p.grad = tm.randn(p.shape)
    opt = tm.optim.Adam(params, lr=1e-3)
    opt.step()
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        opt.step()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024, peak
