"""``torch.fx.Node``: one operation of a :class:`~taimatsu.fx.Graph`, with its users and inputs.

A node is an element of its graph's doubly linked list; its ``args``/``kwargs`` hold other
nodes, and every change to them keeps the ``users`` of those nodes in step, as in PyTorch.
Printing (``format_node``, target names such as ``operator.add`` or ``torch.relu``) follows
PyTorch's text.
"""

from __future__ import annotations

import builtins
import operator
import types
from collections.abc import Callable
from typing import Any

from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Argument", "Node", "Target", "map_aggregate", "map_arg"]

Argument = Any
Target = Any

# call_function targets that eliminate_dead_code keeps though nothing uses their value
_side_effectful_functions: set = {operator.setitem}


def map_aggregate(a, fn: Callable):
    """Apply ``fn`` to every leaf of the (nested) tuple/list/dict/slice ``a``; lists and dicts
    come back immutable, as stored in a Node."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(elem, fn) for elem in a)
        return t if not hasattr(a, "_fields") else type(a)(*t)  # a namedtuple keeps its type
    if isinstance(a, list):
        return immutable_list(map_aggregate(elem, fn) for elem in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(
            map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn)
        )
    return fn(a)


def map_arg(a, fn: Callable):
    """Apply ``fn`` to every Node in the (nested) argument ``a``."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")  # noqa: TRY004  (PyTorch raises this type)
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(target) -> str:
    """The dotted name PyTorch's generated code gives a call_function target (``torch.relu``,
    ``_operator.abs``, ``getattr``)."""
    from .torch_names import display_name

    name = display_name(target)
    if name is not None:
        return name
    short = getattr(target, "__name__", None)
    if short is None:
        raise RuntimeError(f"Cannot get qualified name of {target}")
    if getattr(builtins, short, None) is target:
        return short
    module = getattr(target, "__module__", None) or ""
    if module == "taimatsu" or module.startswith("taimatsu."):
        module = "torch" + module[len("taimatsu") :]  # taimatsu's own helpers print as PyTorch's
    return f"{module}.{short}" if module else short


def _pretty_print_target(target) -> str:
    """The name PyTorch prints for a target in a graph (``operator.add``, ``builtins.getattr``)."""
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if name is not None and module == "builtins":
        return f"builtins.{name}"
    if name is not None and module == "_operator":
        return f"operator.{name}"
    return _qualified_name(target)


def _format_arg(arg) -> str:
    if isinstance(arg, list):
        return f"[{', '.join(_format_arg(a) for a in arg)}]"
    if isinstance(arg, tuple):
        comma = "," if len(arg) == 1 else ""
        return f"({', '.join(_format_arg(a) for a in arg)}{comma})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """One operation: ``op`` is ``placeholder``, ``get_attr``, ``call_function``,
    ``call_method``, ``call_module`` or ``output``; ``target`` what it calls or reads."""

    def __init__(
        self, graph, name: str, op: str, target, args: tuple, kwargs: dict, return_type=None
    ):
        if op not in (
            "placeholder",
            "call_method",
            "call_module",
            "call_function",
            "get_attr",
            "output",
            "root",
        ):
            raise ValueError(f"Unsupported op {op}")
        if op == "call_function" and not callable(target):
            raise ValueError(
                f"Node [graph = {graph}, name = '{name}'] target {target} has type {type(target)} but a Callable is expected"
            )
        if op in (
            "call_method",
            "call_module",
            "get_attr",
            "placeholder",
            "output",
        ) and not isinstance(target, str):
            raise ValueError(
                f"Node [graph = {graph}, name = '{name}'] target {target} has type {type(target)} but a str is expected"
            )
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict[Node, None] = {}
        self.users: dict[Node, None] = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict = {}
        self._args: tuple = ()
        self._kwargs: dict = immutable_dict()
        self._update_args_kwargs(args, kwargs)

    # ---- position in the graph ---------------------------------------------------------------
    @property
    def next(self) -> Node:
        return self._next

    @property
    def prev(self) -> Node:
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move/insert ``x`` right before this node."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Move/insert ``x`` right after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    # ---- arguments and uses ----------------------------------------------------------------------
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, a) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list[Node]:
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg) -> None:
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, new_args, new_kwargs) -> None:
        self._args = map_aggregate(tuple(new_args), lambda x: x)
        self._kwargs = map_aggregate(dict(new_kwargs), lambda x: x)
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        map_arg(self._args, self._input_nodes.setdefault)
        map_arg(self._kwargs, self._input_nodes.setdefault)
        for new_use in self._input_nodes:
            new_use.users.setdefault(self)

    def replace_all_uses_with(
        self,
        replace_with: Node,
        delete_user_cb: Callable = lambda user: True,
        *,
        propagate_meta: bool = False,
    ) -> list[Node]:
        """Make every user of this node use ``replace_with`` instead; returns the users changed."""
        if propagate_meta:
            if len(replace_with.meta):
                raise AssertionError(
                    "Called node.replace_all_uses_with(replace_with, propagate_meta=True), but replace_with already has .meta keys"
                )
            replace_with.meta.update(self.meta)
        to_process = list(self.users)
        skipped = []
        for use_node in to_process:
            if not delete_user_cb(use_node):
                skipped.append(use_node)
                continue
            use_node._replace_input(self, replace_with)
        return [n for n in to_process if n not in skipped]

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Use ``new_input`` wherever this node's arguments hold ``old_input``."""
        self._replace_input(old_input, new_input)

    def _replace_input(self, old: Node, new) -> None:
        def swap(n):
            return new if n is old else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # ---- queries --------------------------------------------------------------------------------
    @property
    def stack_trace(self) -> str | None:
        return self.meta.get("stack_trace")

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether eliminate_dead_code must keep this node though its value is unused."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_module":
            module = self.graph.owning_module
            if module is None:
                raise AssertionError("self.graph.owning_module not set for purity check")
            return getattr(module.get_submodule(self.target), "_is_impure", False)
        if self.op == "call_function":
            from .torch_names import side_effectful

            return self.target in _side_effectful_functions or side_effectful(self.target)
        return False

    # ---- printing ------------------------------------------------------------------------------
    def format_node(self, placeholder_names=None, maybe_return_typename=None) -> str | None:
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        if self.op == "placeholder":
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}[target={_pretty_print_target(self.target)}]"
        if self.op == "output":
            return f"return {self.args[0]}"
        return (
            f"%{self.name} : {typename}[num_users={len(self.users)}] = "
            f"{self.op}[target={_pretty_print_target(self.target)}]"
            f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"
        )

    def __repr__(self) -> str:
        return self.name


def _type_repr(t) -> str:
    """A type annotation as PyTorch prints it (``torch.Tensor``, ``int``, ``typing.List[int]``)."""
    if isinstance(t, type):
        if t.__module__ == "builtins":
            return t.__qualname__
        module = t.__module__
        if module == "taimatsu" or module.startswith("taimatsu."):
            import taimatsu

            # taimatsu's public classes print under torch's name (Tensor is torch.Tensor)
            module = (
                "torch" if getattr(taimatsu, t.__qualname__, None) is t else "torch" + module[8:]
            )
        return f"{module}.{t.__qualname__}"
    if t is ...:
        return "..."
    if isinstance(t, types.FunctionType):
        return t.__name__
    return repr(t)
