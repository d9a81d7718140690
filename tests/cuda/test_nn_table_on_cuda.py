"""The nn table (tests/nn/nn_cases.py, every layer configuration) on the CuPy test double's
"cuda" device against the same module on the CPU: outputs, buffers after the forward, and the
gradients of inputs and parameters for a random cotangent, in train and eval mode."""

import copy

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")  # the table's inputs are made with PyTorch

from nn_cases import MODULE_CASES, PENDING

# Deviations of this double-backed run, each a known gap (strict: fixing one fails it here).
KNOWN: dict[str, str] = {}


def _inputs(variant):
    """The variant's inputs as taimatsu CPU tensors: (args, kwargs)."""
    if callable(variant):
        out = variant()
        args, kw = out if isinstance(out, tuple) else (out, {})
    else:
        shapes = (variant,) if all(isinstance(d, int) for d in variant) else variant
        args, kw = [torch.randn(s).requires_grad_() for s in shapes], {}
    return _map(args, _from_torch), _map(kw, _from_torch)


def _from_torch(t):
    x = tm.tensor(t.detach().numpy())
    return x.requires_grad_() if t.requires_grad else x


def _to_cuda(t):
    x = t.detach().cuda()
    return x.requires_grad_() if t.requires_grad else x


def _map(obj, fn):
    if isinstance(obj, (torch.Tensor, tm.Tensor)):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map(v, fn) for v in obj)
    return obj


def _flat(obj):
    if isinstance(obj, tm.Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in _flat(v)]
    return []


def _close(gpu, cpu, case, what):
    assert gpu.device.type == "cuda", f"{what}: on {gpu.device}"
    g, c = gpu.detach().cpu().numpy(), cpu.detach().numpy()
    assert (g.shape, g.dtype) == (c.shape, c.dtype), what
    np.testing.assert_allclose(g, c, rtol=case.rtol, atol=case.atol, err_msg=what)


PARAMS = [
    pytest.param(c, i, mode, id=f"{c.id}-v{i}-{mode}",
                 marks=[pytest.mark.xfail(reason=KNOWN[c.id], strict=True)] if c.id in KNOWN else [])
    for c in MODULE_CASES
    for i in range(len(c.variants))
    for mode in ("train", "eval")
]  # fmt: skip


@pytest.mark.parametrize(("case", "vi", "mode"), PARAMS)
def test_module_on_cuda_matches_cpu(case, vi, mode, fake_cupy, cpu_numbers_on_cuda):
    if case.name in PENDING and not hasattr(tm.nn, case.name):
        pytest.skip("not yet in taimatsu")
    tm.manual_seed(0)
    cpu = case.make(tm)
    torch.manual_seed(1)
    args, kw = _inputs(case.variants[vi])
    if case.lazy:
        with tm.no_grad():
            cpu(*args, **kw)
    gpu = copy.deepcopy(cpu).cuda()
    gargs, gkw = _map(args, _to_cuda), _map(kw, _to_cuda)
    getattr(cpu, mode)()
    getattr(gpu, mode)()
    outs = {}
    for name, mod, a, k in (("cpu", cpu, args, kw), ("cuda", gpu, gargs, gkw)):
        tm.manual_seed(2)  # dropout draws the same numbers on both devices (cpu_numbers_on_cuda)
        outs[name] = _flat(mod(*a, **k))
    assert len(outs["cpu"]) == len(outs["cuda"])
    for j, (c, g) in enumerate(zip(outs["cpu"], outs["cuda"])):
        _close(g, c, case, f"output {j}")
    for (n, c), (_, g) in zip(cpu.state_dict().items(), gpu.state_dict().items()):
        _close(g, c, case, f"state {n}")
    diff = [j for j, c in enumerate(outs["cpu"]) if c.requires_grad]
    if not diff:
        return
    tm.manual_seed(3)
    cots = [tm.randn(tuple(outs["cpu"][j].shape)) for j in diff]
    grads = {}
    for name, mod, a, k, move in (("cpu", cpu, args, kw, lambda t: t),
                                  ("cuda", gpu, gargs, gkw, lambda t: t.cuda())):  # fmt: skip
        leaves = [x for x in _flat((a, k)) if x.requires_grad] + list(mod.parameters())
        grads[name] = tm.autograd.grad([outs[name][j] for j in diff], leaves,
                                       [move(c) for c in cots], allow_unused=True)  # fmt: skip
    for j, (c, g) in enumerate(zip(grads["cpu"], grads["cuda"])):
        assert (c is None) == (g is None), f"grad {j}"
        if c is not None:
            _close(g, c, case, f"grad {j}")
