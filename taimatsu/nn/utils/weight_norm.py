"""The legacy ``torch.nn.utils.weight_norm``: ``<name>_g`` and ``<name>_v`` parameters and a forward
pre-hook that recomputes ``<name>`` before each call (PyTorch's ``WeightNorm`` hook)."""

from __future__ import annotations

import warnings

from ...ops.nn.weight_norm import _weight_norm, norm_except_dim
from ..parameter import Parameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


class WeightNorm:
    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name: str, dim: int) -> WeightNorm:
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=2,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(
            name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach())
        )
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim: int = 0):
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
