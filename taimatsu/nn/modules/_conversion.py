"""``Module.to`` and its family (``float``, ``double``, ``half``, ``cuda``, ``_apply``, ...): moving
and casting a module's parameters and buffers.

The methods live on a mixin that ``Module`` inherits from (``module.py``), as the state-dict
methods do (``_state_dict.py``). Parameters keep their identity (optimizers hold them): only
their memory is swapped, as in PyTorch.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ... import _dtype as D
from ..._device import as_device
from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad

if TYPE_CHECKING:
    from .module import Module


class _ConversionMixin:
    """The conversion methods of ``Module`` (which defines ``_parameters``, ``_buffers`` and
    ``children``)."""

    def _apply(self, fn, recurse: bool = True) -> Module:
        if recurse:
            for m in self.children():
                m._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                new = fn(param)
            # Keep the Parameter object (optimizers hold it); swap its memory in place.
            param.data = new
            if param._grad is not None:
                with no_grad():
                    param._grad = fn(param._grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        from ...ops.creation.factories import _parse_to as tensor_to_arguments

        if args:  # PyTorch parses both with one parser: its errors for arguments of no overload
            tensor_to_arguments(args, dict(kwargs))
        device, dtype, _non_blocking, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None:
            if dtype.category < D.FLOAT:
                raise TypeError(
                    f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
                )
            if dtype.category == D.COMPLEX:
                warnings.warn(_COMPLEX_MODULE, stacklevel=2)

        def convert(t):
            # floating and complex tensors take the dtype; 4-d and 5-d ones the memory format
            cast = (
                dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else None
            )
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(device, cast, memory_format=memory_format)
            if cast is not None:
                return t.to(device=device, dtype=cast)
            return t.to(device) if device is not None else t

        return self._apply(convert)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Parameters and buffers become uninitialized tensors of the same shape on ``device``."""
        from ...ops.creation.factories import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def share_memory(self) -> Module:
        return self._apply(lambda t: t.share_memory_())


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from ``Module.to``'s overloads."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(
            f"to() received an invalid combination of arguments: unexpected {sorted(kwargs)}"
        )
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, bool):
            non_blocking = a
        else:
            device = a
    if device is not None:
        device = as_device(device)
    return device, dtype, non_blocking, memory_format


_COMPLEX_MODULE = (
    "Complex modules are a new feature under active development whose design may change, and some "
    "modules might not work as expected when using complex tensors as parameters or buffers. Please "
    "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if a complex "
    "module does not work as expected."
)
