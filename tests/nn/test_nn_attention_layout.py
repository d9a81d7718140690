"""scaled_dot_product_attention's output and gradients in PyTorch's layouts (4-D inputs, the
CPU flash kernel): the output is laid out like the query when the query's last dim is
contiguous (so the heads of ``qkv.split(...)``, viewed and transposed, merge back without a
copy), else C-contiguous."""

import numpy as np
import pytest

import taimatsu as tm

B, S, H, E = 2, 5, 3, 4

# how the (B, H, S, E) query is laid out: a permutation of a dense array, or a split view
LAYOUTS = {
    "contiguous": lambda lib, r: r((B, H, S, E)),
    "BSHE": lambda lib, r: r((B, S, H, E)).transpose(1, 2),
    "HBSE": lambda lib, r: r((H, B, S, E)).transpose(0, 1),
    "SBHE": lambda lib, r: r((S, B, H, E)).permute(1, 2, 0, 3),
    "BSEH": lambda lib, r: r((B, S, E, H)).permute(0, 3, 1, 2),
    "sliced E": lambda lib, r: r((B, H, S, 2 * E))[..., :E],
    "split": lambda lib, r: r((B, S, 3 * H * E))[..., : H * E].view(B, S, H, E).transpose(1, 2),
}


def _layout(lib, name, array):
    def make(shape):
        return lib.tensor(array[: np.prod(shape)].reshape(shape))

    return LAYOUTS[name](lib, make)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_output_layout_matches_pytorch(torch_oracle, name, dtype):
    torch = torch_oracle
    rng = np.random.default_rng(0)
    array = rng.standard_normal(B * S * 3 * H * E).astype(dtype)
    cot = rng.standard_normal((B, H, S, E)).astype(dtype)
    seen = []
    for lib in (torch, tm):
        q = _layout(lib, name, array).detach().requires_grad_()
        k, v = (lib.tensor(rng.standard_normal((B, H, S, E)).astype(dtype)) for _ in range(2))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.backward(lib.tensor(cot))
        seen.append((tuple(q.stride()), tuple(out.stride()), out.transpose(1, 2).is_contiguous()))
    assert seen[1] == seen[0]


def test_split_heads_merge_without_a_copy():
    qkv = tm.randn(B, S, 3 * H * E, requires_grad=True)
    q, k, v = (t.view(B, S, H, E).transpose(1, 2) for t in qkv.split(H * E, dim=2))
    out = tm.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    merged = out.transpose(1, 2).contiguous()
    assert merged.data_ptr() == out.data_ptr()
    merged.view(B, S, H * E).sum().backward()
    assert qkv.grad.shape == qkv.shape


def test_split_heads_gradient_matches_pytorch(torch_oracle):
    # attention writes q, k, v's gradients into one array laid out like qkv: split's backward
    # hands it on without concatenating
    torch = torch_oracle
    rng = np.random.default_rng(1)
    x = rng.standard_normal((B, S, 3 * H * E)).astype(np.float32)
    cot = rng.standard_normal((B, S, H * E)).astype(np.float32)
    grads = []
    for lib in (torch, tm):
        qkv = lib.tensor(x, requires_grad=True)
        q, k, v = (t.view(B, S, H, E).transpose(1, 2) for t in qkv.split(H * E, dim=2))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.transpose(1, 2).contiguous().view(B, S, H * E).backward(lib.tensor(cot))
        grads.append(qkv.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_split_backward_takes_tiling_gradients_uncopied():
    from taimatsu.ops.shape.split import _tiled

    whole = np.ones((2, 3, 12), np.float32)
    parts = [tm.from_numpy(whole[..., 4 * i : 4 * i + 4]) for i in range(3)]
    assert _tiled(parts, 2)._data is whole
    assert _tiled(parts[::-1], 2) is None  # out of order
    assert _tiled(parts[:2], 2) is None  # a part missing
    other = tm.from_numpy(whole[..., 4:8].copy())
    assert _tiled([parts[0], other, parts[2]], 2) is None  # not one array
    gapped = np.zeros((2, 3, 13), np.float32)
    pieces = [tm.from_numpy(gapped[..., 4 * i : 4 * i + 4]) for i in range(3)]
    assert _tiled(pieces, 2) is None  # a column left over


def test_split_backward_takes_gradients_of_a_flat_buffer_uncopied():
    # a Linear's (B*S, 3C) gradient buffer viewed as (B, S, 3C): the parts' array has 2 dims
    from taimatsu.ops.shape.split import _tiled

    flat = np.empty((6, 12), np.float32)
    flat[...] = np.arange(72).reshape(6, 12)
    parts = [tm.from_numpy(flat.reshape(2, 3, 12)[..., 4 * i : 4 * i + 4]) for i in range(3)]
    whole = _tiled(parts, 2)
    assert whole._data.base is flat and whole.shape == (2, 3, 12)
    np.testing.assert_array_equal(whole.numpy(), flat.reshape(2, 3, 12))
    assert _tiled(parts[::-1], 2) is None
    longer = np.zeros((7, 12), np.float32)  # the parts tile only part of their array
    pieces = [tm.from_numpy(longer[:6].reshape(2, 3, 12)[..., 4 * i : 4 * i + 4]) for i in range(3)]
    assert _tiled(pieces, 2) is None
