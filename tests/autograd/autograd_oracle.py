"""Run one snippet of PyTorch code with real PyTorch and with taimatsu; compare what it prints.

A snippet uses the name ``torch`` (bound to either module) and ``np``; what it prints, the
exceptions it raises (type and message) and the warnings it emits (category and message)
make up its transcript. Object addresses are masked. Used by the autograd test files.
"""

import ast
import contextlib
import io
import re
import traceback
import warnings

import numpy as np
from snippet_bugs import refuse_test_bug

# Printed tensors show this many decimals (PyTorch's default, 4, would hide a wrong gradient
# in the fifth digit); both libraries print with it. A snippet whose float32 values legitimately
# differ in the last bit (another summation order) lowers it with a line
# "# print precision N: why".
PRECISION = 6
_OWN_PRECISION = re.compile(r"^# print precision (\d+): \S", re.MULTILINE)


def transcript(mod, code: str) -> str:
    buf = io.StringIO()
    env = {"torch": mod, "np": np}
    own = _OWN_PRECISION.search(code)
    mod.set_printoptions(precision=int(own.group(1)) if own else PRECISION)
    with (
        contextlib.redirect_stdout(buf),
        warnings.catch_warnings(record=True) as caught,
        contextlib.ExitStack() as restore,
    ):
        restore.callback(mod.set_printoptions, profile="default")
        warnings.simplefilter("always")
        try:
            exec(compile(code, "<snippet>", "exec"), env)  # noqa: S102
        except Exception as e:  # noqa: BLE001 - the transcript records it
            if mod.__name__ == "torch":
                refuse_test_bug(e, code)
                _refuse_early_exit(e, code)
            print(f"!! {type(e).__name__}: {e}")
    for w in caught:
        if "torch.jit" not in str(w.message):
            buf.write(f"W {w.category.__name__}: {w.message}\n")
    return re.sub(r"0x[0-9a-f]+", "0x?", buf.getvalue())


def _refuse_early_exit(e: BaseException, code: str) -> None:
    """An error escaping before the snippet's last statement leaves the rest unchecked."""
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == "<snippet>"]
    last = ast.parse(code).body[-1].lineno
    if lines and lines[0] < last:
        raise AssertionError(
            f"PyTorch raised {type(e).__name__} at line {lines[0]} of the snippet, so the lines "
            f"after it (to {last}) never run: catch it where it is raised\n{code}"
        ) from e


def assert_same(code: str) -> None:
    import torch

    import taimatsu

    expected = transcript(torch, code)
    got = transcript(taimatsu, code)
    assert got == expected, f"\n--- torch\n{expected}--- taimatsu\n{got}"
