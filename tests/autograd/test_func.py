"""torch.func (grad, vjp, jvp, jacrev, jacfwd, hessian, linearize, vmap, functional_call,
stack_module_state) and torch.vmap against PyTorch: each snippet runs under both libraries and
must print the same transcript (values, gradients, errors; see tests/autograd/autograd_oracle.py)."""

import numpy as np
import pytest
from autograd_oracle import assert_same

import taimatsu

PRELUDE = """
import warnings
warnings.filterwarnings("ignore", "Attempted to insert a get_attr")  # PyTorch's linearize traces with FX
F = torch.func  # an import statement would load real torch.func under both libraries
functional_call, grad, grad_and_value, hessian = F.functional_call, F.grad, F.grad_and_value, F.hessian
jacfwd, jacrev, jvp, linearize, vjp, vmap = F.jacfwd, F.jacrev, F.jvp, F.linearize, F.vjp, F.vmap
stack_module_state = F.stack_module_state
def tr(f):
    try: print(f())
    except Exception as e: print(type(e).__name__, ":", e)
x = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64)
y = torch.tensor([1.5, 0.25, -0.75], dtype=torch.float64)
"""

SNIPPETS = {
    "grad_basic": """
f = lambda a: (a.sin() * a).sum()
g = grad(f)(x); print(g, g.requires_grad)
print(grad_and_value(f)(x))
print(grad(lambda a, b: (a * b.exp()).sum(), argnums=1)(x, y))
print(grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(x, y))
print(grad(lambda a, b: (a * b.exp()).sum(), argnums=-1)(x, y))
print(grad(lambda a, b: (b * 2).sum())(x, y))
print(grad(lambda a: a['p'].pow(2).sum() + a['q'][0].sum())({'p': x, 'q': (y,)}))
print(grad(lambda a, k: (a * k).sum())(x, k=3.0))
print(grad(lambda a: (a.pow(3).sum(), a.cos()), has_aux=True)(x))
print(grad_and_value(lambda a: (a.pow(3).sum(), {'c': a.cos()}), has_aux=True)(x))
print(grad(lambda a: torch.tensor(3.0))(x))
""",
    "grad_composes": """
f = lambda a: (a.sin() * a).sum()
print(grad(lambda a: grad(f)(a).sum())(x))
print(grad(grad(lambda s: s.sin() * s ** 3))(torch.tensor(0.7, dtype=torch.float64)))
print(grad(grad(grad(lambda s: s.exp() * s ** 2)))(torch.tensor(0.3, dtype=torch.float64)))
w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
g = grad(lambda a: (a * a * w).sum())(x)
print(g.requires_grad)
g.sum().backward(); print(w.grad)
xr = x.clone().requires_grad_()
g = grad(lambda a: (a ** 3).sum())(xr)
print(g.requires_grad)
g.sum().backward(); print(xr.grad)
with torch.no_grad():
    g = grad(lambda a: (a ** 3).sum())(xr)
print(g, g.requires_grad)
""",
    "grad_errors": """
tr(lambda: grad(lambda a: a)(x))
tr(lambda: grad(lambda a: 3.0)(x))
tr(lambda: grad(lambda a: a.sum(), has_aux=True)(x))
tr(lambda: grad(lambda a: (a.sum(), 1, 2), has_aux=True)(x))
tr(lambda: grad(lambda a: (a.sum(), 3), has_aux=True)(x))
tr(lambda: grad(lambda a, b: a.sum(), argnums=2)(x, y))
tr(lambda: grad(lambda a, b: a.sum(), argnums=-3)(x, y))
tr(lambda: grad(lambda a, b: a.sum(), argnums=(0, 0))(x, y))
tr(lambda: grad(lambda a, b: a.sum(), argnums=())(x, y))
tr(lambda: grad(lambda a, b: a.sum(), argnums=1.0)(x, y))
tr(lambda: grad(lambda a, b: a.sum(), argnums=(0, 1.0))(x, y))
tr(lambda: grad(lambda a, b: a.sum())(3.0, y))
tr(lambda: grad(lambda a: a.sum())(torch.tensor([1, 2])))
tr(lambda: grad(lambda a: a.sum())())
""",
    "vjp": """
out, fn = vjp(lambda a, b: (a * b).sin(), x, y)
print(out); print(fn(torch.ones(3, dtype=torch.float64)))
print(fn(torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)))
out, fn = vjp(lambda a: (a.exp(), {'s': a.sum()}), x)
print(fn((y, {'s': torch.tensor(2.0, dtype=torch.float64)})))
out, fn, aux = vjp(lambda a: (a * 2, a.cos()), x, has_aux=True); print(out, aux, fn(y))
out, fn = vjp(lambda a, b: b * 2, x, y); print(fn(x))
tr(lambda: vjp(lambda a: 3.0, x))
tr(lambda: vjp(lambda a: a, x)[1](torch.ones(2)))
tr(lambda: vjp(lambda a: a, x)[1]((torch.ones(3),)))
tr(lambda: vjp(lambda a: (a, a), x)[1](torch.ones(3)))
tr(lambda: vjp(lambda a: a, 3.0))
tr(lambda: vjp(lambda a: a, x, has_aux=True))
tr(lambda: vjp(lambda a: (a.sin(), a.argmax()), x))
tr(lambda: jacrev(lambda a: a.argmax())(x))
print(jvp(lambda a: (a.sin(), a.argmax()), (x,), (y,)))
z = torch.tensor([1 + 2j, -0.5 + 1j], dtype=torch.complex128)
print(grad(lambda a: (a * a.conj()).real.sum())(z), grad(lambda a: a.abs().sum())(z))
print(vmap(jacrev(lambda a: a.softmax(0)))(torch.tensor([[3.0, 1.0], [0.0, 5.0]])))
""",
    "jvp_linearize": """
print(jvp(lambda a: a.sin() * a, (x,), (y,)))
print(jvp(lambda a, b: (a * b, a.exp()), (x, y), (y, x)))
print(jvp(lambda a, b: b * 2, (x, y), (x, y)))
print(jvp(lambda a: (a.sin(), a * 3), (x,), (y,), has_aux=True))
out, fn = linearize(lambda a: a.sin() * a.sum(), x); print(out, fn(y), fn(x))
tr(lambda: jvp(lambda a: a, x, y))
tr(lambda: jvp(lambda a: a, [x], [x]))
tr(lambda: jvp(lambda a: a, (x,), (y, y)))
tr(lambda: jvp(lambda a: a, (x,), (torch.ones(2),)))
tr(lambda: jvp(lambda a: 3.0, (x,), (y,)))
tr(lambda: jvp(lambda a: a, (x,), (y,), has_aux=True))
tr(lambda: jvp(lambda a: a, (torch.tensor([1, 2]),), (torch.tensor([1, 2]),)))
tr(lambda: linearize(lambda a: a.sin(), x)[1](y, y))
tr(lambda: linearize(lambda a: a.sin(), x)[1](torch.ones(2)))
""",
    "jacobians": """
f = lambda a: a.sin() * a.sum()
print(jacrev(f)(x)); print(jacfwd(f)(x))
g = lambda a, b: (a * b.exp(), (a @ b).reshape(1))
print(jacrev(g, argnums=(0, 1))(x, y)); print(jacfwd(g, argnums=(0, 1))(x, y))
print(jacrev(lambda a: (a, {'k': a * 2}))(x))
print(jacrev(lambda d: d['u'] * d['v'])({'u': x, 'v': y}))
print(jacfwd(lambda d: d['u'] * d['v'])({'u': x, 'v': y}))
print(jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(x))
print(jacfwd(lambda a: (a.exp(), a.sum()), has_aux=True)(x))
print(jacrev(lambda m: m @ m)(torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)).shape)
print(jacrev(lambda a, b: b * 2)(x, y))
h = lambda a: (a.sin() * a.pow(2)).sum() * a.prod()
print(hessian(h)(x))
print(jacrev(jacrev(h))(x)); print(jacfwd(jacfwd(h))(x)); print(jacrev(jacfwd(h))(x))
print(hessian(lambda a, b: (a * b).pow(2).sum(), argnums=(0, 1))(x, y))
tr(lambda: jacrev(lambda a: 3.0)(x))
tr(lambda: jacfwd(lambda a: 3.0)(x))
tr(lambda: jacrev(lambda a: a, has_aux=True)(x))
tr(lambda: jacfwd(lambda a: a, has_aux=True)(x))
tr(lambda: jacrev(lambda a: a, argnums=3)(x))
tr(lambda: jacrev(lambda a: a, chunk_size=0)(x))
for r in ('error', 'same', 'different', 'foo'):
    tr(lambda: jacfwd(lambda a: a + torch.rand(3, dtype=torch.float64), randomness=r)(x))
tr(lambda: jacrev(lambda a: a + torch.rand(3, dtype=torch.float64))(x))
tr(lambda: hessian(lambda a: (a + torch.rand(3, dtype=torch.float64)).sum())(x))
""",
    "tutorial_jacobians": """
torch.manual_seed(0)
D = 4
weight = torch.randn(D, D, dtype=torch.float64); bias = torch.randn(D, dtype=torch.float64)
xs = torch.randn(3, D, dtype=torch.float64)
def predict(weight, bias, v):
    return torch.nn.functional.linear(v, weight, bias).tanh()
print(jacrev(predict, argnums=2)(weight, bias, xs[0]))
print(jacfwd(predict, argnums=2)(weight, bias, xs[0]))
ws, bs = jacrev(predict, argnums=(0, 1))(weight, bias, xs[0]); print(ws.shape, bs)
print(vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xs))
print(vmap(jacfwd(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xs).shape)
print(hessian(predict, argnums=2)(weight, bias, xs[0])[0])
print(jacfwd(jacrev(predict, argnums=2), argnums=2)(weight, bias, xs[0]).shape)
""",
    "per_sample_cnn": """
torch.manual_seed(0)
class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 3, 3); self.fc = torch.nn.Linear(3 * 2 * 2, 4)
    def forward(self, v):
        v = torch.nn.functional.max_pool2d(self.conv(v).relu(), 2)
        return torch.nn.functional.log_softmax(self.fc(v.flatten(1)), dim=1)
model = CNN().double()
data = torch.randn(5, 1, 6, 6, dtype=torch.float64); targets = torch.tensor([0, 3, 1, 2, 3])
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
def compute_loss(params, buffers, sample, target):
    predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return torch.nn.functional.nll_loss(predictions, target.unsqueeze(0))
grads = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
print({k: tuple(v.shape) for k, v in grads.items()})
print(grads['fc.bias'])
ok = True
for i in range(5):
    model.zero_grad()
    torch.nn.functional.nll_loss(model(data[i:i+1]), targets[i:i+1]).backward()
    ok = ok and all(torch.allclose(grads[k][i], p.grad) for k, p in model.named_parameters())
print(ok)
""",
    "vmap_basic": """
X = torch.arange(12.0, dtype=torch.float64).reshape(3, 4) / 7
Y = torch.arange(8.0, dtype=torch.float64).reshape(4, 2) - 3
print(vmap(torch.dot)(X, X.flip(0)))
print(vmap(lambda a, b: a * b, in_dims=(1, None))(X, X[:, 0]))
print(vmap(lambda a, b: a @ b, in_dims=(0, None))(X, Y))
print(vmap(lambda a: a.sum(0), in_dims=-1)(Y))
print(vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(X))
print(vmap(lambda a: a * 2, in_dims=1, out_dims=-1)(X))
print(vmap(lambda d: d['u'] + d['v'][0], in_dims=({'u': 0, 'v': (1,)},))({'u': X, 'v': (X.t(),)}))
print(vmap(lambda d: d['u'] * 2)({'u': X}))
print(vmap(lambda a, k: a * k, in_dims=1)(X, k=5.0))
print(vmap(vmap(lambda a, b: a * b))(X, X))
print(vmap(vmap(lambda a: a.sum(), in_dims=1), in_dims=0)(X.reshape(3, 2, 2)))
print(torch.vmap(lambda a: a.norm())(X))
print(vmap(lambda a: a)(torch.zeros(0, 3)))
print(vmap(lambda a: (a.sum(), 3.0), out_dims=(0, None))(X))
print(vmap(lambda a: torch.ones(2), out_dims=None)(X))
print(vmap(lambda a: a.sum(), chunk_size=2)(X))
print(vmap(lambda a: a, out_dims=(1,))(X))
print(vmap(lambda a: {'k': a}, out_dims={'k': 1})(X))
print(vmap(lambda l: l[0] + l[1], in_dims=([0, 1],))([X, X.t()]))
print(vmap(torch.sum)(X), vmap(lambda a: a * 2)(X.to(torch.int64)))
""",
    "vmap_errors": """
X = torch.randn(2, 3); Z = torch.randn(3, 3)
f = lambda a, b: a + b
tr(lambda: vmap(f)(X, Z))
tr(lambda: vmap(f, in_dims=[0, 0])(X, Z))
tr(lambda: vmap(f, in_dims=(0,))(X, Z))
tr(lambda: vmap(f, in_dims=(0, 5))(X, Z))
tr(lambda: vmap(f, in_dims=(0, -3))(X, Z))
tr(lambda: vmap(f, in_dims=(0, 'a'))(X, Z))
tr(lambda: vmap(f, in_dims=(0, 0))(X, 3))
tr(lambda: vmap(f, in_dims=(None, None))(X, Z))
tr(lambda: vmap(lambda a: 3)(X))
tr(lambda: vmap(lambda a: (a, None))(X))
tr(lambda: vmap(lambda a: a, out_dims=(0, 0))(X))
tr(lambda: vmap(lambda a: (a, a), out_dims=[0, 1])(X))
tr(lambda: vmap(lambda a: [a, a], out_dims=(0, 1))(X))
tr(lambda: vmap(lambda a: a.sum(), in_dims=None)(X))
tr(lambda: vmap(lambda a: a, out_dims=3)(X))
tr(lambda: vmap(lambda a: a, out_dims='a')(X))
tr(lambda: vmap(lambda a: a, randomness='foo')(X))
tr(lambda: vmap(lambda a: a)())
tr(lambda: vmap(lambda a: a)(torch.tensor(1.0)))
tr(lambda: vmap(lambda a: a)([]))
tr(lambda: vmap(lambda a: a, in_dims=({'b': 0},))({'a': X}))
tr(lambda: vmap(lambda a: a[0], out_dims=None)(X))
tr(lambda: vmap(lambda a: a, chunk_size=0)(X))
import functools
tr(lambda: vmap(functools.partial(lambda a, b: 3, b=1))(X))
tr(lambda: vmap(torch.nn.Identity(), in_dims=[0])(X))
tr(lambda: vmap(lambda a: a + torch.rand(3))(X))
tr(lambda: vmap(lambda a: torch.nn.functional.dropout(a, 0.5))(X))
""",
    "vmap_randomness": """
torch.manual_seed(0)
r = vmap(lambda a: a * 0 + torch.rand(()), randomness='same')(torch.zeros(4))
print(r[0] == r, torch.rand(()))
r = vmap(lambda a: a * 0 + torch.rand(()), randomness='different')(torch.zeros(4))
print(r.unique().numel())
torch.manual_seed(0)
print(vmap(lambda a: a + torch.rand(3), randomness='different')(torch.zeros(2, 3)))
torch.manual_seed(0)
print(vmap(lambda a: a + torch.rand(3), randomness='same')(torch.zeros(2, 3)), torch.rand(1))
torch.manual_seed(0)
print(vmap(lambda a: a + torch.randn(2), randomness='different')(torch.zeros(3, 2)))
torch.manual_seed(0)
print(vmap(torch.nn.Dropout(0.5), randomness='different')(torch.ones(2, 4)))
tr(lambda: vmap(vmap(lambda a: a + torch.rand(()), randomness='same'))(torch.zeros(2, 2)))
""",
    "vmap_grad": """
X = torch.arange(12.0, dtype=torch.float64).reshape(4, 3) / 5 - 1
f = lambda a: (a.sin() * a).sum()
print(vmap(grad(f))(X))
print(vmap(jacrev(lambda a: a.exp() * a.sum()))(X[:2]))
print(vmap(hessian(f))(X[:2]))
print(grad(lambda A: vmap(f)(A).sum())(X))
Xr = X.clone().requires_grad_()
vmap(lambda a: a.sin())(Xr).pow(2).sum().backward(); print(Xr.grad)
print(vmap(grad(lambda a, b: (a * b).sum()), in_dims=(0, None))(X, y))
""",
    "levels_and_autograd": """
xr = x.clone().requires_grad_()
w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
o, t = jvp(lambda a: a.sin() * w, (x,), (x,)); print(o.requires_grad, t.requires_grad)
o, t = jvp(lambda a: a.sin(), (xr,), (x,)); print(o.requires_grad, t.requires_grad)
o, t = jvp(lambda a: a.sin(), (x,), (xr,)); print(o.requires_grad, t.requires_grad)
t.sum().backward(); print(xr.grad); xr.grad = None
o, fn = vjp(lambda a: a.sin(), xr); g, = fn(x); print(o.requires_grad, g.requires_grad)
g.sum().backward(); print(xr.grad); xr.grad = None
o, fn = vjp(lambda a: a.sin(), x); g, = fn(xr); print(o.requires_grad, g.requires_grad)
J = jacrev(lambda a: a.sin() * w)(x); print(J.requires_grad); J.sum().backward(); print(w.grad); w.grad = None
J = jacfwd(lambda a: a.sin() * w)(x); print(J.requires_grad); J.sum().backward(); print(w.grad); w.grad = None
H = hessian(lambda a: (a.sin() * w).sum())(xr); print(H.requires_grad); H.sum().backward(); print(xr.grad, w.grad); xr.grad=None; w.grad=None
G = vmap(grad(lambda a: (a.sin() * w).sum()))(xr * torch.ones(2, 3, dtype=torch.float64)); print(G.requires_grad); G.sum().backward(); print(xr.grad, w.grad); xr.grad=None; w.grad=None
g, v = grad_and_value(lambda a: (a * w).sum())(x); print(g.requires_grad, v.requires_grad)
print(grad(lambda a: grad(lambda b: (b * a).sum())(x).sum())(x))
print(jacrev(lambda a: jvp(lambda b: b * a, (x,), (a,))[1])(x))
print(jacfwd(lambda a: vjp(lambda b: b.exp() * a, x)[1](a)[0])(x))
o, f = linearize(lambda a: a.exp() * w, x); t = f(x); print(o.requires_grad, t.requires_grad)
print(vmap(jacfwd(lambda a: a.exp() * a.sum()))(torch.ones(2, 2, dtype=torch.float64)))
print(vmap(vmap(grad(lambda a: a.sin())))(torch.ones(2, 3, dtype=torch.float64)))
with torch.no_grad():
    o, t = jvp(lambda a: a.sin() * w, (x,), (x,)); print(o.requires_grad, t.requires_grad)
""",
    "inplace_and_detach": """
tr(lambda: grad(lambda a: a.mul_(2).sum())(x.clone()))
tr(lambda: grad(lambda a: (a * 1).mul_(2).sin().sum())(x))
tr(lambda: vjp(lambda a: a.exp_(), x.clone())[1](x))
tr(lambda: vmap(lambda a: a.add_(1))(x.clone().reshape(3, 1)))
xc = x.clone(); vmap(lambda a: a.mul_(3))(xc); print(xc)
print(grad(lambda a: a.sum())(x).is_leaf)
print(grad(lambda a: (a.detach() * a).sum())(x), grad(lambda a: a.sum() * 0 + a.numel())(x))
""",
    "per_sample_grads": """
torch.manual_seed(0)
model = torch.nn.Linear(3, 2).double()
data = torch.randn(5, 3, dtype=torch.float64); target = torch.randn(5, 2, dtype=torch.float64)
params = {k: v.detach() for k, v in model.named_parameters()}
def loss(p, xb, yb):
    out = functional_call(model, p, (xb.unsqueeze(0),))
    return torch.nn.functional.mse_loss(out, yb.unsqueeze(0))
g = vmap(grad(loss), in_dims=(None, 0, 0))(params, data, target)
print(g)
for i in range(2):
    model.zero_grad(); torch.nn.functional.mse_loss(model(data[i:i+1]), target[i:i+1]).backward()
    print(model.weight.grad, model.bias.grad)
print(functional_call(model, {'weight': torch.zeros(2, 3, dtype=torch.float64)}, data[:2]))
print(model.weight.requires_grad, type(model.weight).__name__)
""",
    "params_requiring_grad": """
# print precision 5: float32 gradients summed over a vmapped batch differ in the last bit
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
params = dict(model.named_parameters())
data = torch.randn(4, 3); target = torch.randn(4, 2)
def loss(p, xb, yb): return ((functional_call(model, p, (xb,)) - yb) ** 2).mean()
g = vmap(grad(loss), in_dims=(None, 0, 0))(params, data, target)
print(g['weight'].requires_grad, g['bias'].detach())
g['weight'].pow(2).sum().backward(); print(model.weight.grad)
models = [torch.nn.Linear(3, 2) for _ in range(3)]
p, b = stack_module_state(models)
out = vmap(lambda pp, bb, xx: functional_call(models[0], (pp, bb), (xx,)), in_dims=(0, 0, None))(p, b, data)
out.sum().backward(); print(p['bias'].grad, p['weight'].grad)
""",
    "functional_call": """
torch.manual_seed(0)
m = torch.nn.Linear(2, 2)
v = torch.randn(2)
print(functional_call(m, {'weight': torch.zeros(2, 2)}, v))
print(functional_call(m, ({'weight': torch.eye(2)}, {'bias': torch.ones(2)}), (v,)))
print(functional_call(m, {'weight': torch.eye(2)}, kwargs={'input': v}))
print(functional_call(m, {'weight': torch.zeros(2, 2), 'foo': torch.zeros(1)}, v))
tr(lambda: functional_call(m, {'weight': torch.zeros(2, 2), 'foo': torch.zeros(1)}, v, strict=True))
tr(lambda: functional_call(m, {'weight': torch.zeros(2, 2)}, v, strict=True))
tr(lambda: functional_call(m, ({'weight': torch.zeros(2, 2)}, {'weight': torch.zeros(2, 2)}), v))
tr(lambda: functional_call(m, 3, v))
class T(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.a = torch.nn.Linear(2, 2, bias=False); s.b = torch.nn.Linear(2, 2, bias=False)
        s.b.weight = s.a.weight
    def forward(s, v): return s.a(v) + s.b(v)
t = T()
print(functional_call(t, {'a.weight': torch.eye(2)}, v))
tr(lambda: functional_call(t, {'a.weight': torch.eye(2), 'b.weight': torch.zeros(2, 2)}, v))
print(functional_call(t, {'a.weight': torch.eye(2)}, v, strict=True))
print(functional_call(t, {'a.weight': torch.eye(2), 'b.weight': torch.zeros(2, 2)}, v, tie_weights=False))
bn = torch.nn.BatchNorm1d(2)
print(functional_call(bn, {'running_mean': torch.ones(2)}, torch.randn(4, 2)).shape, bn.running_mean)
""",
    "replace_bn": """
m = torch.nn.Sequential(torch.nn.BatchNorm1d(2), torch.nn.Linear(2, 2), torch.nn.Sequential(torch.nn.BatchNorm2d(3)),
                        torch.nn.InstanceNorm1d(2, track_running_stats=True))
print(F.replace_all_batch_norm_modules_(m) is m)
for sub in m.modules():
    print(type(sub).__name__, getattr(sub, 'running_mean', '-'), getattr(sub, 'running_var', '-'),
          getattr(sub, 'num_batches_tracked', '-'), getattr(sub, 'track_running_stats', '-'))
print(list(dict(m.named_buffers())))
torch.manual_seed(0)
# 4 decimals: PyTorch's own batch norm changes in the 7th digit with its thread count
print(vmap(m[0])(torch.randn(3, 4, 2)).detach().round(decimals=4))
""",
    "stack_module_state": """
torch.manual_seed(0)
models = [torch.nn.Linear(3, 2) for _ in range(4)]
params, buffers = stack_module_state(models)
print({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()}, buffers)
data = torch.randn(5, 3)
def run(p, b, xb): return functional_call(models[0], (p, b), (xb,))
out = vmap(run, in_dims=(0, 0, None))(params, buffers, data)
print(out.shape, torch.allclose(out[2], models[2](data)))
bns = [torch.nn.BatchNorm1d(2) for _ in range(2)]
p, b = stack_module_state(bns); print({k: tuple(v.shape) for k, v in b.items()})
tr(lambda: stack_module_state([]))
tr(lambda: stack_module_state([models[0], torch.nn.Linear(3, 2).eval()]))
tr(lambda: stack_module_state([models[0], torch.nn.Conv1d(2, 2, 1)]))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet(name):
    pytest.importorskip("torch")
    assert_same(PRELUDE + SNIPPETS[name])


def test_torch_vmap_is_func_vmap():
    assert taimatsu.vmap is taimatsu.func.vmap


# ---- without the oracle: central finite differences and the transforms' identities -------------


def _f(a):
    return (a.sin() * a.pow(2)).sum() * a.exp().mean()


def _fd_grad(fn, x, eps=1e-6):
    out = np.zeros(x.numel())
    flat = x.numpy().reshape(-1)
    for k in range(flat.size):
        up, down = flat.copy(), flat.copy()
        up[k] += eps
        down[k] -= eps
        t = taimatsu.tensor
        out[k] = (fn(t(up).view(x.shape)).item() - fn(t(down).view(x.shape)).item()) / (2 * eps)
    return out.reshape(x.shape)


def test_grad_and_hessian_match_finite_differences():
    F = taimatsu.func
    x = taimatsu.tensor([0.3, -0.8, 1.1, 0.5], dtype=taimatsu.float64)
    np.testing.assert_allclose(F.grad(_f)(x).numpy(), _fd_grad(_f, x), rtol=1e-6, atol=1e-8)
    H = F.hessian(_f)(x).numpy()
    fd_h = np.stack([_fd_grad(lambda a, i=i: F.grad(_f)(a)[i], x) for i in range(4)])
    np.testing.assert_allclose(H, fd_h, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H, H.T, atol=1e-12)
    np.testing.assert_allclose(F.jacrev(F.jacrev(_f))(x).numpy(), H, atol=1e-12)
    np.testing.assert_allclose(F.jacfwd(F.jacfwd(_f))(x).numpy(), H, atol=1e-12)


def test_jvp_vjp_and_vmap_identities():
    F = taimatsu.func
    g = taimatsu.Generator().manual_seed(0)
    x = taimatsu.randn(4, generator=g, dtype=taimatsu.float64)
    u = taimatsu.randn(3, generator=g, dtype=taimatsu.float64)
    v = taimatsu.randn(4, generator=g, dtype=taimatsu.float64)
    W = taimatsu.randn(3, 4, generator=g, dtype=taimatsu.float64)

    def fn(a):
        return (W @ a.tanh()) * a[:3]

    J = F.jacrev(fn)(x)
    np.testing.assert_allclose(F.jacfwd(fn)(x).numpy(), J.numpy(), atol=1e-12)
    np.testing.assert_allclose(F.jvp(fn, (x,), (v,))[1].numpy(), (J @ v).numpy(), atol=1e-12)
    np.testing.assert_allclose(F.vjp(fn, x)[1](u)[0].numpy(), (u @ J).numpy(), atol=1e-12)
    np.testing.assert_allclose(F.linearize(fn, x)[1](v).numpy(), (J @ v).numpy(), atol=1e-12)
    X = taimatsu.randn(5, 4, generator=g, dtype=taimatsu.float64)
    batched = F.vmap(F.jacrev(fn))(X)
    for i in range(5):
        np.testing.assert_allclose(batched[i].numpy(), F.jacrev(fn)(X[i]).numpy(), atol=1e-12)
    np.testing.assert_allclose(
        F.vmap(fn, in_dims=1, out_dims=1)(X.t()).numpy(), F.vmap(fn)(X).t().numpy()
    )


def test_vmap_over_batch_norm_with_running_statistics(torch_oracle):
    # PyTorch refuses to update unbatched running statistics from batched samples (taimatsu,
    # running per sample, updated them once per sample); eval mode, no running statistics and
    # stacked buffers (model ensembling) pass
    def outcomes(T):
        T.manual_seed(0)
        out = []
        x = T.randn(4, 2, 3)
        for make in (
            lambda: T.nn.BatchNorm1d(3),
            lambda: T.nn.BatchNorm1d(3).eval(),
            lambda: T.nn.BatchNorm1d(3, track_running_stats=False),
        ):
            bn = make()
            try:
                out.append(tuple(T.func.vmap(bn)(x).shape))
            except RuntimeError as e:
                out.append(str(e))
            out.append(
                bn.num_batches_tracked.item() if bn.num_batches_tracked is not None else None
            )
        models = [T.nn.BatchNorm1d(3) for _ in range(4)]
        params, buffers = T.func.stack_module_state(models)
        base = T.nn.BatchNorm1d(3).to("meta")
        fn = lambda p, b, xi: T.func.functional_call(base, (p, b), (xi,))
        out.append(tuple(T.func.vmap(fn)(params, buffers, x).shape))
        out.append(buffers["num_batches_tracked"].tolist())
        return out

    assert outcomes(taimatsu) == outcomes(torch_oracle)
