"""Seed 2, part c: in-place (xxx_) versus out-of-place (xxx) operations, by family."""

import taimatsu as torch

torch.manual_seed(0)


def show_error(fn):
    try:
        fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(type(e).__name__ + ": " + str(e))


# --- Initialisation: in-place methods return the tensor, so creation and fill fit one line.
x = torch.FloatTensor(3, 4)
x.zero_()
print(x)
x = torch.FloatTensor(3, 4).zero_()
print(x)
print(x.fill_(7))
print(x.random_(0, 10))  # discrete uniform in [from, to), even for a float tensor
print(torch.ByteTensor(6).random_())  # without bounds: the dtype's whole range
# The article writes uniform_(from=0, to=1); `from` is a Python keyword, so pass positionally.
print(x.uniform_(0, 1))
print(x.normal_(mean=0, std=1))
print(x.bernoulli_(p=0.5))
# y = x.bernoulli() draws with x as the probabilities; same as y.bernoulli_(x).
p = torch.tensor([0.0, 0.2, 0.8, 1.0])
print(p.bernoulli())
print(torch.empty(4).bernoulli_(p))
print(torch.eye(2, 3))
# The article also lists exponential, geometric, Cauchy and log-normal initialisers.
print(torch.empty(3).exponential_())
print(torch.empty(3).geometric_(0.5))
print(torch.empty(3).cauchy_())
print(torch.empty(3).log_normal_())

# --- Pointwise maths: method, function and in-place forms.
x = torch.tensor([1.0, 2.0, 4.0])
y = torch.tensor([0.5, 0.25, 2.0])
print(x.add(y), torch.add(x, y))
print(x.sub(y), torch.sub(x, y))
print(x.mul(y), torch.mul(x, y))
print(x.div(y), torch.div(x, y))
print(x.exp(), torch.exp(x))
print(x.log(), torch.log(x))
print(x.log1p(), torch.log1p(x))
print(torch.tensor([1e-10]).log1p().item() > 0)  # log1p stays accurate for tiny x
print(y.neg().abs(), torch.abs(-y))
z = x.clone()
z.add_(y)
z.sub_(y)
z.mul_(y)
z.div_(y)
print(z)
z.exp_()
z.log_()
z.log1p_()
z.abs_()
print(z)
print(torch.sin(x), torch.cos(x), torch.tan(x))

# The article says division of integer tensors is integer division. Since PyTorch 1.5 `div`
# is true division, and the in-place form on an integer tensor is an error.
i = torch.IntTensor([7, -7])
j = torch.IntTensor([2, 2])
print(i.div(j))
show_error(lambda: i.div_(j))
print(i.div(j, rounding_mode="trunc"), i // j)

# --- Matrix operations.
x = torch.arange(6.0).view(2, 3)
print(x.t(), torch.t(x))
w = x.clone()
w.t_()  # in place although the shape changes: only the strides do
print(w, w.size())
m = torch.arange(6.0).view(3, 2)
v = torch.tensor([1.0, -1.0])
print(x.mm(m), torch.mm(x, m))
print(m.mv(v), torch.mv(m, v))
print(v.dot(v), torch.dot(v, v))

bx = torch.randn(10, 3, 4)
by = torch.randn(10, 4, 5)
# The article's `bz = bx.bmm(bz)` uses bz before defining it (a typo): a NameError.
try:
    bz = bx.bmm(bz)
except NameError as e:
    print(type(e).__name__ + ": " + str(e))
bz = bx.bmm(by)
print(bz.size())
print(torch.bmm(bx, by).size())

# The BLAS-style functions with extra terms.
print(torch.addmm(torch.ones(2, 2), x, m))
print(torch.addmv(torch.ones(3), m, v))
print(torch.addr(torch.zeros(2, 2), v, v))
print(torch.addbmm(torch.zeros(3, 5), bx, by).size())
print(torch.baddbmm(torch.zeros(10, 3, 5), bx, by).size())
# btrifact and btrisolve are gone; torch.eig remains only as a stub whose error explains the
# move to torch.linalg.
print(hasattr(torch, "btrifact"), hasattr(torch, "btrisolve"))
show_error(lambda: torch.eig(torch.eye(2)))
A = torch.tensor([[4.0, 3.0], [6.0, 3.0]])
LU, pivots = torch.linalg.lu_factor(A)
print(LU, pivots)
print(torch.linalg.lu_solve(LU, pivots, torch.tensor([[1.0], [2.0]])))
print(torch.linalg.eigvals(torch.tensor([[2.0, 1.0], [0.0, 3.0]])))  # complex, like linalg.eig
print(torch.linalg.eigvalsh(torch.tensor([[2.0, 1.0], [1.0, 2.0]])))

# --- Reductions: over the whole tensor, or along `dim`.
x = torch.tensor([[3.0, 1.0, 2.0, 8.0], [5.0, 9.0, 4.0, 6.0], [7.0, 0.0, 11.0, 10.0]])
print(x.mean(), x.mean(1), torch.mean(x, 1))
print(x.std(), x.std(1), torch.std(x, 1))
print(x.var(), x.var(1), torch.var(x, 1))
print(x.median())
print(x.median(1))  # values and indices, as a named tuple
print(torch.median(x, 1).values)
print(x.sum(), x.sum(1), torch.sum(x, 1))
print(x.prod(), x.prod(1), torch.prod(x, 1))
print(x.max(), x.max(1))
print(torch.max(x, 1).indices)
print(x.min(), x.min(1))
print(torch.min(x, 1).values)
# "Only for real-valued tensors": mean of an integer tensor is an error.
show_error(lambda: torch.IntTensor([1, 2]).mean())

# --- Comparisons give masks (torch.bool in PyTorch 2.x, ByteTensor in 0.2).
a = torch.tensor([1, 2, 3])
b = torch.tensor([3, 2, 1])
print(a.eq(b), a.ne(b), a.gt(b), a.lt(b), a.ge(b), a.le(b))
print(a == b, a != b, a > b, a < b, a >= b, a <= b)

# --- Operators call the functions above.
x = torch.tensor([1.0, 2.0])
y = torch.tensor([3.0, 4.0])
print(x + y, x - y, x * y, x / y, x @ y)
x += y
x -= 1
x *= 2
x /= 4
print(x)
# The article's warning against mixing styles: the right side mutates x before += reads it.
x = torch.tensor([1.0, 2.0])
x += x.mul_(2)
print(x)
