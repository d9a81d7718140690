"""Lazy modules: ``LazyLinear``, ``LazyConv*`` / ``LazyConvTranspose*``, ``LazyBatchNorm*`` and
``LazyInstanceNorm*`` infer their input size from the first batch they see.

Their parameters start as ``UninitializedParameter``; a forward pre-hook materializes them from
the first input, runs the layer's usual ``reset_parameters`` (so, after the same seed, the weights
equal the eager layer's), removes itself and turns the module into ``cls_to_become`` (``Linear``,
``Conv2d``, ...), as PyTorch does. Loading a state dict into a lazy module materializes the
parameters with the checkpoint's shapes.
"""

from __future__ import annotations

from ... import _dtype as D
from ...autograd.grad_mode import no_grad
from ...ops.creation.factories import tensor
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import RemovableHandle


class LazyModuleMixin:
    """Mixed in before the eager layer class: hooks that materialize parameters on first use."""

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = self._lazy_load_hook
        self._load_hook = handle
        self._initialize_hook = self.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        )

    def has_uninitialized_params(self) -> bool:
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs) -> None:  # fmt: skip
        for name, t in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if t is not None and key in state_dict and is_lazy(t) and not is_lazy(state_dict[key]):
                with no_grad():
                    t.materialize(state_dict[key].shape)

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is inferred from the first input's last dim."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)  # bias False: no tensor that is about to be replaced
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to in_features from "
                    f"self.weight: {self.weight.shape[-1]}"
                )
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    _n = 2

    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input) -> int:
        unbatched = self._n + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class _LazyConvNd(_LazyConvXdMixin):
    """The ``__init__`` of ``LazyConv{1,2,3}d``: the eager layer built with no channels yet."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin):
    """The ``__init__`` of ``LazyConvTranspose{1,2,3}d`` (``ConvTranspose*``'s argument order)."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)  # fmt: skip
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """``Conv1d`` whose ``in_channels`` is inferred from the first input."""

    cls_to_become = Conv1d
    _n = 1


class LazyConv2d(_LazyConvNd, Conv2d):
    """``Conv2d`` whose ``in_channels`` is inferred from the first input."""

    cls_to_become = Conv2d
    _n = 2


class LazyConv3d(_LazyConvNd, Conv3d):
    """``Conv3d`` whose ``in_channels`` is inferred from the first input."""

    cls_to_become = Conv3d
    _n = 3


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """``ConvTranspose1d`` whose ``in_channels`` is inferred from the first input."""

    cls_to_become = ConvTranspose1d
    _n = 1


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """``ConvTranspose2d`` whose ``in_channels`` is inferred from the first input."""

    cls_to_become = ConvTranspose2d
    _n = 2


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """``ConvTranspose3d`` whose ``in_channels`` is inferred from the first input."""

    cls_to_become = ConvTranspose3d
    _n = 3


class _LazyNormBase(LazyModuleMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None) -> None:  # fmt: skip
        super().__init__(0, eps, momentum, False, False, device, dtype)  # no tensors yet
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=D.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        with no_grad():
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None and is_lazy(t):
                    t.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """``BatchNorm1d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """``BatchNorm2d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """``BatchNorm3d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    """``InstanceNorm1d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    """``InstanceNorm2d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    """``InstanceNorm3d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = InstanceNorm3d
