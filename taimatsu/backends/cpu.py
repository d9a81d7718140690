"""``torch.backends.cpu``: the SIMD level PyTorch's CPU kernels would dispatch to on this machine."""

from __future__ import annotations

import os

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """ "AVX512", "AVX2" or "DEFAULT" (x86), read from NumPy's CPU feature detection and capped by
    ``ATEN_CPU_CAPABILITY`` as in PyTorch; other architectures answer "DEFAULT"."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as feats
    if all(feats.get(f) for f in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ", "FMA3")):
        level = "AVX512"
    elif feats.get("AVX2") and feats.get("FMA3"):
        level = "AVX2"
    else:
        level = "DEFAULT"
    order = ("DEFAULT", "AVX2", "AVX512")
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if cap in order and order.index(cap) < order.index(level):
        level = cap
    return level
