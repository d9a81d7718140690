"""``parameters_to_vector`` / ``vector_to_parameters``."""

from __future__ import annotations

from ..._tensor.core import Tensor


def _check_param_device(param, old):
    if old is None:
        return param.device
    if param.device != old:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return old


def parameters_to_vector(parameters) -> Tensor:
    """One flat tensor of all the parameters (a cat of their flattened views)."""
    from ...ops.shape.copies import cat

    device, vec = None, []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Point each parameter's ``.data`` at its slice of ``vec``."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device, pointer = None, 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n
