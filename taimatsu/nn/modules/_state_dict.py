"""``Module.state_dict`` / ``load_state_dict``: saving and loading parameters and persistent buffers.

The methods live on a mixin that ``Module`` inherits from (``module.py``), so this file holds only
the state-dict machinery; keys, metadata, hooks and error messages follow PyTorch's.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_NEVER = (
    "Reached a code path in Module.{}() that should never be called. Please file an issue at "
    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
)


def _meta_copy_warning(key: str) -> str:
    return (
        f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in the "
        "current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in "
        "the state dictionary to their corresponding key in the module instead of copying them in "
        "place?)"
    )


def _overrides(module, name: str) -> bool:
    return getattr(type(module), name) is not getattr(_StateDictMixin, name)


def _add_hook(hooks: dict, hook):
    from .module import RemovableHandle

    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


class _StateDictMixin:
    """The state-dict methods of ``Module`` (which defines ``_parameters``, ``_buffers``, ``_modules``,
    ``_non_persistent_buffers_set`` and the hook dicts these read)."""

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if _overrides(self, "get_extra_state"):
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def get_extra_state(self):
        """What a subclass returns here is saved under ``_extra_state`` (it must override both)."""
        raise RuntimeError(_NEVER.format("get_extra_state"))

    def set_extra_state(self, state) -> None:
        raise RuntimeError(_NEVER.format("set_extra_state"))

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        if args:  # the deprecated positional form (destination, prefix, keep_vars); keywords win
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if res is not None:
                if getattr(hook, "_from_public_api", False):
                    raise RuntimeError("state_dict post-hook must return None")
                destination = res
        return destination

    # ---- hooks (PyTorch's signatures) -----------------------------------------------------------
    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before this module saves its state."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)``, which must return None."""
        hook = functools.partial(hook)  # a mark that does not touch the user's function
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """The private form, whose hook may return a new state_dict."""
        return _add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` runs before this module loads its part of the state_dict."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """The private form: the hook gets the module first only ``with_module``."""
        return _add_hook(
            self._load_state_dict_pre_hooks, functools.partial(hook, self) if with_module else hook
        )

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after this module and its children loaded; it may
        edit ``incompatible_keys``' lists in place (what ``strict`` then checks)."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent_buffers = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
            if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object from '
                    f"checkpoint but received {type(input_param)}"
                )
                continue
            if input_param.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} from checkpoint, "
                    f"the shape in current model is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(input_param, Parameter):
                            setattr(
                                self,
                                name,
                                Parameter(input_param, requires_grad=param.requires_grad),
                            )
                        else:
                            setattr(self, name, input_param)
                    else:
                        if param.is_meta and not input_param.is_meta:
                            warnings.warn(_meta_copy_warning(key), UserWarning, stacklevel=2)
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are {param.size()} and '
                    f"whose dimensions in the checkpoint are {input_param.size()}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + "_extra_state"
        if _overrides(self, "set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                rest = key[len(prefix) :]
                input_name = rest.split(".", 1)[0]
                if input_name not in self._modules and input_name not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(
        self, state_dict, strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state, prefix=""):
            local = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local["assign_to_params_buffers"] = True
            # Always strict here (PyTorch too): ``strict`` only decides whether the keys raise.
            module._load_from_state_dict(
                local_state, prefix, local, True, missing_keys, unexpected_keys, error_msgs
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(
                        child,
                        {k: v for k, v in local_state.items() if k.startswith(child_prefix)},
                        child_prefix,
                    )
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return "
                        "new values, if incompatible_keys need to be modified, it should be done inplace."
                    )

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)
                    ),
                )
            if missing_keys:
                error_msgs.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing_keys)
                    ),
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(error_msgs)
                )
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)
