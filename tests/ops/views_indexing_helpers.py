"""Helpers shared by test_views_indexing.py and test_indexing.py: a snippet is run twice, once
with ``T = torch`` and once with ``T = taimatsu``; the value left in ``out`` is reduced to plain
data (tensor values, dtype, shape, grad_fn names, exception type + message) and must be equal.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from snippet_bugs import refuse_test_bug

import taimatsu

torch = pytest.importorskip("torch")


def _plain(x, lib):
    """Comparable plain data for a result of either library."""
    if isinstance(x, lib.Tensor):
        t = x.detach()
        vals = t.float().numpy() if str(t.dtype).endswith("bfloat16") else t.numpy()
        node = x.grad_fn.name() if x.grad_fn is not None else None
        vals = np.array(vals)
        if vals.dtype.kind == "f":  # the last ulp may differ (summation order, libm)
            vals = np.round(vals.astype(np.float64), 9 if vals.dtype == np.float64 else 5)
        return ("T", vals.tolist(), str(x.dtype), tuple(x.shape), x.requires_grad, node)
    if isinstance(x, (tuple, list)):
        return type(x).__name__, [_plain(i, lib) for i in x]
    if isinstance(x, dict):
        return {k: _plain(v, lib) for k, v in x.items()}
    if type(x).__name__ == "Size" or isinstance(x, lib.Size):
        return ("Size", tuple(x))
    if hasattr(x, "next_functions") and hasattr(x, "name"):
        return ("Node", x.name().replace("torch::autograd::", ""))
    if isinstance(x, lib.dtype):
        return str(x)
    return x


def _run(code: str, lib):
    env = {"T": lib, "np": np, "_cot": _cot, "nodes": nodes}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            exec(code, env)  # noqa: S102 - the snippets are this file's own
            res = _plain(env.get("out"), lib)
        except Exception as e:  # noqa: BLE001 - errors are part of what is compared
            if lib is torch:
                refuse_test_bug(e, code)
            msg = re.sub(r" \(Triggered internally at .*\)", "", str(e))
            res = ("raised", type(e).__name__, msg)
    warns = [
        str(m.message).split(" (Triggered internally")[0]
        for m in w
        if issubclass(m.category, UserWarning)
    ]
    return res, warns


def same(code: str, check_warnings: bool = False):
    expected, ew = _run(code, torch)
    actual, aw = _run(code, taimatsu)
    assert actual == expected, f"\n{code}\n torch:    {expected}\n taimatsu: {actual}"
    if check_warnings:
        assert aw == ew


def _cot(T, n):
    """A cotangent with exactly representable, uneven values (never all ones)."""
    return (T.arange(n, dtype=T.float64) % 5 - 1.5) * 0.75


def nodes(t, depth=3):
    """grad_fn and the names along next_functions, a few levels deep (for snippets)."""
    out, frontier = [], [t.grad_fn]
    for _ in range(depth):
        names, nxt = [], []
        for n in frontier:
            if n is None:
                names.append(None)
                continue
            names.append(n.name().replace("torch::autograd::", ""))
            nxt.extend(f for f, _ in n.next_functions)
        out.append(names)
        frontier = nxt
        if not nxt:
            break
    return out
