"""Global module hooks: ``torch.nn.modules.module.register_module_forward_hook`` and its family.

A global hook runs for every module call, before the module's own hooks of the same kind (PyTorch's
order). As on one module, global full and legacy (non-full) backward hooks cannot be mixed.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict

_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = {}
_global_forward_hooks_always_called: dict = {}
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_full = {"is_full": None}  # None until a global backward hook is registered

__all__ = [
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]


def _add(*dicts):
    from .module import RemovableHandle

    return RemovableHandle(*dicts)


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` before every module's forward; may return new args."""
    handle = _add(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False):
    """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with ``with_kwargs``) after
    every module's forward; ``always_call`` runs it even when forward raised."""
    handle = _add(
        _global_forward_hooks,
        _global_forward_hooks_with_kwargs,
        _global_forward_hooks_always_called,
    )
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """``hook(module, grad_output)`` for every module, before its full backward hooks."""
    handle = _add(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def _register_backward(hook, full: bool):
    if _global_full["is_full"] is (not full):
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module hook. Please use "
            "only one of them."
        )
    _global_full["is_full"] = full
    handle = _add(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` for every module, as ``Module.register_full_backward_hook``."""
    return _register_backward(hook, True)


def register_module_backward_hook(hook):
    """The legacy (non-full) global backward hook, as ``Module.register_backward_hook``."""
    return _register_backward(hook, False)


def backward_hooks(module, full: bool) -> list:
    """The global then the module's full (or non-full) backward hooks that apply to ``module``."""
    hooks = list(_global_backward_hooks.values()) if _global_full["is_full"] is full else []
    if module._is_full_backward_hook is full:
        hooks += module._backward_hooks.values()
    return hooks


def forward_hook_flags(module, hook_id) -> tuple[bool, bool]:
    """(with_kwargs, always_call) of a forward hook, global or the module's."""
    return (
        hook_id in module._forward_hooks_with_kwargs
        or hook_id in _global_forward_hooks_with_kwargs,
        hook_id in module._forward_hooks_always_called
        or hook_id in _global_forward_hooks_always_called,
    )


# ---- registration hooks: ``hook(module, name, value)`` may return a replacement value ----------------
_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()


def _register_in(hooks: dict, hook):
    handle = _add(hooks)
    hooks[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` whenever any module registers a buffer."""
    return _register_in(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` whenever any module registers a child module."""
    return _register_in(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` whenever any module registers a Parameter."""
    return _register_in(_global_parameter_registration_hooks, hook)


def registered(hooks: dict, module, name: str, value):
    """``value`` after the registration hooks (each may replace it)."""
    for hook in hooks.values():
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def reassign_buffer(module, name: str, value) -> None:
    """``module.<buffer> = value``: through ``register_buffer`` (its hooks), keeping the persistence.

    A subclass may override ``register_buffer`` without the ``persistent`` argument (older code);
    as in PyTorch it is then called without it, which only works for persistent buffers."""
    persistent = name not in module._non_persistent_buffers_set
    register = module.register_buffer
    if getattr(register, "__func__", None) is _module_class().register_buffer or (
        "persistent" in inspect.signature(register).parameters
    ):
        register(name, value, persistent)
    elif persistent:
        register(name, value)
    else:
        raise RuntimeError(
            "Registering a non-persistent buffer on a Module subclass that implements register_buffer() without "
            "the persistent argument is not allowed."
        )


def _module_class():
    from .module import Module

    return Module
