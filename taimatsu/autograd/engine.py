"""The backward engine: an iterative, dependency-ordered walk of the graph.

1. Discover every node reachable from the roots and count, for each, how many edges lead
   into it (its dependencies).
2. Seed the roots' gradient buffers and run nodes whose dependencies are all satisfied,
   latest-created first (PyTorch's order), summing gradients that meet at a node.
Each edge's gradient is reduced to the input's shape (un-broadcasting) and cast to its
dtype here, so the VJP formulas never have to.
"""

from __future__ import annotations

import heapq
import sys

from . import grad_mode
from .graph import AccumulateGrad, Node


def grad_accumulator(t) -> AccumulateGrad:
    """The AccumulateGrad node of a leaf, shared by every graph that uses the leaf."""
    acc = t._accum() if t._accum is not None else None
    if acc is None:
        import weakref

        acc = AccumulateGrad(t)
        t._accum = weakref.ref(acc)
    return acc


def edge_of(t):
    """The (node, output_nr) edge through which gradient flows into tensor ``t``."""
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._rg:
        return (grad_accumulator(t), 0)
    return (None, 0)


# sys.getrefcount of a gradient held only by the engine's buffer and the caller's locals.
_OWNED_REFS = 3


def accumulate_grad(variable, grad) -> None:
    """Add ``grad`` into ``variable.grad`` (in place when no graph is being built)."""
    from .._tensor import _wrap

    old = variable._grad
    if old is None:
        if grad_mode.state.enabled:  # create_graph: keep the gradient's history
            variable._grad = grad
            return
        data = grad._data
        # Steal the buffer only when nothing else can see it; a gradient shared between two
        # leaves (AddBackward passes one tensor to both) or a broadcast view must be copied.
        owned = (
            sys.getrefcount(grad) <= _OWNED_REFS
            and grad._base is None
            and data.base is None
            and data.flags.writeable
        )
        if not owned:
            data = data.copy()
        g = _wrap(data, grad._dtype, grad._device)
        variable._grad = g
    elif grad_mode.state.enabled:
        variable._grad = old + grad
    else:
        old._data += grad._data
        old._vc[0] += 1


def _sum_to(g, shape):
    from ..ops.shape import sum_to

    return sum_to(g, shape)


def _collect(roots):
    """Count dependencies of every node reachable from ``roots`` (iteratively)."""
    deps: dict[Node, int] = {}
    seen = set()
    stack = [n for n in roots]
    for n in roots:
        seen.add(n)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps, seen


def _needed(seen, targets):
    """Nodes from which some target node can be reached (others need not run)."""
    parents: dict[Node, list] = {}
    for node in seen:
        for nxt, _ in node.next_functions:
            if nxt is not None:
                parents.setdefault(nxt, []).append(node)
    needed = set()
    stack = list(targets)
    while stack:
        n = stack.pop()
        if n in needed:
            continue
        needed.add(n)
        stack.extend(parents.get(n, ()))
    return needed


def run_backward(
    roots, grads, retain_graph: bool, create_graph: bool, inputs=None, accumulate: bool = True
):
    """Backpropagate ``grads`` from ``roots`` (tensors).

    With ``accumulate=False`` (autograd.grad) gradients reaching ``inputs`` are returned
    instead of being added into ``.grad``; with ``inputs`` and ``accumulate=True``
    (``backward(inputs=...)``) only those tensors accumulate.
    """
    root_edges = [edge_of(t) for t in roots]
    root_nodes = list({n for n, _ in root_edges if n is not None})
    deps, seen = _collect(root_nodes)

    captures = {}  # (node, nr) -> index into inputs
    needed = None
    if inputs is not None:
        for i, t in enumerate(inputs):
            captures[edge_of(t)] = i
        needed = _needed(seen, [n for n, _ in captures])
    captured = [None] * (len(inputs) if inputs is not None else 0)

    buffers: dict[Node, list] = {}
    for (node, nr), g in zip(root_edges, grads):
        if node is not None:
            _add_to_buffer(buffers, node, nr, g)

    heap = []
    for n in root_nodes:
        if deps.get(n, 0) == 0:
            heapq.heappush(heap, (-n._seq, id(n), n))

    prev = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    try:
        while heap:
            node = heapq.heappop(heap)[2]
            buf = buffers.pop(node, None) or [None] * node._nout
            outputs = _run_node(node, buf, captures, captured, needed, accumulate, retain_graph)
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                g = outputs[i] if outputs is not None and i < len(outputs) else None
                if g is not None:
                    _add_to_buffer(buffers, nxt, nr, _conform(g, node._shapes[i]))
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    heapq.heappush(heap, (-nxt._seq, id(nxt), nxt))
    finally:
        grad_mode.state.enabled = prev
    return captured


def _conform(g, meta):
    """Reduce a gradient to its input's shape and dtype (PyTorch's validate_outputs)."""
    shape, dtype = meta
    if g.shape != shape:
        g = _sum_to(g, shape)
    if g._dtype is not dtype and dtype is not None:
        g = g.to(dtype)
    return g


def _add_to_buffer(buffers, node, nr, g) -> None:
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._nout
    old = buf[nr]
    buf[nr] = g if old is None else old + g


def _run_node(node, buf, captures, captured, needed, accumulate, retain_graph):
    buf = _tensor_hooks(node, buf)
    if captures:
        for nr, g in enumerate(buf):
            i = captures.get((node, nr))
            if i is not None:
                captured[i] = g if captured[i] is None else captured[i] + g
    if needed is not None and (node not in needed or (not accumulate and isinstance(node, AccumulateGrad))):
        return None  # autograd.grad / backward(inputs=): only what leads to the inputs runs
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            res = hook(tuple(buf))
            if res is not None:
                buf = list(res)
    if node._materialize and any(g is None for g in buf):
        buf = _materialize(node, buf)
    outputs = node.apply(*buf)
    if not isinstance(outputs, tuple):
        outputs = (outputs,) if not isinstance(outputs, list) else tuple(outputs)
    if node._hooks:
        for hook in list(node._hooks.values()):
            res = hook(outputs, tuple(buf))
            if res is not None:
                outputs = tuple(res)
    if not retain_graph:
        node._release()
    return outputs


def _tensor_hooks(node, buf):
    """Hooks registered with ``Tensor.register_hook`` / ``retain_grad`` on this node's outputs."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._hooks
        if hooks and buf[0] is not None:
            for fn in list(hooks.values()):
                res = fn(buf[0])
                if res is not None:
                    buf[0] = res
        return buf
    th = node.__dict__.get("_tensor_hooks")
    if th:
        for nr, hooks in th.items():
            if buf[nr] is None:
                continue
            for fn in list(hooks.values()):
                res = fn(buf[nr])
                if res is not None:
                    buf[nr] = res
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            if t is not None and buf[nr] is not None:
                g = buf[nr]
                if t._grad is None:
                    t._grad = g.detach().clone() if not grad_mode.state.enabled else g
                else:
                    t._grad = t._grad + g
    return buf


def _materialize(node, buf):
    from .. import _tensor

    metas = node.__dict__.get("_out_meta")
    out = list(buf)
    for i, g in enumerate(out):
        if g is None and metas is not None:
            shape, dtype, device = metas[i]
            out[i] = _tensor.zeros_like_meta(shape, dtype, device)
    return out
