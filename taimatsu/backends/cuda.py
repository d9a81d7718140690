"""``torch.backends.cuda``: cuBLAS and attention-kernel switches.

``matmul.allow_tf32`` is the float32 matmul precision of ``torch.set_float32_matmul_precision``
seen from cuBLAS, as in PyTorch: True for "high" / "medium"; setting it True picks "high", False
"highest". It and ``allow_fp16_reduced_precision_reduction`` / ``allow_bf16_...`` are stored and
read back with PyTorch's defaults and checks; taimatsu's matmuls (NumPy, CuPy) always compute
float32 in full precision, so they change no result. The scaled-dot-product-attention backend
switches are stored likewise: taimatsu has one attention implementation, the math one.
"""

from __future__ import annotations

import contextlib
import importlib.util
import warnings

from .. import _flags

__all__ = [
    "cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp",
    "enable_mem_efficient_sdp", "flash_sdp_enabled", "is_built", "is_flash_attention_available",
    "math_sdp_enabled", "matmul", "mem_efficient_sdp_enabled", "sdp_kernel",
]  # fmt: skip


def is_built() -> bool:
    """Whether CUDA support is installed: for taimatsu, whether CuPy can be imported (PyTorch's CPU
    wheel answers False)."""
    return importlib.util.find_spec("cupy") is not None


class cuBLASModule:
    """``torch.backends.cuda.matmul``: unknown attributes raise PyTorch's AttributeError."""

    _reduction = {  # noqa: RUF012
        "allow_fp16_reduced_precision_reduction": True,
        "allow_bf16_reduced_precision_reduction": True,
    }

    def __getattr__(self, name: str):
        if name == "allow_tf32":
            return _flags.get_float32_matmul_precision() != "highest"
        if name == "fp32_precision":
            return "none" if _flags.get_float32_matmul_precision() == "highest" else "tf32"
        if name in self._reduction:
            return self._reduction[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value) -> None:
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(
                    f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}"
                )
            _flags.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._reduction:
            if not isinstance(value, (bool, tuple, list)):
                raise TypeError(
                    f"{name} expects a bool or a tuple/list of bools, but got {type(value)}"
                )
            # PyTorch's tuple form is (allow_reduced_precision, allow_splitk); the first is read back
            self._reduction[name] = value if isinstance(value, bool) else bool(value[0])
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = enabled


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = enabled


def math_sdp_enabled() -> bool:
    return _sdp["math"]


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = enabled


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"] = enabled


def is_flash_attention_available() -> bool:
    """False: taimatsu has no flash-attention kernel (PyTorch's CPU wheel says the same)."""
    return False


@contextlib.contextmanager
def sdp_kernel(
    enable_flash: bool = True,
    enable_math: bool = True,
    enable_mem_efficient: bool = True,
    enable_cudnn: bool = True,
):
    """Deprecated in PyTorch (FutureWarning): set the four attention-backend switches for the
    ``with`` block and restore them after; yields ``{}`` as PyTorch does."""
    warnings.warn(
        "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
        "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context "
        "manager, with updated signature.",
        FutureWarning,
        stacklevel=3,
    )
    old = dict(_sdp)
    _sdp.update(
        flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn
    )
    try:
        yield {}
    finally:
        _sdp.update(old)
