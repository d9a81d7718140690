"""requires_grad propagation, grad_fn chains and leaf tensors.

    python examples/requires_grad_and_graph.py

- A result requires grad when any input does (and grad mode is on).
- Every result of a recorded op has a grad_fn; following grad_fn.next_functions walks the graph
  back to the leaves, whose gradients land in AccumulateGrad nodes.
- Leaves are the tensors the user created; only leaves get .grad by default
  (call retain_grad() on an intermediate tensor to keep its gradient).
"""

import taimatsu as torch

a = torch.tensor([2.0, 3.0], requires_grad=True)  # a leaf that requires grad
b = torch.tensor([0.5, -1.0])  # a leaf that does not
print("a:", a.requires_grad, a.is_leaf, a.grad_fn)
print("b:", b.requires_grad, b.is_leaf, b.grad_fn)

# requires_grad propagates: one input that requires grad is enough.
c = a * b
d = b * 2
print("c = a * b:", c.requires_grad, c.is_leaf, c.grad_fn.name())
print("d = b * 2:", d.requires_grad, d.is_leaf, d.grad_fn)

# ...unless grad mode is off: no_grad results are leaves without history.
with torch.no_grad():
    e = a * b
print("under no_grad:", e.requires_grad, e.is_leaf)

# The grad_fn chain of a small expression, walked from the output back to the leaves.
c.retain_grad()  # keep the gradient of this intermediate tensor too
out = (c.exp() + a).sum()


def walk(fn, depth=0):
    print("  " * depth + (fn.name() if fn is not None else "None (no gradient flows here)"))
    if fn is not None:
        for child, _ in fn.next_functions:  # (node, output index) pairs
            walk(child, depth + 1)


print("graph of out = (exp(a * b) + a).sum():")
walk(out.grad_fn)
# The AccumulateGrad nodes (named torch::autograd::AccumulateGrad, as in PyTorch) hold their leaf.
acc = out.grad_fn.next_functions[0][0].next_functions[1][0]
print("AccumulateGrad.variable is a:", acc.variable is a)

out.backward()
print("a.grad:", a.grad)  # b * exp(a * b) + 1
print("c.grad (retained):", c.grad)  # exp(c)
print("b.grad (does not require grad):", b.grad)

# Reading .grad of a non-leaf without retain_grad() gives None, with a warning.
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    g = (a * 2).grad
print("non-leaf .grad:", g, "| warning:", caught[0].message.args[0][:60] + "...")

# requires_grad can only be switched on for floating point (and complex) tensors,
# and only on leaves.
try:
    torch.tensor([1, 2]).requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    c.requires_grad_(False)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
