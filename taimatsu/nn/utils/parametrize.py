"""``torch.nn.utils.parametrize``: a tensor of a module computed from stored originals.

As in PyTorch, ``register_parametrization`` swaps the module's class for a subclass named
``Parametrized<Class>`` with a property for the tensor, and keeps the originals in
``module.parametrizations[name].original`` (or ``original0``, ``original1``... when
``right_inverse`` returns several tensors), so state_dict keys and reprs are PyTorch's.
"""

from __future__ import annotations

import contextlib

from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]  # fmt: skip

_cache_enabled = 0
_cache: dict = {}


@contextlib.contextmanager
def cached():
    """Compute each parametrized tensor once inside the context."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module, name, x) -> None:
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _set_original(original, new) -> None:
    with no_grad():
        original.data = new.detach() if isinstance(new, Tensor) else new


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to the stored originals."""

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, list, tuple)):
            raise ValueError(  # noqa: TRY004 - PyTorch raises ValueError
                f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}"
                )
            if new is not original:
                _set_original(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError(  # noqa: TRY004 - PyTorch raises ValueError
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                        f"Got element {i} of the sequence with type {type(originali).__name__}."
                    )
                originali = originali.detach()
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag "
                    f"is enabled.\nunparametrized dtype: {original_dtype}\nparametrized dtype: {z.dtype}"
                )
            if z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag "
                    f"is enabled.\nunparametrized shape: {original_shape}\nparametrized shape: {z.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Set the originals so that the parametrization evaluates to ``value``."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                _set_original(self.original, value)
            else:
                for i, tensor in enumerate(value):
                    _set_original(getattr(self, f"original{i}"), tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    cls = module.__class__

    def default_deepcopy(self, memo):
        import copy

        obj = memo.get(id(self))
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
        )

    dct = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self, value) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name=None) -> bool:
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` applied to its stored original."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` "
                    f"flag is enabled.\nmodule.{tensor_name}.dtype: {y.dtype}\nparametrization(module.{tensor_name})"
                    f".dtype: {x.dtype}"
                )
            if x.shape != y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless the `unsafe` "
                    f"flag is enabled.\nmodule.{tensor_name}.shape: {y.shape}\nparametrization(module.{tensor_name})"
                    f".shape: {x.shape}"
                )
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
            f"'{tensor_name}'"
        )
    return module


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            _set_original(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms "
                "of a sequence of tensors."
            )
        # computed with grad mode on: whether one of the originals requires grad decides
        # whether the tensor left behind is a Parameter that does (PyTorch's rule)
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), True) if t.requires_grad else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Give ``to_module`` the parametrizations of ``from_module`` (all of them, or the one on
    ``tensor_name``), sharing their modules and original tensors: both modules then compute the
    same tensor from the same parameters. A tensor ``to_module`` lacks is first created as a
    Parameter holding ``from_module``'s current value. Nothing happens when ``from_module`` is
    not parametrized. Returns ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        # the originals themselves, shared: "original", or "original0", "original1", ...
        if hasattr(source, "original"):
            originals = ["original"]
        else:
            originals = []
            while hasattr(source, f"original{len(originals)}"):
                originals.append(f"original{len(originals)}")
        for attr in originals:
            setattr(target, attr, getattr(source, attr))
    return to_module
