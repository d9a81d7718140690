"""``Conv1d``, ``Conv2d``, ``ConvTranspose1d``, ``ConvTranspose2d``."""

from __future__ import annotations

import math

from ...ops.creation.factories import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._paths import reexport
from .module import Module

# PyTorch's path for the lazy classes (pickles name them so); lazy.py imports this module.
__getattr__ = reexport(
    __name__,
    dict.fromkeys(
        (
            "_LazyConvXdMixin",
            "LazyConv1d",
            "LazyConv2d",
            "LazyConv3d",
            "LazyConvTranspose1d",
            "LazyConvTranspose2d",
            "LazyConvTranspose3d",
        ),
        "lazy",
    ),
)


def _pair(v) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v, v)


_PADDING_STRINGS = {"same", "valid"}


class _ConvNd(Module):
    def __init__(
        self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
        groups, bias, padding_mode, device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                # PyTorch formats a set here, so the order of the two names follows string hashing.
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode="
                f"'{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's (last dim first) amounts for the non-zeros padding modes.
        if isinstance(padding, str):
            rev = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    rev[2 * i] = total // 2
                    rev[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = rev
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        shape = (
            (in_channels, out_channels // groups)
            if transposed
            else (out_channels, in_channels // groups)
        )
        self.weight = Parameter(empty((*shape, *kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as PyTorch initialises.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        n = len(self.kernel_size)
        if self.padding != (0,) * n:
            s += ", padding={padding}"
        if self.dilation != (1,) * n:
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * n:
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class Conv2d(_ConvNd):
    """2-D convolution over (N, C, H, W) or (C, H, W) input; grad_fn ConvolutionBackward0."""

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
        bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None,
    ) -> None:  # fmt: skip
        padding = padding if isinstance(padding, str) else _pair(padding)
        super().__init__(
            in_channels, out_channels, _pair(kernel_size), _pair(stride), padding, _pair(dilation), False,
            (0, 0), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv2d(padded, weight, bias, self.stride, (0, 0), self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _triple(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v, v)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) input (2-D kernels over the depth taps)."""

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
        bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None,
    ) -> None:  # fmt: skip
        padding = padding if isinstance(padding, str) else _triple(padding)
        super().__init__(
            in_channels, out_channels, _triple(kernel_size), _triple(stride), padding, _triple(dilation), False,
            (0, 0, 0), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv3d(
                padded, weight, bias, self.stride, (0, 0, 0), self.dilation, self.groups
            )
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _single(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) or (C, L) input; grad_fn ConvolutionBackward0."""

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
        bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None,
    ) -> None:  # fmt: skip
        padding = padding if isinstance(padding, str) else _single(padding)
        super().__init__(
            in_channels, out_channels, _single(kernel_size), _single(stride), padding, _single(dilation), False,
            (0,), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv1d(padded, weight, bias, self.stride, (0,), self.dilation, self.groups)
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                 bias, padding_mode, device, dtype, n) -> None:  # fmt: skip
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        tup = {1: _single, 2: _pair, 3: _triple}[n]
        super().__init__(
            in_channels, out_channels, tup(kernel_size), tup(stride), tup(padding), tup(dilation), True,
            tup(output_padding), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        n = len(self.kernel_size)
        lead = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {lead + n} elements "
                f"(got {len(output_size)})"
            )
        lo = [
            (input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
            + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            for d in range(n)
        ]  # fmt: skip
        hi = [m + s - 1 for m, s in zip(lo, self.stride)]
        for size, a, b in zip(output_size, lo, hi):
            if not a <= size <= b:
                # PyTorch prints input.size()[2:] here, even for unbatched input.
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {lo} to {hi} (for an "
                    f"input of {input.size()[2:]})"
                )
        return [size - m for size, m in zip(output_size, lo)]


class ConvTranspose1d(_ConvTransposeNd):
    def __init__(
        self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
        groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                         bias, padding_mode, device, dtype, 1)  # fmt: skip

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)  # fmt: skip


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution (the adjoint of Conv2d); grad_fn ConvolutionBackward0."""

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
        groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                         bias, padding_mode, device, dtype, 2)  # fmt: skip

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)  # fmt: skip


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution (the adjoint of Conv3d); grad_fn ConvolutionBackward0."""

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
        groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, output_padding, groups,
                         bias, padding_mode, device, dtype, 3)  # fmt: skip

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)  # fmt: skip
