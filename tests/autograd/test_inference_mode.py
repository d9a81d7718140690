"""inference_mode against PyTorch: grad mode inside it (enable_grad and set_grad_enabled set the
mode torch.is_grad_enabled() reports, yet nothing is recorded), which tensors are inference
tensors (views, detach and .data of one are; a view of a normal tensor made inside is not, and
may not be modified in place with grad mode on later), and _version of an inference tensor."""

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


def _outcome(f):
    try:
        return f()
    except RuntimeError as e:
        return ("raises", str(e))


def _grad_mode_program(T):
    out = []
    w = T.ones(2, requires_grad=True)
    with T.inference_mode():
        out.append(T.is_grad_enabled())
        with T.enable_grad():
            y = w * 2
            z = T.ones(2, requires_grad=True)
            out += [T.is_grad_enabled(), y.requires_grad, y.is_inference(), y.grad_fn is None]
            out += [z.requires_grad, z.is_inference()]
            with T.no_grad():
                out.append(T.is_grad_enabled())
        with T.set_grad_enabled(True):
            out.append(T.is_grad_enabled())
        out.append(T.is_grad_enabled())
        with T.inference_mode(False):
            q = w * 2
            out += [
                T.is_grad_enabled(),
                T.is_inference_mode_enabled(),
                q.requires_grad,
                q.is_inference(),
            ]
        out.append(T.is_grad_enabled())
    out.append(T.is_grad_enabled())
    with T.no_grad():
        with T.inference_mode(), T.enable_grad():
            out.append(T.is_grad_enabled())
        out.append(T.is_grad_enabled())
    return out


def test_grad_mode_inside_inference_mode():
    assert _grad_mode_program(tm) == _grad_mode_program(torch)


def _tensors_program(T):
    out = []
    x = T.ones(3, requires_grad=True).clone()
    plain = T.ones(3)
    leaf = T.ones(3, requires_grad=True)
    with T.inference_mode():
        v = x[:2]
        u = plain[:2]
        lv = leaf.view(3)
        i = T.ones(3)
        i.add_(1)  # in place on an inference tensor inside: fine
    out += [v.is_inference(), v.requires_grad, v._base is x, v.grad_fn is None]
    out.append(_outcome(lambda: v.mul_(2)))
    out.append(_outcome(lambda: lv.mul_(2)))
    u.mul_(2)  # no tensor requires grad: allowed
    out.append(plain.tolist())
    out += [
        i.detach().is_inference(),
        i.data.is_inference(),
        i[:1].is_inference(),
        i.view(3).is_inference(),
    ]
    out += [(i * 2).is_inference(), i.clone().is_inference()]
    out.append(_outcome(lambda: i._version))
    out.append(_outcome(lambda: i.add_(1)))
    return out


def test_inference_tensors_and_views():
    assert _tensors_program(tm) == _tensors_program(torch)
