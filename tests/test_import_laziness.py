"""``import taimatsu`` stays light: ml_dtypes (~1 s to import) loads when bfloat16 is first used,
scipy, cupy and mpi4py when something needs them.

Checked through ``sys.modules`` in a fresh interpreter, never by timing.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import taimatsu
from taimatsu import _dtype as D

_PROGRAM = r"""
import io, pickle, sys
import numpy as np
import taimatsu as torch

def loaded():
    return "ml_dtypes" in sys.modules

# modules whose import is slow or has effects, loaded on first use only
print("import", [m for m in ("ml_dtypes", "scipy", "cupy", "mpi4py") if m in sys.modules])
# float32 work, including the kernels that test an array for float16/bfloat16
x = torch.randn(4, 3, requires_grad=True)
y = (torch.sigmoid(x @ x.T) ** 3 + torch.nn.functional.gelu(x).sum()).sum()
y.backward()
print(repr(torch.bfloat16), torch.bfloat16.itemsize, torch.bfloat16.is_floating_point)
print(torch.promote_types(torch.bfloat16, torch.float16), pickle.loads(pickle.dumps(torch.bfloat16)))
print("float32", loaded())
# ml_dtypes imported by the user: its arrays are refused as PyTorch refuses them
import ml_dtypes
try:
    torch.tensor(np.ones(2, ml_dtypes.bfloat16))
except TypeError as e:
    print(str(e).split(". ")[0])
b = x.detach().bfloat16()
print(b.dtype, b.element_size(), torch.finfo(torch.bfloat16).eps)
buf = io.BytesIO()
torch.save({"w": b}, buf)
buf.seek(0)
print(torch.equal(torch.load(buf)["w"], b))
"""


@pytest.mark.slow  # a fresh interpreter imports taimatsu (~1 s, more without bytecode caches)
def test_ml_dtypes_loads_on_first_bfloat16_use():
    out = subprocess.run(
        [sys.executable, "-c", _PROGRAM], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.stdout.splitlines() == [
        "import []",
        "torch.bfloat16 2 True",
        "torch.float32 torch.bfloat16",
        "float32 False",
        "can't convert np.ndarray of type ml_dtypes.bfloat16",
        "torch.bfloat16 2 0.0078125",
        "True",
    ], out.stderr


def test_half_chars_name_the_half_dtypes():
    """Kernels test an array's dtype by its NumPy char (``D.HALF_CHARS``) to need no ml_dtypes."""
    by_char = {d.np.char: d for d in D.all_dtypes}
    assert len(by_char) == len(D.all_dtypes)
    assert [by_char[c] for c in D.HALF_CHARS] == [D.float16, D.bfloat16]
    assert by_char[D.BFLOAT16_CHAR] is D.bfloat16


def test_from_numpy_dtype_refuses_other_ml_dtypes():
    import ml_dtypes

    assert D.from_numpy_dtype(np.dtype(ml_dtypes.bfloat16)) is taimatsu.bfloat16
    with pytest.raises(TypeError, match="can't convert np.ndarray of type ml_dtypes.float8_e4m3fn"):
        D.from_numpy_dtype(np.dtype(ml_dtypes.float8_e4m3fn))
    # a user's array (torch.from_numpy): NumPy's own types only, as in PyTorch
    with pytest.raises(TypeError, match="can't convert np.ndarray of type ml_dtypes.bfloat16"):
        D.from_user_numpy_dtype(np.dtype(ml_dtypes.bfloat16))
