"""``torch.fx.symbolic_trace`` and ``Tracer``: run a module's ``forward`` on Proxies and
record what it does as a Graph.

PyTorch's Proxy reaches ``torch.relu`` through ``__torch_function__``; taimatsu's functions
have no such protocol, so while a trace runs (and only then) the tracer swaps each function of
``torch``, ``torch.nn.functional``, ``torch.linalg``, ``torch.special`` and ``torch.fft`` for
a wrapper that records a call when an argument is a Proxy and runs the function otherwise (it
compares equal to the function), and does the same for ``nn.Module.__call__``/``__getattr__``
(as PyTorch's tracer does), for Tensor methods and operators given a Proxy, for functions
passed to ``torch.fx.wrap`` or autowrapped (``math``), and for torch functions the traced code
holds under other names (module globals, module attributes). Everything is restored when the
trace ends, also on error; traces run one at a time.
"""

from __future__ import annotations

import functools
import inspect
import math
import threading
import types
import warnings
from collections.abc import Callable
from typing import Any

from .graph import Graph
from .node import Node, map_aggregate
from .proxy import Attribute, ParameterProxy, Proxy, TraceError
from .torch_names import TENSOR_FUNCTION_METHODS, keyword_layout, traced_namespaces

__all__ = ["PH", "GraphAppendingTracer", "Tracer", "symbolic_trace", "wrap"]

# (id(module globals), name) -> globals, for torch.fx.wrap
_wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}
# Traces swap module attributes, so two threads tracing at once would restore each other's
# swaps: traces run one at a time (a trace inside a trace, on the same thread, is fine).
_trace_lock = threading.RLock()
_patch_depth = 0  # traces running now; only the outermost swaps the torch functions

# Tensor operators with a Proxy on the right: PyTorch records the Tensor method they dispatch to
_TENSOR_OPERATORS = {
    "__add__": "add",
    "__sub__": "sub",
    "__mul__": "mul",
    "__truediv__": "div",
    "__floordiv__": "__floordiv__",
    "__mod__": "remainder",
    "__pow__": "pow",
    "__matmul__": "matmul",
    "__and__": "__and__",
    "__or__": "__or__",
    "__xor__": "__xor__",
    "__lshift__": "__lshift__",
    "__rshift__": "__rshift__",
    "__eq__": "eq",
    "__ne__": "ne",
    "__lt__": "lt",
    "__le__": "le",
    "__gt__": "gt",
    "__ge__": "ge",
    "__getitem__": "__getitem__",
}


class _PlaceholderMarker:
    def __repr__(self) -> str:
        return "PH"


PH = _PlaceholderMarker()  # concrete_args value meaning "keep this argument as a placeholder"


def _assert_is_none(value, msg: str) -> None:
    if value is not None:
        raise AssertionError(msg)


def wrap(fn_or_name: str | Callable):
    """Record calls to the module-level function ``fn_or_name`` (of the calling module) as one
    ``call_function`` node instead of tracing through it. Call at module scope."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError(  # noqa: TRY004  (PyTorch raises this type)
            "Unsupported type for global function! Must be either a callable or string name"
        )
    fn_name = fn_or_name.__name__ if callable(fn_or_name) else fn_or_name
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(frame.f_globals), fn_name)] = frame.f_globals
    return fn_or_name


def _find_proxy(args, kwargs) -> Proxy | None:
    found = []

    def visit(x):
        if isinstance(x, Proxy) and not found:
            found.append(x)
        return x

    map_aggregate((args, kwargs), visit)
    return found[0] if found else None


class _Patcher:
    """Attribute swaps undone in reverse order."""

    def __init__(self):
        self._undo: list[Callable[[], None]] = []
        self._seen: set[int] = set()

    def setattr(self, owner, name: str, value) -> None:
        had = name in vars(owner)
        old = vars(owner).get(name)
        setattr(owner, name, value)
        self._undo.append(lambda: setattr(owner, name, old) if had else delattr(owner, name))

    def setitem(self, d: dict, name: str, value) -> None:
        old = d[name]
        d[name] = value
        self._undo.append(lambda: d.__setitem__(name, old))

    def visit_once(self, namespace: dict) -> bool:
        """True the first time ``namespace`` is seen by this patcher."""
        if id(namespace) in self._seen:
            return False
        self._seen.add(id(namespace))
        return True

    def add_undo(self, fn: Callable[[], None]) -> None:
        self._undo.append(fn)

    def restore(self) -> None:
        while self._undo:
            self._undo.pop()()


class _RecordingFunction:
    """What ``torch.relu`` is while a trace runs: records a call given a Proxy, runs the function
    otherwise, and compares equal to (and hashes as) the function, so ``target == torch.relu``
    and ``{torch.relu: ...}[target]`` still hold in code run during a trace."""

    def __init__(self, fn, layout: str, target=None):
        functools.update_wrapper(self, fn)
        self._layout = layout
        self._target = fn if target is None else target  # what the node calls

    def __call__(self, *args, **kwargs):
        fn = self.__wrapped__
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        if self._layout == "method":
            return proxy.tracer.create_proxy("call_method", fn.__name__, args, kwargs)
        if self._layout == "keywords":
            args, kwargs = keyword_layout(fn, args, kwargs)
        return proxy.tracer.create_proxy("call_function", self._target, args, kwargs)

    def __eq__(self, other) -> bool:
        return other is self.__wrapped__ or (
            isinstance(other, _RecordingFunction) and other.__wrapped__ is self.__wrapped__
        )

    def __hash__(self) -> int:
        return hash(self.__wrapped__)

    def __repr__(self) -> str:
        return repr(self.__wrapped__)


def _index_proxy(index):
    """The Proxy in an index, looking into tuples and lists (not slices), as PyTorch does."""
    if isinstance(index, Proxy):
        return index
    if isinstance(index, (tuple, list)):
        for item in index:
            found = _index_proxy(item)
            if found is not None:
                return found
    return None


_method_names: list[str] | None = None


def _tensor_method_names() -> list[str]:
    """Tensor's public methods (plain functions, not properties)."""
    global _method_names
    if _method_names is None:
        from .. import Tensor

        _method_names = [
            n
            for n in dir(Tensor)
            if not n.startswith("_") and inspect.isfunction(inspect.getattr_static(Tensor, n))
        ]
    return _method_names


def _recording_method(original, name: str):
    """``tensor.method(..., proxy, ...)`` on a real tensor: PyTorch records a call_method."""

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return original(self, *args, **kwargs)
        if name in TENSOR_FUNCTION_METHODS:  # methods PyTorch records as torch.Tensor.<name>
            return proxy.tracer.create_proxy("call_function", original, (self, *args), kwargs)
        return proxy.tracer.create_proxy("call_method", name, (self, *args), kwargs)

    return wrapper


def _recording_operator(original, method: str):
    @functools.wraps(original)
    def wrapper(self, other):
        proxy = _index_proxy(other) if method == "__getitem__" else other
        if isinstance(proxy, Proxy):
            return proxy.tracer.create_proxy("call_method", method, (self, other), {})
        return original(self, other)

    return wrapper


class Tracer:
    """Records a module's ``forward`` (or a function) as a Graph. Override ``is_leaf_module``
    to choose which submodules stay as ``call_module`` nodes."""

    def __init__(
        self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant: bool = False
    ):
        self.param_shapes_constant = param_shapes_constant
        self.autowrap_functions = tuple(autowrap_functions)
        # functions of these modules (math.sqrt...) and these functions are recorded when given
        # a Proxy, wherever the traced code reads them from: the module itself or a global name
        self._autowrap_function_ids = {
            id(value)
            for module in autowrap_modules
            for name, value in vars(module).items()
            if not name.startswith("_") and callable(value)
        } | {id(f) for f in autowrap_functions}
        self._autowrap_search = list(autowrap_modules)
        self.submodule_paths: dict | None = None
        self.root = None
        self.graph: Graph | None = None
        self.tensor_attrs: dict[int, tuple[Any, str]] = {}

    # ---- recording -----------------------------------------------------------------------------
    def create_node(self, kind: str, target, args, kwargs, name=None, type_expr=None) -> Node:
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(
        self, kind: str, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None
    ):
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """A value as a node argument: Proxies become their nodes, the root's parameters and
        buffers ``get_attr`` nodes, other tensors ``_tensor_constant`` attributes of the root."""
        from .. import Tensor, device, dtype
        from ..nn import Module, Parameter

        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, Parameter):
            for n_, p_ in self.root.named_parameters():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Module):
            for n_, p_ in self.root.named_modules():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            raise NameError("module is not installed as a submodule")
        if isinstance(a, Tensor):
            for n_, p_ in self.root.named_buffers():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            hit = self.tensor_attrs.get(id(a))
            if hit is not None and hit[0] is a:
                qualname = hit[1]
            else:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                self.tensor_attrs[id(a)] = (a, qualname)
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        if isinstance(a, tuple):
            args = [self.create_arg(elem) for elem in a]
            return type(a)(*args) if hasattr(a, "_fields") else tuple(args)
        if isinstance(a, list):
            return [self.create_arg(elem) for elem in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(  # noqa: TRY004  (PyTorch raises this type)
                        f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}"
                    )
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, (str, int, float, bool, complex, dtype, device)) or a is None or a is ...:
            return a
        from .._layout import layout as _layout_type
        from .._layout import memory_format

        if isinstance(a, (memory_format, _layout_type)):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy):
        raise TraceError(
            "Proxy object cannot be iterated. This can be attempted when the Proxy is used in a "
            "loop or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org "
            "for a more detailed explanation of what types of control flow can be traced, and check "
            "out the Proxy docstring for help troubleshooting Proxy iteration errors"
        )

    def keys(self, obj: Proxy):
        return Attribute(obj, "keys")()

    # ---- modules ---------------------------------------------------------------------------------
    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        """Modules of ``torch.nn`` (but not Sequential) are recorded as one ``call_module``."""
        from ..nn import Sequential

        return type(m).__module__.startswith("taimatsu.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod) -> str:
        if self.submodule_paths:
            hit = self.submodule_paths.get(id(mod))
            if hit is None:
                raise NameError("module is not installed as a submodule")
            return hit
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward: Callable, args: tuple, kwargs: dict):
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr: str, attr_val, parameter_proxy_cache: dict):
        from ..nn import Parameter

        if isinstance(attr_val, Parameter):
            for n, p in self.root.named_parameters():
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        factory = None
                        if self.param_shapes_constant:
                            factory = lambda node, n=n, p=attr_val: ParameterProxy(self, node, n, p)
                        parameter_proxy_cache[n] = self.create_proxy(
                            "get_attr", n, (), {}, proxy_factory_fn=factory
                        )
                    return parameter_proxy_cache[n]
        return attr_val

    # ---- the trace -------------------------------------------------------------------------------
    def create_args_for_root(self, root_fn: Callable, is_module: bool, concrete_args=None):
        """Placeholders for ``root_fn``'s parameters (PyTorch's order: positional, keyword-only,
        then ``*args`` and ``**kwargs`` as one placeholder each); returns the function to call
        with them (``root_fn`` with its ``*``/``**`` parameters made plain) and the arguments."""
        sig = inspect.signature(root_fn)
        params = list(sig.parameters.values())
        if is_module:
            params = params[1:]  # self
        named = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        var = [p for p in params if p.kind is p.VAR_POSITIONAL] + [
            p for p in params if p.kind is p.VAR_KEYWORD
        ]
        concrete_args = dict(concrete_args or {})
        unknown = set(concrete_args) - {p.name for p in params}
        if unknown:
            raise TypeError(
                f"concrete_args names parameters the function does not have: {sorted(unknown)}"
            )
        args = []
        for p in named:
            if p.name in concrete_args and concrete_args[p.name] is not PH:
                args.append(self._concrete(p, concrete_args[p.name]))
            else:
                default = () if p.default is inspect.Parameter.empty else (p.default,)
                args.append(
                    self.create_proxy(
                        "placeholder",
                        p.name,
                        default,
                        {},
                        type_expr=root_fn.__annotations__.get(p.name),
                    )
                )
        for p in var:
            stars = "*" if p.kind is p.VAR_POSITIONAL else "**"
            args.append(self.create_proxy("placeholder", stars + p.name, (), {}))
        if var or any(p.kind is p.KEYWORD_ONLY for p in named):
            root_fn = _plain_parameters(root_fn)
        return root_fn, args

    def _concrete(self, param, value):
        from .. import Tensor, device, dtype

        default = () if param.default is inspect.Parameter.empty else (param.default,)
        out = self.create_proxy("placeholder", f"{param.name}_1", default, {})
        import taimatsu

        if type(value) is bool or (
            type(value) in (str, int, float, complex, dtype, device)
            and not isinstance(value, Tensor)
        ):
            taimatsu._assert(
                out == value,
                f"{param.name} has been specialized to have value {value} but got another value",
            )
        elif value is None:
            self.create_proxy(
                "call_function",
                _assert_is_none,
                (
                    out,
                    f"{param.name} has been specialized to have value None but got another value",
                ),
                {},
            )
        else:
            warnings.warn(
                f"Was not able to add assertion to guarantee correct input {param.name} to "
                "specialized function. It is up to the user to make sure that your inputs match the "
                "inputs you specialized the function with.",
                stacklevel=3,
            )
        return value

    def trace(self, root, concrete_args: dict | None = None) -> Graph:
        """Trace ``root`` (a Module's ``forward``, or a function) into ``self.graph``."""
        from ..nn import Module

        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
            self.submodule_paths = {id(mod): name for name, mod in root.named_modules()}
        else:
            self.root = Module()
            fn = root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        patcher = _Patcher()
        _trace_lock.acquire()
        try:
            self._patch(patcher, fn)
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
            if isinstance(root, Module):
                args = [root, *args]
            result = fn(*args)
            self.create_node(
                "output",
                "output",
                (self.create_arg(result),),
                {},
                type_expr=fn.__annotations__.get("return"),
            )
        finally:
            patcher.restore()
            _trace_lock.release()
            self.submodule_paths = None
        return self.graph

    def _patch(self, patcher: _Patcher, fn: Callable) -> None:
        from ..nn import Module

        tracer = self
        parameter_proxy_cache: dict = {}
        orig_getattr = Module.__getattr__
        orig_call = Module.__call__

        def module_getattr_wrapper(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)

            module_forward = getattr(type(mod), "forward", None)
            self._autowrap_check(patcher, getattr(module_forward, "__globals__", {}))
            self._autowrap_check(patcher, mod.__dict__)
            return tracer.call_module(mod, forward, args, kwargs)

        patcher.setattr(Module, "__getattr__", module_getattr_wrapper)
        patcher.setattr(Module, "__call__", module_call_wrapper)
        patch_torch_functions(patcher)
        self._autowrap_check(patcher, getattr(fn, "__globals__", {}))
        if isinstance(self.root, Module):
            self._autowrap_check(patcher, self.root.__dict__)
        for module in self._autowrap_search:
            self._autowrap_check(patcher, vars(module))

    def _autowrap_check(self, patcher: _Patcher, namespace: dict) -> None:
        if not patcher.visit_once(namespace):
            return
        for name, value in list(namespace.items()):
            if (
                not name.startswith("_")
                and callable(value)
                and id(value) in self._autowrap_function_ids
            ):
                patcher.setitem(namespace, name, _recording_wrapped(value))
            elif id(value) in _traced_functions() and _traced_functions()[id(value)][0] is value:
                # a torch function held under another name (``from torch import relu``,
                # ``self.act = F.relu``): PyTorch's __torch_function__ sees those calls too
                patcher.setitem(
                    namespace, name, _RecordingFunction(value, _traced_functions()[id(value)][1])
                )


_traced_by_id: dict[int, tuple] | None = None


def _traced_functions() -> dict[int, tuple]:
    """id(function) -> (function, layout) for the functions a trace records."""
    global _traced_by_id
    if _traced_by_id is None:
        _traced_by_id = {}
        for module, name, _, layout, _ in traced_namespaces():
            fn = getattr(module, name)
            if not isinstance(fn, _RecordingFunction):
                _traced_by_id[id(fn)] = (fn, layout)
    return _traced_by_id


def patch_torch_functions(patcher: _Patcher) -> None:
    """Make taimatsu's functions, Tensor operators and ``wrap``'d functions record calls that
    receive a Proxy (until ``patcher.restore()``)."""
    from .. import Tensor

    _traced_functions()  # taken from the namespaces before they are swapped
    global _patch_depth
    _patch_depth += 1

    def leave():
        global _patch_depth
        _patch_depth -= 1

    patcher.add_undo(leave)
    if _patch_depth > 1:
        return  # a trace inside a trace: the recording functions serve every tracer already
    for module, name, _, layout, target in traced_namespaces():
        patcher.setattr(module, name, _RecordingFunction(getattr(module, name), layout, target))
    for dunder, method in _TENSOR_OPERATORS.items():
        patcher.setattr(Tensor, dunder, _recording_operator(getattr(Tensor, dunder), method))
    for name in _tensor_method_names():
        patcher.setattr(Tensor, name, _recording_method(getattr(Tensor, name), name))
    for (_, name), g in _wrapped_fns_to_patch.items():
        if name in g and callable(g[name]):
            patcher.setitem(g, name, _recording_wrapped(g[name]))


def _plain_parameters(fn: Callable) -> Callable:
    """``fn`` with its keyword-only, ``*args`` and ``**kwargs`` parameters turned into plain
    positional ones, so a single Proxy can be passed for each."""
    co = fn.__code__
    total = co.co_argcount + co.co_kwonlyargcount
    total += bool(co.co_flags & inspect.CO_VARARGS) + bool(co.co_flags & inspect.CO_VARKEYWORDS)
    code = co.replace(
        co_flags=co.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS),
        co_argcount=total,
        co_kwonlyargcount=0,
    )
    return types.FunctionType(code, fn.__globals__, fn.__name__, None, fn.__closure__)


def _recording_wrapped(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        result = proxy.tracer.create_proxy("call_function", fn, args, kwargs)
        result.node.meta["is_wrapped"] = True  # the generated code re-registers it with wrap()
        return result

    return wrapper


class GraphAppendingTracer(Tracer):
    """The tracer of a bare ``Proxy(node)``: appends to ``graph`` and owns no module."""

    def __init__(self, graph: Graph):
        super().__init__()
        from ..nn import Module

        self.graph = graph
        self.root = Module()
        self.tensor_attrs = {}


def symbolic_trace(root, concrete_args: dict | None = None):
    """Trace ``root`` (an ``nn.Module`` or a function) and return a GraphModule running it."""
    from ..nn import Module
    from .graph_module import GraphModule

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
