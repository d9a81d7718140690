"""``torch.utils._pytree`` against PyTorch: leaves, TreeSpec reprs and pprint, unflatten, tree_map
over several trees (and its structure-mismatch errors), key paths, registered node types, on
taimatsu's own containers (Size, return types) as well as Python's."""

from __future__ import annotations

from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest

import taimatsu
from taimatsu.utils import _pytree as ours

torch = pytest.importorskip("torch")
theirs = pytest.importorskip("torch.utils._pytree")
pytestmark = pytest.mark.oracle

Point = namedtuple("Point", "x y")
Other = namedtuple("Other", "x y")


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return (type(e).__name__, str(e).replace("taimatsu", "torch"))


def to_oracle(x):
    """The same value with taimatsu objects swapped for PyTorch's (tensors, Size, return types)."""
    if isinstance(x, taimatsu.Tensor):
        return torch.from_numpy(x.numpy().copy())
    if isinstance(x, taimatsu.Size):
        return torch.Size(x)
    if type(x).__module__ == "torch.return_types":
        return getattr(torch.return_types, type(x).__name__)([to_oracle(v) for v in x])
    if type(x) in (list, tuple):
        return type(x)(to_oracle(v) for v in x)
    if isinstance(x, Point):
        return Point(*map(to_oracle, x))
    if isinstance(x, defaultdict):
        return defaultdict(x.default_factory, {k: to_oracle(v) for k, v in x.items()})
    if isinstance(x, dict):
        return type(x)((k, to_oracle(v)) for k, v in x.items())
    if isinstance(x, deque):
        return deque(map(to_oracle, x), maxlen=x.maxlen)
    return x


def shown(x) -> str:
    """Values compared across the frameworks as text (tensors print identically)."""
    return repr(x).replace("taimatsu.", "torch.")


TREES = [
    lambda: 1,
    lambda: None,
    lambda: (),
    list,
    dict,
    lambda: ((),),
    lambda: (1, 2),
    lambda: [1, (2, 3), [None, "s"]],
    lambda: {"b": 1, "a": [2, {"c": 3}], 0: (4,)},
    lambda: Point(1, (2, 3)),
    lambda: OrderedDict(z=1, a=[2]),
    lambda: defaultdict(list, {"k": 1, "j": (2,)}),
    lambda: deque([1, [2]], maxlen=3),
    lambda: deque([1]),
    lambda: taimatsu.Size([2, 3]),
    lambda: {"shape": taimatsu.Size([4]), "w": taimatsu.ones(2)},
    lambda: taimatsu.max(taimatsu.tensor([[1.0, 3.0], [2.0, 0.0]]), 0),
    lambda: taimatsu.linalg.svd(taimatsu.eye(2)),
    lambda: [taimatsu.zeros(1), Point(taimatsu.ones(1), {"n": 2.5})],
]


@pytest.mark.parametrize("make", TREES)
def test_flatten_spec_unflatten(make):
    tree = make()
    leaves, spec = ours.tree_flatten(tree)
    t_leaves, t_spec = theirs.tree_flatten(to_oracle(tree))
    assert shown(leaves) == shown(t_leaves)
    assert repr(spec) == repr(t_spec) and str(spec) == str(t_spec)
    assert ours.treespec_pprint(spec) == theirs.treespec_pprint(t_spec)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children, spec.is_leaf()) == (
        t_spec.num_leaves, t_spec.num_nodes, t_spec.num_children, t_spec.is_leaf())  # fmt: skip
    back, t_back = ours.tree_unflatten(leaves, spec), theirs.tree_unflatten(t_leaves, t_spec)
    assert shown(back) == shown(t_back) and type(back).__name__ == type(t_back).__name__
    assert shown(ours.tree_leaves(tree)) == shown(theirs.tree_leaves(to_oracle(tree)))
    assert repr(ours.tree_structure(tree)) == repr(theirs.tree_structure(to_oracle(tree)))
    paths = [(ours.keystr(p), shown(v)) for p, v in ours.tree_flatten_with_path(tree)[0]]
    t_paths = [(theirs.keystr(p), shown(v)) for p, v in theirs.tree_flatten_with_path(to_oracle(tree))[0]]  # fmt: skip
    assert paths == t_paths


@pytest.mark.parametrize(
    "program",
    [
        lambda P: P.tree_map(lambda x: x * 2, [1, (2, 3), {"a": 4}]),
        lambda P: P.tree_map(lambda a, b: (a, b), [1, (2, 3)], [10, (20, 30)]),
        lambda P: P.tree_map(lambda a, b: (a, b), [1, 2], [[10, 11], 20]),
        lambda P: P.tree_map(lambda a, b: (a, b), 5, [1]),
        lambda P: P.tree_map(lambda a, b: (a, b), [1], 5),
        lambda P: P.tree_map(lambda a, b: a, [1, (2, 3)], [10, [20, 30]]),
        lambda P: P.tree_map(lambda a, b: a, [1, 2], [1]),
        lambda P: P.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}),
        lambda P: P.tree_map(lambda a, b: (a, b), {"a": 1, "b": 2}, {"b": 3, "a": 4}),
        lambda P: P.tree_map(lambda a, b: (a, b), {"a": 1}, OrderedDict(a=2)),
        lambda P: P.tree_map(lambda a, b: (a, b), defaultdict(int, a=1), {"a": 2}),
        lambda P: P.tree_map(lambda a, b: a, {"a": 1, "b": 2}, {"c": 1, "b": 2}),
        lambda P: P.tree_map(lambda a, b: a, (1, 2), Point(1, 2)),
        lambda P: P.tree_map(lambda a, b: a, Point(1, 2), Other(1, 2)),
        lambda P: P.tree_map(lambda a, b: a, deque([1], maxlen=2), deque([1], maxlen=3)),
        lambda P: P.tree_map(lambda x: x + 1, (1, 2), is_leaf=lambda x: x == (1, 2)),
        lambda P: P.tree_map(
            lambda x: len(x), [(1, 2), [3]], is_leaf=lambda x: isinstance(x, tuple)
        ),
        lambda P: P.tree_map_only(int, lambda x: x * 10, [1, 2.0, (3, "s"), True]),
        lambda P: P.tree_map_only((int, str), lambda x: x * 2, [1, 2.0, (3, "s")]),
        lambda P: P.tree_map_only(int | str, lambda x: -1, [1, "a", 2.0]),
        lambda P: P.tree_map_only(lambda x: isinstance(x, int) and x > 1, lambda x: -x, [1, 2, 3]),
        lambda P: P.tree_all(lambda x: x > 0, [1, (2, 3)]),
        lambda P: P.tree_any(lambda x: x > 2, [1, (2, 3)]),
        lambda P: P.tree_all_only(int, lambda x: x > 0, [1, -2.0]),
        lambda P: P.tree_any_only(float, lambda x: x < 0, [1, -2.0]),
        lambda P: (P.tree_is_leaf([1]), P.tree_is_leaf(1), P.tree_is_leaf([1], is_leaf=bool)),
        lambda P: list(P.tree_iter([1, (2, {"a": 3})])),
        lambda P: P.tree_map_with_path(lambda p, x: P.keystr(p), [1, {"a": Point(2, 3)}]),
        lambda P: P.tree_unflatten([1, 2], P.tree_structure([1, (2, 3)])),
        lambda P: P.tree_unflatten((7, 8, 9), P.tree_structure([1, (2, 3)])),
        lambda P: P.tree_unflatten([1, 2], [1]),
        lambda P: P.tree_structure({"a": [1, 2], "b": 3}).unflatten([7, 8, 9]),
        lambda P: P.tree_structure({"a": [1, 2], "b": 3}).flatten_up_to({"a": [1, 2], "b": (3, 4)}),
        lambda P: P.tree_structure((1, 2)) == P.tree_structure((3, 4)),
        lambda P: P.tree_structure((1, 2)) == P.tree_structure([3, 4]),
        lambda P: P.tree_structure({"a": 1, "b": 2}) == P.tree_structure({"b": 1, "a": 2}),
        lambda P: P.tree_structure(1) == P.tree_structure(None) == P.LeafSpec(),
        lambda P: repr(P.TreeSpec(tuple, None, [P.LeafSpec(), P.tree_structure([1])])),
        lambda P: P.tree_structure([[1], 2]).child(0).unflatten([5]),
        lambda P: [repr(c) for c in P.tree_structure([[1], 2]).children()],
        lambda P: P.register_pytree_node(list, lambda x: (x, None), lambda v, c: list(v)),
    ],
)
def test_functions(program):
    assert outcome(lambda: program(ours)) == outcome(lambda: program(theirs))


def _make_registered(P):
    """A registered class (a fresh one per framework: each registry holds its own)."""

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __repr__(self) -> str:
            return f"Pair({self.a!r}, {self.b!r})"

    P.register_pytree_node(
        Pair,
        lambda p: ([p.a, p.b], "tag" if isinstance(p.a, str) else None),
        lambda values, ctx: Pair(*values),
        flatten_with_keys_fn=lambda p: (
            [(P.GetAttrKey("a"), p.a), (P.GetAttrKey("b"), p.b)],
            "tag" if isinstance(p.a, str) else None,
        ),
    )
    return Pair


def test_register_pytree_node():
    def program(P):
        Pair = _make_registered(P)
        tree = {"p": Pair(1, [2, Pair(3, 4)])}
        leaves, spec = P.tree_flatten(tree)
        second = outcome(lambda: P.register_pytree_node(Pair, None, None))
        paths = [P.keystr(p) for p, _ in P.tree_flatten_with_path(tree)[0]]
        mapped = P.tree_map(lambda x: x * 10, tree)
        same_ctx = repr(P.tree_map(lambda a, b: (a, b), Pair("x", 1), Pair("y", 2)))
        mismatch = outcome(lambda: P.tree_map(lambda a, b: a, Pair("x", 1), Pair(0, 1)))
        wrong_type = outcome(lambda: P.tree_map(lambda a, b: a, Pair(1, 2), (1, 2)))
        return (leaves, repr(spec).replace(".Pair", ""), second[0], paths, repr(mapped),
                P.treespec_pprint(P.tree_structure(Pair(1, 2))), same_ctx, mismatch,
                wrong_type[0])  # fmt: skip

    assert outcome(lambda: program(ours)) == outcome(lambda: program(theirs))


def test_size_comes_back_a_tuple():
    """PyTorch registers Size as a node rebuilt as a tuple: tree_map turns a shape into a tuple."""
    got = ours.tree_map(lambda x: x + 1, taimatsu.Size([1, 2]))
    want = theirs.tree_map(lambda x: x + 1, torch.Size([1, 2]))
    assert (type(got), got) == (type(want), want) == (tuple, (2, 3))
    mismatch = outcome(lambda: ours.tree_map(lambda a, b: a, taimatsu.Size([1, 2]), (1, 2)))
    # taimatsu's Size class lives in taimatsu._size (its repr says so); the texts agree otherwise
    mismatch = (mismatch[0], mismatch[1].replace("torch._size.Size", "torch.Size"))
    assert mismatch == outcome(lambda: theirs.tree_map(lambda a, b: a, torch.Size([1, 2]), (1, 2)))


def test_func_transforms_share_the_module():
    """torch.func's transforms flatten with this module (one TreeSpec class, one registry)."""
    from taimatsu.func import _autodiff, _vmap

    assert (
        _vmap.tree_flatten is ours.tree_flatten and _autodiff.tree_unflatten is ours.tree_unflatten
    )
    assert taimatsu.utils._pytree is ours
