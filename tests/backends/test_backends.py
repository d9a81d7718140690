"""torch.backends, torch.accelerator, torch.cpu and Tensor.is_* vs PyTorch's CPU wheel."""

import pytest

import taimatsu as tm


@pytest.fixture
def restore_flags():
    c = tm.backends.cudnn
    saved = (
        c.enabled,
        c.benchmark,
        c.deterministic,
        c.allow_tf32,
        tm.get_float32_matmul_precision(),
    )
    yield
    c.enabled, c.benchmark, c.deterministic, c.allow_tf32 = saved[:4]
    tm.set_float32_matmul_precision(saved[4])


def test_availability_answers_match(torch_oracle):
    for name in ("cudnn", "mps", "mkldnn", "openmp", "mkl", "opt_einsum"):
        ours, theirs = getattr(tm.backends, name), getattr(torch_oracle.backends, name)
        assert ours.is_available() == theirs.is_available(), name
    assert tm.backends.mps.is_built() == torch_oracle.backends.mps.is_built()
    assert tm.backends.cudnn.version() is None
    assert tm.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2", "AVX512")
    assert tm.backends.opt_einsum.enabled == torch_oracle.backends.opt_einsum.enabled
    assert tm.backends.opt_einsum.strategy == torch_oracle.backends.opt_einsum.strategy


def test_flag_defaults_and_type_checks(torch_oracle, restore_flags):
    names = ("enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit")
    for n in names:
        assert getattr(tm.backends.cudnn, n) == getattr(torch_oracle.backends.cudnn, n), n
    for n in ("enabled", "deterministic"):
        assert getattr(tm.backends.mkldnn, n) == getattr(torch_oracle.backends.mkldnn, n), n
    m, tm_ = tm.backends.cuda.matmul, torch_oracle.backends.cuda.matmul
    for n in (
        "allow_tf32",
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
    ):
        assert getattr(m, n) == getattr(tm_, n), n
    for lib in (tm, torch_oracle):
        with pytest.raises(RuntimeError, match="^set_benchmark_cudnn expects a bool, but got int$"):
            lib.backends.cudnn.benchmark = 1
        with pytest.raises(
            RuntimeError, match="^set_allow_tf32_cublas expects a bool, but got int$"
        ):
            lib.backends.cuda.matmul.allow_tf32 = 1
        with pytest.raises(AttributeError, match="^Unknown attribute xyz$"):
            lib.backends.cuda.matmul.xyz  # noqa: B018
    tm.backends.cudnn.benchmark = True
    assert tm.backends.cudnn.benchmark is True


def test_tf32_is_the_matmul_precision(torch_oracle, restore_flags):
    prev = torch_oracle.get_float32_matmul_precision()
    try:
        for lib in (tm, torch_oracle):
            seen = []
            for p in ("high", "medium", "highest"):
                lib.set_float32_matmul_precision(p)
                seen.append(lib.backends.cuda.matmul.allow_tf32)
            lib.backends.cuda.matmul.allow_tf32 = True
            seen.append(lib.get_float32_matmul_precision())
            lib.backends.cuda.matmul.allow_tf32 = False
            seen.append(lib.get_float32_matmul_precision())
            if lib is tm:
                ours = seen
        assert ours == seen
    finally:
        torch_oracle.set_float32_matmul_precision(prev)


def test_cudnn_flags_context(torch_oracle, restore_flags):
    for lib in (tm, torch_oracle):
        c = lib.backends.cudnn
        with c.flags(enabled=False, benchmark=True) as got:
            inside = (got, c.enabled, c.benchmark, c.deterministic, c.allow_tf32)
        after = (c.enabled, c.benchmark)
        if lib is tm:
            ours = (inside, after)
    assert ours == (inside, after)


def test_accelerator_without_gpu(torch_oracle):
    if tm.cuda.is_available():
        pytest.skip("a GPU is present")
    a, b = tm.accelerator, torch_oracle.accelerator
    assert a.is_available() == b.is_available() is False
    assert a.current_accelerator() is None and b.current_accelerator() is None
    assert a.device_count() == b.device_count() == 0
    for lib in (a, b):
        calls = (
            lib.current_device_index,
            lib.synchronize,
            lambda: lib.set_device_index(0),  # noqa: B023 (called in this iteration)
            lib.empty_cache,
            lib.memory_allocated,
            lib.memory_reserved,
            lib.get_memory_info,
        )
        for call in calls:
            with pytest.raises(
                RuntimeError, match="^Cannot access accelerator device when none is available.$"
            ):
                call()
        with lib.device_index(None):
            pass


def test_cpu_module_and_tensor_flags(torch_oracle):
    assert tm.cpu.is_available() and tm.cpu.device_count() == torch_oracle.cpu.device_count()
    assert tm.cpu.current_device() == torch_oracle.cpu.current_device()
    tm.cpu.synchronize()
    t, o = tm.ones(2), torch_oracle.ones(2)
    for name in ("is_meta", "is_xpu", "is_mps", "is_cuda", "is_cpu"):
        assert getattr(t, name) == getattr(o, name), name


def test_import_paths_and_bf16_query(torch_oracle):
    from taimatsu.amp import GradScaler, autocast  # noqa: F401
    from taimatsu.backends import cudnn  # noqa: F401
    from taimatsu.cpu.amp import autocast as cpu_autocast  # noqa: F401
    from taimatsu.cuda.amp import GradScaler as CudaScaler  # noqa: F401
    from taimatsu.cuda.amp import autocast as cuda_autocast  # noqa: F401

    if not tm.cuda.is_available():
        assert tm.cuda.is_bf16_supported() == torch_oracle.cuda.is_bf16_supported()


def test_sdp_kernel_context(torch_oracle):
    seen = []
    for lib in (tm, torch_oracle):
        c = lib.backends.cuda
        with (
            pytest.warns(
                FutureWarning, match=r"`torch.backends.cuda.sdp_kernel\(\)` is deprecated"
            ),
            c.sdp_kernel(enable_flash=False, enable_cudnn=False) as got,
        ):
            inside = (got, c.flash_sdp_enabled(), c.math_sdp_enabled(), c.cudnn_sdp_enabled())
        seen.append((inside, c.flash_sdp_enabled(), c.is_flash_attention_available()))
    assert seen[0] == seen[1]


def test_mkldnn_allow_tf32_warns_and_reads_none(torch_oracle):
    """PyTorch's CPU wheel: every allow_tf32 given (attribute or flags()) warns, reads None."""
    import warnings

    def run(lib):
        m, seen = lib.backends.mkldnn, []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for v in (True, False):
                m.allow_tf32 = v
                seen.append(m.allow_tf32)
            with m.flags(enabled=False):
                seen.append((m.enabled, m.allow_tf32))
            with m.flags(enabled=False, allow_tf32=False):
                seen.append(m.allow_tf32)
        seen.append(m.enabled)
        return seen, [(w.category, str(w.message)) for w in caught]

    ours, theirs = run(tm), run(torch_oracle)
    assert ours[0] == theirs[0]
    assert len(ours[1]) == len(theirs[1]) == 4
    assert [(c.__name__, m) for c, m in ours[1]] == [(c.__name__, m) for c, m in theirs[1]]


def test_config_module(torch_oracle):
    info = tm.__config__.parallel_info()
    assert f"at::get_num_threads() : {tm.get_num_threads()}" in info
    for key in ("at::get_num_interop_threads() :", "OMP_NUM_THREADS :", "MKL_NUM_THREADS :"):
        assert key in info and key in torch_oracle.__config__.parallel_info()
    assert "built with" in tm.__config__.show() and "built with" in torch_oracle.__config__.show()


def _outcome(f):
    try:
        return f()
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e)


def test_device_generic_namespace_matches_pytorch(torch_oracle):
    # torch.get_device_module, torch.is_distributed, and the classes torch.* re-exports
    for lib in (tm, torch_oracle):
        assert lib.get_device_module() is lib.cpu  # no accelerator on the CPU wheel
        assert lib.get_device_module("cuda:1") is lib.cuda
        assert lib.get_device_module(lib.device("cpu")) is lib.cpu
        assert lib.GradScaler is lib.amp.GradScaler
        assert type(lib.strided) is lib.layout and type(lib.sparse_coo) is lib.layout
        assert issubclass(lib.futures.Future, lib.Future)
        assert lib.is_distributed(lib.ones(2)) is False
    for arg in ("meta", 3, "foo", 1.5):
        mine = _outcome(lambda a=arg: tm.get_device_module(a))
        assert mine == _outcome(lambda a=arg: torch_oracle.get_device_module(a)), arg
    for arg in (3, [1.0]):
        mine = _outcome(lambda a=arg: tm.is_distributed(a))
        assert mine == _outcome(lambda a=arg: torch_oracle.is_distributed(a)), arg
