"""Tensor operators given an operand their op refuses: PyTorch returns NotImplemented, so NumPy
arrays (``t + ndarray``), objects with reflected operators and Python's own TypeError text take
over (taimatsu raised "unsupported operand type: X")."""

import warnings

import numpy as np
import pytest

import taimatsu


class Reflected:
    def __radd__(self, o):
        return "radd"

    def __rmul__(self, o):
        return "rmul"

    def __rsub__(self, o):
        return "rsub"

    def __rtruediv__(self, o):
        return "rtruediv"

    def __rpow__(self, o):
        return "rpow"

    def __rmatmul__(self, o):
        return "rmatmul"

    def __ror__(self, o):
        return "ror"

    def __eq__(self, o):
        return "eq"

    __hash__ = object.__hash__


CASES = [
    "t + a", "t * a", "t - a", "t / a", "t + np.array(1.0)", "i + np.array([1, 2])", "a + t", "a * t",
    "t > a", "t == a", "t != a", "t + Reflected()", "t * Reflected()", "t - Reflected()", "t / Reflected()",
    "t ** Reflected()", "t @ Reflected()", "i | Reflected()", "t == Reflected()", "i + [1, 2]", "i * None",
    "t + 'a'", "t == [1.0, 2.0]", "t == None", "t != None", "t < None", "t.clone().__iadd__([1])",
    "t % [1]", "t // Reflected()", "t ** [1]", "i & [1]", "i << [1]", "[1.0] - t", "[1.0] / t",
    "t == np.float64(1.0)", "t + 1", "t * t", "t == 1",
]  # fmt: skip


def _outcome(T, expr):
    env = {"T": T, "np": np, "Reflected": Reflected, "t": T.tensor([1.0, 2.0]),
           "i": T.tensor([1, 2]), "a": np.array([1.0, 2.0])}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's __array_wrap__ deprecation for PyTorch's tensors
        try:
            return "value", repr(eval(expr, env))
        except Exception as e:  # noqa: BLE001  the exception is the result compared
            return type(e).__name__, str(e)


@pytest.mark.parametrize("expr", CASES)
def test_operands_like_pytorch(torch_oracle, expr):
    assert _outcome(taimatsu, expr) == _outcome(torch_oracle, expr)
