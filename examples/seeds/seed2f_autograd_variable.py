"""Seed 2, part f: automatic differentiation, by hand and with torch.autograd.Variable."""

import taimatsu as torch
from taimatsu.autograd import Variable

torch.manual_seed(0)


def show_error(fn):
    try:
        fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(type(e).__name__ + ": " + str(e))


# Forward-mode AD in twenty lines of Python (the article's class, typo in the name included).
# Each value carries its derivative with respect to x1; the chain rule combines them.
class Varaible:
    def __init__(self, value, derivative):
        self.value = value
        self.derivative = derivative

    def __add__(self, other):
        return Varaible(self.value + other.value, self.derivative + other.derivative)

    def __mul__(self, other):
        return Varaible(
            self.value * other.value,
            self.derivative * other.value + self.value * other.derivative,
        )

    def __pow__(self, other):
        # Right only when self.derivative is 1, as it is for x1 below.
        return Varaible(self.value**other, other * self.value ** (other - 1))


def f(x1, x2):
    vx1 = Varaible(x1, 1)
    vx2 = Varaible(x2, 0)
    vf = vx1 * vx2 + vx1**2
    return vf.value, vf.derivative


print(f(2, 3))  # (10, 7): f = x1*x2 + x1**2 and df/dx1 = x2 + 2*x1

# torch.autograd.Variable is a deprecated alias since PyTorch 0.4: it returns a plain Tensor.
x = torch.FloatTensor(3, 1).uniform_()
w = torch.FloatTensor(3, 3).uniform_()
b = torch.FloatTensor(3, 1).uniform_()
x = Variable(x, requires_grad=True)
w = Variable(w)
b = Variable(b)
print(type(x).__name__, x.requires_grad, w.requires_grad)
# PyTorch 0.2 accepted a 3x1 "vector" in mv; PyTorch 2.x wants a 1-D one.
show_error(lambda: w.mv(x).add_(b))
# So the vectors here are 1-D, as the sizes printed in the article are.
x = Variable(torch.FloatTensor(3).uniform_(), requires_grad=True)
b = Variable(torch.FloatTensor(3).uniform_())
y = w.mv(x).add_(b)
print(y)
loss = y.sum()
print(loss)
loss.backward()
print(x.grad)  # d(sum(w @ x + b))/dx = column sums of w
print(w.sum(0))
print(x.data)
print(x.data.requires_grad, x.requires_grad, y.requires_grad)

# In-place operations are checked: changing a value that backward needs is an error at
# backward time, found through the tensor's version counter.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = a.sigmoid()  # sigmoid's backward uses its output s
s.mul_(2)
show_error(lambda: s.sum().backward())
# And a leaf that requires grad may not be changed in place at all.
show_error(lambda: a.add_(1))
