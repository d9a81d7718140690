"""``torch.nn.utils.skip_init``: build a module without running its parameter initialization."""

from __future__ import annotations

import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers on ``device`` ("cpu").

    As PyTorch does: the module is built on the meta device (no memory, no random draws), then
    ``to_empty`` gives it uninitialized tensors on ``device``. The class must take ``device``.
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")  # noqa: TRY004 - PyTorch's type
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
