"""Watching op calls while a profiler, anomaly mode or the explainer asks for it.

taimatsu has no single op-call function to hook (ops are plain functions; Tensor methods reach
them through ``_tensor/op_namespace.py``), and the dispatch path must not pay for tools that
are off. So the watch is Python's own profiling hook: while at least one watcher is
registered, ``sys.setprofile`` reports the calls and returns of the functions that are
ops (the public functions of ``taimatsu``, ``Tensor``, ``nn.functional``, ``linalg``,
``special`` and ``fft`` that live in the op modules), of ``Tensor.detach`` / ``.data`` /
``requires_grad_``, and of the engine's per-node step. With no watcher the hook is removed:
nothing at all runs per op. The hook watches the thread that started it (as PyTorch's
profiler, by default); a profiling function installed before (cProfile) is suspended while
the watch is on and restored after.

A watcher has ``enter(site, frame, outer)`` and ``leave(site, frame, value, outer)``; ``site``
is an ``OpSite`` (kind and PyTorch name), ``outer`` is False for the ops an op calls inside
itself; ``leave`` also runs when the call raised (``value`` None).
"""

from __future__ import annotations

import os
import sys
import types
from typing import NamedTuple


class OpSite(NamedTuple):
    kind: str  # "op", "detach", "data", "function" (a custom Function's apply), "requires_grad",
    # "node" (an engine step), "backward" (a backward pass)
    name: str  # "add" (shown as aten::add); "" for "node" (the node says its name)
    # name by the values of the code's free variables, when one code serves several ops
    # (``unary("exp", ...)`` and ``unary("sin", ...)`` make functions sharing one code object)
    variants: dict | None = None


PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_watchers: list = []
_codes: dict | None = None
_saved_profile = None

# Function names that differ from the aten op PyTorch's profiler shows.
_ATEN = {
    "_add": "add",
    "_true_div": "div",
    "_true_div_": "div_",
    "cross_entropy": "cross_entropy_loss",
}
_OP_MODULES = (
    "taimatsu.ops.",
    "taimatsu.linalg",
    "taimatsu.nn.functional",
    "taimatsu.nn._functional",
    "taimatsu.special",
    "taimatsu.fft",
    "taimatsu._tensor.conversions",
)


def watch(watcher) -> None:
    """Start reporting op calls to ``watcher`` (installs the hook for the first one)."""
    global _saved_profile, _codes
    if _codes is None:
        _codes = _site_table()
    if not _watchers:
        global _depth
        _depth = 0
        _saved_profile = sys.getprofile()
        sys.setprofile(_hook)
    _watchers.append(watcher)


def unwatch(watcher) -> None:
    """Stop reporting to ``watcher``; the hook goes away with the last one."""
    global _saved_profile
    if watcher in _watchers:
        _watchers.remove(watcher)
        if not _watchers:
            sys.setprofile(_saved_profile)
            _saved_profile = None


def watching(watcher) -> bool:
    return watcher in _watchers


_OP_KINDS = frozenset(("op", "detach", "data", "function"))
_depth = 0  # ops running now (an op's inner op calls have depth > 0)


def _hook(frame, event, arg) -> None:
    global _depth
    if event == "call":
        site = _codes.get(frame.f_code)
        if site is not None:
            if site.variants is not None:
                site = _resolve(site, frame)
            outer = _depth == 0
            for w in _watchers:
                try:
                    w.enter(site, frame, outer)
                except Exception as e:  # noqa: BLE001 - a tool's fault must not stop the program
                    _report(w, e)
            if site.kind in _OP_KINDS:
                _depth += 1
    elif event == "return":
        site = _codes.get(frame.f_code)
        if site is not None:
            if site.variants is not None:
                site = _resolve(site, frame)
            if site.kind in _OP_KINDS:
                _depth = max(_depth - 1, 0)
            outer = _depth == 0
            for w in reversed(_watchers):
                try:
                    w.leave(site, frame, arg, outer)
                except Exception as e:  # noqa: BLE001
                    _report(w, e)


_reported: set = set()


def _report(watcher, error: Exception) -> None:
    """Warn once per tool and error type; the program goes on (the tool's record may be partial)."""
    key = (type(watcher).__name__, type(error).__name__)
    if key not in _reported:
        import warnings

        _reported.add(key)
        warnings.warn(f"{key[0]} failed to record an op call ({error!r}); its record may be incomplete",
                      RuntimeWarning, stacklevel=3)  # fmt: skip


def _resolve(site: OpSite, frame) -> OpSite:
    local = frame.f_locals
    key = tuple(id(local.get(v)) for v in frame.f_code.co_freevars)
    name = site.variants.get(key)
    if name is None:
        own = local.get("name")  # the op factories keep the op's name in their closure
        name = own if isinstance(own, str) else site.name
    return OpSite(site.kind, name)


def user_site(frame) -> tuple[str, int]:
    """``(file, line)`` of the first frame outside taimatsu at or above ``frame``."""
    f = frame
    while f is not None and f.f_code.co_filename.startswith(PKG):
        f = f.f_back
    if f is None:
        return frame.f_code.co_filename, frame.f_lineno
    return f.f_code.co_filename, f.f_lineno


def tensors_in(value) -> list:
    """The tensors in an op's argument or result (a tensor, or a tuple/list of them)."""
    from .._tensor.core import Tensor

    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [v for v in value if isinstance(v, Tensor)]
    return []


def arguments(frame) -> list:
    """The values of the positional parameters (and ``*args``) of the frame's function."""
    code = frame.f_code
    local = frame.f_locals
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    values = [local.get(n) for n in names]
    if code.co_flags & 0x04:  # *args
        star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
        values.extend(local.get(star) or ())
    return values


# ---- which functions are ops ------------------------------------------------------------------
def _site_table() -> dict:
    import taimatsu
    from taimatsu import fft, linalg, special
    from taimatsu.nn import functional

    from .._tensor import methods
    from .._tensor.core import Tensor
    from . import engine
    from .function import Function

    public = set(dir(taimatsu)) | set(dir(Tensor)) | set(dir(functional)) | set(dir(linalg))
    public |= set(dir(special)) | set(dir(fft))
    table: dict = {}
    variants: dict = {}
    spaces = [
        (vars(methods._ops), ""),
        (vars(taimatsu), ""),
        (vars(functional), ""),
        (vars(linalg), "linalg_"),
        (vars(special), "special_"),
        (vars(fft), "fft_"),
        ({k: getattr(Tensor, k, None) for k in dir(Tensor)}, ""),
    ]
    for space, prefix in spaces:
        for name, value in space.items():
            fn = _unwrap(value)
            if not isinstance(fn, types.FunctionType):
                continue
            # the defining module (Tensor methods carry __module__ "taimatsu" for pickle)
            module = fn.__globals__.get("__name__", "")
            if not module.startswith(_OP_MODULES) or "._dispatch" in module:
                continue
            aten = _ATEN.get(name, name.lstrip("_"))
            if name.startswith("__") or aten not in public:
                continue
            if module.startswith("taimatsu._tensor.conversions") and not name.startswith("new_"):
                aten = "to"  # .float(), .long(), .cpu(), .to(...): aten::to in PyTorch
            code = fn.__code__
            cells = tuple(id(c.cell_contents) for c in fn.__closure__ or ())
            variants.setdefault(code, {}).setdefault(cells, prefix + aten)
            table.setdefault(code, OpSite("op", prefix + aten))
    for code, names in variants.items():
        if len(names) > 1:
            table[code] = table[code]._replace(variants=names)
    table[Tensor.detach.__code__] = OpSite("detach", "detach")
    table[Tensor.data.fget.__code__] = OpSite("data", "data")
    table[Tensor.requires_grad_.__code__] = OpSite("requires_grad", "requires_grad_")
    table[Function.apply.__func__.__code__] = OpSite("function", "")  # custom autograd.Function
    table[engine._run_node.__code__] = OpSite("node", "")
    table[engine.run_backward.__code__] = OpSite("backward", "")
    from . import (
        backward,
        grad,
    )  # the checks before the engine runs may raise: note roots there too

    table[backward.__code__] = OpSite("backward", "")
    table[grad.__code__] = OpSite("backward", "")
    return table


def _unwrap(fn):
    """The function a wrapper (``takes_out``, ``functools.wraps``) calls, whose frame runs."""
    for _ in range(4):
        inner = getattr(fn, "__wrapped__", None)
        if inner is None and isinstance(fn, types.FunctionType) and fn.__closure__:
            for cell in fn.__closure__:
                try:
                    c = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                if isinstance(c, types.FunctionType) and c.__name__ == fn.__name__:
                    inner = c
                    break
        if inner is None:
            return fn
        fn = inner
    return fn
