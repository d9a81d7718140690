"""3-d convolution and pooling outputs (and the input gradients they give) are contiguous, as
PyTorch's are: the usual ``y.view(N, -1)`` flatten before a linear layer works on them, and
``randn_like``/dropout on them draw in PyTorch's order."""

import pytest

import taimatsu as tm

LAYERS = {
    "conv3d": lambda nn: nn.Conv3d(3, 8, 3),
    "conv3d_no_bias": lambda nn: nn.Conv3d(3, 8, 3, bias=False),
    "conv3d_groups": lambda nn: nn.Conv3d(3, 6, 3, groups=3, padding=1),
    "max_pool3d": lambda nn: nn.MaxPool3d(2),
    "avg_pool3d": lambda nn: nn.AvgPool3d(2),
    "lp_pool3d": lambda nn: nn.LPPool3d(2, 2),
    "conv_transpose3d": lambda nn: nn.ConvTranspose3d(3, 2, 2),
}


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("grad", [True, False])
def test_strides(torch_oracle, layer, grad):
    got = []
    for lib in (tm, torch_oracle):
        lib.manual_seed(0)
        x = lib.randn(2, 3, 4, 4, 4, requires_grad=grad)
        y = LAYERS[layer](lib.nn)(x)
        row = [y.stride(), y.view(2, -1).shape, lib.randn_like(y).sum().item()]
        if grad:
            row.append(lib.autograd.grad(y.sum(), x)[0].stride())
        got.append(row)
    assert got[0][:2] == got[1][:2]
    assert got[0][2] == pytest.approx(got[1][2], rel=1e-5)
    assert got[0][3:] == got[1][3:]


def test_max_pool3d_indices_and_unbatched(torch_oracle):
    for lib in (tm, torch_oracle):
        x = lib.randn(2, 3, 4, 4, 4)
        y, i = lib.nn.functional.max_pool3d(x, 2, return_indices=True)
        assert y.is_contiguous() and i.is_contiguous()
        assert lib.nn.Conv3d(3, 4, 2)(lib.randn(3, 4, 4, 4)).stride() == (27, 9, 3, 1)


def test_conv3d_is_one_convolution_node(torch_oracle):
    """grad_fn ConvolutionBackward0 over (input, weight, bias), first and second derivatives
    as PyTorch's (the weight's gradient depends on the input under create_graph)."""
    import numpy as np

    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s) for s in ((2, 3, 5, 4, 4), (4, 3, 2, 3, 3), (4,))]
    results, gdata = [], None
    for lib in (tm, torch_oracle):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in data)
        y = lib.nn.functional.conv3d(x, w, b, padding=1, stride=(2, 1, 1))
        assert y.grad_fn.name() == "ConvolutionBackward0"
        assert [type(f[0]).__name__ for f in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
        if gdata is None:
            gdata = rng.standard_normal(tuple(y.shape))
        g = lib.tensor(gdata)
        gx, gw, gb = lib.autograd.grad(y, (x, w, b), g, create_graph=True)
        (h,) = lib.autograd.grad(gx.sum() + gw.pow(2).sum(), x)
        results.append([t.detach().numpy() for t in (y, gx, gw, gb, h)])
        y2 = lib.nn.functional.conv3d(x, w)
        y2.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y2.sum().backward()
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10)


def test_same_padding_with_an_even_kernel_warns_once(torch_oracle):
    import warnings

    import taimatsu._flags as flags

    for lib in (tm, torch_oracle):
        flags._warned_once.discard("conv_same_asymmetric")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.Conv1d(3, 4, 4, padding="same")(lib.randn(1, 3, 10))
            lib.nn.Conv2d(3, 4, 3, padding="same")(lib.randn(1, 3, 6, 6))
        texts = [str(w.message) for w in caught if "padding='same'" in str(w.message)]
        # PyTorch warns once per process: this test may not be the first to make it warn
        assert len(texts) <= 1
        if lib is tm:
            assert texts and texts[0].startswith("Using padding='same' with even kernel lengths")
