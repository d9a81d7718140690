"""Random numbers on CUDA (CuPy's generator, one per device) and ``torch.random.fork_rng``,
on the CuPy test double. The CUDA numbers are not PyTorch's (its Philox stream), so they are
checked for what PyTorch promises: reproducible per seed, per-device generators and states,
draws on the device with no host round trip, the right dtypes, shapes, ranges and moments."""

import warnings

import numpy as np
import pytest
from raised import raised

import taimatsu

SAMPLERS = {
    "rand": lambda t, d: t.rand(3, 4, device=d),
    "randn": lambda t, d: t.randn(3, 4, device=d, dtype=t.float64),
    "randint": lambda t, d: t.randint(-5, 7, (3, 4), device=d),
    "randperm": lambda t, d: t.randperm(9, device=d),
    "normal_": lambda t, d: t.empty(5, device=d).normal_(2.0, 3.0),
    "uniform_": lambda t, d: t.empty(5, device=d, dtype=t.float16).uniform_(-2, 2),
    "random_": lambda t, d: t.empty(5, device=d, dtype=t.int16).random_(),
    "random_to": lambda t, d: t.empty(5, device=d).random_(0, 9),
    "bernoulli": lambda t, d: t.bernoulli(t.full((3, 4), 0.3, device=d)),
    "bernoulli_": lambda t, d: t.empty(3, 4, device=d).bernoulli_(0.4),
    "bernoulli_p": lambda t, d: t.empty(3, 4, device=d).bernoulli_(t.full((4,), 0.5, device=d)),
    "multinomial": lambda t, d: t.multinomial(t.tensor([[0.2, 0.0, 0.8], [1.0, 1, 1]], device=d), 2),
    "multinomial_r": lambda t, d: t.multinomial(t.tensor([0.2, 0.0, 0.8], device=d), 6, True),
    "normal_tensors": lambda t, d: t.normal(t.zeros(4, device=d), t.ones(4, device=d)),
    "normal_floats": lambda t, d: t.normal(1.0, 2.0, (4,), device=d),
    "exponential_": lambda t, d: t.empty(5, device=d).exponential_(),
    "geometric_": lambda t, d: t.empty(5, device=d).geometric_(0.3),
    "cauchy_": lambda t, d: t.empty(5, device=d).cauchy_(),
    "log_normal_": lambda t, d: t.empty(5, device=d).log_normal_(),
    "dropout": lambda t, d: t.nn.functional.dropout(t.ones(4, 5, device=d), 0.5),
    "rand_like": lambda t, d: t.rand_like(t.zeros(2, 3, device=d).t()),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_sampler_draws_on_the_device(name, fake_cupy):
    make = SAMPLERS[name]
    cpu = make(taimatsu, "cpu")
    taimatsu.manual_seed(0)
    fake_cupy.STATS.reset()
    a = make(taimatsu, "cuda")
    assert fake_cupy.STATS.syncs == 0, fake_cupy.STATS.log
    # the inputs' constructors upload their values; no random numbers come from the host
    assert fake_cupy.STATS.uploads <= 2, fake_cupy.STATS.log
    assert isinstance(a._data, fake_cupy.ndarray) and a.device == taimatsu.device("cuda:0")
    assert (a.dtype, a.shape) == (cpu.dtype, cpu.shape)
    taimatsu.manual_seed(0)
    b = make(taimatsu, "cuda")
    assert np.array_equal(a.cpu().numpy(), b.cpu().numpy())  # reproducible per seed


def test_values_are_in_range(fake_cupy):
    t = taimatsu
    t.manual_seed(1)
    assert sorted(t.randperm(50, device="cuda").tolist()) == list(range(50))
    r = t.randint(-5, 7, (2000,), device="cuda").cpu().numpy()
    assert r.min() == -5 and r.max() == 6
    u = t.rand(2000, device="cuda").cpu().numpy()
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.03
    z = t.randn(20000, device="cuda").cpu().numpy()
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    n = t.empty(20000, device="cuda").normal_(2.0, 3.0).cpu().numpy()
    assert abs(n.mean() - 2) < 0.1 and abs(n.std() - 3) < 0.1
    h = t.empty(2000, device="cuda", dtype=t.float16).uniform_(-2, 2).cpu().numpy()
    assert -2 <= h.min() and h.max() < 2
    b = t.empty(20000, device="cuda").bernoulli_(0.3).cpu().numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    e = t.empty(20000, device="cuda").exponential_(2.0).cpu().numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.03
    g = t.empty(20000, device="cuda").geometric_(0.25).cpu().numpy()
    assert g.min() >= 1 and abs(g.mean() - 4) < 0.2
    d = t.nn.functional.dropout(t.ones(20000, device="cuda"), 0.25).cpu().numpy()
    assert set(np.unique(d)) <= {0.0, np.float32(4 / 3)} and abs((d == 0).mean() - 0.25) < 0.02


def test_multinomial_frequencies_and_zero_categories(fake_cupy):
    t = taimatsu
    t.manual_seed(2)
    p = t.tensor([[0.2, 0.0, 0.8], [0.5, 0.5, 0.0]], device="cuda")
    s = t.multinomial(p, 4000, replacement=True).cpu().numpy()
    assert (s[0] != 1).all() and (s[1] != 2).all()
    assert abs((s[0] == 2).mean() - 0.8) < 0.03 and abs((s[1] == 0).mean() - 0.5) < 0.03
    w = t.multinomial(t.tensor([1.0, 0.0, 3.0, 2.0], device="cuda"), 3).cpu().numpy()
    assert sorted(w.tolist()) == [0, 2, 3]


def test_bad_probabilities_raise_at_the_next_synchronisation(fake_cupy):
    t = taimatsu
    fake_cupy.STATS.reset()
    x = t.multinomial(t.tensor([0.5, -1.0], device="cuda"), 1)
    y = t.bernoulli(t.tensor([0.5, 2.0], device="cuda"))
    z = t.normal(t.zeros(2, device="cuda"), t.tensor([1.0, -1.0], device="cuda"))
    assert fake_cupy.STATS.syncs == 0
    with pytest.raises(RuntimeError, match="probability tensor contains either"):
        t.cuda.synchronize()
    del x, y, z


def test_generators_per_device_and_their_states(fake_cupy):
    t, cuda = taimatsu, taimatsu.cuda
    cuda.manual_seed_all(5)
    a0, a1 = t.rand(4, device="cuda:0"), t.rand(4, device="cuda:1")
    assert a1._data.device.id == 1 and a1.device == t.device("cuda:1")
    cuda.manual_seed(5)  # the current device (0) only
    assert t.equal(t.rand(4, device="cuda:0"), a0)
    assert not t.equal(t.rand(4, device="cuda:1").cpu(), a1.cpu())  # device 1 went on
    with cuda.device(1):
        cuda.manual_seed(5)
        assert cuda.initial_seed() == 5
    assert t.equal(t.rand(4, device="cuda:1"), a1)
    states = cuda.get_rng_state_all()
    assert [s.dtype for s in states] == [t.uint8, t.uint8] and states[0].shape == (16,)
    x0, x1 = t.randn(3, device="cuda:0"), t.randn(3, device="cuda:1")
    cuda.set_rng_state_all(states)
    assert t.equal(t.randn(3, device="cuda:0"), x0) and t.equal(t.randn(3, device="cuda:1"), x1)
    s1 = cuda.get_rng_state("cuda:1")
    y1 = t.randn(3, device="cuda:1")
    cuda.set_rng_state(s1, 1)
    assert t.equal(t.randn(3, device="cuda:1"), y1)
    gens = cuda.default_generators
    assert [str(g.device) for g in gens] == ["cuda:0", "cuda:1"]
    with pytest.raises(RuntimeError, match="RNG state is wrong size"):
        cuda.set_rng_state(t.zeros(3, dtype=t.uint8))


def test_cuda_draws_leave_the_cpu_stream_alone(fake_cupy, torch_oracle):
    taimatsu.manual_seed(0)
    taimatsu.randn(100, device="cuda")
    taimatsu.nn.functional.dropout(taimatsu.ones(10, device="cuda"), 0.5)
    got = taimatsu.rand(5).numpy()
    torch_oracle.manual_seed(0)
    assert np.array_equal(got, torch_oracle.rand(5).numpy())


def test_generator_objects(fake_cupy):
    t = taimatsu
    g = t.Generator(device="cuda")
    assert g.device == t.device("cuda:0") and g.initial_seed() == 67280421310721
    g.manual_seed(3)
    a = t.rand(3, device="cuda", generator=g)
    state = g.get_state()
    b = t.randn(3, device="cuda", generator=g)
    g.set_state(state)
    assert t.equal(t.randn(3, device="cuda", generator=g), b)
    assert t.equal(t.rand(3, device="cuda", generator=t.Generator("cuda").manual_seed(3)), a)
    assert t.Generator(device="cuda:1").device == t.device("cuda:1")
    with pytest.raises(
        RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"
    ):
        t.rand(2, generator=g)
    with pytest.raises(
        RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"
    ):
        t.rand(2, device="cuda", generator=t.Generator())


def test_seed_reseeds_cuda_too(fake_cupy):
    s = taimatsu.seed()
    assert taimatsu.cuda.initial_seed() == s


# ---- fork_rng -----------------------------------------------------------------------------------
def _enter(mod, **kw):
    with mod.random.fork_rng(**kw):
        pass


@pytest.mark.parametrize(
    "kw",
    [{}, {"device_type": "cpu"}, {"device_type": "cpu", "devices": []}, {"device_type": "foo"},
     {"devices": [0]}, {"device_type": "meta", "devices": [0]}, {"enabled": False, "device_type": "foo"},
     {"enabled": False}],
)  # fmt: skip
def test_fork_rng_errors_match_pytorch(kw, torch_oracle):
    if torch_oracle.cuda.is_available():
        pytest.skip("the oracle has CUDA")
    assert raised(lambda: _enter(taimatsu, **kw)) == raised(lambda: _enter(torch_oracle, **kw))


def test_fork_rng_restores_the_cpu_stream(torch_oracle):
    out = []
    for mod in (taimatsu, torch_oracle):
        mod.manual_seed(0)
        with mod.random.fork_rng(devices=[]):
            a = mod.rand(3).numpy().copy()
            mod.randn(7)
        out.append((a, mod.rand(3).numpy().copy(), mod.randn(2).numpy().copy()))
    for x, y in zip(*out):
        assert np.array_equal(x, y)


def test_fork_rng_restores_every_gpu_and_warns_once(fake_cupy, monkeypatch):
    t = taimatsu
    monkeypatch.setattr(t.random, "_fork_rng_warned_already", False)
    t.manual_seed(0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with t.random.fork_rng():
            inside = [t.rand(2, device=f"cuda:{i}") for i in (0, 1)] + [t.rand(2)]
        with t.random.fork_rng():
            pass
    assert len(w) == 1
    assert str(w[0].message).startswith(
        "CUDA reports that you have 2 available devices, and you have used fork_rng without "
        "explicitly specifying which devices are being used."
    )
    assert "set device.upper()_VISIBLE_DEVICES= or devices=[]" in str(w[0].message)
    after = [t.rand(2, device=f"cuda:{i}") for i in (0, 1)] + [t.rand(2)]
    assert all(t.equal(a.cpu(), b.cpu()) for a, b in zip(inside, after))
    with t.random.fork_rng(devices=[1]):
        inner = t.rand(2, device="cuda:1")
        t.rand(2, device="cuda:0")
    assert t.equal(t.rand(2, device="cuda:1"), inner)


def test_random_module_names(torch_oracle):
    for name in ("Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
                 "manual_seed", "seed", "set_rng_state"):  # fmt: skip
        assert hasattr(taimatsu.random, name) and hasattr(torch_oracle.random, name)
