"""``torch.fx.replace_pattern``: find every occurrence of a pattern (a traced function) in a
GraphModule's graph and replace it with a replacement function's graph, as PyTorch does:
placeholders match any value, other nodes match by op and target with equal literal
arguments, matches may not overlap and their inner values may not be used outside them.

Patterns returning one value are supported; a pattern returning several values raises
NotImplementedError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .graph import Graph
from .node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    anchor: Node  # the node the pattern's output matched
    nodes_map: dict  # pattern node -> matched node (or literal, for a placeholder)


class _Matcher:
    def __init__(self, pattern: Graph):
        self.pattern = pattern
        output = next(n for n in reversed(pattern.nodes) if n.op == "output")
        self.anchors = output.all_input_nodes
        if len(self.anchors) != 1 or not isinstance(output.args[0], Node):
            raise NotImplementedError(
                "taimatsu's replace_pattern supports patterns returning a single value"
            )
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]

    @staticmethod
    def _nodes_are_equal(pn: Node, gn: Node) -> bool:
        if pn.op == "placeholder":
            return True
        return pn.op == gn.op and pn.target == gn.target

    def _match_literals(self, pn, gn, nodes_map: dict) -> bool:
        if isinstance(pn, Node) and isinstance(gn, Node):
            return self._match_nodes(pn, gn, nodes_map)
        if isinstance(pn, Node):  # a placeholder stands for any literal
            if pn.op != "placeholder":
                return False
            if pn in nodes_map:
                return nodes_map[pn] == gn
            nodes_map[pn] = gn
            return True
        if isinstance(gn, Node):
            return False
        return type(gn) is type(pn) and gn == pn

    def _match_args(self, args1, args2, nodes_map: dict) -> bool:
        if len(args1) != len(args2):
            return False
        for a1, a2 in zip(args1, args2):
            if isinstance(a1, (list, tuple)) and isinstance(a2, (list, tuple)):
                matched = self._match_args(a1, a2, nodes_map)
            else:
                matched = self._match_literals(a1, a2, nodes_map)
            if not matched:
                return False
        return True

    def _match_nodes(self, pn: Node, gn: Node, nodes_map: dict) -> bool:
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if any(v is gn for v in nodes_map.values()):
            return False
        if not self._nodes_are_equal(pn, gn):
            return False
        saved = dict(nodes_map)
        nodes_map[pn] = gn
        if pn.op == "placeholder":
            return True
        if set(pn.kwargs) != set(gn.kwargs):
            found = False
        else:
            found = self._match_args(
                (*pn.args, *(pn.kwargs[k] for k in pn.kwargs)),
                (*gn.args, *(gn.kwargs[k] for k in pn.kwargs)),
                nodes_map,
            )
        if not found:
            nodes_map.clear()
            nodes_map.update(saved)
        return found

    def _is_contained(self, nodes_map: dict) -> bool:
        inside = {id(gn) for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        for pn, gn in nodes_map.items():
            if pn.op == "placeholder" or pn in self.anchors:
                continue
            if any(id(user) not in inside for user in gn.users):
                return False
        return True

    def match(self, graph: Graph) -> list[dict]:
        anchor = self.anchors[0]
        matches, taken = [], set()
        for node in graph.nodes:
            if node.op == "output" or not self._nodes_are_equal(anchor, node):
                continue
            nodes_map: dict = {}
            if not self._match_nodes(anchor, node, nodes_map) or not self._is_contained(nodes_map):
                continue
            mine = {
                id(gn) for pn, gn in nodes_map.items() if pn.op not in ("placeholder", "output")
            }
            if mine & taken:
                continue  # overlaps an earlier match
            taken |= mine
            matches.append(nodes_map)
        return matches


def replace_pattern(gm, pattern: Callable, replacement: Callable) -> list[Match]:
    """Replace each match of ``pattern`` in ``gm.graph`` with ``replacement``; recompiles ``gm``
    and returns the matches."""
    from ._symbolic_trace import symbolic_trace

    original = gm.graph
    pattern_graph = pattern.graph if isinstance(pattern, Graph) else symbolic_trace(pattern).graph
    replacement_graph = (
        replacement.graph if isinstance(replacement, Graph) else symbolic_trace(replacement).graph
    )
    matcher = _Matcher(pattern_graph)
    replacement_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    if len(matcher.placeholders) != len(replacement_placeholders):
        raise AssertionError("pattern and replacement must take the same number of inputs")
    changed: dict = {}
    results = []
    for nodes_map in matcher.match(original):
        anchor_match = nodes_map[matcher.anchors[0]]
        val_map = {}
        for rn, pn in zip(replacement_placeholders, matcher.placeholders):
            gn = nodes_map[pn]
            val_map[rn] = changed.get(gn, gn) if isinstance(gn, Node) else gn
        first_user = next(n for n in original.nodes if n in anchor_match.users)
        with original.inserting_before(first_user):
            copied = original.graph_copy(replacement_graph, val_map)
        anchor_match.replace_all_uses_with(copied)
        changed[anchor_match] = copied
        for pn in reversed(pattern_graph.nodes):
            if pn.op not in ("placeholder", "output"):
                original.erase_node(nodes_map[pn])
        results.append(Match(anchor=matcher.anchors[0], nodes_map=nodes_map))
    gm.recompile()
    return results
