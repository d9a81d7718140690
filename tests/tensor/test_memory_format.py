"""channels_last / channels_last_3d against PyTorch: is_contiguous(memory_format=...), contiguous, clone,
to and the *_like factories give PyTorch's strides, grad_fn names and rank errors."""

import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _catch(f):
    try:
        return f().stride()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)


def _scenario(L):
    out = []
    x = L.arange(120.0).reshape(2, 3, 4, 5).requires_grad_()
    y = x.contiguous(memory_format=L.channels_last)
    out.append(
        (
            y.stride(),
            type(y.grad_fn).__name__,
            y.is_contiguous(),
            y.is_contiguous(memory_format=L.channels_last),
        )
    )
    out.append(
        (
            x.is_contiguous(memory_format=L.channels_last),
            L.ones(2, 1, 4, 5).is_contiguous(memory_format=L.channels_last),
        )
    )
    z = x.to(memory_format=L.channels_last)
    out.append((z.stride(), type(z.grad_fn).__name__, z.to(memory_format=L.channels_last) is z))
    out.append(x.to(L.float64, memory_format=L.channels_last).stride())
    out.append(x.clone(memory_format=L.channels_last).stride())
    out.append(L.empty_like(x, memory_format=L.channels_last).stride())
    out.append(L.zeros_like(L.ones(2, 3, 4, 5, 6), memory_format=L.channels_last_3d).stride())
    out.append(L.ones(2, 3, 4, 5, 6).contiguous(memory_format=L.channels_last_3d).stride())
    out.append(L.rand_like(x, memory_format=L.channels_last).stride())
    y.sum().backward()
    out.append(x.grad.stride())
    out.append((y * 2).stride())
    out.append(L.nn.functional.conv2d(y, L.ones(2, 3, 1, 1)).detach().numpy().tolist())
    out.append(_catch(lambda: L.ones(2, 3).contiguous(memory_format=L.channels_last)))
    out.append(_catch(lambda: L.ones(2, 3).to(memory_format=L.channels_last)))
    out.append(_catch(lambda: L.empty_like(L.ones(2, 3), memory_format=L.channels_last)))
    out.append(_catch(lambda: L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last_3d)))
    out.append(L.ones(2, 3).is_contiguous(memory_format=L.channels_last))
    out.append(x.detach().contiguous(memory_format=L.preserve_format).stride())
    return out


def test_channels_last_matches_pytorch():
    assert _scenario(taimatsu) == _scenario(torch)


def _convert_scenario(L):
    L.manual_seed(0)
    nn = L.nn
    m = nn.Sequential(
        nn.Conv2d(3, 4, 3),
        nn.Sequential(nn.ConvTranspose2d(4, 2, 3)),
        nn.Linear(2, 2),
        nn.Conv3d(1, 2, 2),
    )
    w = m[0].weight
    r = nn.utils.convert_conv2d_weight_memory_format(m, L.channels_last)
    first = [p.stride() for p in m.parameters()]
    nn.utils.convert_conv3d_weight_memory_format(m, L.channels_last_3d)
    second = [p.stride() for p in m.parameters()]
    x = L.ones(1, 3, 5, 5)
    return r is m, m[0].weight is w, first, second, m[1](m[0](x)).sum().item()


def test_convert_conv_weight_memory_format_matches_pytorch():
    a, b = _convert_scenario(taimatsu), _convert_scenario(torch)
    assert a[:4] == b[:4]
    assert abs(a[4] - b[4]) < 1e-4


def _dim_orders(lib, shape, perm, expand):
    base = lib.zeros(*[shape[p] for p in perm]) if shape else lib.zeros(())
    t = base.permute(*[perm.index(i) for i in range(len(shape))]) if shape else base
    if expand and shape and shape[0] == 1:
        t = t.expand(3, *shape[1:])  # a zero stride
    out = []
    for check in (False, True, [lib.contiguous_format], [lib.contiguous_format, lib.channels_last]):
        try:
            out.append(t.dim_order(ambiguity_check=check))
        except RuntimeError as e:
            out.append(str(e))
    return out


def test_dim_order_matches_pytorch(torch_oracle):
    import itertools

    shapes = [
        (2, 3),
        (2, 1),
        (1, 1),
        (2, 3, 4),
        (2, 1, 4),
        (4, 3, 2, 5),
        (1, 3, 1, 5),
        (2, 2, 2),
        (3,),
        (),
    ]
    for shape in shapes:
        for perm in itertools.permutations(range(len(shape))):
            for expand in (False, True):
                mine = _dim_orders(taimatsu, shape, perm, expand)
                assert mine == _dim_orders(torch_oracle, shape, perm, expand), (shape, perm, expand)
    for bad in ("x", [1], None):
        for lib in (taimatsu, torch_oracle):
            with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
                lib.ones(2).dim_order(ambiguity_check=bad)


def _preserve_program(T):
    """The strides preserve_format gives new tensors (clone, .to, *_like), nonzero's strides, and
    Module.to(memory_format=...)."""
    out = []
    for x in (T.ones(1, 4).expand(3, 4), T.ones(3, 1).expand(3, 4), T.ones(2, 1, 3).expand(2, 4, 3),
              T.ones(1, 3).t().expand(3, 2), T.ones(4, 1, 1).expand(4, 2, 3).permute(2, 0, 1),
              T.ones(1, 3).t(), T.ones(4, 6).t()[:, ::2], T.ones(2, 3, 4).permute(2, 0, 1), T.ones(2, 3)):  # fmt: skip
        out.append((x.clone().stride(), x.double().stride(), x.to(copy=True).stride(),
                    T.empty_like(x).stride(), T.zeros_like(x, dtype=T.int64).stride()))  # fmt: skip
    for x in (T.tensor(5), T.tensor(0), T.tensor([[1, 0], [1, 1]]), T.zeros(0, 3), T.ones(2, 3, 4)):
        r = T.nonzero(x)
        out.append((tuple(r.shape), r.stride(), T.argwhere(x).stride(), r.tolist()))
    m = T.nn.Sequential(T.nn.Conv2d(3, 4, 3), T.nn.BatchNorm2d(4)).to(memory_format=T.channels_last)
    out.append([p.stride() for p in m.parameters()])
    m = T.nn.Conv2d(3, 4, 3).to(T.float64, memory_format=T.channels_last)
    out.append((m.weight.stride(), str(m.weight.dtype)))
    return out


def test_preserve_format_layouts_match_pytorch():
    assert _preserve_program(taimatsu) == _preserve_program(torch)
