"""Views and shape ops against PyTorch: memory sharing, version counters, strides, grad_fn chains,
CopySlices, in-place checks. (Subscripts, gather/scatter and friends: test_indexing.py.)

Most cases are small snippets run twice, once with ``T = torch`` and once with
``T = taimatsu``; the value left in ``out`` is reduced to plain data (tensor values, dtype,
shape, grad_fn names, exception type + message) and must be equal (views_indexing_helpers.py).
"""

from __future__ import annotations

import re

import pytest
from views_indexing_helpers import same

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


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
    "x = T.tensor(2., requires_grad=True); y = x.movedim(0, -1); out = [y, y.grad_fn.name(), y._base is x, T.moveaxis(x, [0], [0]).grad_fn.name()]",
    "xs = [T.ones(1, 3).t(), T.ones(3, 1).t(), T.arange(6.).as_strided((2, 1, 3), (3, 100, 1)), T.arange(6.).as_strided((2, 1, 3), (3, 0, 1)), T.ones(1, 1, 3).permute(2, 0, 1), T.ones(4, 6)[:, ::2]]; out = [(c.stride(), c) for c in (x.clone() for x in xs)]",
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
    "out = T.ones(2, 3).movedim([0, -2], [0, 1])",
    "out = T.tensor(1.).movedim([0, -1], [0, 0])",
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
        "names = [None if t.grad_fn is None else t.grad_fn.name() for t in ys]\n"
        "out = (ys, gx, names, [t.is_contiguous() for t in ys], [t.stride() for t in ys])"
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
    same(f"a = (T.arange(6.).view(2, 3) * 1).requires_grad_()\nb = a * 1\nout = nodes({on_b})")
    same(f"a = T.arange(6.).view(2, 3).clone().requires_grad_()\nout = nodes({expr})")


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
    same(code)


AS_STRIDED_OF_DTYPE_VIEWS = [
    "T.arange(8, dtype=T.float32).view(T.int16).as_strided((16,), (1,))",
    "T.arange(8, dtype=T.float32).view(T.int16).as_strided((17,), (1,))",
    "T.arange(8, dtype=T.float32).view(T.float64).as_strided((4,), (1,))",
    "T.arange(8, dtype=T.float32).view(T.float64).as_strided((5,), (1,))",
    "T.arange(8, dtype=T.float32)[2:].view(T.int8).as_strided((32,), (1,), 0)",
    "T.arange(8, dtype=T.float32)[2:].view(T.int8).as_strided((33,), (1,), 0)",
    "T.arange(8, dtype=T.float32)[1:].view(T.uint8).as_strided((2, 3), (5, 9), 3)",
]


@pytest.mark.parametrize("expr", AS_STRIDED_OF_DTYPE_VIEWS)
def test_as_strided_of_dtype_view(expr):
    """After ``view(dtype)`` the storage is counted in bytes: as_strided over all of it is allowed,
    one element more is refused (it read past the storage before), and the values are the bytes'."""
    import taimatsu

    def run(T):
        try:
            return eval(expr, {"T": T}).tolist()
        except RuntimeError as e:
            return str(e)

    assert run(taimatsu) == run(torch)
