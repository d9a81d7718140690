"""Helpers shared by test_random_backend.py and test_random_backend_math.py: the module under test,
its dtypes, and byte-exact comparison.
"""

from __future__ import annotations

import importlib.util
import pathlib

import ml_dtypes
import numpy as np


def _load_module():
    """The module under test, imported without the rest of the package if that is not ready."""
    try:
        from taimatsu.backend import random as module
    except Exception:  # noqa: BLE001 - any failure of the package import: fall back to the file
        path = pathlib.Path(__file__).parents[2] / "taimatsu" / "backend" / "random.py"
        spec = importlib.util.spec_from_file_location("taimatsu_backend_random", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


R = _load_module()
CPUGenerator = R.CPUGenerator
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16), BF16]
INTS = [np.dtype(t) for t in (np.int64, np.int32, np.int16, np.int8, np.uint8)]


def assert_same(mine: np.ndarray, theirs: np.ndarray) -> None:
    """Same dtype, shape and bytes (so -0.0, NaN payloads and the last bit all count)."""
    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
    a = np.ascontiguousarray(mine).reshape(-1).view(np.uint8)
    b = np.ascontiguousarray(theirs).reshape(-1).view(np.uint8)
    diff = np.count_nonzero(a != b)
    assert diff == 0, f"{diff} bytes differ: {mine.reshape(-1)[:4]} vs {theirs.reshape(-1)[:4]}"
