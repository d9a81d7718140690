"""``torch.fx``: symbolic tracing to a Graph of Nodes, graph editing, Python code generation
(GraphModule) and graph interpretation (Interpreter, Transformer), as in PyTorch.

Not implemented (they raise or are absent, never silently wrong): ``replace_pattern`` with a
pattern returning several values, ``GraphModule.to_folder``, tracing ``*args``/``**kwargs`` signatures,
pytree-structured ``concrete_args``, ``torch.fx.experimental``.
"""

from . import passes  # noqa: F401
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = [
    "PH",
    "Graph",
    "GraphModule",
    "Interpreter",
    "Node",
    "Proxy",
    "Tracer",
    "Transformer",
    "map_arg",
    "replace_pattern",
    "symbolic_trace",
    "wrap",
]
