"""``torch.utils.checkpoint``: activation checkpointing, both of PyTorch's variants.

``checkpoint(fn, *args, use_reentrant=...)`` trades compute for memory: the activations ``fn``
saves for backward are not kept; backward runs ``fn`` again to get them. The random generator's
state is restored for that second run (``preserve_rng_state=True``), so dropout draws the same mask,
and the autocast state of the forward is re-entered.

- ``use_reentrant=True`` (PyTorch's default when the argument is omitted, with its warning): the
  forward runs under ``no_grad``; one ``CheckpointFunctionBackward`` node recomputes ``fn`` and runs an
  inner backward, which accumulates into the parameters' ``.grad``. As in PyTorch, this is refused
  under ``autograd.grad`` / ``backward(inputs=...)``, keyword arguments are refused, and the output
  needs grad only when a tensor input does.
- ``use_reentrant=False``: the forward builds the real graph (``y.grad_fn`` is ``AddmmBackward0`` as
  in PyTorch) and then swaps every saved tensor of the nodes ``fn`` created for a placeholder; the
  first placeholder unpacked in backward recomputes ``fn`` once and hands each node the tensor its
  twin node saved (PyTorch does the same through saved-tensor hooks). ``autograd.grad``, keyword
  arguments and parameters reached only through ``fn`` work. ``determinism_check="default"`` raises
  ``CheckpointError`` when the recomputation builds a different graph.

Deviations: ``debug=True`` is accepted and prints nothing more; ``early_stop`` is accepted and the
recomputation always runs ``fn`` to its end (PyTorch may stop once it has every tensor it needs).
The CUDA generator is not preserved (only the CPU one, which also drives taimatsu's CUDA stand-in).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable

from .._tensor.core import Tensor
from ..autograd import engine
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import AccumulateGrad, Node, _seq
from ..ops.creation.random import get_rng_state, set_rng_state

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential", "noop_context_fn"]

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
    "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
    "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
    "two variants."
)
_SEQUENTIAL_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
    "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
    "two variants."
)
_GRAD_REFUSED = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
    "`inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument."
)
_DETERMINISM_CHECKS = ["default", "none"]


class CheckpointError(RuntimeError):
    """The recomputation did not rebuild the forward's graph (non-reentrant checkpoint)."""


def noop_context_fn() -> tuple:
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(
    function: Callable,
    *args,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs,
):
    """``torch.utils.checkpoint.checkpoint``: ``function(*args, **kwargs)`` without keeping its
    activations; see the module docstring."""
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if is_grad_enabled() and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn(
                "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
            )
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {_DETERMINISM_CHECKS}, but got {determinism_check}"
        )
    return _checkpoint_without_reentrant(
        function, args, kwargs, preserve, context_fn, determinism_check
    )


def checkpoint_sequential(
    functions, segments: int, input, use_reentrant: bool | None = None, **kwargs
):
    """``torch.utils.checkpoint.checkpoint_sequential``: ``functions`` (a list or a ``Sequential``)
    cut into ``segments`` runs of ``len // segments`` layers; every run but the last is
    checkpointed, the last runs normally (PyTorch's split, remainder included)."""
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn.modules.container import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            _run_segment(functions, start, end),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return _run_segment(functions, end + 1, len(functions) - 1)(input)


def _run_segment(functions, start: int, end: int) -> Callable:
    def forward(input):
        for j in range(start, end + 1):
            input = functions[j](input)
        return input

    return forward


# ---- state replayed by the recomputation -------------------------------------------------------------
class _ForwardState:
    """The random generator's state and the autocast settings at the forward, for the rerun."""

    def __init__(self, preserve_rng: bool) -> None:
        self.rng = get_rng_state() if preserve_rng else None
        self.autocast = _autocast_state()

    @contextlib.contextmanager
    def replay(self):
        saved = get_rng_state() if self.rng is not None else None
        if saved is not None:
            set_rng_state(self.rng)
        try:
            with contextlib.ExitStack() as stack:
                for ctx in self.autocast:
                    stack.enter_context(ctx)
                yield
        finally:
            if saved is not None:
                set_rng_state(saved)


def _autocast_state() -> list:
    from ..amp import autocast_mode as amp

    return [
        amp.autocast(d, dtype=amp.get_autocast_dtype(d))
        for d in ("cpu", "cuda")
        if amp.is_autocast_enabled(d)
    ]


# ---- use_reentrant=True ------------------------------------------------------------------------
class CheckpointFunction(Function):
    """PyTorch's reentrant checkpoint: forward without a graph, recompute-and-backward in backward."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.state = _ForwardState(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        if not engine.is_checkpoint_valid():
            raise RuntimeError(_GRAD_REFUSED)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t.detach().requires_grad_(t.requires_grad)
        with ctx.state.replay(), enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs)
            if isinstance(o, Tensor) and o.requires_grad and g is not None
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        from ..autograd import backward

        backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(a.grad if isinstance(a, Tensor) else None for a in inputs)
        return (None, None, *grads)


# ---- use_reentrant=False -----------------------------------------------------------------------
def _checkpoint_without_reentrant(function, args, kwargs, preserve, context_fn, determinism_check):
    if not is_grad_enabled():
        return function(*args, **kwargs)
    forward_ctx, recompute_ctx = context_fn()
    state = _ForwardState(preserve)
    start = next(_seq)
    with forward_ctx:
        outputs = function(*args, **kwargs)
    nodes = _nodes_created(outputs, start)
    if nodes:
        frame = _Frame(function, args, kwargs, state, recompute_ctx, nodes, determinism_check)
        for k, node in enumerate(nodes):
            node._saved = tuple(
                None if s is None else _Placeholder(frame, k, j, s)
                for j, s in enumerate(node._saved)
            )
    return outputs


def _tensors_in(value) -> Iterable[Tensor]:
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)


def _nodes_created(outputs, start: int) -> list[Node]:
    """The nodes created since ``start`` that saved tensors and lead to ``outputs``, in creation order."""
    stack = [t.grad_fn for t in _tensors_in(outputs) if t.grad_fn is not None]
    seen: dict[int, Node] = {}
    while stack:
        node = stack.pop()
        if (
            node is None
            or id(node) in seen
            or node._seq < start
            or isinstance(node, AccumulateGrad)
        ):
            continue
        seen[id(node)] = node
        stack.extend(n for n, _ in node.next_functions)
    return sorted((n for n in seen.values() if n._saved), key=lambda n: n._seq)


class _Frame:
    """One non-reentrant checkpoint: what the rerun needs, and the tensors it recomputed."""

    def __init__(self, function, args, kwargs, state, recompute_ctx, nodes, determinism_check):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.state, self.recompute_ctx = state, recompute_ctx
        self.signature = [_node_signature(n) for n in nodes]
        self.check = determinism_check == "default"
        self.recomputed: list | None = None
        self.unpacked: set = set()
        self.total = sum(sum(s is not None for s in n._saved) for n in nodes)

    def saved(self, k: int, j: int):
        if self.recomputed is None:
            self.recomputed = self._recompute()
        saved = self.recomputed[k][j]
        self.unpacked.add((k, j))
        if (
            len(self.unpacked) == self.total
        ):  # every placeholder served: drop the recomputed tensors
            self.recomputed, self.unpacked = None, set()
        return saved

    def _recompute(self) -> list:
        start = next(_seq)
        with self.state.replay(), enable_grad(), self.recompute_ctx:
            outputs = self.function(*self.args, **self.kwargs)
        nodes = _nodes_created(outputs, start)
        if self.check and [_node_signature(n) for n in nodes] != self.signature:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                "metadata than during the forward pass: the recomputation built a different graph "
                f"({len(nodes)} nodes saving tensors instead of {len(self.signature)})."
            )
        return [n._saved for n in nodes]


def _node_signature(node: Node) -> tuple:
    shapes = tuple(None if s is None else _saved_shape(s) for s in node._saved)
    return (type(node).__name__, shapes)


def _saved_shape(s) -> tuple:
    t = s.tensor
    return (tuple(t.shape), t.dtype) if t is not None else (s.data.shape, s.dtype)


class _SavedMeta:
    """What graph inspection (``autograd/graph_view.py``) reads of a saved tensor, without its memory."""

    __slots__ = ("_vc", "dtype", "shape")

    def __init__(self, saved) -> None:
        t = saved.tensor
        self.shape, self.dtype = (
            (t.shape, t.dtype) if t is not None else (saved.data.shape, saved.dtype)
        )
        self._vc = [saved.version]


class _Placeholder:
    """Stands for a saved tensor until backward unpacks it; then the recomputed twin is used.

    ``tensor`` is never None, so the in-place machinery (``ops/_dispatch.py``), which rewrites a
    node's saved *output* when that output is modified, leaves a placeholder alone.
    """

    __slots__ = ("frame", "index", "tensor", "version")

    def __init__(self, frame: _Frame, k: int, j: int, saved) -> None:
        self.frame, self.index = frame, (k, j)
        self.tensor, self.version = _SavedMeta(saved), saved.version

    def unpack(self, node: Node):
        return self.frame.saved(*self.index).unpack(node)
