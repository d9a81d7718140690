"""nn.utils extras against PyTorch: the hook-based spectral_norm, conv/linear-BatchNorm fusion,
skip_init, the global module hooks, nn.utils.prune and state_dict's positional-argument warning
(helpers in tests/nn/module_hooks_helpers.py)."""

import warnings
from collections import OrderedDict

import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from module_hooks_helpers import _catch, _same
from nn_oracle import T, close, copy_weights

pytestmark = pytest.mark.oracle


# ---- nn.utils: spectral_norm (hook API) ----------------------------------------------------------
def test_spectral_norm_hook_api_matches_pytorch():
    def run(nn, lib):
        U = nn.utils
        lib.manual_seed(0)
        m = nn.Linear(4, 3)
        U.spectral_norm(m)
        out = [sorted(n for n, _ in m.named_parameters()), list(m._buffers), type(m.weight).__name__,
               m.weight_u.clone(), m.weight_v.clone()]  # fmt: skip
        x = lib.randn(2, 4)
        y = m(x)
        out += [
            y,
            y.grad_fn.name(),
            m.weight.grad_fn.name(),
            m.weight_u.clone(),
            m.weight_v.clone(),
        ]
        y.sum().backward()
        out += [m.weight_orig.grad, m.bias.grad, m(x)]
        m.eval()
        out += [m(x), m.weight_u.clone()]
        sd = m.state_dict()
        out += [list(sd), list(sd._metadata.items())]
        out.append(_catch(lambda: U.spectral_norm(m)))
        out.append(_catch(lambda: U.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)))
        m2 = nn.Linear(4, 3)
        U.spectral_norm(m2)
        out += [repr(m2.load_state_dict(sd)), m2(x)]
        # a checkpoint from before the version: the normalized weight instead of weight_v
        old = {k: v for k, v in sd.items() if k != "weight_v"}
        old["weight"] = m.weight.detach()
        m3 = nn.Linear(4, 3)
        U.spectral_norm(m3)
        m3.eval()
        out += [repr(m3.load_state_dict(old)), m3(x)]
        m4 = nn.Linear(4, 3)
        U.spectral_norm(m4)
        out.append(
            _catch(
                lambda: m4.load_state_dict({"weight_orig": sd["weight_orig"], "bias": sd["bias"]})
            )
        )
        U.remove_spectral_norm(m)
        out += [
            sorted(n for n, _ in m.named_parameters()),
            list(m._buffers),
            m.weight,
            type(m.weight).__name__,
        ]
        out += [len(m._forward_pre_hooks), len(m._state_dict_hooks)]
        out.append(_catch(lambda: U.remove_spectral_norm(m)))
        out.append(
            _catch(lambda: m.load_state_dict(m.state_dict()))
        )  # PyTorch's leftover load hook
        return out

    _same(run)


@pytest.mark.parametrize("conv", ["ConvTranspose2d", "Conv2d", "Conv1d"])
def test_spectral_norm_conv_dims_and_gradients(conv):
    o_mod = getattr(onn, conv)(2, 3, 2)
    t_mod = getattr(tnn, conv)(2, 3, 2)
    copy_weights(t_mod, o_mod)
    kw = {"n_power_iterations": 3} if conv != "Conv2d" else {"dim": 1, "eps": 1e-3}
    torch.manual_seed(5)
    onn.utils.spectral_norm(o_mod, **kw)
    tm.manual_seed(5)
    tnn.utils.spectral_norm(t_mod, **kw)
    close(t_mod.weight_u, o_mod.weight_u)
    close(t_mod.weight_v, o_mod.weight_v)
    ox = torch.randn(2, 2, *([4, 4] if "2d" in conv else [5]))
    for _ in range(2):
        oy, ty = o_mod(ox), t_mod(T(ox))
        close(ty, oy, 1e-4, 1e-5)
        g = torch.randn(oy.shape)
        oy.backward(g)
        ty.backward(T(g))
    close(t_mod.weight_orig.grad, o_mod.weight_orig.grad, 1e-4, 1e-5)
    close(t_mod.weight_u, o_mod.weight_u, 1e-4, 1e-5)


# ---- nn.utils: BatchNorm fusion, skip_init ----------------------------------------------------------
FUSE = [("Conv2d", "BatchNorm2d", {}, {}, False), ("Conv1d", "BatchNorm1d", {"bias": False}, {"affine": False}, False),
        ("ConvTranspose2d", "BatchNorm2d", {}, {}, True), ("Conv3d", "BatchNorm3d", {}, {}, False)]  # fmt: skip


@pytest.mark.parametrize("case", FUSE, ids=[c[0] for c in FUSE])
def test_fuse_conv_bn_eval(case):
    conv_name, bn_name, conv_kw, bn_kw, transpose = case

    def run(nn, lib):
        lib.manual_seed(0)
        conv, bn = getattr(nn, conv_name)(2, 3, 2, **conv_kw), getattr(nn, bn_name)(3, **bn_kw)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        if bn.weight is not None:
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-1, 1)
        out = [_catch(lambda: nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose))]
        conv.eval()
        bn.eval()
        f = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = lib.randn(2, 2, *[4] * (int(conv_name[-2]) if conv_name[-2].isdigit() else 1))
        y = f(x)
        out += [
            f is conv,
            type(f.weight).__name__,
            f.bias.requires_grad,
            f.training,
            y,
            (y - bn(conv(x))).abs().max() < 1e-5,
        ]
        y.sum().backward()
        out += [f.weight.grad, conv.weight.grad]
        return out

    _same(run)


def test_fuse_linear_bn_and_weights_functions():
    def run(nn, lib):
        U = nn.utils
        lib.manual_seed(0)
        lin, bn = nn.Linear(3, 2), nn.BatchNorm1d(2)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        out = [_catch(lambda: U.fuse_linear_bn_eval(lin, bn))]
        lin.eval()
        bn.eval()
        f = U.fuse_linear_bn_eval(lin, bn)
        x = lib.randn(4, 3)
        out += [f(x), (f(x) - bn(lin(x))).abs().max() < 1e-5, f.bias.requires_grad]
        out += list(
            U.fuse_linear_bn_weights(
                lin.weight, None, bn.running_mean, bn.running_var, 1e-5, bn.weight, bn.bias
            )
        )
        w, b = U.fuse_conv_bn_weights(lib.ones(3, 2, 1, 1, dtype=lib.float64), None, lib.zeros(3), lib.ones(3) * 4, 1e-5,
                                      None, None)  # fmt: skip
        out += [w, b, type(w).__name__, w.requires_grad, b.requires_grad]
        lin1, bn1 = nn.Linear(3, 2).eval(), nn.BatchNorm1d(1).eval()
        bn1.running_mean.fill_(0.5)
        out.append(U.fuse_linear_bn_eval(lin1, bn1)(x))
        out.append(
            _catch(lambda: U.fuse_linear_bn_eval(nn.Linear(1, 2).eval(), nn.BatchNorm1d(3).eval()))
        )
        no_stats = nn.BatchNorm1d(2, track_running_stats=False).eval()
        out.append(_catch(lambda: U.fuse_linear_bn_eval(nn.Linear(1, 2).eval(), no_stats)))
        return out

    _same(run)


def test_skip_init_shapes_errors_and_random_stream():
    def run(nn, lib):
        U = nn.utils
        lib.manual_seed(3)
        m = U.skip_init(nn.Linear, 3, 2, bias=False)
        out = [
            repr(m),
            m.weight.shape,
            m.weight.dtype,
            m.weight.requires_grad,
            type(m.weight).__name__,
        ]
        out.append(lib.randn(3))  # construction drew no random numbers
        m = U.skip_init(nn.Linear, 3, 2, device="cpu", dtype=lib.float64)
        out += [m.weight.dtype, m.bias.shape, str(m.bias.device)]
        m = U.skip_init(nn.BatchNorm1d, 3)
        out.append([(k, v.shape, v.dtype) for k, v in m.state_dict().items()])
        out += [_catch(lambda: U.skip_init(int)), _catch(lambda: U.skip_init(nn.ReLU))]
        return out

    _same(run)


# ---- global module hooks (torch.nn.modules.module.register_module_*) ---------------------------------
@pytest.fixture
def fresh_global_hooks():
    """The global full/legacy choice is process-wide in both libraries: reset it around each test."""
    import torch.nn.modules.module as om

    import taimatsu.nn.modules._global_hooks as tg

    tg._global_full["is_full"] = om._global_is_full_backward_hook = None
    yield
    tg._global_full["is_full"] = om._global_is_full_backward_hook = None


def _module_hooks_module(nn):
    import importlib

    return importlib.import_module(nn.__name__ + ".modules.module")


def test_global_forward_and_full_backward_hooks(fresh_global_hooks):
    def run(nn, lib):
        M = _module_hooks_module(nn)
        log = []
        lib.manual_seed(0)
        m = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
        hs = [
            M.register_module_forward_pre_hook(
                lambda mod, a: log.append(("gpre", type(mod).__name__, a))
            ),
            M.register_module_forward_hook(
                lambda mod, a, out: log.append(("gfwd", type(mod).__name__, out))
            ),
            M.register_module_forward_hook(
                lambda mod, a, kw, out: log.append(("gfwdkw", type(mod).__name__, kw)),
                with_kwargs=True,
            ),
            M.register_module_full_backward_pre_hook(
                lambda mod, go: log.append(("gbpre", type(mod).__name__, go))
            ),
            M.register_module_full_backward_hook(
                lambda mod, gi, go: log.append(("gbwd", type(mod).__name__, gi, go))
            ),
        ]
        m[1].register_forward_hook(lambda mod, a, out: log.append(("local", type(mod).__name__)))
        m[1].register_full_backward_hook(
            lambda mod, gi, go: log.append(("localb", type(mod).__name__))
        )
        x = lib.tensor([[1.0, -2.0]], requires_grad=True)
        m(x).sum().backward()
        log.append(_catch(lambda: M.register_module_backward_hook(lambda *a: None)))
        for h in hs:
            h.remove()
        m(x).sum().backward()
        return log, x.grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(run)


def test_global_legacy_backward_hook_and_always_call(fresh_global_hooks):
    def run(nn, lib):
        M = _module_hooks_module(nn)
        log = []
        lib.manual_seed(0)
        m = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
        h = M.register_module_backward_hook(
            lambda mod, gi, go: log.append(("legacy", type(mod).__name__, gi, go))
        )
        x = lib.tensor([[1.0, -2.0]], requires_grad=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            y = m(x)
        log.append([str(r.message) for r in rec])
        y.sum().backward()
        log.append(_catch(lambda: M.register_module_full_backward_hook(lambda *a: None)))
        h.remove()

        class Boom(nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        h = M.register_module_forward_hook(
            lambda mod, a, out: log.append(("always", out)), always_call=True
        )
        log.append(_catch(lambda: Boom()(x)))
        h.remove()
        return log

    _same(run)


def test_global_registration_hooks():
    def run(nn, lib):
        M = _module_hooks_module(nn)
        log = []

        def note(kind):
            def hook(mod, name, value):
                log.append((kind, type(mod).__name__, name, type(value).__name__))
                if kind == "buffer" and name == "swap":
                    return lib.ones(2)

            return hook

        hs = [
            M.register_module_buffer_registration_hook(note("buffer")),
            M.register_module_module_registration_hook(note("module")),
            M.register_module_parameter_registration_hook(note("param")),
        ]
        m = nn.Sequential(nn.Linear(2, 2))
        m.extra = nn.ReLU()
        m.extra = None
        m.add_module("more", nn.Tanh())
        m.register_buffer("swap", lib.zeros(2), persistent=False)
        m.swap = lib.full((2,), 3.0)  # re-assigning a buffer registers it again
        m.register_buffer("nothing", None)
        m.p = nn.Parameter(lib.zeros(1))
        m.register_parameter("q", None)
        out = [log, m.swap, list(m.state_dict())]
        out.append(_catch(lambda: setattr(m, "swap", 3)))
        for h in hs:
            h.remove()
        log.clear()
        nn.Linear(1, 1)
        out.append(list(log))
        return out

    _same(run)


def test_buffer_reassignment_with_an_old_style_register_buffer_override():
    def run(nn, lib):
        calls = []

        class Old(nn.Module):
            def __init__(self):
                super().__init__()
                nn.Module.register_buffer(self, "a", lib.zeros(1))
                nn.Module.register_buffer(self, "b", lib.zeros(1), persistent=False)

            def register_buffer(self, name, tensor):  # no ``persistent``, as older code had
                calls.append(name)
                nn.Module.register_buffer(self, name, tensor)

        m = Old()
        m.a = lib.ones(1)
        return calls, list(m.state_dict()), m.a, _catch(lambda: setattr(m, "b", lib.ones(1)))

    _same(run)


# ---- nn.utils.prune --------------------------------------------------------------------------------
def _prune(nn):
    import importlib

    return importlib.import_module(nn.__name__ + ".utils.prune")


def _names(m):
    return sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers())


def test_prune_methods_chain_and_remove():
    def run(nn, lib):
        prune = _prune(nn)
        lib.manual_seed(0)
        m = nn.Conv2d(2, 4, 3)
        prune.random_unstructured(m, "weight", amount=0.3)
        out = [_names(m), m.weight_mask, type(m.weight).__name__, m.weight.grad_fn.name()]
        prune.l1_unstructured(m, "bias", amount=2)
        prune.ln_structured(m, "weight", amount=0.5, n=2, dim=0)
        hook = next(h for h in m._forward_pre_hooks.values() if h._tensor_name == "weight")
        out += [m.bias_mask, m.weight_mask, type(hook).__name__, [type(x).__name__ for x in hook]]
        prune.random_structured(m, "weight", amount=1, dim=1)
        out.append(m.weight_mask)
        x = lib.randn(1, 2, 5, 5)
        y = m(x)
        y.backward(lib.randn(y.shape))
        out += [
            y,
            m.weight_orig.grad,
            m.bias_orig.grad,
            prune.is_pruned(m),
            prune.is_pruned(nn.Linear(1, 1)),
        ]
        prune.remove(m, "weight")
        out += [_names(m), type(m.weight).__name__, m.weight]
        return out

    _same(run)


def test_prune_global_custom_identity_and_prune_method():
    def run(nn, lib):
        prune = _prune(nn)
        lib.manual_seed(1)
        a, b = nn.Linear(4, 3), nn.Linear(3, 2)
        pairs = [(a, "weight"), (b, "weight"), (a, "bias")]
        prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=0.4)
        out = [a.weight_mask, b.weight_mask, a.bias_mask]
        prune.global_unstructured(
            pairs[:2],
            pruning_method=prune.RandomUnstructured,
            amount=3,
            importance_scores={(a, "weight"): lib.ones(3, 4)},
        )
        out += [a.weight_mask, b.weight_mask]
        c = nn.Linear(3, 3)
        prune.custom_from_mask(c, "weight", lib.eye(3))
        prune.identity(c, "bias")
        out += [c.weight, c.bias_mask, _names(c)]
        out.append(prune.L1Unstructured(amount=2).prune(lib.tensor([3.0, -1.0, 2.0, 0.5])))
        out.append(
            prune.RandomStructured(amount=1, dim=0).compute_mask(lib.ones(3, 2), lib.ones(3, 2))
        )
        l1 = nn.Linear(3, 2)
        prune.l1_unstructured(
            l1, "weight", amount=2, importance_scores=lib.arange(6.0).reshape(2, 3)
        )
        out.append(l1.weight_mask)
        return out

    _same(run)


def test_prune_errors():
    def run(nn, lib):
        prune = _prune(nn)
        lin = nn.Linear(2, 2)
        m = nn.Linear(2, 2)
        cases = [
            lambda: prune.remove(m, "weight"),
            lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5),
            lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=-1),
            lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount="a"),
            lambda: prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=1, dim=0),
            lambda: prune.ln_structured(nn.Linear(2, 2), "weight", amount=1, n=1, dim=2),
            lambda: prune.l1_unstructured(
                nn.Linear(2, 2), "weight", amount=1, importance_scores=lib.ones(3)
            ),
            lambda: prune.L1Unstructured(amount=1).prune(
                lib.ones(2), importance_scores=lib.ones(3)
            ),
            lambda: prune.global_unstructured(
                [(lin, "weight")], pruning_method=prune.LnStructured, amount=1, n=1
            ),
            lambda: prune.PruningContainer(prune.Identity(), 5),
            lambda: prune.global_unstructured(5, prune.L1Unstructured, amount=1),
            lambda: prune.global_unstructured(
                [(lin, "weight")], prune.L1Unstructured, importance_scores=[1], amount=1
            ),
            lambda: prune.l1_unstructured(lin, "weight", amount=5),
        ]
        out = []
        for case in cases:
            e = _catch(case)
            out.append(
                (
                    type(e).__name__,
                    str(e).replace("torch.nn.utils", "NN").replace("taimatsu.nn.utils", "NN"),
                )
            )
        out.append(_names(lin))  # a failed pruning leaves the module as it was
        return out

    _same(run)


def test_state_dict_positional_arguments_warn():
    def run(nn, lib):
        m = nn.Linear(1, 1)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            keys = [list(m.state_dict(OrderedDict(), "p.", True)), list(m.state_dict(None, "q."))]
            keys.append(list(m.state_dict(prefix="r.")))
        return keys, [(r.category.__name__, str(r.message)) for r in rec]

    _same(run)


def test_custom_from_mask_of_the_wrong_shape(torch_oracle):
    def run(T):
        prune = T.nn.utils.prune
        try:
            prune.custom_from_mask(T.nn.Linear(3, 2), "weight", T.ones(3, 2))
        except AssertionError as e:
            return str(e)

    assert run(tm) == run(torch_oracle)


def test_clip_grad_value_without_gradients(torch_oracle):
    def run(T):
        try:
            T.nn.utils.clip_grad_value_(T.nn.Linear(2, 2).parameters(), 1.0)
        except RuntimeError as e:
            return str(e)

    assert run(tm) == run(torch_oracle)
