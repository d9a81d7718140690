"""``torch.func.functional_call`` and ``stack_module_state``: run a module with tensors of your
choosing in place of its parameters and buffers, and stack the state of several copies of one
model (for ``vmap`` over model ensembles)."""

from __future__ import annotations

from contextlib import contextmanager


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):  # fmt: skip
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced for the call.

    A name the module does not have becomes a plain attribute for the call (``strict=True`` refuses
    it, and refuses missing names). With ``tie_weights``, one value given for a tied tensor serves
    all its names, as in PyTorch."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous"
            )
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(  # noqa: TRY004 (PyTorch's type)
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, values, tie_weights, strict):
        return module(*args, **kwargs)


def _state_names(module) -> dict:
    """Every name of a parameter or buffer (tied ones under each of their names) -> the tensor."""
    named = list(module.named_parameters(remove_duplicate=False)) + list(
        module.named_buffers(remove_duplicate=False)
    )
    return dict(named)


def _untie(module, values: dict, names: dict) -> dict:
    groups: dict = {}
    for n, t in names.items():
        groups.setdefault(id(t), []).append(n)
    values = dict(values)
    for tied in groups.values():
        given = [n for n in tied if n in values]
        if len(tied) < 2 or not given:
            continue
        if len({id(values[n]) for n in given}) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(given)}, which are tied. Consider using "
                "tie_weights=False"
            )
        for n in tied:
            values.setdefault(n, values[given[0]])
    return values


@contextmanager
def _reparametrize(module, values: dict, tie_weights: bool, strict: bool):
    names = _state_names(module)
    if tie_weights:
        values = _untie(module, values, names)
    if strict:
        errors = []
        unexpected = [k for k in values if k not in names]
        missing = [k for k in names if k not in values]
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + "\n\t".join(errors)
            )
    undo = []
    try:
        for full, value in values.items():
            *path, name = full.split(".")
            owner = module
            for p in path:
                owner = getattr(owner, p)
            for registry in (owner._parameters, owner._buffers, owner.__dict__):
                if name in registry or registry is owner.__dict__:
                    had, old = name in registry, registry.get(name)
                    registry[name] = value
                    undo.append((registry, name, had, old))
                    break
        yield
    finally:
        for registry, name, had, old in reversed(undo):
            if had:
                registry[name] = old
            else:
                del registry[name]


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer of ``models`` (same class, same mode)
    stacked along a new leading dimension, detached; stacked parameters are leaves that require
    grad when every model's does."""
    from ..ops.shape import stack

    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(name, tensors):
        result = stack([t.detach() for t in tensors])
        flags = {t.requires_grad for t in tensors}
        if len(flags) > 1:
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        return result.requires_grad_() if flags == {True} else result

    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: stacked(k, [p[k] for p in all_params]) for k in all_params[0]}
    buffers = {k: stacked(k, [b[k] for b in all_buffers]) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """In place: every BatchNorm in ``root`` stops tracking running statistics (its running
    buffers become None), so that it can run under ``vmap``; returns ``root``."""
    from ..nn.modules.batchnorm import _BatchNorm

    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
