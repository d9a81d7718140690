"""``torch.fx.Graph``: an ordered list of Nodes (a doubly linked list around a sentinel), their
names, and the editing API PyTorch's transforms use (create/insert/erase nodes, dead code
elimination, lint). Printing follows PyTorch's ``graph():`` text."""

from __future__ import annotations

import builtins
import copy
import inspect
import keyword
import re
import warnings
from collections import defaultdict
from collections.abc import Callable

from .node import Node, map_arg

__all__ = ["Graph", "PythonCode"]

_ILLEGAL_CHAR = re.compile("[^0-9a-zA-Z_]+")
_NAME_SUFFIX = re.compile(r"(.*)_(\d+)$")
# names the generated code binds itself, so a node may not take them
_CUSTOM_BUILTINS = frozenset(("inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"))


def _snake_case(s: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


def _target_to_str(target) -> str:
    if callable(target):
        from .torch_names import display_name

        shown = display_name(target)  # taimatsu's wrappers may have another __name__
        op = shown.rsplit(".", 1)[-1] if shown is not None else target.__name__
    else:
        op = target
    if op.startswith("__") and op.endswith("__") and len(op) > 4:
        op = op[2:-2]
    return _snake_case(op)


class _Namespace:
    """Unique Python identifiers for a graph's values (``add``, ``add_1``, ``sum_1``...)."""

    def __init__(self):
        self._obj_to_name: dict = {}
        self._used_names: set[str] = set()
        self._base_count: dict[str, int] = defaultdict(int)

    def create_name(self, candidate: str, obj) -> str:
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)][1]
        candidate = _ILLEGAL_CHAR.sub("_", candidate)
        if not candidate:
            candidate = "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = _NAME_SUFFIX.match(candidate)
        if match is None:
            base, num = candidate, None
        else:
            base, num_str = match.group(1, 2)
            num = int(num_str)
            candidate = f"{base}_{num}"
        if not num:
            num = self._base_count[base]
        while candidate in self._used_names or self._is_illegal_name(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = (obj, candidate)
        return candidate

    def associate_name_with_obj(self, name: str, obj) -> None:
        self._obj_to_name[id(obj)] = (obj, name)

    def _is_illegal_name(self, name: str, obj) -> bool:
        if name in keyword.kwlist:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        return name in _CUSTOM_BUILTINS


class _NodeList:
    """``graph.nodes``: iterates live nodes, tolerating erasure of the current one."""

    def __init__(self, graph: Graph, direction: str = "_next"):
        self.graph = graph
        self.direction = direction

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        cur = getattr(root, self.direction)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, self.direction)

    def __reversed__(self):
        return iter(_NodeList(self.graph, "_prev" if self.direction == "_next" else "_next"))


class _InsertPoint:
    def __init__(self, graph: Graph, new_insert: Callable):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        pass

    def __exit__(self, *args):
        self.graph._insert = self.orig_insert


class PythonCode:
    """What ``Graph.python_code`` returns: the source and the globals it needs."""

    def __init__(self, src: str, globals: dict):
        self.src = src
        self.globals = globals


class Graph:
    """A traced program: ``placeholder`` inputs, operations, one ``output``."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = None

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list[Node]:
        """The nodes of ``op`` (and ``target``), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- building ------------------------------------------------------------------------------
    def create_node(
        self, op: str, target, args=None, kwargs=None, name: str | None = None, type_expr=None
    ) -> Node:
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")  # noqa: TRY004  (PyTorch raises this type)
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")  # noqa: TRY004  (PyTorch raises this type)
        candidate = name if name is not None else _target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name: str, type_expr=None, default_value=inspect.Signature.empty) -> Node:
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr=None) -> Node:
        if self.owning_module is not None and not _attr_exists(self.owning_module, qualified_name):
            warnings.warn(
                "Attempted to insert a get_attr Node with no underlying reference in the owning "
                "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                "GraphModule.add_parameter to add the necessary Parameter, or "
                "nn.Module.register_buffer to add the necessary buffer",
                stacklevel=2,
            )
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        if self.owning_module is not None:
            self.owning_module.get_submodule(module_name)  # AttributeError if absent, as in PyTorch
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(
        self, the_function: Callable, args=None, kwargs=None, type_expr=None, name=None
    ) -> Node:
        return self.create_node(
            "call_function", the_function, args, kwargs, name=name, type_expr=type_expr
        )

    def output(self, result, type_expr=None) -> Node:
        return self.create_node(op="output", target="output", args=(result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform: Callable = lambda x: x) -> Node:
        """A copy of ``node`` (from any graph) in this one, its Node arguments mapped."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g: Graph, val_map: dict, return_output_node: bool = False):
        """Copy ``g``'s nodes (not its output) in; ``val_map`` maps old nodes to new ones.
        Returns the value ``g`` outputs, mapped."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None) -> Graph:
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map={}, return_output_node=True)
        if output_vals is not None:
            value, old_output = output_vals
            new_output = g.output(value, type_expr=old_output.type)
            new_output.meta = copy.copy(old_output.meta)
        return g

    # ---- editing -------------------------------------------------------------------------------
    def erase_node(self, to_erase: Node) -> None:
        if len(to_erase.users) > 0:
            raise RuntimeError(
                f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                f"users in the graph: {to_erase.users}!"
            )
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs(
            map_arg(to_erase.args, lambda n: None), map_arg(to_erase.kwargs, lambda n: None)
        )

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """New nodes go right before ``n`` (before all nodes when None) inside this context."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """New nodes go right after ``n`` (after all nodes when None) inside this context."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def eliminate_dead_code(self, is_impure_node: Callable | None = None) -> bool:
        """Erase nodes nobody uses and that have no side effect; True if any was erased."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check the graph's invariants: nodes belong here, arguments are defined before use,
        names are unique, and get_attr/call_module targets exist in the owning module."""
        seen_names: set[str] = set()
        seen_values: set[Node] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(
                        f"Argument '{arg}' of Node '{node}' does not belong to this Graph, but was used as an argument! If you are copying nodes from another graph, make sure to use ``arg_transform`` on node_copy() to remap values\n{self}"
                    )
                if arg not in seen_values:
                    raise RuntimeError(
                        f"Argument '{arg}' of Node '{node}' was used before it has been defined! Please check that Nodes in the graph are topologically ordered\n{self}"
                    )
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            seen_values.add(node)
        module = self.owning_module
        if module is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                atoms = node.target.split(".")
                m_itr = module
                for i, atom in enumerate(atoms):
                    new_m_itr = getattr(m_itr, atom, None)
                    seen_qualname = ".".join(atoms[:i])
                    if new_m_itr is None:
                        raise RuntimeError(
                            f"Node {node} target {node.target} references nonexistent attribute {atom} of {seen_qualname}"
                        )
                    if node.op == "call_module" and not _is_module(new_m_itr):
                        raise RuntimeError(
                            f"Node {node} target {node.target} {atom} of {seen_qualname} does not reference an nn.Module"
                        )
                    m_itr = new_m_itr

    # ---- printing and code -------------------------------------------------------------------------
    def __str__(self) -> str:
        s = "graph():"
        for node in self.nodes:
            s += "\n    " + node.format_node()
        return s

    def print_tabular(self) -> None:
        """Print the nodes as a table (needs the ``tabulate`` package, as in PyTorch)."""
        try:
            from tabulate import tabulate
        except ImportError:
            print(
                "`print_tabular` relies on the library `tabulate`, which could not be found on "
                "this machine. Run `pip install tabulate` to install the library."
            )
            raise
        specs = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(specs, headers=["opcode", "name", "target", "args", "kwargs"]))

    def python_code(self, root_module: str, *, verbose: bool = False) -> PythonCode:
        from .codegen import python_code

        return python_code(self, root_module, verbose=verbose)

    def set_codegen(self, codegen) -> None:
        self._codegen = codegen


def _attr_exists(mod, qualified_name: str) -> bool:
    module_path, _, name = qualified_name.rpartition(".")
    try:
        submod = mod.get_submodule(module_path)
    except AttributeError:
        warnings.warn(f"Failed to fetch module {module_path}!", stacklevel=3)
        return False
    if not hasattr(submod, name):
        return False
    from ..nn import Parameter

    res = getattr(submod, name)
    return _is_module(res) or isinstance(res, Parameter) or name in submod._buffers


def _is_module(obj) -> bool:
    from ..nn import Module

    return isinstance(obj, Module)
