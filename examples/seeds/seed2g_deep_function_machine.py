"""Seed 2, part g: the article's closing example, a layer of a Deep Function Machine.

The weight matrix W is computed from a continuous weight function w_l(u, v) by numerical
integration, and gradient descent trains the parameters (s, w, p) of that function through the
integrals. The code is the article's (PyTorch 0.2). Two places need PyTorch 2.x changes, shown
with their errors first; and the loop runs 3 iterations instead of 1000 so it ends in seconds.
"""

import numpy as np

import taimatsu as torch
from taimatsu.autograd import Variable

torch.manual_seed(0)


def kernel(u, v, s, w, p):
    uv = Variable(torch.FloatTensor([u, v]))
    return s[0] + w.mv(uv).sub_(p).cos().dot(s[1:])


# Riemann sum. Note it samples fun at a + i for i in [a, b], not at i: kept as written.
def integrate(fun, a, b, N=100):
    res = 0
    h = (b - a) / N
    for i in np.linspace(a, b, N):
        res += fun(a + i) * h
    return res


def V(v, n, s, w, p):
    fun = lambda u: kernel(u, v, s, w, p).mul_(u - n)
    return integrate(fun, n, n + 1)


def Q(v, n, s, w, p):
    fun = lambda u: kernel(u, v, s, w, p)
    return integrate(fun, n, n + 1)


def W(N, s, w, p, cat=torch.cat):
    Qp = lambda v, n: Q(v, n, s, w, p)
    Vp = lambda v, n: V(v, n, s, w, p)
    W = [None] * N
    W[0] = cat([Qp(v, 1) - Vp(v, 1) for v in range(1, N + 1)])
    for j in range(2, N):
        W[j - 1] = cat([Qp(v, j) - Vp(v, j) + Vp(v, j - 1) for v in range(1, N + 1)])
    W[N - 1] = cat([Vp(v, N - 1) for v in range(1, N + 1)])
    W = torch.cat(W)
    return W.view(N, N).t()


s = Variable(torch.FloatTensor([1e-5, 1, 1]), requires_grad=True)
w = Variable(torch.FloatTensor(2, 2).uniform_(-1e-5, 1e-5), requires_grad=True)
p = Variable(torch.FloatTensor(2).uniform_(-1e-5, 1e-5), requires_grad=True)

data_x_t = torch.FloatTensor(100, 3).uniform_()
data_y_t = data_x_t.mm(torch.FloatTensor([[1, 2, 3]]).t_()).view(-1)

# In PyTorch 0.2 every value was at least 1-D, so kernel() returned a 1-element tensor and
# torch.cat joined them. Now kernel() returns a 0-d tensor, which cat refuses; stack joins them.
try:
    W(3, s, w, p)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))

alpha = -1e-3
for i in range(3):
    data_x, data_y = Variable(data_x_t), Variable(data_y_t)
    Wc = W(3, s, w, p, cat=torch.stack)
    y = data_x.mm(Wc).sum(1)
    loss = data_y.sub(y).pow(2).mean()
    # loss is 0-d now, so loss.data[0] is an IndexError; .item() gives the number.
    if i == 0:
        try:
            print(loss.data[0])
        except IndexError as e:
            print(type(e).__name__ + ": " + str(e))
    # Four decimals, like a tensor repr: the last bits of a float32 mean depend on the order
    # in which a library sums, which is not what this example is about.
    print(f"{loss.item():.4f}")
    loss.backward()
    s.data.add_(s.grad.data.mul(alpha))
    s.grad.data.zero_()
    w.data.add_(w.grad.data.mul(alpha))
    w.grad.data.zero_()
    p.data.add_(p.grad.data.mul(alpha))
    p.grad.data.zero_()

print(s)
print(w)
print(p)
