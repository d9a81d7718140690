"""See the autograd graph: ``graph_view(loss)`` as DOT text, a plain-text tree, SVG or PNG.

PyTorch has no such tool (users install third-party drawers). The graph drawn is exactly the
one the engine walks: every node reachable from the given tensors through ``next_functions``,
named as ``type(tensor.grad_fn).__name__`` names it in PyTorch (``AddBackward0``,
``AccumulateGrad``, ``CopySlices``). Edges are drawn in the direction data flowed forward
(an input's node points to the node that consumed it); an input that carries no gradient
(``(None, 0)`` in ``next_functions``) is drawn as a dashed edge from a small grey dot.

A node shows, besides its name: for ``AccumulateGrad``, the leaf's parameter name (when
``params=`` or a module is given), shape and dtype; the shapes, dtypes and versions of the
tensors it saved for backward (red when modified in place since: backward would fail; "freed"
after a backward without ``retain_graph``); the number of hooks. ``CopySlices`` (an in-place
write into a view) is filled orange, view nodes light blue.

Large graphs: with ``collapse=True`` (the default past 300 nodes), the nodes of repeated
module blocks (parameters named ``<prefix>.<k>.<rest>``, as ``nn.ModuleList``/``Sequential``
name them) between the first and last block are drawn as one box per block.
"""

from __future__ import annotations

import re
from pathlib import Path

from .graph import AccumulateGrad, Node

# Backward nodes of ops whose result is a view of their input (drawn light blue).
VIEW_NODES = frozenset(
    [
        "AliasBackward0",
        "AsStridedBackward0",
        "DiagonalBackward0",
        "ExpandBackward0",
        "NarrowBackward0",
        "PermuteBackward0",
        "SelectBackward0",
        "SliceBackward0",
        "SplitBackward0",
        "SplitWithSizesBackward0",
        "SqueezeBackward0",
        "SqueezeBackward1",
        "SqueezeBackward2",
        "TBackward0",
        "TransposeBackward0",
        "UnbindBackward0",
        "UnfoldBackward0",
        "UnsqueezeBackward0",
        "ViewBackward0",
        "ViewAsRealBackward0",
        "ViewAsComplexBackward0",
        "UnsafeViewBackward0",
        "ReshapeAliasBackward0",
        "ChunkBackward0",
    ]
)
_COLLAPSE_AT = 300
_BLOCK = re.compile(r"^(.*?\.|)(\d+)\.")


class GraphView:
    """The graph of one or more tensors; ``str()`` is the text tree, ``.dot`` the DOT source."""

    def __init__(self, roots, params=None, collapse=None) -> None:
        self.roots = list(roots)
        self.names = _param_names(params)
        self.nodes, self.edges = _walk([_root_node(t) for t in self.roots])
        if collapse is None:
            collapse = len(self.nodes) > _COLLAPSE_AT
        self.blocks = _blocks(self.nodes, self.names) if collapse else {}

    # ---- text ----------------------------------------------------------------------------------
    def tree(self) -> str:
        """An indented tree from each root down to the leaves; a node met again is not repeated."""
        lines: list[str] = []
        seen: dict[Node, int] = {}
        for t in self.roots:
            lines.append(f"{_tensor_label(t, 'output')}")
            node = _root_node(t)
            if node is None:
                lines.append("  (no grad_fn: this tensor has no autograd graph)")
                continue
            self._tree_lines(node, 1, seen, lines)
        return "\n".join(lines)

    def _tree_lines(self, node, depth, seen, lines) -> None:
        stack = [(node, depth)]
        while stack:
            n, d = stack.pop()
            pad = "  " * d
            if n is None:
                lines.append(f"{pad}(no gradient)")
                continue
            if n in seen:
                lines.append(f"{pad}{type(n).__name__} #{seen[n]} (see above)")
                continue
            seen[n] = len(seen)
            lines.append(f"{pad}{self._label(n, seen[n])}")
            stack.extend((nxt, d + 1) for nxt, _ in reversed(n.next_functions))

    def _label(self, node, idx) -> str:
        text = f"{type(node).__name__} #{idx}"
        extra = "; ".join(_details(node, self.names))
        return f"{text}  [{extra}]" if extra else text

    def __str__(self) -> str:
        return self.tree()

    def __repr__(self) -> str:
        return self.tree()

    # ---- DOT ------------------------------------------------------------------------------------
    @property
    def dot(self) -> str:
        """The graph as Graphviz DOT source (always available, no Graphviz needed)."""
        ids = {n: f"n{i}" for i, n in enumerate(self.nodes)}
        out = [
            "digraph autograd {",
            '  graph [rankdir=BT, fontname="Helvetica"];',
            '  node [shape=box, style="rounded,filled", fillcolor="#eeeeee", fontname="Helvetica"];',
        ]
        drawn = self._draw_blocks(ids, out)
        for n in self.nodes:
            if n not in drawn:
                out.append(f"  {ids[n]} [{_attrs(n, self.names)}];")
        for i, t in enumerate(self.roots):
            out.append(
                f'  out{i} [label="{_esc(_tensor_label(t, "output"))}", fillcolor="#c8f0c8"];'
            )
            node = _root_node(t)
            if node is not None:
                out.append(f"  {ids[drawn.get(node, node)]} -> out{i};")
        out.extend(self._dot_edges(ids, drawn))
        out.append("}")
        return "\n".join(out) + "\n"

    def _draw_blocks(self, ids, out) -> dict:
        """Boxes for collapsed blocks; returns node -> the node standing for its block."""
        drawn: dict[Node, Node] = {}
        for label, members in self.blocks.items():
            rep = members[0]
            text = f"{label} ({len(members)} nodes collapsed)"
            out.append(f'  {ids[rep]} [label="{_esc(text)}", shape=box3d, fillcolor="#fff3c4"];')
            for m in members:
                drawn[m] = rep
        return drawn

    def _dot_edges(self, ids, drawn) -> list[str]:
        lines, done, k = [], set(), 0
        for node, i, nxt, nr in self.edges:
            src, dst = drawn.get(nxt, nxt), drawn.get(node, node)
            if nxt is None:
                lines.append(f'  none{k} [label="", shape=point, width=0.08, fillcolor="#999999"];')
                lines.append(
                    f'  none{k} -> {ids[dst]} [style=dashed, color="#999999", '
                    f'tooltip="input {i}: no gradient"];'
                )
                k += 1
                continue
            if src is dst or (src, dst, nr, i) in done:
                continue
            done.add((src, dst, nr, i))
            label = f' [label="{nr}"]' if getattr(nxt, "_nout", 1) > 1 else ""
            lines.append(f"  {ids[src]} -> {ids[dst]}{label};")
        return lines

    # ---- pictures ---------------------------------------------------------------------------------
    def pipe(self, format: str = "svg") -> bytes:
        """The picture in ``format`` (svg, png, pdf...) made by Graphviz's ``dot`` program."""
        import shutil
        import subprocess  # only when drawing: importing it costs time at `import taimatsu`

        exe = shutil.which("dot")
        if exe is None:
            raise RuntimeError(
                "graph_view: rendering needs Graphviz's `dot` program (apt-get install graphviz, "
                "brew install graphviz, or conda install graphviz); .dot text works without it"
            )
        proc = subprocess.run(
            [exe, f"-T{format}"],
            input=self.dot.encode(),
            capture_output=True,
            timeout=120,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"graph_view: dot failed: {proc.stderr.decode(errors='replace')}")
        return proc.stdout

    def render(self, path) -> Path:
        """Write the graph to ``path``: ``.dot``/``.gv`` as DOT text, ``.txt`` as the tree, any
        other suffix (``.svg``, ``.png``, ``.pdf``) through Graphviz."""
        path = Path(path)
        fmt = path.suffix.lstrip(".").lower()
        if fmt in ("dot", "gv"):
            path.write_text(self.dot)
        elif fmt == "txt":
            path.write_text(self.tree() + "\n")
        else:
            path.write_bytes(self.pipe(fmt or "svg"))
        return path

    def _repr_svg_(self):
        """Jupyter shows the SVG when Graphviz is installed, else falls back to the text tree."""
        import shutil

        if shutil.which("dot") is None:
            return None
        return self.pipe("svg").decode()


def graph_view(*tensors, params=None, collapse=None) -> GraphView:
    """The autograd graph behind ``tensors``.

    ``params``: a module, or a mapping of names to tensors (``dict(model.named_parameters())``),
    naming the leaves. ``collapse``: draw repeated module blocks as one box each (default: when
    the graph has more than 300 nodes).
    """
    from .._tensor.core import Tensor

    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"graph_view() expects Tensors, got {type(t).__name__}")
    return GraphView(tensors, params, collapse)


# ---- walking --------------------------------------------------------------------------------------
def _root_node(t):
    if t.grad_fn is not None:
        return t.grad_fn
    if t._rg:
        from .engine import grad_accumulator

        return grad_accumulator(t)
    return None


def _walk(roots):
    """Nodes in discovery order (roots first) and edges ``(node, input index, next, output_nr)``."""
    nodes, edges, seen = [], [], set()
    stack = [r for r in reversed(roots) if r is not None]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        nodes.append(n)
        for i, (nxt, nr) in enumerate(n.next_functions):
            edges.append((n, i, nxt, nr))
        stack.extend(nxt for nxt, _ in reversed(n.next_functions) if nxt is not None)
    return nodes, edges


def _param_names(params) -> dict:
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = dict(params.named_parameters())
    return {id(t): name for name, t in dict(params).items()}


# ---- labels ----------------------------------------------------------------------------------------
def _shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _tensor_label(t, what: str) -> str:
    return f"{what} {_shape(t.shape)} {str(t.dtype).removeprefix('torch.')}"


def _details(node, names) -> list[str]:
    parts = []
    if isinstance(node, AccumulateGrad):
        v = node.variable
        name = names.get(id(v))
        parts.append(_tensor_label(v, name if name else "leaf"))
        if v._hooks:
            parts.append(f"hooks: {len(v._hooks)}")
        return parts
    saved = node._saved
    if saved is None:
        parts.append("saved tensors freed (backward ran without retain_graph)")
    elif saved:
        parts.extend(_saved_label(s) for s in saved if s is not None)
    hooks = _hook_count(node)
    if hooks:
        parts.append(f"hooks: {hooks}")
    if type(node).__name__ in VIEW_NODES:
        parts.append("view")
    if node.name().endswith("CopySlices"):
        parts.append("in-place write into a view")
    return parts


def _saved_label(s) -> str:
    if s.tensor is not None:
        now, shape, dtype = s.tensor._vc[0], s.tensor.shape, s.tensor.dtype
    else:
        now, shape, dtype = s.vc[0], s.data.shape, s.dtype
    text = f"saved {_shape(shape)} {str(dtype).removeprefix('torch.')} v{s.version}"
    if now != s.version:
        text += f" MODIFIED in place (now v{now}): backward will fail"
    return text


def _hook_count(node) -> int:
    n = len(node._hooks or ()) + len(node._pre_hooks or ())
    th = node.__dict__.get("_tensor_hooks") if node.__dict__ else None
    if th:
        n += sum(len(h) for h in th.values())
    return n


def _attrs(node, names) -> str:
    name = type(node).__name__
    details = _details(node, names)
    label = "\\n".join([_esc(name), *(_esc(d) for d in details)])
    if isinstance(node, AccumulateGrad):
        fill = "#cfe2ff"
    elif name.endswith("CopySlices"):
        fill = "#ffc890"
    elif name in VIEW_NODES:
        fill = "#dff4ff"
    elif any("MODIFIED" in d for d in details):
        fill = "#ffb0b0"
    else:
        fill = "#eeeeee"
    return f'label="{label}", fillcolor="{fill}"'


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


# ---- collapsing repeated blocks -------------------------------------------------------------------
def _blocks(nodes, names) -> dict:
    """``{"blocks.3": [nodes...]}`` for the repeated blocks between the first and the last.

    A block's nodes are those created (by sequence number) between the first and the last node
    that consumes one of the block's parameters: the forward ran the block's ops in that span.
    """
    spans: dict[tuple, list] = {}
    for n in nodes:
        for nxt, _ in n.next_functions:
            if isinstance(nxt, AccumulateGrad):
                m = _BLOCK.match(names.get(id(nxt.variable), ""))
                if m:
                    key = (m.group(1), int(m.group(2)))
                    lo, hi = spans.get(key, (n._seq, n._seq))
                    spans[key] = (min(lo, n._seq), max(hi, n._seq))
    by_prefix: dict[str, list] = {}
    for (prefix, k), span in spans.items():
        by_prefix.setdefault(prefix, []).append((k, span))
    out = {}
    for prefix, items in by_prefix.items():
        items.sort()
        for k, (lo, hi) in items[1:-1]:  # the first and last block stay drawn in full
            members = [n for n in nodes if not isinstance(n, AccumulateGrad) and lo <= n._seq <= hi]
            members += [
                nxt
                for n in members
                for nxt, _ in n.next_functions
                if isinstance(nxt, AccumulateGrad)
                and names.get(id(nxt.variable), "").startswith(f"{prefix}{k}.")
            ]
            if members:
                out[f"{prefix}{k}"] = list(dict.fromkeys(members))
    return out
