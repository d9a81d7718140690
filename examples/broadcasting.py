"""Broadcasting: how shapes line up, and how gradients are summed back to each input's shape.

    python examples/broadcasting.py

Shapes are compared from the last dimension backwards; two sizes are compatible when they are
equal or one of them is 1 (a missing dimension counts as 1). The result takes the larger size.
In backward, the gradient of a broadcast input is summed over the dimensions it was expanded
along, so x.grad always has x's shape.
"""

import taimatsu as torch

x = torch.arange(3.0).reshape(3, 1)  # (3, 1)
y = torch.arange(4.0)  # (4,) -> treated as (1, 4)
print("x + y:", (x + y).shape)
print(x + y)

# The rules, checked without computing anything.
print(torch.broadcast_shapes((5, 1, 4), (3, 1)))
print(torch.broadcast_tensors(torch.zeros(2, 1), torch.zeros(3))[0].shape)

# Incompatible trailing sizes are an error.
try:
    torch.ones(2, 3) + torch.ones(2)
except RuntimeError as e:
    print("RuntimeError:", e)

# A common bug: (N,) - (N, 1) silently broadcasts to (N, N).
pred = torch.tensor([1.0, 2.0, 3.0])
target = torch.tensor([[1.0], [2.0], [3.0]])
print("pred - target has shape", (pred - target).shape, "not (3,)")

# Gradients are reduced back to each input's shape.
w = torch.ones(3, 1, requires_grad=True)
b = torch.ones(4, requires_grad=True)
out = (w * b * torch.arange(12.0).reshape(3, 4)).sum()
out.backward()
print("w.grad", tuple(w.grad.shape), w.grad.flatten())
print("b.grad", tuple(b.grad.shape), b.grad)

# expand() is broadcasting as a view: no memory is copied (stride 0 along the new dimension).
e = torch.tensor([1.0, 2.0]).expand(3, 2)
print("expand:", e.shape, "stride", e.stride())

# In-place ops cannot change the destination's shape.
try:
    torch.zeros(3).add_(torch.ones(2, 3))
except RuntimeError as e:
    print("RuntimeError:", e)
