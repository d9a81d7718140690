"""Transformer decoder / nn.Transformer, module hooks, parametrizations, EmbeddingBag, more pooling,
layers and losses against PyTorch."""

import warnings

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from nn_oracle import T, check_vjp, close, grad_name, same_error

pytestmark = pytest.mark.oracle


def _pair(make, seed=0, tol=0.0):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.manual_seed(seed)
        o = make(onn)
        tm.manual_seed(seed)
        t = make(tnn)
    msgs = [str(x.message) for x in w]
    assert msgs[: len(msgs) // 2] == msgs[len(msgs) // 2 :]
    assert repr(t) == repr(o)
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items(), strict=True):
        assert tk == ok
        close(tv, ov, tol, tol)
    return t, o


# ---- transformer decoder ----------------------------------------------------------------------
DEC = [{}, {"batch_first": True, "activation": "gelu"}, {"norm_first": True}, {"bias": False}]


@pytest.mark.parametrize("kw", DEC, ids=[str(i) for i in range(len(DEC))])
def test_decoder_layer_matches_pytorch(kw):
    t, o = _pair(lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw))
    B, L, S = 2, 4, 5
    bf = kw.get("batch_first", False)
    torch.manual_seed(1)
    ox = torch.randn((B, L, 8) if bf else (L, B, 8), requires_grad=True)
    om = torch.randn((B, S, 8) if bf else (S, B, 8), requires_grad=True)
    tx, tmem = T(ox, True), T(om, True)
    kpm = torch.zeros(B, S, dtype=torch.bool)
    kpm[1, 3:] = True
    mask = onn.Transformer.generate_square_subsequent_mask(L)
    okw = {"tgt_mask": mask, "memory_key_padding_mask": kpm, "tgt_is_causal": True}
    tkw = {k: T(v) if isinstance(v, torch.Tensor) else v for k, v in okw.items()}
    check_vjp(t(tx, tmem, **tkw), o(ox, om, **okw), [tx, tmem, *t.parameters()],
              [ox, om, *o.parameters()], 1e-4, 1e-5, name=False)  # fmt: skip
    close(t(tx, tmem), o(ox, om), 1e-4, 1e-5)


def test_transformer_matches_pytorch():
    def make(nn):
        return nn.Transformer(8, 2, 2, 2, 16, dropout=0.1, batch_first=True)

    t, o = _pair(make)
    t.eval()
    o.eval()
    torch.manual_seed(1)
    osrc = torch.randn(2, 5, 8, requires_grad=True)
    otgt = torch.randn(2, 4, 8, requires_grad=True)
    tsrc, ttgt = T(osrc, True), T(otgt, True)
    m = onn.Transformer.generate_square_subsequent_mask(4)
    check_vjp(t(tsrc, ttgt, tgt_mask=T(m)), o(osrc, otgt, tgt_mask=m), [tsrc, ttgt, *t.parameters()],
              [osrc, otgt, *o.parameters()], 1e-4, 1e-5, name=False)  # fmt: skip
    close(t(tsrc[0], ttgt[0]), o(osrc[0], otgt[0]), 1e-4, 1e-5)
    # unbatched + default (time-major) construction, and the default-init numbers
    t2, o2 = _pair(lambda nn: nn.Transformer(4, 2, 1, 1, 8))
    same_error(
        lambda: t2(T(osrc[:, :, :4]), T(otgt[:1, :, :4])),
        lambda: o2(osrc[:, :, :4], otgt[:1, :, :4]),
    )
    same_error(lambda: t2(T(osrc), T(otgt[:, :, :4])), lambda: o2(osrc, otgt[:, :, :4]))
    for sz, dt in [(3, None), (1, torch.float64)]:
        a = tm.nn.Transformer.generate_square_subsequent_mask(
            sz, dtype=getattr(tm, str(dt)[6:]) if dt else None
        )
        close(a, onn.Transformer.generate_square_subsequent_mask(sz, dtype=dt), 0, 0)


# ---- module hooks -----------------------------------------------------------------------------
def _hook_run(nn, lib, x_rg):
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    log = []

    def bhook(mod, gin, gout):
        log.append(("full", type(mod).__name__, [None if g is None else g.clone() for g in gin],
                    [None if g is None else g.clone() for g in gout]))  # fmt: skip
        if isinstance(mod, nn.Tanh):
            return (gin[0] * 2,)

    def prehook(mod, gout):
        log.append(("pre", type(mod).__name__, [g.clone() for g in gout]))
        return (gout[0] * 3,) if isinstance(mod, nn.Linear) else None

    for sub in m:
        sub.register_full_backward_hook(bhook)
        sub.register_full_backward_pre_hook(prehook)
    m.register_full_backward_hook(bhook)
    lib.manual_seed(1)
    x = lib.randn(5, 3, requires_grad=x_rg)
    y = m(x)
    names = [y.grad_fn.name(), m[0](x).grad_fn.name()]
    y.backward(lib.ones_like(y) * 0.5)
    grads = [p.grad for p in m.parameters()] + ([x.grad] if x_rg else [])
    return log, names, grads


@pytest.mark.parametrize("x_rg", [True, False])
def test_full_backward_hooks_match_pytorch(x_rg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tlog, tnames, tgrads = _hook_run(tnn, tm, x_rg)
        olog, onames, ograds = _hook_run(onn, torch, x_rg)
    assert tnames == onames
    assert len(tlog) == len(olog)
    for te, oe in zip(tlog, olog):
        assert te[:2] == oe[:2]
        for tl, ol in zip(te[2:], oe[2:]):
            assert len(tl) == len(ol)
            for a, b in zip(tl, ol):
                assert (a is None) == (b is None)
                if a is not None:
                    close(a, b)
    for a, b in zip(tgrads, ograds):
        close(a, b)


def test_forward_hooks_with_kwargs_and_always_call():
    def run(nn, lib):
        class Boom(nn.Module):
            def forward(self, x, scale=1.0):
                if scale < 0:
                    raise ValueError("negative scale")
                return x * scale

        m = Boom()
        seen = []
        m.register_forward_hook(lambda mod, a, kw, out: seen.append(("kw", dict(kw), out.tolist())) or out + 1,
                                with_kwargs=True)  # fmt: skip
        m.register_forward_hook(lambda mod, a, out: seen.append(("always", out if out is None else out.tolist())),
                                always_call=True)  # fmt: skip
        m.register_forward_pre_hook(
            lambda mod, a, kw: (a, {"scale": kw.get("scale", 1.0) * 2}), with_kwargs=True
        )
        r = m(lib.tensor([1.0, 2.0]), scale=1.5).tolist()
        try:
            m(lib.tensor([1.0]), scale=-1.0)
        except ValueError as e:
            seen.append(str(e))
        return r, seen

    assert run(tnn, tm) == run(onn, torch)

    def bad(nn, lib):
        m = nn.Linear(2, 2)
        m.register_forward_pre_hook(lambda mod, a, k: 1, with_kwargs=True)
        return m(lib.ones(2))

    same_error(lambda: bad(tnn, tm), lambda: bad(onn, torch))


# ---- parametrizations --------------------------------------------------------------------------
PARAM = {
    "wn": lambda nn: nn.utils.parametrizations.weight_norm(nn.Linear(3, 4)),
    "wn-conv-dim1": lambda nn: nn.utils.parametrizations.weight_norm(nn.Conv2d(2, 3, 3), dim=1),
    "wn-none": lambda nn: nn.utils.parametrizations.weight_norm(nn.Linear(3, 4), dim=None),
    "sn": lambda nn: nn.utils.parametrizations.spectral_norm(nn.Linear(3, 4)),
    "sn-convT": lambda nn: nn.utils.parametrizations.spectral_norm(nn.ConvTranspose2d(2, 3, 3), n_power_iterations=2),
    "legacy-wn": lambda nn: nn.utils.weight_norm(nn.Linear(3, 4)),
    "orth": lambda nn: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3)),
    "orth-tall": lambda nn: nn.utils.parametrizations.orthogonal(nn.Linear(3, 5)),
    "orth-wide-cayley": lambda nn: nn.utils.parametrizations.orthogonal(nn.Linear(3, 2), orthogonal_map="cayley"),
    "orth-householder-notriv": lambda nn: nn.utils.parametrizations.orthogonal(
        nn.Linear(3, 4), "weight", "householder", use_trivialization=False),
    "orth-conv-exp": lambda nn: nn.utils.parametrizations.orthogonal(nn.Conv2d(2, 2, 3), orthogonal_map="matrix_exp"),
}  # fmt: skip


def test_orthogonal_assignment_and_errors_match_pytorch():
    def run(lib):
        P = lib.nn.utils.parametrizations
        lib.manual_seed(0)
        m = P.orthogonal(lib.nn.Linear(3, 3))
        with lib.no_grad():
            m.weight = lib.randn(3, 3)  # not orthogonal: its Q factor becomes the base
        out = [m.weight.tolist(), sorted(m.state_dict())]
        cases = [
            lambda: P.orthogonal(lib.nn.Linear(3, 3), name="bias"),
            lambda: P.orthogonal(lib.nn.Linear(3, 3), name="foo"),
            lambda: P.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="svd"),
            lambda: P.orthogonal(
                lib.nn.Linear(3, 3, dtype=lib.cfloat), orthogonal_map="householder"
            ),
            lambda: setattr(
                P.orthogonal(lib.nn.Linear(3, 3), use_trivialization=False), "weight", lib.eye(3)
            ),
            lambda: setattr(m, "weight", lib.eye(4)),
        ]
        for case in cases:
            try:
                with lib.no_grad():
                    case()
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e).replace("torch.", "")))
        return out

    t, o = run(tm), run(torch)
    np.testing.assert_allclose(t[0], o[0], rtol=1e-5, atol=1e-6)
    assert t[1:] == o[1:]


@pytest.mark.parametrize("kind", list(PARAM))
def test_parametrizations_match_pytorch(kind):
    t, o = _pair(PARAM[kind], tol=1e-6)
    conv = "conv" in kind.lower()
    torch.manual_seed(3)
    ox = torch.randn((2, 2, 5, 5) if conv else (5, 3), requires_grad=True)
    tx = T(ox, True)
    for _ in range(2):  # training mode runs the power iteration on each call
        check_vjp(
            t(tx), o(ox), [tx, *t.parameters()], [ox, *o.parameters()], 1e-4, 1e-5, name=False
        )
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items(), strict=True):
        assert tk == ok
        close(tv, ov, 1e-5, 1e-6)
    t.eval()
    o.eval()
    close(t(tx), o(ox), 1e-4, 1e-5)
    close(t.weight, o.weight, 1e-5, 1e-6)


def test_parametrize_register_assign_remove():
    def run(nn, lib):
        class Symmetric(nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

            def right_inverse(self, A):
                return A.triu()

        lib.manual_seed(0)
        m = nn.Linear(3, 3)
        P = nn.utils.parametrize
        P.register_parametrization(m, "weight", Symmetric())
        P.register_parametrization(m, "weight", Symmetric())
        out = [repr(m), list(m.state_dict()), m.weight.tolist(), P.is_parametrized(m), P.is_parametrized(m, "bias"),
               P.type_before_parametrizations(m).__name__]  # fmt: skip
        with P.cached():
            out.append(m.weight is m.weight)
        m.weight = lib.arange(9.0).view(3, 3)
        out.append(m.parametrizations.weight.original.tolist())
        P.remove_parametrizations(m, "weight")
        out += [
            repr(m),
            type(m).__name__,
            list(m.state_dict()),
            m.weight.tolist(),
            type(m.weight).__name__,
        ]
        return out

    assert run(tnn, tm) == run(onn, torch)
    same_error(
        lambda: tnn.utils.parametrize.register_parametrization(
            tnn.Linear(2, 2), "w", tnn.Identity()
        ),
        lambda: onn.utils.parametrize.register_parametrization(
            onn.Linear(2, 2), "w", onn.Identity()
        ),
    )
    same_error(
        lambda: tnn.utils.parametrize.remove_parametrizations(tnn.Linear(2, 2), "weight"),
        lambda: onn.utils.parametrize.remove_parametrizations(onn.Linear(2, 2), "weight"),
    )


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_weight_norm_remove():
    def run(nn, lib):
        lib.manual_seed(0)
        m = nn.utils.weight_norm(nn.Linear(3, 2))
        with lib.no_grad():
            m.weight_g.mul_(2)
        y = m(lib.ones(1, 3)).tolist()
        nn.utils.remove_weight_norm(m)
        return y, list(m.state_dict()), m.weight.tolist()

    a, b = run(tnn, tm), run(onn, torch)
    assert a[1] == b[1]
    np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
    np.testing.assert_allclose(a[2], b[2], rtol=1e-6)


# ---- EmbeddingBag ------------------------------------------------------------------------------
BAGS = [
    ({"mode": "sum"}, "1d", True), ({"mode": "mean"}, "1d", False), ({"mode": "max"}, "1d", False),
    ({"mode": "mean", "padding_idx": 2}, "2d", False), ({"mode": "sum", "include_last_offset": True}, "1d", True),
    ({"mode": "max", "padding_idx": -1}, "2d", False), ({"mode": "mean", "max_norm": 1.0}, "1d", False),
]  # fmt: skip


@pytest.mark.parametrize("kw,layout,psw", BAGS, ids=[str(i) for i in range(len(BAGS))])
def test_embedding_bag_matches_pytorch(kw, layout, psw):
    t, o = _pair(lambda nn: nn.EmbeddingBag(10, 3, **kw))
    if layout == "2d":
        oi = torch.tensor([[1, 2, 4], [2, 2, 9], [0, 3, 3]])
        ooff = None
    else:
        oi = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 7])
        ooff = torch.tensor([0, 2, 2, 5] + ([9] if kw.get("include_last_offset") else []))
    targs = [T(oi)] + ([T(ooff)] if ooff is not None else [])
    oargs = [oi] + ([ooff] if ooff is not None else [])
    okw, tkw = {}, {}
    inputs_o, inputs_t = list(o.parameters()), list(t.parameters())
    if psw:
        ow = torch.rand(oi.shape, requires_grad=True)
        okw["per_sample_weights"], tkw["per_sample_weights"] = ow, T(ow, True)
        inputs_o.append(ow)
        inputs_t.append(tkw["per_sample_weights"])
    check_vjp(t(*targs, **tkw), o(*oargs, **okw), inputs_t, inputs_o)  # grad_fn names too
    close(t.weight, o.weight)


def test_embedding_bag_errors_match_pytorch():
    F, G = tnn.functional, onn.functional
    w = torch.randn(10, 3)
    cases = [
        lambda f, c: f.embedding_bag(c(torch.tensor([1, 2])), c(w), None),
        lambda f, c: f.embedding_bag(c(torch.tensor([[1, 2]])), c(w), c(torch.tensor([0]))),
        lambda f, c: f.embedding_bag(c(torch.tensor([1, 2])), c(w), c(torch.tensor([0])), mode="prod"),
        lambda f, c: f.embedding_bag(c(torch.tensor([1, 2])), c(w), c(torch.tensor([0])), mode="mean",
                                     per_sample_weights=c(torch.ones(2))),
        lambda f, c: f.embedding_bag(c(torch.tensor([1, 2])), c(w), c(torch.tensor([0])),
                                     per_sample_weights=c(torch.ones(3))),
    ]  # fmt: skip
    for case in cases:
        same_error(lambda: case(F, T), lambda: case(G, lambda x: x))  # noqa: B023
    close(
        tnn.EmbeddingBag.from_pretrained(T(w), mode="sum")(T(torch.tensor([[1, 2]]))),
        onn.EmbeddingBag.from_pretrained(w, mode="sum")(torch.tensor([[1, 2]])),
    )


def test_embedding_bag_index_checks_match_pytorch():
    """Float indices, offsets[0] != 0, offsets past the input, out-of-range indices (whose message
    depends on the kernel: max mode and padding_idx name the index, sum/mean its position)."""
    F, G = tnn.functional, onn.functional
    w = torch.randn(10, 3)
    i32 = torch.int32
    cases = [
        ([1.0, 2.0], [0], {}),
        ([1, 2], [0.0], {}),
        ([1, 2], [1], {}),
        (torch.tensor([1, 2], dtype=i32), torch.tensor([1], dtype=i32), {}),
        ([1, 2], torch.tensor([-1, 1]), {}),
        ([1, 2], [0, 5], {}),
        ([1, 2], [0, 1, 3], {"include_last_offset": True}),
        ([1, 11, 12], [0], {}),
        ([1, -3], [0], {"mode": "sum"}),
        ([4, 11], [0], {"mode": "max"}),
        ([1, 11], [0], {"mode": "sum", "padding_idx": 2}),
    ]

    def run(f, c, idx, off, kw):
        idx = idx if isinstance(idx, torch.Tensor) else torch.tensor(idx)
        off = off if off is None or isinstance(off, torch.Tensor) else torch.tensor(off)
        return f.embedding_bag(c(idx), c(w), None if off is None else c(off), **kw)

    for idx, off, kw in cases:
        same_error(lambda: run(F, T, idx, off, kw), lambda: run(G, lambda x: x, idx, off, kw))  # noqa: B023


@pytest.mark.parametrize(
    "mode,sparse,psw", [("sum", False, True), ("mean", True, False), ("max", False, False)]
)
def test_embedding_bag_double_backward_raises_as_pytorch(mode, sparse, psw):
    """PyTorch cannot differentiate embedding_bag's gradients: same grad_fns, same errors."""
    w = torch.randn(10, 3, dtype=torch.float64)
    idx, off = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4])
    pw = torch.randn(8, dtype=torch.float64)

    def grads(lib, c):
        ws = [c(w, True)] + ([c(pw, True)] if psw else [])
        kw = {"per_sample_weights": ws[1]} if psw else {}
        out = lib.nn.functional.embedding_bag(c(idx), ws[0], c(off), mode=mode, sparse=sparse, **kw)
        gs = lib.autograd.grad(out.pow(2).sum(), ws, create_graph=True)
        return [(g.to_dense() if g.is_sparse else g) for g in gs], ws, gs

    ours, theirs = grads(tm, T), grads(torch, lambda x, rg=False: x.detach().requires_grad_(rg))
    assert [grad_name(g) for g in ours[2]] == [grad_name(g) for g in theirs[2]]
    for i in range(len(ours[0])):
        close(ours[0][i], theirs[0][i])
        same_error(
            lambda: tm.autograd.grad(ours[0][i].sum(), ours[1]),  # noqa: B023
            lambda: torch.autograd.grad(theirs[0][i].sum(), theirs[1]),  # noqa: B023
        )


# ---- pooling -----------------------------------------------------------------------------------
POOLS = [
    (lambda nn: nn.AdaptiveMaxPool1d(3, return_indices=True), (2, 3, 7)),
    (lambda nn: nn.AdaptiveMaxPool1d(4), (3, 10)),
    (lambda nn: nn.AdaptiveMaxPool2d((3, 2), return_indices=True), (2, 3, 7, 5)),
    (lambda nn: nn.AdaptiveMaxPool2d((None, 4)), (3, 5, 9)),
    (lambda nn: nn.AdaptiveMaxPool2d(1, return_indices=True), (1, 2, 4, 4)),
    (lambda nn: nn.LPPool1d(2, 3, stride=2), (2, 3, 8)),
    (lambda nn: nn.LPPool2d(1.5, (2, 3), ceil_mode=True), (2, 3, 7, 8)),
    (lambda nn: nn.LPPool2d(3, 2), (1, 2, 4, 6)),
]  # fmt: skip


@pytest.mark.parametrize("make,shape", POOLS, ids=[str(i) for i in range(len(POOLS))])
def test_more_pooling_matches_pytorch(make, shape):
    t, o = _pair(make)
    torch.manual_seed(0)
    ox = (torch.rand(shape) + 0.1 if "LP" in repr(o) else torch.randn(shape)).requires_grad_()
    tx = T(ox, True)
    to, oo = t(tx), o(ox)
    if isinstance(oo, tuple):
        close(to[1], oo[1], 0, 0)
        to, oo = to[0], oo[0]
    check_vjp(to, oo, [tx], [ox], 1e-5, 1e-6, name=False)


@pytest.mark.parametrize(
    "shape,kw,out_size",
    [
        ((2, 3, 6, 8), {}, None),
        ((3, 5, 7), {"stride": 1}, None),
        ((2, 2, 5, 5), {"stride": 2, "padding": 1}, None),
        ((1, 2, 6, 6), {}, (1, 2, 7, 7)),
    ],
)
def test_max_unpool_matches_pytorch(shape, kw, out_size):
    t, o = _pair(lambda nn: nn.MaxUnpool2d(3 if kw.get("padding") else 2, **kw))
    torch.manual_seed(0)
    ox = torch.randn(shape)
    pooled, idx = onn.functional.max_pool2d(
        ox, t.kernel_size, t.stride, t.padding, return_indices=True
    )
    pooled.requires_grad_()
    tp = T(pooled, True)
    check_vjp(t(tp, T(idx), output_size=out_size), o(pooled, idx, output_size=out_size), [tp], [pooled],
              name=False)  # fmt: skip
    o1, i1 = onn.functional.max_pool1d(ox.flatten(-2)[..., :9], 3, return_indices=True)
    close(tnn.MaxUnpool1d(3)(T(o1), T(i1)), onn.MaxUnpool1d(3)(o1, i1), 0, 0)
    assert repr(tnn.MaxUnpool1d(3)) == repr(onn.MaxUnpool1d(3))
    same_error(
        lambda: t(tp, T(idx), output_size=(1, 1)), lambda: o(pooled, idx, output_size=(1, 1))
    )


# ---- more layers -------------------------------------------------------------------------------
LAYERS = [
    (lambda nn: nn.LocalResponseNorm(3), (2, 5, 4)),
    (lambda nn: nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), (2, 6, 3, 4)),
    (lambda nn: nn.ChannelShuffle(3), (2, 6, 2, 3)),
    (lambda nn: nn.Unfold((2, 3), dilation=1, padding=1, stride=2), (2, 3, 5, 6)),
    (lambda nn: nn.Fold((4, 5), 2), (2, 12, 12)),
    (lambda nn: nn.AlphaDropout(0.3), (4, 5)),
    (lambda nn: nn.FeatureAlphaDropout(0.4), (3, 4, 2, 2)),
    (lambda nn: nn.AlphaDropout(1.0), (3,)),
]  # fmt: skip


@pytest.mark.parametrize("make,shape", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_more_layers_match_pytorch(make, shape):
    t, o = _pair(make)
    torch.manual_seed(0)
    ox = torch.randn(shape, requires_grad=True)
    tx = T(ox, True)
    torch.manual_seed(7)
    oo = o(ox)
    tm.manual_seed(7)
    check_vjp(t(tx), oo, [tx], [ox], 1e-5, 1e-6, name=False)
    t.eval()
    o.eval()
    close(t(tx), o(ox))


def test_more_layer_errors_match_pytorch():
    same_error(
        lambda: tnn.ChannelShuffle(4)(tm.ones(1, 6, 2)),
        lambda: onn.ChannelShuffle(4)(torch.ones(1, 6, 2)),
    )
    same_error(
        lambda: tnn.LocalResponseNorm(2)(tm.ones(1, 6)),
        lambda: onn.LocalResponseNorm(2)(torch.ones(1, 6)),
    )
    same_error(lambda: tnn.functional.alpha_dropout(tm.ones(2), 1.5),
               lambda: onn.functional.alpha_dropout(torch.ones(2), 1.5))  # fmt: skip


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_matches_pytorch(hard):
    torch.manual_seed(0)
    ox = torch.randn(4, 5, requires_grad=True)
    tx = T(ox, True)
    torch.manual_seed(3)
    oo = onn.functional.gumbel_softmax(ox, tau=0.5, hard=hard, dim=0)
    tm.manual_seed(3)
    check_vjp(
        tnn.functional.gumbel_softmax(tx, tau=0.5, hard=hard, dim=0), oo, [tx], [ox], 1e-5, 1e-6
    )


# ---- more losses -------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"p": 2, "margin": 0.5}, {"weight": "w", "reduction": "sum"},
                                {"reduction": "none"}])  # fmt: skip
def test_multi_margin_loss_matches_pytorch(kw):
    torch.manual_seed(0)
    okw = dict(kw)
    if kw.get("weight"):
        okw["weight"] = torch.rand(5)
    tkw = {k: T(v) if isinstance(v, torch.Tensor) else v for k, v in okw.items()}
    t, o = _pair(lambda nn: nn.MultiMarginLoss(**(tkw if nn is tnn else okw)))
    ox = torch.randn(4, 5, requires_grad=True)
    y = torch.tensor([0, 4, 2, 2])
    tx = T(ox, True)
    check_vjp(t(tx, T(y)), o(ox, y), [tx], [ox], name=False)
    close(t(tx[0], T(y[0])), o(ox[0], y[0]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_matches_pytorch(reduction):
    torch.manual_seed(0)
    ox = torch.randn(3, 5, requires_grad=True)
    y = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 0, 0]])
    tx = T(ox, True)
    t, o = (
        tnn.MultiLabelMarginLoss(reduction=reduction),
        onn.MultiLabelMarginLoss(reduction=reduction),
    )
    check_vjp(t(tx, T(y)), o(ox, y), [tx], [ox], name=False)
    close(t(tx[0], T(y[0])), o(ox[0], y[0]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_rows_that_stop_early(reduction):
    """Rows whose label list ends at a -1 (labels after it ignored), with margins of exactly 0
    (PyTorch passes no gradient through those) and repeated labels; float32 and float64."""
    x = [[1.0, 0.0, 0.5, -1.0], [0.25, 1.25, 0.5, 0.25], [2.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]]
    y = torch.tensor([[0, -1, 1, 2], [0, 2, -1, 2], [1, 1, -1, 0], [-1, 0, 1, 2]])
    for dtype in (torch.float32, torch.float64):
        ox = torch.tensor(x, dtype=dtype, requires_grad=True)
        tx = T(ox, True)
        t, o = (
            tnn.MultiLabelMarginLoss(reduction=reduction),
            onn.MultiLabelMarginLoss(reduction=reduction),
        )
        check_vjp(t(tx, T(y)), o(ox, y), [tx], [ox], name=False)
        check_vjp(t(tx[0], T(y[0])), o(ox[0], y[0]), [tx], [ox], name=False)


@pytest.mark.parametrize(
    "kw", [{}, {"swap": True, "margin": 2.0, "reduction": "none"}, {"dist": True}]
)
def test_triplet_with_distance_matches_pytorch(kw):
    kw = dict(kw)
    if kw.pop("dist", False):
        t, o = _pair(
            lambda nn: nn.TripletMarginWithDistanceLoss(
                distance_function=nn.PairwiseDistance(p=1.0)
            )
        )
    else:
        t, o = _pair(lambda nn: nn.TripletMarginWithDistanceLoss(**kw))
    (ta, tp, tn), (oa, op, on) = _three()
    check_vjp(t(ta, tp, tn), o(oa, op, on), [ta, tp, tn], [oa, op, on], name=False)
    same_error(
        lambda: tnn.TripletMarginWithDistanceLoss(margin=0),
        lambda: onn.TripletMarginWithDistanceLoss(margin=0),
    )
    same_error(lambda: t(ta, tp, tn[0]), lambda: o(oa, op, on[0]))


def _three():
    torch.manual_seed(2)
    o = [torch.randn(4, 6, requires_grad=True) for _ in range(3)]
    return [T(x, True) for x in o], o


CTC = [
    ("padded", "mean", False), ("concat", "sum", False), ("padded", "none", True), ("concat", "mean", True),
]  # fmt: skip


@pytest.mark.parametrize("layout,reduction,zero_inf", CTC)
def test_ctc_loss_matches_pytorch(layout, reduction, zero_inf):
    torch.manual_seed(0)
    T_, N, C = 8, 3, 5
    logits = torch.randn(T_, N, C, requires_grad=True)
    tl_logits = T(logits, True)
    in_len = torch.tensor([8, 6, 7])
    tgt_len = torch.tensor([3, 2, 0 if zero_inf else 4])
    padded = torch.tensor([[1, 2, 2, 0], [3, 4, 0, 0], [1, 1, 2, 3]])
    if zero_inf:
        tgt_len = torch.tensor([3, 2, 6])  # the last cannot fit: infinite loss, zeroed
        in_len = torch.tensor([8, 6, 5])
        padded = torch.tensor([[1, 2, 2, 0, 0, 0], [3, 4, 0, 0, 0, 0], [1, 2, 1, 2, 1, 2]])
    targets = (
        padded if layout == "padded" else torch.cat([padded[i, : tgt_len[i]] for i in range(N)])
    )
    o = onn.CTCLoss(blank=0, reduction=reduction, zero_infinity=zero_inf)
    t = tnn.CTCLoss(blank=0, reduction=reduction, zero_infinity=zero_inf)
    olp = logits.log_softmax(2)
    tlp = tl_logits.log_softmax(2)
    check_vjp(t(tlp, T(targets), T(in_len), T(tgt_len)), o(olp, targets, in_len, tgt_len), [tl_logits, tlp],
              [logits, olp], 1e-4, 1e-5, name=False)  # fmt: skip
    # unbatched, tuple lengths
    close(
        t(tlp[:, 0], T(padded[0, :3]), (8,), (3,)),
        o(olp[:, 0], padded[0, :3], (8,), (3,)),
        1e-4,
        1e-5,
    )


# ---- affine_grid / grid_sample -----------------------------------------------------------------
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 2, 3, 4)])
def test_affine_grid_matches_pytorch(align, size):
    torch.manual_seed(0)
    ot = torch.randn(2, len(size) - 2, len(size) - 1, requires_grad=True)
    tt = T(ot, True)
    check_vjp(tnn.functional.affine_grid(tt, size, align_corners=align),
              onn.functional.affine_grid(ot, size, align_corners=align), [tt], [ot], name=False)  # fmt: skip
    same_error(lambda: tnn.functional.affine_grid(tt, (2, 3, 4), align_corners=align),
               lambda: onn.functional.affine_grid(ot, (2, 3, 4), align_corners=align))  # fmt: skip


@pytest.mark.parametrize("steps", [7, 28])
def test_affine_grid_identity_bits_and_node(steps):
    # align_corners=False scales linspace by (steps - 1) then divides by steps, as PyTorch does:
    # one rounding less moved grid points off pixel centres, and grid_sample's gradient there.
    ot = torch.tensor([[[1.0, 0, 0], [0, 1, 0]]], requires_grad=True)
    tt = T(ot, True)
    size = (1, 1, steps, steps)
    og = onn.functional.affine_grid(ot, size, align_corners=False)
    tg = tnn.functional.affine_grid(tt, size, align_corners=False)
    close(tg, og, 0, 0)
    assert tg.grad_fn.name() == og.grad_fn.name() == "AffineGridGeneratorBackward0"
    # PyTorch's node saves no tensors: the grid can be backpropagated through twice
    torch.manual_seed(1)
    w = torch.randn(og.shape)
    for _ in range(2):
        (og_theta,) = torch.autograd.grad((og * w).sum(), ot)
        (tg_theta,) = tm.autograd.grad((tg * T(w)).sum(), tt)
        close(tg_theta, og_theta, 1e-5, 1e-6)
    with tm.no_grad():
        assert tnn.functional.affine_grid(tt, size, align_corners=False).grad_fn is None


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_matches_pytorch(mode, padding_mode, align):
    torch.manual_seed(0)
    ox = torch.randn(2, 3, 4, 5, requires_grad=True)
    og = (torch.rand(2, 3, 6, 2) * 2.6 - 1.3).requires_grad_()  # some points fall outside [-1, 1]
    tx, tg = T(ox, True), T(og, True)
    k = 2 if mode == "bilinear" else 1  # nearest: no gradient for the grid
    check_vjp(tnn.functional.grid_sample(tx, tg, mode, padding_mode, align),
              onn.functional.grid_sample(ox, og, mode, padding_mode, align), [tx, tg][:k],
              [ox, og][:k], 1e-4, 1e-5, name=False)  # fmt: skip


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_gradient_on_the_borders(padding_mode, align, mode):
    """PyTorch's clipping counts the borders as outside: a point exactly on one gets a zero
    gradient along that axis (a clamp would pass it through)."""
    torch.manual_seed(0)
    ox = torch.randn(1, 2, 3, 4, requires_grad=True)
    edge = [-1.0, 1.0, -1.0 + 1 / 3, -1.0 - 1 / 3] if not align else [-1.0, 1.0, -1.0, 1.0]
    pts = torch.tensor([[x, y] for x in edge for y in (-1.0, 0.3, 1.0)]).view(1, 3, 4, 2)
    og = pts.clone().requires_grad_()
    tx, tg = T(ox, True), T(og, True)
    check_vjp(tnn.functional.grid_sample(tx, tg, mode, padding_mode, align),
              onn.functional.grid_sample(ox, og, mode, padding_mode, align), [tx, tg], [ox, og],
              1e-4, 1e-5, name=False)  # fmt: skip


def test_grid_sample_warning_and_errors():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        onn.functional.grid_sample(torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 1, 2))
        tnn.functional.grid_sample(tm.ones(1, 1, 2, 2), tm.zeros(1, 1, 1, 2))
    assert str(w[0].message) == str(w[1].message)
    same_error(
        lambda: tnn.functional.grid_sample(tm.ones(1, 1, 2, 2), tm.zeros(1, 1, 1, 2), mode="cubic"),
        lambda: onn.functional.grid_sample(
            torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 1, 2), mode="cubic"
        ),
    )


# ---- 3-D layers --------------------------------------------------------------------------------
THREE_D = [
    (lambda nn: nn.Conv3d(2, 4, 3, padding=1), (2, 2, 4, 5, 5)),
    (lambda nn: nn.Conv3d(4, 4, (2, 3, 1), stride=(2, 1, 2), dilation=(2, 1, 1), groups=2, bias=False), (1, 4, 6, 4, 5)),
    (lambda nn: nn.Conv3d(2, 3, 2, padding="same"), (2, 3, 4, 4)),
    (lambda nn: nn.MaxPool3d(2, return_indices=True), (2, 2, 4, 5, 6)),
    (lambda nn: nn.MaxPool3d((3, 2, 2), stride=(2, 1, 2), padding=1, ceil_mode=True, return_indices=True), (1, 2, 5, 4, 5)),
    (lambda nn: nn.MaxPool3d(2, dilation=2, return_indices=True), (2, 5, 5, 6)),
    (lambda nn: nn.AvgPool3d(2), (2, 2, 4, 5, 6)),
    (lambda nn: nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), (1, 2, 6, 5, 6)),
    (lambda nn: nn.AvgPool3d((2, 3, 3), stride=2, padding=1, ceil_mode=True), (1, 2, 5, 6, 6)),
    (lambda nn: nn.AvgPool3d(2, divisor_override=3), (2, 4, 4, 4)),
]  # fmt: skip


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("make,shape", THREE_D, ids=[str(i) for i in range(len(THREE_D))])
def test_3d_layers_match_pytorch(make, shape):
    t, o = _pair(make)
    torch.manual_seed(0)
    ox = torch.randn(shape, requires_grad=True)
    tx = T(ox, True)
    to, oo = t(tx), o(ox)
    if isinstance(oo, tuple):
        close(to[1], oo[1], 0, 0)
        to, oo = to[0], oo[0]
    check_vjp(to, oo, [tx, *t.parameters()], [ox, *o.parameters()], 1e-4, 1e-5, name=False)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_zeros_padding_reads_plus_zero(torch_oracle, mode, align_corners):
    """Out-of-range taps read +0 (the spatial transformer tutorial prints them): a product by the
    mask gave -0 for negative images."""
    import math

    got = []
    for lib in (tm, torch_oracle):
        x = -lib.ones(1, 1, 2, 2)
        grid = lib.tensor([[[[2.0, 2.0], [0.0, 0.0], [0.9, 0.9], [-1.2, 0.3]]]])
        out = lib.nn.functional.grid_sample(x, grid, mode=mode, align_corners=align_corners)
        got.append([(v, math.copysign(1.0, v)) for v in out.flatten().tolist()])
    assert got[0] == got[1]
