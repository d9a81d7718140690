"""The backward engine: an iterative, dependency-ordered walk of the graph.

1. Discover every node reachable from the roots and count, for each, how many edges lead
   into it (its dependencies). No recursion: a 10,000-op chain is fine.
2. Seed the roots' gradient buffers and run nodes whose dependencies are all satisfied,
   latest-created first (PyTorch's order: a node's sequence number; AccumulateGrad runs as
   soon as it is ready), summing gradients that meet at a node.

Each edge's gradient is reduced to the input's shape (un-broadcasting) and cast to its
dtype here, so the VJP formulas never have to (PyTorch's ``validate_outputs``).

``autograd.grad`` and ``backward(inputs=...)`` run only the nodes that lead to an input
(PyTorch's ``exec_info``); ``autograd.grad`` captures the gradient flowing into each input
instead of accumulating it.

Gradients that meet at a node are summed into one buffer the engine owns (``_Acc``), in place
after the first sum (and from the first, into the first gradient, when nothing else holds it).
A view node (select, slice) hands on a ``PartialGrad`` -- its gradient and where it sits in the
base -- instead of a full-size zero tensor, so ``for t in range(T): x[:, t]`` costs one full-size
buffer and T slice-sized additions, not T full-size ones; the partials wait as they are while
they are small beside the base (``_Partials``). Both exist only in
the engine's buffers: a node receives plain tensors unless it is a view node itself.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import weakref

import numpy as np

from .. import backend as _backend
from .._layout import is_dense
from ..backend.fp_errors import loud, quiet
from . import anomaly_mode, grad_mode
from .graph import AccumulateGrad, GradientEdge, Node
from .hook_results import checked_tensor, checked_tuple, hook_name
from .ownership import COUNTED as _COUNTED


def grad_accumulator(t) -> AccumulateGrad:
    """The AccumulateGrad node of a leaf, shared by every graph that uses the leaf."""
    acc = t._accum() if t._accum is not None else None
    if acc is None:
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


# ---- accumulation into .grad ---------------------------------------------------------------
def accumulate_grad(variable, grad) -> None:
    """Add ``grad`` into ``variable.grad``, as PyTorch's AccumulateGrad does.

    First gradient: stolen when nobody else can see it and it already has the layout PyTorch's
    gradient layout contract asks for (``_obeys_layout``), else copied (so ``.grad`` never
    aliases another tensor or the user's ``gradient=``): in the gradient's own strides where
    PyTorch would have stolen it (``_copy_stolen``), else in the leaf's. Later ones: added in
    place (keeping ``.grad``'s layout), or out of place while a graph is being built
    (``create_graph=True``).
    """
    old = variable._grad
    if (grad.is_sparse or grad.is_sparse_csr) or (
        old is not None and (old.is_sparse or old.is_sparse_csr)
    ):  # sparse gradients (taimatsu/sparse)
        variable._grad = _sparse_sum(old, grad)
        return
    if old is None:
        if grad_mode.state.enabled:  # create_graph: a copy that keeps the gradient's history
            variable._grad = _copy_with_history(grad, variable._data)
        elif _owned(grad, variable._data):
            variable._grad = grad
        else:
            from .._tensor.core import _wrap

            data = _owned_base(grad, variable._data)
            if data is None:
                data = _copy_stolen(grad, variable._data)
            variable._grad = _wrap(data, grad._dtype, grad._device)
        return
    if grad_mode.state.enabled or not _backend.writeable(old._data):
        variable._grad = old + grad
    else:
        old._data += grad._data
        old._vc[0] += 1


def _sparse_sum(old, grad):
    """A sparse gradient stays sparse, as in PyTorch: the first is copied, later ones are added
    (sparse + sparse by PyTorch's sparse add); a dense one on either side makes the sum dense."""
    if old is None:
        return grad.clone() if grad_mode.state.enabled else grad.detach().clone()
    from ..sparse.arithmetic import grad_sum

    return grad_sum(old, grad)


def _is_sparse_grad(g) -> bool:
    return g.__class__ is not PartialGrad and (g.is_sparse or g.is_sparse_csr)


def _owned(grad, var) -> bool:
    """True when only the engine holds ``grad`` and its array, laid out as ``.grad`` of the leaf
    array ``var`` must be (so it can become ``.grad``).

    The counts are of the references on the path engine -> AccumulateGrad.apply ->
    accumulate_grad -> here (plus getrefcount's own); see test_autograd.py's steal test. A gradient passed to two leaves (AddBackward
    hands one tensor to both), the user's ``gradient=``, or an array shared by two wrappers
    all raise a count; a view of another array has a ``base``.
    """
    data = grad._data
    return (
        _COUNTED
        and not grad._rg
        and grad._base is None
        and getattr(data, "base", None) is None
        and sys.getrefcount(grad) <= _TENSOR_REFS
        and sys.getrefcount(data) <= 3
        and _backend.writeable(data)
        and _obeys_layout(data, var)
    )


_TENSOR_REFS = 6  # apply(*buf): the buffer list, the args tuple; 3 frames; getrefcount


def _owned_base(grad, var):
    """The array under ``grad`` (or ``grad``'s view of it) when ``grad`` is a view spanning all of
    it in the layout ``.grad`` of ``var`` must have, and only ``grad`` and the tensor it is a view
    of can reach it; else None.

    Linear's weight gradient: AddmmBackward0 computes it in the layout of ``weight.t()`` (as
    PyTorch's mm_mat2_backward does) and TBackward0 hands on its transpose, a C-contiguous
    view of a fresh array. PyTorch's AccumulateGrad keeps such a gradient; so does this,
    instead of copying it. Every holder is counted: the view's array, the tensor it is a view
    of (``_base``) and that tensor's array (``_storage`` may name it too).
    """
    data, src = grad._data, grad._base
    arr = getattr(data, "base", None)
    if (
        not _COUNTED
        or src is None
        or arr.__class__ is not np.ndarray
        or arr.base is not None
        or grad._rg
        or src._base is not None
        or src._rg
        or src._grad_fn is not None
        or data.size != arr.size  # a non-overlapping view of as many elements spans all of arr
        or data.dtype != arr.dtype
        or not (arr.flags.c_contiguous and _backend.writeable(arr) and _obeys_layout(data, var))
        or sys.getrefcount(grad) > _TENSOR_REFS
        or sys.getrefcount(src) > 3  # grad._base, the local name; getrefcount
        or sys.getrefcount(data) > 3  # grad._data, the local name; getrefcount
    ):
        return None
    sd = src._data
    # data.base, the local name, getrefcount; src._data and the local sd when they are arr
    arr_refs = 3 + 2 * (sd is arr) + (grad._storage is arr)
    if sd is not arr:
        # sd: src._data, the local name, getrefcount (and grad._storage)
        if getattr(sd, "base", None) is not arr or sys.getrefcount(sd) > 3 + (grad._storage is sd):
            return None
        arr_refs += 1  # sd.base
    if sys.getrefcount(arr) > arr_refs:
        return None
    # same strides do not make the same shape: a (1, 3) transpose of a (3, 1) array has arr's strides
    return arr if data.strides == arr.strides and data.shape == arr.shape else data


def _obeys_layout(data, var) -> bool:
    """PyTorch's gradient layout contract (obeys_layout_contract): the gradient of a non-overlapping
    and dense leaf has the leaf's strides on every dimension whose size is not 1 and a positive
    stride on the others (a zero one there is how an expanded or a cat's gradient looks); any other
    leaf's gradient (a sparse leaf's too) is C-contiguous."""
    if not _strided(var) or not (var.flags.c_contiguous or is_dense(var)):
        return data.flags.c_contiguous
    if (
        data.flags.c_contiguous
        and var.flags.c_contiguous
        and data.size
        and min(data.strides, default=1) > 0
    ):
        return True  # both C-contiguous: equal strides wherever the size is above 1
    for n, a, b in zip(data.shape, data.strides, var.strides):
        if (a != b) if n != 1 else (a <= 0):
            return False
    return True


def _strided(var) -> bool:
    """A leaf's data is a strided array (a sparse leaf's is not)."""
    return var.__class__ is np.ndarray or _backend.is_cupy_array(var)


def _copy_obeying(grad, var):
    """A copy of ``grad``'s array laid out as the layout contract asks (PyTorch's
    clone_obey_contract: ``empty_strided`` with the leaf's own strides when it is dense)."""
    data = grad._data
    if not _strided(var):
        return data.copy()
    if var.flags.c_contiguous:
        out = data.copy()
        if out.strides == var.strides:
            return out
    if not is_dense(var):
        return data.copy()
    xp = _backend.xp_of(grad._device)
    item = data.itemsize
    strides = tuple(st // var.itemsize * item for st in var.strides)
    out = xp.lib.stride_tricks.as_strided(xp.empty(data.size, data.dtype), data.shape, strides)
    out[...] = data
    return out


def _copy_stolen(grad, var):
    """The first gradient's copy for ``.grad``: in the gradient's own strides when PyTorch would
    have stolen it (it obeys the layout contract and nobody else holds the tensor; a view of a
    buffer other gradients share is one), so ``.grad.stride()`` is PyTorch's even on size-1
    dimensions, else in the leaf's (``_copy_obeying``)."""
    data = grad._data
    if sys.getrefcount(grad) > _TENSOR_REFS or not _obeys_layout(data, var):
        return _copy_obeying(grad, var)
    if data.flags.c_contiguous:
        out = data.copy()
        if out.strides == data.strides:  # else strides of size-1 dims that NumPy's copy drops
            return out
    # the contract makes these strides dense over data.size elements
    xp = _backend.xp_of(grad._device)
    out = xp.lib.stride_tricks.as_strided(xp.empty(data.size, data.dtype), data.shape, data.strides)
    out[...] = data
    return out


def _copy_with_history(grad, var):
    """PyTorch stores ``empty_strided(...).copy_(grad)``: a copy whose grad_fn is CopyBackwards."""
    from .._tensor.core import _wrap

    out = _wrap(_copy_obeying(grad, var), grad._dtype, grad._device)
    if grad._rg:  # copy_'s node, its destination (the empty tensor) without history
        from ..ops._dispatch import record
        from ..ops.indexing.fill_copy import _Copy

        record(_Copy, (None, grad), out)
    return out


_create_graph_warned = False


def warn_create_graph() -> None:
    """PyTorch warns once per process about ``backward(create_graph=True)``."""
    global _create_graph_warned
    if not _create_graph_warned:
        import warnings

        _create_graph_warned = True
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter "
            "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
            "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
            "of your parameters to None after use to break the cycle and avoid the leak. (Triggered "
            "internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)",
            UserWarning,
            stacklevel=4,
        )


# ---- gradient buffers ----------------------------------------------------------------------------
class PartialGrad:
    """A gradient that is zero outside one view of its tensor: ``grad`` at ``view_fn(zeros(shape))``.

    What a view node's backward yields without building a graph; ``dense()`` is the tensor the
    node's ordinary VJP would have returned."""

    __slots__ = ("grad", "shape", "view_fn")

    def __init__(self, shape, view_fn, grad) -> None:
        self.shape, self.view_fn, self.grad = shape, view_fn, grad

    def add_into(self, t) -> None:
        """``t += self`` in place, touching only the view."""
        v = self.view_fn(t)._data
        v += self.grad._data

    def dense(self):
        from .._tensor.core import _wrap

        g = self.grad
        xp = _backend.cupy() if g._device.type == "cuda" else np
        out = _wrap(xp.zeros(self.shape, g._data.dtype), g._dtype, g._device)
        self.view_fn(out)._data[...] = g._data
        return out


def compose_partial(g, shape, view_fn):
    """The partial gradient of a view node's input, given its output's gradient ``g`` (which may
    itself be partial: a view of a view stays one slice-sized write)."""
    if g.__class__ is PartialGrad:
        inner = g.view_fn
        return PartialGrad(shape, lambda b: inner(view_fn(b)), g.grad)
    return PartialGrad(shape, view_fn, g)


class _Acc:
    """A sum of gradients in a tensor only the engine holds, so more can be added in place.

    In place only for plain dense tensors; a tensor subclass (sparse, a user's subclass) is summed
    by its own ``+``."""

    __slots__ = ("t",)

    def __init__(self, old, g, in_place: bool = False) -> None:
        if in_place:  # old is the engine's alone (_add_to_buffer)
            old._data += g._data
            self.t = old
            return
        if old.__class__ is PartialGrad:
            old, g = g, old
        if g.__class__ is not PartialGrad:
            self.t = old + g
        elif old.__class__ is PartialGrad:
            self.t = old.dense()
            g.add_into(self.t)
        elif old.__class__ is _tensor_class():
            from .._tensor.core import _wrap

            self.t = _wrap(old._data.copy(), old._dtype, old._device)
            g.add_into(self.t)
        else:
            self.t = old + g.dense()

    def add(self, g) -> None:
        t = self.t
        plain = t.__class__ is _tensor_class()
        if g.__class__ is PartialGrad:
            if plain:
                g.add_into(t)
            else:
                self.t = t + g.dense()
        elif (
            plain
            and g.__class__ is t.__class__
            and g._data.shape == t._data.shape
            and g._dtype is t._dtype
        ):
            t._data += g._data
        else:  # a root's gradient of another shape or dtype, or a subclass: out of place
            self.t = t + g


class _Partials:
    """Partial gradients of one tensor kept as they are while they are small beside it.

    A tensor sliced at every step of a loop (``x[:, t]``) gets one partial per step; summing
    them into a full-size buffer from the second on made that buffer live through most of the
    backward, while the graph's saved tensors are still held (the LSTMCell loop's peak memory:
    its full-size input gradient beside the saved gates). Kept until they reach ``SHARE`` of the
    full size (then summed, ``_Acc``) or the node runs (``dense``): the same additions in the
    same order as summing them at once, so the same bits."""

    __slots__ = ("nbytes", "parts")
    SHARE = 4  # at most a quarter of the full size: a backward peaks at 1.25 full-size buffers

    def __init__(self, old, g) -> None:
        self.parts = [old, g]
        self.nbytes = old.grad._data.nbytes + g.grad._data.nbytes

    @staticmethod
    def fit(old, g) -> bool:
        """``old`` and ``g`` are partials that may wait together."""
        if old.__class__ is not PartialGrad:
            return False
        t = _tensor_class()
        if old.grad.__class__ is not t or g.grad.__class__ is not t:  # sparse, a subclass
            return False
        return (old.grad._data.nbytes + g.grad._data.nbytes) * _Partials.SHARE <= _full_bytes(g)

    def add(self, g):
        """Keep ``g`` too (self), or the sum of all so far and ``g`` (an ``_Acc``)."""
        if g.__class__ is PartialGrad:
            nbytes = self.nbytes + g.grad._data.nbytes
            if nbytes * self.SHARE <= _full_bytes(g):
                self.parts.append(g)
                self.nbytes = nbytes
                return self
        acc = self.summed()
        acc.add(g)
        return acc

    def summed(self):
        parts = self.parts
        acc = _Acc(parts[0], parts[1])
        for p in parts[2:]:
            acc.add(p)
        return acc

    def dense(self):
        return self.summed().t


def _full_bytes(p) -> int:
    """Bytes of the full-size gradient a PartialGrad is part of."""
    n = p.grad._data.itemsize
    for s in p.shape:
        n *= s
    return n


def _add_to_buffer(buffers, node, nr, g, pending) -> None:
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._nout
    old = buf[nr]
    if old is None:
        buf[nr] = g
        if g.__class__ is PartialGrad:
            pending.add(node)
    elif old.__class__ is _Acc:
        old.add(g)
    elif old.__class__ is _Partials:
        buf[nr] = old.add(g)
    elif g.__class__ is PartialGrad and _Partials.fit(old, g):
        buf[nr] = _Partials(old, g)
        pending.add(node)
    elif _is_sparse_grad(old) or _is_sparse_grad(g):  # PyTorch sums sparse ones as new + old
        from ..sparse.arithmetic import grad_sum

        buf[nr] = grad_sum(g, old)
    elif grad_mode.state.enabled:  # create_graph: the sum is recorded, never in place
        buf[nr] = old + g
    else:
        # The first gradient becomes the sum's buffer when only this buffer holds it (the list,
        # the name old, getrefcount's argument), as PyTorch's InputBuffer accumulates in place:
        # a weight used at every step of a loop held three gradient-sized arrays at its first
        # sum (old, g, old + g), the LSTMCell loop's peak memory.
        in_place = _COUNTED and sys.getrefcount(old) <= 3 and _summable_into(old, g)
        buf[nr] = _Acc(old, g, in_place)
        pending.add(node)


def _summable_into(old, g) -> bool:
    """``old``'s array can take ``+= g`` with the bits of ``old + g``: a plain float or complex
    NumPy array of g's shape and dtype that no other array, tensor or graph can see."""
    if old.__class__ is not _Tensor or g.__class__ is not _Tensor:  # a partial, a subclass
        return False
    data = old._data
    return (
        data.__class__ is np.ndarray
        and data.dtype.char in "fdFD"
        and not old._rg
        and old._base is None
        and data.base is None
        and sys.getrefcount(data) <= 3  # old._data, the name data, getrefcount's argument
        and data.flags.writeable
        and g._dtype is old._dtype
        and g._data.shape == data.shape
    )


def _resolve(buf, node, pending, keep_partial: bool) -> list:
    """The summed gradients of ``node``'s outputs as tensors (a view node may keep a partial)."""
    pending.discard(node)
    for i, g in enumerate(buf):
        if g.__class__ is _Acc:
            buf[i] = g.t
        elif g.__class__ is _Partials or (g.__class__ is PartialGrad and not keep_partial):
            buf[i] = g.dense()
    return buf


# ---- the walk ------------------------------------------------------------------------------------
def _collect(roots):
    """Count dependencies of every node reachable from ``roots`` (iteratively)."""
    deps: dict[Node, int] = {}
    seen = set(roots)
    stack = list(roots)
    count = deps.get
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                n = count(nxt)
                if n is not None:  # (then nxt was seen when it was first counted)
                    deps[nxt] = n + 1
                else:
                    deps[nxt] = 1
                    if nxt not in seen:  # a root reached from another root is seen already
                        seen.add(nxt)
                        stack.append(nxt)
    return deps, seen


def _ancestors(seen, targets):
    """Nodes with a path (of at least one edge) to some target node."""
    parents: dict[Node, list] = {}
    for node in seen:
        for nxt, _ in node.next_functions:
            if nxt is not None:
                parents.setdefault(nxt, []).append(node)
    found = set()
    stack = [p for t in targets for p in parents.get(t, ())]
    while stack:
        n = stack.pop()
        if n not in found:
            found.add(n)
            stack.extend(parents.get(n, ()))
    return found


def run_backward(
    roots, grads, retain_graph: bool, create_graph: bool, inputs=None, accumulate: bool = True
):
    """Backpropagate ``grads`` from ``roots`` (tensors).

    ``accumulate=False`` (autograd.grad): the gradients reaching ``inputs`` are returned, one
    per input, and nothing is accumulated. ``accumulate=True`` with ``inputs``
    (``backward(inputs=...)``): only the nodes leading to those inputs run.
    """
    buffers: dict[Node, list] = {}
    pending: set = set()  # nodes whose buffer holds an _Acc or a PartialGrad
    root_nodes = []
    for t, g in zip(roots, grads):
        node, nr = _edge_or_given(t)
        if node is not None:
            if node not in buffers:
                root_nodes.append(node)
            _add_to_buffer(buffers, node, nr, g, pending)
    deps, seen = _collect(root_nodes)

    captures = None  # node -> [(output_nr, index into inputs)]
    run_set = None  # when set, only these nodes run
    captured = []
    if inputs is not None:
        targets = [_edge_or_given(t) for t in inputs]
        run_set = _ancestors(seen, {n for n, _ in targets if n is not None})
        if accumulate:
            run_set.update(n for n, _ in targets if n is not None)
        else:
            captures = {}
            for i, (n, nr) in enumerate(targets):
                captures.setdefault(n, []).append((nr, i))
            captured = [None] * len(inputs)

    heap = [(-n._seq, next(_tick), n) for n in root_nodes if n not in deps]
    heapq.heapify(heap)
    check_nan = anomaly_mode.state.enabled and anomaly_mode.state.check_nan
    prev = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    _checkpoint_valid.append(inputs is None)
    _tasks.append(GraphTask(seen, run_set, captures))
    pop = heapq.heappop
    every = run_set is None and captures is None  # every node runs, no gradient is captured
    fp = quiet()  # inf and NaN in gradients come silently, as in PyTorch (backend/fp_errors.py)
    try:
        while heap:
            node = pop(heap)[2]
            partial_ok = node._partial_vjp is not None and _partial_ok(
                node, create_graph, check_nan, captures
            )
            buf = buffers.pop(node, None)
            if buf is None:
                buf = [None] * node._nout
            elif pending and node in pending:
                buf = _resolve(buf, node, pending, partial_ok)
            if not every:
                runs = run_set is None or node in run_set
                if captures is not None and node in captures:
                    if not runs:  # PyTorch runs the tensor hooks first only for nodes stopping here
                        buf = _tensor_hooks(node, buf)
                    for nr, i in captures[node]:
                        captured[i] = buf[nr]
                if not runs:
                    continue
            if node._retain or node.__dict__:  # the only places tensor hooks live
                buf = _tensor_hooks(node, buf)
            outputs = _run_node(node, buf, retain_graph, check_nan, partial_ok)
            del buf
            if outputs:
                _propagate(node, outputs, buffers, deps, heap, run_set, captures, pending)
            else:
                _skip(node, deps, heap, run_set, captures)
            del outputs  # so that AccumulateGrad may steal a gradient nobody else holds
    finally:
        loud(fp)
        grad_mode.state.enabled = prev
        _checkpoint_valid.pop()
        _tasks.pop()
    return captured


def _edge_or_given(t):
    """A tensor's edge, or a ``GradientEdge`` given in its place (``autograd.grad``)."""
    if t.__class__ is GradientEdge:
        return t.node, t.output_nr
    return edge_of(t)


def _partial_ok(node, create_graph, check_nan, captures) -> bool:
    """A view node may hand on a PartialGrad: nothing will look at its dense gradient."""
    return (
        not create_graph
        and not check_nan
        and (captures is None or node not in captures)
        and not node._pre_hooks
        and not node._hooks
        and not node._retain
        and not (node.__dict__ and node.__dict__.get("_tensor_hooks"))
    )


# One entry per running backward pass: False while it runs for grad() or backward(inputs=...),
# whose results a reentrant checkpoint's inner backward would bypass (PyTorch refuses the same).
_checkpoint_valid: list = []


class GraphTask:
    """What one running backward pass will execute (``register_multi_grad_hook`` asks): the nodes
    reached from its roots, those that run when ``inputs`` limit it, those whose gradients it
    captures for ``autograd.grad``."""

    __slots__ = ("captures", "run_set", "seen")

    def __init__(self, seen, run_set, captures) -> None:
        self.seen, self.run_set, self.captures = seen, run_set, captures

    def reaches(self, node) -> bool:
        """Whether the gradient flowing into ``node`` is computed by this pass."""
        if node not in self.seen:
            return False
        if self.run_set is None or node in self.run_set:
            return True
        return self.captures is not None and node in self.captures


_tasks: list = []  # the running backward passes, innermost last


def current_task():
    return _tasks[-1] if _tasks else None


def is_checkpoint_valid() -> bool:
    """PyTorch's ``torch.autograd._is_checkpoint_valid``."""
    return not _checkpoint_valid or _checkpoint_valid[-1]


def _propagate(node, outputs, buffers, deps, heap, run_set, captures, pending) -> None:
    """Send ``outputs`` along ``node``'s edges; queue the nodes that became ready."""
    edges = node.next_functions
    missing = len(edges) - len(outputs)
    if missing > 0:  # a VJP may leave out trailing inputs' gradients
        outputs = (*outputs, *(None,) * missing)
    shapes = node._shapes
    i = -1
    for (nxt, nr), g in zip(edges, outputs):
        i += 1
        if nxt is None:
            continue
        if g is not None:
            cls = g.__class__
            if cls is not PartialGrad:  # a partial has its input's shape and dtype
                shape, dtype = shapes[i]
                if cls is not _Tensor or g._dtype is not dtype or g._data.shape != shape:
                    g = _conform(node, i, g)
            if nxt not in buffers and nxt._nout == 1:  # the first gradient to reach nxt
                buffers[nxt] = [g]
                if cls is PartialGrad:
                    pending.add(nxt)
            else:
                _add_to_buffer(buffers, nxt, nr, g, pending)
        left = deps[nxt] - 1
        deps[nxt] = left
        if left == 0 and (run_set is None or nxt in run_set or (captures and nxt in captures)):
            _push(heap, (-nxt._seq, next(_tick), nxt))


def _skip(node, deps, heap, run_set, captures) -> None:
    """``_propagate`` for a node that sent no gradient: its next nodes only lose a dependency."""
    for nxt, _ in node.next_functions:
        if nxt is None:
            continue
        left = deps[nxt] - 1
        deps[nxt] = left
        if left == 0 and (run_set is None or nxt in run_set or (captures and nxt in captures)):
            _push(heap, (-nxt._seq, next(_tick), nxt))


_push = heapq.heappush
_tick = itertools.count()  # ties (AccumulateGrad nodes) leave in the order they became ready
_Tensor = None


def _tensor_class():
    global _Tensor
    if _Tensor is None:
        from .._tensor.core import Tensor as _T

        _Tensor = _T
    return _Tensor


def _conform(node, i, g):
    """Reduce a gradient to its input's shape and dtype (PyTorch's validate_outputs)."""
    shape, dtype = node._shapes[i]
    if g.__class__ is _Tensor:
        if g._data.shape == shape and g._dtype is dtype:
            return g  # the common case: nothing to reduce or cast
    elif not isinstance(g, _tensor_class()):
        raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
    gs = g._data.shape
    if gs != shape:
        if not _expandable(shape, gs):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got {list(gs)} but "
                f"expected shape compatible with {list(shape)}"
            )
        from ..ops.shape.view_ops import sum_to

        g = sum_to(g, shape)
    if g._dtype is not dtype and dtype is not None:
        if node.real_part and g._dtype.is_complex and not dtype.is_complex:
            g = g.real
        g = g.to(dtype)
    return g


def _expandable(shape, to) -> bool:
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True


def _run_node(node, buf, retain_graph, check_nan, partial=False):
    if partial and buf[0] is not None:  # a view node passing on a PartialGrad
        outputs = (node._partial_vjp(buf[0]),)
        if not retain_graph:
            node._release()
        return outputs
    if (
        (not buf or buf[0] is None)
        and not node._pre_hooks
        and not node._call_without_grads
        and _all_none(buf)
    ):
        if not retain_graph:  # no gradient reached it: every input gets none (PyTorch's undefined)
            node._release()
        return ()
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            res = hook(tuple(buf))
            if res is not None:
                buf = list(checked_tuple(hook_name(hook), buf, res))
    if node._materialize and (buf[0] is None if len(buf) == 1 else any(g is None for g in buf)):
        buf = _materialize(node, buf)
    outputs = node.apply(*buf)
    if outputs.__class__ is not tuple and not isinstance(outputs, tuple):
        outputs = tuple(outputs) if isinstance(outputs, list) else (outputs,)
    if node._hooks:
        shapes = getattr(node, "_shapes", None)
        if shapes:  # hooks see gradients already reduced to each input's shape, as in PyTorch
            outputs = tuple(
                _conform(node, i, g)
                if g is not None and i < len(shapes) and shapes[i] is not None
                else g
                for i, g in enumerate(outputs)
            )
        for hook in list(node._hooks.values()):
            res = hook(outputs, tuple(buf))
            if res is not None:
                outputs = checked_tuple(hook_name(hook), outputs, res)
    if check_nan:
        _check_nan(node, outputs)
    if not retain_graph:
        node._release()
    return outputs


def _all_none(buf) -> bool:
    # a function, not a loop in _run_node: a loop variable there would hold a gradient while the
    # node runs, and AccumulateGrad could no longer steal it (see _owned's reference counts)
    for g in buf:
        if g is not None:
            return False
    return True


def _check_nan(node, outputs) -> None:
    for i, g in enumerate(outputs):
        if g is not None and g._dtype.category >= 2 and bool((g._data != g._data).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _tensor_hooks(node, buf):
    """Hooks of ``Tensor.register_hook`` and ``retain_grad`` on the tensors this node feeds."""
    if node.__class__ is AccumulateGrad:
        hooks = node.variable._hooks
        if hooks and buf[0] is not None:
            for fn in list(hooks.values()):
                res = fn(buf[0])
                if res is not None:
                    buf[0] = checked_tensor(hook_name(fn), buf[0], res)
        return buf
    th = node.__dict__.get("_tensor_hooks") if node.__dict__ else None
    if th:
        for nr, hooks in th.items():
            if buf[nr] is None:
                continue
            for fn in list(hooks.values()):
                res = fn(buf[nr])
                if res is not None:
                    buf[nr] = checked_tensor(hook_name(fn), buf[nr], res)
    if node._retain:  # retain_grad hooks always run last (PyTorch >= 2.0)
        for nr, ref in node._retain.items():
            t = ref()
            g = buf[nr]
            if t is not None and g is not None:
                t._grad = g.clone() if t._grad is None else t._grad + g
    return buf


def _materialize(node, buf):
    from .._tensor import core as _tensor

    metas = node.__dict__.get("_out_meta")
    out = list(buf)
    for i, g in enumerate(out):
        if g is None and metas is not None and metas[i][1] is not None:
            shape, dtype, device = metas[i]
            out[i] = _tensor.zeros_like_meta(shape, dtype, device)
    return out
