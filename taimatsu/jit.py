"""``torch.jit`` as PyTorch behaves when nothing is scripted or traced (eager mode).

Model code written for TorchScript runs unchanged: ``is_scripting()``/``is_tracing()`` are False,
the decorators (``ignore``, ``unused``, ``export``, ``_overload_method``, ``interface``) mark the
function as PyTorch does and hand it back, ``annotate`` returns its value, ``fork`` runs the call at
once and returns a completed ``torch.futures.Future``, ``isinstance`` checks ``List[int]``-style
types as PyTorch's eager check does (warnings included).

taimatsu has no TorchScript compiler, so ``script``, ``trace``, ``trace_module``, ``save``,
``load``, ``freeze``, ``optimize_for_inference`` and ``ScriptModule`` raise NotImplementedError
saying so: returning the eager function as if it were compiled would hide that nothing can be
saved or loaded as TorchScript.
"""

from __future__ import annotations

import collections.abc
import contextlib
import functools
import inspect
import types
import typing
import warnings
from typing import Final  # noqa: F401  (torch.jit.Final is typing.Final)

from .futures import Future

__all__ = [
    "Attribute",
    "CompilationUnit",
    "Error",
    "Future",
    "ScriptFunction",
    "ScriptModule",
    "annotate",
    "enable_onednn_fusion",
    "export",
    "export_opnames",
    "fork",
    "freeze",
    "ignore",
    "interface",
    "isinstance",
    "load",
    "onednn_fusion_enabled",
    "optimize_for_inference",
    "save",
    "script",
    "script_if_tracing",
    "set_fusion_strategy",
    "strict_fusion",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

_builtin_isinstance = isinstance


class FunctionModifiers:
    """The markers PyTorch's decorators store in ``fn._torchscript_modifier`` (its strings)."""

    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from an exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = (
        "if this method is not scripted, copy the python method onto the scripted model"
    )
    _DROP = "_drop (function is fully ignored, declaration can be unscriptable)"


# torch.jit.Attribute(value, type): in eager mode a plain (value, type) record.
Attribute = collections.namedtuple("Attribute", ["value", "type"])


class Error(Exception):
    """``torch.jit.Error``: the exception a TorchScript program raises (never raised in eager)."""


def is_scripting() -> bool:
    """False: taimatsu code always runs as Python (PyTorch's value outside ``torch.jit.script``)."""
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type, the_value):
    """A type hint for the TorchScript compiler; eager mode returns the value unchanged."""
    return the_value


def ignore(drop=False, **kwargs):
    """``@ignore`` / ``@ignore(drop=...)``: mark ``fn`` as left to Python; returns ``fn`` itself."""
    if callable(drop):
        drop._torchscript_modifier = FunctionModifiers.IGNORE
        return drop
    if not _builtin_isinstance(drop, bool):
        raise RuntimeError(
            f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}"
        )
    if kwargs.pop("drop_on_export", None):
        warnings.warn(
            "ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the "
            "function call on compilation. Use torch.jit.unused now. {}",
            FutureWarning,
            stacklevel=2,
        )
        drop = True
    elif drop:
        warnings.warn(
            "ignore(True) has been deprecated. TorchScript will now drop the function call on "
            "compilation. Use torch.jit.unused now. {}",
            FutureWarning,
            stacklevel=2,
        )
    modifier = FunctionModifiers.UNUSED if drop else FunctionModifiers.IGNORE

    def mark(fn):
        fn._torchscript_modifier = modifier
        return fn

    return mark


def unused(fn):
    """Mark ``fn`` (or a property's getter and setter) as never compiled; returns it unchanged."""
    if _builtin_isinstance(fn, property):
        for accessor in (fn.fget, fn.fset):
            if accessor is not None:
                accessor._torchscript_modifier = FunctionModifiers.UNUSED
        return fn
    fn._torchscript_modifier = FunctionModifiers.UNUSED
    return fn


def export(fn):
    fn._torchscript_modifier = FunctionModifiers.EXPORT
    return fn


_OVERLOAD_EXAMPLE = """
Example usage of overload function:
@torch.jit._overload
def my_function(x: type0) -> type0: # decl 1
    pass

@torch.jit._overload
def my_function(x: type1) -> type1: # decl 2
    pass

def my_function(x):                 # implementation
    if isinstance(x, type0):
        return x
    elif isinstance(x, type1):
        return x
"""


def _check_overload_body(func) -> None:
    """An overload declaration's body must be ``pass`` or ``...`` (PyTorch checks the source)."""
    import ast
    import textwrap

    try:
        source = inspect.getsource(func)
    except OSError:
        warnings.warn(
            f"Unable to retrieve source for @torch.jit._overload function: {func}.", stacklevel=3
        )
        return
    body = ast.parse(textwrap.dedent(source)).body[0].body
    stmt = body[0]
    is_pass = _builtin_isinstance(stmt, ast.Pass)
    is_dots = (_builtin_isinstance(stmt, ast.Expr) and _builtin_isinstance(stmt.value, ast.Constant)
               and stmt.value.value is Ellipsis)  # fmt: skip
    if len(body) != 1 or not (is_pass or is_dots):
        raise RuntimeError(
            "Only `pass` statement or `...` can be the body of overload declaration:\n"
            + "\n".join(source.split("\n")[:3])
            + " <- Expecting `pass` or `...` here!\n"
            + _OVERLOAD_EXAMPLE
        )


def _overload(func):
    """Declare a typed overload of a free function for TorchScript; eager mode keeps the last
    definition, so the declaration is only checked and returned."""
    _check_overload_body(func)
    return func


def _overload_method(func):
    """``_overload`` for methods (PyTorch's nn.Module code uses it, e.g. for ``forward``)."""
    _check_overload_body(func)
    return func


def interface(obj):
    """Declare a TorchScript interface class: PyTorch's checks, warning and the
    ``__torch_script_interface__`` name; nothing is compiled."""
    warnings.warn(
        "`torch.jit.interface` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    from .nn import Module

    # PyTorch's test is an MRO of (obj, Module, object); taimatsu's Module has bases of its own
    is_module_interface = obj.__bases__ == (Module,)
    if not is_module_interface and len(obj.mro()) > 2:
        raise RuntimeError(
            "TorchScript interface does not support inheritance yet. "
            "Please directly inherit from 'object' or 'nn.Module'."
        )
    module = "__torch__" if obj.__module__ == "__main__" else "__torch__." + obj.__module__
    obj.__torch_script_interface__ = f"{module}.{obj.__name__}"
    return obj


def fork(func, *args, **kwargs) -> Future:
    """Run ``func(*args, **kwargs)`` now and return a completed Future holding its result (eager
    PyTorch also runs it synchronously; an exception propagates from ``fork`` itself)."""
    warnings.warn(
        "`torch.jit.fork` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future: Future):
    warnings.warn(
        "`torch.jit.wait` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return future.wait()


def script_if_tracing(fn):
    """Wrap ``fn`` so it would be scripted under tracing; taimatsu never traces, so it runs ``fn``."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper.__original_fn = fn  # the attribute names PyTorch sets on its wrapper
    wrapper.__script_if_tracing_wrapper = True
    return wrapper


_script_if_tracing = script_if_tracing

# Bare containers that TorchScript refuses without their element types, by the name errors use.
_RAW_CONTAINERS = {
    typing.List: "List",  # noqa: UP006
    typing.Dict: "Dict",  # noqa: UP006
    typing.Tuple: "Tuple",  # noqa: UP006
    typing.Optional: "Optional",
    list: "list",
    dict: "dict",
    tuple: "tuple",
}


def _need_element_type(target_type) -> None:
    try:
        name = _RAW_CONTAINERS.get(target_type)
    except TypeError:  # an unhashable target
        return
    if name is None:
        return
    if name.endswith("ict"):
        raise RuntimeError(
            f"Attempted to use {name} without contained types. Please add contained type, "
            f"e.g. {name}[int, int]"
        )
    raise RuntimeError(
        f"Attempted to use {name} without a contained type. Please add a contained type, "
        f"e.g. {name}[int]"
    )


def _warn_if_empty(obj) -> None:
    if obj == [] or obj == {} or obj == ():
        warnings.warn(
            "The inner type of a container is lost when calling torch.jit.isinstance in eager "
            "mode. For example, List[int] would become list and therefore falsely return True for "
            "List[float] or List[str].",
            stacklevel=4,
        )


def _matches(obj, target_type) -> bool:
    """One element against a type that may itself be a parametrised container."""
    if typing.get_origin(target_type):
        return _container_matches(obj, target_type)
    return _builtin_isinstance(obj, target_type)


def _container_matches(obj, target_type) -> bool:
    origin, args = typing.get_origin(target_type), typing.get_args(target_type)
    _need_element_type(target_type)
    if origin is list:
        _warn_if_empty(obj)
        return _builtin_isinstance(obj, list) and all(_matches(e, args[0]) for e in obj)
    if origin is dict:
        _warn_if_empty(obj)
        return _builtin_isinstance(obj, dict) and all(
            _builtin_isinstance(k, args[0]) and _matches(v, args[1]) for k, v in obj.items()
        )
    if origin is tuple:
        _warn_if_empty(obj)
        return (_builtin_isinstance(obj, tuple) and len(obj) == len(args)
                and all(_matches(e, t) for e, t in zip(obj, args)))  # fmt: skip
    if origin is typing.Union or origin is types.UnionType:  # Optional[T] too
        if obj is None:
            return True
        for t in args:
            if typing.get_origin(t):
                # PyTorch's check decides on the first container member of the union
                return _container_matches(obj, t)
            if _builtin_isinstance(obj, t):
                return True
    return False


def isinstance(obj, target_type) -> bool:  # PyTorch's name, shadowing the builtin
    """``isinstance`` that also checks TorchScript's container types (``List[int]``,
    ``Dict[str, Tensor]``, ``Optional[...]``, ``Tuple[...]``) element by element, as eager PyTorch."""
    if _builtin_isinstance(target_type, collections.abc.Container):
        if not _builtin_isinstance(target_type, tuple):
            raise RuntimeError(
                "The second argument to `torch.jit.isinstance` must be a type or a tuple of types"
            )
        return any(isinstance(obj, t) for t in target_type)
    if typing.get_origin(target_type):
        return _container_matches(obj, target_type)
    _need_element_type(target_type)
    return _builtin_isinstance(obj, target_type)


# ---- settings of the TorchScript executor: kept and returned, though nothing is ever compiled ----


class TracerWarning(Warning):
    """Category of the tracer's warnings (programs filter it; taimatsu never traces)."""

    @staticmethod
    def ignore_lib_warnings() -> None:
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")


class ScriptWarning(Warning):
    pass


_fusion_state = {"strategy": [("STATIC", 2), ("DYNAMIC", 10)], "onednn": False, "optimize": True}


def set_fusion_strategy(strategy: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Store the fusion strategy (returns the previous one); it would apply to scripted code only."""
    warnings.warn(
        "`torch.jit.set_fusion_strategy` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    for kind, _ in strategy:
        if kind not in ("STATIC", "DYNAMIC"):
            raise ValueError(f"FusionBehavior only supported 'STATIC' or 'DYNAMIC', got: {kind}")
    previous, _fusion_state["strategy"] = _fusion_state["strategy"], list(strategy)
    return previous


def enable_onednn_fusion(enabled: bool) -> None:
    _fusion_state["onednn"] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    return _fusion_state["onednn"]


@contextlib.contextmanager
def optimized_execution(should_optimize: bool):
    """The executor's optimisation switch for the block (scripted code only: no eager effect)."""
    previous, _fusion_state["optimize"] = _fusion_state["optimize"], should_optimize
    try:
        yield
    finally:
        _fusion_state["optimize"] = previous


@contextlib.contextmanager
def fuser(name: str):
    """Select a TorchScript fuser for the block: PyTorch's names are accepted, eager code is unaffected."""
    if name not in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002  (PyTorch's)
    yield


class strict_fusion:
    """Asserts full fusion inside scripted code; in eager mode PyTorch only warns."""

    def __init__(self) -> None:
        warnings.warn("Only works in script mode", stacklevel=2)

    def __enter__(self) -> None:
        pass

    def __exit__(self, type, value, tb) -> None:
        pass


# ---- what needs a TorchScript compiler ----

_NO_COMPILER = (
    "taimatsu does not compile TorchScript, so torch.jit.{name} is not available. "
    "Run the eager module or function as it is (torch.compile accepts it and runs it eagerly in taimatsu), "
    "and save weights with torch.save(model.state_dict(), path)."
)


def _no_torchscript(name: str):
    def refuse(*args, **kwargs):
        raise NotImplementedError(_NO_COMPILER.format(name=name))

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = (
        f"Raises NotImplementedError: ``torch.jit.{name}`` needs a TorchScript compiler."
    )
    return refuse


script = _no_torchscript("script")
trace = _no_torchscript("trace")
trace_module = _no_torchscript("trace_module")
save = _no_torchscript("save")
freeze = _no_torchscript("freeze")
optimize_for_inference = _no_torchscript("optimize_for_inference")
script_method = _no_torchscript("script_method")


def load(f, map_location=None, _extra_files=None, **kwargs):
    """Raises NotImplementedError: a TorchScript archive holds compiled code taimatsu cannot run."""
    raise NotImplementedError(
        "taimatsu does not compile or run TorchScript, so torch.jit.load is not available. "
        "Save the model's weights with torch.save(model.state_dict(), path) from PyTorch and load "
        "them into the eager module with model.load_state_dict(torch.load(path))."
    )


class _CompiledOnly:
    """Classes whose instances only a TorchScript compiler makes: ``isinstance(m, ScriptModule)``
    is False for every taimatsu object, and constructing one raises."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(_NO_COMPILER.format(name=type(self).__name__))


class ScriptModule(_CompiledOnly):
    pass


class ScriptFunction(_CompiledOnly):
    pass


class RecursiveScriptModule(ScriptModule):
    pass


class CompilationUnit(_CompiledOnly):
    pass


class TracedModule(ScriptModule):
    pass


class TopLevelTracedModule(TracedModule):
    pass


class RecursiveScriptClass(_CompiledOnly):
    pass


export_opnames = _no_torchscript("export_opnames")
last_executed_optimized_graph = _no_torchscript("last_executed_optimized_graph")
