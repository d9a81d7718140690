"""``convert_conv2d_weight_memory_format`` / ``convert_conv3d_weight_memory_format``: lay the weights of
every (transposed) convolution of a module tree out in a memory format, in place."""

from __future__ import annotations


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        w = module.weight
        # the Parameter keeps its identity (optimizers hold it): only its data gets the new layout
        w.data = w.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Conv2d/ConvTranspose2d weights of ``module`` (recursively) in ``memory_format``; returns ``module``."""
    from ..modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Conv3d/ConvTranspose3d weights of ``module`` (recursively) in ``memory_format``; returns ``module``."""
    from ..modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
