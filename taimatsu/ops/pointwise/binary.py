"""Binary elementwise ops: the ``binary`` factory, add/sub/mul/div, remainder/fmod and atan2/hypot.
maximum/minimum, comparisons, logical and bitwise ops are in ``comparison.py``, pow in ``power.py``.

Binary ops give their VJP and JVP explicitly because the cheap formulas differ (``add`` passes
``g`` through untouched).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import cpu
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.forward_ad import on_primals as _on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import Node, node_class
from ...backend.float32_math import glibc, run2
from ...backend.float32_math.atan2 import atan2f
from ...backend.float32_math.primitives import fma
from ...backend.fp_errors import loud, quiet
from ...backend.parallel import MIN_SIZE as _SPLIT_MIN
from ...backend.parallel import split2
from ...backend.threads import aten_chunks
from ...backends.cpu import get_cpu_capability
from .._dispatch import (
    _fw_state,
    binary_operands,
    broadcast_error,
    check_cast,
    cpp_name,
    inplace,
    need_tensor,
    only_needed,
    out_overlap_check,
    record,
    result_dtype,
    write_out,
    xp_for,
)
from ..arg_types import python_int_range
from .common import _FLOAT, _camel, _conj, _scalar, _shape, not_implemented, plain_backward


# ---- binary ---------------------------------------------------------------------------------------
def _xp_of(a, b):
    d = a._device if isinstance(a, Tensor) else b._device
    return np if d is cpu else xp_for(a if isinstance(a, Tensor) else b)


def _run(f, xp, xa, xb, a, b, narrow=None):
    token = quiet()
    try:
        r = f(xp, xa, xb)
        return r if narrow is None else r.astype(narrow)
    except ValueError as e:
        if "broadcast" in str(e):
            raise broadcast_error([_shape(a), _shape(b)]) from None
        raise
    finally:
        loud(token)


def binary(name, forward, vjp=None, jvp=None, *, node=None, kind=None, saves=(0, 1), ufunc=None, saves_self=True,
           scalar_node=None, check=None, opmath=False, needs=None, real_part=False):  # fmt: skip
    """Declare ``name(input, other)``; ``kind`` is None (promoted dtype), 'float' (integers
    promote to the default float dtype) or 'bool' (comparisons).

    ``opmath``: a float16/bfloat16 ``input`` with a scalar ``other`` computes in float32 with
    the scalar's own float32 value, rounding once (PyTorch's CPU mul/div kernels; see
    ``_half_scalar``). Other ops round the scalar to the half type first, as NumPy does.

    ``scalar_node``: the node name of PyTorch's ``Tensor, Scalar`` overload, which has a single
    edge (``x % 2`` is RemainderBackward0, ``x % y`` RemainderBackward1). Without it a Python
    scalar is a wrapped 0-d tensor, as for add/mul/div (``x * 2``: MulBackward0, edges (x, None)).
    ``check(dtype)`` raises PyTorch's error for a promoted dtype the op refuses (complex).

    ``real_part``: the complex gradient of a real input is its real part, silently (PyTorch's
    handle_r_to_c in the formula; other ops' gradients are cast with a warning).

    ``needs``: for each entry of ``saves``, the input (0 or 1) whose gradient reads it, or None
    when every gradient does. PyTorch saves a tensor only when a gradient that reads it will be
    computed: in ``x * w`` with only ``w`` requiring grad, ``w`` is not saved and may change in
    place before the backward (``grad_fn._saved_other`` is None).
    """
    Node = node_class(node or _camel(name) + "Backward0", vjp) if vjp is not None else None
    ScalarNode = node_class(scalar_node, vjp) if scalar_node is not None else None
    if Node is not None:
        Node.scalar = None  # class default: a node of two tensors needs no per-node attribute
        Node.pack_reversed = True  # saved-tensor hooks see other, then self, as in PyTorch
        Node.real_part = real_part
        if 1 in saves:
            Node._saved_attribute = _saved_or_wrapped
    names = tuple({0: "self", 1: "other", "out": "result"}[i] for i in saves)
    for cls in (Node, ScalarNode):
        if cls is not None:
            cls.saved_names = names  # grad_fn._saved_self, ._saved_other, ._saved_result
    kernel_check = hasattr(check, "kernel")

    save_inputs = saves == (0, 1)  # nearly every op: the saved tuple is the edges' tuple
    bool_result = kind == "bool"
    to_float = kind == "float"

    def op(input, other, *, out=None):
        if out is not None:
            out_overlap_check(out, input, other)
        if input.__class__ is not Tensor and not isinstance(input, Tensor):
            input = _scalar_tensor(input, other)
        ob = other if other.__class__ is Tensor or isinstance(other, Tensor) else None
        if (
            _fw_state.level
            and hasattr(vjp, "aten")
            and (input._fw is not None or ob is not None and ob._fw is not None)
        ):
            raise NotImplementedError(
                f"Trying to use forward AD with aten::{vjp.aten} that does not support it."
            )
        xa, xb, dt = binary_operands(input, other)
        if check is not None:
            try:
                check(dt)
            except NotImplementedError:  # PyTorch broadcasts before its kernel's dtype check
                if kernel_check and ob is not None:
                    _broadcast_shape(input, other)
                raise
        narrow = None
        if opmath and (dt is D.float16 or dt is D.bfloat16):
            s = _half_scalar(other, dt)
            if s is not None:
                xa, xb, narrow = xa.astype(np.float32), s, dt.np
        if to_float and dt.category < _FLOAT:
            dt = D.get_default_dtype()
            # Re-read the operands as floats: a Python scalar must not wrap into the int dtype
            # first (uint8 tensor / -1 divides by -1.0, not by 255).
            xa = _cast(input._data, dt)
            xb = _cast(other._data, dt) if ob is not None else other
        device = input._device
        r = _run(
            forward, np if device is cpu else _xp_of(input, other), xa, xb, input, other, narrow
        )
        res = _wrap(r, D.bool if bool_result else dt, device)
        if Node is not None and _gm.enabled and (input._rg or ob is not None and ob._rg):
            if needs is not None:
                if save_inputs:  # (mul, div: the common case, without the general helper)
                    rg = (input._rg, ob is not None and ob._rg)
                    na, nb = needs
                    saved = (
                        input if na is None or rg[na] else None,
                        ob if nb is None or rg[nb] else None,
                    )
                else:
                    saved = only_needed(
                        [res if i == "out" else (input, ob)[i] for i in saves], (input, ob), needs
                    )
            elif save_inputs:
                saved = (input, ob)
            else:
                saved = tuple([res if i == "out" else (input, ob)[i] for i in saves])
            if ob is None and ScalarNode is not None:
                record(ScalarNode, (input,), res, saved, scalar=other)
            elif ob is None:
                record(Node, (input, None), res, saved, scalar=other)
            else:
                record(Node, (input, ob), res, saved)
        if _fw_state.level and jvp is not None:
            _binary_tangent(jvp, input, other, res)
        if out is not None:  # an op without a derivative lets out= carry its (raising) history
            return write_out(out, res, name, grad="aten" if node == "NotImplemented" else True)
        return res

    if kind == "bool":
        # In place, a comparison writes 0/1 in self's dtype; with autograd PyTorch records a
        # node whose gradients are zero (EqBackward0 for a tensor other, EqBackward1 for a scalar).
        # PyTorch numbers them by overload: eq_.Scalar is EqBackward0, eq_.Tensor EqBackward1.
        CmpS = node_class(_camel(name) + "Backward0", lambda node, g: (g * 0,))
        CmpT = node_class(_camel(name) + "Backward1", lambda node, g: (g * 0, None))

        def functional(s, o):
            r = op(s, o).to(s._dtype)
            if _gm.enabled and (s._rg or (isinstance(o, Tensor) and o._rg)):
                if isinstance(o, Tensor):
                    record(CmpT, (s, o), r)
                else:
                    record(CmpS, (s,), r)
            return r
    else:
        functional = op

    def op_(self, other):
        if isinstance(other, Tensor) and other._data.shape != self._data.shape:
            _check_inplace_broadcast(self, other)  # PyTorch checks the shape before the dtype
        # The ufunc fast path writes in self's dtype; int / int true division must instead
        # reach commit_inplace's cast check (PyTorch: "result type Float can't be cast...").
        direct = kind is None or self._dtype.category >= _FLOAT
        bits = ufunc is not None and ("bitwise" in ufunc or "shift" in ufunc)
        fast = (
            _fast(ufunc, self, other, opmath)
            if direct and kind != "bool" and not (bits and self._dtype.category > D.INT)
            else None
        )
        if fast is not None and check is not None:
            check(self._dtype)
        keep = saves_self and 0 in saves  # self's old value is saved: snapshot it first
        if keep and needs is not None and needs[saves.index(0)] is not None:
            reader = (self, other)[needs[saves.index(0)]]  # the input whose gradient reads it
            keep = isinstance(reader, Tensor) and reader._rg
        return inplace(self, functional, (other,), keep, fast)

    op.__name__ = op.__qualname__ = name
    op_.__name__ = op_.__qualname__ = name + "_"
    return op, op_


def _saved_or_wrapped(node, i: int, raw: bool):
    """``grad_fn._saved_other`` of ``x * 2``: PyTorch's wrapped number, a 0-d tensor of the
    scalar's own type (int64, float64, complex128, bool), kept as the node's ``scalar``."""
    r = Node._saved_attribute(node, i, raw)
    if r is None and not raw and node.scalar is not None and node.saved_names[i] == "other":
        from ..creation.factories import scalar_tensor

        v = node.scalar
        dtype = D.bool if isinstance(v, bool) else D.int64 if isinstance(v, int) else None
        return scalar_tensor(
            v, dtype=dtype or (D.complex128 if isinstance(v, complex) else D.float64)
        )
    return r


def _broadcast_shape(a, b) -> tuple:
    """The shape ``a`` and ``b`` broadcast to, or PyTorch's error."""
    try:
        return np.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise broadcast_error([a._data.shape, b._data.shape]) from None


def _check_inplace_broadcast(self, other):
    from .._dispatch import check_inplace_shape

    check_inplace_shape(self, _broadcast_shape(self, other))


def _shape_first(self, other):
    """In place, PyTorch checks the broadcast shape before the dtype (its kernel's errors)."""
    if isinstance(other, Tensor) and other._data.shape != self._data.shape:
        _check_inplace_broadcast(self, other)


def _cast(x, dt):
    return x.astype(dt.np) if hasattr(x, "astype") and x.dtype != dt.np else x


def _scalar_tensor(value, other):
    from ..creation.factories import scalar_tensor

    if not isinstance(other, Tensor):
        return scalar_tensor(value)
    # In the result dtype: a default-dtype (float32) wrapper would round 1e-30 before a float64 op.
    # A bool stays bool, so ops that refuse bool operands (sub) still see one.
    dtype = D.bool if isinstance(value, bool) else result_dtype(value, other)
    return scalar_tensor(value, dtype=dtype, device=other._device)


def _half_scalar(other, dt):
    """The float32 value PyTorch's CPU mul/div kernels use for ``other`` against a ``dt``
    (float16/bfloat16) tensor, or None when ``other`` is a tensor they read element by element.

    A Python number, or a 0-d tensor of another dtype as second operand, is read from its
    original value straight into float32 (not rounded to ``dt`` first); PyTorch does this only
    for the second operand (``tensor(0.1) * x`` rounds 0.1 to half).
    """
    c = other.__class__
    if c is float or c is int or c is bool:
        return np.float32(other)
    if isinstance(other, Tensor) and other._dtype is not dt and not other._data.ndim:
        return np.float32(other.item())
    return None


def _fast(ufunc, self, other, opmath=False):
    """Write ``ufunc(self, other)`` straight into ``self`` when dtypes already agree."""
    if ufunc is None:
        return None
    dt = self._dtype
    if opmath and (dt is D.float16 or dt is D.bfloat16) and not isinstance(other, Tensor):
        s = _half_scalar(other, dt)
        if s is None:
            return None

        def run_half():  # in float32, rounded once into self (see _half_scalar)
            xp = np if self._device is cpu else xp_for(self)
            token = quiet()
            try:
                getattr(xp, ufunc)(
                    self._data, s, out=self._data, dtype=np.float32, casting="unsafe"
                )
            finally:
                loud(token)

        return run_half
    if isinstance(other, Tensor):
        if (
            other._dtype is not self._dtype
            or other._data.ndim > self._data.ndim
            or other._device is not self._device  # the checked path raises PyTorch's error
        ):
            return None
        xb = other._data
    elif (
        isinstance(other, (bool, int))
        and self._dtype.category >= D.INT
        and _fits_int(other, self._dtype)
        or (isinstance(other, float) and self._dtype.category >= _FLOAT)
    ):
        xb = other
    else:
        return None

    def run():
        xp = np if self._device is cpu else xp_for(self)
        token = quiet()
        try:
            getattr(xp, ufunc)(self._data, xb, out=self._data)
        except ValueError:
            from .._dispatch import check_inplace_shape

            try:
                shape = np.broadcast_shapes(self._data.shape, np.shape(xb))
            except ValueError:
                raise broadcast_error([self._data.shape, np.shape(xb)]) from None
            check_inplace_shape(self, shape)
            raise
        finally:
            loud(token)

    return run


def _fits_int(v, dtype):
    if dtype.category != D.INT:  # past int64/uint64: the checked path raises PyTorch's error
        return -(1 << 63) <= v < 1 << 64
    info = np.iinfo(dtype.np)
    return info.min <= v <= info.max


def _binary_tangent(jvp, a, b, out):
    ta = a._fw if isinstance(a, Tensor) else None
    tb = b._fw if isinstance(b, Tensor) else None
    if ta is None and tb is None:
        return
    out._fw = _on_primals(jvp, a, b, out, ta, tb)
    _register(out)


def _ga(node):
    return node.next_functions[0][0] is not None


def _gb(node):
    nf = node.next_functions
    return len(nf) > 1 and nf[1][0] is not None


def _other(node, b):
    return node.scalar if b is None else b


def _add_vjp(node, g):
    return g, (g if _gb(node) else None)


def _sum_tangents(ta, tb, scale_b=1):
    if tb is None:
        return ta
    tb = tb if scale_b == 1 else tb * scale_b
    return tb if ta is None else ta + tb


def _add_jvp(a, b, out, ta, tb):
    return _sum_tangents(ta, tb)


def _alpha_vjp(sign_a, sign_b):
    def vjp(node, g):
        alpha = node.alpha
        ga = (g if sign_a > 0 else _grad_neg(g)) if alpha == 1 or sign_a > 0 else g * -alpha
        edges = node.next_functions
        if len(edges) < 2:
            return (ga,)
        if edges[1][0] is None:
            return ga, None
        gb = (g if sign_b > 0 else _grad_neg(g)) if alpha == 1 else g * (alpha * sign_b)
        return ga, gb

    return vjp


def _grad_neg(g):
    """``-g`` in a VJP; on the array in a plain backward (``plain_backward``)."""
    if plain_backward(g):
        return _wrap(np.negative(g._data), g._dtype, cpu)
    return -g


_AddNode = node_class("AddBackward0", _alpha_vjp(1, 1))
_SubNode = node_class("SubBackward0", _alpha_vjp(1, -1))
_RsubNode = node_class("RsubBackward0", lambda node, g: (g * -node.alpha, g if _gb(node) else None))
_RsubScalarNode = node_class("RsubBackward1", lambda node, g: (g * -node.alpha,))
for _n in (_AddNode, _SubNode, _RsubNode, _RsubScalarNode):
    _n.alpha = 1  # class default: the common alpha == 1 needs no per-node attribute
    _n.real_part = True

_BOOL_SUB = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
    "use the `~` or `logical_not()` operator instead."
)


def _check_alpha(dt, alpha):
    python_int_range(alpha)
    if isinstance(alpha, bool):
        if dt is not D.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (float, complex)) and dt.category < _FLOAT:
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    elif isinstance(alpha, complex) and dt.category < D.COMPLEX:
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )


def _check_sub_bool(a, b):
    a_tensor, b_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    a_bool = a._dtype is D.bool if a_tensor else isinstance(a, bool)
    b_bool = b._dtype is D.bool if b_tensor else isinstance(b, bool)
    if a_bool or b_bool:
        if a_bool and b_bool:  # (a Python bool counts as a bool tensor)
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
                "or `logical_xor()` operator instead."
            )
        raise RuntimeError(_BOOL_SUB)


_ndarray = np.ndarray


def _split_ufunc(name):
    """``forward(xp, a, b)`` for a ufunc; large same-shape CPU float arrays run on two threads."""
    uf = getattr(np, name)

    def forward(xp, a, b):
        if b.__class__ is _ndarray and b.size >= _SPLIT_MIN:
            r = split2(uf, a, b)
            if r is not None:
                return r
        return uf(a, b) if xp is np else getattr(xp, name)(a, b)

    return forward


_xp_add, _xp_subtract, _xp_multiply = (_split_ufunc(n) for n in ("add", "subtract", "multiply"))


def _fma_alpha(a, b, c):
    """float32 ``a + c * b`` rounded once (a sparse operand: in float64, rounded once more)."""
    if isinstance(a, (np.ndarray, np.generic)) and isinstance(b, (np.ndarray, np.generic)):
        return fma(b, c, a, once=True)
    return np.add(a, np.multiply(b, c, dtype=np.float64)).astype(np.float32)


def _linear2(input, other, alpha, sa, sb, node, name, out):
    """``sa * input + sb * alpha * other`` for add (1, 1), sub (1, -1) and rsub (-1, 1)."""
    if out is not None:
        out_overlap_check(out, input, other)
    xa, xb, dt = binary_operands(input, other)
    if dt in D._SHELL_UINTS:  # PyTorch has no add/sub kernel for uint16/32/64
        raise NotImplementedError(f"\"add_stub\" not implemented for '{_scalar(dt)}'")
    scaled = alpha != 1
    if scaled or alpha.__class__ is bool:
        _check_alpha(dt, alpha)
    device = input._device
    xp = np if device is cpu else _xp_of(input, other)
    if sa < 0:  # rsub: other - alpha * input
        xa, xb = xb, xa
    if not scaled:
        r = _run(_xp_add if sa == sb else _xp_subtract, xp, xa, xb, input, other)
    elif dt is D.float32 and xp is np:
        # PyTorch's CPU kernel computes a + alpha * b as one fused multiply-add (one rounding)
        c = np.float64(np.float32(alpha if sa == sb else -alpha))
        r = _run(lambda xp, a, b: _fma_alpha(a, b, c), xp, xa, xb, input, other)
    elif dt is D.float16 or dt is D.bfloat16:
        # PyTorch rounds alpha (and a scalar operand) to the half type, then takes
        # a + alpha * b in float32 (the product of two half values is exact there), rounding once.
        token = quiet()  # an alpha beyond the half range: PyTorch's error below, no NumPy warning
        try:
            c = np.float32(dt.np.type(alpha if sa == sb else -alpha))
        finally:
            loud(token)
        if not np.isfinite(c) and np.isfinite(alpha):
            raise RuntimeError(f"value cannot be converted to type {cpp_name(dt)} without overflow")
        r = _run(lambda xp, a, b: _add_scaled_half(a, b, c, dt), xp, xa, xb, input, other)
    else:
        r = _run(_xp_add if sa == sb else _xp_subtract, xp, xa, xb * alpha, input, other)
    if dt is D.bool and r.dtype != np.bool_:
        r = r.astype(np.bool_)
    res = _wrap(r, dt, device)
    ob = other if other.__class__ is Tensor or isinstance(other, Tensor) else None
    if _gm.enabled and (input._rg or ob is not None and ob._rg):
        if ob is None and node is _RsubNode:
            node = _RsubScalarNode
            inputs = (input,)
        else:
            inputs = (input, ob)
        if scaled:
            record(node, inputs, res, alpha=alpha)
        else:
            record(node, inputs, res)
    if _fw_state.level:
        ta = input._fw
        tb = ob._fw if ob is not None else None
        if ta is not None or tb is not None:
            t = None if ta is None else (ta if sa > 0 else ta * -alpha)
            if tb is not None:
                tb = tb * (alpha * sb) if sa > 0 else tb
                t = tb if t is None else t + tb
            res._fw = t
            _register(res)
    return res if out is None else write_out(out, res, name)


def _add_scaled_half(a, b, c, dt):
    """float16/bfloat16 ``a + c * b`` as PyTorch's CPU kernel: its vector loop takes it in
    float32, rounding once; its scalar loop, which runs past the last full vector of each
    thread's contiguous range, in the half type (``c * b`` rounded, then the sum)."""
    r = (_float32(a, dt) + c * _float32(b, dt)).astype(dt.np)
    if r.__class__ is not np.ndarray or not r.flags.c_contiguous or not r.size:
        return r
    arrays = [x for x in (a, b) if hasattr(x, "shape") and x.ndim]
    if any(x.shape != r.shape or not x.flags.c_contiguous for x in arrays):
        return r  # a broadcast or strided operand: another loop, not reproduced
    flat, fa, fb = r.reshape(-1), _flat_or_scalar(a), _flat_or_scalar(b)
    for lo, hi in _scalar_runs(r.size, HALF_LANES):
        part_b = fb if np.ndim(fb) == 0 else fb[lo:hi]
        product = (c * _float32(part_b, dt)).astype(dt.np).astype(np.float32)
        part_a = fa if np.ndim(fa) == 0 else fa[lo:hi]
        flat[lo:hi] = (_float32(part_a, dt) + product).astype(dt.np)
    return r


def _flat_or_scalar(x):
    return x.reshape(-1) if hasattr(x, "ndim") and x.ndim else x


# The float16/bfloat16 elements ATen's vector loop takes at a time (measured: 32 with its AVX2
# and its AVX-512 kernels); without vector kernels (capability DEFAULT) every element is scalar
HALF_LANES = 32 if get_cpu_capability() in ("AVX2", "AVX512") else None
_GRAIN = 32768  # ATen's grain for splitting an elementwise loop over threads


def _scalar_runs(n: int, lanes: int | None):
    """The ``(lo, hi)`` ranges of ``n`` elements that ATen's elementwise loop leaves to its
    scalar code: the tail of each thread's contiguous chunk, or everything without vector
    kernels."""
    if lanes is None:
        yield 0, n
        return
    for start, end in aten_chunks(n, _GRAIN):
        tail = (end - start) % lanes
        if tail:
            yield end - tail, end


def _float32(x, dt):
    """A half-type array, or a Python scalar first rounded to ``dt``, as float32."""
    return x.astype(np.float32) if hasattr(x, "astype") else np.float32(dt.np.type(x))


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with PyTorch's promotion (AddBackward0)."""
    if alpha is None:  # PyTorch's parser: alpha is a Number
        raise TypeError("add(): argument 'alpha' must be Number, not NoneType")
    if not isinstance(input, Tensor):
        input = _scalar_tensor(input, other)
    return _linear2(input, other, alpha, 1, 1, _AddNode, "add", out)


def _add(input, other, out=None):
    return _linear2(input, other, 1, 1, 1, _AddNode, "add", out)


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` (SubBackward0); bool operands are refused as in PyTorch."""
    if not isinstance(input, Tensor):
        input = _scalar_tensor(input, other)
    _check_sub_bool(input, other)
    return _linear2(input, other, alpha, 1, -1, _SubNode, "sub", out)


subtract = sub


def add_(self, other, *, alpha=1):
    fast = _fast("add", self, other) if alpha == 1 and self._dtype not in D._SHELL_UINTS else None
    return inplace(self, lambda s, o: add(s, o, alpha=alpha), (other,), False, fast)


def sub_(self, other, *, alpha=1):
    _check_sub_bool(self, other)
    fast = (
        _fast("subtract", self, other) if alpha == 1 and self._dtype not in D._SHELL_UINTS else None
    )
    return inplace(self, lambda s, o: sub(s, o, alpha=alpha), (other,), False, fast)


subtract_ = sub_


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``2 - t`` lands here: RsubBackward1)."""
    _check_sub_bool(input, other)
    return _linear2(input, other, alpha, -1, 1, _RsubNode, "rsub", None)


def _mul_vjp(node, g):
    a, b = node.saved()
    edges = node.next_functions
    ga = _grad_times(g, node.scalar if b is None else b) if edges[0][0] is not None else None
    gb = _grad_times(g, a) if len(edges) > 1 and edges[1][0] is not None else None
    return ga, gb


def _grad_times(g, x):
    """``g * conj(x)`` in a VJP; in a plain backward (``plain_backward``), a tensor ``x`` of g's
    dtype or a Python float multiplies on the arrays: the mul op's kernel without its dispatch."""
    if plain_backward(g):
        c = x.__class__
        try:
            if c is Tensor and x._dtype is g._dtype and x._device is cpu:
                return _wrap(_xp_multiply(np, g._data, x._data), g._dtype, cpu)
            if c is float:
                return _wrap(np.multiply(g._data, x), g._dtype, cpu)
        except ValueError:  # shapes that do not broadcast: the op raises PyTorch's error
            pass
    return g * _conj(x)


def _mul_jvp(a, b, out, ta, tb):
    r = None
    if ta is not None:
        r = ta * b
    if tb is not None:
        r = tb * a if r is None else r + tb * a
    return r


mul, mul_ = binary(
    "mul",
    _xp_multiply,
    _mul_vjp,
    _mul_jvp,
    ufunc="multiply",
    opmath=True,
    needs=(1, 0),
    real_part=True,
)
multiply, multiply_ = mul, mul_


def _div_vjp(node, g):
    a, b = node.saved()
    other = _other(node, b)
    ga = g / _conj(other) if _ga(node) else None
    gb = None
    if _gb(node):
        gb = -g * _conj(a / other / other)  # PyTorch's order: ((a / b) / b), then -g times
    return ga, gb


def _div_jvp(a, b, out, ta, tb):
    r = None if ta is None else ta / b
    if tb is not None:
        t = -tb * out / b
        r = t if r is None else r + t
    return r


def _true_divide(xp, a, b):
    return xp.true_divide(a, b)


_true_div, _true_div_ = binary(
    "div",
    _true_divide,
    _div_vjp,
    _div_jvp,
    kind="float",
    ufunc="true_divide",
    opmath=True,
    needs=(1, None),
    real_part=True,
)


# PyTorch's C++ kernels and derivative formulas multiply and divide by a C++ Scalar (mul.Scalar,
# div.Scalar: mean's backward divides by the count), whose nodes MulBackward1 / DivBackward1 have
# a single edge and save only the scalar; a Python ``t * 2`` is MulBackward0 with a wrapped
# tensor. The same kernels as a wrapped scalar's (opmath for float16/bfloat16).
mul_scalar, _ = binary(
    "mul",
    lambda xp, a, b: xp.multiply(a, b),
    lambda node, g: (g * node.scalar,),
    lambda a, b, out, ta, tb: ta * b,
    saves=(),
    opmath=True,
    scalar_node="MulBackward1",
)
div_scalar, _ = binary(
    "div",
    _true_divide,
    lambda node, g: (g / node.scalar,),
    lambda a, b, out, ta, tb: ta / b,
    kind="float",
    saves=(),
    opmath=True,
    scalar_node="DivBackward1",
)


def _trunc_div(xp, a, b):
    if a.dtype.char in D.INEXACT_CHARS:
        return xp.trunc(a / b)
    _check_int_zero(xp, a, b)  # NumPy's integer division by zero returns 0 silently
    q = xp.floor_divide(a, b)
    # C-style truncation for integers: floor division rounds toward -inf.
    fix = (q < 0) & (q * b != a)
    return q + fix


def _floor_div(xp, a, b):
    int_a = getattr(a, "dtype", None) is not None and a.dtype.kind in "iub" or isinstance(a, int)
    if int_a and xp.any(xp.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    return xp.floor_divide(a, b)


def _zero_vjp2(node, g):
    node.saved()  # unpacked as PyTorch unpacks them: raises if one changed in place since
    z = g * 0.0
    return z, (z if _gb(node) else None)


def _zero_jvp(a, b, out, ta, tb):
    return out.new_zeros(out.shape)


def _no_derivative(op):
    """The VJP of an op PyTorch cannot differentiate: raises when reached; ``binary`` refuses
    forward-mode tangents for it too."""

    def vjp(node, g):
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    vjp.aten = op
    return vjp


_trunc_divide, _ = binary(
    "div",
    _trunc_div,
    _zero_vjp2,
    _zero_jvp,
    node="DivBackward2",
    needs=(1, None),  # saved as for true division (the zero gradients read neither)
    opmath=True,
    check=not_implemented("div_trunc_cpu", D.BOOL, D.COMPLEX, D.SHELL_UINT),
)
_floor_divide, _ = binary(
    "div",
    _floor_div,
    _zero_vjp2,
    _zero_jvp,
    node="DivBackward2",
    needs=(1, None),  # saved as for true division (the zero gradients read neither)
    opmath=True,
    check=not_implemented("div_floor_cpu", D.BOOL, D.COMPLEX, D.SHELL_UINT),
)
# torch.floor_divide (``//``) has no derivative: its node raises when reached, naming the
# in-place overload (floor_divide_) when that recorded it, as PyTorch does.
_floor_divide_op, _ = binary(
    "floor_divide",
    _floor_div,
    _no_derivative("floor_divide"),
    node="NotImplemented",
    saves=(),
    opmath=True,
    check=not_implemented("div_floor_cpu", D.BOOL, D.COMPLEX, D.SHELL_UINT),
)
_floor_divide_op_, _ = binary(
    "floor_divide",
    _floor_div,
    _no_derivative("floor_divide_"),
    node="NotImplemented",
    saves=(),
    opmath=True,
    check=not_implemented("div_floor_cpu", D.BOOL, D.COMPLEX, D.SHELL_UINT),
)


def div(input, other, *, rounding_mode=None, out=None):
    """True division; ``rounding_mode`` 'trunc' or 'floor' keeps integer dtypes."""
    if rounding_mode is None:
        return _true_div(input, other, out=out)
    if rounding_mode == "trunc":
        return _trunc_divide(input, other, out=out)
    if rounding_mode == "floor":
        return _floor_divide(input, other, out=out)
    if not isinstance(rounding_mode, str):  # PyTorch's parser: no overload takes it
        got = ", ".join(type(a).__name__ for a in (input, other))
        raise TypeError(
            f"div() received an invalid combination of arguments - got ({got}, rounding_mode="
            f"{type(rounding_mode).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)\n"
            " * (Tensor input, Number other, *, str rounding_mode)\n"
        )
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
    )


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _true_div_(self, other)
    _shape_first(self, other)
    keep = isinstance(other, Tensor) and other._rg  # self's old value, saved for other's gradient
    return inplace(self, lambda s, o: div(s, o, rounding_mode=rounding_mode), (other,), keep)


divide, divide_, true_divide, true_divide_ = div, div_, _true_div, _true_div_


def floor_divide(input, other, *, out=None):
    return _floor_divide_op(input, other, out=out)


def floor_divide_(self, other):
    _shape_first(self, other)
    return inplace(self, _floor_divide_op_, (other,), False)


def _remainder_vjp(node, g):
    a, b = node.saved()
    gb = -g * a.div(b, rounding_mode="floor") if _gb(node) else None
    return g, gb


def _remainder(xp, a, b):
    _check_int_zero(xp, a, b)
    if getattr(a, "dtype", np.dtype(float)).kind in "iub":
        return xp.remainder(a, b)
    # PyTorch takes fmod and moves a nonzero result to b's side, so a zero keeps a's sign
    # (-2 % 2 is -0.); NumPy's remainder gives a zero b's sign instead.
    mod = xp.fmod(a, b)
    return xp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


def _check_int_zero(xp, a, b):
    if getattr(a, "dtype", np.dtype(float)).kind in "iu" and xp.any(xp.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _remainder_jvp(a, b, out, ta, tb):
    t = ta
    if tb is not None:
        tq = -tb * a.div(b, rounding_mode="floor")
        t = tq if t is None else t + tq
    return t


def _fmod_vjp(node, g):
    a, b = node.saved()
    return g, (-g * a.div(b, rounding_mode="trunc") if _gb(node) else None)


def _fmod_jvp(a, b, out, ta, tb):
    t = ta
    if tb is not None:
        tq = -tb * a.div(b, rounding_mode="trunc")
        t = tq if t is None else t + tq
    return t


_remainder_op, remainder_ = binary(
    "remainder",
    _remainder,
    _remainder_vjp,
    _remainder_jvp,
    node="RemainderBackward1",
    scalar_node="RemainderBackward0",
    needs=(1, 1),  # only the divisor's gradient reads self and other
    check=not_implemented("remainder_cpu", D.BOOL, D.COMPLEX, D.SHELL_UINT),
)
# remainder(number, tensor) (``2 % x``) is a separate PyTorch overload without a derivative.
_remainder_of_number, _ = binary(
    "remainder",
    _remainder,
    _no_derivative("remainder"),
    node="NotImplemented",
    saves=(),
    check=not_implemented("remainder_cpu", D.BOOL, D.COMPLEX, D.SHELL_UINT),
)


def remainder(input, other, *, out=None):
    """Python's ``%`` (the result takes the divisor's sign); with a number as ``input`` the
    gradient raises, as in PyTorch."""
    if isinstance(input, Tensor):
        return _remainder_op(input, other, out=out)
    return _remainder_of_number(input, other, out=out)


def _fmod(xp, a, b):
    _check_int_zero(xp, a, b)
    return xp.fmod(a, b)


fmod, fmod_ = binary(
    "fmod",
    _fmod,
    _fmod_vjp,
    _fmod_jvp,
    node="FmodBackward1",
    scalar_node="FmodBackward0",
    needs=(1, 1),  # only the divisor's gradient reads self and other
    check=not_implemented("fmod_cpu", D.BOOL, D.COMPLEX, D.SHELL_UINT),
)


def _atan2_recip(a, b):
    """1 / (a^2 + b^2), with PyTorch's 0 at a = b = 0 (so the gradient there is 0, not NaN)."""
    r = (a * a + b * b).reciprocal()
    return r.masked_fill(r.isinf(), 0)


def _atan2_vjp(node, g):
    a, b = node.saved()
    r = _atan2_recip(a, b)
    return (g * b * r if _ga(node) else None), (g * -a * r if _gb(node) else None)


def _atan2_jvp(a, b, out, ta, tb):
    z = out.new_zeros(())
    return ((z if ta is None else ta) * b - (z if tb is None else tb) * a) * _atan2_recip(a, b)


def _hypot_jvp(a, b, out, ta, tb):
    z = out.new_zeros(())
    return ((z if ta is None else ta) * a + (z if tb is None else tb) * b) / out


def _atan2(xp, a, b):
    if xp is np and a.dtype == np.float32 and b.dtype == np.float32:
        # PyTorch's kernel, SLEEF's atan2f_u10, step by step (NumPy's float32 arctan2 is one ulp
        # off in ~40% of elements, a correctly rounded one in ~3%); glibc's atan2f where PyTorch
        # runs its scalar loop
        return run2(atan2f, *np.broadcast_arrays(a, b), scalar=glibc.atan2f)
    return xp.arctan2(a, b)


def _tensor_operands(name, op, op_, arg="other"):
    """``op``/``op_`` refusing a Python number with the parser's TypeError: PyTorch declares
    atan2, hypot, gcd, lcm, maximum, nextafter... for two tensors only (no Scalar overload).
    ``op.method`` is the Tensor method, whose text counts ``other`` as position 1 (self is not
    counted); ``arg``: the second argument's name in the texts."""

    def checked(input, other, *, out=None):
        need_tensor(name, input, "input", 1)
        need_tensor(name, other, arg, 2)
        return op(input, other, out=out)

    def method(self, other):
        need_tensor(name, other, arg, 1)
        return op(self, other)

    def checked_(self, other):
        need_tensor(name + "_", other, arg, 1)
        return op_(self, other)

    checked.__name__ = checked.__qualname__ = method.__name__ = method.__qualname__ = name
    checked_.__name__ = checked_.__qualname__ = name + "_"
    checked.method = method
    return checked, checked_


def cast_first(op_):
    """An in-place op checking, as PyTorch does, the broadcast shape, then whether the result
    type casts to self's dtype, before its kernel's dtype check (``int.bitwise_and_(float)``
    is a cast error, not the kernel's NotImplementedError)."""

    def checked_(self, other):
        if not (isinstance(other, Tensor) and other._dtype is self._dtype):  # same type: casts
            _shape_first(self, other)
            check_cast(result_dtype(self, other), self._dtype)
        return op_(self, other)

    checked_.__name__ = checked_.__qualname__ = op_.__name__
    return checked_


atan2, atan2_ = _tensor_operands(
    "atan2",
    *binary(
        "atan2",
        _atan2,
        _atan2_vjp,
        _atan2_jvp,
        kind="float",
        check=not_implemented("atan2_cpu", D.COMPLEX),
    ),
)
arctan2, arctan2_ = atan2, atan2_


def _hypot_vjp(node, g):
    a, b, out = node.saved()
    return (g * a / out if _ga(node) else None), (g * b / out if _gb(node) else None)


hypot, hypot_ = _tensor_operands(
    "hypot",
    *binary(
        "hypot",
        lambda xp, a, b: xp.hypot(a, b),
        _hypot_vjp,
        _hypot_jvp,
        saves=(0, 1, "out"),
        needs=(0, 1, None),
        check=not_implemented("hypot_cpu", D.COMPLEX, D.INT, D.BOOL, D.SHELL_UINT),
    ),
)
