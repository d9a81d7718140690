"""Run one snippet of PyTorch code with real PyTorch and with taimatsu; compare what it prints.

A snippet uses the name ``torch`` (bound to either module) and ``np``; what it prints, the
exceptions it raises (type and message) and the warnings it emits (category and message)
make up its transcript. Object addresses are masked. Used by the autograd test files.
"""

import contextlib
import io
import re
import warnings

import numpy as np


def transcript(mod, code: str) -> str:
    buf = io.StringIO()
    env = {"torch": mod, "np": np}
    with contextlib.redirect_stdout(buf), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, env)  # noqa: S102
        except Exception as e:  # noqa: BLE001 - the transcript records it
            print(f"!! {type(e).__name__}: {e}")
    for w in caught:
        if "torch.jit" not in str(w.message):
            buf.write(f"W {w.category.__name__}: {w.message}\n")
    return re.sub(r"0x[0-9a-f]+", "0x?", buf.getvalue())


def assert_same(code: str) -> None:
    import torch

    import taimatsu

    expected = transcript(torch, code)
    got = transcript(taimatsu, code)
    assert got == expected, f"\n--- torch\n{expected}--- taimatsu\n{got}"
