"""Run one snippet of PyTorch code under taimatsu and under PyTorch and compare what it shows.

``same(code)`` executes ``code`` with ``T`` bound to each module (and ``np`` to NumPy); the
value of the last expression is compared by ``repr`` (tensors, dtypes, sizes, tuples...),
and an exception by its type name and message. This keeps hundreds of small behavioural
checks (creation, promotion, errors, reprs) one line each.
"""

from __future__ import annotations

import ast
import traceback

import numpy as np
from snippet_bugs import refuse_test_bug


def run(code: str, module) -> str:
    """Execute ``code``; return the repr of its last expression, or 'ExcType: message'."""
    tree = ast.parse(code)
    env = {"T": module, "np": np}
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        exec(compile(tree, "<snippet>", "exec"), env)
        if last is None:
            return "<no value>"
        value = eval(compile(ast.Expression(last.value), "<snippet>", "eval"), env)
        return _show(value)
    except Exception as e:  # the comparison is the point: any error must match PyTorch's
        if module.__name__ == "torch":
            refuse_test_bug(e, code)
        return f"{type(e).__name__}: {e}"


def _show(value) -> str:
    if isinstance(value, float) and np.isnan(value):
        return "nan"
    return repr(value)


def same(code: str, torch_module, ours) -> None:
    expected = run(code, torch_module)
    got = run(code, ours)
    if expected != got:
        raise AssertionError(f"\ncode:     {code}\npytorch:  {expected}\ntaimatsu: {got}")


def format_exc() -> str:  # pragma: no cover - debugging aid
    return traceback.format_exc()
