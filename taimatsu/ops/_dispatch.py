"""The dispatch path every op goes through, and the factories that declare ops.

An op's life: unwrap tensors to arrays, pick the result dtype by PyTorch's promotion rules,
run the forward on arrays (through NumPy or CuPy), wrap the result, and -- only when grad
mode is on and some input requires grad -- record a backward node. Tangents for forward-mode
AD are computed only when an input carries one. In-place variants and ``out=`` come from the
same declarations.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._flags import user_stacklevel
from .._tensor.core import Tensor, _wrap
from ..autograd import forward_ad as _fw
from ..autograd.engine import edge_of
from ..autograd.grad_mode import state as _gm
from ..autograd.graph import NO_EDGE, Node, SavedTensor, _seq, carry_retain, save_input
from ..autograd.saved_tensor_hooks import current as _current_hooks
from ..autograd.saved_tensor_hooks import hooked as _hooked
from ..autograd.saved_tensor_hooks import in_use as _hooks_in_use
from ..backend import writeable
from ..backend.fp_errors import loud, quiet
from .arg_types import python_int_range

# NumPy warns on overflow / division by zero / invalid values; PyTorch never does. The kernels
# run with NumPy's error reporting off (backend/fp_errors.py), which a user's "error" filter
# cannot undo; this filter is the fallback for code paths not covered yet (default filters only),
# and only for warnings raised from taimatsu's own modules, never the user's NumPy calls.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"taimatsu(\.|$)")

_new = object.__new__
_fw_state = _fw.state


def need_tensor(name: str, x, arg: str = "input", pos: int = 1) -> None:
    """PyTorch's argument-parser TypeError for a non-tensor where a Tensor is expected (a None
    would otherwise fail later on attribute access, as an AttributeError)."""
    if not isinstance(x, Tensor):
        from .._tensor_arguments import type_name

        got = type_name(x)
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {got}")


def xp_for(t: Tensor):
    """The array namespace of ``t``'s device; for CUDA, CuPy switched to ``t``'s GPU."""
    if t._device.type == "cuda":
        from ..backend import cupy_on

        return cupy_on(t._device)
    return np  # meta tensors are NumPy arrays too


def _cupy():
    from ..backend import cupy

    return cupy()


def needs_grad(*tensors) -> bool:
    if not _gm.enabled:
        return False
    for t in tensors:
        if isinstance(t, Tensor) and t._rg:
            return True
    return False


def only_needed(saved, inputs, needs) -> tuple:
    """``saved`` with None for each tensor no gradient that will be computed reads.

    ``needs[i]`` names the inputs (an index or a tuple of indices into ``inputs``) whose
    gradients read ``saved[i]``; None: every gradient does. PyTorch saves a tensor only for a
    gradient it will compute, so a tensor no such gradient reads may change in place before the
    backward (a weight updated under no_grad, ``x * w`` where only ``w`` requires grad)."""
    rg = [isinstance(t, Tensor) and t._rg for t in inputs]
    out = []
    for t, n in zip(saved, needs):
        if n is not None and not (rg[n] if n.__class__ is int else any(rg[i] for i in n)):
            t = None
        out.append(t)
    return tuple(out)


# ---- recording --------------------------------------------------------------------------------
def second_order_node(name: str):
    """The node class PyTorch records for the backward of a piecewise-linear op (``relu``'s
    ``threshold_backward``: ThresholdBackwardBackward0) under create_graph: the incoming
    gradient's derivative passes through unchanged (the mask is already in the recorded
    product), the op's input gets a zero gradient -- an edge PyTorch keeps, so a second
    derivative reaches the input (zeros) where it would otherwise not reach it at all."""
    from ..autograd.graph import node_class

    return node_class(name, _pass_and_zero)


def _pass_and_zero(node, g):
    shape, dtype = node._shapes[1]
    return g, (g.new_zeros(shape).to(dtype) if node.next_functions[1][0] is not None else None)


def with_zero_edge(r: Tensor, t: Tensor, cls) -> Tensor:
    """``r`` (a gradient built while recording) as the output of a ``second_order_node`` over
    (r's history, ``t``), when ``t`` requires grad."""
    if not (_gm.enabled and t._rg):
        return r
    out = _wrap(r._data, r._dtype, r._device)
    record(cls, (r if r._rg else None, t), out)
    return out


def record(cls, inputs, out, saved=(), **attrs) -> Node:
    """Make ``cls`` node the grad_fn of ``out``; ``inputs`` are Tensors or None (scalars)."""
    node = _new(cls)
    if attrs:  # the call's own keyword dict becomes the node's attributes: no copy
        node.__dict__ = attrs
    # Unrolled for one and two inputs and saved tensors (nearly every op): this runs once per
    # recorded op.
    n = len(inputs)
    if n == 2:
        a, b = inputs
        # an op's output (not a view, not a leaf) as first input: _edge's common case, inlined
        ea = (
            (a._grad_fn, a._output_nr)
            if a is not None and a._rg and a._base is None and a._grad_fn is not None
            else _edge(a)
        )
        node.next_functions = (ea, _edge(b))
        node._shapes = (
            (a._data.shape, a._dtype) if a is not None else None,
            (b._data.shape, b._dtype) if b is not None else None,
        )
    elif n == 1:
        (a,) = inputs
        node.next_functions = (_edge(a),)
        node._shapes = ((a._data.shape, a._dtype) if a is not None else None,)
    else:
        node.next_functions = tuple([_edge(t) for t in inputs])
        node._shapes = tuple([(t._data.shape, t._dtype) if t is not None else None for t in inputs])
    node._seq = next(_seq)
    node._pre_hooks = node._hooks = node._retain = None
    node._nout = 1
    if out.__class__ is Tensor:
        out._grad_fn, out._rg = node, True  # (the grad_fn setter, without the property call)
        node._saved = _save(saved, out, node)
    elif isinstance(out, Tensor):
        out.grad_fn, out._rg = node, True
        node._saved = _save(saved, out, node)
    else:  # several outputs
        node._nout = len(out)
        node.__dict__["_out_meta"] = [(o._data.shape, o._dtype, o._device) for o in out]
        for i, o in enumerate(out):
            if o is not None and o._dtype.category >= D.FLOAT:
                o.grad_fn, o._rg, o._output_nr = node, True, i
        outs = {id(o) for o in out}
        if _hooks_in_use[0] and _current_hooks() is not None:
            node._saved = _hooked(saved, lambda t: id(t) in outs, _current_hooks(), node)
        else:
            node._saved = tuple(
                [SavedTensor(t, id(t) in outs) if t is not None else None for t in saved]
            )
    return node


def _save(saved, out, node) -> tuple:
    if _hooks_in_use[0] and _current_hooks() is not None:  # saved_tensors_hooks is open
        return _hooked(saved, lambda t: t is out, _current_hooks(), node)
    n = len(saved)
    if n == 2:
        a, b = saved
        return (
            (save_input(a) if a is not out else SavedTensor(a, True)) if a is not None else None,
            (save_input(b) if b is not out else SavedTensor(b, True)) if b is not None else None,
        )
    if n == 1:
        (a,) = saved
        return (SavedTensor(a, a is out) if a is not None else None,)
    return tuple([SavedTensor(t, t is out) if t is not None else None for t in saved])


def _edge(t):
    """``edge_of(t)`` for an input that may be None or not require grad, inlined."""
    if t is None or not t._rg:
        return NO_EDGE
    if t._base is None:
        fn = t._grad_fn
        if fn is not None:
            return (fn, t._output_nr)
        acc = t._accum  # a leaf: its AccumulateGrad while some graph still holds it
        acc = acc() if acc is not None else None
        return (acc, 0) if acc is not None else edge_of(t)
    fn = t.grad_fn  # a view may re-derive its history from its base
    if fn is not None:
        return (fn, t._output_nr)
    return edge_of(t)


def needs_input_grad(node: Node, i: int) -> bool:
    return node.next_functions[i][0] is not None


# ---- dtype promotion for elementwise ops -------------------------------------------------
def result_dtype(*args) -> D.dtype:
    """PyTorch's result_type over Tensors and Python scalars."""
    dims, zeros, scalars = [], [], []
    for a in args:
        if isinstance(a, Tensor):
            (dims if a._data.ndim else zeros).append(a._dtype)
        elif a is not None:
            scalars.append(D.scalar_dtype(a))
    return D.result_type_of(dims, zeros, scalars)


def as_array(a, dtype: D.dtype, xp=np):
    """The array of a tensor or scalar operand, cast to ``dtype``."""
    if isinstance(a, Tensor):
        d = a._data
        return d if a._dtype is dtype else D.cast_array(d, dtype.np)  # half: through float32
    if dtype.category == D.INT and not isinstance(a, bool):
        return _wrapped_int(a, dtype)
    return a  # Python scalars stay "weak": NumPy keeps the array's dtype


def _wrapped_int(a, dtype):
    # NumPy refuses Python ints out of a small int dtype's range; PyTorch wraps them.
    try:
        np.array(a, dtype.np)
        return a
    except OverflowError:  # an int in uint64's range wraps too (int64 + 2**63)
        return np.array(a, np.uint64 if a > 0 else np.int64).astype(dtype.np)[()]


def binary_operands(a, b):
    """Arrays for ``a`` and ``b`` in their common dtype, and that dtype."""
    if a.__class__ is b.__class__ and a._dtype is b._dtype:  # the common fast path
        if a._device is not b._device:
            check_same_device(a, b)
        return a._data, b._data, a._dtype
    bc = b.__class__
    if bc is float and isinstance(a, Tensor) and a._dtype.category >= D.FLOAT:
        # A Python int/float is a "weak" scalar: it never changes a float or complex tensor's
        # dtype, and NumPy (NEP 50) computes in the array's dtype too.
        return a._data, b, a._dtype
    if bc is int and isinstance(a, Tensor) and a._dtype.category >= D.FLOAT:
        if not -(1 << 63) <= b < 1 << 64:  # PyTorch's Scalar holds int64/uint64 only
            python_int_range(b)
        return a._data, b, a._dtype
    if isinstance(b, Tensor) and isinstance(a, Tensor) and a._dtype is b._dtype:  # Parameter
        if a._device is not b._device:
            check_same_device(a, b)
        return a._data, b._data, a._dtype
    if isinstance(b, Tensor) and not isinstance(a, Tensor):
        xb, xa, dt = binary_operands(b, a)
        return xa, xb, dt
    if isinstance(b, Tensor):
        check_same_device(a, b)
    elif not isinstance(b, (int, float, complex, bool, np.generic)):
        raise TypeError(f"unsupported operand type: {type(b).__name__}")
    elif bc is int and not -(1 << 63) <= b < 1 << 64:
        python_int_range(b)
    dt = result_dtype(a, b)
    token = quiet()  # an int64 operand out of float16's range becomes inf, silently
    try:
        return as_array(a, dt), as_array(b, dt), dt
    finally:
        loud(token)


def check_same_device(a: Tensor, b: Tensor) -> None:
    if a._device != b._device and a._data.ndim and b._data.ndim:
        if a._device.type == "meta" or b._device.type == "meta":  # PyTorch's meta kernels' words
            raise RuntimeError(
                f"Tensor on device {b._device} is not on the expected device {a._device}!"
            )
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{b._device} and {a._device}!"
        )


def check_devices(*tensors) -> None:
    """``check_same_device`` over an op's tensor arguments (None and scalars are skipped): ops
    that hand several arrays to one kernel call it first, so that mixing devices raises
    PyTorch's error rather than CuPy's (ValueError on another GPU, TypeError with host memory)."""
    first = None
    for t in tensors:
        if isinstance(t, Tensor):
            if first is None:
                first = t
            elif t._device is not first._device:
                check_same_device(first, t)


def broadcast_error(shapes) -> RuntimeError:
    """PyTorch's message for shapes that do not broadcast: the shapes broadcast left to right,
    as TensorIterator does, and the first pair that does not gives the text (``a``: the shape
    broadcast so far)."""
    acc = tuple(shapes[0])
    for b in shapes[1:]:
        b = tuple(b)
        n = max(len(acc), len(b))
        out = []
        for i in range(1, n + 1):  # from the last dimension, as PyTorch reports
            sa = acc[-i] if i <= len(acc) else 1
            sb = b[-i] if i <= len(b) else 1
            if sa != sb and sa != 1 and sb != 1:
                return RuntimeError(
                    f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                    f"non-singleton dimension {n - i}"
                )
            out.append(sa if sb == 1 else sb)
        acc = tuple(reversed(out))
    return RuntimeError(f"shapes {[list(s) for s in shapes]} are not broadcastable")


def check_broadcast(*shapes) -> None:
    """PyTorch's error (``broadcast_error``) when ``shapes`` do not broadcast together."""
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise broadcast_error(shapes) from None


def shape_of(x) -> tuple:
    return x._data.shape if isinstance(x, Tensor) else ()


# ---- out= and in-place ------------------------------------------------------------------------
_SCALAR_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
    "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}  # fmt: skip


def scalar_name(dtype: D.dtype) -> str:
    return _SCALAR_NAMES[dtype.name]


def check_cast(result: D.dtype, target: D.dtype) -> None:
    if not D.can_cast(result, target):
        raise RuntimeError(
            f"result type {scalar_name(result)} can't be cast to the desired output type "
            f"{scalar_name(target)}"
        )


_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>", "uint16": "unsigned short", "uint32": "unsigned int",
    "uint64": "unsigned long",
}  # fmt: skip
# PyTorch's two common messages for an out= of the wrong dtype where the op wants exactly the
# result's dtype (the ``exact`` argument of write_out; op-specific texts are passed as-is).
OUT_EXACT = "Expected out tensor to have dtype {res_cpp}, but got {out_cpp} instead"
OUT_FOUND = "Found dtype {out} but expected {res}"


def cpp_name(dtype: D.dtype) -> str:
    """The C++ type name PyTorch prints for ``dtype`` ("float", "long int", "c10::Half")."""
    return _CPP_NAMES[dtype.name]


def _legacy_name(dtype: D.dtype) -> str:
    """PyTorch's legacy tensor-type name ("torch.FloatTensor"; bool has none: "CPUBoolType")."""
    return "CPUBoolType" if dtype is D.bool else f"torch.{scalar_name(dtype)}Tensor"


def _dtype_error(exact: str, result: D.dtype, target: D.dtype, exc=RuntimeError):
    return exc(
        exact.format(
            res=scalar_name(result), out=scalar_name(target),
            res_cpp=_CPP_NAMES[result.name], out_cpp=_CPP_NAMES[target.name],
            res_legacy=_legacy_name(result), out_legacy=_legacy_name(target),
        )
    )  # fmt: skip


_NO_AUTOGRAD = (
    "{}(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
    "requires grad."
)


def check_out(
    out, result, name: str, exact=None, grad=True, exc=RuntimeError, cast_msg=None
) -> None:
    """PyTorch's checks of an ``out=`` tensor (or tuple of them) before anything is written.

    ``exact``: the op wants ``out`` of exactly the result's dtype; the message (placeholders
    {res} {out} for scalar names, {res_cpp} {out_cpp} for C++ names, {res_legacy}
    {out_legacy} for legacy type names like torch.FloatTensor), or a tuple of them,
    one per output (None: that output only needs to be castable). Otherwise a result
    that cannot be cast to out's dtype raises "result type ... can't be cast" (type ``exc``).
    ``grad``: how autograd meets out=. True: an input or ``out`` requiring grad (in grad mode)
    raises "name(): functions with out=... don't support automatic differentiation". For
    ops PyTorch has no derivative for, or whose out= form is composite, inputs requiring grad
    are fine (``out`` takes the result's history through a copy) and only an ``out`` that
    requires grad fails: "aten": with "aten::name(): functions with out=..."; False
    (composite): with the leaf-in-place error its internal copy hits. "inputs": only inputs
    are checked (histc). ``cast_msg``: the op's own text for a result that cannot be cast
    (same placeholders).
    """
    outs, results = (out, result) if isinstance(out, (tuple, list)) else ((out,), (result,))
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(o).__name__}")
    if _gm.enabled:
        if grad is True or grad == "inputs":
            if any(r._rg for r in results) or grad is True and any(o._rg for o in outs):
                raise RuntimeError(_NO_AUTOGRAD.format(name))
        elif any(o._rg for o in outs):
            if grad == "aten":
                raise RuntimeError(_NO_AUTOGRAD.format("aten::" + name))
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
    exacts = exact if isinstance(exact, tuple) else (exact,) * len(outs)
    for o, r, exact in zip(outs, results, exacts):
        if exact is not None:
            if cast_msg is not None and not D.can_cast(
                r._dtype, o._dtype
            ):  # some ops check both, cast first
                raise _dtype_error(cast_msg, r._dtype, o._dtype, exc)
            if o._dtype is not r._dtype:
                raise _dtype_error(exact, r._dtype, o._dtype, exc)
        elif not D.can_cast(r._dtype, o._dtype):
            msg = cast_msg or "result type {res} can't be cast to the desired output type {out}"
            raise _dtype_error(msg, r._dtype, o._dtype, exc)
        if o._device != r._device and "meta" not in (o._device.type, r._device.type):
            raise RuntimeError(
                f"Expected out tensor to have device {r._device}, but got {o._device} instead"
            )


def _resize_warning(out: Tensor, shape) -> None:
    if out._data.size:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {list(out.shape)}, which does "
            f"not match the required output shape {list(shape)}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. You can "
            "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). "
            "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def write_out(
    out, result, name: str, exact=None, grad=True, exc=RuntimeError, cast_msg=None, warn=True
):
    """Store ``result`` into the user's ``out=`` tensor (resizing it as PyTorch does).

    ``out`` and ``result`` may be tuples (ops with several results: max, sort, frexp...);
    the result is then ``out`` itself, as a tuple. ``exact``/``grad``/``exc``: see check_out.
    ``warn=False``: resize a non-empty ``out`` silently (a few ops do).
    """
    check_out(out, result, name, exact, grad, exc, cast_msg)
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, result):
            _store(o, r, grad, warn)
        return tuple(out)
    return _store(out, result, grad, warn)


def _store(out: Tensor, result: Tensor, grad=True, warn: bool = True) -> Tensor:
    if out._data.shape != result._data.shape:
        if warn:
            _resize_warning(out, result._data.shape)
        out._data = xp_for(out).empty(result._data.shape, out._dtype.np)
        out._storage = None
    if (
        grad is not True and grad != "inputs" and _gm.enabled and result._rg
    ):  # out.copy_(result) in PyTorch
        from .indexing.fill_copy import copy_

        return copy_(out, result)
    xp_for(out).copyto(out._data, result._data, casting="unsafe")
    out._vc[0] += 1
    return out


def check_inplace(t: Tensor, others=()) -> None:
    """PyTorch's errors for writing into a leaf (or a view of one) that requires grad."""
    if not _gm.enabled:
        return
    base = t._base
    if base is not None:
        if t.__dict__ and "_cm" in t.__dict__ and (t._rg or needs_grad(*others)):
            from .shape.views import creation_meta_error

            raise creation_meta_error(t)
        if t._rg and base.grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation."
            )
    if t._rg and t.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    if t.__dict__ and t.__dict__.get("_inference") and not _gm.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
        )


def check_inplace_shape(self: Tensor, result_shape) -> None:
    if self._data.shape != tuple(result_shape):
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape {list(result_shape)}"
        )


def snapshot(t: Tensor) -> Tensor:
    """A copy of ``t``'s current value that keeps its place in the graph.

    An in-place op whose backward needs the *old* value of the tensor it overwrites saves
    this instead (PyTorch saves ``self.clone()`` for those ops too).
    """
    s = _wrap(t._data.copy(), t._dtype, t._device)
    s.grad_fn, s._rg, s._output_nr, s._accum = t.grad_fn, t._rg, t._output_nr, t._accum
    return s


def _writable_like(t: Tensor, r: Tensor) -> bool:
    a = t._data
    return a.shape == r._data.shape and writeable(a) and 0 not in a.strides


def commit_inplace(self: Tensor, result: Tensor) -> Tensor:
    """Write ``result`` (computed out of place, with history) into ``self`` and rewire history.

    When ``self`` is a view, its base's history becomes a CopySlices node so gradients flow
    through the rest of the base correctly (PyTorch's CopySlices).
    """
    check_inplace_shape(self, result._data.shape)  # PyTorch checks the shape before the cast
    check_cast(result._dtype, self._dtype)
    xp = xp_for(self)
    xp.copyto(self._data, result._data, casting="unsafe")
    self._vc[0] += 1
    if result._fw is not None:
        t = self._fw
        if t is not None and self._base is not None and _writable_like(t, result._fw):
            # a view's tangent is a view of its base's: write through, as PyTorch's in-place
            # forward formulas do (self_t.copy_(...)), so the base sees the new tangent too
            xp.copyto(t._data, result._fw._data, casting="unsafe")
        else:
            self._fw = result._fw
    node = result.grad_fn
    if node is None:
        return self
    # The node's saved output must be this tensor's memory now, at its new version (one packed
    # by saved_tensors_hooks holds what pack returned for the result instead).
    for s in node._saved or ():
        if s.__class__ is SavedTensor and s.tensor is None:
            s.data, s.vc, s.version = self._data, self._vc, self._vc[0]
    old, old_nr = self._grad_fn, self._output_nr
    if self._base is None:
        self.grad_fn, self._rg, self._output_nr = node, True, 0
        carry_retain(self, old, old_nr)
        return self
    from .shape.views import copy_slices

    base = self._base
    base_old, base_nr = base._grad_fn, base._output_nr
    copy_slices(self, node)
    carry_retain(base, base_old, base_nr)
    carry_retain(self, old, old_nr)
    return self


_PARTIAL_OVERLAP_CHECK = []


def out_overlap_check(out, *inputs) -> None:
    """PyTorch's error (TensorIterator's, before the shapes are checked) for an ``out=`` tensor
    that shares part of its memory with an input; the same memory exactly is allowed."""
    if out.__class__ is Tensor or isinstance(out, Tensor):
        check = _partial_overlap_check()
        for t in inputs:
            if t.__class__ is Tensor or isinstance(t, Tensor):
                check(out._data, t._data)


def _partial_overlap_check():
    """``shape.views.check_no_partial_overlap`` (imported on first use: views imports this)."""
    if not _PARTIAL_OVERLAP_CHECK:
        from .shape.views import check_no_partial_overlap

        _PARTIAL_OVERLAP_CHECK.append(check_no_partial_overlap)
    return _PARTIAL_OVERLAP_CHECK[0]


def inplace(
    self: Tensor, functional, args, saves_self: bool, fast=None, overlap_ok: bool = False
) -> Tensor:
    """Run ``functional(self, *args)`` and store the result in ``self``.

    ``fast(xp)`` (optional) writes the result straight into ``self``'s memory; it is used
    when no graph needs recording and no tangent is carried. ``overlap_ok``: the op may write
    into an expanded tensor (fill_, zero_); others raise PyTorch's internal-overlap error.
    """
    check_inplace(self, args)
    if not overlap_ok and 0 in self._data.strides:
        from .shape.views import check_no_overlap

        check_no_overlap(self)
    for a in args:
        if a.__class__ is Tensor or isinstance(a, Tensor):
            _partial_overlap_check()(self._data, a._data)
    recording = needs_grad(self, *args)
    if not recording and not _fw_state.level:
        if fast is not None:
            fast()
            self._vc[0] += 1
            return self
        from ..autograd.grad_mode import no_grad

        with no_grad():
            return commit_inplace(self, functional(self, *args))
    # (self needs no gradient of its own, yet its old value may be read by another input's)
    src = snapshot(self) if recording and saves_self else self
    return commit_inplace(self, functional(src, *args))


__all__ = [
    "record",
    "only_needed",
    "needs_grad",
    "needs_input_grad",
    "result_dtype",
    "as_array",
    "binary_operands",
    "write_out",
    "check_out",
    "takes_out",
    "cpp_name",
    "OUT_EXACT",
    "OUT_FOUND",
    "inplace",
    "check_cast",
    "xp_for",
    "broadcast_error",
    "scalar_name",
]


def result_type_fn(tensor1, tensor2) -> D.dtype:
    """``torch.result_type``."""
    return result_dtype(tensor1, tensor2)


def takes_out(name: str, exact=None, grad=True, exc=RuntimeError, cast_msg=None):
    """Give an op function PyTorch's ``out=`` keyword: compute, then ``write_out``.

    ``name`` is PyTorch's op name in its messages; see check_out for the other arguments.
    """

    def wrap(fn):
        def op(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return write_out(out, fn(*args, **kwargs), name, exact, grad, exc, cast_msg)

        op.__name__, op.__qualname__, op.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        op.__module__ = fn.__module__
        op.__signature__ = with_out_signature(fn)
        op.__wrapped__ = fn  # the parameters the namespace's guard reads (_tensor_arguments.py)
        return op

    return wrap


def with_out_signature(fn):
    """``fn``'s signature with a keyword-only ``out=None`` added (for wrappers that take out=)."""
    import inspect

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    at = len(params) - (1 if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD else 0)
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    return sig.replace(parameters=params)
