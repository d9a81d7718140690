"""detach() vs clone() vs copy_(), and the `.detach().numpy().copy()` idiom.

    python examples/detach_clone_copy.py

- detach(): same memory, no history. Writes through it change the original.
- clone():  new memory, keeps history (CloneBackward0): gradients flow back to the source.
- copy_():  writes values into an existing tensor, recorded in the destination's history.
- x.detach().numpy() shares memory with x; add .copy() for a snapshot that later writes
  to x cannot change.
"""

import taimatsu as torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# detach: a new tensor object over the same memory, cut out of the graph.
d = x.detach()
print("detach:", d, "requires_grad:", d.requires_grad, "grad_fn:", d.grad_fn)
print("same memory as x:", d.data_ptr() == x.data_ptr())
d[0] = 100.0  # an in-place write through the detached tensor changes x as well
print("x after writing d[0] = 100:", x)
with torch.no_grad():
    x[0] = 1.0  # put it back

# clone: new memory, but still part of the graph.
c = x.clone()
print("clone:", c)
print("same memory as x:", c.data_ptr() == x.data_ptr())
(c * 2).sum().backward()
print("x.grad through clone:", x.grad)  # 2s: the gradient flowed back through CloneBackward0

# clone().detach(): an independent copy with no history (PyTorch's recommended way to
# copy a tensor; torch.tensor(t) does the same but warns).
snapshot = x.clone().detach()
print("clone().detach():", snapshot, snapshot.requires_grad)

# copy_: write values into an existing tensor; the copy is recorded in the destination.
x.grad = None
dst = torch.zeros(3)
dst.copy_(x * 10)
print("copy_ into zeros:", dst, "is_leaf:", dst.is_leaf)
dst.sum().backward()
print("x.grad through copy_:", x.grad)  # 10s: d(dst)/dx = 10
# The values copy_ overwrote get no gradient: they no longer influence the result.
w = torch.ones(3, requires_grad=True)
y = w * 1  # a non-leaf (in-place writes into a leaf that requires grad are refused)
y.copy_(x)
y.sum().backward()
print("w.grad after its values were overwritten:", w.grad)

# The NumPy idiom: detach (NumPy cannot hold history), numpy() (shares memory), copy().
shared = x.detach().numpy()
private = x.detach().numpy().copy()
with torch.no_grad():
    x.mul_(10)
print("x after x.mul_(10):", x)
print("shared numpy view: ", shared)
print("private copy:      ", private)

# Without detach(), numpy() refuses a tensor that requires grad.
try:
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
