"""Running op database entries (tests/ops/opdb*.py) on the CuPy test double's "cuda" device and
comparing with the same entry on the CPU (no PyTorch needed: taimatsu's CPU results, themselves
oracle-tested by tests/ops/test_opdb.py, are the reference)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from cuda_known_failures import DEVICE_SPECIFIC
from opdb import REGISTRY, calls, is_float, load_all, tolerances

import taimatsu

load_all()


def entry_dtype(name: str) -> str:
    """The one dtype an entry is run in on cuda: float32 when it has it, else its first."""
    dtypes = REGISTRY[name].dtypes
    return "float32" if "float32" in dtypes else dtypes[0]


def _run(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001 - compared between devices below
        return None, e


def _host(x):
    """``x`` with every tensor brought to the CPU (and detached), for comparison."""
    if isinstance(x, taimatsu.Tensor):
        return x.detach().cpu()
    if isinstance(x, (tuple, list)):
        return type(x)(_host(v) for v in x) if not hasattr(x, "_fields") else [_host(v) for v in x]
    return x


def _tensors(x) -> list:
    if isinstance(x, taimatsu.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    return []


def assert_close(cpu, gpu, info, where: str) -> None:
    if isinstance(cpu, taimatsu.Tensor):
        assert isinstance(gpu, taimatsu.Tensor), f"{where}: {type(gpu).__name__}"
        assert gpu.device.type == "cpu", f"{where}: not brought back"  # _host did
        assert (gpu.dtype, tuple(gpu.shape)) == (cpu.dtype, tuple(cpu.shape)), where
        a, b = cpu.float() if cpu.dtype is taimatsu.bfloat16 else cpu, gpu
        b = b.float() if b.dtype is taimatsu.bfloat16 else b
        a, b = a.resolve_conj().numpy(), b.resolve_conj().numpy()
        if a.dtype.kind in "fc":
            rtol, atol = tolerances(info, str(cpu.dtype).replace("torch.", ""))
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(b, a, err_msg=where)
    elif isinstance(cpu, (tuple, list)):
        assert len(cpu) == len(gpu), where
        for i, (x, y) in enumerate(zip(cpu, gpu)):
            assert_close(x, y, info, f"{where}[{i}]")
    elif isinstance(cpu, float) and np.isnan(cpu):
        assert np.isnan(gpu), where
    else:
        assert cpu == gpu, f"{where}: {cpu!r} != {gpu!r}"


def _inplace_form(info):
    def fn(T, x, *args, **kwargs):
        y = x.clone()
        r = info.inplace(y, *args, **kwargs)
        assert r is y, "the in-place form did not return self"
        return y

    return fn


def _forward_backward(call, device: str, cot_seed: int, inplace: bool = False):
    """The entry's result, and the gradients of (result . random cotangent), on ``device``
    (the in-place form with ``inplace``)."""
    info = call.info
    op = _inplace_form(info) if inplace else info.op
    want = taimatsu.device(device)
    with taimatsu.device(device):
        leaves = call.make_leaves(taimatsu, requires_grad=info.grad)
        assert all(_on(t, want) for t in leaves), "a leaf is not on the device"
        out = call.call(taimatsu, op, leaves)
        for t in _tensors(out):  # results stay on the device, as device arrays
            assert _on(t, want), f"a result on {t.device}"
            if want.type == "cuda":
                assert type(t._data).__module__.startswith("cupy"), "a cuda result on the host"
                assert t._data.device.id == (want.index or 0), "an array on another GPU"
        outs = [t for t in _tensors(out) if t.requires_grad and is_float(str(t.dtype)[6:])]
        grads = None
        if outs:
            rng = np.random.default_rng(cot_seed)
            cots = [taimatsu.tensor(rng.standard_normal(t.shape)).to(t.dtype) for t in outs]
            with taimatsu.device("cpu"):
                cots = [c.to(device) for c in cots]
            ins = [t for t in leaves if t.requires_grad]
            grads = taimatsu.autograd.grad(outs, ins, cots, allow_unused=True)
    return _host(out), _host(grads)


def _on(t, want) -> bool:
    return t.device.type == want.type and want.index in (None, t.device.index)


def check_entry(
    name: str, inplace: bool = False, dtype: str | None = None, device: str = "cuda"
) -> None:
    """Every sample of entry ``name`` (its in-place form with ``inplace``; in ``dtype``, else
    ``entry_dtype``) gives the same results and gradients on ``device`` as on the CPU (or the
    same exception type). ``device="cuda:1"`` runs it on the second GPU while the first is
    the current one: every kernel must run on its inputs' GPU."""
    if device.startswith("cuda") and name in DEVICE_SPECIFIC:
        pytest.skip(f"{name} on CUDA: {DEVICE_SPECIFIC[name]} (test_device_specific_ops.py)")
    info = REGISTRY[name]
    for k, call in enumerate(calls(info, dtype or entry_dtype(name))):
        cpu, cpu_exc = _run(lambda call=call, k=k: _forward_backward(call, "cpu", k, inplace))
        gpu, gpu_exc = _run(lambda call=call, k=k: _forward_backward(call, device, k, inplace))
        if cpu_exc is not None:
            assert type(gpu_exc) is type(cpu_exc), (
                f"{call!r}: cuda gave {gpu_exc!r}, cpu {cpu_exc!r}"
            )
            continue
        if gpu_exc is not None:
            raise AssertionError(
                f"{call!r}: cuda raised {type(gpu_exc).__name__}: {gpu_exc}"
            ) from gpu_exc
        assert_close(cpu[0], gpu[0], info, f"{call!r} forward")
        if cpu[1] is not None:
            for i, (a, b) in enumerate(zip(cpu[1], gpu[1])):
                if a is not None:
                    assert_close(a, b, info, f"{call!r} grad {i}")
