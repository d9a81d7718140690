"""``out=`` on CUDA tensors for the host-only ops (taimatsu/ops/on_host.py): the CPU op's own
out= checks run on CPU stand-ins of the caller's tensors, so the errors, warnings, resizing and
return values are the CPU path's."""

import warnings

import numpy as np
import pytest

import taimatsu as torch

x = torch.randn(4, 5)
spd = x @ x.T + 4 * torch.eye(4)

# (call, the out tensors' (shape, dtype) as the op wants them)
CALLS = {
    "topk": (lambda t, out: torch.topk(t(x), 2, out=out), [((4, 2), "float32"), ((4, 2), "int64")]),
    "kthvalue": (lambda t, out: torch.kthvalue(t(x), 2, out=out), [((4,), "float32"), ((4,), "int64")]),
    "cummax": (lambda t, out: torch.cummax(t(x), 1, out=out), [((4, 5), "float32"), ((4, 5), "int64")]),
    "mode": (lambda t, out: torch.mode(t(x), 1, out=out), [((4,), "float32"), ((4,), "int64")]),
    "sort": (lambda t, out: torch.sort(t(x), 1, out=out), [((4, 5), "float32"), ((4, 5), "int64")]),
    "linalg.inv": (lambda t, out: torch.linalg.inv(t(spd), out=out[0]), [((4, 4), "float32")]),
    "linalg.solve": (lambda t, out: torch.linalg.solve(t(spd), t(x), out=out[0]), [((4, 5), "float32")]),
}  # fmt: skip

VARIANTS = {
    "right": lambda specs: specs,
    "wrong_shape": lambda specs: [((2, 3), d) for _, d in specs],  # resized with the warning
    "empty": lambda specs: [((0,), d) for _, d in specs],  # resized silently
    "wrong_dtype": lambda specs: [(s, "float64" if d != "float64" else "int64") for s, d in specs],
    "int_values": lambda specs: [(s, "int32") for s, _ in specs],
}


def _run(call, specs, device):
    out = [torch.zeros(s, dtype=getattr(torch, d), device=device) for s, d in specs]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = call(lambda t: t.to(device), tuple(out) if len(out) > 1 else out)
        except Exception as e:  # noqa: BLE001 - compared between devices
            return (type(e), str(e)), None
    rs = list(r) if isinstance(r, tuple) else [r]
    same = [a is b for a, b in zip(rs, out)]
    seen = [(w.category, str(w.message)) for w in caught]
    return (type(r).__name__, same, seen), [o.cpu() for o in out]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_on_cuda_is_checked_as_on_the_cpu(name, variant, fake_cupy):
    call, specs = CALLS[name]
    specs = VARIANTS[variant](specs)
    cpu, cpu_out = _run(call, specs, "cpu")
    gpu, gpu_out = _run(call, specs, "cuda")
    assert gpu == cpu
    if cpu_out is not None:
        for a, b in zip(cpu_out, gpu_out):
            assert (a.dtype, a.shape) == (b.dtype, b.shape)
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)


def test_out_on_another_device(fake_cupy):
    v, i = torch.empty(4, 2), torch.empty(4, 2, dtype=torch.long)
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have device cuda:0, but got cpu instead"
    ):
        torch.topk(x.cuda(), 2, out=(v, i))
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have device cuda:0, but got cpu instead"
    ):
        torch.add(x.cuda(), 1, out=torch.empty(4, 5))
