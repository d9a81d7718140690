"""``nn.Module``: the base class of every layer and model.

A Module keeps three ordered registries filled by attribute assignment: ``_parameters``
(Parameters), ``_buffers`` (tensors saved in the state_dict but not trained) and
``_modules`` (child modules). Iteration order, ``state_dict`` keys, ``print(model)`` and the
error messages follow PyTorch's.
"""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict

from ..._tensor.core import Tensor
from ...autograd.graph import RemovableHandle
from ..parameter import Buffer, Parameter
from ._conversion import _ConversionMixin
from ._global_hooks import (  # noqa: F401 - register_module_*: PyTorch's home for them
    _global_backward_hooks,
    _global_backward_pre_hooks,
    _global_buffer_registration_hooks,
    _global_forward_hooks,
    _global_forward_pre_hooks,
    _global_module_registration_hooks,
    _global_parameter_registration_hooks,
    forward_hook_flags,
    reassign_buffer,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
    registered,
)
from ._legacy_hooks import _LegacyBackwardHookMixin
from ._state_dict import _IncompatibleKeys, _StateDictMixin  # noqa: F401 - _IncompatibleKeys: its old home


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first (nested reprs)."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return "\n".join([first] + [pad + line for line in rest])


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in (None, "builtins") else f"{module}.{name}"


def _owner(module: Module, target: str) -> tuple[Module, str]:
    """The submodule holding ``target`` ("a.b.name") and the attribute's name, which it has."""
    module_path, _, name = target.rpartition(".")
    mod = module.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
    return mod, name


class Module(_StateDictMixin, _ConversionMixin, _LegacyBackwardHookMixin):
    """``torch.nn.Module``. Subclasses set attributes in ``__init__`` and define ``forward``."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
                if kwargs
                else f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", {})
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", {})
        setattr_(self, "_forward_hooks_always_called", {})
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *input):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ---- registration ---------------------------------------------------------------------
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            persistent = tensor.__dict__.get("persistent", persistent)
        self._buffers[name] = registered(_global_buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in the "
                "forward() method."
            )
        self._parameters[name] = registered(_global_parameter_registration_hooks, self, name, param)

    def add_module(self, name: str, module) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = registered(_global_module_registration_hooks, self, name, module)

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")  # noqa: TRY004
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))  # noqa: TRY004
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if hasattr(parent, name):
            if not isinstance(getattr(parent, name), Module):
                raise AttributeError("`" + name + "` is not an nn.Module")
        elif strict:
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        mod, name = _owner(self, target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")  # noqa: TRY004
        return param

    def get_buffer(self, target: str) -> Tensor:
        mod, name = _owner(self, target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # ---- attribute protocol ----------------------------------------------------------------
    def __getattr__(self, name: str):
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")

        def remove_from(*registries):
            for r in registries:
                if name in r:
                    if r is d:
                        del d[name]
                    else:
                        del r[name]
                        if r is d.get("_buffers"):
                            d["_non_persistent_buffers_set"].discard(name)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, d["_buffers"], d["_modules"])
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' (torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, d["_parameters"], d["_buffers"])
                modules[name] = registered(_global_module_registration_hooks, self, name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{_typename(value)}' as child module '{name}' (torch.nn.Module or None expected)"
                    )
                modules[name] = registered(_global_module_registration_hooks, self, name, value)
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{_typename(value)}' as buffer '{name}' (torch.nn.Buffer, torch.Tensor or None expected)"
                        )
                    if isinstance(value, Buffer):
                        remove_from(d, d["_parameters"], d["_modules"])
                        self.register_buffer(name, value)
                    else:
                        reassign_buffer(self, name, value)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (
            list(dir(type(self)))
            + list(self.__dict__)
            + list(self._parameters)
            + list(self._modules)
        )
        keys += list(self._buffers)
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        for name in (
            "_backward_hooks",
            "_backward_pre_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
        ):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ---- iteration ---------------------------------------------------------------------------
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate: bool = True):
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ):
        return self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(
                memo, prefix + ("." if prefix else "") + name, remove_duplicate
            )

    # Modules hash by identity (they are mutable) even if a subclass defines __eq__.
    __hash__ = object.__hash__

    # ---- modes and gradients --------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")  # noqa: TRY004
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # ---- calling -----------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _global_forward_pre_hooks
            or _global_forward_hooks
            or _global_backward_hooks
            or _global_backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    _call_impl = __call__

    def compile(self, *args, **kwargs) -> None:
        """``torch.nn.Module.compile``: compile this module in place (its ``state_dict`` keys keep
        their names, unlike ``torch.compile(module)``'s ``_orig_mod.``). ``torch.compile`` checks the
        arguments and runs eagerly in taimatsu, so calls keep running ``forward`` as they are."""
        from ...compiler import compile

        compile(self._call_impl, *args, **kwargs)

    def _call_with_hooks(self, args, kwargs):
        state = {"result": None, "args": args, "kwargs": kwargs, "called": set()}
        try:
            return self._call_hooks_inner(state)
        except Exception:
            # forward hooks registered with always_call run even when forward raised
            args, kwargs, result = state["args"], state["kwargs"], state["result"]
            for hook_id, hook in itertools.chain(
                _global_forward_hooks.items(), self._forward_hooks.items()
            ):
                with_kwargs, always_call = forward_hook_flags(self, hook_id)
                if not always_call or hook_id in state["called"]:
                    continue
                try:
                    if with_kwargs:
                        res = hook(self, args, kwargs, result)
                    else:
                        res = hook(self, args, result)
                    if res is not None:
                        result = res
                except Exception as e:  # noqa: BLE001
                    warnings.warn(
                        "module forward hook with ``always_call=True`` raised an exception that was silenced as "
                        f"another error was raised in forward: {e!s}",
                        stacklevel=2,
                    )
            raise

    def _call_hooks_inner(self, state):
        args, kwargs = state["args"], state["kwargs"]
        # A snapshot, as PyTorch takes: a hook may remove itself (lazy modules' does).
        for hook_id, hook in tuple(
            itertools.chain(_global_forward_pre_hooks.items(), self._forward_pre_hooks.items())
        ):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got "
                            f"{res}."
                        )
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
            state["args"], state["kwargs"] = args, kwargs
        bw_hook = None
        full_hooks = self._full_backward_hooks()
        pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        if full_hooks or pre_hooks:
            from ._hooks import BackwardHook

            bw_hook = BackwardHook(self, full_hooks, pre_hooks)
            args = bw_hook.setup_input_hook(args)
            state["args"] = args
        result = self.forward(*args, **kwargs)
        state["result"] = result
        for hook_id, hook in tuple(
            itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items())
        ):
            with_kwargs, always_call = forward_hook_flags(self, hook_id)
            if always_call:
                state["called"].add(hook_id)
            if with_kwargs:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
                state["result"] = result
        if bw_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but "
                    f"received {type(result)}",
                    stacklevel=2,
                )
            result = bw_hook.setup_output_hook(result)
        self._attach_legacy_backward_hooks(args, result)
        return result

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use "
                "only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        handle = RemovableHandle(
            self._forward_hooks, self._forward_hooks_with_kwargs, self._forward_hooks_always_called
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    # state_dict, load_state_dict, their hooks and helpers are in _state_dict.py

    # ---- printing --------------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(m), 2) for key, m in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return self._get_name() + "(" + body + ")"
