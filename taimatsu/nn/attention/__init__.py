"""``torch.nn.attention``: which kernels ``scaled_dot_product_attention`` may use.

``sdpa_kernel(backends)`` allows only the given ``SDPBackend`` members inside its ``with`` block
(the switches ``torch.backends.cuda.*_sdp_enabled()`` report) and restores the previous ones
after it. On the CPU, as in PyTorch, ``FLASH_ATTENTION`` is the fused kernel (one
``ScaledDotProductFlashAttentionForCpuBackward0`` node), ``MATH`` the op-by-op composition, and
a call that neither may serve raises "No viable backend for scaled_dot_product_attention was
found...". ``set_priority`` orders the backends PyTorch's CUDA dispatcher tries; on the CPU it
changes nothing (PyTorch's neither). ``EFFICIENT_ATTENTION``, ``CUDNN_ATTENTION`` and
``OVERRIDEABLE`` name CUDA kernels taimatsu does not have: allowing only them leaves no viable
backend. Not here: ``torch.nn.attention.bias`` and ``flex_attention``, ``SDPAParams`` and the
``can_use_*`` queries.
"""

from __future__ import annotations

import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.Enum):
    """The kernels of ``scaled_dot_product_attention`` (PyTorch's values)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_SWITCHES = {
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.MATH: "math",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Allow only ``backends`` (one ``SDPBackend`` or a list) inside the ``with`` block."""
    from ...backends.cuda import _sdp

    if not isinstance(backends, (list, SDPBackend)):  # PyTorch asserts (an AssertionError)
        raise AssertionError(  # noqa: TRY004
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
            f"{type(backends).__name__}"
        )
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    old = dict(_sdp)
    _sdp.update({name: backend in chosen for backend, name in _SWITCHES.items()})
    try:
        yield {}
    finally:
        _sdp.update(old)
