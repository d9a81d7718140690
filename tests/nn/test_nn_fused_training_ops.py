"""The fused forward/backward paths of the ops a transformer training step runs (GELU,
scaled_dot_product_attention, layer_norm): values and gradients against PyTorch with random
cotangents, float32 and float64, and the op-by-op fallback under create_graph (double backward)."""

import numpy as np
import pytest

import taimatsu as tm

TOL = {"float32": {"rtol": 1e-5, "atol": 1e-5}, "float64": {"rtol": 1e-10, "atol": 1e-12}}
DTYPES = ["float32", "float64"]


def _pair(torch, a: np.ndarray, grad: bool = True):
    t = torch.tensor(a, requires_grad=grad)
    m = tm.tensor(a, requires_grad=grad)
    return t, m


def _close(mine, theirs, dtype, scale: float = 1.0):
    tol = TOL[dtype]
    mine = mine.detach().numpy() if hasattr(mine, "detach") else mine
    np.testing.assert_allclose(
        mine, theirs.detach().numpy(), rtol=tol["rtol"] * scale, atol=tol["atol"] * scale
    )
    assert str(mine.dtype) == dtype


def _grads(outs, ins, cot):
    """Gradients of ``outs`` with cotangent ``cot`` (both frameworks' ``autograd.grad``)."""
    lib = tm if isinstance(outs, tm.Tensor) else __import__("torch")
    return lib.autograd.grad(outs, ins, lib.tensor(cot))


# ---- GELU ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_matches_oracle(torch_oracle, dtype, approximate):
    torch = torch_oracle
    rng = np.random.default_rng(0)
    # blockwise-sized in float32; float32 GELU cancels in 1 + erf(x) for x < -3 (atol 1e-5)
    a = (rng.standard_normal((64, 300)) * 3).astype(dtype)
    cot = rng.standard_normal(a.shape).astype(dtype)
    t, m = _pair(torch, a)
    yt = torch.nn.functional.gelu(t, approximate=approximate)
    ym = tm.nn.functional.gelu(m, approximate=approximate)
    _close(ym, yt, dtype)
    assert type(ym.grad_fn).__name__ == "GeluBackward0"
    (gt,), (gm,) = _grads(yt, [t], cot), _grads(ym, [m], cot)
    _close(gm, gt, dtype, scale=4)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_double_backward_uses_the_op_graph(torch_oracle, approximate):
    torch = torch_oracle
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 7))
    cot, cot2 = rng.standard_normal(a.shape), rng.standard_normal(a.shape)
    res = []
    for lib in (torch, tm):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.gelu(x, approximate=approximate)
        (g,) = lib.autograd.grad(y, [x], lib.tensor(cot), create_graph=True)
        assert g.requires_grad
        (gg,) = lib.autograd.grad(g, [x], lib.tensor(cot2))
        res.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10, atol=1e-12)


def test_gelu_inplace_and_half_backward(torch_oracle):
    torch = torch_oracle
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 6)).astype(np.float32)
    cot = rng.standard_normal(a.shape).astype(np.float32)
    res = []
    for lib in (torch, tm):
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.gelu(x.to(lib.bfloat16))
        (g,) = lib.autograd.grad(y, [x], lib.tensor(cot).to(lib.bfloat16))
        res.append(g.float().numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=2e-2, atol=2e-2)
