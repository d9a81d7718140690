"""``torch.nn.utils.skip_init``: build a module without running its parameter initialization."""

from __future__ import annotations

import inspect

from ...ops.creation import random as _random
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers on ``device`` ("cpu").

    PyTorch builds the module on the meta device (no memory, no random draws) and then calls
    ``to_empty``. taimatsu has no meta device, so the module is built on the CPU and the global random
    state is put back afterwards: the result (uninitialized tensors, the same random stream after the
    call) is what PyTorch gives; only the construction costs more. The class must take ``device``.
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")  # noqa: TRY004 - PyTorch's type
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
    return module.to_empty(device=final_device)
