"""Custom differentiable operations: ``torch.autograd.Function``.

``MyFn.apply(*args)`` runs ``forward`` with grad mode off and, when an input requires grad,
records one node named ``MyFnBackward`` whose ``apply`` calls the user's ``backward``. The
node is also the ``ctx`` that ``forward`` saw, as in PyTorch. ``jvp`` (forward-mode AD) is
called when a dual level is active and an input carries a tangent.
"""

from __future__ import annotations

import functools
import inspect
import warnings

from . import forward_ad, grad_mode, saved_tensor_hooks
from .engine import edge_of
from .graph import NO_EDGE, Node, SavedTensor


class FunctionCtx:
    """What ``forward`` / ``setup_context`` receive as ``ctx``."""

    def save_for_backward(self, *tensors) -> None:
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self._to_save_fw = tensors

    @property
    def saved_tensors(self) -> tuple:
        d = self.__dict__
        if d.get("_in_jvp"):  # jvp sees save_for_forward's tensors (or save_for_backward's)
            return tuple(d.get("_to_save_fw") or d.get("_jvp_saved") or d.get("_to_save", ()))
        return self.saved()

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node a custom Function records; ``apply`` runs the user's ``backward``."""

    __slots__ = ()
    _call_without_grads = True

    def apply(self, *grads):
        result = self._forward_cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = self._n_args
        if len(result) != n_args and (
            len(result) < n_args or any(r is not None for r in result[n_args:])
        ):
            raise RuntimeError(
                f"function {type(self).__name__} returned an incorrect number of gradients "
                f"(expected {n_args}, got {len(result)})"
            )
        pos = self._tensor_pos
        if len(pos) < n_args:  # a gradient for an argument that is not a tensor must be None
            for i, r in enumerate(result[:n_args]):
                if r is not None and i not in pos:
                    raise RuntimeError(
                        f"function {type(self).__name__} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a Variable"
                    )
        return tuple(result[i] for i in pos)

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"


def once_differentiable(fn):
    """Run a backward with grad mode off: its result cannot itself be differentiated."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.enabled or not any(getattr(a, "_rg", False) for a in args):
            return outputs
        # create_graph with cotangents that require grad: differentiating again must fail.
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        wrapped = tuple(_delayed_error(o, args) for o in outs)
        return wrapped[0] if single else wrapped

    return wrapper


def _delayed_error(out, grads):
    from .._tensor.core import Tensor
    from .graph import node_class

    if not isinstance(out, Tensor):
        return out

    def vjp(node, g):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )

    r = out.detach()
    node = node_class("DelayedError", vjp)
    from ..ops._dispatch import record

    record(node, tuple(g if isinstance(g, Tensor) else None for g in grads), r)
    return r


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._backward_cls = type(
            name + "Backward", (BackwardCFunction,), {"__slots__": (), "_forward_cls": cls}
        )


class Function(metaclass=_FunctionMeta):
    """Subclass and define ``forward(ctx, ...)`` and ``backward(ctx, *grads)``; call ``apply``."""

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an error in a "
            "future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it "
            "with backward mode AD."
        )

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor.core import Tensor

        if kwargs:
            args = _bind_args(cls, args, kwargs)
        bw = cls._backward_cls
        node = bw.__new__(bw)
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg for a in args)
        recording = grad_mode.state.enabled and any(node.needs_input_grad)
        with grad_mode.no_grad():
            if cls.setup_context is not Function.setup_context:
                outputs = cls.forward(*args)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        dirty = node.__dict__.get("_dirty", ())
        if dirty:
            _check_dirty(dirty, outs, recording)
        if recording:
            outs = _record(node, args, outs, dirty)
        if forward_ad.state.level:
            _forward_ad(cls, node, args, outs)
        return outs[0] if single else outs

    @classmethod
    def vjp(cls, ctx, *grad_outputs):
        return cls.backward(ctx, *grad_outputs)


def _bind_args(cls, args, kwargs):
    """Keyword arguments of ``apply`` become positional (defaults are not filled in, as in PyTorch)."""
    sig = inspect.signature(cls.forward)
    if cls.setup_context is Function.setup_context:  # forward(ctx, ...): bind without ctx
        bound = sig.bind(None, *args, **kwargs)
        return tuple(bound.args[1:])
    return tuple(sig.bind(*args, **kwargs).args)


def _check_dirty(dirty, outs, recording) -> None:
    for d in dirty:
        if not any(d is o for o in outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as output. The inputs "
                "that are modified inplace must all be outputs of the Function."
            )
        if recording and d._rg and d.grad_fn is None:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
        d._vc[0] += 1


def _record(node, args, outs, dirty):
    """Make ``node`` the grad_fn of the differentiable outputs; save what forward asked to save."""
    from .. import _dtype as D
    from .._tensor.core import Tensor

    tensor_pos = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    Node.__init__(
        node,
        tuple(edge_of(args[i]) if args[i]._rg else NO_EDGE for i in tensor_pos),
        tuple((args[i]._data.shape, args[i]._dtype) for i in tensor_pos),
    )
    node._tensor_pos, node._n_args, node._nout = tensor_pos, len(args), len(outs)
    node.__dict__["_out_meta"] = [
        (o._data.shape, o._dtype, o._device) if isinstance(o, Tensor) else ((), None, None)
        for o in outs
    ]
    non_diff = node.__dict__.pop("_non_diff", ())
    wrapped = []
    for i, o in enumerate(outs):
        if isinstance(o, Tensor):
            differentiable = not any(o is n for n in non_diff)  # (before the alias below)
            if any(o is a for a in args) and not any(o is d for d in dirty):
                o = _alias(o)  # an input returned as is becomes a view of it
            if differentiable and o._dtype.category >= D.FLOAT:
                o.grad_fn, o._rg, o._output_nr = node, True, i
                if o._base is not None:  # a view: PyTorch forbids modifying it in place
                    o.__dict__["_cm"] = "custom"
        wrapped.append(o)
    to_save = node.__dict__.pop("_to_save", ())
    for i, t in enumerate(to_save):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {i} is of type "
                f"{type(t).__name__}"
            )
    if forward_ad.state.level:
        node.__dict__["_jvp_saved"] = to_save

    def is_output(t) -> bool:
        return any(t is w for w in wrapped) and t.grad_fn is node

    hooks = saved_tensor_hooks.current() if saved_tensor_hooks.in_use[0] else None
    if hooks is not None:
        node._saved = saved_tensor_hooks.hooked(to_save, is_output, hooks)
    else:
        node._saved = tuple(
            SavedTensor(t, is_output(t)) if t is not None else None for t in to_save
        )
    return tuple(wrapped)


def _forward_ad(cls, node, args, outs) -> None:
    """Forward-mode AD through a custom Function: its ``jvp`` maps input to output tangents."""
    from .._tensor.core import Tensor

    tangents = [a._fw if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    node.__dict__["_in_jvp"] = True
    level, forward_ad.state.level = forward_ad.state.level, 0  # tangents get no tangents
    try:
        with grad_mode.no_grad():
            result = cls.jvp(node, *tangents)
    finally:
        forward_ad.state.level = level
        node.__dict__.pop("_in_jvp")
        node.__dict__.pop("_jvp_saved", None)
    if not isinstance(result, tuple):
        result = (result,)
    for o, t in zip(outs, result):
        if isinstance(o, Tensor) and t is not None:
            o._fw = t
            forward_ad._register(o)


def _alias(t):
    """A view of ``t`` with all of its elements (PyTorch returns an input as ``view_as`` of it)."""
    from .._tensor.core import _wrap

    a = _wrap(t._data, t._dtype, t._device)
    a._vc, a._storage = t._vc, t._data if t._storage is None else t._storage
    a._base, a._vv = (t if t._base is None else t._base), t._vc[0]
    return a
