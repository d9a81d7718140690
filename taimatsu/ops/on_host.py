"""Running a host-only op on CUDA tensors: a documented round trip through host memory.

Some ops are written against NumPy/SciPy routines that CuPy does not offer with the same
behaviour (LAPACK's getrf/potrf with PyTorch's error reporting, ...). ``on_host`` lets such an op
take CUDA tensors: their CPU copies go in (``Tensor.cpu()``, so autograd sees the transfers and
the gradients flow back to the CUDA tensors), and the tensor results come back to the inputs'
CUDA device; an ``out=`` gets CPU stand-ins of its dtype and shape, so the CPU op's out= checks
and errors hold on CUDA too, and is then filled from them. Each call synchronises with the device (the copy to the host), unlike PyTorch,
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


def _host_outs(out, device):
    """CPU stand-ins for the caller's CUDA ``out=`` tensor(s): same dtype and shape, so the CPU
    op runs its own out= checks on them (dtype errors, the resize warning) as on the CPU path.
    An ``out`` on another device than the inputs' raises PyTorch's error first."""
    from .creation.factories import empty

    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if isinstance(o, Tensor) and o._device != device:
            raise RuntimeError(
                f"Expected out tensor to have device {device}, but got {o._device} instead"
            )
    host = [empty(o.shape, dtype=o.dtype) if isinstance(o, Tensor) else o for o in outs]
    return type(out)(host) if isinstance(out, (tuple, list)) else host[0]


def _pairs(out, host_out):
    return zip(out, host_out) if isinstance(out, (tuple, list)) else [(out, host_out)]


def _store(out, host_out):
    """Copy the CPU stand-ins back into the caller's CUDA ``out=`` tensor(s), resized like them."""
    from ..autograd.grad_mode import no_grad

    from ._dispatch import xp_for

    with no_grad():
        for o, h in _pairs(out, host_out):
            if o._data.shape != h._data.shape:  # new memory, as write_out resizes an out
                o._data = xp_for(o).empty(h._data.shape, o._dtype.np)
                o._storage = None
            o.copy_(h)
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
        if out is None:
            return _map(fn(*args, **kwargs), lambda t: t.to(device))
        host_out = _host_outs(out, device)
        result = fn(*args, out=host_out, **kwargs)
        _store(out, host_out)
        # the op's return value (out itself, or a torch.return_types of it) with the CUDA outs
        cuda_of = {id(h): o for o, h in _pairs(out, host_out)}
        return _map(result, lambda t: cuda_of[id(t)] if id(t) in cuda_of else t.to(device))

    return wrapper
