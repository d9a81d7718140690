"""Losses (functional and modules) and nn.utils (gradient clipping, parameter vectors) against PyTorch."""

import warnings

import pytest

import taimatsu as tm
import taimatsu.nn.functional as TF
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
import torch.nn.functional as OF
from nn_oracle import T, check_vjp, close, copy_weights, same_error

pytestmark = pytest.mark.oracle


def _inputs(kind, shape):
    if kind == "prob":
        return torch.rand(shape) * 0.9 + 0.05
    if kind == "sign":
        return torch.randint(0, 2, shape).float() * 2 - 1
    if kind == "pos":
        return torch.rand(shape) + 0.1
    return torch.randn(shape)


CASES = [
    ("binary_cross_entropy", ["prob", "prob"], {}), ("binary_cross_entropy", ["prob", "prob"], {"reduction": "sum"}),
    ("binary_cross_entropy_with_logits", ["x", "prob"], {}),
    ("binary_cross_entropy_with_logits", ["x", "prob"], {"pos_weight": "pw", "reduction": "none"}),
    ("binary_cross_entropy_with_logits", ["x", "prob"], {"weight": "w"}),
    ("l1_loss", ["x", "x"], {}), ("l1_loss", ["x", "x"], {"reduction": "none"}),
    ("smooth_l1_loss", ["x", "x"], {}), ("smooth_l1_loss", ["x", "x"], {"beta": 0.5, "reduction": "sum"}),
    ("smooth_l1_loss", ["x", "x"], {"beta": 0.0}),
    ("huber_loss", ["x", "x"], {}), ("huber_loss", ["x", "x"], {"delta": 0.3, "reduction": "none"}),
    ("kl_div", ["x", "prob"], {"reduction": "batchmean"}), ("kl_div", ["x", "x"], {"reduction": "sum", "log_target": True}),
    ("kl_div", ["x", "prob"], {"reduction": "none"}),
    ("margin_ranking_loss", ["x", "x", "sign"], {"margin": 0.2}), ("hinge_embedding_loss", ["x", "sign"], {}),
    ("soft_margin_loss", ["x", "sign"], {}), ("multilabel_soft_margin_loss", ["x", "prob"], {}),
    ("poisson_nll_loss", ["x", "pos"], {}), ("poisson_nll_loss", ["pos", "pos"], {"log_input": False, "full": True}),
    ("gaussian_nll_loss", ["x", "x", "pos"], {}), ("gaussian_nll_loss", ["x", "x", "pos"], {"full": True, "reduction": "sum"}),
]  # fmt: skip


@pytest.mark.parametrize(
    "name,kinds,kwargs", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)]
)
def test_functional_losses(name, kinds, kwargs):
    torch.manual_seed(0)
    shape = (4, 5)
    os_ = [_inputs(k, shape) for k in kinds]
    os_[0].requires_grad_()
    if kinds[1] in ("x", "prob") and name != "multilabel_soft_margin_loss":
        os_[1].requires_grad_()
    ts = [T(o, o.requires_grad) for o in os_]
    okw, tkw = dict(kwargs), dict(kwargs)
    for k, v in kwargs.items():
        if v == "pw":
            okw[k] = torch.rand(5) + 0.5
            tkw[k] = T(okw[k])
        elif v == "w":
            okw[k] = torch.rand(5)
            tkw[k] = T(okw[k])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o = getattr(OF, name)(*os_, **okw)
        t = getattr(TF, name)(*ts, **tkw)
    grads = [i for i, x in enumerate(os_) if x.requires_grad]
    check_vjp(t, o, [ts[i] for i in grads], [os_[i] for i in grads], rtol=1e-5, atol=1e-6)


def test_cosine_embedding_and_triplet():
    torch.manual_seed(0)
    oa, ob, oc = (torch.randn(4, 6, requires_grad=True) for _ in range(3))
    ta, tb, tc = (T(x, True) for x in (oa, ob, oc))
    oy = torch.tensor([1.0, -1.0, 1.0, -1.0])
    check_vjp(
        TF.cosine_embedding_loss(ta, tb, T(oy), 0.1),
        OF.cosine_embedding_loss(oa, ob, oy, 0.1),
        [ta, tb],
        [oa, ob],
    )
    check_vjp(
        TF.triplet_margin_loss(ta, tb, tc),
        OF.triplet_margin_loss(oa, ob, oc),
        [ta, tb, tc],
        [oa, ob, oc],
    )
    check_vjp(TF.triplet_margin_loss(ta, tb, tc, swap=True, p=1), OF.triplet_margin_loss(oa, ob, oc, swap=True, p=1),
              [ta, tb, tc], [oa, ob, oc])  # fmt: skip


def test_nll_loss_nd_and_loss_errors():
    torch.manual_seed(0)
    ox = torch.randn(2, 4, 3, 5, 2, requires_grad=True)
    tx = T(ox, True)
    oi = torch.randint(0, 4, (2, 3, 5, 2))
    for red in ("mean", "none"):
        check_vjp(
            TF.nll_loss(tx, T(oi), reduction=red), OF.nll_loss(ox, oi, reduction=red), [tx], [ox]
        )
    same_error(
        lambda: TF.binary_cross_entropy(tm.rand(3), tm.rand(4)),
        lambda: OF.binary_cross_entropy(torch.rand(3), torch.rand(4)),
    )
    same_error(lambda: TF.binary_cross_entropy(tm.tensor([2.0]), tm.tensor([1.0])),
               lambda: OF.binary_cross_entropy(torch.tensor([2.0]), torch.tensor([1.0])))  # fmt: skip
    same_error(lambda: TF.binary_cross_entropy_with_logits(tm.rand(3), tm.rand(4)),
               lambda: OF.binary_cross_entropy_with_logits(torch.rand(3), torch.rand(4)))  # fmt: skip
    same_error(lambda: TF.gaussian_nll_loss(tm.rand(3, 2), tm.rand(3, 2), tm.rand(2)),
               lambda: OF.gaussian_nll_loss(torch.rand(3, 2), torch.rand(3, 2), torch.rand(2)))  # fmt: skip
    same_error(lambda: TF.l1_loss(tm.rand(3), tm.rand(3), reduction="foo"),
               lambda: OF.l1_loss(torch.rand(3), torch.rand(3), reduction="foo"))  # fmt: skip
    with pytest.warns(UserWarning, match="batchmean"):
        TF.kl_div(tm.randn(2, 3), tm.rand(2, 3))


MODULES = [
    (lambda nn, m: nn.BCELoss(), 2), (lambda nn, m: nn.BCEWithLogitsLoss(pos_weight=m.ones(5) * 2), 2),
    (lambda nn, m: nn.L1Loss(), 2), (lambda nn, m: nn.SmoothL1Loss(beta=0.5), 2), (lambda nn, m: nn.HuberLoss(delta=2.0), 2),
    (lambda nn, m: nn.KLDivLoss(reduction="batchmean"), 2), (lambda nn, m: nn.SoftMarginLoss(), 2),
    (lambda nn, m: nn.MultiLabelSoftMarginLoss(), 2), (lambda nn, m: nn.PoissonNLLLoss(), 2),
    (lambda nn, m: nn.HingeEmbeddingLoss(margin=0.5), 2), (lambda nn, m: nn.MarginRankingLoss(0.1), 3),
    (lambda nn, m: nn.CosineEmbeddingLoss(), 3), (lambda nn, m: nn.TripletMarginLoss(), 3),
    (lambda nn, m: nn.GaussianNLLLoss(), 3),
]  # fmt: skip


@pytest.mark.parametrize("make,n", MODULES, ids=[str(i) for i in range(len(MODULES))])
def test_loss_modules(make, n):
    o, t = make(onn, torch), make(tnn, tm)
    assert repr(t) == repr(o)
    torch.manual_seed(0)
    args = [torch.rand(4, 5) * 0.9 + 0.05 for _ in range(n)]
    if isinstance(o, (onn.HingeEmbeddingLoss, onn.SoftMarginLoss)):
        args[1] = torch.randint(0, 2, (4, 5)).float() * 2 - 1
    if isinstance(o, onn.CosineEmbeddingLoss):
        args[2] = torch.tensor([1.0, -1, 1, -1])
    close(t(*[T(a) for a in args]), o(*args))


def test_clip_grad_and_vectors():
    torch.manual_seed(0)
    o = onn.Sequential(onn.Linear(4, 3), onn.ReLU(), onn.Linear(3, 2))
    t = tnn.Sequential(tnn.Linear(4, 3), tnn.ReLU(), tnn.Linear(3, 2))
    copy_weights(t, o)
    ox = torch.randn(5, 4)
    for norm_type, max_norm in [(2.0, 0.5), (1, 0.1), (float("inf"), 0.05), (2.0, 100.0)]:
        o.zero_grad()
        t.zero_grad()
        (o(ox) ** 2).sum().backward()
        (t(T(ox)) ** 2).sum().backward()
        close(
            tnn.utils.clip_grad_norm_(t.parameters(), max_norm, norm_type),
            onn.utils.clip_grad_norm_(o.parameters(), max_norm, norm_type),
        )
        for tp, op in zip(t.parameters(), o.parameters()):
            close(tp.grad, op.grad)
    tnn.utils.clip_grad_value_(t.parameters(), 0.01)
    onn.utils.clip_grad_value_(o.parameters(), 0.01)
    for tp, op in zip(t.parameters(), o.parameters()):
        close(tp.grad, op.grad)
    p = next(t.parameters())
    p.grad.fill_(float("nan"))
    q = next(o.parameters())
    q.grad.fill_(float("nan"))
    same_error(lambda: tnn.utils.clip_grad_norm_(t.parameters(), 1.0, error_if_nonfinite=True),
               lambda: onn.utils.clip_grad_norm_(o.parameters(), 1.0, error_if_nonfinite=True))  # fmt: skip
    close(tnn.utils.clip_grad_norm_([], 1.0), onn.utils.clip_grad_norm_([], 1.0))
    vt, vo = (
        tnn.utils.parameters_to_vector(t.parameters()),
        onn.utils.parameters_to_vector(o.parameters()),
    )
    close(vt, vo)
    assert vt.grad_fn.name() == vo.grad_fn.name()
    tnn.utils.vector_to_parameters(vt.detach() * 2, t.parameters())
    onn.utils.vector_to_parameters(vo.detach() * 2, o.parameters())
    for (tk, tv), (ok, ov) in zip(t.state_dict().items(), o.state_dict().items()):
        close(tv, ov)
    same_error(
        lambda: tnn.utils.vector_to_parameters([1], t.parameters()),
        lambda: onn.utils.vector_to_parameters([1], o.parameters()),
    )


@pytest.mark.parametrize(
    "name,kwargs",
    [("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}), ("huber_loss", {}),
     ("huber_loss", {"delta": 0.5})],
)  # fmt: skip
def test_second_derivative_at_the_bend(name, kwargs):
    # at |input - target| == beta (delta) the first derivative is the same from either side;
    # PyTorch's double backward takes the linear side there (0), not the quadratic one
    grads = []
    for lib in (torch, tm):
        x = lib.tensor([0.5, 1.0, 1.5, -1.0, 0.0, -0.5], requires_grad=True)
        loss = getattr(lib.nn.functional, name)(x, lib.zeros(6), reduction="sum", **kwargs)
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        grads.append((g.tolist(), lib.autograd.grad(g.sum(), x)[0].tolist()))
    assert grads[1] == grads[0]
