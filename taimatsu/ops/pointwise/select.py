"""Elementwise selection: clamp (and clip), where, masked_fill, with their in-place forms."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ... import _dtype as D
from ..._device import cpu
from ..._tensor.core import Tensor, _wrap
from ..._tensor_arguments import NUMBERS, invalid_combination, type_name
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import (
    OUT_FOUND,
    _fw_state,
    broadcast_error,
    check_devices,
    inplace,
    need_tensor,
    record,
    result_dtype,
    write_out,
    xp_for,
)
from ..arg_types import python_int_range
from . import fused as _fz
from .common import _scalar, _shape, _tensor_or_none, bound_first


def _clamp_vjp(node, g):
    (x,) = node.saved()
    mask = None
    if node.lo is not None:
        mask = x >= node.lo
    if node.hi is not None:
        m = x <= node.hi
        mask = m if mask is None else mask & m
    # where, not g * mask: outside (or at NaN) the gradient is +0 even for a negative or NaN g
    return (g.where(mask, g.new_zeros(())),)


_Clamp = node_class("ClampBackward1", _clamp_vjp)


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    """Clamp into [min, max]; the gradient passes where the input is inside (inclusive)."""
    need_tensor("clamp", input)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if input._dtype.category == D.COMPLEX:
        raise NotImplementedError("clamp is not supported for complex types")
    if (
        input._dtype in D._SHELL_UINTS
        and not isinstance(min, Tensor)
        and not isinstance(max, Tensor)
    ):
        _no_scalar_kernel(input._dtype, min, max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        r = _fz.clamp_tensor(input, min, max)
        return r if out is None else write_out(out, r, "clamp")
    floating = input._dtype.category == D.FLOAT  # the bounds take its dtype, no promotion
    min, max = _parsed_bound(min, floating), _parsed_bound(max, floating)
    dt = result_dtype(input, *(v for v in (min, max) if v is not None))
    if dt.category == D.COMPLEX:  # an integer input promoted by a complex bound
        raise NotImplementedError("clamp is not supported for complex types")
    if dt is D.bool:
        _no_scalar_kernel(dt, min, max)
    if dt is not D.float64:
        min, max = _in_range(dt, min), _in_range(dt, max)
    xp = np if input._device is cpu else xp_for(input)
    a = input._data if input._dtype is dt else input._data.astype(dt.np)
    if min is not None and max is not None and not (isinstance(min, float) and math.isnan(min)):
        r = bound_first(xp, xp.minimum, max, bound_first(xp, xp.maximum, min, a))
    elif min is not None:
        r = bound_first(xp, xp.maximum, min, a)
    else:
        r = bound_first(xp, xp.minimum, max, a)
    res = _wrap(r.astype(dt.np, copy=False), dt, input._device)
    if _gm.enabled and input._rg:
        record(_Clamp, (input,), res, (input,), lo=min, hi=max)
    if _fw_state.level and input._fw is not None:
        res._fw = input._fw * _clamp_vjp_mask(input, min, max)
        _register(res)
    return res if out is None else write_out(out, res, "clamp", OUT_FOUND)


def _no_scalar_kernel(dt, min, max):
    """PyTorch has no clamp kernel with number bounds for bool and uint16/32/64 tensors."""
    side = "" if min is not None and max is not None else "min_" if max is None else "max_"
    raise NotImplementedError(f"\"clamp_{side}scalar_cpu\" not implemented for '{_scalar(dt)}'")


def _parsed_bound(v, floating: bool):
    """A number bound as PyTorch reads it: its parser refuses an int past int64/uint64, and a
    floating input's bound is read as a real number first (a complex one with a nonzero
    imaginary part overflows that conversion, a zero one is dropped)."""
    if isinstance(v, int):
        if v < -(2**63):
            raise OverflowError("can't convert negative int to unsigned")
        if v >= 2**64:
            raise OverflowError("int too big to convert")
    elif floating and isinstance(v, complex):
        if v.imag:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return v.real
    return v


# The C++ type a bound is converted to, as PyTorch's overflow message names it.
_BOUND_TYPES = {
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "uint8": "uint8_t",
    "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
}  # fmt: skip


def _in_range(dt, v):
    """``v`` as a bound of a ``dt`` tensor: PyTorch's overflow error where ``dt`` cannot hold it.
    An unsigned type takes -max..-1 as their two's-complement wrap (-1 is 255 for uint8)."""
    if v is None or isinstance(v, bool) or (isinstance(v, float) and not math.isfinite(v)):
        return v
    if dt.category == D.FLOAT:
        lo, hi = -D.finfo(dt).max, D.finfo(dt).max
    else:
        info = D.iinfo(dt)
        lo, hi = (-info.max, info.max) if info.min == 0 else (info.min, info.max)
    if not lo <= v <= hi:
        raise RuntimeError(
            f"value cannot be converted to type {_BOUND_TYPES[dt.name]} without overflow"
        )
    return v % (hi + 1) if v < 0 and dt is D.uint8 else v


def _clamp_vjp_mask(x, lo, hi):
    m = x == x
    if lo is not None:
        m = m & (x >= lo)
    if hi is not None:
        m = m & (x <= hi)
    return m


clip = clamp


def clamp_(self, min=None, max=None):  # noqa: A002
    _check_clamp_cast(self, min, max)
    return inplace(self, clamp, (min, max), True)  # tensor bounds are inputs of the graph too


def _check_clamp_cast(self, *bounds):
    # clamp_'s message names the destination by its C++ type ("long int").
    floating = self._dtype.category == D.FLOAT
    bounds = tuple(_parsed_bound(b, floating) for b in bounds)  # as clamp reads them
    dt = result_dtype(self, *(b for b in bounds if b is not None))
    if not D.can_cast(dt, self._dtype):
        raise RuntimeError(
            f"result type {_scalar(dt)} can't be cast to the desired output type {_cpp_name(self._dtype)}"
        )


clip_ = clamp_


def _no_complex_bound(bound):
    # clamp_min/clamp_max promote with the bound first: any complex number is refused
    _parsed_bound(bound, False)
    if isinstance(bound, complex):
        raise NotImplementedError("clamp is not supported for complex types")


def clamp_min(input, min, *, out=None):  # noqa: A002
    _no_complex_bound(min)
    r = _fz.clamp_side(input, min, "min")
    return (
        r
        if out is None
        else write_out(out, r, "clamp_min", None if isinstance(min, Tensor) else OUT_FOUND)
    )


def clamp_max(input, max, *, out=None):  # noqa: A002
    _no_complex_bound(max)
    r = _fz.clamp_side(input, max, "max")
    return (
        r
        if out is None
        else write_out(out, r, "clamp_max", None if isinstance(max, Tensor) else OUT_FOUND)
    )


def clamp_min_(self, min):  # noqa: A002
    _check_clamp_cast(self, min)
    return inplace(self, clamp_min, (min,), True)  # a tensor bound is an input of the graph too


def clamp_max_(self, max):  # noqa: A002
    _check_clamp_cast(self, max)
    return inplace(self, clamp_max, (max,), True)


def _where_vjp(node, g):
    cond, a, b = node.saved()
    z = g.new_zeros(())
    ga = where(cond, g, z) if _gb_i(node, 0) else None
    gb = where(cond, z, g) if _gb_i(node, 1) else None
    return ga, gb


def _gb_i(node, i):
    return node.next_functions[i][0] is not None


_Where = node_class("WhereBackward0", _where_vjp)


_MISSING = object()


def where(condition, input=_MISSING, other=_MISSING, *, out=None):
    """``condition ? input : other`` with broadcasting; one argument means ``nonzero``."""
    if input is _MISSING and other is _MISSING:
        if not isinstance(condition, Tensor):  # one argument: PyTorch names it
            raise TypeError(
                f"where(): argument 'condition' (position 1) must be Tensor, not {type_name(condition)}"
            )
        return condition.nonzero(as_tuple=True)
    if not (
        isinstance(condition, Tensor)
        and isinstance(input, (Tensor, *NUMBERS))
        and isinstance(other, (Tensor, *NUMBERS))
    ):  # two arguments, a None or another type: no overload of PyTorch's parser takes them
        given = [a for a in (condition, input, other) if a is not _MISSING]
        raise TypeError(invalid_combination("where", given, {}))
    python_int_range(input)  # the parser's Scalar overloads, before any other check
    python_int_range(other)
    check_devices(condition, input, other)
    if not isinstance(condition, Tensor) or condition._dtype is not D.bool:
        if isinstance(condition, Tensor) and condition._dtype is D.uint8:
            pass
        else:
            raise RuntimeError(
                f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{_scalar(condition._dtype) if isinstance(condition, Tensor) else type(condition).__name__}"
            )
    ref = input if isinstance(input, Tensor) else other if isinstance(other, Tensor) else condition
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        dt = result_dtype(input, other)
    elif isinstance(input, Tensor):
        dt = input._dtype if _scalar_fits(other, input._dtype) else result_dtype(input, other)
    elif isinstance(other, Tensor):
        dt = other._dtype if _scalar_fits(input, other._dtype) else result_dtype(input, other)
    else:
        dt = result_dtype(input, other)
    xp = np if ref._device is cpu else xp_for(ref)
    if dt.category == D.INT:  # a Python int beyond the type: PyTorch's overflow error
        input, other = (
            _in_range(dt, v) if isinstance(v, int) and not isinstance(v, bool) else v
            for v in (input, other)
        )
    xa = (
        input._data.astype(dt.np, copy=False)
        if isinstance(input, Tensor)
        else D.half_scalar(input, dt)
    )
    xb = (
        other._data.astype(dt.np, copy=False)
        if isinstance(other, Tensor)
        else D.half_scalar(other, dt)
    )
    try:
        r = xp.where(condition._data, xa, xb)
    except ValueError:
        raise broadcast_error([condition._data.shape, _shape(input), _shape(other)]) from None
    res = _wrap(r.astype(dt.np, copy=False), dt, ref._device)
    ti, to = _tensor_or_none(input), _tensor_or_none(other)
    if _gm.enabled and ((ti is not None and ti._rg) or (to is not None and to._rg)):
        record(_Where, (ti, to), res, (condition, None, None))
    if _fw_state.level and (
        (ti is not None and ti._fw is not None) or (to is not None and to._fw is not None)
    ):
        z = res.new_zeros(())
        res._fw = where(
            condition,
            ti._fw if ti is not None and ti._fw is not None else z,
            to._fw if to is not None and to._fw is not None else z,
        )
        _register(res)
    return (
        res
        if out is None
        else write_out(out, res, "where", "Expected out type to be {res} but got {out}")
    )


def _scalar_fits(s, dt):
    return D.scalar_dtype(s).category <= dt.category


def masked_fill(input, mask, value):
    """Fill where ``mask`` is True (MaskedFillBackward0)."""
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {_mask_dtype_name(mask)}"
        )
    if input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"masked_fill\" not implemented for 'UInt{input._dtype.itemsize * 8}'"
        )
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} dimension(s)."
            )
        if value._rg or input._rg and _gm.enabled:
            v = value.to(input._dtype)
            return _fz.masked_fill_tensor(
                input, mask, value, lambda: masked_fill(input, mask, v.item())
            )
        if _fw_state.level and value._fw is not None:
            # The tangent is the value's tangent where the mask is set, the input's elsewhere.
            res = masked_fill(input.detach(), mask, value.item())
            t_in = input._fw if input._fw is not None else input.new_zeros(())
            res._fw = where(mask, value._fw.to(input._dtype), t_in).expand(res.shape).contiguous()
            _register(res)
            return res
        value = value.item()
    elif isinstance(value, numbers.Number):  # c10's checked conversion of the fill value
        from ..creation.factories import _checked_fill

        value = _checked_fill(value, input._dtype)
    xp = np if input._device is cpu else xp_for(input)
    try:
        shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        raise broadcast_error([mask._data.shape, input._data.shape]) from None  # PyTorch's order
    if shape != input._data.shape:
        return masked_fill(input.expand(shape), mask, value)
    # a NumPy scalar, not an array: CuPy passes it to the kernel without a host-to-device copy
    fill = D.cast_array(np.asarray(value), input._data.dtype)[()]  # to half via float32
    r = xp.where(mask._data, fill, input._data)
    res = _wrap(r, input._dtype, input._device)
    if _gm.enabled and input._rg:
        record(_MaskedFill, (input,), res, (mask,))
    if _fw_state.level and input._fw is not None:
        res._fw = masked_fill(input._fw, mask, 0)
        _register(res)
    return res


_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}  # fmt: skip


def _cpp_name(dtype) -> str:
    """The C++ type name some PyTorch messages print (``long int`` for int64)."""
    return _CPP_NAMES[dtype.name]


def _mask_dtype_name(mask):
    return _cpp_name(mask._dtype) if isinstance(mask, Tensor) else type(mask).__name__


_MaskedFill = node_class(
    "MaskedFillBackward0", lambda node, g: (masked_fill(g, node.saved()[0], 0),)
)


def masked_fill_(self, mask, value):
    if isinstance(mask, Tensor):
        try:
            shape = np.broadcast_shapes(self._data.shape, mask._data.shape)
        except ValueError:
            raise broadcast_error([self._data.shape, mask._data.shape]) from None
        if shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}"
            )
    # a tensor value is an input of the graph too
    return inplace(self, lambda s, v: masked_fill(s, mask, v), (value,), False)
