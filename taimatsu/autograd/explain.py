"""Why does a tensor have, or not have, a gradient? ``explain(w)`` says it in one sentence.

PyTorch cannot answer this (``w.grad`` is just None); taimatsu can, because the graph is plain
Python objects. The causes named, checked in this order:

- ``not_leaf``: ``w`` was computed by an op; ``.grad`` is filled only for leaves (``retain_grad()``).
- ``integer``: integer and bool tensors cannot carry gradients (named: the cast that made it).
- ``cut``: ``w`` came out of ``.detach()``, ``.data``, an op under ``torch.no_grad()`` /
  ``inference_mode()``, an integer cast or a non-differentiable op, from a tensor that required
  grad; or the path from the loss to ``w`` was cut that way.
- ``requires_grad_off``: ``requires_grad_(False)`` (or ``requires_grad = False``) switched it off.
- ``no_requires_grad``: a leaf created without ``requires_grad=True``.
- ``freed``: the graph from the loss to ``w`` was freed by an earlier backward.
- ``not_used``: the loss does not depend on ``w``.
- ``no_backward``: the loss depends on ``w`` but no backward has reached it yet.
- ``has_grad``: ``w.grad`` is set.

Where a cut happened (``file:line``) is known only for what ran inside ``trace_origins()`` (or
anomaly mode): recording origins watches every op call (``op_watch``), which costs time, so it
is off by default and then costs nothing at all. Outside, the explanation names the cause it can
prove and says to rerun under ``trace_origins()`` for the line.
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple

from . import grad_mode, op_watch
from .graph import AccumulateGrad

_MAX_CUTS = 16  # cuts remembered per tensor (a detach per step of a long loop would pile up)


class Cut(NamedTuple):
    """Where gradient flow was cut: ``how`` (".detach()", "torch.no_grad()", ...) at ``where``."""

    how: str
    where: tuple  # (file, line)
    sources: tuple  # the nodes gradient would have flowed into
    note: str = ""


class Explanation:
    """The answer of ``explain``: ``cause`` (a short code, see the module docstring), ``message``."""

    def __init__(self, cause: str, message: str) -> None:
        self.cause, self.message = cause, message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return self.message


# ---- recording origins ----------------------------------------------------------------------------
class trace_origins:
    """Inside this context, record where tensors were cut from the graph (``file:line``).

    Usable as a context manager or a decorator. Anomaly mode records the same.
    """

    def __enter__(self):
        _tracer.start()
        return self

    def __exit__(self, *exc) -> None:
        _tracer.stop()

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with trace_origins():
                return func(*args, **kwargs)

        return wrapper


class _Tracer:
    def __init__(self) -> None:
        self.users = 0
        self.calls: list = []
        # the roots of the latest backward run while tracing; kept (with their graph) until the
        # next one, so that explain(w) still finds the loss after the training step returned
        self.last_backward: list = []

    def start(self) -> None:
        self.users += 1
        if self.users == 1:
            self.calls.clear()
            self.last_backward = []
            op_watch.watch(self)

    def stop(self) -> None:
        self.users = max(self.users - 1, 0)
        if self.users == 0:
            op_watch.unwatch(self)

    def enter(self, site, frame, outer) -> None:
        if site.kind == "backward":
            local = frame.f_locals
            roots = local.get("roots") or local.get("tensors") or local.get("outputs")
            self.last_backward = op_watch.tensors_in(roots)
        if outer and site.kind in ("op", "function", "detach", "data", "requires_grad"):
            self.calls.append(op_watch.tensors_in(op_watch.arguments(frame)))
        else:
            self.calls.append(None)

    def leave(self, site, frame, value, outer) -> None:
        inputs = self.calls.pop() if self.calls else None
        if inputs is None or value is None:
            return
        where = op_watch.user_site(frame.f_back)
        if site.kind == "requires_grad":
            t = inputs[0] if inputs else None
            if t is not None and not t._rg and t.grad_fn is None:
                t.__dict__["_rg_off"] = where
            return
        _stamp(site, frame, inputs, op_watch.tensors_in(value), where)


_tracer = _Tracer()


def _stamp(site, frame, inputs, outputs, where) -> None:
    """Give each output the cuts of its inputs, and a new cut when it lost their gradient."""
    inherited: dict = {}
    for t in inputs:
        for c in t.__dict__.get("_cuts", ()):
            inherited[id(c)] = c
    wanting = [t for t in inputs if t._rg]
    cuts = tuple(inherited.values())[-_MAX_CUTS:]
    for o in outputs:
        mine = cuts
        if wanting and not o._rg:
            from .engine import edge_of

            sources = tuple(n for n in (edge_of(t)[0] for t in wanting) if n is not None)
            how, note = _how(site, frame, o)
            mine = (*cuts[1 - _MAX_CUTS :], Cut(how, where, sources, note))
        d = o.__dict__
        d["_traced"] = True  # its cuts (if any) are known
        if mine:
            d["_cuts"] = mine
        elif not o._rg:
            d["_made"] = (site.name or "apply", where)


def _how(site, frame, out) -> tuple[str, str]:
    """What cut the graph, and a note on why that cuts it."""
    if site.kind == "detach":
        return ".detach()", ""
    if site.kind == "data":
        return ".data", ""
    if not grad_mode.state.enabled:
        mode = "torch.inference_mode()" if grad_mode.state.inference else "torch.no_grad()"
        return mode, ""
    name = site.name or getattr(frame.f_locals.get("cls"), "__name__", "?") + ".apply"
    if out._dtype.category < 2:
        what = f".{frame.f_code.co_name}()" if name == "to" else f"{name}()"
        dtype = str(out.dtype).removeprefix("torch.")
        return what, f" (its {dtype} result carries no gradient)"
    return f"{name}()", " (not differentiable)"


# ---- explaining ---------------------------------------------------------------------------------------
def explain(tensor, loss=None, name: str | None = None):
    """Why ``tensor`` (or each parameter of a module) has or has no gradient.

    ``loss``: the tensor backward was (or will be) called on; by default the roots of the latest
    backward (even a failed one) run inside ``trace_origins()`` (kept until tracing starts again). ``name``: how to call the tensor in the sentence
    (default: its variable name in the caller, else "the tensor"). For a module, returns one
    line per parameter.
    """
    from .._tensor.core import Tensor

    if hasattr(tensor, "named_parameters") and not isinstance(tensor, Tensor):
        lines = [
            f"{pname}: {_explain(p, loss, pname).message}" for pname, p in tensor.named_parameters()
        ]
        return Explanation("module", "\n".join(lines))
    if not isinstance(tensor, Tensor):
        raise TypeError(f"explain() expects a Tensor or a Module, got {type(tensor).__name__}")
    return _explain(tensor, loss, name or _caller_name(tensor))


def _explain(t, loss, name) -> Explanation:
    if t.grad_fn is not None and not t.retains_grad:
        return Explanation(
            "not_leaf",
            f"{name} is not a leaf (it was computed by {type(t.grad_fn).__name__}): backward fills .grad only "
            f"for leaf tensors. Call {name}.retain_grad() before backward, or use "
            f"torch.autograd.grad(loss, {name}).",
        )
    if not t._rg:
        return _no_requires_grad(t, name)
    if t._grad is not None:
        return Explanation("has_grad", f"{name} has a gradient ({name}.grad is set).")
    roots = _roots(loss)
    if not roots:
        return Explanation(
            "no_backward",
            f"{name} requires grad but {name}.grad is None: no backward has run that reaches it "
            "(pass loss= to explain(), or run the training step under trace_origins()).",
        )
    return _against_loss(t, roots, name)


def _no_requires_grad(t, name) -> Explanation:
    d = t.__dict__
    for cut in reversed(d.get("_cuts", ())):
        if not cut.sources:
            continue
        return Explanation(
            "cut", f"{name} does not require grad: it was cut from the graph by {_cut_text(cut)}."
        )
    if t._dtype.category < 2:
        return Explanation(
            "integer",
            f"{name} has dtype {t.dtype}: only floating point and complex tensors can require gradients.",
        )
    if "_rg_off" in d:
        return Explanation(
            "requires_grad_off",
            f"{name} does not require grad: requires_grad was switched off at {_at(d['_rg_off'])}.",
        )
    made = d.get("_made")
    how = f", made by {made[0]}() at {_at(made[1])}" if made else ""
    return Explanation(
        "no_requires_grad",
        f"{name} does not require grad{how}: create it with requires_grad=True or call "
        f"{name}.requires_grad_() (a tensor cut by .detach()/no_grad looks the same: run under "
        "trace_origins() to see where)." if not made else
        f"{name} does not require grad{how}: create it with requires_grad=True or call {name}.requires_grad_().",
    )  # fmt: skip


def _against_loss(t, roots, name) -> Explanation:
    from .engine import edge_of

    target = edge_of(t)[0]
    nodes = _reachable([r.grad_fn for r in roots if r.grad_fn is not None])
    if target in nodes or any(isinstance(n, AccumulateGrad) and n.variable is t for n in nodes):
        freed = [n for n in nodes if n._saved is None]
        if freed and not any(n._saved for n in nodes):
            return Explanation(
                "reset",
                f"backward already ran through this graph (its saved tensors are freed), but {name}.grad "
                "is None: it was reset since (optimizer.zero_grad() sets gradients to None).",
            )
        if freed:
            return Explanation(
                "freed",
                f"the graph from the loss to {name} was freed by an earlier backward "
                f"({type(freed[0]).__name__} and {len(freed) - 1} more nodes lost their saved tensors): "
                "backward through it raises 'Trying to backward through the graph a second time'. "
                "Detach the state carried from one step to the next, or pass retain_graph=True.",
            )
        return Explanation(
            "no_backward",
            f"the loss depends on {name} but {name}.grad is None: backward has not reached it yet "
            "(or .grad was reset since, as optimizer.zero_grad() does).",
        )
    for root in roots:
        for cut in reversed(root.__dict__.get("_cuts", ())):
            if target in _reachable(cut.sources) or any(
                isinstance(n, AccumulateGrad) and n.variable is t for n in _reachable(cut.sources)
            ):
                return Explanation(
                    "cut", f"the path from the loss to {name} was cut by {_cut_text(cut)}."
                )
    if not all(r.__dict__.get("_traced") for r in roots):
        return Explanation(
            "not_used",
            f"the loss does not depend on {name} through the graph: either it does not use {name}, "
            "or the path was cut (.detach(), .data, no_grad, an integer cast). Run the forward under "
            "trace_origins() to see which and where.",
        )
    return Explanation("not_used", f"the loss does not depend on {name}.")


def _roots(loss) -> list:
    from .._tensor.core import Tensor

    if loss is None:
        return list(_tracer.last_backward)
    return [loss] if isinstance(loss, Tensor) else list(loss)


def _reachable(roots) -> set:
    seen, stack = set(), [r for r in roots if r is not None]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(nxt for nxt, _ in n.next_functions if nxt is not None)
    return seen


def _cut_text(cut: Cut) -> str:
    prefix = "an op under " if cut.how.startswith("torch.") else ""
    return f"{prefix}{cut.how} at {_at(cut.where)}{cut.note}"


def _at(where) -> str:
    path, line = where
    try:
        rel = os.path.relpath(path)
        path = rel if not rel.startswith("..") else path
    except ValueError:  # another drive (Windows)
        pass
    return f"{path}:{line}"


def _caller_name(obj) -> str:
    """The name the caller's code gives ``obj`` (``explain(w1)`` says "w1")."""
    frame = sys._getframe(2)
    for scope in (frame.f_locals, frame.f_globals):
        for k, v in scope.items():
            if v is obj and not k.startswith("_"):
                return k
    return "the tensor"
