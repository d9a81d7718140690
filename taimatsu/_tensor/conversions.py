"""Tensor's dtype and device conversions (``to``, ``float``, ``cuda``, ...) and the ``new_*``
factories: one-line delegates to ``ops.creation``.

Kept apart from _tensor/core.py, like the op methods (_tensor/methods.py). ``ops.creation`` imports
Tensor, so it is bound here by ``_bind()`` once Tensor exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _dtype as D
from .._device import as_device

if TYPE_CHECKING:
    from .core import Tensor

_creation = _Tensor = None


def _bind() -> None:
    global _creation, _Tensor
    from ..ops.creation import factories as _creation
    from .core import Tensor as _Tensor


def _new(self, factory, args, dtype, device, requires_grad) -> Tensor:
    """A ``new_*`` factory: ``factory(*args)`` with ``self``'s dtype and device by default."""
    return factory(
        *args,
        dtype=D.dtype_argument(factory.__name__, dtype) or self._dtype,
        device=device or self._device,
        requires_grad=requires_grad,
    )


def _new_size(name: str, size: tuple, kw: dict) -> tuple:
    """``new_zeros(2, 3)`` / ``new_zeros((2, 3))`` / ``new_zeros(size=(2, 3))``, PyTorch's errors
    naming the method (not the factory) when the size is missing or given twice."""
    from ..ops.creation.factories import NO_SIZE, _size_args, size_keyword

    given = kw.pop("size", NO_SIZE)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
    return (_size_args(size_keyword(name, size, given), name),)  # checked, as one sequence


class TensorConversions:
    """The conversion methods of ``Tensor`` (which defines ``_dtype`` and ``_device``)."""

    __slots__ = ()

    def to(self, *args, **kwargs) -> Tensor:
        return _creation.tensor_to(self, *args, **kwargs)

    def cpu(self, memory_format=None) -> Tensor:
        return self.to("cpu")

    def cuda(self, device=None, non_blocking: bool = False, **kwargs) -> Tensor:
        d = as_device(
            "cuda"
            if device is None
            else (device if not isinstance(device, int) else f"cuda:{device}")
        )
        return self.to(d)

    def float(self) -> Tensor:
        return self.to(D.float32)

    def double(self) -> Tensor:
        return self.to(D.float64)

    def half(self) -> Tensor:
        return self.to(D.float16)

    def bfloat16(self) -> Tensor:
        return self.to(D.bfloat16)

    def long(self) -> Tensor:
        return self.to(D.int64)

    def int(self) -> Tensor:
        return self.to(D.int32)

    def short(self) -> Tensor:
        return self.to(D.int16)

    def char(self) -> Tensor:
        return self.to(D.int8)

    def byte(self) -> Tensor:
        return self.to(D.uint8)

    def bool(self) -> Tensor:
        return self.to(D.bool)

    def cfloat(self) -> Tensor:
        return self.to(D.complex64)

    def cdouble(self) -> Tensor:
        return self.to(D.complex128)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other._dtype)

    def pin_memory(self, device=None) -> Tensor:
        """A copy in page-locked host memory (CuPy's pinned allocator); PyTorch's error without
        an accelerator, and on a tensor that is not on the CPU."""
        from .. import backend

        if self._device.type != "cpu":
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        if backend.is_pinned(self._data):
            return self
        from .core import _wrap

        return _wrap(backend.pin(self._data), self._dtype, self._device)

    def is_pinned(self, device=None) -> bool:
        from .. import backend

        return self._device.type == "cpu" and backend.is_pinned(self._data)

    def share_memory_(self) -> Tensor:
        from ..storage import share_tensor_memory

        return share_tensor_memory(self)

    def is_shared(self) -> bool:
        from ..storage import tensor_is_shared

        return tensor_is_shared(self)

    def resolve_conj(self) -> Tensor:
        return self

    def resolve_neg(self) -> Tensor:
        return self

    def is_conj(self) -> bool:
        return False

    def is_neg(self) -> bool:
        return False

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False) -> Tensor:
        if isinstance(data, _Tensor):
            import warnings

            from .._flags import user_stacklevel

            warnings.warn(_creation.COPY_CONSTRUCT.format("tensor.new_tensor"), UserWarning,
                          stacklevel=user_stacklevel())  # fmt: skip
            data = data.detach()  # (warned once: the factory below sees no tensor to warn about)
            return _new(self, _creation.tensor_quiet, (data,), dtype, device, requires_grad)
        return _new(self, _creation.tensor, (data,), dtype, device, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **kw) -> Tensor:
        return _new(
            self, _creation.zeros, _new_size("new_zeros", size, kw), dtype, device, requires_grad
        )

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, **kw) -> Tensor:
        return _new(
            self, _creation.ones, _new_size("new_ones", size, kw), dtype, device, requires_grad
        )

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **kw) -> Tensor:
        return _new(
            self, _creation.empty, _new_size("new_empty", size, kw), dtype, device, requires_grad
        )

    def new_empty_strided(
        self, size, stride, dtype=None, device=None, requires_grad=False, **kw
    ) -> Tensor:
        return _creation.empty_strided(
            size, stride, dtype=dtype or self._dtype, device=device or self._device,
            requires_grad=requires_grad, **kw,
        )  # fmt: skip

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
        return _creation.new_full(self, size, fill_value, dtype, device, requires_grad)

    def new(self, *args, **kwargs) -> Tensor:
        return _creation.legacy_new(_Tensor, self._dtype, args, kwargs.get("device", self._device))
