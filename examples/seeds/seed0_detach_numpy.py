"""Seed 0 (Japanese Q&A): what `.detach().numpy().copy()` does, step by step."""

import taimatsu as torch

# A tensor that is part of an autograd graph.
in1 = torch.ones(2, 2, requires_grad=True)
in2 = torch.ones(2, 2, requires_grad=True)
y = in1 + in2
out = y**2
print(out)

# .numpy() refuses tensors that require grad: NumPy cannot carry the graph along.
try:
    out.numpy()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))

# detach() gives a graph-free tensor, which .numpy() accepts.
arr = out.detach().numpy()
print(type(arr))  # <class 'numpy.ndarray'>
print(arr)

# On the CPU, .numpy() shares memory with the tensor: changing one changes the other.
x = torch.ones(2, 2)
arr = x.numpy()
print(arr)
x[:] = 4
print(arr)

# ndarray.copy() breaks the sharing (the article's step 3); the copy keeps the old values.
arr_copy = x.detach().numpy().copy()
x[:] = 5
print(arr)
print(arr_copy)
