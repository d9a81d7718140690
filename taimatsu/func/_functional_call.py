"""``torch.func.functional_call`` and ``stack_module_state``: run a module with tensors of your
choosing in place of its parameters and buffers, and stack the state of several copies of one
model (for ``vmap`` over model ensembles)."""

from __future__ import annotations


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):  # fmt: skip
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced for the call.

    ``parameter_and_buffer_dicts`` is a dict or a list/tuple of dicts without shared keys. The
    swapping (tied weights, ``strict``, PyTorch's errors) is ``nn.utils.stateless``'s, which this
    shares."""
    from ..nn.utils.stateless import _functional_call, _merge_dicts

    values = _merge_dicts(parameter_and_buffer_dicts)
    return _functional_call(module, values, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer of ``models`` (same class, same mode)
    stacked along a new leading dimension, detached; stacked parameters are leaves that require
    grad when every model's does."""
    from ..ops.shape.copies import stack

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
