"""Normalisation, embedding, padding, convolution, pooling and resampling layers against PyTorch."""

import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
import torch.nn.functional as OF
from nn_oracle import T, check_vjp, close, pair, same_error

pytestmark = pytest.mark.oracle


def _module_pair(make, seed=0):
    torch.manual_seed(seed)
    o = make(onn)
    tm.manual_seed(seed)
    t = make(tnn)
    assert repr(t) == repr(o)
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items()):
        assert tk == ok
        close(tv, ov, 0, 0)  # default init reproduces PyTorch's numbers
    return t, o


LAYERS = [
    (lambda nn: nn.BatchNorm1d(3), (4, 3)), (lambda nn: nn.BatchNorm1d(3, affine=False), (4, 3, 5)),
    (lambda nn: nn.BatchNorm2d(3), (2, 3, 4, 4)), (lambda nn: nn.BatchNorm2d(3, momentum=None), (2, 3, 4, 4)),
    (lambda nn: nn.BatchNorm2d(3, track_running_stats=False), (2, 3, 2, 2)),
    (lambda nn: nn.LayerNorm(5), (2, 3, 5)), (lambda nn: nn.LayerNorm((3, 5), elementwise_affine=False), (2, 3, 5)),
    (lambda nn: nn.LayerNorm(5, bias=False), (4, 5)), (lambda nn: nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    (lambda nn: nn.GroupNorm(1, 4, affine=False), (2, 4, 5)), (lambda nn: nn.InstanceNorm1d(3), (2, 3, 6)),
    (lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True), (2, 3, 4, 4)),
    (lambda nn: nn.RMSNorm(5), (2, 3, 5)), (lambda nn: nn.RMSNorm([3, 5], eps=1e-3), (2, 3, 5)),
    (lambda nn: nn.Conv1d(2, 3, 3), (2, 2, 7)), (lambda nn: nn.Conv1d(4, 4, 3, 2, 1, groups=2, bias=False), (2, 4, 9)),
    (lambda nn: nn.Conv1d(2, 3, 4, padding="same", dilation=2), (2, 2, 9)), (lambda nn: nn.Conv1d(2, 3, 3), (2, 7)),
    (lambda nn: nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect"), (2, 2, 7)),
    (lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular"), (2, 2, 5, 5)),
    (lambda nn: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="replicate"), (2, 2, 5, 5)),
    (lambda nn: nn.Conv2d(2, 3, (3, 4), padding="same", padding_mode="reflect"), (2, 2, 5, 6)),
    (lambda nn: nn.ConvTranspose2d(2, 3, 3), (2, 2, 4, 4)),
    (lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), (2, 4, 3, 5)),
    (lambda nn: nn.ConvTranspose2d(2, 3, (2, 3), stride=(2, 1), padding=(0, 2), dilation=2, bias=False), (1, 2, 4, 4)),
    (lambda nn: nn.ConvTranspose1d(2, 3, 3, stride=2), (2, 2, 5)),
    (lambda nn: nn.AvgPool2d(2), (2, 3, 5, 5)), (lambda nn: nn.AvgPool2d(3, 2, 1), (2, 3, 6, 7)),
    (lambda nn: nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False), (2, 3, 6, 7)),
    (lambda nn: nn.AvgPool2d(2, divisor_override=3), (3, 4, 4)), (lambda nn: nn.AvgPool1d(3, 2, 1), (2, 3, 8)),
    (lambda nn: nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)), (lambda nn: nn.AdaptiveAvgPool2d(1), (2, 3, 4, 4)),
    (lambda nn: nn.AdaptiveAvgPool2d((None, 3)), (3, 7, 5)), (lambda nn: nn.AdaptiveAvgPool1d(3), (2, 3, 8)),
    (lambda nn: nn.MaxPool1d(3, 2, 1), (2, 3, 8)),
    (lambda nn: nn.ZeroPad2d((1, 2, 0, 3)), (2, 3, 4, 4)), (lambda nn: nn.ConstantPad1d(2, 3.5), (2, 3, 4)),
    (lambda nn: nn.ReflectionPad2d((1, 2, 0, 1)), (2, 3, 4, 4)), (lambda nn: nn.ReflectionPad1d(2), (3, 4)),
    (lambda nn: nn.ReplicationPad2d(2), (2, 3, 4, 4)), (lambda nn: nn.ReplicationPad1d((3, 1)), (2, 3, 4)),
    (lambda nn: nn.CircularPad2d((1, 2, 2, 0)), (2, 3, 4, 4)), (lambda nn: nn.CircularPad1d(2), (2, 3, 4)),
    (lambda nn: nn.Upsample(scale_factor=2), (2, 3, 3, 4)), (lambda nn: nn.Upsample(size=(5, 7)), (2, 3, 3, 4)),
    (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), (2, 3, 3, 4)),
    (lambda nn: nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True), (2, 3, 3, 4)),
    (lambda nn: nn.Upsample(scale_factor=1.7, mode="bilinear"), (1, 2, 4, 5)),
    (lambda nn: nn.Upsample(scale_factor=3, mode="linear"), (2, 3, 4)),
    (lambda nn: nn.PixelShuffle(2), (2, 8, 3, 3)), (lambda nn: nn.PixelUnshuffle(2), (2, 2, 4, 6)),
]  # fmt: skip


@pytest.mark.parametrize("make,shape", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_layer_matches_pytorch(make, shape):
    t, o = _module_pair(make)
    for mode in ("train", "eval"):
        getattr(t, mode)()
        getattr(o, mode)()
        torch.manual_seed(1)
        ox = torch.randn(shape, requires_grad=True)
        tx = T(ox, True)
        params_t = [p for p in t.parameters()]
        params_o = [p for p in o.parameters()]
        check_vjp(t(tx), o(ox), [tx, *params_t], [ox, *params_o], rtol=1e-4, atol=1e-5)
        for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items()):
            close(tv, ov, 1e-5, 1e-6)  # running statistics, num_batches_tracked


def test_batchnorm_running_stats_over_steps():
    t, o = _module_pair(lambda nn: nn.BatchNorm2d(3, momentum=None))
    for i in range(3):
        ox = torch.randn(4, 3, 2, 2) * (i + 1) + i
        close(t(T(ox)), o(ox), 1e-5, 1e-5)
    close(t.running_var, o.running_var)
    assert int(t.num_batches_tracked) == 3
    same_error(lambda: t(tm.randn(1, 3, 1, 1)), lambda: o(torch.randn(1, 3, 1, 1)))
    same_error(lambda: t(tm.randn(3, 2)), lambda: o(torch.randn(3, 2)))
    # functional batch norm in training updates the tensors it is given
    rm, rv = torch.zeros(3), torch.ones(3)
    trm, trv = T(rm), T(rv)
    ox = torch.randn(5, 3)
    close(
        TF.batch_norm(T(ox), trm, trv, training=True, momentum=0.3),
        OF.batch_norm(ox, rm, rv, training=True, momentum=0.3),
    )
    close(trm, rm)
    close(trv, rv)


def test_norm_double_backward():
    x = tm.randn(3, 4, dtype=tm.float64, requires_grad=True)
    w = tm.randn(4, dtype=tm.float64, requires_grad=True)
    b = tm.randn(4, dtype=tm.float64, requires_grad=True)
    assert tm.autograd.gradgradcheck(lambda x, w, b: TF.layer_norm(x, (4,), w, b), (x, w, b))
    assert tm.autograd.gradgradcheck(
        lambda x, w, b: TF.batch_norm(x, None, None, w, b, True), (x, w, b)
    )
    x4 = tm.randn(2, 4, 3, dtype=tm.float64, requires_grad=True)
    assert tm.autograd.gradgradcheck(lambda x, w, b: TF.group_norm(x, 2, w, b), (x4, w, b))


def test_norm_errors():
    same_error(
        lambda: TF.layer_norm(tm.randn(2, 3), (4,)), lambda: OF.layer_norm(torch.randn(2, 3), (4,))
    )
    same_error(
        lambda: TF.group_norm(tm.randn(2, 3, 2), 2), lambda: OF.group_norm(torch.randn(2, 3, 2), 2)
    )
    same_error(lambda: tnn.GroupNorm(2, 3), lambda: onn.GroupNorm(2, 3))
    same_error(
        lambda: tnn.BatchNorm2d(3)(tm.randn(2, 3)), lambda: onn.BatchNorm2d(3)(torch.randn(2, 3))
    )


def test_embedding():
    for kwargs in [
        {},
        {"padding_idx": 1},
        {"padding_idx": -2},
        {"scale_grad_by_freq": True},
        {"max_norm": 1.0},
    ]:
        t, o = _module_pair(lambda nn: nn.Embedding(6, 3, **kwargs))  # noqa: B023
        oi = torch.tensor([[1, 2, 4], [4, 3, 1]])
        check_vjp(t(T(oi)), o(oi), [t.weight], [o.weight])
        close(t.weight, o.weight)  # max_norm renormalises rows in place
    same_error(lambda: t(tm.tensor([7])), lambda: o(torch.tensor([7])))
    same_error(lambda: t(tm.tensor([1.0])), lambda: o(torch.tensor([1.0])))
    ow = torch.randn(4, 2)
    te, oe = tnn.Embedding.from_pretrained(T(ow)), onn.Embedding.from_pretrained(ow)
    assert repr(te) == repr(oe) and not te.weight.requires_grad


def test_pad_functional():
    torch.manual_seed(0)
    (tx,), (ox,) = pair((2, 3, 4, 5))
    for pad, mode, value in [((1, 2), "constant", 2.5), ((-1, 2, 0, -2), "constant", None), ((1, 1, 2, 0), "reflect", None),
                             ((2, 1, 1, 0), "replicate", None), ((1, 3, 2, 2), "circular", None), ((1, 1, 1, 1, 1, 1), "constant", 0)]:  # fmt: skip
        check_vjp(TF.pad(tx, pad, mode, value), OF.pad(ox, pad, mode, value), [tx], [ox])
    for pad, mode in [((1, 2, 3), "constant"), ((1,) * 10, "constant"), ((3, 3), "reflect"),
                      ((1, 1, 4, 4), "reflect"), ((1, 1), "foo"), ((6, 1), "circular")]:  # fmt: skip
        same_error(lambda: TF.pad(tx, pad, mode), lambda: OF.pad(ox, pad, mode))  # noqa: B023
    same_error(
        lambda: TF.pad(tx, (1, 1), "reflect", 1.0), lambda: OF.pad(ox, (1, 1), "reflect", 1.0)
    )
    same_error(
        lambda: TF.pad(tx[0, 0, 0], (1, 1), "reflect"),
        lambda: OF.pad(ox[0, 0, 0], (1, 1), "reflect"),
    )
    x = tm.randn(2, 3, 4, dtype=tm.float64, requires_grad=True)
    assert tm.autograd.gradgradcheck(lambda x: TF.pad(x, (2, 1), "reflect"), (x,))


def test_conv_transpose_and_conv1d_functional():
    torch.manual_seed(0)
    (tx, tw, tb), (ox, ow, ob) = pair((2, 4, 5, 4), (4, 3, 3, 2), (6,))
    check_vjp(TF.conv_transpose2d(tx, tw, tb, 2, 1, 1, 2), OF.conv_transpose2d(ox, ow, ob, 2, 1, 1, 2),
              [tx, tw, tb], [ox, ow, ob], 1e-4, 1e-5)  # fmt: skip
    (tx, tw, tb), (ox, ow, ob) = pair((3, 4, 9), (6, 2, 3), (6,))
    check_vjp(
        TF.conv1d(tx, tw, tb, 2, 1, 1, 2),
        OF.conv1d(ox, ow, ob, 2, 1, 1, 2),
        [tx, tw, tb],
        [ox, ow, ob],
        1e-4,
        1e-5,
    )
    same_error(lambda: TF.conv1d(tx[0, 0], tw), lambda: OF.conv1d(ox[0, 0], ow))
    x = tm.randn(1, 2, 3, 3, dtype=tm.float64, requires_grad=True)
    w = tm.randn(2, 2, 2, 2, dtype=tm.float64, requires_grad=True)
    assert tm.autograd.gradcheck(
        lambda x, w: TF.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), (x, w)
    )


def test_pool_and_interpolate_errors():
    ox = torch.randn(1, 1, 3, 3)
    tx = T(ox)
    same_error(lambda: TF.avg_pool2d(tx, 2, padding=2), lambda: OF.avg_pool2d(ox, 2, padding=2))
    same_error(lambda: TF.avg_pool1d(tx[0, 0, 0], 2), lambda: OF.avg_pool1d(ox[0, 0, 0], 2))
    same_error(
        lambda: TF.interpolate(tx, size=2, scale_factor=2),
        lambda: OF.interpolate(ox, size=2, scale_factor=2),
    )
    same_error(lambda: TF.interpolate(tx), lambda: OF.interpolate(ox))
    same_error(lambda: TF.interpolate(tx, scale_factor=2, align_corners=True),
               lambda: OF.interpolate(ox, scale_factor=2, align_corners=True))  # fmt: skip
    same_error(lambda: TF.pixel_shuffle(tx, 2), lambda: OF.pixel_shuffle(ox, 2))


def test_distance_and_misc_functional():
    torch.manual_seed(0)
    (ta, tb), (oa, ob) = pair((4, 5), (4, 5))
    check_vjp(TF.cosine_similarity(ta, tb), OF.cosine_similarity(oa, ob), [ta, tb], [oa, ob])
    check_vjp(
        TF.cosine_similarity(ta, tb[:1], dim=-1),
        OF.cosine_similarity(oa, ob[:1], dim=-1),
        [ta, tb],
        [oa, ob],
    )
    check_vjp(TF.pairwise_distance(ta, tb), OF.pairwise_distance(oa, ob), [ta, tb], [oa, ob])
    check_vjp(
        TF.pairwise_distance(ta, tb, 1.0, keepdim=True),
        OF.pairwise_distance(oa, ob, 1.0, keepdim=True),
        [ta, tb],
        [oa, ob],
    )
    check_vjp(TF.normalize(ta), OF.normalize(oa), [ta], [oa])
    check_vjp(TF.normalize(ta, 1.0, 0), OF.normalize(oa, 1.0, 0), [ta], [oa])
    close(tnn.CosineSimilarity(0)(ta, tb), onn.CosineSimilarity(0)(oa, ob))
    close(tnn.PairwiseDistance(3)(ta, tb), onn.PairwiseDistance(3)(oa, ob))
    oi = torch.tensor([[0, 2], [3, 1]])
    close(TF.one_hot(T(oi)), OF.one_hot(oi))
    close(TF.one_hot(T(oi), 6), OF.one_hot(oi, 6))
    for bad in [
        lambda m: m.one_hot(T(oi) if m is TF else oi, 3),
        lambda m: m.one_hot((T(oi) if m is TF else oi) - 1),
    ]:
        same_error(lambda: bad(TF), lambda: bad(OF))  # noqa: B023
    same_error(lambda: TF.one_hot(tm.tensor([1.0])), lambda: OF.one_hot(torch.tensor([1.0])))


def test_channel_dropout_matches_seeded_pytorch():
    for p in (0.0, 0.3, 1.0):
        torch.manual_seed(3)
        o = OF.dropout2d(torch.ones(4, 5, 2, 2), p)
        tm.manual_seed(3)
        t = TF.dropout2d(tm.ones(4, 5, 2, 2), p)
        close(t, o)
        torch.manual_seed(3)
        o = onn.Dropout1d(p)(torch.ones(4, 5, 3))
        tm.manual_seed(3)
        t = tnn.Dropout1d(p)(tm.ones(4, 5, 3))
        close(t, o)
    assert repr(tnn.Dropout2d()) == repr(onn.Dropout2d())
    d = tnn.Dropout2d().eval()
    x = tm.randn(2, 3, 2, 2)
    assert d(x) is x


def test_scaled_dot_product_attention():
    torch.manual_seed(0)
    oq, ok, ov = (torch.randn(2, 3, 4, 8, requires_grad=True) for _ in range(3))
    tq, tk, tv = (T(x, True) for x in (oq, ok, ov))
    om = torch.rand(4, 4) > 0.3
    om[:, 0] = True
    fm = torch.randn(4, 4)
    for kw_o, kw_t in [({}, {}), ({"is_causal": True}, {"is_causal": True}), ({"scale": 0.3}, {"scale": 0.3}),
                       ({"attn_mask": om}, {"attn_mask": T(om)}), ({"attn_mask": fm}, {"attn_mask": T(fm)})]:  # fmt: skip
        o = OF.scaled_dot_product_attention(oq, ok, ov, **kw_o)
        t = TF.scaled_dot_product_attention(tq, tk, tv, **kw_t)
        check_vjp(t, o, [tq, tk, tv], [oq, ok, ov], 1e-4, 1e-5, name=False)
