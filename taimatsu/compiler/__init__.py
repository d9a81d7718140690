"""``torch.compile`` and ``torch.compiler``: PyTorch's arguments, FX graphs for custom backends.

taimatsu has no code generation. ``torch.compile`` checks its arguments as PyTorch does (a callable
model, a registered ``backend`` name, inductor's ``mode`` names, ``mode`` and ``options`` not both);
with a string backend it then runs the program eagerly: the numbers are those of PyTorch's
``backend="eager"``, which also runs every op as written. ``dynamic``, ``options`` and the
recompilation settings are accepted and change nothing. What it returns has PyTorch's shape: an ``OptimizedModule`` for a module (``_orig_mod``,
``state_dict`` keys prefixed ``_orig_mod.``) and a wrapped function otherwise.

As in PyTorch, the first ``torch.compile`` call that gets past the argument checks turns the
default argument validation of ``torch.distributions`` off.

A callable ``backend`` gets what PyTorch's custom backends get: an FX ``GraphModule`` of the
function or module (traced with ``taimatsu.fx.symbolic_trace``) and the call's example inputs; what
it returns is called instead of the original. Its result is cached per the tensor arguments'
shapes and dtypes (a call with new shapes calls the backend again, as PyTorch recompiles);
``torch._dynamo.reset()`` drops the caches.

Deviations: inductor's ``options`` keys are not checked against inductor's config (PyTorch raises
``Unexpected optimization option``). Where fx tracing fails (data-dependent control flow) or the
call has keyword arguments, the program runs eagerly and the backend is not called (PyTorch would
break the graph and compile the pieces); with ``fullgraph=True`` the trace error is raised. The
graph is ``symbolic_trace``'s, so placeholder names are the parameters' (``x``) rather than
dynamo's ``l_x_``, and PyTorch's dynamic-shape recompilation (``dynamic=None`` marks a changed
size dynamic) is modelled as one backend call per distinct set of shapes.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable

from .._dynamo import reset
from .._dynamo.backends import BACKEND_TAGS, list_backends
from .._dynamo.eval_frame import OptimizedModule, disable, is_compiling
from .._dynamo.exc import InvalidBackend, Unsupported
from ..nn.modules.module import Module

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "compile",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "list_backends",
    "reset",
]

_INDUCTOR_MODES = (
    "default",
    "lite",
    "reduce-overhead",
    "max-autotune-no-cudagraphs",
    "max-autotune",
)


def compile(
    model: Callable | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable | None = None,
    mode: str | None = None,
    options: dict | None = None,
    name: str | None = None,
    disable: bool = False,
    recompile_limit: int | None = None,
    isolate_recompiles: bool = False,
    shapes_spec=None,
):
    """``torch.compile``: see the module docstring. Without ``model``, a decorator."""
    config = {
        "fullgraph": fullgraph,
        "dynamic": dynamic,
        "backend": backend,
        "mode": mode,
        "options": options,
        "name": name,
        "disable": disable,
        "recompile_limit": recompile_limit,
        "isolate_recompiles": isolate_recompiles,
        "shapes_spec": shapes_spec,
    }
    if model is None:
        return lambda fn: compile(fn, **config)
    if disable:
        return model
    _check_backend(backend, mode, options)
    _set_up_dynamo()
    if not callable(model):
        # PyTorch's own check is an assert
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")  # noqa: TRY004
    if isinstance(model, Module):
        opt = OptimizedModule(model, config)
        if callable(backend):
            opt.forward = _BackendCaller(model, backend, fullgraph)
        return opt
    if callable(backend):
        return _compiled_function(_BackendCaller(model, backend, fullgraph), model)
    return _compiled_function(model)


# Every backend caller alive, so that ``torch._dynamo.reset()`` can clear their caches.
def _ranks(key: tuple, args: tuple) -> tuple:
    return tuple(
        (len(k[0]), k[1]) if isinstance(a, _tensor_type()) else k for a, k in zip(args, key)
    )


def _tensor_type():
    from .._tensor.core import Tensor

    return Tensor


_LIVE_CALLERS: weakref.WeakSet = weakref.WeakSet()


class _BackendCaller:
    """Calls ``backend(gm, example_inputs)`` once per distinct tensor shapes/dtypes and then runs
    what it returned; runs ``fn`` eagerly where tracing fails (unless ``fullgraph``)."""

    def __init__(self, fn: Callable, backend: Callable, fullgraph: bool) -> None:
        self.fn = fn
        self.backend = backend
        self.fullgraph = fullgraph
        self.cache: dict = {}
        _LIVE_CALLERS.add(self)

    def __call__(self, *args, **kwargs):
        from .._tensor.core import Tensor
        from ..fx import symbolic_trace
        from ..fx.proxy import TraceError

        if kwargs:
            return self.fn(*args, **kwargs)
        key = tuple(
            (tuple(a.shape), a.dtype) if isinstance(a, Tensor) else (type(a), a) for a in args
        )
        try:
            hash(key)
        except TypeError:  # an unhashable argument (a list): no cache entry, run eagerly
            return self.fn(*args)
        # PyTorch's dynamic=None: a second set of sizes recompiles once with sizes symbolic,
        # and later sizes of the same ranks and dtypes reuse that graph.
        dynamic_key = tuple(
            (len(k[0]), k[1]) if isinstance(a, Tensor) else k for a, k in zip(args, key)
        )
        compiled = self.cache.get(key) or self.cache.get(("dynamic", dynamic_key))
        if compiled is None:
            try:
                gm = symbolic_trace(self.fn)
            except TraceError as e:
                if self.fullgraph:
                    raise Unsupported(f"Data-dependent branching: {e}") from None
                compiled = self.fn
            else:
                example_inputs = [a for a in args if isinstance(a, Tensor)]
                compiled = self.backend(gm, example_inputs)
            seen = any(k[0] != "dynamic" and _ranks(k, args) == dynamic_key for k in self.cache)
            self.cache[("dynamic", dynamic_key) if seen else key] = compiled
        return compiled(*args)


@functools.cache
def _set_up_dynamo() -> None:
    """What PyTorch's one-time dynamo set-up does that a program can see: it turns the
    distributions' default argument validation off for the rest of the process (compiled code
    must not branch on data); a later ``set_default_validate_args(True)`` stays."""
    from ..distributions import Distribution

    Distribution.set_default_validate_args(False)


def _check_backend(backend, mode, options) -> None:
    if callable(backend):
        return
    backend = "inductor" if backend is None else backend
    if backend not in BACKEND_TAGS:
        raise InvalidBackend(backend)
    if backend != "inductor":
        return
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _INDUCTOR_MODES:
        raise RuntimeError(
            f"Unrecognized mode={mode}, should be one of: {', '.join(_INDUCTOR_MODES)}"
        )


def _compiled_function(fn: Callable, orig: Callable | None = None) -> Callable:
    orig = fn if orig is None else orig

    @functools.wraps(orig)
    def compiled(*args, **kwargs):
        return fn(*args, **kwargs)

    compiled._torchdynamo_orig_callable = orig
    return compiled


def is_dynamo_compiling() -> bool:
    """False: taimatsu never traces."""
    return False


def is_exporting() -> bool:
    """False: taimatsu has no ``torch.export``."""
    return False


def allow_in_graph(fn: Callable) -> Callable:
    """PyTorch puts ``fn`` into the graph unexamined; with no graph, ``fn`` simply runs."""
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    """PyTorch bakes ``fn``'s result into the graph as a constant; taimatsu calls it every time."""
    return fn
