"""Seed 2, part e: tensors on the GPU. Everything that needs CUDA is behind is_available()."""

import taimatsu as torch

torch.manual_seed(0)

# Tensors are created on the CPU by default.
x = torch.FloatTensor(1024, 1024).uniform_()
print(x.is_cuda, x.device, x.get_device())  # get_device() is -1 for a CPU tensor
print(x.is_pinned())
print(x.cpu() is x)  # already on the CPU: cpu() returns the tensor itself, no copy

# The article's `x.cuda(device=None, async=False)`: `async` is a keyword since Python 3.7, so
# the call no longer parses; PyTorch renamed the argument to `non_blocking`.
try:
    compile("x.cuda(device=None, async=True)", "<article>", "eval")
except SyntaxError as e:
    print(type(e).__name__ + ": " + str(e))

if torch.cuda.is_available():
    # cuda() returns a copy on the GPU; the CPU tensor stays where it was.
    y = x.cuda()
    print(y.is_cuda, y.get_device(), x.is_cuda)
    print(torch.equal(y.cpu(), x))

    # Operations need their tensors on one device.
    try:
        y + x
    except RuntimeError as e:
        print(type(e).__name__ + ": " + str(e))

    # Page-locked memory makes copies to the GPU fast, and asynchronous with non_blocking=True.
    p = x.pin_memory()
    print(p.is_pinned(), x.is_pinned())
    z = p.cuda(device=None, non_blocking=True)
    torch.cuda.synchronize()
    print(torch.equal(z.cpu(), x))

    # Multiply on the GPU, bring the result back (1000x1000 rather than the article's
    # 10000x10000, so the example stays quick).
    a = torch.FloatTensor(1000, 1000).uniform_()
    b = torch.FloatTensor(1000, 1000).uniform_()
    c = a.cuda().mul_(b.cuda()).cpu()
    print(c.is_cuda, torch.allclose(c, a * b))

    # Creating directly on the GPU, and choosing the GPU with a context manager.
    x = torch.cuda.FloatTensor(1)
    y = torch.FloatTensor(1).cuda()
    print(x.get_device(), y.get_device())
    if torch.cuda.device_count() >= 3:
        with torch.cuda.device(1):
            a = torch.cuda.FloatTensor(1)
            b = torch.FloatTensor(1).cuda()
            c = a + b
            z = x + y
            d = torch.FloatTensor(1).cuda(2)
        print(a.get_device(), b.get_device(), c.get_device(), z.get_device(), d.get_device())
else:
    print("CUDA is not available: the GPU examples are skipped")
