"""``torch.nn.utils.prune``: zero out parts of a parameter through a mask.

Pruning ``module.<name>`` moves the Parameter to ``<name>_orig``, stores a ``<name>_mask`` buffer and
registers the method as a forward pre-hook that sets ``<name> = <name>_orig * <name>_mask`` before each
call. Pruning the same tensor again folds the methods into a ``PruningContainer``: each new method only
sees the entries (unstructured) or channels (structured) that are still alive. ``remove`` makes the
pruning permanent. Random methods draw with ``rand_like`` / ``rand`` in PyTorch's order, so a seeded run
prunes the same entries; assertion and error messages are PyTorch's.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ...ops.creation.factories import ones_like, zeros_like
from ...ops.creation.random import rand, rand_like

__all__ = [
    "BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured", "PruningContainer",
    "RandomStructured", "RandomUnstructured", "custom_from_mask", "global_unstructured", "identity",
    "is_pruned", "l1_unstructured", "ln_structured", "random_structured", "random_unstructured", "remove",
]  # fmt: skip


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` says which entries survive; the rest is shared."""

    _tensor_name: str  # set by ``apply`` (no class default, as in PyTorch)
    PRUNING_TYPE: str

    def __call__(self, module, inputs) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t`` (0 = pruned) given the mask already in place."""

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        return getattr(module, self._tensor_name + "_orig") * getattr(
            module, self._tensor_name + "_mask"
        )

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, chaining with earlier pruning of it."""
        method = _chain(module, name, cls(*args, **kwargs))
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of {module}, "
                    f"got {importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig
        first_time = not isinstance(method, PruningContainer)
        if first_time:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:  # put the Parameter back where it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` with this method's mask applied (no module involved)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as tensor t, got {importance_scores.shape} vs "
                    f"{t.shape}"
                )
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``<name>`` becomes a Parameter holding the masked values."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _chain(module, name, method):
    """``method`` for ``name``, wrapped with the tensor's existing pruning (removed from the hooks)."""
    found = [(k, h) for k, h in module._forward_pre_hooks.items() if isinstance(h, BasePruningMethod)
             and h._tensor_name == name]  # fmt: skip
    if len(found) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. Use a PruningContainer."
        )
    method._tensor_name = name
    if not found:
        return method
    key, old = found[0]
    del module._forward_pre_hooks[key]
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods on one tensor; the last one decides within what is left."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on "
                f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                f" Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method prunes among the entries (or channels) the earlier ones left alive."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        alive = _alive(method, t, default_mask)
        mask[alive] = method.compute_mask(t[alive], default_mask=default_mask[alive]).to(
            dtype=mask.dtype
        )
        return mask


def _alive(method, t, mask):
    """The index into ``t`` of what ``method`` may still prune, by its PRUNING_TYPE."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * t.dim()
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError(
            'Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` defined.'
        )
    n_dims, dim = t.dim(), method.dim
    if dim < 0:
        dim += n_dims
        if dim < 0:
            raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
    live_channels = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
    index = [slice(None)] * n_dims
    index[dim] = live_channels
    return tuple(index)


# ---- the methods ------------------------------------------------------------------------------------
class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones): a way to get the mask machinery without pruning."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _UnstructuredTopK(BasePruningMethod):
    """Prunes ``amount`` (a fraction or a count) entries picked by ``_pick(t, k)`` (flat indices)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count(self.amount, t.nelement())
        mask = default_mask.clone()
        if k:
            mask.view(-1)[self._pick(t, k)] = 0
        return mask


class RandomUnstructured(_UnstructuredTopK):
    """Prunes ``amount`` (a fraction or a count) entries chosen at random."""

    def _pick(self, t, k):
        return rand_like(t).view(-1).topk(k).indices

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_UnstructuredTopK):
    """Prunes the ``amount`` entries of smallest absolute value."""

    def _pick(self, t, k):
        return t.abs().view(-1).topk(k, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        n = _check_structured(t, self.dim)
        k = _count(self.amount, n)
        if not k:
            return default_mask
        prob = rand(n)
        threshold = prob.kthvalue(k).values
        mask = _channels_mask(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim: int = -1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n`` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        size = _check_structured(t, self.dim)
        k = _count(self.amount, size)
        dim = self.dim % t.dim()
        norm = t.norm(p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        keep = norm.topk(size - k, largest=True).indices
        if not k:
            return default_mask
        mask = _channels_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:  # (an assert would vanish under python -O)
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape {self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ---- checks and helpers ------------------------------------------------------------------------------
def _check_amount(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    integral = isinstance(amount, numbers.Integral)
    if (integral and amount < 0) or (not integral and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer"
        )


def _count(amount, size: int) -> int:
    """How many of ``size`` to prune: an int as is, a fraction rounded (Python's round)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(
                f"amount={amount} should be smaller than the number of parameters to prune={size}"
            )
        return amount
    return round(amount * size)


def _check_structured(t, dim: int) -> int:
    """The number of channels along ``dim``, after PyTorch's checks."""
    if t.dim() <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
            f"{t.shape} with {t.dim()} dims"
        )
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    return t.shape[dim]


def _channels_mask(t, dim: int, channels):
    """Ones on the chosen channels (a bool mask or indices) along ``dim``, zeros elsewhere."""
    mask = zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = channels
    mask[tuple(index)] = 1
    return mask


# ---- the functional forms --------------------------------------------------------------------------
def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune the ``(module, name)`` pairs together, as one vector (e.g. the globally smallest 20%)."""
    from .convert_parameters import parameters_to_vector

    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector(
        [importance_scores.get((m, n), getattr(m, n)) for m, n in parameters]
    )
    default_mask = parameters_to_vector(
        [getattr(m, n + "_mask", ones_like(getattr(m, n))) for m, n in parameters]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(
            module, name, mask=final_mask[start : start + param.numel()].view_as(param)
        )
        start += param.numel()


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and drop its hook, mask and ``_orig``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module) -> bool:
    """Whether any submodule carries a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )
