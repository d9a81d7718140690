"""``torch.compile`` and ``torch.compiler``: PyTorch's arguments, eager execution.

taimatsu has no graph capture and no code generation. ``torch.compile`` checks its arguments as
PyTorch does (a callable model, a registered ``backend`` name, inductor's ``mode`` names, ``mode``
and ``options`` not both) and then runs the program eagerly: the numbers are those of PyTorch's
``backend="eager"``, which also runs every op as written. ``fullgraph``, ``dynamic``, ``options`` and
the recompilation settings are accepted and change nothing (there are no graph breaks, guards or
recompiles). What it returns has PyTorch's shape: an ``OptimizedModule`` for a module (``_orig_mod``,
``state_dict`` keys prefixed ``_orig_mod.``) and a wrapped function otherwise.

As in PyTorch, the first ``torch.compile`` call that gets past the argument checks turns the
default argument validation of ``torch.distributions`` off.

Deviations: inductor's ``options`` keys are not checked against inductor's config (PyTorch raises
``Unexpected optimization option``); a callable ``backend`` is not called (there is no FX graph to
give it), which a warning says once.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

from .._dynamo import reset
from .._dynamo.backends import BACKEND_TAGS, list_backends
from .._dynamo.eval_frame import OptimizedModule, disable, is_compiling
from .._dynamo.exc import InvalidBackend
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
        return OptimizedModule(model, config)
    return _compiled_function(model)


@functools.cache
def _set_up_dynamo() -> None:
    """What PyTorch's one-time dynamo set-up does that a program can see: it turns the
    distributions' default argument validation off for the rest of the process (compiled code
    must not branch on data); a later ``set_default_validate_args(True)`` stays."""
    from ..distributions import Distribution

    Distribution.set_default_validate_args(False)


def _check_backend(backend, mode, options) -> None:
    if callable(backend):
        warnings.warn(
            "taimatsu runs torch.compile'd code eagerly: the custom backend is not called "
            "(there is no FX graph to give it)",
            stacklevel=3,
        )
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


def _compiled_function(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        return fn(*args, **kwargs)

    compiled._torchdynamo_orig_callable = fn
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
