"""``torch.utils._pytree``: nested containers as (leaves, TreeSpec) pairs.

The node types are PyTorch's (after ``import torch``): tuple, list, dict, namedtuples, OrderedDict,
defaultdict, deque, ``torch.Size`` (rebuilt as a plain tuple, as PyTorch's registration does),
``torch.return_types`` results, and whatever ``register_pytree_node`` adds. Everything else (tensors,
numbers, None, strings) is a leaf. ``TreeSpec`` prints, compares and checks structures
(``flatten_up_to``, used by ``tree_map`` over several trees) with PyTorch's texts.
``torch.func`` transforms use this module for their arguments and outputs.

Deviations: no C++ (optree) backend, no treespec (de)serialization (``treespec_dumps``/``loads``),
and ``isinstance(spec, LeafSpec)`` gives its answer without PyTorch's FutureWarning.
"""

from __future__ import annotations

import dataclasses
import types
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .._size import Size

__all__ = [
    "GetAttrKey",
    "LeafSpec",
    "MappingKey",
    "SequenceKey",
    "TreeSpec",
    "keystr",
    "register_pytree_node",
    "tree_all",
    "tree_all_only",
    "tree_any",
    "tree_any_only",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_is_leaf",
    "tree_iter",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_map_with_path",
    "tree_structure",
    "tree_unflatten",
    "treespec_pprint",
]


# ---- keys: where a leaf sits in its tree (tree_flatten_with_path) ----


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp: tuple) -> str:
    """A key path as the Python expression that reaches the leaf: ``['a'][1].b``."""
    return "".join(str(k) for k in kp)


# ---- the node registry ----


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Callable  # node -> (children, context)
    unflatten_fn: Callable  # (children, context) -> node
    flatten_with_keys_fn: Callable | None  # node -> ([(key, child)], context)


SUPPORTED_NODES: dict[Any, NodeDef] = {}


def register_pytree_node(
    cls,
    flatten_fn: Callable,
    unflatten_fn: Callable,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: Callable | None = None,
    from_dumpable_context: Callable | None = None,
    flatten_with_keys_fn: Callable | None = None,
) -> None:
    """Make ``cls`` a node: ``flatten_fn(x) -> (children, context)``,
    ``unflatten_fn(children, context) -> x``. The serialization arguments are accepted and unused."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


def _is_namedtuple_class(cls) -> bool:
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))  # fmt: skip


def _is_structseq_class(cls) -> bool:
    """``torch.return_types`` classes (taimatsu's are tuple subclasses with structseq's fields)."""
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and all(isinstance(getattr(cls, a, None), int)
                    for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields")))  # fmt: skip


def _node_type(tree):
    """The registry key of ``tree``: namedtuples share one entry (PyTorch keys them by the
    ``collections.namedtuple`` function), return types are keyed by their class."""
    cls = type(tree)
    if _is_namedtuple_class(cls):
        return namedtuple
    if cls not in SUPPORTED_NODES and _is_structseq_class(cls):
        _register_structseq(cls)
    return cls


def _register_structseq(cls) -> None:
    """PyTorch registers each ``torch.return_types`` class; taimatsu makes them on demand."""
    node = NodeDef(cls, lambda x: (list(x), None), lambda values, _: cls(list(values)),
                   lambda x: _seq_keys(x, None))  # fmt: skip
    SUPPORTED_NODES.setdefault(cls, node)


def _seq_keys(children, context):
    return [(SequenceKey(i), v) for i, v in enumerate(children)], context


def _register_builtins() -> None:
    def as_list(x):
        return list(x), None

    register_pytree_node(tuple, as_list, lambda v, _: tuple(v),
                         flatten_with_keys_fn=lambda x: _seq_keys(x, None))  # fmt: skip
    register_pytree_node(list, as_list, lambda v, _: list(v),
                         flatten_with_keys_fn=lambda x: _seq_keys(x, None))  # fmt: skip

    def dict_keys(x):
        return [(MappingKey(k), v) for k, v in x.items()], list(x)

    register_pytree_node(dict, lambda x: (list(x.values()), list(x)),
                         lambda v, keys: dict(zip(keys, v)), flatten_with_keys_fn=dict_keys)  # fmt: skip
    register_pytree_node(
        namedtuple,  # context: the namedtuple class
        lambda x: (list(x), type(x)),
        lambda v, cls: cls(*v),
        flatten_with_keys_fn=lambda x: (
            [(GetAttrKey(f), v) for f, v in zip(x._fields, x)],
            type(x),
        ),
    )
    register_pytree_node(OrderedDict, lambda x: (list(x.values()), list(x)),
                         lambda v, keys: OrderedDict(zip(keys, v)), flatten_with_keys_fn=dict_keys)  # fmt: skip
    register_pytree_node(
        defaultdict,  # context: [default_factory, keys]
        lambda x: (list(x.values()), [x.default_factory, list(x)]),
        lambda v, ctx: defaultdict(ctx[0], zip(ctx[1], v)),
        flatten_with_keys_fn=lambda x: (dict_keys(x)[0], [x.default_factory, list(x)]),
    )
    register_pytree_node(deque, lambda x: (list(x), x.maxlen),
                         lambda v, maxlen: deque(v, maxlen=maxlen),
                         flatten_with_keys_fn=lambda x: _seq_keys(x, x.maxlen))  # fmt: skip
    # PyTorch registers torch.Size so that shapes can hold traced values; it comes back a tuple.
    register_pytree_node(Size, as_list, lambda v, _: tuple(v),
                         flatten_with_keys_fn=lambda x: _seq_keys(x, None))  # fmt: skip


_register_builtins()
BUILTIN_TYPES = frozenset((tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque))
STANDARD_DICT_TYPES = frozenset((dict, OrderedDict, defaultdict))


# ---- TreeSpec ----


class TreeSpec:
    """A node's registry type, its context (dict keys, namedtuple class, deque maxlen, ...) and
    its children's specs; a leaf has type None. Equal specs describe the same structure."""

    __slots__ = ("_children", "_context", "num_children", "num_leaves", "num_nodes", "type")

    def __init__(self, type, context, children_specs: list) -> None:
        self.type, self._context, self._children = type, context, list(children_specs)
        self.num_nodes = 1 + sum(c.num_nodes for c in self._children)
        self.num_leaves = sum(c.num_leaves for c in self._children)
        self.num_children = len(self._children)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self) -> list:
        return self._children

    def children(self) -> list:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def __eq__(self, other) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type is other.type and self._context == other._context
                and self._children == other._children)  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.type, repr(self._context), tuple(self._children)))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        inner = ""
        if self._children:
            indent += 2
            inner = self._children[0].__repr__(indent) + ("," if self.num_children > 1 else "")
            inner += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return f"TreeSpec({self.type.__name__}, {self._context}, [{inner}])"

    def unflatten(self, leaves: Iterable) -> Any:
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                f"to a pytree that holds {self.num_leaves} items ({self})."
            )
        return self._build(iter(leaves))

    def _build(self, it):
        if self.is_leaf():
            return next(it)
        children = [c._build(it) for c in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)

    def flatten_up_to(self, tree) -> list:
        """``tree``'s subtrees at this spec's leaves; ValueError when ``tree`` lacks this structure."""
        out: list = []
        self._flatten_up_to(tree, out)
        return out

    def _flatten_up_to(self, tree, out: list) -> None:
        if self.is_leaf():
            out.append(tree)
            return
        for spec, child in zip(self._children, self._matching_children(tree)):
            spec._flatten_up_to(child, out)

    def _matching_children(self, tree) -> list:
        node_type = _node_type(tree)
        if self.type not in BUILTIN_TYPES:  # registered types must match exactly
            if node_type != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {node_type!r}.")
            children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
            self._check_arity(len(children))
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
            return children
        both_dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
        if not both_dicts and node_type != self.type:
            raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {node_type!r}.")
        self._check_arity(len(tree))
        if both_dicts:  # any dict kind with the same keys, in any order
            keys = self._context[1] if self.type is defaultdict else self._context
            _check_keys(set(keys), set(tree))
            return [tree[k] for k in keys]
        children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
        if node_type is not deque and context != self._context:
            raise ValueError(
                f"Node context mismatch for node type {self.type!r}; expected {self._context!r}, "
                f"but got {context!r}."
            )
        return children

    def _check_arity(self, got: int) -> None:
        if got != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {got}.")


def _check_keys(expected: set, got: set) -> None:
    if expected != got:
        missing, extra = expected - got, got - expected
        detail = (f"; missing key(s): {missing}" if missing else "") + (
            f"; extra key(s): {extra}" if extra else ""
        )
        raise ValueError(f"Node keys mismatch{detail}.")


class LeafSpec(TreeSpec):
    """The spec of a leaf (prints as ``*``)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(None, None, [])
        self.num_nodes = self.num_leaves = 1


_LEAF_SPEC = LeafSpec()


# ---- flatten / unflatten ----


def _is_leaf(tree, is_leaf: Callable | None) -> bool:
    return (is_leaf is not None and is_leaf(tree)) or _node_type(tree) not in SUPPORTED_NODES


def tree_is_leaf(tree, is_leaf: Callable | None = None) -> bool:
    return _is_leaf(tree, is_leaf)


def tree_flatten(tree, is_leaf: Callable | None = None) -> tuple[list, TreeSpec]:
    """``(leaves, spec)``: leaves in depth-first order (dicts in insertion order)."""
    leaves: list = []
    return leaves, _flatten(tree, is_leaf, leaves)


def _flatten(tree, is_leaf, leaves: list) -> TreeSpec:
    if _is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF_SPEC
    node_type = _node_type(tree)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    return TreeSpec(node_type, context, [_flatten(c, is_leaf, leaves) for c in children])


def tree_unflatten(leaves: Iterable, treespec: TreeSpec) -> Any:
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"Expected `treespec` to be an instance of PyTreeSpec but got item of type {type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf: Callable | None = None):
    if _is_leaf(tree, is_leaf):
        yield tree
        return
    for child in SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf: Callable | None = None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf: Callable | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable, tree, *rests, is_leaf: Callable | None = None):
    """``func`` over the leaves of ``tree`` (and the matching subtrees of ``rests``), same structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(func: Callable, tree, *rests, is_leaf: Callable | None = None):
    """``func`` over the leaves for its side effects; returns ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for args in zip(*flat):
        func(*args)
    return tree


def _type_filter(type_or_types_or_pred) -> Callable[[Any], bool]:
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def map_only(type_or_types_or_pred) -> Callable[[Callable], Callable]:
    """Wrap ``func`` to apply only to leaves that pass the filter, passing the others through."""
    keep = _type_filter(type_or_types_or_pred)

    def wrap(func):
        return lambda x: func(x) if keep(x) else x

    return wrap


def tree_map_only(type_or_types_or_pred, /, func: Callable, tree, is_leaf: Callable | None = None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func: Callable, tree, is_leaf: Callable | None = None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable, tree, is_leaf: Callable | None = None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable, tree, is_leaf: Callable | None = None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred: Callable, tree, is_leaf=None) -> bool:
    keep = _type_filter(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if keep(x))


def tree_any_only(type_or_types, /, pred: Callable, tree, is_leaf=None) -> bool:
    keep = _type_filter(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if keep(x))


# ---- key paths ----


def tree_flatten_with_path(tree, is_leaf: Callable | None = None) -> tuple[list, TreeSpec]:
    """``([(key_path, leaf)], spec)``; a key path is a tuple of SequenceKey/MappingKey/GetAttrKey."""
    spec = tree_structure(tree, is_leaf)
    return list(_paths(tree, is_leaf, ())), spec


def _paths(tree, is_leaf, prefix: tuple):
    if _is_leaf(tree, is_leaf):
        yield prefix, tree
        return
    node_type = _node_type(tree)
    with_keys = SUPPORTED_NODES[node_type].flatten_with_keys_fn
    if with_keys is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. Please pass a "
            "flatten_with_keys_fn argument to register_pytree_node."
        )
    for key, child in with_keys(tree)[0]:
        yield from _paths(child, is_leaf, (*prefix, key))


def tree_leaves_with_path(tree, is_leaf: Callable | None = None) -> list:
    return list(_paths(tree, is_leaf, ()))


def tree_map_with_path(func: Callable, tree, *rests, is_leaf: Callable | None = None):
    """``func(key_path, leaf, *matching_subtrees)`` over the leaves of ``tree``."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    paths, leaves = [p for p, _ in pairs], [v for _, v in pairs]
    flat = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*args) for args in zip(paths, leaves, *flat))


# ---- printing ----


class _Asterisk(str):
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The tree's own repr with ``*`` for each leaf: ``{'a': [*, *], 'b': (*,)}``."""
    if treespec.is_leaf():
        return "*"
    return repr(treespec.unflatten([_Asterisk("*")] * treespec.num_leaves))


def _broadcast_to_and_flatten(tree, treespec: TreeSpec, is_leaf: Callable | None = None):
    """Expand ``tree`` (a prefix of ``treespec``'s structure: each of its leaves stands for a whole
    subtree) to one value per leaf of ``treespec``; None when it is not a prefix."""
    out: list = []
    return out if _broadcast(tree, treespec, is_leaf, out) else None


def _broadcast(tree, spec: TreeSpec, is_leaf, out: list) -> bool:
    if _is_leaf(tree, is_leaf):
        out.extend([tree] * spec.num_leaves)
        return True
    node_type = _node_type(tree)
    if node_type != spec.type:
        return False
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    if len(children) != spec.num_children or context != spec.context:
        return False
    return all(_broadcast(c, s, is_leaf, out) for c, s in zip(children, spec.children()))
