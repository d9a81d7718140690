"""nn.Module extras against PyTorch: state-dict hooks, extra state, set_submodule, to_empty, the legacy
backward hook, functional_call, and the nn.utils helpers (skip_init, spectral_norm, conv/linear-BN fusion).

Most tests run one scenario with each library (``run(nn, lib)``) and compare what it returns, made plain
by ``_plain`` (tensors become rounded lists, exceptions their type name and message)."""

import warnings
from collections import OrderedDict

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from nn_oracle import T, close, copy_weights

pytestmark = pytest.mark.oracle

BOTH = [(tnn, tm), (onn, torch)]


def _plain(x):
    if isinstance(x, (tm.Tensor, torch.Tensor)):
        return _Values(x.detach().numpy(), str(x.dtype).split(".")[-1])
    if isinstance(x, BaseException):
        return (type(x).__name__, str(x))
    if isinstance(x, (tm.dtype, torch.dtype)):
        return str(x)
    if isinstance(x, (tm.Size, torch.Size)):
        return ("Size", tuple(x))
    if isinstance(x, dict):
        return [(k, _plain(v)) for k, v in x.items()]
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [_plain(v) for v in x]
    return x


class _Values:
    """A tensor's values for ``==``: same shape and dtype, equal within float32 round-off."""

    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype

    def __eq__(self, other):
        if not isinstance(other, _Values):
            return False
        a, b = self.array, other.array
        if (a.shape, self.dtype) != (b.shape, other.dtype):
            return False
        return (
            bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
            if a.dtype.kind in "fc"
            else (a == b).all()
        )

    def __repr__(self):
        return f"tensor{self.array.shape}[{self.dtype}]{self.array.ravel()[:6].tolist()}"


def _same(run):
    """``run(nn, lib)`` gives the same plain result with both libraries."""
    assert _plain(run(tnn, tm)) == _plain(run(onn, torch))


def _catch(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return e


# ---- state-dict hooks -------------------------------------------------------------------------------
def test_state_dict_pre_hook_order_and_arguments():
    def run(nn, lib):
        lib.manual_seed(0)
        m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1)))
        calls = []
        for mod in (m, m[0], m[1][0]):
            mod.register_state_dict_pre_hook(
                lambda mod, prefix, kv: calls.append((type(mod).__name__, prefix, kv))
            )
        h = m[0].register_state_dict_pre_hook(lambda *a: calls.append("removed"))
        h.remove()
        keys = list(m.state_dict(keep_vars=True))
        m.state_dict(prefix="p.")
        return calls, keys

    _same(run)


def test_state_dict_post_hook_public_must_return_none_private_may_replace():
    def run(nn, lib):
        m = nn.Linear(2, 1)
        seen = []
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: seen.append((list(sd), prefix, dict(meta)))
        )
        out = [m.state_dict(), seen]
        m2 = nn.Linear(1, 1)
        m2.register_state_dict_post_hook(lambda *a: 5)
        out.append(_catch(m2.state_dict))
        m3 = nn.Linear(1, 1)
        m3._register_state_dict_hook(lambda *a: {"x": 1})
        out.append(m3.state_dict())
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(run)


def test_load_state_dict_pre_and_post_hooks():
    def run(nn, lib):
        lib.manual_seed(0)
        m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        sd = m.state_dict()
        calls = []

        def pre(mod, state_dict, prefix, meta, strict, missing, unexpected, errors):
            calls.append(("pre", type(mod).__name__, sorted(state_dict), prefix, meta, strict,
                          list(missing), list(unexpected), list(errors)))  # fmt: skip

        def post(mod, keys):
            calls.append(("post", type(mod).__name__, repr(keys), type(keys).__name__))

        m.register_load_state_dict_pre_hook(pre)
        m[1].register_load_state_dict_pre_hook(pre)
        m[0].register_load_state_dict_post_hook(post)
        m.register_load_state_dict_post_hook(post)
        partial = {k: v for k, v in sd.items() if k != "0.bias"}
        r1 = repr(m.load_state_dict(partial, strict=False))
        r2 = _catch(lambda: m.load_state_dict({**partial, "zzz": sd["0.bias"]}))
        r3 = repr(m.load_state_dict(sd))  # with _metadata: the hooks see the version
        return calls, r1, r2, r3

    _same(run)


def test_load_state_dict_post_hook_edits_incompatible_keys_in_place():
    def run(nn, lib):
        m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        sd = {k: v for k, v in m.state_dict().items() if k != "1.weight"}
        out = [_catch(lambda: m.load_state_dict(sd))]
        m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
        out.append(repr(m.load_state_dict(sd)))
        m[0].register_load_state_dict_post_hook(
            lambda mod, keys: keys.unexpected_keys.append("made.up")
        )
        out.append(_catch(lambda: m.load_state_dict(sd)))
        out.append(repr(m.load_state_dict(sd, strict=False)))
        m2 = nn.Linear(1, 1)
        m2.register_load_state_dict_post_hook(lambda mod, keys: 5)
        out.append(_catch(lambda: m2.load_state_dict(m2.state_dict())))
        return out

    _same(run)


def test_private_load_state_dict_pre_hook_with_and_without_module():
    def run(nn, lib):
        m = nn.Linear(1, 1)
        calls = []
        m._register_load_state_dict_pre_hook(lambda *a: calls.append(len(a)))
        m._register_load_state_dict_pre_hook(
            lambda *a: calls.append(("with", type(a[0]).__name__, len(a))), with_module=True
        )
        m.load_state_dict(m.state_dict())
        return calls

    _same(run)


# ---- extra state ----------------------------------------------------------------------------------------
def _extra(nn):
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("b", lib_zeros(nn))
            self.config = {"a": 1}

        def get_extra_state(self):
            return self.config

        def set_extra_state(self, state):
            self.config = state

    class GetOnly(nn.Module):
        def get_extra_state(self):
            return 3

    return WithExtra, GetOnly


def lib_zeros(nn):
    return (tm if nn is tnn else torch).zeros(1)


def test_extra_state_saved_loaded_and_checked():
    def run(nn, lib):
        WithExtra, GetOnly = _extra(nn)
        m = nn.Sequential(WithExtra())
        sd = m.state_dict()
        out = [list(sd), sd["0._extra_state"]]
        m2 = nn.Sequential(WithExtra())
        out.append(repr(m2.load_state_dict({**sd, "0._extra_state": {"a": 2}})))
        out.append(m2[0].config)
        no_extra = {k: v for k, v in sd.items() if k != "0._extra_state"}
        out.append(_catch(lambda: m2.load_state_dict(no_extra)))
        out.append(repr(m2.load_state_dict(no_extra, strict=False)))
        out.append(
            _catch(
                lambda: nn.Linear(1, 1).load_state_dict(
                    {**nn.Linear(1, 1).state_dict(), "_extra_state": 1}
                )
            )
        )
        g = GetOnly()
        out += [g.state_dict(), _catch(lambda: g.load_state_dict(g.state_dict()))]
        out += [
            _catch(nn.Linear(1, 1).get_extra_state),
            _catch(lambda: nn.Linear(1, 1).set_extra_state(1)),
        ]
        return out

    _same(run)


# ---- set_submodule / to_empty --------------------------------------------------------------------
def test_set_submodule_matches_pytorch():
    def run(nn, lib):
        s = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
        s.foo = 3
        out = []
        cases = [("1.0", nn.Tanh(), False), ("1.5", nn.ReLU(), True), ("1.5", nn.ReLU(), False),
                 ("0.weight", nn.ReLU(), False), ("0.weight.x", nn.ReLU(), False), ("foo", nn.ReLU(), False),
                 ("foo.x", nn.ReLU(), False), ("x.y", nn.ReLU(), False), ("0.bar", nn.ReLU(), True),
                 ("1.0", 5, False), ("1.0", None, False), ("", nn.ReLU(), False), ("2", nn.ReLU(), False)]  # fmt: skip
        for target, value, strict in cases:
            out.append(
                _catch(lambda t=target, v=value, st=strict: s.set_submodule(t, v, strict=st))
            )
            out.append(repr(s))
        return out

    _same(run)


def test_to_empty_keeps_shapes_dtypes_and_parameter_identity():
    def run(nn, lib):
        s = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
        w = s[0].weight
        out = [s.to_empty(device="cpu") is s, s[0].weight is w]
        out += [(k, tuple(v.shape), str(v.dtype), type(v).__name__, v.requires_grad, str(v.device))
                for k, v in s.state_dict(keep_vars=True).items()]  # fmt: skip
        s.to_empty(device=lib.device("cpu"), recurse=False)
        out.append(type(_catch(lambda: s.to_empty())).__name__)
        return out

    _same(run)


# ---- functional_call --------------------------------------------------------------------------------
def _call(nn, *a, **kw):
    return (tm if nn is tnn else torch).func.functional_call(*a, **kw)


def test_stateless_functional_call_values_gradients_and_warning():
    o_lin = onn.Linear(2, 1)
    t_lin = tnn.Linear(2, 1)
    copy_weights(t_lin, o_lin)
    ow = torch.randn(1, 2, requires_grad=True)
    tw = T(ow, True)
    ox = torch.randn(3, 2)
    results = []
    for nn, lin, w, x in [(tnn, t_lin, tw, T(ox)), (onn, o_lin, ow, ox)]:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = nn.utils.stateless.functional_call(lin, {"weight": w}, (x,))
        out.sum().backward()
        results.append(
            (out, w.grad, lin.weight.grad, [(r.category.__name__, str(r.message)) for r in rec])
        )
    (to, tg, tpg, tw_), (oo, og, opg, ow_) = results
    close(to, oo)
    close(tg, og)
    assert tpg is None and opg is None
    assert tw_ == ow_ and len(ow_) == 1
    assert to.grad_fn.name() == oo.grad_fn.name()


def test_functional_call_dicts_kwargs_restores_and_errors():
    def run(nn, lib):
        lib.manual_seed(0)
        m = nn.Linear(2, 1)
        x = lib.ones(1, 2)
        w = lib.full((1, 2), 2.0)
        out = [_call(nn, m, ({"weight": w}, {"bias": lib.zeros(1)}), x)]
        out.append(
            _catch(lambda: _call(nn, m, ({"weight": w, "q": w, "b": w}, {"b": w, "q": w}), x))
        )
        out.append(_catch(lambda: _call(nn, m, 5, x)))
        out.append(_catch(lambda: _call(nn, m, {"weight": w, "foo": w}, x, strict=True)))
        out.append(_catch(lambda: _call(nn, m, {"weight": w}, x, strict=True)))
        out.append(_call(nn, m, {"weight": w, "foo": w}, x))
        out.append(hasattr(m, "foo"))
        out.append(_catch(lambda: _call(nn, m, {"weight": 3}, x)))
        out.append(_call(nn, m, {}, None, {"input": x}))

        class K(nn.Module):
            def __init__(self):
                super().__init__()
                self.p = nn.Parameter(lib.ones(1))

            def forward(self, x, y=1.0):
                if y < 0:
                    raise ValueError("boom")
                return self.p * x * y

        k = K()
        p = k.p
        out.append(_call(nn, k, {"p": lib.tensor([5.0])}, (lib.tensor([2.0]),), {"y": 3.0}))
        out.append(_call(nn, k, {"p": lib.tensor([5.0])}, lib.tensor([2.0])))
        out.append(_catch(lambda: _call(nn, k, {"p": lib.zeros(1)}, lib.ones(1), {"y": -1.0})))
        out.append((k.p is p, type(k.p).__name__, list(k._parameters)))
        return out

    _same(run)


def test_functional_call_tied_weights_and_buffers():
    def run(nn, lib):
        class Tied(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(2, 2, bias=False)
                self.b = nn.Linear(2, 2, bias=False)
                self.b.weight = self.a.weight
                self.register_buffer("nb", lib.zeros(1), persistent=False)
                self.seen = []

            def forward(self, x):
                self.seen.append(
                    (hasattr(self, "foo"), type(self.a.weight).__name__, "foo" in self.__dict__)
                )
                return self.b(self.a(x)) + self.nb

        t = Tied()
        x = lib.ones(1, 2)
        W = lib.eye(2) * 3
        out = [_call(nn, t, {"a.weight": W}, x)]
        out.append(_catch(lambda: _call(nn, t, {"a.weight": W, "b.weight": W.clone()}, x)))
        out.append(_call(nn, t, {"a.weight": W, "b.weight": W}, x))
        out.append(
            _call(nn, t, {"a.weight": W, "nb": lib.ones(1), "foo": W}, x, tie_weights=False).shape
        )
        out.append(
            _catch(
                lambda: _call(nn, t, {"a.weight": W, "zz": W, "aa": W, "c.d": W}, x, strict=True)
            )
        )
        out.append(
            _catch(
                lambda: _call(nn, t, {"a.weight": W, "foo": W}, x, strict=True, tie_weights=False)
            )
        )
        out.append(_catch(lambda: _call(nn, t, {"c.weight": W}, x)))
        out.append(t.seen)
        out.append([n for n, _ in t.named_parameters()] + [hasattr(t, "foo")])
        bn = nn.BatchNorm1d(2)
        lib.manual_seed(0)
        xb = lib.arange(8.0).reshape(4, 2) ** 1.5
        rm = lib.ones(2)
        out += [_call(nn, bn, {"running_mean": rm}, xb), rm, bn.running_mean]
        return out

    _same(run)


# ---- legacy (non-full) backward hooks --------------------------------------------------------------
def _legacy_cases(nn, lib):
    class Two(nn.Module):
        def forward(self, x):
            return x * 2, x + 1

    class Multi(nn.Module):
        def forward(self, x):
            return (x * 2).sum(1)

    class Nested(nn.Module):
        def forward(self, x):
            return [x * 2]

    class Dict(nn.Module):
        def forward(self, x):
            return {"a": x * 3}

    class Kw(nn.Module):
        def forward(self, x, y=None):
            return x * y

    def leaf(*shape):
        return (lib.arange(float(np.prod(shape))).reshape(*shape) / 7 - 0.4).requires_grad_()

    return [
        ("lin", nn.Linear(3, 2), lambda: (leaf(2, 3),)),
        ("lin_nograd_in", nn.Linear(3, 2), lambda: (leaf(2, 3).detach(),)),
        ("lin3d", nn.Linear(3, 2), lambda: (leaf(2, 2, 3),)),
        ("relu", nn.ReLU(), lambda: (leaf(2, 3),)),
        ("tanh_nonleaf", nn.Tanh(), lambda: (leaf(2, 3) * 1,)),
        ("seq", nn.Sequential(nn.Linear(3, 2), nn.Tanh()), lambda: (leaf(2, 3),)),
        ("two", Two(), lambda: (leaf(2, 3),)),
        ("multi", Multi(), lambda: (leaf(2, 3),)),
        ("nested", Nested(), lambda: (leaf(2, 3),)),
        ("dict", Dict(), lambda: (leaf(2, 3),)),
        ("conv", nn.Conv2d(1, 2, 2), lambda: (leaf(2, 1, 3, 3),)),
        ("bn", nn.BatchNorm1d(3), lambda: (leaf(4, 3),)),
        ("mse", nn.MSELoss(), lambda: (leaf(2, 3), lib.ones(2, 3))),
        ("kw", Kw(), lambda: (leaf(2),)),
    ]


@pytest.mark.parametrize("case", range(14))
def test_legacy_backward_hook_arguments_warnings_and_grads(case):
    def run(nn, lib):
        lib.manual_seed(0)
        name, m, make = _legacy_cases(nn, lib)[case]
        log = []

        def hook(mod, gin, gout):
            log.append((type(mod).__name__, [g if g is None else g.clone() for g in gin], gout))

        m.register_backward_hook(hook)
        inputs = make()
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            y = m(*inputs, y=lib.ones(2)) if name == "kw" else m(*inputs)
        first = y
        while not isinstance(first, (tm.Tensor, torch.Tensor)):
            first = first["a"] if isinstance(first, dict) else first[0]
        gen = lib.Generator().manual_seed(1)
        first.backward(lib.randn(first.shape, generator=gen))
        grads = [inputs[0].grad if inputs[0].is_leaf else None] + [p.grad for p in m.parameters()]
        return (
            [(r.category.__name__, str(r.message)) for r in rec],
            first.grad_fn.name(),
            log,
            grads,
        )

    _same(run)


def test_legacy_backward_hook_replaces_grad_input_and_removal():
    def run(nn, lib):
        lib.manual_seed(0)
        m = nn.Linear(2, 2)
        m.register_backward_hook(
            lambda mod, gi, go: tuple(None if g is None else g * 10 for g in gi)
        )
        seen = []
        # clones: PyTorch's AccumulateGrad may adopt (and later add into) a hook's tensor
        h = m.register_backward_hook(lambda mod, gi, go: seen.append([g.clone() for g in gi]))
        x = lib.tensor([[1.0, -2.0]], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m(x).sum().backward()
            h.remove()
            m(x).sum().backward()
        return (
            x.grad,
            m.bias.grad,
            m.weight.grad,
            seen,
            len(m._backward_hooks),
            m._is_full_backward_hook,
        )

    _same(run)


def test_legacy_and_full_backward_hooks_do_not_mix():
    def run(nn, lib):
        def hook(*a):
            return None

        out = []
        m = nn.Linear(2, 2)
        m.register_full_backward_hook(hook)
        out.append(_catch(lambda: m.register_backward_hook(hook)))
        m = nn.Linear(2, 2)
        m.register_backward_hook(hook).remove()
        out.append(
            _catch(lambda: m.register_full_backward_hook(hook))
        )  # the choice outlives the hook
        out.append(_catch(lambda: m.register_full_backward_pre_hook(hook)) is None)
        return out

    _same(run)


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
