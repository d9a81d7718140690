"""torch.cuda's device model on the CuPy test double (tests/cuda/cupy_double.py), and PyTorch's
CPU-only behaviour without it. Nothing here ran on a real GPU."""

import gc
import io

import numpy as np
import pytest
from raised import raised

import taimatsu

# ---- without CUDA: PyTorch's CPU-only build -------------------------------------------------------
CPU_BUILD_CALLS = [
    "cuda.is_available()", "cuda.device_count()", "cuda.current_device()", "cuda.set_device(0)",
    "cuda.synchronize()", "cuda.Stream()", "cuda.Event(enable_timing=True)",
    "cuda.memory_allocated()", "cuda.max_memory_allocated()", "cuda.memory_reserved()",
    "cuda.max_memory_reserved()", "cuda.empty_cache()", "cuda.reset_peak_memory_stats()",
    "cuda.get_device_name()", "cuda.get_device_properties(0)", "cuda.manual_seed(1)",
    "cuda.manual_seed_all(1)", "cuda.is_bf16_supported()", "cuda.current_stream()",
    "cuda.is_initialized()", "cuda.mem_get_info()", "cuda.init()", "cuda.memory_stats()",
    "zeros(2).cuda()", "zeros(2, device='cuda')", "zeros(2).to('cuda', non_blocking=True)",
    "zeros(2).pin_memory()", "zeros(2).is_pinned()",
    "cuda.get_rng_state()", "cuda.get_rng_state_all()", "cuda.seed()", "cuda.seed_all()",
    "cuda.initial_seed()", "cuda.default_generators", "Generator(device='cuda')",
    "cuda.set_rng_state(zeros(16, dtype=uint8))", "cuda.set_rng_state_all([])",
]  # fmt: skip


@pytest.mark.parametrize("call", CPU_BUILD_CALLS)
def test_cpu_only_build_matches_pytorch(call, torch_oracle):
    if torch_oracle.cuda.is_available():
        pytest.skip("the oracle has CUDA")
    ns_tm, ns_th = {"cuda": taimatsu.cuda}, {"cuda": torch_oracle.cuda}
    got = raised(lambda: eval(call, {**vars(taimatsu), **ns_tm}))
    want = raised(lambda: eval(call, {**vars(torch_oracle), **ns_th}))
    assert got == want
    if want is None:
        assert eval(call, {**vars(taimatsu), **ns_tm}) == eval(
            call, {**vars(torch_oracle), **ns_th}
        )


# ---- with the double ------------------------------------------------------------------------------
def test_queries(fake_cupy):
    cuda = taimatsu.cuda
    assert cuda.is_available() and cuda.device_count() == 2 and cuda.current_device() == 0
    assert cuda.get_device_name() == "CuPy test double (NumPy)"
    p = cuda.get_device_properties(0)
    assert (p.major, p.minor, p.total_memory) == (9, 0, 16 * 2**30)
    assert "_CudaDeviceProperties(name='CuPy test double (NumPy)', major=9" in repr(p)
    assert cuda.get_device_capability() == (9, 0) and cuda.is_bf16_supported()
    with pytest.raises(AssertionError, match="Invalid device id"):
        cuda.get_device_properties(5)
    assert taimatsu.accelerator.is_available()


def test_set_device_and_context(fake_cupy):
    cuda = taimatsu.cuda
    with cuda.device(1):
        assert cuda.current_device() == 1 and fake_cupy.cuda.Device().id == 1
        t = taimatsu.ones(2, device="cuda")
        assert t.device == taimatsu.device("cuda:1") and t._data.device.id == 1
    assert cuda.current_device() == 0 and fake_cupy.cuda.Device().id == 0
    cuda.set_device("cuda:1")
    assert cuda.current_device() == 1
    cuda.set_device(0)
    u = taimatsu.arange(3.0).to("cuda:1")
    assert str(u.device) == "cuda:1" and u._data.device.id == 1
    assert u.cuda(0)._data.device.id == 0


def test_transfers_and_errors(fake_cupy, torch_oracle):
    x = taimatsu.arange(6.0).reshape(2, 3)
    c = x.cuda()
    assert c.is_cuda and c.device == taimatsu.device("cuda", 0) and c.get_device() == 0
    assert type(c._data).__module__ == "cupy"
    assert c.to("cuda") is c and c.to("cuda", non_blocking=True) is c
    back = c.cpu()
    assert back.device.type == "cpu" and np.array_equal(back.numpy(), x.numpy())
    with pytest.raises(TypeError) as e:
        c.numpy()
    assert str(e.value) == (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
        "host memory first."
    )
    with pytest.raises(RuntimeError) as e:
        c + x
    assert str(e.value) == (
        "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!"
    )
    assert repr(c) == "tensor([[0., 1., 2.],\n        [3., 4., 5.]], device='cuda:0')"
    assert c.type() == "torch.cuda.FloatTensor"
    assert (c * 2).sum().item() == 30.0


@pytest.mark.parametrize(
    "op",
    [
        lambda x, i, s: x.gather(0, i),
        lambda x, i, s: x.scatter(0, i, s),
        lambda x, i, s: x.scatter_add(0, i, s),
        lambda x, i, s: x.scatter_reduce(0, i, s, "sum"),
        lambda x, i, s: x.index_add(0, i[0, :1], s),
        lambda x, i, s: x.index_copy(0, i[0, :1], s),
    ],
    ids=["gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy"],
)
def test_index_on_the_host_is_refused(op, fake_cupy):
    """A CPU index with CUDA tensors is PyTorch's RuntimeError (it was silently used by
    scatter, and a CuPy TypeError elsewhere: found on the first GPU run)."""
    x, s = taimatsu.randn(3, 4, device="cuda"), taimatsu.randn(1, 4, device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        op(x, taimatsu.tensor([[0, 1, 2, 0]]), s)


@pytest.mark.parametrize(
    "op",
    [
        lambda T, a: T.linalg.inv(a),
        lambda T, a: T.linalg.solve(a, T.ones(2, device=a.device)),
        lambda T, a: T.linalg.solve(a, T.ones(1, 2, device=a.device), left=False),
        lambda T, a: T.inverse(a),
    ],
    ids=["inv", "solve", "solve_right", "inverse"],
)
def test_singular_matrix_raises_on_cuda_as_on_the_cpu(op, fake_cupy):
    """CuPy's inv/solve return NaN for a singular matrix unless asked to check cuSOLVER's info
    (the double does the same); PyTorch raises on CUDA as on the CPU."""
    a = taimatsu.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(taimatsu.linalg.LinAlgError) as cpu:
        op(taimatsu, a)
    with pytest.raises(taimatsu.linalg.LinAlgError) as cuda:
        op(taimatsu, a.cuda())
    assert str(cuda.value) == str(cpu.value)


def test_pin_memory(fake_cupy):
    x = taimatsu.randn(4, 5)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and p.device.type == "cpu" and np.array_equal(p.numpy(), x.numpy())
    assert p.pin_memory() is p
    assert p.to("cuda", non_blocking=True).cpu().numpy().tolist() == x.numpy().tolist()


def test_streams_and_events(fake_cupy):
    cuda = taimatsu.cuda
    s = cuda.Stream()
    assert cuda.current_stream() == cuda.default_stream()
    with cuda.stream(s):
        assert cuda.current_stream() == s
        start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        start.record()
        taimatsu.ones(100, device="cuda").sum()
        end.record()
    assert cuda.current_stream() != s
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0 and start.query()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        cuda.Event().elapsed_time(end)
    s.wait_stream(cuda.current_stream())
    s.synchronize()
    cuda.synchronize()
    with cuda.stream(None):
        pass


def test_memory_statistics(fake_cupy):
    gc.collect()  # earlier tests' cyclic garbage must not be freed in the middle of this one
    gc.disable()
    try:
        _check_memory_statistics(taimatsu.cuda)
    finally:
        gc.enable()


def _check_memory_statistics(cuda):
    cuda.empty_cache()
    base = cuda.memory_allocated()
    cuda.reset_peak_memory_stats()
    a = taimatsu.zeros(1024, device="cuda")  # 4 KiB
    b = taimatsu.zeros(2048, device="cuda")  # 8 KiB
    assert cuda.memory_allocated() == base + 12288
    del a, b
    assert cuda.memory_allocated() == base
    assert cuda.max_memory_allocated() >= base + 12288
    assert cuda.memory_reserved() >= base + 12288
    cuda.empty_cache()
    assert cuda.memory_reserved() == base
    cuda.reset_peak_memory_stats()
    assert cuda.max_memory_allocated() == base
    stats = cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == base
    assert stats["reserved_bytes.all.peak"] == base  # after reset_peak_memory_stats
    free, total = cuda.mem_get_info()
    assert total == 16 * 2**30 and free <= total


def test_manual_seed_is_reproducible(fake_cupy):
    taimatsu.manual_seed(3)
    a = taimatsu.randn(5, device="cuda").cpu().numpy()
    taimatsu.cuda.manual_seed_all(3)
    taimatsu.manual_seed(3)
    b = taimatsu.randn(5, device="cuda").cpu().numpy()
    assert np.array_equal(a, b)


def test_checkpoint_of_cuda_tensors_loads_on_cpu(fake_cupy, torch_oracle):
    model = taimatsu.nn.Linear(3, 2).cuda()
    buf = io.BytesIO()
    taimatsu.save(model.state_dict(), buf)
    buf.seek(0)
    sd = taimatsu.load(buf, map_location="cpu")
    assert all(v.device.type == "cpu" for v in sd.values())
    buf.seek(0)
    th = torch_oracle.load(buf, map_location="cpu")  # PyTorch reads it as a CUDA checkpoint
    for k, v in sd.items():
        assert np.array_equal(th[k].numpy(), v.numpy())
    buf.seek(0)
    on_gpu = taimatsu.load(buf)
    assert all(v.is_cuda for v in on_gpu.values())


def test_double_refuses_host_memory(fake_cupy):
    cp = fake_cupy
    a = cp.asarray(np.ones(3))
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(a)
    with pytest.raises(TypeError, match="Unsupported type"):
        a + np.ones(3)
    with pytest.raises(TypeError, match="Unsupported type"):
        np.ones(3) + a
    with pytest.raises(TypeError, match="no implementation found"):
        np.save(io.BytesIO(), a)
    assert type(a.sum()).__module__ == "cupy" and a.sum().shape == ()
    cp.STATS.reset()
    float(a.sum())
    a[a > 0]
    assert [w for _, w in cp.STATS.log] == ["__float__", "boolean mask index"]


RANDOM_FROM_DATA = {
    "multinomial": lambda T, p: T.multinomial(p, 2),
    "poisson": lambda T, p: T.poisson(p * 3),
    "bernoulli": lambda T, p: T.bernoulli(p),
    "bernoulli_p": lambda T, p: T.bernoulli(p, 0.3),
    "bernoulli_": lambda T, p: p.clone().bernoulli_(p),
    "normal": lambda T, p: T.normal(p, p + 1),
    "normal_mean": lambda T, p: T.normal(p, 1.0),
    "dropout": lambda T, p: T.nn.functional.dropout(p, 0.5),
    "rand_like": lambda T, p: T.rand_like(p),
}


@pytest.mark.parametrize("name", list(RANDOM_FROM_DATA))
def test_random_from_data_stays_on_the_device(name, fake_cupy):
    """Random ops on CUDA tensors draw on the GPU (CuPy's generator, test_cuda_random.py), so
    their numbers differ from the CPU's as PyTorch's do; their results stay on the device with
    the CPU's dtype and shape. poisson still draws on the host: the CPU's numbers."""
    fn = RANDOM_FROM_DATA[name]
    taimatsu.manual_seed(5)
    p = taimatsu.rand(3, 4)
    want = fn(taimatsu, p)
    taimatsu.manual_seed(5)
    got = fn(taimatsu, taimatsu.rand(3, 4).cuda())
    assert got.is_cuda and type(got._data).__module__ == "cupy"
    assert got.dtype == want.dtype and got.shape == want.shape
    if name == "poisson":
        assert np.array_equal(got.cpu().numpy(), want.numpy())


def test_dataloader_pins_batches_with_cuda(fake_cupy):
    from taimatsu.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(taimatsu.randn(6, 3), taimatsu.arange(6))
    for x, y in DataLoader(ds, batch_size=4, pin_memory=True):
        assert x.is_pinned() and y.is_pinned()
        assert x.to("cuda", non_blocking=True).is_cuda
    x, _ = next(iter(DataLoader(ds, batch_size=4)))
    assert not x.is_pinned()
