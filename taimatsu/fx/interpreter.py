"""``torch.fx.Interpreter`` (run a GraphModule node by node; override ``call_function`` etc.
to change what each kind of node does) and ``Transformer`` (the same walk, recording a new
graph through Proxies instead of computing)."""

from __future__ import annotations

import inspect

from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs ``module``'s graph: ``run(*args)`` calls ``run_node`` on each node, which dispatches
    to ``placeholder``, ``get_attr``, ``call_function``, ``call_method``, ``call_module`` or
    ``output``."""

    def __init__(self, module, garbage_collect_values: bool = True, graph: Graph | None = None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env: dict[Node, object] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            # free each value after its last use, as the generated code does
            node_to_last_use: dict[Node, Node] = {}
            self.user_to_last_uses: dict[Node, list[Node]] = {}
            for node in reversed(self.graph.nodes):
                for n in node.all_input_nodes:
                    if n not in node_to_last_use:
                        node_to_last_use[n] = node
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env: dict | None = None, enable_io_processing: bool = True):
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue  # given by the caller (partial evaluation)
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    msg = f"{e.args[0]}\n\n{msg}" if e.args else str(msg)
                    msg += f"\nOriginal traceback:\n{node.stack_trace}"
                    msg += (
                        "\nUse tlparse to see full graph. (https://github.com/pytorch/tlparse"
                        "?tab=readme-ov-file#tlparse-parse-structured-pt2-logs)"
                    )
                    e.args = (msg,) + e.args[1:]
                    if isinstance(e, KeyError):
                        raise RuntimeError(*e.args) from e
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list: list):
        args_iter = iter(args_list)
        env = {}
        for n in self.graph.nodes:
            if n.op == "placeholder":
                env[n] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n: Node):
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise AssertionError("args must be a tuple and kwargs a dict")  # noqa: TRY004  (PyTorch raises this type)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ---- one method per op ----------------------------------------------------------------------
    def placeholder(self, target: str, args: tuple, kwargs: dict):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(
                f"Expected positional argument for parameter {target}, but one was not passed in!"
            ) from si

    def get_attr(self, target: str, args: tuple, kwargs: dict):
        return self.fetch_attr(target)

    def call_function(self, target, args: tuple, kwargs: dict):
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict):
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict):
        submod = self.fetch_attr(target)
        return submod(*args, **kwargs)

    def output(self, target, args: tuple, kwargs: dict):
        return args[0]

    # ---- helpers --------------------------------------------------------------------------------
    def fetch_attr(self, target: str):
        atoms = target.split(".")
        attr_itr = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[: i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args, n: Node):
        def load_arg(n_arg: Node):
            if n_arg not in self.env:
                raise RuntimeError(
                    f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to diagnose such issues"
                )
            return self.env[n_arg]

        return map_arg(args, load_arg)


class Transformer(Interpreter):
    """Re-records ``module``'s graph: override ``call_function`` (etc.) to emit other nodes;
    ``transform()`` returns the new GraphModule."""

    def __init__(self, module):
        super().__init__(module)
        from ._symbolic_trace import Tracer

        self.new_graph = Graph()

        class TransformerTracer(Tracer):
            def __init__(self, graph: Graph):
                super().__init__()
                self.graph = graph
                self.tensor_attrs = {}

            def is_leaf_module(self, _, __) -> bool:
                return True

        self.tracer = TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        from ._symbolic_trace import _Patcher, _trace_lock, patch_torch_functions

        # an override may call torch functions on Proxies (``return torch.neg(*args)``): they
        # record while the transform runs, as in a trace (``target == torch.add`` still holds;
        # ``target is torch.add`` does not, for a function read during the transform)
        patcher = _Patcher()
        with _trace_lock:
            patch_torch_functions(patcher)
            try:
                result = super().run(enable_io_processing=False)
            finally:
                patcher.restore()
        if result is not None:
            self.new_graph.output(
                map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a)
            )
        return GraphModule(self.module, self.new_graph)
