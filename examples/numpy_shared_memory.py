"""Sharing memory with NumPy: from_numpy(), numpy(), and when a copy is made.

    python examples/numpy_shared_memory.py

torch.from_numpy(arr) and tensor.numpy() share memory with the array: a write on one side is
seen on the other. torch.tensor(arr) and torch.as_tensor(arr, dtype=other) copy.
"""

import numpy as np

import taimatsu as torch

arr = np.arange(4, dtype=np.float32)
t = torch.from_numpy(arr)  # shares arr's memory (and keeps its dtype: float32)
arr[0] = 10.0
t[1] = 20.0
print("array:", arr)
print("tensor:", t)

back = t.numpy()  # shares memory again
t.add_(1)
print("numpy() view after t.add_(1):", back)
print("same buffer:", np.shares_memory(arr, back))

# Copies: torch.tensor always copies; as_tensor copies only when it must convert.
copied = torch.tensor(arr)
converted = torch.as_tensor(arr, dtype=torch.float64)
same = torch.as_tensor(arr)
arr[:] = 0
print("torch.tensor(arr):", copied)
print("as_tensor(arr, float64):", converted)
print("as_tensor(arr):", same)

# NumPy's default float is float64, so from_numpy gives a double tensor;
# mixing it with float32 tensors promotes by PyTorch's rules, not NumPy's.
d = torch.from_numpy(np.ones(2))
print("from float64 array:", d.dtype, "| float32 + float64 tensor:", (torch.ones(2) + d).dtype)
print(
    "float32 tensor * float64 0-d tensor:",
    (torch.ones(2) * torch.tensor(2.0, dtype=torch.float64)).dtype,
)

# Views keep sharing: a transposed tensor's numpy() is a strided view of the same memory.
m = torch.arange(6.0).reshape(2, 3)
mt = m.t().numpy()
m[0, 0] = -1.0
print("m.t().numpy() after m[0, 0] = -1:")
print(mt)
print("its strides in bytes:", mt.strides, "| the tensor's in elements:", m.t().stride())

# Tensors that require grad must be detached first; detach().numpy() still shares memory,
# so take a .copy() to keep a snapshot (see detach_clone_copy.py).
w = torch.ones(2, requires_grad=True)
snapshot = w.detach().numpy().copy()
print("snapshot:", snapshot)
