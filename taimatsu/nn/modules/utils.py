"""``torch.nn.modules.utils``: the argument normalisers third-party layers import (``_pair``, ...)
and ``consume_prefix_in_state_dict_if_present``, with PyTorch's behaviour."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[object], tuple]:
    """A parser: any iterable (a str too, as in PyTorch) becomes a tuple, a scalar is repeated n times."""

    def parse(x):
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """``(a, b)`` -> ``(b, b, a, a)`` for n=2: the per-dim padding order ``F.pad`` wants."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults: list):
    """An output size whose ``None`` entries take the input's trailing sizes (adaptive pooling)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip ``prefix`` from the keys that start with it, in place (``module.`` from a DataParallel
    checkpoint, ``_orig_mod.`` from a compiled model's), and from the ``_metadata`` keys likewise."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata.keys()):
        # the root's entry is "" and its children's are "module", "module.fc", ...
        if len(key) == 0:
            continue
        if key == prefix.replace(".", "") or key.startswith(prefix):
            metadata[key[len(prefix) :]] = metadata.pop(key)
