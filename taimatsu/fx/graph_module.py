"""``torch.fx.GraphModule``: an ``nn.Module`` whose ``forward`` is Python generated from a Graph.

It holds the submodules, parameters and buffers the graph's ``call_module``/``get_attr`` nodes
name (copied from the traced root, intermediate modules as plain ``Module``s, as PyTorch does),
and regenerates ``code`` and ``forward`` on ``recompile()`` or when ``graph`` is assigned.
"""

from __future__ import annotations

import copy
import itertools
import linecache
import math

from ..nn import Module
from .graph import Graph, PythonCode

__all__ = ["GraphModule"]

_source_ids = itertools.count()


def _copy_attr(from_module, to_module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # the whole module was copied already
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    from .. import Tensor
    from ..nn import Parameter

    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    from .. import Tensor
    from ..nn import Parameter

    if isinstance(from_obj, Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


def _exec_forward(src: str, globals_: dict):
    key = f"<eval_with_key>.{next(_source_ids)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)  # tracebacks show the code
    exec(compile(src, key, "exec"), globals_)  # noqa: S102
    return globals_["forward"]


def _rebuild(state: dict, src: str, names: dict, class_name: str) -> GraphModule:
    """Unpickle a GraphModule: run its code on a module holding its state and trace that,
    every submodule a leaf (as PyTorch's ``reduce_graph_module`` does)."""
    from ._symbolic_trace import Tracer
    from .codegen import code_torch

    forward = _exec_forward(src, {"torch": code_torch(), "inf": math.inf, "nan": math.nan, **names})
    holder_cls = type(class_name, (Module,), {"forward": forward})
    holder = Module.__new__(holder_cls)
    holder.__dict__.update(state)

    class KeepModules(Tracer):
        def is_leaf_module(self, m, qualname: str) -> bool:
            return True

    return GraphModule(holder, KeepModules().trace(holder), class_name)


class GraphModule(Module):
    """``GraphModule(root, graph, class_name="GraphModule")``: ``root`` is the module (or a dict
    of name -> module/tensor) the graph's targets are taken from."""

    def __new__(cls, *args, **kwargs):
        # each instance gets a class of its own: recompile() sets ``forward`` on it
        for t in cls.__mro__:
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t  # noqa: PLW0642
                break

        class GraphModuleImpl(cls):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph: Graph, class_name: str = "GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(
                            f"Node {node} referenced target {node.target} but that target was not provided in ``root``!"
                        )
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")  # noqa: TRY004  (PyTorch raises this type)
        self.graph = graph
        self.meta: dict = {}

    @property
    def graph(self) -> Graph:
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")  # noqa: TRY004  (PyTorch raises this type)
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self) -> PythonCode:
        """Regenerate ``code`` and ``forward`` from ``graph`` (after editing it)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        cls = type(self)
        cls.forward = _exec_forward(self._code, dict(python_code.globals))
        return python_code

    def print_readable(
        self,
        print_output: bool = True,
        include_stride: bool = False,
        include_device: bool = False,
        colored: bool = False,
        **kwargs,
    ) -> str:
        """The module as a ``class Name(torch.nn.Module)`` listing, with nested GraphModules."""
        output = self._print_readable(type(self).__name__)
        if print_output:
            print(output)
        return output

    def _print_readable(self, name: str) -> str:
        code = self._graph.python_code(root_module="self", verbose=True).src.lstrip("\n")
        lines = [f"class {name}(torch.nn.Module):"]
        lines += ["    " + line if line.strip() else "" for line in code.split("\n")]
        out = "\n".join(lines)
        for sub_name, sub in self.named_children():
            if isinstance(sub, GraphModule):
                nested = sub._print_readable(sub_name)
                out += "\n" + "\n".join(
                    "    " + line if line.strip() else "" for line in nested.split("\n")
                )
        return out

    def __str__(self) -> str:
        return "\n".join(
            [
                super().__str__(),
                self._code,
                "# To see more debug info, please use `graph_module.print_readable()`",
            ]
        )

    def __copy__(self):
        res = GraphModule(self, self.graph, type(self).__name__)
        res.meta = self.meta
        return res

    def __deepcopy__(self, memo):
        holder = Module()
        state = {k: v for k, v in self.__dict__.items() if k != "_graph"}
        holder.__dict__ = copy.deepcopy(state, memo)
        res = GraphModule(holder, copy.deepcopy(self._graph, memo))
        res.meta = copy.deepcopy(self.meta, memo)
        return res

    # ---- submodules the graph may call -------------------------------------------------------
    def add_submodule(self, target: str, m: Module) -> bool:
        """Install ``m`` at the dotted path ``target``, creating empty Modules on the way; False
        if a step of the path is not a Module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Remove the submodule at ``target``; False if there is none."""
        *path, name = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not isinstance(getattr(mod, name, None), Module):
            return False
        delattr(mod, name)
        return True

    def delete_all_unused_submodules(self) -> None:
        """Remove the submodules no ``call_module``/``get_attr`` node reaches."""
        used: set[str] = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                parts = node.target.split(".")
                used.update(".".join(parts[: i + 1]) for i in range(len(parts)))
                if node.op == "call_module":
                    try:
                        submod = self.get_submodule(node.target)
                    except AttributeError:
                        continue
                    used.update(f"{node.target}.{n}" for n, _ in submod.named_modules() if n)
        for name in [n for n, _ in self.named_modules() if n not in used and n]:
            self.delete_submodule(name)

    # ---- pickling: the module's state and its code; unpickling re-traces the code -------------
    def __reduce__(self):
        state = {k: v for k, v in self.__dict__.items() if k != "_graph"}
        python_code = self._graph.python_code(root_module="self")
        names = {k: v for k, v in python_code.globals.items() if k not in ("torch", "inf", "nan")}
        return (_rebuild, (state, python_code.src, names, type(self).__name__))

    def to_folder(self, folder, module_name: str = "FxModule"):
        raise NotImplementedError("GraphModule.to_folder is not implemented in taimatsu's torch.fx")
