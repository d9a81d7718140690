"""``torch.backends.cudnn``: cuDNN switches.

taimatsu runs convolutions through NumPy/CuPy GEMMs, never cuDNN, so ``is_available()`` is False
and ``version()`` None, as on PyTorch's CPU wheel. ``enabled``, ``benchmark``, ``deterministic``,
``allow_tf32``, ``benchmark_limit`` and ``fp32_precision`` are stored and read back with PyTorch's
defaults and type checks, and change no result.
"""

from __future__ import annotations

import sys

from ._flag_module import FlagModule, set_flags

enabled = True
benchmark = False
benchmark_limit = None  # PyTorch reads None back without cuDNN
deterministic = False
allow_tf32 = True
fp32_precision = "none"
depthwise_kernel = "auto"


def is_available() -> bool:
    """False: cuDNN is never used by taimatsu."""
    return False


def version():
    """None: no cuDNN library is loaded (PyTorch's answer without cuDNN)."""
    return


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would take ``tensor``: never, here."""
    return False


def flags(
    enabled=False,
    benchmark=False,
    benchmark_limit=10,
    deterministic=False,
    allow_tf32=True,
    fp32_precision="none",
    depthwise_kernel="auto",
):
    """Set every flag for the ``with`` block (PyTorch's defaults for those not given), then
    restore the previous values."""
    return set_flags(
        sys.modules[__name__], enabled=enabled, benchmark=benchmark,
        benchmark_limit=benchmark_limit, deterministic=deterministic, allow_tf32=allow_tf32,
        fp32_precision=fp32_precision, depthwise_kernel=depthwise_kernel,
    )  # fmt: skip


class CudnnModule(FlagModule):
    _bool_flags = {  # noqa: RUF012
        "enabled": "set_enabled_cudnn",
        "benchmark": "set_benchmark_cudnn",
        "deterministic": "set_deterministic_cudnn",
        "allow_tf32": "set_allow_tf32_cudnn",
    }


sys.modules[__name__].__class__ = CudnnModule
