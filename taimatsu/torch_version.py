"""``torch.torch_version``: ``TorchVersion``, the type of ``torch.__version__``.

A ``str`` (it prints, splits and hashes as the text) whose ``<``, ``<=``, ``==``, ``>=``, ``>``
compare as PEP 440 versions, against strings (``torch.__version__ >= "2.0"``), tuples or lists
(``(2, 1)`` reads as ``"2.1"``) and ``packaging`` ``Version`` objects. As in PyTorch, text that
is not a version (``"parrot"``) falls back to comparing strings, an operand of another type
(an int, a float) is a TypeError, and ``!=`` stays ``str``'s: ``TorchVersion("2.1") != "2.1.0"``
is True although ``==`` says they are equal. ``packaging`` is not needed: the parsing and the
ordering (epoch, release, pre-, post- and dev-releases, local labels) are PEP 440's, here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["TorchVersion"]

_PATTERN = re.compile(
    r"""v?(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?:-(?P<post_n1>[0-9]+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc"}
_PRE["rc"] = "rc"
_INF, _NEG_INF = float("inf"), float("-inf")


class _NotAVersion(ValueError):
    pass


def _key(text: str) -> tuple:
    """PEP 440's sort key of a version string (``_NotAVersion`` if it is not one)."""
    m = _PATTERN.fullmatch(text.strip())
    if m is None:
        raise _NotAVersion(text)
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 2.1 == 2.1.0
        release.pop()
    post = m["post_n1"] or (m["post_n2"] or "0" if m["post_l"] else None)
    dev = int(m["dev_n"] or 0) if m["dev_l"] else None
    if m["pre_l"]:
        pre = (("a", "b", "rc").index(_PRE[m["pre_l"].lower()]), int(m["pre_n"] or 0))
    elif dev is not None and post is None:
        pre = (_NEG_INF,)  # 1.0.dev0 sorts before 1.0a0
    else:
        pre = (_INF,)
    local = ()
    if m["local"]:  # numeric parts above alphanumeric ones, which compare as lowercase text
        parts = re.split(r"[-_.]", m["local"].lower())
        local = tuple((int(p), "") if p.isdigit() else (_NEG_INF, p) for p in parts)
    return (
        int(m["epoch"] or 0),
        tuple(release),
        pre,
        _NEG_INF if post is None else int(post),
        _INF if dev is None else dev,
        local,
    )


def _as_text(other) -> str:
    if isinstance(other, str):
        return other
    if type(other).__name__ == "Version" and hasattr(other, "release"):  # packaging's Version
        return str(other)
    if isinstance(other, Iterable):
        return ".".join(str(part) for part in other)
    raise _NotAVersion(other)


class TorchVersion(str):
    """A version string that compares as a version; see the module's docstring."""

    __slots__ = ()

    def _compare(self, other, method: str) -> bool:
        try:
            mine, theirs = _key(self), _key(_as_text(other))
        except _NotAVersion:
            return getattr(str, method)(self, other)  # NotImplemented for non-strings: TypeError
        return getattr(tuple, method)(mine, theirs)

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    __hash__ = str.__hash__
