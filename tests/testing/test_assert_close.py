"""torch.testing.assert_close against PyTorch: the same verdicts, exception types and messages
(mismatch counts, greatest differences and their indices, tolerances, item paths)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

CASES = [
    "T.tensor([1., 2., 3.]), T.tensor([1., 2., 3.1])",
    "T.tensor([1, 2, 3]), T.tensor([1, 2, 4])",
    "T.tensor([1., 2.]), T.tensor([1., 2., 3.])",
    "T.tensor([1., 2.]), T.tensor([1., 2.], dtype=T.float64)",
    "T.tensor([1., 2.]), T.tensor([1., 2.], dtype=T.float64), check_dtype=False",
    "1.0, 1.1",
    "1, 2",
    "1.0, 1",
    "T.tensor(1.), 1.0",
    "(1, 2), [1, 2]",
    "None, None",
    "'a', 'a'",
    "[T.tensor(1.), T.tensor(2.)], [T.tensor(1.), T.tensor(2.5)]",
    "{'a': T.tensor(1.)}, {'a': T.tensor(1.5)}",
    "T.tensor([float('nan')]), T.tensor([float('nan')])",
    "T.tensor([float('nan')]), T.tensor([float('nan')]), equal_nan=True",
    "T.tensor([1., 2.]), T.tensor([1., 2.1]), rtol=0.1, atol=0",
    "T.tensor([1., 2.]), T.tensor([1., 2.1]), rtol=0.1",
    "T.tensor([1., 2.]), T.tensor([1., 2.1]), atol=0.01",
    "T.tensor([1., 2.]), T.tensor([1., 2.1]), msg='custom'",
    "T.tensor([1., 2.]), T.tensor([1., 2.1]), msg=lambda m: 'X:' + m[:10]",
    "T.tensor([[1., 2.], [3, 4]]), T.tensor([[1., 2.], [3, 5]])",
    "T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16) * 1.01",
    "T.tensor([1e-3], dtype=T.bfloat16), T.tensor([2e-3], dtype=T.bfloat16)",
    "T.tensor([1+1j]), T.tensor([1+1.1j])",
    "T.tensor([1+1j], dtype=T.complex128), T.tensor([1+1.001j], dtype=T.complex128)",
    "T.tensor([True, False]), T.tensor([True, True])",
    "np.array([1., 2.]), np.array([1., 2.5])",
    "np.array([1., 2.]), np.array([1, 2])",
    "T.tensor([1., 2.]), np.array([1., 2.])",
    "T.tensor([1., 2.]), (1., 2.)",
    "T.ones(2, 2), T.ones(2, 2).t(), check_stride=True",
    "T.ones(3, 2)[::2], T.ones(2, 2), check_stride=True",
    "T.tensor([0., 0.]), T.tensor([0., 1e-6])",
    "T.tensor([1e-10, 0.]), T.tensor([0., 1e-3])",
    "T.tensor([]), T.tensor([])",
    "T.tensor([1., 2.]), T.tensor([1., 2.]).requires_grad_()",
    "T.tensor([1., 2.]), T.tensor([1., float('inf')])",
    "T.tensor(1.5), T.tensor(1.6)",
    "T.tensor([1, 2], dtype=T.uint8), T.tensor([2, 1], dtype=T.uint8)",
    "T.tensor([5, 7]), T.tensor([5, 0])",
    "[1, 2], [1, 2, 3]",
    "{'a': 1}, {'b': 1}",
    "{'a': 1, 'b': 2}, {'b': 2, 'a': 1}",
    "[[T.tensor(1.)], {'x': T.tensor([1., 2.])}], [[T.tensor(1.)], {'x': T.tensor([1., 3.])}]",
    "[1, (2, 3.0)], [1, (2, 3.5)]",
    "T.tensor([1.]), T.tensor([1.]).to_sparse()",
    "True, False",
    "1+1j, 1+2j",
    "5, 5.0, check_dtype=False",
    "5, 5.5, check_dtype=False",
    "T.tensor([1., 2.], dtype=T.float64), T.tensor([1., 2.0000001]), check_dtype=False",
    "T.tensor([1, 2]), T.tensor([1., 2.5]), check_dtype=False",
    "1.0, float('nan')",
    "float('nan'), float('nan')",
    "float('nan'), float('nan'), equal_nan=True",
    "np.float32(1.0), np.float32(1.1)",
    "T.tensor(True), T.tensor(False)",
    "T.tensor(3), T.tensor(4)",
    "T.tensor([1., 2.]), T.tensor([1., 2.1]), rtol=0, atol=0",
    "T.arange(24.).view(2, 3, 4), T.arange(24.).view(2, 3, 4).sqrt()",
]


def _verdict(lib, case: str) -> str:
    env = {"T": lib, "np": np}
    try:
        eval(f"T.testing.assert_close({case})", env)
    except Exception as e:  # noqa: BLE001 - the verdict is compared
        return f"{type(e).__name__}: {e}"
    return "OK"


@pytest.mark.parametrize("case", CASES)
def test_assert_close_matches_pytorch(case):
    assert _verdict(taimatsu, case) == _verdict(torch, case)


def test_assert_allclose_deprecated():
    out = []
    for lib in (torch, taimatsu):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                lib.testing.assert_allclose(lib.ones(1), lib.ones(1) * 2)
            except AssertionError as e:
                verdict = str(e)
            lib.testing.assert_allclose(lib.ones(2), [1.0, 1.00001])
        out.append((verdict, [(x.category, str(x.message)) for x in w]))
    assert out[0] == out[1]
