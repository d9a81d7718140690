"""Run one snippet of PyTorch code under taimatsu and under PyTorch and compare what it shows.

``same(code)`` executes ``code`` with ``T`` bound to each module (and ``np`` to NumPy); the
value of the last expression is compared by ``repr`` (tensors, dtypes, sizes, tuples...) and,
for floating tensors, by value to a few ulps (a repr shows 4 decimals), and an exception by its
type name and message; an error PyTorch raises only because the snippet is broken fails the test. This keeps hundreds of small behavioural
checks (creation, promotion, errors, reprs) one line each.
"""

from __future__ import annotations

import ast
import traceback

import numpy as np
from snippet_bugs import refuse_test_bug


def run(code: str, module) -> tuple[str, list]:
    """Execute ``code``; return the repr of its last expression (or 'ExcType: message') and
    the float values of the tensors in it."""
    tree = ast.parse(code)
    env = {"T": module, "np": np}
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        exec(compile(tree, "<snippet>", "exec"), env)
        if last is None:
            return "<no value>", []
        value = eval(compile(ast.Expression(last.value), "<snippet>", "eval"), env)
        return _show(value), _values(value)
    except Exception as e:  # the comparison is the point: any error must match PyTorch's
        if module.__name__ == "torch":
            refuse_test_bug(e, code)
        return f"{type(e).__name__}: {e}", []


def _show(value) -> str:
    if isinstance(value, float) and np.isnan(value):
        return "nan"
    return repr(value)


# A tensor's repr shows 4 decimals, which would hide a wrong value in the fifth digit: float
# values are compared too, to a few ulps of their dtype (another summation order, libm).
_RTOL = {"float64": 1e-12, "complex128": 1e-12, "float32": 1e-6, "complex64": 1e-6}


def _values(value) -> list:
    """(dtype, values) of each floating tensor in ``value`` (a tensor, or a tuple/list of them)."""
    if isinstance(value, (tuple, list)):
        return [v for x in value for v in _values(x)]
    dtype = str(getattr(value, "dtype", "")).split(".")[-1]
    if isinstance(value, type) or dtype not in _RTOL or not hasattr(value, "grad_fn"):
        return []
    return [(dtype, np.asarray(value.detach().tolist()))]


def same(code: str, torch_module, ours) -> None:
    (expected, want), (got, have) = run(code, torch_module), run(code, ours)
    if expected != got:
        raise AssertionError(f"\ncode:     {code}\npytorch:  {expected}\ntaimatsu: {got}")
    for (dtype, a), (_, b) in zip(have, want, strict=True):
        rtol = _RTOL[dtype]
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True, err_msg=code)


def format_exc() -> str:  # pragma: no cover - debugging aid
    return traceback.format_exc()
