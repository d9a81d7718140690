"""The small pytree toolkit the function transforms need: tuples, lists, dicts and namedtuples
are nodes, everything else (tensors, numbers, None) is a leaf. ``TreeSpec`` prints as PyTorch's
``torch.utils._pytree.TreeSpec`` does, because the transforms' error messages show it."""

from __future__ import annotations


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class TreeSpec:
    """A node's type, its context (dict keys, namedtuple class) and its children's specs."""

    __slots__ = ("children", "context", "type")

    def __init__(self, type_, context, children):
        self.type, self.context, self.children = type_, context, children

    def is_leaf(self) -> bool:
        return self.type is None

    @property
    def num_leaves(self) -> int:
        return 1 if self.type is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)  # fmt: skip

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        inner = ""
        if self.children:
            indent += 2
            inner = self.children[0].__repr__(indent) + ("," if len(self.children) > 1 else "")
            inner += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return f"TreeSpec({self.type.__name__}, {self.context}, [{inner}])"

    def pprint(self) -> str:
        """The compact form PyTorch's vjp errors use: ``*``, ``(*, *)``, ``[*]``, ``{'a': *}``."""
        if self.type is None:
            return "*"
        parts = [c.pprint() for c in self.children]
        if self.type is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.context, parts)) + "}"
        if self.type is list:
            return "[" + ", ".join(parts) + "]"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


LEAF = TreeSpec(None, None, [])


def tree_flatten(tree):
    """``(leaves, spec)``: leaves in depth-first order (dicts in insertion order)."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: list) -> TreeSpec:
    if type(tree) is dict:
        keys = list(tree)
        return TreeSpec(dict, keys, [_flatten(tree[k], leaves) for k in keys])
    if _is_namedtuple(tree):
        return TreeSpec(type(tree), type(tree), [_flatten(v, leaves) for v in tree])
    if type(tree) in (tuple, list):  # subclasses such as torch.Size stay leaves, as in PyTorch
        return TreeSpec(type(tree), None, [_flatten(v, leaves) for v in tree])
    leaves.append(tree)
    return LEAF


def tree_unflatten(leaves, spec: TreeSpec):
    it = iter(leaves)
    return _build(spec, it)


def _build(spec: TreeSpec, it):
    if spec.type is None:
        return next(it)
    vals = [_build(c, it) for c in spec.children]
    if spec.type is dict:
        return dict(zip(spec.context, vals))
    if spec.type is list:
        return vals
    if spec.type is tuple:
        return tuple(vals)
    return spec.type(*vals)  # a namedtuple


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec: TreeSpec):
    """Expand ``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``) to one value
    per leaf of ``spec``; None when ``prefix`` is not a prefix of ``spec``'s structure."""
    out: list = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix, spec: TreeSpec, out: list) -> bool:
    _, p_spec = tree_flatten(prefix)
    if p_spec.type is None:
        out.extend([prefix] * spec.num_leaves)
        return True
    if spec.type is None or p_spec.type is not spec.type or p_spec.context != spec.context:
        return False
    if len(p_spec.children) != len(spec.children):
        return False
    children = list(prefix.values()) if isinstance(prefix, dict) else list(prefix)
    return all(_broadcast(c, s, out) for c, s in zip(children, spec.children))
