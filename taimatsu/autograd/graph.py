"""The autograd graph: Node, saved tensors, AccumulateGrad.

A Node is what ``tensor.grad_fn`` returns. ``next_functions`` holds one ``(node, output_nr)``
edge per differentiable input (``(None, 0)`` when that input needs no gradient); ``apply``
maps the gradients of the node's outputs to gradients of its inputs. The engine
(engine.py) walks these edges; nothing here runs a backward pass by itself.
"""

from __future__ import annotations

import itertools
import re
from typing import NamedTuple

_seq = itertools.count()
NO_EDGE = (None, 0)

SECOND_BACKWARD_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class Node:
    """Base class of every backward node (``AddBackward0``, ``AccumulateGrad``, ...)."""

    __slots__ = (
        "__dict__",
        "__weakref__",
        "_hooks",
        "_nout",
        "_pre_hooks",
        "_retain",
        "_saved",
        "_seq",
        "_shapes",
        "next_functions",
    )  # fmt: skip
    _materialize = True  # pass zeros (not None) for outputs that got no gradient
    _call_without_grads = False  # custom Functions are called even when no gradient arrived
    # View nodes (select, slice): ``(node, g) -> engine.PartialGrad``, the adjoint of the view
    # without a full-size zero buffer; the engine uses it when no graph of the backward is built.
    _partial_vjp = None
    pack_reversed = False  # saved-tensor hooks pack the second saved tensor first (binary ops)
    # the op's formula keeps the real part of a complex gradient for a real input (PyTorch's
    # handle_r_to_c: add, sub, mul, div); other ops' gradients are cast, with a warning
    real_part = False
    # PyTorch's names of the saved tensors by position (``grad_fn._saved_self``, ``_saved_other``,
    # ``_saved_result``) and of saved numbers by the node attribute holding them
    saved_names: tuple = ()
    saved_scalars: dict = {}  # noqa: RUF012  (read-only; subclasses assign their own)

    def __init_subclass__(cls, **kwargs):
        # ``type(grad_fn)`` shows ``<class 'ExpBackward0'>``, PyTorch's C++ node types having no
        # module; a custom Function's node keeps its module (torch.autograd.function.*Backward)
        super().__init_subclass__(**kwargs)
        if not any(c.__name__ == "BackwardCFunction" for c in cls.__mro__):
            cls.__module__ = "builtins"

    def __init__(self, next_functions=(), shapes=()):
        self.next_functions = next_functions
        self._shapes = shapes
        self._seq = next(_seq)
        self._saved = ()
        self._pre_hooks = self._hooks = self._retain = None
        self._nout = 1

    def name(self) -> str:
        return type(self).__name__

    def apply(self, *grads):
        raise NotImplementedError

    def __call__(self, *grads):
        return self.apply(*grads)

    # ---- saved tensors ------------------------------------------------------------------
    def saved(self) -> tuple:
        """Unpack the saved tensors, checking they were not modified in place since."""
        sv = self._saved
        if sv is None:
            raise RuntimeError(SECOND_BACKWARD_MSG)
        if len(sv) == 2:  # most nodes (binary ops): no generator per backward step
            a, b = sv
            if self.pack_reversed:  # other first, as PyTorch's binary ops unpack (and check)
                ub = b.unpack(self) if b is not None else None
                return (a.unpack(self) if a is not None else None, ub)
            return (a.unpack(self) if a is not None else None,
                    b.unpack(self) if b is not None else None)  # fmt: skip
        return tuple([s.unpack(self) if s is not None else None for s in sv])

    def _release(self) -> None:
        if self._saved:
            self._saved = None

    # ---- hooks ----------------------------------------------------------------------------
    def register_hook(self, fn):
        """Run ``fn(grad_inputs, grad_outputs)`` after this node computes its gradients."""
        if self._hooks is None:
            self._hooks = {}
        return _add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """Run ``fn(grad_outputs)`` before this node runs; may return replacement grads."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _add_hook(self._pre_hooks, fn)

    def _sequence_nr(self) -> int:
        return self._seq

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        return self.__dict__.setdefault("_metadata", {})

    def __getattr__(self, name: str):
        # Called only for attributes not found otherwise: PyTorch's ``_saved_<name>`` (the saved
        # tensor, unpacked) and ``_raw_saved_<name>`` (it, packed: ``register_hooks``).
        cls = type(self)
        for prefix, raw in (("_saved_", False), ("_raw_saved_", True)):
            if name.startswith(prefix):
                key = name[len(prefix) :]
                if not raw and key in cls.saved_scalars:
                    return self.__dict__[cls.saved_scalars[key]]
                if key in cls.saved_names:
                    return self._saved_attribute(cls.saved_names.index(key), raw)
        raise AttributeError(f"'{cls.__name__}' object has no attribute '{name}'")

    def _saved_attribute(self, i: int, raw: bool):
        sv = self._saved
        if raw:
            return RawSavedTensor(self, i)
        if sv is None:
            raise RuntimeError(SECOND_BACKWARD_MSG)
        return sv[i].unpack(self) if i < len(sv) and sv[i] is not None else None


class RemovableHandle:
    """What every ``register_*hook`` returns (tensors, nodes, modules, optimizers):
    ``handle.remove()`` takes the hook out of each of the dicts it was registered in."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *extra_dicts: dict):
        self.hooks_dict = hooks_dict
        self.extra_dicts = extra_dicts
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)
        for d in self.extra_dicts:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_hook(hooks: dict, fn) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


_INFERENCE_SAVE_MSG = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
    "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
    "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)


class SavedTensor:
    """A tensor saved for backward, remembering its version at save time.

    Inputs are kept as the tensor object itself. Outputs keep only their array and version
    counter (not the tensor: the tensor holds the node, the node would hold the tensor) and
    are rebuilt with the node as their grad_fn when unpacked, as PyTorch does.
    """

    __slots__ = ("data", "device", "dtype", "output_nr", "tensor", "vc", "version")

    def __init__(self, tensor, is_output: bool):
        if tensor.__dict__ and tensor.__dict__.get("_inference"):
            raise RuntimeError(_INFERENCE_SAVE_MSG)
        self.version = tensor._vc[0]
        if is_output:
            self.tensor = None
            self.data, self.vc = tensor._data, tensor._vc
            self.dtype, self.device, self.output_nr = (
                tensor._dtype,
                tensor._device,
                tensor._output_nr,
            )
        else:
            self.tensor = tensor

    def unpack(self, node):
        t = self.tensor
        if t is not None:
            if t._vc[0] != self.version:
                raise RuntimeError(_modified_msg(t, t._vc[0], self.version))
            return t
        wrap = _wrap or _load_wrap()
        if self.vc[0] != self.version:
            shown = wrap(self.data, self.dtype, self.device)
            raise RuntimeError(_modified_msg(shown, self.vc[0], self.version, node, self.output_nr))
        out = wrap(self.data, self.dtype, self.device)
        out._vc = self.vc
        out.grad_fn, out._rg, out._output_nr = node, True, self.output_nr
        return out


class RawSavedTensor:
    """``grad_fn._raw_saved_<name>``: one saved tensor of a node, to give its own pack/unpack
    hooks (``register_hooks``: pack runs at once, unpack whenever the tensor is read)."""

    __slots__ = ("_i", "_node")

    def __init__(self, node, i: int) -> None:
        self._node, self._i = node, i

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        from .saved_tensor_hooks import HookedSavedTensor

        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None"
            )
        node, sv = self._node, self._node._saved
        if sv is None:
            raise RuntimeError(SECOND_BACKWARD_MSG)
        saved = sv[self._i]
        if isinstance(saved, HookedSavedTensor):  # PyTorch's error type for a second pair
            raise RuntimeError(  # noqa: TRY004
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        tensor = saved.unpack(node)
        hooked = HookedSavedTensor(tensor, saved.tensor is None, (pack_hook, unpack_hook))
        node._saved = (*sv[: self._i], hooked, *sv[self._i + 1 :])


_new = object.__new__
_wrap = None  # _tensor.core's, imported on first use (_tensor imports this module)


def _load_wrap():
    global _wrap
    from .._tensor.core import _wrap

    return _wrap


def save_input(tensor) -> SavedTensor:
    """``SavedTensor(tensor, False)`` without the constructor's call: most saved tensors are
    a recorded op's inputs, kept as the tensor itself with its version at save time."""
    if tensor.__dict__ and tensor.__dict__.get("_inference"):
        raise RuntimeError(_INFERENCE_SAVE_MSG)
    s = _new(SavedTensor)
    s.version = tensor._vc[0]
    s.tensor = tensor
    return s


# Scalar types without a legacy tensor type name: PyTorch's message names them as
# ``CPUBoolType``, ``CPUComplexFloatType``, ... (``torch.LongTensor`` for the others).
_UNNAMED_TYPES = {
    "bool": "Bool", "bfloat16": "BFloat16", "uint16": "UInt16", "uint32": "UInt32",
    "uint64": "UInt64", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}  # fmt: skip


def _type_name(t) -> str:
    scalar = _UNNAMED_TYPES.get(t.dtype.name)
    if scalar is None:
        return t.type()
    return f"{'CUDA' if t.device.type == 'cuda' else 'CPU'}{scalar}Type"


def _modified_msg(t, now: int, then: int, node=None, output_nr: int = 0) -> str:
    shape = ", ".join(str(s) for s in t.shape)
    desc = f"[{_type_name(t)} [{shape}]]"
    if node is None and t.grad_fn is not None:
        node, output_nr = t.grad_fn, t._output_nr
    if node is not None:
        # PyTorch names the node without its "Backward<N>" suffix here ("output 0 of Exp").
        short = re.sub(r"Backward\d*$", "", node.name())
        desc += f", which is output {output_nr} of {short},"
    from .anomaly_mode import state as anomaly

    hint = (
        "the backtrace further above shows the operation that failed to compute its gradient. The "
        "variable in question was changed in there or anywhere later. Good luck!"
        if anomaly.enabled
        else "enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {desc} is at version {now}; expected version {then} instead. Hint: {hint}"
    )


class AccumulateGrad(Node):
    """Sink node of a leaf tensor: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ()

    def __init__(self, variable):
        super().__init__((), ((variable._data.shape, variable._dtype),))
        self._seq = float("inf")  # run as soon as ready, like PyTorch
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grad):
        # the engine module, imported once (it imports this one): an import statement here cost
        # ~1 us per leaf and step. No helper call in between: accumulate_grad's reference counts
        # assume exactly this chain of frames (engine -> apply -> accumulate_grad).
        engine = _engine[0] or _import_engine()
        engine.accumulate_grad(self.variable, grad)
        if self.variable._post_accumulate_grad_hooks:
            _run_post_accumulate_hooks(self.variable)
        return ()


_engine = [None]


def _import_engine():
    from . import engine

    _engine[0] = engine
    return engine


def _run_post_accumulate_hooks(variable) -> None:
    """``Tensor.register_post_accumulate_grad_hook``'s hooks, after the gradient is in ``.grad``."""
    from .._tensor.core import Tensor

    for hook in list(variable._post_accumulate_grad_hooks.values()):
        result = hook(variable)
        if isinstance(result, Tensor):
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")  # noqa: TRY004 (PyTorch's type)
        if result is not None:
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")


def node_class(name: str, vjp, materialize: bool = True) -> type:
    """Make a backward node class named like PyTorch's (``ExpBackward0``) around ``vjp``.

    ``vjp(node, *grad_outputs)`` returns one gradient (or None) per input edge.
    """
    return type(name, (Node,), {"__slots__": (), "apply": vjp, "_materialize": materialize})


def increment_version(tensor) -> None:
    """Bump the version counter of a tensor (or of each tensor in an iterable) whose memory was
    changed behind autograd's back, so saved-tensor checks see it; inference tensors have no
    counter and are left alone, as in PyTorch."""
    from .._tensor.core import Tensor

    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    try:
        tensors = list(tensors)
    except TypeError:
        tensors = None
    if tensors is None or not all(isinstance(t, Tensor) for t in tensors):
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input")
    for t in tensors:
        if not (t.__dict__ and t.__dict__.get("_inference")):
            t._vc[0] += 1


class GradientEdge(NamedTuple):
    """Where a tensor's gradient enters the graph: a node and which of its outputs
    (``get_gradient_edge``); ``autograd.grad`` takes it in place of a tensor, as outputs (with
    ``grad_outputs``) or inputs."""

    node: Node
    output_nr: int
    ownership_token: object = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge of ``tensor``: its grad_fn and output number, or a leaf's AccumulateGrad."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require gradients"
        )
    from .engine import edge_of

    node, nr = edge_of(tensor)
    return GradientEdge(node, nr)


from .multi_grad_hook import register_multi_grad_hook  # noqa: F401  (re-exported)

# torch.autograd.graph's saved-tensor hooks (their own module: the recording path reads it)
from .saved_tensor_hooks import (  # noqa: F401  (re-exported)
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)


def carry_retain(t, old, old_nr: int) -> None:
    """``t``'s history moved from node ``old`` (its output ``old_nr``) to ``t.grad_fn`` (an
    in-place op, or a view re-derived after its base changed): a ``retain_grad()`` moves with
    it, as PyTorch's does, so ``t.grad`` is the gradient of its current value (hooks registered
    with ``register_hook`` stay on the old node)."""
    retain = old._retain if old is not None else None
    if not retain:
        return
    ref = retain.get(old_nr)
    if ref is None or ref() is not t:
        return
    del retain[old_nr]
    new = t._grad_fn
    if new is not None:
        if new._retain is None:
            new._retain = {}
        new._retain[t._output_nr] = ref
