"""Running a host-only op on CUDA tensors: a documented round trip through host memory.

Some ops are written against NumPy/SciPy routines that CuPy does not offer with the same
behaviour (LAPACK's getrf/potrf with PyTorch's error reporting, ...). ``on_host`` lets such an op
take CUDA tensors: their CPU copies go in (``Tensor.cpu()``, so autograd sees the transfers and
the gradients flow back to the CUDA tensors), and the tensor results come back to the inputs'
CUDA device. Each call synchronises with the device (the copy to the host), unlike PyTorch,
whose CUDA kernels (cuSOLVER / MAGMA) stay on the device; the grad_fn of a result is the
transfer's (``ToCopyBackward0``), not the op's. CPU tensors take the direct path, unchanged.
"""

from __future__ import annotations

import functools

from .._tensor.core import Tensor


def _cuda_device(values):
    for v in values:
        if isinstance(v, Tensor) and v._device.type == "cuda":
            return v._device
        if isinstance(v, (tuple, list)):
            d = _cuda_device(v)
            if d is not None:
                return d
    return None


def _map(x, fn):
    if isinstance(x, Tensor):
        return fn(x)
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # torch.return_types
        return type(x)(*(_map(v, fn) for v in x))
    if isinstance(x, (tuple, list)):
        return type(x)(_map(v, fn) for v in x)
    return x


def _store(out, result):
    """Copy ``result`` into the caller's CUDA ``out=`` tensor(s), resized as needed."""
    from ..autograd.grad_mode import no_grad

    with no_grad():
        for o, r in zip(out if isinstance(out, (tuple, list)) else (out,),
                        result if isinstance(result, tuple) else (result,)):  # fmt: skip
            if tuple(o.shape) != tuple(r.shape):
                o.resize_(r.shape)
            o.copy_(r)
    return out


def on_host(fn):
    """``fn`` on CUDA tensors through host memory (see the module's docstring)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        device = _cuda_device(list(args) + list(kwargs.values()))
        if device is None:
            return fn(*args, **kwargs)
        out = kwargs.pop("out", None)
        args = _map(args, lambda t: t.cpu() if t._device.type == "cuda" else t)
        kwargs = {k: _map(v, lambda t: t.cpu() if t._device.type == "cuda" else t)
                  for k, v in kwargs.items()}  # fmt: skip
        result = _map(fn(*args, **kwargs), lambda t: t.to(device))
        return result if out is None else _store(out, result)

    return wrapper
