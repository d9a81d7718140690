"""In-place operations and the version counter that keeps autograd honest.

    python examples/inplace_version_counter.py

Every tensor carries a version counter that each in-place op (add_, mul_, x[i] = ...)
increments. Autograd remembers the version of every tensor it saves for backward; if the tensor
was modified in place afterwards, backward refuses to use the stale value and raises instead of
silently computing a wrong gradient. Views share their base's counter, and so does detach().
"""

import taimatsu as torch

x = torch.ones(3)
print("version at creation:", x._version)
x.add_(1)
x[0] = 5.0
print("after add_ and an indexed write:", x._version)
v = x[1:]  # a view shares the counter of its base
v.mul_(2)
print("after a write through a view: x", x._version, "view", v._version, x)
d = x.detach()  # detach() shares memory and the counter too...
d.zero_()
print("after d.zero_() on x.detach():", x._version, x)

# A saved tensor modified in place: sigmoid saves its output for the backward formula.
a = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
s = a.sigmoid()
s.mul_(2)  # s is now version 1, but SigmoidBackward0 saved version 0
try:
    s.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(". Hint")[0])

# Out-of-place is always safe: the saved output is untouched.
s = a.sigmoid()
(s * 2).sum().backward()
print("a.grad with out-of-place mul:", a.grad)

# In-place ops whose backward does not need the overwritten value are fine:
# add_ saves nothing, so the graph stays valid.
a.grad = None
y = a * 3
y.add_(1)
print("y after add_:", y)
y.sum().backward()
print("a.grad through add_:", a.grad)

# In-place on a leaf that requires grad is refused (it would rewrite the graph's input)...
try:
    a.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
# ...unless grad mode is off, which is how optimizers update parameters.
with torch.no_grad():
    a.sub_(0.1 * a.grad)
print("a after a manual SGD step:", a)

# `.data` gives a tensor with a *separate* counter: autograd cannot see writes through it,
# so this computes a wrong gradient without any error. Prefer detach() or no_grad().
b = torch.tensor([1.0, 2.0], requires_grad=True)
e = b.exp()
e.data.zero_()  # no version bump on e
e.sum().backward()  # uses the zeroed output: d/db exp(b) reported as 0
print("wrong gradient after a .data write:", b.grad)
