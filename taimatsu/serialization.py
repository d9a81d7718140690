"""Pickling support for tensors (``copy.deepcopy``, multiprocessing, plain ``pickle``).

PyTorch's own checkpoint format (``torch.save``/``torch.load``) is a later issue.
"""

from __future__ import annotations


def reduce_tensor(t, protocol):
    from .backend import to_numpy

    return (_rebuild, (to_numpy(t._data).copy(), t._dtype.name, str(t._device), t._rg))


def _rebuild(array, dtype_name, device, requires_grad):
    from . import _dtype
    from ._device import as_device
    from ._tensor import _wrap
    from .backend import to_device

    dev = as_device(device)
    t = _wrap(to_device(array, dev), _dtype._dtype_by_name(dtype_name), dev)
    t._rg = requires_grad
    return t
