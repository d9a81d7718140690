"""``torch.backends.mkl``: whether PyTorch was built with MKL (True on its x86 CPU wheel). taimatsu
calls whatever BLAS NumPy links; ``verbose`` is accepted and prints nothing."""

from __future__ import annotations

import contextlib

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    return True


@contextlib.contextmanager
def verbose(enable: int):
    """MKL's verbose mode: accepted, no trace is printed here."""
    yield
