"""The autograd engine and its public API, against PyTorch as the oracle.

Most cases are snippets run under both libraries (tests/autograd/autograd_oracle.py): what they print,
raise and warn must match. The rest check what a transcript cannot show: gradients with
random cotangents, memory released after backward, a 10,000-op chain, no aliasing of .grad.
"""

import gc
import weakref

import numpy as np
import pytest
from autograd_oracle import assert_same

import taimatsu

torch = pytest.importorskip("torch")

SNIPPETS = {
    "rg_errors": """
x = torch.ones(3, requires_grad=True)
y = x * 2
try: y.requires_grad_(False)
except RuntimeError as e: print(e)
try: torch.ones(3, dtype=torch.long).requires_grad_()
except RuntimeError as e: print(e)
try: torch.ones(3, dtype=torch.long, requires_grad=True)
except RuntimeError as e: print(e)
print(y.requires_grad_(True) is y, y.is_leaf, x.is_leaf, torch.ones(2).is_leaf)
z = torch.ones(2); z.requires_grad = True; print(z)
print(y.grad_fn.name(), y.grad_fn.next_functions)
print(x.grad_fn)
""",
    "nonleaf_grad": """
x = torch.ones(3, requires_grad=True)
y = x * 2
print(y.grad)
y.retain_grad(); print(y.retains_grad)
y.sum().backward(); print(y.grad, x.grad)
""",
    "accum": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
(x*x).sum().backward(); print(x.grad)
(x*x).sum().backward(); print(x.grad)
x.grad.zero_(); (x**3).sum().backward(); print(x.grad)
x.grad = None; (x**3).sum().backward(); print(x.grad)
""",
    "grad_layout": """
# PyTorch's gradient layout contract: a dense leaf's .grad has the leaf's strides (stolen when the
# incoming gradient has them, else copied into them), any other leaf's is contiguous
a = torch.arange(24.).reshape(2, 3, 4)
dense = [a, a.transpose(0, 2), a.permute(1, 2, 0), a[:, ::2], a[..., :1].expand(2, 3, 4)]
dense.append(torch.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=torch.channels_last))
odd = [a[:, None].permute(3, 1, 0, 2), a[:0].transpose(0, 1)]  # size-1 and size-0 dims: copied
for loss, vs in ((lambda x: (x * x).sum(), dense), (lambda x: x.sum(), dense + odd),
                 (lambda x: x.reshape(-1).sin().sum(), dense)):
    for v in vs:
        x = v.detach().requires_grad_()
        loss(x).backward(); s = x.grad.stride(); loss(x).backward()
        print(x.stride(), s, x.grad.stride())
x = torch.ones(3, 4).t().requires_grad_(); g = torch.ones(3, 4).t()
x.backward(g); print(x.grad.stride(), x.grad.data_ptr() == g.data_ptr())
(x * x).sum().backward(create_graph=True); print(x.grad.stride(), x.grad.grad_fn.name())
x.grad = None; (x * x).sum().backward(create_graph=True)
print(x.grad.stride(), x.grad.grad_fn.name(), x.grad.grad_fn.next_functions[0])
w = torch.ones(4, 3).t().requires_grad_()
(torch.ones(5, 3) @ w).sum().backward(); print(w.grad.stride())
""",
    "double_backward_names": """
# the graph that create_graph records: PyTorch's mean_backward divides by a C++ Scalar
# (DivBackward1), sum/mean/squeeze backwards unsqueeze each reduced dim (UnsqueezeBackward0)
def names(t):
    out, todo = [], [t.grad_fn]
    while todo:
        n = todo.pop(0)
        if n is not None:
            out.append(n.name()); todo += [e[0] for e in n.next_functions]
    return out
F = torch.nn.functional
for f in (lambda x: x.mean(), lambda x: x.mean((0, 2)), lambda x: x.sum(2),
          lambda x: x.squeeze(), lambda x: x.squeeze((1, 3)), lambda x: (x * 1).squeeze_(1),
          lambda x: F.adaptive_avg_pool2d(x[0], 1), lambda x: F.adaptive_avg_pool1d(x[0, 0], 1)):
    x = torch.ones(2, 1, 3, 1, requires_grad=True)
    y = f(x)
    g, = torch.autograd.grad((y * torch.ones_like(y, requires_grad=True)).sum(), x, create_graph=True)
    print(names(g), g.shape)
""",
    "second_time_saved_indices": """
# nodes that save their indices (PyTorch's SavedVariables) cannot run twice without retain_graph
x = torch.arange(12.).reshape(3, 4).requires_grad_()
i = torch.tensor([[0, 2], [1, 1], [3, 0]])
for f in (lambda: x[[0, 2]], lambda: x[x > 5], lambda: x[:, torch.tensor([1, 3])], lambda: x[1:, 2],
          lambda: x.gather(1, i), lambda: x.index_select(1, i[0]), lambda: x.max(1).values,
          lambda: x.min(0, keepdim=True)[0], lambda: x.sort(1)[0], lambda: x.topk(2)[0],
          lambda: x.kthvalue(2, 1)[0], lambda: x.cummax(1)[0], lambda: x.median(1)[0],
          lambda: torch.nn.functional.embedding(i, x), lambda: x.amax(1), lambda: x.max()):
    s = f().sum()
    s.backward()
    try: s.backward(); print("ok")
    except RuntimeError as e: print(str(e)[:60])
""",
    "gradient_kw": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * x
g = torch.tensor([0.1, 1., 10.])
y.backward(gradient=g); print(x.grad, x.grad is g)
try: y.backward()
except RuntimeError as e: print(e)
y = x * x
try: y.backward()
except RuntimeError as e: print(e)
try: y.backward(torch.ones(2))
except RuntimeError as e: print(e)
try: torch.ones(3).sum().backward()
except RuntimeError as e: print(e)
""",
    "second_time": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x * x).sum()
y.backward()
try: y.backward()
except RuntimeError as e: print(e)
y = (x + x).sum()
y.backward(); y.backward(); print(x.grad)
z = x.exp().sum()
z.backward(retain_graph=True); z.backward(); print(x.grad)
""",
    "alias": """
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
(a + b).sum().backward()
print(a.grad is b.grad, a.grad, b.grad)
a.grad.add_(1); print(b.grad)
x = torch.tensor([1., 2.], requires_grad=True)
g = torch.tensor([1., 1.])
x.backward(g); print(x.grad is g); g.add_(5); print(x.grad)
""",
    "autograd_grad": """
x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.], requires_grad=True)
y = (x * x).sum()
try: torch.autograd.grad(y, [x, w])
except RuntimeError as e: print(e)
y = (x * x).sum()
print(torch.autograd.grad(y, [x, w], allow_unused=True))
y = (x * x).sum()
print(torch.autograd.grad(y, [x, w], materialize_grads=True))
try: torch.autograd.grad(y, torch.ones(2))
except RuntimeError as e: print(e)
y = (x * x).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
(h,) = torch.autograd.grad(g.sum(), x)
print(h, x.grad)
""",
    "hvp": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x ** 3).sum() + (x[0] * x[1])
g, = torch.autograd.grad(y, x, create_graph=True)
v = torch.tensor([1., -1., 2.])
hv, = torch.autograd.grad(g, x, grad_outputs=v)
print(hv)
y = (x.sin() * x).sum()
y.backward(create_graph=True)
print(x.grad)
gx = x.grad
x.grad = None
gx.sum().backward()
print(x.grad)
""",
    "hooks": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
h = x.register_hook(lambda g: g * 2)
(x * x).sum().backward(); print(x.grad)
h.remove(); x.grad = None
(x * x).sum().backward(); print(x.grad)
x.grad = None
y = x * 3
y.register_hook(lambda g: print("y hook", g))
y.register_hook(lambda g: g + 1)
y.sum().backward(); print(x.grad)
y = torch.ones(2)
try: y.register_hook(lambda g: g)
except RuntimeError as e: print(e)
""",
    "node_hooks": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x.exp()
def posthook(gi, go): print("post", gi, go)
def prehook(go): print("pre", go); return (go[0] * 10,)
h1 = y.grad_fn.register_hook(posthook)
h2 = y.grad_fn.register_prehook(prehook)
y.sum().backward(retain_graph=True); print(x.grad)
h1.remove(); h2.remove(); x.grad=None
y.sum().backward(); print(x.grad)
""",
    "grad_modes": """
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
    with torch.enable_grad():
        z = x * 2
print(y.requires_grad, z.requires_grad, torch.is_grad_enabled())
@torch.no_grad()
def f(a): return a * 2
print(f(x).requires_grad)
@torch.no_grad
def f2(a): return a * 2
print(f2(x).requires_grad)
torch.set_grad_enabled(False); print((x*2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False): print((x*2).requires_grad)
print(torch.is_grad_enabled())
@torch.enable_grad()
def g(a): return a * 2
with torch.no_grad(): print(g(x).requires_grad)
with torch.inference_mode():
    w = x * 2
    print(w.requires_grad, w.is_inference(), torch.is_inference_mode_enabled())
print(w.is_inference(), x.is_inference())
try: w.requires_grad_()
except RuntimeError as e: print(e)
try: w.add_(1)
except RuntimeError as e: print(e)
with torch.inference_mode(False):
    print((x*2).requires_grad)
@torch.inference_mode()
def h(a): return a*2
print(h(x).is_inference())
""",
    "detach_data": """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
d = y.detach(); print(d.requires_grad, d._version, y._version)
d.add_(1); print(y, d._version, y._version)
e = y.data; e.add_(1); print(y, e._version, y._version)
print(x.data.requires_grad, x.data.is_leaf)
z = x * 3
z.detach_(); print(z.requires_grad, z.grad_fn, z.is_leaf)
""",
    "version": """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.exp()
z = y * 1
y.add_(1)
print(y._version, y.grad_fn)
try: y.sum().backward()
except RuntimeError as e: print(e)
x = torch.tensor([1., 2.], requires_grad=True)
y = x.exp()
y.add_(1)
try: y.sum().backward()
except RuntimeError as e: print(e)
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 1
c = b.sin()
b.mul_(2)
try: c.sum().backward()
except RuntimeError as e: print(e)
""",
    "diamond": """
x = torch.tensor([1., 2.], requires_grad=True)
a = x * 2
b = a.exp()
c = a.sin()
d = (b + c).sum() + (a * a).sum()
d.backward(); print(x.grad)
x.grad = None
y1 = (x*x).sum(); y2 = (x*3).sum()
torch.autograd.backward([y1, y2]); print(x.grad)
x.grad = None
torch.autograd.backward([x*x, x*3], [torch.tensor([1., 0.5]), torch.tensor([2., 2.])]); print(x.grad)
""",
    "inputs_kw": """
x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.], requires_grad=True)
y = (x * w).sum()
y.backward(inputs=[x]); print(x.grad, w.grad)
m = x * 2
y = (m * w).sum()
y.backward(inputs=[m]); print(m.grad, x.grad, w.grad)
""",
    "variable": """
Variable = torch.autograd.Variable
v = Variable(torch.ones(2), requires_grad=True)
print(v, type(v).__name__, isinstance(v, Variable))
""",
}

SNIPPETS.update(
    {
        "hvp_grad_only": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x ** 3).sum() + (x[0] * x[1])
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
v = torch.tensor([1., -1., 2.])
hv, = torch.autograd.grad(g, x, grad_outputs=v)
print(hv)
""",
        "grad_errors": """
x = torch.tensor([1., 2.], requires_grad=True)
w = torch.ones(2, requires_grad=True)
for f in [
    lambda: torch.autograd.grad((x * x).sum(), w),
    lambda: torch.autograd.grad((x * x).sum(), [x, w, w]),
    lambda: torch.autograd.grad((x * x).sum(), []),
    lambda: torch.autograd.grad((x * x).sum(), [1]),
    lambda: torch.autograd.grad(x * x, x),
    lambda: torch.autograd.grad((x * x).sum(), x, torch.ones(3)),
    lambda: torch.autograd.grad((x * x).sum(), x, torch.ones((), dtype=torch.complex64)),
    lambda: torch.autograd.grad((x * x).sum(), x, torch.ones((), dtype=torch.float64)),
    lambda: torch.autograd.grad((x * x).sum(), x, torch.ones((), dtype=torch.long)),
    lambda: torch.autograd.grad((x * 1j).sum(), x),
    lambda: torch.autograd.grad(x.sum().long(), x),
    lambda: torch.autograd.grad((x * x).sum(), [x, w], allow_unused=False, materialize_grads=True),
    lambda: torch.autograd.grad((x * x).sum(), [x, x]),
    lambda: torch.autograd.grad(x, x, torch.ones(2)),
    lambda: torch.autograd.grad((x * x).sum(), x, only_inputs=False),
    lambda: torch.autograd.backward((x * 2).sum(), [3.0]),
    lambda: (x * 2).backward(torch.ones(2, dtype=torch.float64)),
    lambda: (x * x).sum().backward(inputs=[]),
    lambda: (x * x).sum().backward(inputs=[torch.ones(2)]),
]:
    try: print(f())
    except Exception as e: print(type(e).__name__, e)
""",
        "grad_wrt_intermediate": """
x = torch.tensor([1., 2.], requires_grad=True)
z = x.exp()
y = (z * z).sum()
print(torch.autograd.grad(y, z, retain_graph=True))
print(torch.autograd.grad(y, [z, x], retain_graph=True))
print(torch.autograd.grad(z, z, torch.ones(2)))
print(x.grad)
""",
        "retain_grad_in_grad": """
x = torch.tensor([1., 2.], requires_grad=True)
m = x * 2; m.retain_grad(); z = (m * m).sum()
print(torch.autograd.grad(z, x, retain_graph=True), m.grad)
z.backward(inputs=[x]); print(m.grad, x.grad)
""",
        "hooks_on_captured": """
x = torch.tensor([1., 2.], requires_grad=True)
x.register_hook(lambda g: g * 10)
m = x * 3
m.register_hook(lambda g: g + 1)
y = (m * m).sum()
print(torch.autograd.grad(y, [m], retain_graph=True))
print(torch.autograd.grad(y, [x], retain_graph=True))
print(torch.autograd.grad(y, [m, x], retain_graph=True))
y.backward(); print(x.grad)
""",
        "hook_order_and_multiple": """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
y.retain_grad()
y.register_hook(lambda g: print("h1", g) or g * 2)
y.register_hook(lambda g: print("h2", g))
h = y.register_hook(lambda g: g * 100)
h.remove()
(y * y).sum().backward()
print(y.grad, x.grad)
""",
        "requires_grad_props": """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.detach()
print(y.requires_grad, y.is_leaf, y.grad_fn)
y.requires_grad_()
print(y.requires_grad, y.is_leaf)
z = (x * 2).detach().requires_grad_()
print(z.is_leaf, z.grad_fn, z)
print(x.sum().requires_grad, (x > 1).requires_grad, x.argmax().requires_grad)
a = torch.ones(2, dtype=torch.complex64).requires_grad_(); print(a.requires_grad)
w = torch.ones(2, dtype=torch.long)
try: w.requires_grad = True
except RuntimeError as e: print(e)
""",
        "version_counter": """
x = torch.ones(3)
print(x._version)
x.add_(1); x.mul_(2); print(x._version)
v = x[1:]; v.add_(1); print(x._version, v._version)
d = x.detach(); d.add_(1); print(x._version)
e = x.data; e.add_(1); print(x._version, e._version)
""",
        "index_tensor_modified": """
# IndexBackward0 saves the index tensors: changing one before backward raises the version error
x = torch.randn(5, 3, requires_grad=True)
for make in (lambda i: x[i], lambda i: x[i, 1:], lambda i: x[:, i[:2] % 3], lambda i: x[None, i]):
    i = torch.tensor([0, 2, 4])
    y = make(i)
    i[0] = 1
    try: y.sum().backward(); print(x.grad)
    except RuntimeError as e: print(e)
m = torch.tensor([True, False, True, False, True])
y = x[m]
m.logical_not_()
try: y.sum().backward()
except RuntimeError as e: print(e)
i = torch.tensor(1)
y = x[i]
i.add_(0)
y.sum().backward(); print(x.grad)
""",
        "modified_tensor_type_names": """
# the message names types without a legacy tensor name as CPU<Scalar>Type
for dt in (torch.bool, torch.int32, torch.uint16, torch.bfloat16, torch.complex64):
    x = torch.ones(2, requires_grad=True, dtype=torch.complex128 if dt.is_complex else torch.float64)
    a = torch.ones(2, dtype=dt)
    y = x * a
    a.logical_not_() if dt == torch.bool else a.fill_(1)
    try: y.sum().abs().backward()
    except RuntimeError as e: print(e)
""",
        "saved_output_modified": """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.sigmoid()
y.mul_(2)
try: y.sum().backward()
except RuntimeError as e: print(e)
x = torch.tensor([1., 2.], requires_grad=True)
y = x.exp()
z = y.sum()
y.add_(1)
try: z.backward(); print(x.grad)
except RuntimeError as e: print(e)
x = torch.tensor([1., 2.], requires_grad=True)
w = torch.ones(2, requires_grad=True)
a = x * 1
y = a * w
a.zero_()
try: y.sum().backward()
except RuntimeError as e: print(e)
""",
        "shared_subexpr": """
x = torch.tensor([0.5, -1.5], requires_grad=True)
s = x.sin()
y = s * s + s.exp() * s
y.backward(torch.tensor([1.5, -2.0]))
print(x.grad)
""",
        "multiple_roots_shared_graph": """
x = torch.tensor([0.5, -1.5], requires_grad=True)
h = x.tanh()
a = (h * 3).sum(); b = (h * h).sum()
torch.autograd.backward([a, b])
print(x.grad)
""",
        "grad_set": """
x = torch.ones(2, requires_grad=True)
try: x.grad = torch.ones(3)
except RuntimeError as e: print(e)
try: x.grad = torch.ones(2, dtype=torch.float64)
except RuntimeError as e: print(e)
try: x.grad = 3
except Exception as e: print(type(e).__name__, e)
x.grad = torch.full((2,), 5.)
(x * 2).sum().backward(); print(x.grad)
""",
        "leaf_inplace_errors": """
x = torch.ones(2, requires_grad=True)
try: x.add_(1)
except RuntimeError as e: print(e)
try: x[0] = 5
except RuntimeError as e: print(e)
with torch.no_grad(): x.add_(1)
print(x)
""",
        "post_accumulate_grad_hooks": """
x = torch.ones(2, requires_grad=True)
for f in [lambda: (x * 2).register_post_accumulate_grad_hook(print),
          lambda: torch.ones(2).register_post_accumulate_grad_hook(print)]:
    try: f()
    except RuntimeError as e: print(e)
print(x._post_accumulate_grad_hooks)
h = x.register_post_accumulate_grad_hook(lambda p: print("after", p.grad))
x.register_hook(lambda g: print("before", g) or g * 3)
(x * 2).sum().backward(); h.remove(); (x * 2).sum().backward(); print(x.grad)
print(type(x._post_accumulate_grad_hooks).__name__, len(x._post_accumulate_grad_hooks))
y = torch.ones(2, requires_grad=True); y.register_post_accumulate_grad_hook(lambda p: print("y", p.grad))
print(torch.autograd.grad((y * 2).sum(), y))  # no accumulation: no call
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opts = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}
def step(p):
    opts[p].step(); opts[p].zero_grad()
for p in model.parameters(): p.register_post_accumulate_grad_hook(step)
model(torch.randn(4, 3)).sum().backward()
print([p.grad for p in model.parameters()], model.bias)
for bad in [lambda p: p.grad * 2, lambda p: 5]:
    z = torch.ones(2, requires_grad=True); z.register_post_accumulate_grad_hook(bad)
    try: z.sum().backward()
    except Exception as e: print(type(e).__name__, e)
""",
        "grad_mode_reprs": """
print(repr(torch.set_grad_enabled(True)), repr(torch.set_grad_enabled(False)))
torch.set_grad_enabled(True)
""",
        "mm_grad_layout_size1_dims": """
# matmul's backward computes a column-major operand's gradient in its layout (PyTorch's test:
# strides (1, rows), which a matrix with a size-1 dimension can pass): Linear(n, 1) and Linear(1, n)
for i, o in ((3, 1), (1, 3), (1, 1)):
    lin = torch.nn.Linear(i, o); lin(torch.ones(4, i)).sum().backward()
    print(lin.weight.grad.stride(), lin.bias.grad.stride(), lin.weight.grad.flatten().tolist())
for a, b in (((1, 4), (1, 2)), ((4, 1), (4, 2)), ((1, 1), (1, 3)), ((3, 1), (3, 1))):
    m1 = torch.ones(a).t().requires_grad_(); m2 = torch.ones(b).requires_grad_()
    (m1 @ m2).sum().backward(); m3 = torch.ones(b[::-1]).t().requires_grad_()
    (torch.ones(2, b[0]) @ m3).sum().backward(); print(m1.grad.stride(), m2.grad.stride(), m3.grad.stride())
""",
        "grad_layout_size1_dims": """
# .grad's strides on size-1 dims: PyTorch keeps an incoming gradient that obeys the layout contract
# (strides of size-1 dims do not count, a zero one does) and nobody else holds, else copies it
# into the leaf's strides
def show(x): print(tuple(x.shape), x.grad.stride(), x.grad.flatten()[:4].tolist())
def leaf(v): return v.detach().clone(memory_format=torch.preserve_format).requires_grad_() if v.is_contiguous() else v.detach().requires_grad_()
a = torch.arange(1., 7.)
leaves = [a[:3].reshape(1, 3), a[:3].reshape(3, 1), a[:3].reshape(1, 3, 1), a[0], a[:0].reshape(0, 3),
          a[:0].reshape(3, 0, 1), a.reshape(2, 3).t()[:1], a.reshape(1, 2, 3).permute(2, 0, 1),
          a.reshape(2, 1, 3), torch.arange(1., 25.).reshape(2, 3, 1, 4).contiguous(memory_format=torch.channels_last),
          torch.arange(1., 7.).reshape(1, 3, 2, 1).contiguous(memory_format=torch.channels_last),
          a[:1].reshape(1, 1).expand(1, 3), a[:3].reshape(1, 3).t().contiguous().t()]
c = torch.tensor(2.)
losses = [lambda x: (x.t() * 2).sum() if x.dim() == 2 else (x * 2).sum(),
          lambda x: (x.mT * c).sum() if x.dim() >= 2 else x.sum(),
          lambda x: (x.movedim(0, -1) ** 2).sum() if x.dim() else x * 4, lambda x: x.sum(),
          lambda x: (x.flip(-1) * 3).sum() if x.dim() else x * 3,
          lambda x: torch.cat([x.movedim(-1, 0)] * 2).mul(c).sum() if x.numel() > 1 else x.sum(),
          lambda x: (x.reshape(-1) * 1).sum()]
for v in leaves:
    for loss in losses:
        x = leaf(v)
        loss(x).backward(retain_graph=True); show(x)
        loss(x).backward(); print(x.grad.stride())
# the user's gradient, a gradient handed to two leaves, hooks, create_graph, a .grad set beforehand
x = torch.ones(1, 3).requires_grad_(); g = torch.ones(3, 1).t()
x.backward(g); print(x.grad.stride(), x.grad.data_ptr() == g.data_ptr())
x.grad = None; x.backward(g * 1); print(x.grad.stride())
x.grad = None; x.backward(torch.ones(3, 1).t() * 1); print(x.grad.stride())
x = torch.ones(1, 3).requires_grad_(); y = torch.ones(1, 3).requires_grad_()
(x + y).t().mul(2).t().sum().backward(); print(x.grad.stride(), y.grad.stride())
x = torch.ones(1, 3).requires_grad_(); h = x.register_hook(lambda g: torch.full((3, 1), 5.).t())
(x * 2).sum().backward(); show(x); h.remove()
kept = []
x = torch.ones(1, 3).requires_grad_(); h = x.register_hook(lambda g: kept.append(g.t().clone().t()) or kept[-1])
x.t().sum().backward(); show(x)
x = torch.ones(1, 3).requires_grad_(); (x.t() * x.t()).sum().backward(create_graph=True); show(x)
print(x.grad.grad_fn.name()); (x.t() ** 3).sum().backward(create_graph=True); show(x)
x = torch.ones(3, 1).requires_grad_(); x.grad = torch.zeros(1, 3).t(); (x.t() * 2).sum().backward(); show(x)
x.grad = torch.zeros(1, 3).t(); (x.t() * 2).sum().backward(create_graph=True); show(x)
x = torch.ones(1, 3).requires_grad_(); x.grad = torch.zeros(3, 1).t(); (x.t() * 2).sum().backward(); show(x)
x = torch.ones(2, 1, 3).requires_grad_(); g = torch.ones(2, 3, 5)[..., :1].permute(0, 2, 1) * 2
x.backward(g); show(x)
x = torch.ones(2, 1, 3).requires_grad_(); x.backward(torch.ones(2, 1, 1).expand(2, 1, 3) * 1); show(x)
x = torch.ones(1, 3).requires_grad_(); x.backward(torch.ones(1).expand(1, 3)); show(x)
x = torch.ones(1, 3).requires_grad_(); gx, = torch.autograd.grad((x.t() * 2).sum(), x); print(gx.stride())
x = torch.ones(1, 3).requires_grad_(); h = x.register_hook(lambda g: torch.ones(3).expand(1, 3) * 1)
(x * 2).sum().backward(); show(x); x.grad = None; h.remove()
h = x.register_hook(lambda g: torch.ones(3).expand(1, 3)); (x * 2).sum().backward(); show(x)
# the order in which leaves' hooks run (ties among AccumulateGrad nodes: the order they became ready)
order = []
ls = [torch.ones(1, 3).requires_grad_() for _ in range(3)]
for i, t in enumerate(ls): t.register_hook(lambda g, i=i: order.append(i))
torch.cat(ls).sum().backward(); (ls[0] + ls[1]).sum().backward(); (ls[2] * ls[1]).sum().backward(); print(order)
""",
    }
)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet(name):
    assert_same(SNIPPETS[name])


# ---- gradients with random cotangents -------------------------------------------------------
def _both(fn, *shapes, seed=0):
    """Gradients of fn(*inputs) w.r.t. the inputs, with a random cotangent, in both libraries."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for mod in (torch, taimatsu):
        xs = [mod.tensor(a, requires_grad=True) for a in arrays]
        out = fn(mod, *xs)
        cot = mod.tensor(np.random.default_rng(seed + 1).standard_normal(tuple(out.shape)))
        gs = mod.autograd.grad(out, xs, cot)
        results.append([g.detach().numpy() for g in gs])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize(
    "fn,shapes",
    [
        (lambda t, a, b: (a * b).exp() + a.sin() * b, [(3, 4), (4,)]),
        (lambda t, a, b: a @ b.tanh(), [(2, 3), (3, 5)]),
        (lambda t, a: a * a + a.sum(0) * a, [(4, 3)]),
        (lambda t, a, b: (a - b).pow(2).sum(1), [(5, 1), (1, 5)]),
    ],
)
def test_random_cotangent_grads(fn, shapes):
    _both(fn, *shapes)


def test_double_backward_random():
    rng = np.random.default_rng(3)
    xa, va = rng.standard_normal(4), rng.standard_normal(4)
    res = []
    for mod in (torch, taimatsu):
        x = mod.tensor(xa, requires_grad=True)
        y = (x.sin() * x.exp()).sum() + (x * x * x).prod()
        (g,) = mod.autograd.grad(y, x, create_graph=True)
        (hv,) = mod.autograd.grad(g, x, mod.tensor(va), create_graph=True)
        (h3,) = mod.autograd.grad(hv.sum(), x)
        res.append((g.detach().numpy(), hv.detach().numpy(), h3.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-6)


def test_backward_create_graph_stores_copy():
    x = taimatsu.tensor([1.0, 2.0], requires_grad=True)
    taimatsu.autograd.engine._create_graph_warned = False
    with pytest.warns(UserWarning, match="Using backward\\(\\) with create_graph=True"):
        (x.sin() * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    g = x.grad
    x.grad = None
    g.sum().backward()
    expected = torch.tensor([1.0, 2.0], requires_grad=True)
    (gt,) = torch.autograd.grad((expected.sin() * expected).sum(), expected, create_graph=True)
    gt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected.grad.numpy(), rtol=1e-6)


# ---- engine properties ------------------------------------------------------------------------
def test_long_chain_no_recursion():
    x = taimatsu.ones(3, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 1.0001**10_000), rtol=1e-3)


def test_intermediates_freed_after_backward():
    x = taimatsu.randn(1000, requires_grad=True)
    refs = []

    def f():
        a = x.exp()
        b = a.sin()
        c = (b * a).tanh()
        refs.extend(weakref.ref(t._data) for t in (a, b, c))
        return c.sum()

    loss = f()
    gc.disable()
    try:
        loss.backward()
        assert all(r() is None for r in refs)  # freed by refcounting alone: no cycles
    finally:
        gc.enable()


def test_grad_never_aliases():
    a = taimatsu.ones(2, requires_grad=True)
    b = taimatsu.ones(2, requires_grad=True)
    (a + b).sum().backward()
    assert a.grad is not b.grad and not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    g = taimatsu.ones(2)
    c = taimatsu.zeros(2, requires_grad=True)
    c.backward(g)
    assert c.grad is not g and not np.shares_memory(c.grad.numpy(), g.numpy())
    g.add_(1)
    assert c.grad.tolist() == [1.0, 1.0]


def test_fresh_gradient_is_stolen_not_copied():
    x = taimatsu.randn(5, requires_grad=True)
    y = x.exp() * 2
    ids = []
    y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: ids.append(id(gi[0])))
    y.sum().backward()
    assert id(x.grad) == ids[0]


def test_linear_gradients_are_kept_not_copied():
    """AddmmBackward0 computes the weight's gradient in the layout of ``weight.t()`` and
    TBackward0 transposes it back (PyTorch's mm_mat2_backward): AccumulateGrad keeps that array,
    and the bias's sum, without a copy."""
    lin = taimatsu.nn.Linear(5, 3)
    refs = []
    out = lin(taimatsu.randn(4, 5))  # grad_fn: AddmmBackward0
    out.grad_fn.register_hook(
        lambda gi, go: refs.extend([weakref.ref(gi[0]._data), weakref.ref(gi[2]._data.base)])
    )
    out.sum().backward()
    assert lin.bias.grad._data is refs[-2]()
    assert lin.weight.grad._data is refs[-1]()
    assert lin.weight.grad._data.flags.c_contiguous


def test_linear_without_bias_weight_gradient_is_kept():
    """MmBackward0 (linear without a bias) computes ``weight.t()``'s gradient in its layout too."""
    lin = taimatsu.nn.Linear(5, 3, bias=False)
    refs = []
    out = lin(taimatsu.randn(4, 5))  # grad_fn: MmBackward0
    out.grad_fn.register_hook(lambda gi, go: refs.append(weakref.ref(gi[1]._data.base)))
    out.sum().backward()
    assert lin.weight.grad._data is refs[0]()


def test_gradient_held_elsewhere_is_copied():
    """A transposed-back gradient whose array someone else still holds is copied into ``.grad``."""
    lin = taimatsu.nn.Linear(5, 3)
    held = []
    out = lin(taimatsu.randn(4, 5))
    out.grad_fn.register_hook(lambda gi, go: held.append(gi[2]))
    out.sum().backward()
    assert not np.shares_memory(held[0]._data, lin.weight.grad._data)
    np.testing.assert_array_equal(held[0]._data.T, lin.weight.grad._data)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_relu_backward_bits_match_pytorch(dtype):
    """ReLU's array backward (threshold_backward): +0 where the output is <= 0, the gradient
    elsewhere -- NaN outputs keep theirs, NaN and -0.0 gradients stay bit for bit."""
    x = np.array([0, -0.0, np.nan, 1, -1, 2, np.inf, -np.inf], dtype)
    g = np.array([np.nan, -1, 2, -np.inf, np.nan, -0.0, np.nan, 3], dtype)
    tx = taimatsu.tensor(x, requires_grad=True)
    tx.relu().backward(taimatsu.tensor(g))
    ox = torch.tensor(x, requires_grad=True)
    ox.relu().backward(torch.tensor(g))
    bits = f"i{x.itemsize}"
    np.testing.assert_array_equal(tx.grad.numpy().view(bits), ox.grad.numpy().view(bits))


def test_accumulate_in_place():
    x = taimatsu.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    assert x.grad is g and g.tolist() == [5.0, 5.0, 5.0]


def test_grad_modes_thread_local():
    import threading

    seen = []
    with taimatsu.no_grad():
        t = threading.Thread(target=lambda: seen.append(taimatsu.is_grad_enabled()))
        t.start()
        t.join()
        assert not taimatsu.is_grad_enabled()
    assert seen == [True]


def test_no_grad_on_generator():
    @taimatsu.no_grad()
    def gen():
        yield taimatsu.is_grad_enabled()
        yield taimatsu.is_grad_enabled()

    assert list(gen()) == [False, False]
    assert taimatsu.is_grad_enabled()


def test_inference_tensor_saved_error():
    x = taimatsu.ones(2, requires_grad=True)
    with taimatsu.inference_mode():
        w = x * 2
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * w


# ---- torch.autograd.functional ----------------------------------------------------------------
def _f1(t, x):
    return (x.sin() * x).sum() + (x**3).prod()


def _f2(t, x, y):
    return x.exp() * y.sum() + y[:2].tanh()


@pytest.mark.parametrize("what", ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"])
def test_functional_matches_torch(what):
    rng = np.random.default_rng(7)
    xa, ya, va = rng.standard_normal(2), rng.standard_normal(3), rng.standard_normal(2)
    res = []
    for mod in (torch, taimatsu):
        F = mod.autograd.functional
        x, y, v = mod.tensor(xa), mod.tensor(ya), mod.tensor(va)
        if what == "vjp":
            out = F.vjp(lambda a, b: _f2(mod, a, b), (x, y), v)  # noqa: B023
        elif what == "jvp":
            out = F.jvp(lambda a, b: _f2(mod, a, b), (x, y), (v, mod.tensor(ya[::-1].copy())))  # noqa: B023
        elif what == "jacobian":
            out = (
                F.jacobian(lambda a, b: _f2(mod, a, b), (x, y)),  # noqa: B023
                F.jacobian(lambda a: _f1(mod, a), x),  # noqa: B023
            )
        elif what == "hessian":
            out = (
                F.hessian(lambda a: _f1(mod, a), x),  # noqa: B023
                F.hessian(lambda a, b: (a * b[:2]).sum() ** 2, (x, y)),
            )
        else:
            out = getattr(F, what)(lambda a: _f1(mod, a), x, v)  # noqa: B023
        res.append(out)

    def flat(o):
        if isinstance(o, (tuple, list)):
            return [z for e in o for z in flat(e)]
        assert not o.requires_grad
        return [o.numpy()]

    a, b = flat(res[0]), flat(res[1])
    assert len(a) == len(b)
    for e, g in zip(a, b):
        assert e.shape == g.shape
        np.testing.assert_allclose(g, e, rtol=1e-7, atol=1e-12)


def test_functional_errors():
    F = taimatsu.autograd.functional
    x = taimatsu.ones(2)
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        F.vjp(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="independent of input 0"):
        F.vjp(lambda a: taimatsu.ones(2, requires_grad=True) * 2, x, taimatsu.ones(2), strict=True)
    assert F.vjp(lambda a: a.sum() * 0 + 1, x)[1].tolist() == [0.0, 0.0]


def test_functional_checks_and_structure_match_torch():
    """strict mode's output check, list outputs/inputs (not tuples), the strategy checks, and
    forward-mode's list-of-lists result, each as PyTorch (type and message, structure)."""

    def run(mod):
        F = mod.autograd.functional
        x, y = mod.tensor([0.5, 1.5]), mod.tensor([2.0, -1.0])
        cases = [
            lambda: F.jacobian(lambda a: mod.ones(2), x, strict=True),
            lambda: F.vjp(lambda a: mod.ones(2), x, mod.ones(2), strict=True),
            lambda: F.jvp(lambda a: mod.ones(2), x, mod.ones(2), strict=True),
            lambda: F.hessian(lambda a: mod.ones(()), x, strict=True),
            lambda: F.hessian(lambda a: (a * 2).sum(), x, strict=True),
            lambda: F.hvp(lambda a: mod.ones(()), x, mod.ones(2), strict=True),
            lambda: F.jacobian(lambda a: [a * 2], x),
            lambda: F.jacobian(lambda a: a.tolist(), x),
            lambda: F.jacobian(lambda a: a * 2, [x]),
            lambda: F.jacobian(lambda a: a * 2, x, strategy="sideways"),
            lambda: F.jacobian(lambda a: a * 2, x, strategy="forward-mode"),
            lambda: F.jacobian(
                lambda a: a * 2, x, strategy="forward-mode", vectorize=True, strict=True
            ),
            lambda: F.jacobian(
                lambda a: a * 2, x, strategy="forward-mode", vectorize=True, create_graph=True
            ),
            lambda: F.jacobian(lambda a: a * 2, x, vectorize=True, strict=True),
            lambda: F.hessian(lambda a: a.sum(), x, outer_jacobian_strategy="sideways"),
        ]
        out = []
        for case in cases:
            try:
                case()
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        fm = {"strategy": "forward-mode", "vectorize": True}
        two = lambda a, b: (a * b, a.exp())
        results = [
            F.jacobian(lambda a, b: a * b, (x, y), **fm),
            F.jacobian(two, (x, y), **fm),
            F.jacobian(lambda a: (a * 2, a.sum()), x, **fm),
            F.hessian(lambda a, b: (a * b).pow(2).sum(), (x, y), vectorize=True,
                      outer_jacobian_strategy="forward-mode"),
        ]  # fmt: skip

        def shape(o):
            if isinstance(o, (tuple, list)):
                return type(o).__name__, [shape(e) for e in o]
            return o.tolist()

        return out, [shape(r) for r in results]

    assert run(taimatsu) == run(torch)


def test_node_hook_sees_gradients_reduced_to_input_shapes():
    seen = []
    for L in (taimatsu, torch):
        a, b = L.ones(3, 1, requires_grad=True), L.ones(4, requires_grad=True)
        y = a * b + a
        got = []
        y.grad_fn.register_hook(lambda gi, go, got=got: got.append([tuple(g.shape) for g in gi]))
        y.grad_fn.next_functions[0][0].register_hook(
            lambda gi, go, got=got: got.append([tuple(g.shape) for g in gi])
        )
        y.sum().backward()
        seen.append(got)
    assert seen[0] == seen[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [5, 1 << 15])
def test_plain_backward_array_vjps_match_dispatch_and_torch(dtype, n):
    """mul/tanh/sigmoid VJPs compute on the arrays in a plain backward (no graph built): the
    same bits as their Tensor-op formulas (run under create_graph) and torch's gradients."""
    rng = np.random.default_rng(3)
    xa, wa, ga = (rng.standard_normal((4, n)).astype(dtype) for _ in range(3))
    grads = {}
    for L, create in ((taimatsu, False), (taimatsu, True), (torch, False)):
        x = L.tensor(xa, requires_grad=True)
        w = L.tensor(wa[:1], requires_grad=True)  # broadcast: w's gradient is summed
        y = ((x * w).tanh() * 0.5 + x).sigmoid() * x
        gx, gw = L.autograd.grad(y, (x, w), L.tensor(ga), create_graph=create)
        grads[L.__name__, create] = (gx.detach().numpy(), gw.detach().numpy())
    for plain, built in zip(grads["taimatsu", False], grads["taimatsu", True]):
        assert plain.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(plain, built)
    for ours, theirs in zip(grads["taimatsu", False], grads["torch", False]):
        tol = 1e-5 if dtype == "float32" else 1e-11  # summation orders differ (w's sum)
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
