"""copy/copy_, fill/fill_, fill_diagonal_ and zero_: overwrite a tensor's values in place (with
their functional forms and nodes: CopyBackwards, FillBackward2/3, ZeroBackward0).
"""

from __future__ import annotations

import numbers

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import Node, node_class
from .._dispatch import _fw_state, check_inplace, inplace, record, xp_for
from ..arg_types import python_int_range
from ..shape.views import check_no_overlap, check_no_partial_overlap


# ---- copy_ / fill_ / zero_ ------------------------------------------------------------------------------------
def _copy_vjp(node, g):
    gi = g.new_zeros(()).expand(g.shape) if node.next_functions[0][0] is not None else None
    return gi, (g if node.next_functions[1][0] is not None else None)


class _Copy(Node):
    """``copy_``'s node; PyTorch names it torch::autograd::CopyBackwards."""

    __slots__ = ()
    apply = _copy_vjp

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"


_Copy.__name__ = _Copy.__qualname__ = "CopyBackwards"


def _src_array(self: Tensor, src: Tensor):
    from ..creation.factories import _cast

    data = src._data
    if src._device != self._device:
        from ...backend import to_device

        if src._device.type == "meta":
            from ..._meta import NO_DATA

            raise NotImplementedError(NO_DATA)
        data = to_device(data, self._device)
    if data.shape != self._data.shape:
        try:
            shape = np.broadcast_shapes(self._data.shape, data.shape)
        except ValueError:
            shape = None
        if shape != self._data.shape:
            from .._dispatch import broadcast_error

            if shape is None:
                raise broadcast_error((self._data.shape, data.shape))
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape {list(shape)}"
            )
    return _cast(data, src._dtype, self._dtype) if src._dtype is not self._dtype else data


def copy(self: Tensor, src: Tensor) -> Tensor:
    """The functional form of ``copy_``: ``src`` broadcast to ``self``'s shape and dtype."""
    out = xp_for(self).empty(self._data.shape, self._dtype.np)
    out[...] = _src_array(self, src)
    r = _wrap(out, self._dtype, self._device)
    if _gm.enabled and (self._rg or src._rg):
        record(_Copy, (self, src), r, ())
    if _fw_state.level and src._fw is not None:
        r._fw = src._fw.expand(self.shape).to(self._dtype)
        _register(r)
    elif (
        _fw_state.level and self._fw is not None
    ):  # overwritten by a value with no tangent: zero tangent
        r._fw = self._fw.new_zeros(self.shape)
        _register(r)
    return r


def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
        )
    if not (_gm.enabled and (self._rg or src._rg)) and not _fw_state.level:
        check_inplace(self)
        if 0 in self._data.strides:
            check_no_overlap(self)
        check_no_partial_overlap(self._data, src._data)
        data = _src_array(self, src)
        if self._device.type != "meta":  # a meta tensor has no data to write
            self._data[...] = data
        self._vc[0] += 1
        return self
    return inplace(self, copy, (src,), False)


_Fill = node_class("FillBackward2", lambda node, g: (g.new_zeros(()).expand(g.shape),))
_FillTensor = node_class(
    "FillBackward3",
    lambda node, g: (
        g.new_zeros(()).expand(g.shape) if node.next_functions[0][0] is not None else None,
        g.sum() if node.next_functions[1][0] is not None else None,
    ),
)
_Zero = node_class("ZeroBackward0", lambda node, g: (g.new_zeros(()).expand(g.shape),))


def _filled(self: Tensor, value) -> Tensor:
    xp = xp_for(self)
    if isinstance(value, Tensor):
        v = _src_array(_wrap(xp.empty((), self._dtype.np), self._dtype, self._device), value)
    else:
        v = value
    return _wrap(xp.full(self._data.shape, v, self._dtype.np), self._dtype, self._device)


def fill(self: Tensor, value) -> Tensor:
    r = _filled(self, value)
    is_t = isinstance(value, Tensor)
    if _gm.enabled and (self._rg or (is_t and value._rg)):
        if is_t:
            record(_FillTensor, (self, value), r, ())
        else:
            record(_Fill, (self,), r, ())
    if _fw_state.level and (self._fw is not None or is_t and value._fw is not None):
        if is_t and value._fw is not None:
            r._fw = value._fw.to(self._dtype).expand(self.shape).clone()
        else:
            r._fw = self._fw.new_zeros(self.shape)
        _register(r)
    return r


def _fill_scalar(value, dtype: D.dtype, single: bool):
    """fill_'s Scalar as PyTorch's parser and checked conversion read it: a number (else no
    overload matches), within int64/uint64, and representable in ``dtype`` (NumPy would store
    inf, wrap, or raise its own OverflowError/ValueError)."""
    from ..creation.factories import _checked_fill

    if not isinstance(value, (numbers.Number, np.bool_)):
        raise TypeError(
            f"fill_() received an invalid combination of arguments - got ({type(value).__name__}), "
            "but expected one of:\n * (Tensor value)\n * (Number value)\n"
        )
    python_int_range(value)
    return _checked_fill(value, dtype, single=single)


def fill_(self: Tensor, value) -> Tensor:
    if not isinstance(value, Tensor):
        value = _fill_scalar(value, self._dtype, self._data.size == 1)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
            )
        return inplace(self, fill, (value,), False, overlap_ok=True)
    return inplace(
        self,
        lambda s: fill(s, value),
        (),
        False,
        fast=lambda: self._data.fill(value),
        overlap_ok=True,
    )


def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """``Tensor.fill_diagonal_``: ``fill_`` on a strided view of the main diagonal (so autograd
    sees a view written in place, as in PyTorch: CopySlices, and the leaf-view error). The
    diagonal's stride is the sum of the tensor's strides. With ``wrap``, a matrix taller than
    ``width + 1`` rows goes on with a second diagonal every ``width + 1`` rows, as NumPy's
    ``fill_diagonal``."""
    if isinstance(fill_value, Tensor) and fill_value._data.ndim == 0:
        fill_value = fill_value.item()  # the parser reads a 0-d tensor as its Number
    if isinstance(fill_value, Tensor) or not isinstance(fill_value, numbers.Number):
        raise TypeError(
            "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    shape, n = self._data.shape, self._data.ndim
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = shape[0], shape[1]
    if n > 2 and any(d != height for d in shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    strides, offset = self.stride(), self.storage_offset()
    step = sum(strides)
    size = min(height, width)
    self.as_strided((size,), (step,), offset).fill_(fill_value)
    if wrap and n == 2 and height > width + 1:
        rows = width + 1
        more = -(-self._data.size // rows) - size
        self.as_strided((more,), (step,), offset + strides[0] * rows).fill_(fill_value)
    return self


def _zero(self: Tensor) -> Tensor:
    r = _wrap(xp_for(self).zeros(self._data.shape, self._dtype.np), self._dtype, self._device)
    if _gm.enabled and self._rg:
        record(_Zero, (self,), r, ())
    if _fw_state.level and self._fw is not None:
        r._fw = self._fw.new_zeros(self.shape)
        _register(r)
    return r


def zero_(self: Tensor) -> Tensor:
    return inplace(self, _zero, (), False, fast=lambda: self._data.fill(0), overlap_ok=True)
