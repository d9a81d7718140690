"""Seed 4 (English translation of a Chinese article): detach() cuts back-propagation.

The scraped article lost most argument lists and line breaks; the code is reconstructed from it
and from the examples it quotes (the F.conv2d documentation example for the shapes).
"""

import taimatsu as torch
import taimatsu.nn.functional as F
from taimatsu.nn import init  # noqa: F401 -- imported by the article, unused

torch.manual_seed(0)


def show_error(fn):
    try:
        fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(type(e).__name__ + ": " + str(e))


# detach() shares memory with its source: changing one changes the other.
t1 = torch.tensor([1, 2.0], requires_grad=True)
t2 = torch.tensor([2, 3.0], requires_grad=True)
v3 = t1 + t2
v3_detached = v3.detach()
v3_detached.data.add_(t1)  # changes the tensor inside v3_detached...
print(v3, v3_detached)  # ...and v3 sees the change
print(v3.requires_grad, v3_detached.requires_grad)

# The article says copy_() makes a "new separate tensor". In fact copy_ is differentiable too:
# the copy is recorded in the graph (CopyBackwards) and gradients flow to the source.
new = torch.zeros(2)
new.copy_(t1)
print(new)
new.sum().backward()
print(t1.grad)

# Leaf tensors that require grad cannot be changed in place.
show_error(lambda: t1.add_(1))

# A detached tensor is a new leaf. Setting requires_grad again gives it its own gradient, but
# nothing flows back past the cut into the original graph.
d = v3.detach()
d.requires_grad_(True)
(d * 2).sum().backward()
print(d.grad, t2.grad)

# requires_grad is False by default, and an operation requires grad only if an input does.
x = torch.ones(1)
print(x.requires_grad)
y = torch.ones(1)
z = x + y
print(z.requires_grad)
show_error(lambda: z.backward())
w = torch.ones(1, requires_grad=True)
print(w.requires_grad)
total = w + z
print(total.requires_grad)
total.backward()
print(w.grad)
# No gradient was computed for x, y or z.
print(z.grad == x.grad == y.grad == None)

# nn.Parameter is a tensor that requires grad; F.conv2d and nn.Conv2d give the same shape.
filters = torch.randn(8, 4, 3, 3)
weiths = torch.nn.Parameter(torch.randn(8, 4, 3, 3))
inputs = torch.randn(1, 4, 5, 5)
out = F.conv2d(inputs, weiths, stride=2, padding=1)
print(out.shape)
con2d = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1)
out_2 = con2d(inputs)
print(out_2.shape)
print(weiths.requires_grad, out.requires_grad, F.conv2d(inputs, filters).requires_grad)

# Supplement: a normal backward through sigmoid.
a = torch.tensor([1, 2, 3.0], requires_grad=True)
print(a)
print(a.grad)
out = a.sigmoid()
out.sum().backward()
print(a.grad)

# 1.1 Detaching without modifying does not affect backward().
a = torch.tensor([1, 2, 3.0], requires_grad=True)
print(a.grad)
out = a.sigmoid()
print(out)
c = out.detach()  # c.requires_grad is False
print(c)
out.sum().backward()
print(a.grad)

# The scraped copy ends here. The original article goes on with the two cases below.
# 1.2 Modifying the detached tensor in place: sigmoid's backward needs `out`, and the shared
# version counter reports the change at backward time.
a = torch.tensor([1, 2, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
c.zero_()
print(out)
show_error(lambda: out.sum().backward())

# 2. The same through .data: .data does not share the version counter, so nothing is detected
# and the gradient is silently wrong (zeros instead of out * (1 - out)).
a = torch.tensor([1, 2, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.data
c.zero_()
print(out)
out.sum().backward()
print(a.grad)
