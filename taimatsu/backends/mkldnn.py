"""``torch.backends.mkldnn``: oneDNN switches.

``is_available()`` is True as on PyTorch's x86 CPU wheel (it tells whether PyTorch was built with
oneDNN; taimatsu's CPU kernels are NumPy's). ``enabled`` / ``deterministic`` / ``allow_tf32`` /
``fp32_precision`` are stored and read back with PyTorch's defaults and change no result.
"""

from __future__ import annotations

import sys
import warnings

from ._flag_module import FlagModule, set_flags

enabled = True
deterministic = False
allow_tf32 = None  # PyTorch's CPU wheel reads this back as None until it is set
fp32_precision = "none"


def is_available() -> bool:
    return True


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Set the flags for the ``with`` block, then restore the previous values."""
    return set_flags(
        sys.modules[__name__], enabled=enabled, deterministic=deterministic,
        allow_tf32=allow_tf32, fp32_precision=fp32_precision,
    )  # fmt: skip


class MkldnnModule(FlagModule):
    _bool_flags = {  # noqa: RUF012
        "enabled": "set_enabled_mkldnn",
        "deterministic": "set_deterministic_mkldnn",
    }

    def __setattr__(self, name: str, value) -> None:
        # PyTorch's CPU wheel warns on every allow_tf32 it is given (flags() too) and keeps
        # reading None: oneDNN's TF32 is for Intel GPUs only.
        if name == "allow_tf32":
            if value is not None:
                warnings.warn(_TF32_WARNING, UserWarning, stacklevel=2)
            return
        super().__setattr__(name, value)


_TF32_WARNING = (
    "TF32 acceleration on top of oneDNN is available for Intel GPUs. The current Torch version "
    "does not have Intel GPU Support. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:265.)"
)


sys.modules[__name__].__class__ = MkldnnModule
