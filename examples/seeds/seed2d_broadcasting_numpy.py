"""Seed 2, part d: broadcasting, in-place broadcasting, the NumPy bridge, a softmax layer.

The article builds tensors with torch.FloatTensor(*sizes), i.e. uninitialised memory: only the
sizes of the results are printed, never the values.
"""

import numpy as np

import taimatsu as torch

torch.manual_seed(0)
np.random.seed(0)


def show_error(fn):
    try:
        fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(type(e).__name__ + ": " + str(e))


# Same shapes: broadcastable.
x = torch.FloatTensor(5, 7, 3)
y = torch.FloatTensor(5, 7, 3)
print((x + y).size())

# Sizes compared from the last dimension: equal, or one of them 1, or missing.
x = torch.FloatTensor(5, 3, 4, 1)
y = torch.FloatTensor(3, 1, 1)
print((x + y).size())

# Not broadcastable: dimension 1 has 2 against 3.
x = torch.FloatTensor(5, 2, 4, 1)
y = torch.FloatTensor(3, 1, 1)
show_error(lambda: x + y)

# The article says an empty torch.FloatTensor() has no dimensions. In PyTorch 2.x it is 1-D with
# size 0, and 0 against 2 is not broadcastable either.
x = torch.FloatTensor()
y = torch.FloatTensor(2, 2)
print(x.size())
show_error(lambda: x + y)

# A one-element tensor broadcasts with anything.
print((torch.FloatTensor([2]) * torch.ones(2, 3)).size())

# The result has the elementwise maximum of the sizes, after padding with leading 1s.
x = torch.FloatTensor(5, 1, 4, 1)
y = torch.FloatTensor(3, 1, 1)
print((x + y).size())

# In-place operations may broadcast the other operand, never change their own size.
x = torch.FloatTensor(5, 3, 4, 1)
y = torch.FloatTensor(3, 1, 1)
print((x.add_(y)).size())
x = torch.FloatTensor(1, 3, 1)
y = torch.FloatTensor(3, 1, 7)
show_error(lambda: x.add_(y))  # the message differs from the article's PyTorch 0.2 one

# torch.from_numpy and .numpy() share memory: no copy in either direction.
a = np.random.rand(3, 3)
print(a)
b = torch.from_numpy(a)
print(b)
print(b.sub_(b))
print(a)


# A linear layer with softmax, written with in-place operations.
def LinearSoftmax(x, w, b):
    s = x.mm(w).add_(b)
    s.exp_()
    s.div_(s.sum(1))
    return s


x = torch.randn(1, 4)
w = torch.randn(4, 3)
b = torch.randn(3)
print(LinearSoftmax(x, w, b))
# s.sum(1) has shape (batch,), so the division broadcasts it along the class dimension. That is
# right only for a batch of one; a batch of two fails (keepdim=True would fix it).
show_error(lambda: LinearSoftmax(torch.randn(2, 4), w, b))
