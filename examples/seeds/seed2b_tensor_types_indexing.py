"""Seed 2, part b: typed tensor constructors, type conversion and indexing.

The article was written for PyTorch 0.2, whose reprs looked like `[torch.FloatTensor of size 3]`;
PyTorch 2.x prints `tensor([...])`. The legacy constructors (torch.FloatTensor, ...) still work.
"""

import taimatsu as torch

torch.manual_seed(0)


def show_error(fn):
    try:
        fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(type(e).__name__ + ": " + str(e))


# A constructor without arguments gives an empty tensor.
print(torch.FloatTensor())

# Every legacy type and the dtype it stands for.
for cls in [
    torch.HalfTensor,
    torch.FloatTensor,
    torch.DoubleTensor,
    torch.ShortTensor,
    torch.IntTensor,
    torch.LongTensor,
    torch.CharTensor,
    torch.ByteTensor,
]:
    t = cls([1])
    print(t.type(), t.dtype, t)

# torch.Tensor is torch.FloatTensor (with the default dtype).
print(torch.Tensor([1]).type())

# The article (PyTorch 0.2) says FloatTensor * DoubleTensor is a TypeError. Since PyTorch 1.5
# type promotion applies, and the result is float64.
a = torch.FloatTensor([1.0])
b = torch.DoubleTensor([2.0])
print(a * b)

# Explicit conversions.
a = torch.IntTensor([1])
print(a.byte())
print(a.float())

# x.type_as(y): x's values with y's type.
x = torch.IntTensor([1, 2])
y = torch.DoubleTensor([0.5])
print(x.type_as(y))

# Converting a tensor to its own type returns the tensor itself: no copy.
f = torch.FloatTensor([1.0, 2.0])
print(f.float() is f, f.type_as(f) is f, f.type(torch.FloatTensor) is f)

# A nested list gives a tensor of that shape.
a = torch.IntTensor([[1, 2], [3, 4]])
print(a)

# Ragged lists are rejected (PyTorch 2.x raises ValueError; 0.2 raised RuntimeError).
show_error(lambda: torch.IntTensor([[1, 2], [3]]))

# Constructors given sizes return uninitialised memory: only the shape is meaningful.
print(torch.FloatTensor(1).size())
print(torch.FloatTensor(3, 3).size())

# Indexing: integers, slices, negative indices.
a = torch.IntTensor([[1, 2, 3], [4, 5, 6]])
print(a)
print(a[0])
print(a[0][1])  # a 0-d tensor now; PyTorch 0.2 returned the Python number 2
print(a[0, 1])
print(a[0, 1].item())
print(a[:, 0])
print(a[0, 1:3])
print(a[-1, -1])

# Indexing with tensors: a LongTensor of indices, or a mask.
a = torch.ByteTensor(3, 4).random_()
print(a)
print(a[torch.LongTensor([0, 2])])
print(a > 128)  # comparisons give torch.bool masks now (ByteTensor in 0.2)
print(a[a > 128])

# Facts about a tensor. data_ptr() is a byte address: print only comparisons and distances.
a = torch.Tensor(3, 3)
print(a.dim())
print(a.size())
print(a.type())
print(a.data_ptr() == a.view(9).data_ptr())  # a view shares the memory
print(a[1].data_ptr() - a.data_ptr())  # row 1 starts 3 float32 = 12 bytes later
print(a.clone().data_ptr() == a.data_ptr())  # a clone does not
