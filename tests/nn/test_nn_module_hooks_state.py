"""nn.Module extras against PyTorch: state-dict hooks, extra state, set_submodule, to_empty,
functional_call and the legacy backward hook (helpers in tests/nn/module_hooks_helpers.py; the nn.utils
helpers are in tests/nn/test_nn_utils_norms_prune.py)."""

import warnings

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import nn as tnn

torch = pytest.importorskip("torch")
import torch.nn as onn
from module_hooks_helpers import _catch, _same
from nn_oracle import T, close, copy_weights

pytestmark = pytest.mark.oracle


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


def test_full_backward_hook_sees_zeros_and_nones_as_pytorch(torch_oracle):
    """grad_input holds zeros for an input that needs no gradient (while another does); grad_output
    holds None for an output no gradient reached."""
    shown = []
    for lib in (tm, torch_oracle):
        nn = lib.nn

        class Two(nn.Module):
            def forward(self, x, y):
                return x * 2, x * 3, y.sum()

        calls = []
        m = Two()
        m.register_full_backward_pre_hook(lambda mod, gout: calls.append(("pre", _shown(gout))))
        m.register_full_backward_hook(
            lambda mod, gin, gout: calls.append((_shown(gin), _shown(gout)))
        )
        a, b, c = m(lib.ones(2, requires_grad=True), lib.ones(3))
        a.sum().backward()
        a, b, c = m(lib.ones(2), lib.ones(3, requires_grad=True))
        c.backward()
        shown.append(calls)
    assert shown[0] == shown[1]


def _shown(grads):
    return [None if g is None else g.tolist() for g in grads]


def test_deepcopy_of_a_parameter_drops_its_grad(torch_oracle):
    import copy

    for lib in (tm, torch_oracle):
        m = lib.nn.Linear(2, 1)
        m(lib.ones(1, 2)).sum().backward()
        c = copy.deepcopy(m)
        assert c.weight.grad is None and c.bias.grad is None
        assert type(c.weight).__name__ == "Parameter" and c.weight.requires_grad
        t = lib.ones(2, requires_grad=True)
        t.grad = lib.ones(2)
        assert copy.deepcopy(t).grad.tolist() == [1.0, 1.0]  # a plain tensor keeps it
