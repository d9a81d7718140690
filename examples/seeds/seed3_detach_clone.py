"""Seed 3 (Chinese blog): why `tensor.detach().clone()` needs both calls.

detach() cuts the graph but shares memory; clone() copies memory but stays in the graph.
"""

import taimatsu as torch

# 1. Two tensors and their gradients: d(a@b)/da = b and d(a@b)/db = a.
a = torch.tensor([1.0, 1.0], requires_grad=True)
b = torch.tensor([2.0, 2.0], requires_grad=True)
loss = a @ b
loss.backward()
print(a, b)
print(a.grad, b.grad)

# 2. Compute with a detached copy: no gradient reaches a.
a = torch.tensor([1.0, 1.0], requires_grad=True)
b = torch.tensor([2.0, 2.0], requires_grad=True)
a_ = a.detach()
loss = a_ @ b
loss.backward()
print(a, b)
print(a.grad, b.grad)
print(a_.requires_grad)

# 3. detach() shares memory: changing a_ changes a, and so b's gradient.
a = torch.tensor([1.0, 1.0], requires_grad=True)
b = torch.tensor([2.0, 2.0], requires_grad=True)
a_ = a.detach()
a_[0] += 2
loss = a @ b
loss.backward()
print(a, b)
print(a.grad, b.grad)

# 4. clone() copies memory: changing a_ leaves a alone.
a = torch.tensor([1.0, 1.0], requires_grad=True)
b = torch.tensor([2.0, 2.0], requires_grad=True)
a_ = a.clone()
a_[0] += 2
loss = a @ b
loss.backward()
print(a, b)
print(a.grad, b.grad)

# 5. clone() is differentiable: computing with a_ sends gradients back to a.
a = torch.tensor([1.0, 1.0], requires_grad=True)
b = torch.tensor([2.0, 2.0], requires_grad=True)
a_ = a.clone()
a_[0] += 2
loss = a_ @ b
loss.backward()
print(a, b)
print(a.grad, b.grad)

# Hence detach().clone(): same values, own memory, no graph.
c = a.detach().clone()
print(c, c.requires_grad, c.data_ptr() == a.data_ptr())
