"""``immutable_list`` / ``immutable_dict``: the containers a Node's ``args``/``kwargs`` are kept in,
so that changing them goes through ``node.args = ...`` (which keeps ``users`` right)."""

from __future__ import annotations

__all__ = ["immutable_dict", "immutable_list"]

_HELP_MUTATION = (
    "If you are attempting to modify the kwargs or args of a torch.fx.Node object,\n"
    "instead create a new copy of it and assign the copy to the node:\n\n"
    "    new_args = ...  # copy and mutate args\n"
    "    node.args = new_args"
)


def _no_mutation(self, *args, **kwargs):
    raise TypeError(f"{type(self).__name__!r} object does not support mutation. {_HELP_MUTATION}")


class immutable_list(list):
    """A list whose contents cannot change; hashable, like a tuple."""

    for _name in [
        "__delitem__",
        "__iadd__",
        "__imul__",
        "__setitem__",
        "append",
        "clear",
        "extend",
        "insert",
        "pop",
        "remove",
        "reverse",
        "sort",
    ]:
        locals()[_name] = _no_mutation
    del _name

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(self),))


class immutable_dict(dict):
    """A dict whose contents cannot change; hashable."""

    for _name in [
        "__delitem__",
        "__ior__",
        "__setitem__",
        "clear",
        "pop",
        "popitem",
        "setdefault",
        "update",
    ]:
        locals()[_name] = _no_mutation
    del _name

    def __hash__(self) -> int:
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (tuple(self.items()),))
