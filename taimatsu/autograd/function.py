"""Custom differentiable operations: ``torch.autograd.Function``.

``MyFn.apply(*args)`` runs ``forward`` with grad mode off and records one node named
``MyFnBackward`` whose ``apply`` calls the user's ``backward``.
"""

from __future__ import annotations

import functools

from . import grad_mode
from .engine import edge_of
from .graph import NO_EDGE, Node, SavedTensor


class FunctionCtx:
    """What ``forward`` receives as ``ctx`` (the backward node itself, as in PyTorch)."""

    def save_for_backward(self, *tensors) -> None:
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self._to_save_fw = tensors

    @property
    def saved_tensors(self) -> tuple:
        return self.saved()

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = value


class BackwardCFunction(Node, FunctionCtx):
    """The node a custom Function records."""

    __slots__ = ()

    def apply(self, *grads):
        fn = self._forward_cls
        result = fn.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._tensor_pos_all)
        if len(result) < n_args:
            raise RuntimeError(
                f"function {type(self).__name__} returned an incorrect number of gradients (expected {n_args}, got {len(result)})"
            )
        return tuple(result[i] for i in self._tensor_pos)


def once_differentiable(fn):
    """Run a backward with grad mode off: it cannot itself be differentiated."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            return fn(ctx, *args)

    return wrapper


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"__slots__": (), "_forward_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Subclass and define ``forward(ctx, ...)`` and ``backward(ctx, *grads)``; call ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor

        node = cls._backward_cls.__new__(cls._backward_cls)
        tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg for a in args)
        recording = grad_mode.state.enabled and any(node.needs_input_grad)
        custom_setup = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad():
            if custom_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if not recording:
            return outputs
        Node.__init__(node, tuple(edge_of(args[i]) if args[i]._rg else NO_EDGE for i in tensor_pos),
                      tuple((args[i]._data.shape, args[i]._dtype) for i in tensor_pos))  # fmt: skip
        node._tensor_pos = tuple(tensor_pos)
        node._tensor_pos_all = tuple(range(len(args)))
        node._nout = len(outs)
        node.__dict__["_out_meta"] = [
            (o._data.shape, o._dtype, o._device) if isinstance(o, Tensor) else ((), None, None) for o in outs
        ]
        dirty = node.__dict__.get("_dirty", ())
        non_diff = node.__dict__.get("_non_diff", ())
        wrapped = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                wrapped.append(o)
                continue
            if any(o is a for a in args) and not any(o is d for d in dirty):
                o = _alias(o)  # an input returned as is becomes a new tensor sharing memory
            if any(o is n for n in non_diff) or o._dtype.category < 2:
                wrapped.append(o)
                continue
            o.grad_fn, o._rg, o._output_nr = node, True, i
            wrapped.append(o)
        to_save = node.__dict__.pop("_to_save", ())
        node._saved = tuple(
            SavedTensor(t, any(t is w for w in wrapped)) if t is not None else None for t in to_save
        )
        if not node.__dict__.get("_materialize", True):
            node.__dict__["_materialize"] = False
        return wrapped[0] if single else tuple(wrapped)

    # kept for code that calls them on instances (legacy style is unsupported, as in PyTorch)
    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )


def _alias(t):
    from .._tensor import _wrap

    a = _wrap(t._data, t._dtype, t._device)
    a._vc, a._storage = t._vc, t._storage
    return a
