"""``torch.nn.utils.stateless.functional_call``: call a module with some of its parameters and buffers
replaced by the given tensors, for that one call.

The tensors are put straight into the owning module's ``_parameters`` / ``_buffers`` (a plain tensor
may stand in for a Parameter, so gradients flow to it) and the originals are put back afterwards,
even when forward raises. Names the module does not have become plain attributes for the call
(PyTorch does the same). With ``tie_weights`` a value given for one of several names sharing a
tensor is used for all of them.
"""

from __future__ import annotations

import contextlib
import warnings
from collections import Counter

from ..._tensor.core import Tensor

__all__ = ["functional_call"]

_MISSING = object()


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):  # fmt: skip
    """PyTorch's deprecated form of ``torch.func.functional_call`` (one dict only)."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a "
        "future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
        "replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )


def _merge_dicts(dicts) -> dict:
    """``torch.func.functional_call``'s argument: one dict or a list/tuple of dicts without shared keys."""
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, (list, tuple)):
        raise ValueError(  # noqa: TRY004 - PyTorch's type
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(dicts)}"
        )
    counts = Counter(k for d in dicts for k in d)
    repeated = [k for k, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(
            f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous"
        )
    return {k: v for d in dicts for k, v in d.items()}


def _functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _tied_groups(module) -> list[list[str]]:
    """Names (parameters and buffers, duplicates kept) that refer to one tensor, where there are several."""
    names: dict[int, list[str]] = {}
    for name, t in [
        *module.named_parameters(remove_duplicate=False),
        *module.named_buffers(remove_duplicate=False),
    ]:
        names.setdefault(id(t), []).append(name)
    return [group for group in names.values() if len(group) > 1]


def _untie(module, values: dict) -> dict:
    values = dict(values)
    for group in _tied_groups(module):
        given = [n for n in group if n in values]
        if not given:
            continue
        value = values[given[0]]
        if any(values[n] is not value for n in given):
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(given)}, which are tied. Consider using "
                "tie_weights=False"
            )
        for n in group:
            values[n] = value
    return values


def _check_strict(module, values: dict) -> None:
    names = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    names |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(names - set(values)), sorted(set(values) - names)
    msgs = []
    if unexpected:
        msgs.append("Unexpected key(s): {}.".format(", ".join(map(repr, unexpected))))
    if missing:
        msgs.append("Missing key(s): {}.".format(", ".join(map(repr, missing))))
    if msgs:
        raise RuntimeError(
            "Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)
            )
        )


def _swap(module, name: str, tensor):
    """Put ``tensor`` at the dotted ``name`` and return what was there (``_MISSING`` if nothing)."""
    path, _, attr = name.rpartition(".")
    owner = module.get_submodule(path)
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for registry in (owner._parameters, owner._buffers):
        if attr in registry:
            old = registry[attr]
            if tensor is _MISSING:
                del registry[attr]
            else:
                registry[attr] = tensor
            return old
    old = getattr(owner, attr) if hasattr(owner, attr) else _MISSING
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{attr}`: {old} is not an instance of torch.Tensor")
    if tensor is _MISSING:
        if hasattr(owner, attr):
            delattr(owner, attr)
    else:
        setattr(owner, attr, tensor)
    return old


@contextlib.contextmanager
def _reparametrize(module, parameters_and_buffers, tie_weights: bool, strict: bool):
    values = _untie(module, parameters_and_buffers) if tie_weights else dict(parameters_and_buffers)
    if strict:
        _check_strict(module, values)
    originals = {}
    try:
        for name, tensor in values.items():
            originals[name] = _swap(module, name, tensor)
        yield
    finally:
        for name, old in originals.items():
            _swap(module, name, old)
