"""Views, shape ops and indexing against PyTorch: memory sharing, version counters, strides,
grad_fn chains, CopySlices, in-place checks, subscripts, gather/scatter and friends.

Most cases are small snippets run twice, once with ``T = torch`` and once with
``T = taimatsu``; the value left in ``out`` is reduced to plain data (tensor values, dtype,
shape, grad_fn names, exception type + message) and must be equal.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _plain(x, lib):
    """Comparable plain data for a result of either library."""
    if isinstance(x, lib.Tensor):
        t = x.detach()
        vals = t.float().numpy() if str(t.dtype).endswith("bfloat16") else t.numpy()
        node = x.grad_fn.name() if x.grad_fn is not None else None
        vals = np.array(vals)
        if vals.dtype.kind == "f":  # the last ulp may differ (summation order, libm)
            vals = np.round(vals.astype(np.float64), 9 if vals.dtype == np.float64 else 5)
        return ("T", vals.tolist(), str(x.dtype), tuple(x.shape), x.requires_grad, node)
    if isinstance(x, (tuple, list)):
        return type(x).__name__, [_plain(i, lib) for i in x]
    if isinstance(x, dict):
        return {k: _plain(v, lib) for k, v in x.items()}
    if type(x).__name__ == "Size" or isinstance(x, lib.Size):
        return ("Size", tuple(x))
    if hasattr(x, "next_functions") and hasattr(x, "name"):
        return ("Node", x.name().replace("torch::autograd::", ""))
    if isinstance(x, lib.dtype):
        return str(x)
    return x


def _run(code: str, lib):
    env = {"T": lib, "np": np, "_cot": _cot}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            exec(code, env)  # noqa: S102 - the snippets are this file's own
            res = _plain(env.get("out"), lib)
        except Exception as e:  # noqa: BLE001 - errors are part of what is compared
            msg = re.sub(r" \(Triggered internally at .*\)", "", str(e))
            res = ("raised", type(e).__name__, msg)
    warns = [
        str(m.message).split(" (Triggered internally")[0]
        for m in w
        if issubclass(m.category, UserWarning)
    ]
    return res, warns


def same(code: str, check_warnings: bool = False):
    expected, ew = _run(code, torch)
    actual, aw = _run(code, taimatsu)
    assert actual == expected, f"\n{code}\n torch:    {expected}\n taimatsu: {actual}"
    if check_warnings:
        assert aw == ew


def _cot(T, n):
    """A cotangent with exactly representable, uneven values (never all ones)."""
    return (T.arange(n, dtype=T.float64) % 5 - 1.5) * 0.75


def nodes(t, depth=3):
    """grad_fn and the names along next_functions, a few levels deep (for snippets)."""
    out, frontier = [], [t.grad_fn]
    for _ in range(depth):
        names, nxt = [], []
        for n in frontier:
            if n is None:
                names.append(None)
                continue
            names.append(n.name().replace("torch::autograd::", ""))
            nxt.extend(f for f, _ in n.next_functions)
        out.append(names)
        frontier = nxt
        if not nxt:
            break
    return out


# ---- memory sharing, strides, versions -------------------------------------------------------------
MEMORY = [
    "a = T.arange(6.).view(2, 3); out = (a.t().stride(), a[1:].storage_offset(), a[:, 1].stride(), a.t().is_contiguous())",
    "a = T.arange(6.); out = (a[1:].data_ptr() - a.data_ptr(), a[::2].stride(), a[2:].view(2, 2).storage_offset())",
    "a = T.arange(24.).view(2, 3, 4); out = [a.permute(2, 0, 1).stride(), a.transpose(0, 2).is_contiguous(), a[:, 1].is_contiguous(), a[..., 1:3].stride()]",
    "a = T.arange(24.).view(2, 3, 4); out = [a.mT.stride(), a.unsqueeze(1).stride(), a[:, None].stride(), a.expand(5, 2, 3, 4).stride()]",
    "a = T.ones(3, 1); out = [a.expand(3, 4).stride(), a.expand(2, 3, 4).is_contiguous(), a.squeeze().stride()]",
    "a = T.arange(12.).view(3, 4); b = a.t(); b[0, 1] = 100.; out = (a, a._version, b._version)",
    "a = T.arange(12.).view(3, 4); v = a.view(4, 3); v.add_(1); out = (a, a._version, v._version)",
    "a = T.arange(6.); d = a.detach(); d.mul_(2); out = (a, a._version, d._version)",
    "a = T.arange(6.); d = a.data; d.mul_(2); out = (a, a._version, d._version)",
    "a = T.arange(6.); n = a.numpy(); n[0] = 7; out = a",
    "x = np.arange(6.); a = T.from_numpy(x); a[1] = 9.; out = (x.tolist(), a)",
    "x = np.arange(6.); a = T.from_numpy(x); x[2] = -1; out = a",
    "a = T.arange(6.).view(2, 3); out = [a.view(3, 2)._base is a, a[0]._base is a._base, a.detach()._base, a.t()._version]",
    "a = T.zeros(4); b = a[1:3]; b.fill_(2); c = a.narrow(0, 0, 1); c.zero_(); out = (a, a._version)",
    "a = T.arange(12.).view(3, 4); out = [a.diagonal().stride(), a.diagonal(1).storage_offset(), a.diagonal(-1).tolist()]",
    "a = T.arange(12.).view(3, 4); d = a.diagonal(); d.mul_(10); out = a",
    "a = T.arange(6.); u = a.unbind(); u[2].add_(5); out = a",
    "a = T.arange(6.); s = a.split(4); s[1].mul_(-1); out = (a, [t.storage_offset() for t in s])",
    "a = T.arange(6.); s = a.chunk(4); out = [t.shape for t in s]",
    "a = T.arange(10.); out = [t.tolist() for t in a.tensor_split([2, -3])] + [t.tolist() for t in a.tensor_split([5, 3])]",
    "a = T.arange(10.); out = [t.tolist() for t in a.tensor_split(3)] + [t.storage_offset() for t in a.tensor_split(4)]",
    "a = T.arange(12.).view(3, 4); c = a.t().contiguous(); out = (c.stride(), c.is_contiguous(), a.contiguous() is a)",
    "a = T.arange(12.).view(3, 4).t(); c = a.clone(); out = (c.stride(), c.clone(memory_format=T.contiguous_format).stride())",
    "a = T.arange(12.).view(3, 4); r = a.t().reshape(12); out = (r._base is None, a.reshape(2, 6)._base is a._base)",
    "a = T.arange(6.); b = T.as_strided(a, (2, 2), (1, 2), 1); b[0, 0] = 50.; out = (b, a, b.stride(), b.storage_offset())",
    "a = T.arange(6.)[2:]; b = a.as_strided((2,), (2,)); out = (b, b.storage_offset())",
    "a = T.arange(12.).view(3, 4); out = [a.movedim(0, 1).shape, a.movedim(-1, 0).stride(), T.movedim(a.view(3, 2, 2), (0, 1), (2, 0)).shape]",
    "a = T.arange(6.); out = (a.unflatten(0, (2, -1)).shape, a.view(2, 3).flatten().shape, a.view(1, 2, 3).flatten(1).shape)",
    "a = T.arange(6.).view(2, 3); a.t_(); out = (a.shape, a.stride())",
    "a = T.zeros(2, 1, 3); a.squeeze_(); b = T.zeros(3); b.unsqueeze_(1); out = (a.shape, b.shape)",
]


@pytest.mark.parametrize("code", MEMORY)
def test_memory_sharing(code):
    same(code)


# ---- views' errors --------------------------------------------------------------------------------
ERRORS = [
    "out = T.arange(6.).view(-1, 4)",
    "out = T.arange(6.).view(-1, -1)",
    "out = T.arange(6.).view(-2, 3)",
    "out = T.arange(12.).view(3, 4).t().view(12)",
    "out = T.ones(3, dtype=T.float32).as_strided((4,), (1,))",
    "out = T.ones(3)[1:].as_strided((3,), (1,))",
    "out = T.ones(3, 4).expand(2, 3)",
    "out = T.ones(3, 1).expand(-1, 4, 2)",
    "out = T.ones(3, 4).expand(3)",
    "out = T.ones(3, 4, dtype=T.int64).expand(3)",
    "out = T.ones(3, 1).expand(3, -1, 2).shape",
    "out = T.cat([T.ones(2, 3), T.ones(2, 4)])",
    "out = T.cat([T.ones(()), T.ones(())])",
    "out = T.cat([T.ones(2, 3), T.ones(3)])",
    "out = T.cat([])",
    "out = T.cat([T.ones(2, 3), T.ones(0)]).shape",
    "out = T.cat([T.ones(2, 3, dtype=T.int64), T.ones(2, 3)]).dtype",
    "out = T.cat([T.ones(2, dtype=T.int32), T.ones(2, dtype=T.bool), T.ones(1, dtype=T.uint8)])",
    "out = T.stack([T.ones(2, 3), T.ones(2, 4)])",
    "out = T.stack([T.ones(2, dtype=T.int64), T.ones(2, dtype=T.float64)], 1)",
    "out = T.ones(2, 3).permute(0)",
    "out = T.ones(2, 3).permute(0, 0)",
    "out = T.ones(2, 3).transpose(0, 2)",
    "out = T.ones(2, 3, 4).t()",
    "out = T.ones(2, 3).narrow(1, 2, 2)",
    "out = T.ones(2, 3).narrow(0, -3, 1)",
    "out = T.ones(2, 3).select(1, 3)",
    "out = T.ones(2, 3).split([1, 1])",
    "out = T.ones(2, 3).chunk(0)",
    "out = T.ones(2, 3).diagonal(0, 1, 1)",
    "out = T.ones(2, 3).repeat(2)",
    "out = T.ones(2, 3).flatten(1, 0)",
    "out = T.ones(2, 3).unflatten(1, (2, 2))",
    "out = T.ones(3).tril()",
    "out = T.ones(2, 3).squeeze(2)",
    "out = T.ones(2, 3).unsqueeze(3)",
    "out = T.ones(2, 3).view(T.float64)",
    "out = T.ones(2, 4).view(T.int16).shape",
    "out = T.ones(2, 3).movedim(0, 2)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_shape_errors(code):
    same(code)


# ---- shape ops' values and graph ----------------------------------------------------------------------
SHAPE_OPS = [
    "x = T.arange(24.).view(2, 3, 4)",
    "x.flip(0)",
    "x.flip((0, 2))",
    "x.flip(-1)",
    "x.roll(1)",
    "x.roll(-2, 2)",
    "x.roll((1, 2), (0, 1))",
    "x.tril()",
    "x.triu(1)",
    "x.tril(-1)",
    "x.repeat(2, 1, 1)",
    "x.repeat(2, 1, 1, 2)",
    "x.tile((2,))",
    "x.tile((2, 1, 1, 1))",
    "T.stack([x, x], 1)",
    "T.stack([x, x], -1)",
    "T.cat([x, x], 2)",
    "T.cat([x, x], -2)",
    "x.unbind(1)",
    "x.split(2, 2)",
    "x.split([1, 2], 1)",
    "x.chunk(3, 2)",
    "x.tensor_split(3, 1)",
    "x.diagonal(0, 1, 2)",
    "x.diagonal(1, -1, 0)",
    "x.movedim(0, -1)",
    "x.squeeze()",
    "x[:1].squeeze()",
    "x[:1].squeeze(0)",
    "x[:1, :1].squeeze((0, 1))",
    "x.unsqueeze(-1)",
    "x.narrow(2, 1, 2)",
    "x.select(1, -1)",
    "x.mT",
    "x.T",
    "x.reshape(4, -1)",
    "x.t().reshape(-1)",
    "x.transpose(0, 1).flatten()",
    "x.expand(2, 2, 3, 4)",
    "T.hstack([x, x])",
    "T.vstack([x, x])",
    "T.dstack([x, x])",
    "T.atleast_3d(x[0, 0])",
    "x.ravel()",
    "T.broadcast_tensors(x, x[0])",
    "x.view(2, 12)",
    "x.unflatten(-1, (2, 2))",
    "x.reshape(6, 4).t()",
]


@pytest.mark.parametrize("expr", SHAPE_OPS[1:])
def test_shape_op_values_and_grad(expr):
    setup = "x = (T.arange(24., dtype=T.float64).view(2, 3, 4) * 0.5).requires_grad_()\n"
    code = setup + (
        f"y = {expr}\n"
        "ys = y if isinstance(y, tuple) else (y,)\n"
        "g = [_cot(T, t.numel()).view(t.shape) for t in ys]\n"
        "gx, = T.autograd.grad(ys, [x], g)\n"
        "out = (ys, gx, [t.grad_fn.name() for t in ys], [t.is_contiguous() for t in ys], [t.stride() for t in ys])"
    )
    same(code)


# ---- grad_fn chains -----------------------------------------------------------------------------------------
CHAINS = [
    "a[0:1, None, 1]",
    "a[:]",
    "a[:, 0]",
    "a[...]",
    "a[None]",
    "a[0]",
    "a[-1, 1:]",
    "a[:, ::2]",
    "a[1:, None]",
    "a[..., 1]",
    "a[0, ..., None]",
    "a[[0, 1]]",
    "a[0, [1, 2]]",
    "a[1:, [0, 1]]",
    "a[[0, 1], 1:]",
    "a[None, [0, 1]]",
    "a[:, [0, 1], None]",
    "a[T.tensor([True, False])]",
    "a[1:, T.tensor([True, False, True])]",
    "a[True]",
    "a[False]",
    "a[T.tensor(1)]",
    "a[T.tensor(True)]",
    "a[:, T.tensor(0)]",
    "a.t()[0]",
    "a.view(3, 2)[1:]",
    "a.reshape(6)",
    "a.t().reshape(6)",
    "a.expand(2, 2, 3)",
    "a.squeeze()",
    "a[:, :1].squeeze(1)",
    "a.unsqueeze(0).squeeze()",
    "a.unbind()[1]",
    "a.split(1)[0]",
    "a.split([1, 2], 1)[1]",
    "a.chunk(2, 1)[1]",
    "a.tensor_split(2, 1)[0]",
    "a.contiguous()",
    "a.t().contiguous()",
    "a.clone()",
    "a.flatten()",
    "a.movedim(0, 1)",
    "a.narrow(1, 1, 1)",
    "a.diagonal()",
    "a.as_strided((2,), (1,))",
    "a.T",
    "a.mT",
    "T.cat([a, a])[0]",
]


@pytest.mark.parametrize("expr", CHAINS)
def test_grad_fn_chain(expr):
    on_b = re.sub(r"\ba\b", "b", expr)
    same(
        f"a = (T.arange(6.).view(2, 3) * 1).requires_grad_()\nb = a * 1\nout = __import__('test_views_indexing').nodes({on_b})"
    )
    same(
        f"a = T.arange(6.).view(2, 3).clone().requires_grad_()\nout = __import__('test_views_indexing').nodes({expr})"
    )


# ---- in-place through views: CopySlices, leaf checks, creation meta, versions ----------------------------------
INPLACE = [
    "a = T.arange(6.).view(2, 3).requires_grad_(); x = a.clone(); x[:, 0].mul_(2); out = nodes(x)",
    "a = T.arange(6.).view(2, 3).requires_grad_(); x = a.clone(); v = x[:, 0]; v.mul_(2); out = nodes(v)",
    "a = T.arange(6.).view(2, 3).requires_grad_(); x = a.clone(); v = x[:, 0]; v.mul_(2); (x * x).sum().backward(); out = a.grad",
    "a = T.arange(6.).view(2, 3).requires_grad_(); a_ = a.clone(); a_[0] += 2; out = (nodes(a_), a_)",
    "a = T.arange(6.).requires_grad_(); x = a.clone(); x[[0, 1]] = 5.; out = nodes(x)",
    "a = T.arange(6.).view(2, 3).requires_grad_(); a[0] = 1",
    "a = T.arange(6.).view(2, 3).requires_grad_(); a[0].mul_(2)",
    "a = T.arange(6.).requires_grad_(); a.mul_(2)",
    "a = T.arange(6.).view(2, 3).requires_grad_(); a.mul_(2)",
    "a = T.arange(6.).requires_grad_(); a[...] = 1.",
    "a = T.arange(6.).requires_grad_(); a[:] = 1.",
    "a = T.arange(6.).requires_grad_(); a[None] = 1.",
    "a = T.arange(6.).requires_grad_(); a[[0]] = 1.",
    "a = T.arange(6.).requires_grad_(); a[T.tensor([True] * 6)] = 1.",
    "a = T.arange(6.).requires_grad_(); a[False] = 1.; out = a",
    "a = T.arange(6.).requires_grad_()\nwith T.no_grad(): a[0] = 5.\nout = (a, a._version)",
    "a = T.arange(6.).requires_grad_(); d = a.detach(); d[0] = 5.; out = (a, a._version)",
    "a = T.arange(6.).requires_grad_(); b = a * 1; x, y = b.split(3); x.mul_(2)",
    "a = T.arange(6.).requires_grad_(); b = a * 1; x, y = b.view(2, 3).unbind(); x.mul_(2)",
    "a = T.arange(6.).requires_grad_(); b = a * 1; x, y = b.split([2, 4]); x[0].mul_(2)",
    "a = T.arange(6.).requires_grad_(); b = a * 1; x, y = b.chunk(2); x[:].copy_(x.detach())",
    "a = T.arange(6.).requires_grad_(); b = a * 1; x, y = b.tensor_split(2); x.mul_(2); out = nodes(b)",
    "a = T.arange(6.); b = a * 1; x, y = b.split([2, 4]); x.mul_(2); out = b",
    "b = T.zeros(3); w = T.ones(2, requires_grad=True); x, y = b.split(2); x.copy_(w)",
    "a = T.arange(6.).requires_grad_(); b = a * 1\nwith T.no_grad(): v = b[0:2]\nv.mul_(2)",
    "a = T.arange(6.).requires_grad_(); b = a * 1\nwith T.no_grad(): v = b[0:2]\nout = (v, v.requires_grad, v.is_leaf)",
    "b = T.zeros(3); w = T.ones(2, requires_grad=True)\nwith T.no_grad(): v = b[0:2]\nv.mul_(w)",
    "b = T.zeros(3); v = b[0:2]; w = T.ones(2, requires_grad=True); v.copy_(w); out = (nodes(v), nodes(b), b)",
    "b = T.zeros(3); v = b[0:2]; w = T.ones(2, requires_grad=True); v.mul_(w); out = (nodes(b), v._version)",
    "a = T.arange(6.).requires_grad_(); b = a.exp(); c = b[0]; b.add_(1); b.sum().backward()",
    "a = T.arange(6.).requires_grad_(); b = a.exp(); c = b[2:]; c.add_(1); b.sum().backward()",
    "a = T.arange(6.).requires_grad_(); b = a * 2; c = b[1:4]; c.exp_(); d = c.view(3, 1); d.mul_(d)\n(b * b).sum().backward(); out = (a.grad, nodes(b), nodes(d))",
    "x = T.ones(3, 4, dtype=T.float64, requires_grad=True); y = x * 1; y[1:, 1] = y[0, :2] ** 2; y.t()[0].mul_(y[2, 0]); y.sum().backward()",
    "a = T.tensor([1., 2., 3.], requires_grad=True); b = a * 1; e = b.expand(2, 3); f = e[0]; b.mul_(2); out = nodes(f)",
    "a = T.tensor([1., 2., 3.], requires_grad=True); b = a * 1; bt = b.view(3, 1); bt.mul_(a.view(3, 1)); b.sum().backward(); out = a.grad",
    "a = (T.arange(12.).view(4, 3) / 11).requires_grad_(); x = a * 1; x.t()[1:, ::2].mul_(3); x[1].exp_(); x.pow(2).sum().backward(); out = (x, a.grad)",
    "w = T.tensor([1., 2.], requires_grad=True); b = T.zeros(2, 3); b[:, 1] = w; (b * T.arange(6.).view(2, 3)).sum().backward(); out = (nodes(b), w.grad)",
    "w = T.tensor(3., requires_grad=True); b = T.zeros(4); b[1:3] = w; b.sum().backward(); out = (nodes(b), w.grad)",
    "w = T.tensor([[1., 2.]], requires_grad=True); b = T.zeros(3, 2); b[0] = w; b.sum().backward(); out = (nodes(b, 4), w.grad)",
    "w = T.tensor([[1.]], requires_grad=True); b = T.zeros(3, 2); b[0] = w; b.sum().backward(); out = (nodes(b, 4), w.grad)",
    "w = T.ones(1, 1, 2, requires_grad=True); b = T.zeros(3, 2); b[[0, 2]] = w; (b * 2).sum().backward(); out = (nodes(b, 4), w.grad)",
    "w = T.ones(2, dtype=T.float64, requires_grad=True); b = T.zeros(3); b[0:2] = w; b.sum().backward(); out = (nodes(b, 4), w.grad)",
    "w = T.ones(2, dtype=T.float64); b = T.zeros(3); b[[0, 1]] = w",
    "b = T.zeros(3, 2); b[0] = T.ones(3)",
    "b = T.zeros(3, 2); b[[0]] = T.ones(3)",
    "b = T.zeros(2, 3); b[0] = [1, 2, 3]",
    "b = T.zeros(2, 3); b[0] = np.array([1., 2, 3])",
    "b = T.zeros(3, dtype=T.int8); b[0] = 300",
    "b = T.zeros(3, dtype=T.int8); b[0] = 1.7; b[1] = True; out = b",
    "b = T.zeros(3); b[1] = T.tensor(2, dtype=T.int64); b[2:] = T.tensor([5], dtype=T.int32); out = b",
    "a = T.ones(3, requires_grad=True); b = a * 1; b.fill_(2.); out = nodes(b)",
    "a = T.ones(3, requires_grad=True); w = T.tensor(2., requires_grad=True); b = a * 1; b.fill_(w); b.sum().backward(); out = (nodes(b), w.grad, a.grad)",
    "a = T.ones(3, requires_grad=True); b = a * 1; b.zero_(); b.sum().backward(); out = (nodes(b), a.grad)",
    "a = T.ones(3, requires_grad=True); b = a * 1; b[1:].zero_(); b.sum().backward(); out = (nodes(b), a.grad)",
    "a = T.ones(3, requires_grad=True); b = a * 1; b.copy_(T.arange(3)); out = nodes(b)",
    "a = T.ones(3, requires_grad=True); s = T.tensor([2.], requires_grad=True); b = a * 1; b.copy_(s); (b * T.arange(3.)).sum().backward(); out = (a.grad, s.grad)",
    "a = T.zeros(3, 1).expand(3, 4); a.add_(1); out = a",
    "a = T.zeros(3, 1).expand(3, 4); a.fill_(1); out = a",
    "a = T.zeros(3, 1).expand(3, 4); a.zero_(); out = a",
    "a = T.zeros(3, 1).expand(3, 4); a.copy_(T.ones(3, 4)); out = a",
    "a = T.zeros(3, 1).expand(3, 4); a[0] = 2.; out = a",
    "a = T.zeros(3, 1).expand(3, 4); a[0, 1] = 2.; out = a",
    "a = T.zeros(0, 3).expand(0, 3); a.add_(1); out = a",
    "x = T.zeros(3); w = T.ones(2, requires_grad=True); x[1:] += w; x.sum().backward(); out = (x, w.grad, nodes(x))",
    "a = T.ones(3, requires_grad=True); a.data[0] = 5; out = (a, a._version)",
    "p = T.nn.Parameter(T.ones(3))\nwith T.no_grad(): p[0] = 0.\n(p * 2).sum().backward(); out = (p, p.grad, p._version)",
    "a = T.ones(2, 1, 3, requires_grad=True); b = a * 1; b.unsqueeze_(0); b.squeeze_(2); b.transpose_(0, 2); "
    + "g, = T.autograd.grad(b, a, _cot(T, b.numel()).view(b.shape)); out = (b, nodes(b, 4), b._version, g)",
    "a = T.ones(2, 3, requires_grad=True); b = a * 1; b.t_(); b.squeeze_((0,)); v = b[0]; v.unsqueeze_(1); out = (nodes(v, 4), v.shape)",
    "a = T.ones(2, 3, requires_grad=True); a.t_()",
    "a = T.zeros(3).copy_(T.ones(2))",
    "a = T.zeros(3).copy_(T.ones(2, 3))",
    "a = T.zeros(3).fill_(T.ones(2))",
    "a = T.zeros(3, dtype=T.int32).fill_(2.7); out = a",
]


@pytest.mark.parametrize("code", INPLACE)
def test_inplace_through_views(code):
    same("from test_views_indexing import nodes\n" + code)


# ---- subscripts --------------------------------------------------------------------------------------------------
GETITEM = [
    "0",
    "-1",
    "5",
    "-6",
    "(1, 2)",
    "(1, -1, 0)",
    "(slice(None), 1)",
    "slice(1, None, 2)",
    "slice(-2, None)",
    "slice(10, 20)",
    "slice(2, 1)",
    "(Ellipsis, 1)",
    "(None, 0, None)",
    "(0, Ellipsis, None)",
    "Ellipsis",
    "(Ellipsis, Ellipsis)",
    "(1, 2, 3, 4)",
    "slice(None, None, -1)",
    "slice(None, None, 0)",
    "1.0",
    "'a'",
    "[0, 2]",
    "[[0, 1], [1, 2]]",
    "[-1, 0]",
    "[3]",
    "[]",
    "[True, False, True]",
    "([0, 1], [1, 2])",
    "([0, 1], [1, 2, 0])",
    "([0, 1], slice(None), [1, 2])",
    "(slice(None), [0, 2], [1, 3])",
    "([[0], [1]], [[1, 2]])",
    "(0, slice(None), [1, 2])",
    "(slice(None), 1, [0, 2, 3])",
    "T.tensor([0, 2])",
    "T.tensor([[0, 1], [2, 0]])",
    "T.tensor(1)",
    "T.tensor(-1)",
    "T.tensor(True)",
    "T.tensor(False)",
    "True",
    "False",
    "(True, 0)",
    "(None, False)",
    "T.tensor([0.])",
    "T.tensor([1, 0, 1], dtype=T.uint8)",
    "T.tensor([True, False, True])",
    "(slice(None), T.tensor([True, False, True]))",
    "T.tensor([[True, False, True], [False, False, True], [True, True, True]])",
    "T.tensor([True, False])",
    "(slice(None), slice(None), T.tensor([True, False, True, True]))",
    "(T.tensor([True, False, True]), slice(None), T.tensor([0, 3]))",
    "(T.tensor([0, 2]), T.tensor([True, False, True]))",
    "np.array([0, 2])",
    "np.int64(1)",
    "[T.tensor(0), T.tensor(1)]",
    "[0, slice(None)]",
    "[[0, 1]]",
    "T.tensor([], dtype=T.int64)",
    "(T.tensor([3]), 0)",
    "(slice(None), [0, -4])",
    "(slice(1, None), [0, 1])",
    "([0, 1], Ellipsis, None)",
    "(None, [0, 1], None, [1, 2])",
    "(T.tensor(1), [0, 1])",
    "(slice(None, 2), None, T.tensor([1, 0]), slice(1, 3))",
    "(T.tensor([0, 1]).view(2, 1), T.tensor([1, 2]))",
]


@pytest.mark.parametrize("index", GETITEM)
def test_getitem(index):
    base = "a = T.arange(36., dtype=T.float64).view(3, 3, 4)\n"
    same(
        base + f"r = a[{index}]\nout = (r, r.is_contiguous(), r._base is not None, r.stride())",
        check_warnings=True,
    )
    grad = (
        "a = (T.arange(36., dtype=T.float64).view(3, 3, 4) * 0.5).requires_grad_()\n"
        f"r = a[{index}]\n"
        "g = _cot(T, r.numel()).view(r.shape)\n"
        "ga, = T.autograd.grad(r, a, g, create_graph=True)\n"
        "gg, = T.autograd.grad((ga * ga).sum(), a, allow_unused=True) if ga.requires_grad else (None,)\n"
        "out = (r, ga, __import__('test_views_indexing').nodes(r), gg)"
    )
    same(grad)


def test_getitem_zero_dim():
    for index in [
        "0",
        "(0,)",
        "slice(None)",
        "[0]",
        "(None, 0)",
        "Ellipsis",
        "None",
        "True",
        "(Ellipsis, None)",
    ]:
        same(f"r = T.tensor(3.)[{index}]\nout = (r, r.stride())")


SETITEM = [
    ("0", "7."),
    ("(1, 2)", "7."),
    ("(slice(None), 1)", "T.arange(4.)"),
    ("slice(1, None, 2)", "T.arange(12.).view(1, 3, 4)"),
    ("(Ellipsis, 1)", "T.ones(3, 1)"),
    ("[0, 2]", "-1."),
    ("[[0, 1], [1, 2]]", "T.arange(4.)"),
    ("([0, 1], [1, 2])", "T.ones(2, 4)"),
    ("([0, 1], slice(None), [1, 2])", "T.ones(2, 3)"),
    ("(0, slice(None), [1, 2])", "T.ones(3, 2)"),
    ("T.tensor([True, False, True])", "0."),
    (
        "T.tensor([[True, False, True], [False, False, True], [True, True, True]])",
        "T.arange(24.).view(6, 4)",
    ),
    ("(slice(None), T.tensor([True, False, True]))", "T.ones(2, 4)"),
    ("(slice(None), T.tensor([True, False, True]))", "T.ones(4, 2)"),
    ("(slice(1, None), [0, 1])", "T.tensor(2.)"),
    ("T.tensor(1)", "T.arange(12.).view(3, 4)"),
    ("(None, 0)", "T.ones(1, 1, 3, 4)"),
    ("Ellipsis", "T.arange(4.)"),
    ("slice(None)", "T.arange(12.).view(1, 1, 3, 4)"),
    ("0", "T.ones(2, 4)"),
    ("[0]", "T.ones(2, 4)"),
    ("([0, 0], [1, 1])", "T.arange(8.).view(2, 4)"),
    ("True", "5."),
    ("0", "T.ones(3, 4, dtype=T.float32)"),
    ("[0, 1]", "T.ones(2, 3, 4, dtype=T.float32)"),
    ("5", "1."),
    ("(slice(None), [3])", "1."),
]


@pytest.mark.parametrize("index,value", SETITEM)
def test_setitem(index, value):
    same(
        f"a = T.arange(36., dtype=T.float64).view(3, 3, 4)\na[{index}] = {value}\nout = (a, a._version)"
    )
    same(
        "from test_views_indexing import nodes\n"
        "w = (T.arange(36., dtype=T.float64).view(3, 3, 4) / 7).requires_grad_()\n"
        f"v = {value}\nv = (v.double() if isinstance(v, T.Tensor) and v.dtype == T.float32 else v)\n"
        "v = v.requires_grad_() if isinstance(v, T.Tensor) else v\n"
        f"a = w * 2\na[{index}] = v\n"
        "g = _cot(T, a.numel()).view(a.shape)\n"
        "gs = T.autograd.grad(a, [w] + ([v] if isinstance(v, T.Tensor) else []), g)\n"
        "out = (a, gs, nodes(a, 4))"
    )


# ---- gather / scatter / index_* / masked / take / nonzero --------------------------------------------------------
IDX_OPS = [
    "x.gather(1, T.tensor([[0, 0], [1, 0], [2, 3]]))",
    "x.gather(0, T.tensor([[2, 1, 0, 0]]))",
    "T.gather(x, -1, T.tensor([[3], [2], [1]], dtype=T.int32))",
    "x.scatter(0, T.tensor([[2, 1, 0, 0]]), y)",
    "x.scatter(1, T.tensor([[0, 1], [3, 2], [1, 1]]), 2.5)",
    "x.scatter_add(0, T.tensor([[2, 1, 0, 0], [2, 2, 2, 2]]), y)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'sum')",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'sum', include_self=False)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'mean')",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'mean', include_self=False)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'amax')",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'amin', include_self=False)",
    "x.scatter_reduce(0, T.tensor([[2, 1, 0, 0], [2, 0, 2, 1]]), y, 'prod')",
    "x.index_select(1, T.tensor([3, 0, 0]))",
    "x.index_select(0, T.tensor([2], dtype=T.int32))",
    "x.index_add(0, T.tensor([2, 0, 2]), z)",
    "x.index_add(1, T.tensor([1, 1, 0, 2]), y.t()[:, :3].t().t(), alpha=2)",
    "x.index_fill(1, T.tensor([0, 2]), -1.)",
    "x.index_fill(0, T.tensor([1]), s)",
    "x.index_copy(0, T.tensor([2, 0, 1]), z)",
    "x.index_put((T.tensor([0, 2]), T.tensor([1, 3])), s)",
    "x.index_put((T.tensor([0, 0]), T.tensor([1, 1])), y[0, :2], accumulate=True)",
    "x.index_put((T.tensor([True, False, True]),), y[:1])",
    "x.index_put((None, T.tensor([1, 3])), z[:, :2])",
    "x.masked_select(x > 0.5)",
    "x.masked_select(T.tensor([True, False, True, False]))",
    "x.masked_scatter(x > 0.5, z.reshape(-1))",
    "x.masked_fill(x > 0.5, 2.)",
    "x.take(T.tensor([[0, 11], [-1, 5]]))",
    "x.take_along_dim(T.tensor([[0], [3], [1]]), 1)",
    "x.take_along_dim(T.tensor([[0, 1, 1, 2]]), 0)",
    "x.take_along_dim(T.tensor([5, 0]))",
    "T.nonzero(x > 0.5)",
    "T.nonzero(x > 0.5, as_tuple=True)",
    "T.argwhere(x < 0.3)",
    "T.nonzero(T.tensor(3.))",
    "T.nonzero(T.tensor(0.), as_tuple=True)",
]


@pytest.mark.parametrize("expr", IDX_OPS)
def test_index_ops(expr):
    same(
        "x = (T.arange(12., dtype=T.float64).view(3, 4) * 0.1).requires_grad_()\n"
        "y = (T.arange(8., dtype=T.float64).view(2, 4) * -0.3 + 1).requires_grad_()\n"
        "z = (T.arange(12., dtype=T.float64).view(3, 4) * 0.7 - 2).requires_grad_()\n"
        "s = T.tensor(1.5, dtype=T.float64, requires_grad=True)\n"
        f"r = {expr}\n"
        "rs = r if isinstance(r, tuple) else (r,)\n"
        "if r.requires_grad if not isinstance(r, tuple) else False:\n"
        "    g = _cot(T, r.numel()).view(r.shape)\n"
        "    ins = [t for t in (x, y, z, s)]\n"
        "    gs = T.autograd.grad(r, ins, g, allow_unused=True)\n"
        "else:\n"
        "    gs = None\n"
        "out = (rs, gs, r.grad_fn.name() if hasattr(r, 'grad_fn') and r.grad_fn else None)"
    )


IDX_ERRORS = [
    "x.gather(0, i.int())",
    "x.gather(0, i[0])",
    "x.gather(1, T.zeros(2, 5, dtype=T.long))",
    "x.gather(0, T.tensor([[3]]))",
    "x.gather(0, T.tensor([[-1]]))",
    "x.gather(0, T.tensor([[0.]]))",
    "x.scatter(0, T.tensor([[3]]), 1.)",
    "x.scatter(0, T.zeros(2, 5, dtype=T.long), T.ones(2, 4))",
    "x.scatter(0, i, T.ones(2, 4, dtype=T.float64))",
    "x.scatter(0, i[0], 1.)",
    "x.scatter(0, T.tensor([[0.]]), 1.)",
    "x.scatter_add(0, i, T.ones(2, 4, dtype=T.float64))",
    "x.scatter_reduce(0, i, T.ones(2, 4), 'foo')",
    "x.scatter(0, i, 1., reduce='foo')",
    "x.index_select(0, T.tensor([3]))",
    "x.index_select(0, T.tensor([[0]]))",
    "x.index_select(0, T.tensor([0.]))",
    "x.index_add(0, T.tensor([0]), T.ones(2, 4))",
    "x.index_add(0, T.tensor([5]), T.ones(1, 4))",
    "x.index_add(0, T.tensor([0]), T.ones(1, 4, dtype=T.float64))",
    "x.index_add(0, T.tensor([0.]), x[:1])",
    "x.index_copy(0, T.tensor([5]), T.ones(1, 4))",
    "x.index_copy(0, T.tensor([0]).int(), x[:1])",
    "x.index_fill(0, T.tensor([5]), 1.)",
    "x.index_fill(0, T.tensor([0]), T.ones(2))",
    "x.index_fill(0, T.tensor([0]).int(), 1)",
    "x.masked_select(T.ones(3, 4, dtype=T.long))",
    "x.masked_select(T.ones(2, 4, dtype=T.bool))",
    "x.masked_scatter(T.ones(3, 4, dtype=T.bool), T.ones(3))",
    "x.masked_scatter(T.ones(3, 4, dtype=T.long), T.ones(12))",
    "x.masked_scatter(T.ones(3, 4, dtype=T.bool), T.ones(12, dtype=T.float64))",
    "x.take(T.tensor([12]))",
    "x.take(T.tensor([1], dtype=T.int32))",
    "x.take_along_dim(T.tensor([1]), 0)",
    "x.take_along_dim(T.tensor([[1]], dtype=T.int32), 0)",
    "x.index_put((T.tensor([0]),), T.ones(2))",
    "x.index_put((T.tensor([0.]),), T.ones(1))",
    "x.index_put((T.tensor([0, 1]), T.tensor([0, 1, 2])), T.ones(1))",
    "x.index_put((T.tensor([0]),), T.ones(1, dtype=T.float64))",
]


@pytest.mark.parametrize("expr", IDX_ERRORS)
def test_index_op_errors(expr):
    same(f"x = T.arange(12.).view(3, 4); i = T.tensor([[0, 1, 2, 0]])\nout = {expr}")


INPLACE_IDX = [
    "x.scatter_(0, T.tensor([[2, 1, 0, 0]]), y)",
    "x.scatter_(1, T.tensor([[0], [3], [1]]), 9.)",
    "x.scatter_add_(0, T.tensor([[2, 1, 0, 0]]), y)",
    "x.index_add_(0, T.tensor([2, 2]), y)",
    "x.index_fill_(1, T.tensor([1]), 0.)",
    "x.index_copy_(0, T.tensor([1, 0]), y)",
    "x.index_put_((T.tensor([0, 1]),), y[0], accumulate=True)",
    "x.masked_scatter_(x > 0.4, y)",
    "x.masked_fill_(x > 0.4, 0.)",
    "x.fill_(2.)",
    "x.zero_()",
    "x.copy_(y[0])",
    "x.t().copy_(T.ones(4, 1))",
    "x[1:].scatter_(1, T.tensor([[1], [2]]), 7.)",
    "x[:, 1].index_fill_(0, T.tensor([0, 2]), -2.)",
]


@pytest.mark.parametrize("expr", INPLACE_IDX)
def test_index_inplace(expr):
    same(
        "from test_views_indexing import nodes\n"
        "w = _cot(T, 12).view(3, 4).requires_grad_()\n"
        "y = (T.arange(8., dtype=T.float64).view(2, 4) * -0.3 + 1).requires_grad_()\n"
        f"x = w * 1\nr = {expr}\n"
        "g = _cot(T, x.numel()).view(x.shape)\n"
        "gs = T.autograd.grad(x, [w, y], g, allow_unused=True)\n"
        "out = (r is x, x, gs, nodes(x, 2), x._version)"
    )
    same(
        f"x = T.linspace(0, 1, 12).view(3, 4); y = T.arange(8.).view(2, 4)\nr = {expr}\nout = (r is x, x, x._version)"
    )


# ---- finite differences: first and second order through views and indexing -------------------------------------
GRADCHECK = [
    lambda x: x[1:, ::2].t()[0],
    lambda x: x.view(4, 3)[[0, 3, 3]].flip(0),
    lambda x: x.expand(2, 3, 4).permute(2, 0, 1).reshape(4, 6)[:, 1:].diagonal(),
    lambda x: x.unbind(1)[2] * x.split([1, 3], 1)[1].sum(1),
    lambda x: x.gather(1, _tensor([[0, 0], [1, 3], [2, 2]])) ** 2,
    lambda x: x.clone().scatter_(0, _tensor([[2, 1, 0, 0]]), x[:1] * 3) ** 2,
    lambda x: x.index_select(1, _tensor([3, 0, 3])).cumsum(0) if hasattr(x, "cumsum") else x,
    lambda x: x.masked_select(x > 0.3) ** 2,
    lambda x: x.take(_tensor([0, 5, 5])) * x.take_along_dim(_tensor([[1], [2], [0]]), 1).sum(),
    lambda x: _copyslices(x),
    lambda x: x.tril(-1) + x.triu(1) * 2 + x.roll(1, 1) * x.repeat(1, 2)[:, 3:7],
    lambda x: x.index_put((_tensor([0, 0, 2]), _tensor([1, 1, 3])), x[1, :3] ** 2, accumulate=True),
    lambda x: x.scatter_reduce(0, _tensor([[2, 1, 0, 0]]), x[1:2] * 2, "mean") * x,
]


def _tensor(v):
    return taimatsu.tensor(v)


def _copyslices(x):
    y = x * 1
    y[1:, 1] = y[0, :2].clone() ** 2
    y.t()[0].mul_(y[2, 0].clone())
    y[:, 2:].exp_()
    return y


@pytest.mark.parametrize("i", range(len(GRADCHECK)))
def test_gradcheck(i):
    fn = GRADCHECK[i]
    x = (taimatsu.arange(12, dtype=taimatsu.float64).view(3, 4) * 0.13 - 0.4).requires_grad_()
    assert taimatsu.autograd.gradcheck(fn, (x,))
    assert taimatsu.autograd.gradgradcheck(fn, (x,))


def test_forward_ad_through_views():
    same(
        "fwAD = T.autograd.forward_ad\n"
        "x = T.arange(12., dtype=T.float64).view(3, 4); t = _cot(T, 12).view(3, 4)\n"
        "with fwAD.dual_level():\n"
        "    d = fwAD.make_dual(x, t)\n"
        "    outs = [d[1:, ::2], d.t()[0], d[[0, 2]], d.gather(1, T.tensor([[1], [0], [3]])), d.index_select(0, T.tensor([2])),\n"
        "            d.reshape(-1), d.t().reshape(-1), d.unbind(1)[2], d.expand(2, 3, 4), d.take(T.tensor([3, 1])), d.flip(0)]\n"
        "    out = [fwAD.unpack_dual(o).tangent for o in outs]"
    )
