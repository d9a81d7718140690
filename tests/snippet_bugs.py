"""Tell a broken test snippet from a PyTorch error the snippet means to compare.

The oracle helpers run the same code under PyTorch and under taimatsu and count equal errors as
a match. A snippet with a typo, a missing import or a helper reached through the wrong module
raises the same error under both libraries, so that comparison would pass while checking
nothing. ``refuse_test_bug`` is called on PyTorch's exception: an error that can only come from
the test code fails the test loudly instead of being compared.
"""

from __future__ import annotations

import re
import traceback

# Errors that real PyTorch never raises for a well-formed call in these snippets.
_TEST_BUG_TYPES = (NameError, SyntaxError)

# Python's own messages for misuse of plain objects: a snippet working on a wrong value.
_PLAIN_OBJECT_MISUSE = re.compile(
    r"'NoneType' object|object is not (subscriptable|callable|iterable)"
    r"|unsupported operand type\(s\) for .*'(NoneType|str|list|tuple|dict)'"
)

# An attribute looked up on a plain Python value or on a module other than torch's: the snippet
# reached for a helper in the wrong place or worked on None. A missing attribute on a tensor, a
# module or a torch namespace is PyTorch's own answer, which some snippets check on purpose.
_PLAIN_ATTRIBUTE_ERROR = re.compile(
    r"'(NoneType|int|float|complex|bool|str|bytes|list|tuple|dict|set|function|generator)' "
    r"object has no attribute|^module '(?!torch)[\w.]+' has no attribute"
)


def _raised_in_torch(e: BaseException) -> bool:
    """True when ``e`` passed through the torch package: PyTorch's own error, not the snippet's."""
    return any("/torch/" in f.filename for f in traceback.extract_tb(e.__traceback__))


def is_test_bug(e: BaseException) -> bool:
    """Whether ``e``, raised while running a snippet under PyTorch, means the snippet is broken."""
    if isinstance(e, _TEST_BUG_TYPES):
        return True
    if _raised_in_torch(e):
        return False
    if isinstance(e, ImportError):
        return True
    if isinstance(e, AttributeError):
        return bool(_PLAIN_ATTRIBUTE_ERROR.search(str(e)))
    if isinstance(e, TypeError):
        return bool(_PLAIN_OBJECT_MISUSE.search(str(e)))
    return False


def refuse_test_bug(e: BaseException, code: str = "") -> None:
    """Fail loudly when PyTorch's exception ``e`` comes from the test code, not from PyTorch."""
    if is_test_bug(e):
        shown = f"\n{code}" if code else ""
        raise AssertionError(
            f"the test code is broken (PyTorch raised {type(e).__name__}: {e}); "
            f"an error raised by both libraries here would check nothing{shown}"
        ) from e
