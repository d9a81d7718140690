"""``torch.backends.mha``: whether ``MultiheadAttention`` may take PyTorch's inference fast path.

taimatsu computes both paths with the same Tensor ops; the switch decides what differs between
them in PyTorch: on the fast path a query row whose keys are all masked comes out NaN (the
softmax of -inf scores), where the reference path's fused attention gives 0 (see
``MultiheadAttention.forward``). As in PyTorch, any value is stored and its truth read.
"""

from __future__ import annotations

_enabled = True


def get_fastpath_enabled() -> bool:
    """Whether ``MultiheadAttention`` and ``TransformerEncoder`` may use the fast path."""
    return _enabled


def set_fastpath_enabled(value: bool) -> None:
    global _enabled
    _enabled = value
