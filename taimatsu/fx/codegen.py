"""Python source for a Graph, in PyTorch's text: ``def forward(self, x):``, one line per node
named after it, infix operators, and ``;  x = None`` where a value is used for the last time.

The code names functions as PyTorch prints them (``torch.relu``, ``torch._C._nn.linear``), and
runs with ``torch`` bound to :func:`code_torch`: taimatsu, plus the paths PyTorch prints for its C
builtins (``torch._C._nn.linear``) leading to taimatsu's function of that name.
"""

from __future__ import annotations

import builtins
import math

from .graph import Graph, PythonCode, _Namespace
from .node import Node, _qualified_name, _type_repr, map_arg
from .proxy import magic_methods
from .torch_names import TENSOR_FUNCTION_METHODS

__all__ = ["code_torch", "python_code"]


class _CodeNamespace:
    """An attribute path the generated code reads: its own entries first (sub-namespaces, or
    ``(module, attribute)`` read at each access, so that a trace's recording functions are
    seen when a GraphModule is traced again), then ``base``'s attributes."""

    def __init__(self, base, entries: dict):
        self._base = base
        self._entries = entries

    def __getattr__(self, name: str):
        entry = self._entries.get(name)
        if isinstance(entry, tuple):
            return getattr(*entry)
        if entry is not None:
            return entry
        if self._base is None:
            raise AttributeError(name)
        return getattr(self._base, name)


_code_torch = None


def code_torch():
    """``torch`` as the generated code sees it."""
    global _code_torch
    if _code_torch is None:
        import taimatsu

        from .torch_names import traced_namespaces

        tree: dict = {}
        for module, attr, display, _, _ in traced_namespaces():
            parts = display.split(".")[1:]
            if _resolves(taimatsu, parts, getattr(module, attr)):
                continue
            node = tree
            for p in parts[:-1]:
                node = node.setdefault(p, {})
            node[parts[-1]] = (module, attr)
        _code_torch = _as_namespace(taimatsu, tree)
    return _code_torch


def _resolves(base, parts: list[str], fn) -> bool:
    obj = base
    for p in parts:
        obj = getattr(obj, p, None)
        if obj is None:
            return False
    return obj is fn


def _as_namespace(base, tree: dict):
    entries = {}
    for key, value in tree.items():
        entries[key] = (
            _as_namespace(getattr(base, key, None), value) if isinstance(value, dict) else value
        )
    return _CodeNamespace(base, entries)


def _format_target(base: str, target: str) -> str:
    r = base
    for e in target.split("."):
        r = f"{r}.{e}" if e.isidentifier() else f'getattr({r}, "{e}")'
    return r


# Tensor methods that are C method descriptors in PyTorch: its code names them by a global
# (torch_Tensor_new_zeros) rather than a torch.* path. Of the methods recorded as functions,
# only these two are written in Python there (read through the ``torch`` global).
_TENSOR_PYTHON_METHODS = ("to_sparse_coo", "unflatten")
_TENSOR_C_METHODS = frozenset(
    f"torch.Tensor.{n}" for n in TENSOR_FUNCTION_METHODS if n not in _TENSOR_PYTHON_METHODS
)


def python_code(graph: Graph, root_module: str, *, verbose: bool = False) -> PythonCode:
    import taimatsu

    namespace = _Namespace()
    globals_: dict = {"torch": code_torch(), "inf": math.inf, "nan": math.nan}
    for name in ("inf", "nan", "torch"):
        namespace.create_name(name, globals_[name])
    free_vars: list[str] = [root_module]
    body: list[str] = []
    wrapped_fns: dict[str, None] = {}

    def add_global(name_hint: str, obj) -> str:
        if name_hint.startswith("torch.") and name_hint not in _TENSOR_C_METHODS:
            return name_hint  # read through the ``torch`` global
        name = namespace.create_name(name_hint, obj)
        globals_[name] = obj
        return name

    def get_repr(arg) -> str:
        if isinstance(arg, Node):
            return repr(arg)
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            qualified = add_global(f"{type(arg).__module__}.{type(arg).__qualname__}", type(arg))
            return f"{qualified}({', '.join(get_repr(a) for a in arg)})"
        if isinstance(arg, taimatsu.device):
            globals_["device"] = taimatsu.device  # one of the names the code binds itself
            return repr(arg)
        if isinstance(arg, float) and (math.isinf(arg) or math.isnan(arg)):
            return repr(arg) if not math.isinf(arg) or arg > 0 else "-inf"
        if isinstance(arg, list):
            return f"[{', '.join(get_repr(a) for a in arg)}]"
        if isinstance(arg, tuple):
            inner = ", ".join(get_repr(a) for a in arg)
            return f"({inner},)" if len(arg) == 1 else f"({inner})"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{k!r}: {get_repr(v)}" for k, v in arg.items()) + "}"
        return repr(arg)

    def format_args(args, kwargs) -> str:
        args_s = ", ".join(get_repr(a) for a in args)
        kwargs_s = ", ".join(f"{k} = {get_repr(v)}" for k, v in kwargs.items())
        return f"{args_s}, {kwargs_s}" if args_s and kwargs_s else args_s or kwargs_s

    # the node at which each value is used for the last time
    last_use: dict[Node, Node] = {}
    last_uses_of: dict[Node, list[Node]] = {}
    for node in reversed(graph.nodes):
        for arg_node in _inputs_in_order(node):
            if arg_node not in last_use:
                last_use[arg_node] = node
                last_uses_of.setdefault(node, []).append(arg_node)

    def delete_unused_values(user: Node) -> None:
        if user.op == "placeholder":
            return
        if user.op == "output":
            body.append("\n")
            return
        to_delete = list(last_uses_of.get(user, []))
        if len(user.users) == 0:
            to_delete.append(user)
        if to_delete:
            body.append(f";  {' = '.join([repr(n) for n in to_delete] + ['None'])}\n")
        else:
            body.append("\n")

    previous_trace = None

    def annotation(node: Node) -> str:
        if not verbose:
            return ""
        meta = node.meta.get("val", node.meta.get("tensor_meta", node.meta.get("example_value")))
        from .passes.shape_prop import TensorMetadata

        if isinstance(meta, TensorMetadata):
            return f': "{_dtype_abbr(meta.dtype)}{list(meta.shape)}"'
        return ""

    def type_annotation(node: Node) -> str:
        if node.type is None:
            return ""
        return f" : {add_global(_type_repr(node.type), node.type)}"

    return_annotation = ""
    for node in graph.nodes:
        if verbose and node.op not in ("placeholder", "output"):
            trace = node.stack_trace
            if not trace and previous_trace != "":
                previous_trace = ""
                body.append("\n# No stacktrace found for following nodes\n")
        ann = type_annotation(node) or annotation(node)
        if node.op == "placeholder":
            default = f" = {get_repr(node.args[0])}" if node.args else ""
            free_vars.append(f"{node.target}{ann}{default}")
            raw_name = node.target.replace("*", "")
            if raw_name != repr(node):
                body.append(f"{node!r} = {raw_name}\n")
            continue
        if node.op == "call_method":
            body.append(
                f"{node!r}{ann} = {_format_target(repr(node.args[0]), node.target)}({format_args(node.args[1:], node.kwargs)})"
            )
        elif node.op == "call_function":
            target = node.target
            op_name = getattr(target, "__name__", None)
            if (
                getattr(target, "__module__", None) == "_operator"
                and op_name in magic_methods
                and target is getattr(__import__("operator"), op_name, None)
                and not node.kwargs
                and len(node.args) == magic_methods[op_name].count("{}")
            ):
                body.append(
                    f"{node!r}{ann} = {magic_methods[op_name].format(*(get_repr(a) for a in node.args))}"
                )
            elif (
                target is builtins.getattr
                and len(node.args) == 2
                and isinstance(node.args[1], str)
                and node.args[1].isidentifier()
            ):
                body.append(
                    f"{node!r}{ann} = {_format_target(get_repr(node.args[0]), node.args[1])}"
                )
            else:
                qualified = _qualified_name(target)
                global_name = add_global(qualified, target)
                if node.meta.get("is_wrapped", False):
                    wrapped_fns.setdefault(global_name)
                body.append(f"{node!r}{ann} = {global_name}({format_args(node.args, node.kwargs)})")
        elif node.op == "call_module":
            body.append(
                f"{node!r}{ann} = {_format_target(root_module, node.target)}({format_args(node.args, node.kwargs)})"
            )
        elif node.op == "get_attr":
            body.append(f"{node!r}{ann} = {_format_target(root_module, node.target)}")
        elif node.op == "output":
            if node.type is not None:
                return_annotation = f" -> {type_annotation(node)[3:]}"
            body.append(f"return {get_repr(node.args[0])}")
        else:
            raise NotImplementedError(f"node: {node.op} {node.target}")
        delete_unused_values(node)

    if not body:
        body.append("pass\n")
    wrap_stmts = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in wrapped_fns)
    code = "".join(body).lstrip("\n")
    code = "\n".join("    " + line for line in code.split("\n"))
    src = f"\n{wrap_stmts}\n\ndef forward({', '.join(free_vars)}){return_annotation}:\n{code}"
    return PythonCode(src, globals_)


def _inputs_in_order(node: Node) -> list[Node]:
    seen: list[Node] = []
    map_arg(node.args, seen.append)
    map_arg(node.kwargs, seen.append)
    return seen


# PyTorch's short dtype names in print_readable's type annotations
_DTYPE_ABBRS = {
    "bfloat16": "bf16",
    "float64": "f64",
    "float32": "f32",
    "float16": "f16",
    "complex32": "c32",
    "complex64": "c64",
    "complex128": "c128",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "bool": "b8",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
}


def _dtype_abbr(dtype) -> str:
    return _DTYPE_ABBRS.get(str(dtype).replace("torch.", ""), str(dtype))
