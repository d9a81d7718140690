"""``torch.functional``: the module where PyTorch defines a group of its ``torch.*`` functions.
Each name here is the very function ``taimatsu.<name>`` is (they are defined with their op
families in ``ops/`` and ``linalg/``)."""

from .linalg.legacy import lu
from .linalg.lowrank import pca_lowrank, svd_lowrank
from .ops.contraction.einsum import einsum, tensordot
from .ops.contraction.matmul import chain_matmul
from .ops.indexing.index_ops import unravel_index
from .ops.reduction.distance import cdist
from .ops.reduction.norms import norm
from .ops.shape.copies import atleast_1d, atleast_2d, atleast_3d
from .ops.shape.diagonal import block_diag
from .ops.shape.grids import cartesian_prod, meshgrid
from .ops.shape.split import split
from .ops.shape.view_ops import broadcast_shapes, broadcast_tensors
from .ops.short_time_fourier import istft, stft
from .ops.sorting.unique import unique, unique_consecutive

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "lu",
    "meshgrid",
    "norm",
    "pca_lowrank",
    "split",
    "stft",
    "svd_lowrank",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]


def _same_as_torch() -> None:
    """The objects ``taimatsu.X`` is (its namespace wraps some functions: _tensor_arguments.py),
    so that ``torch.functional.X is torch.X`` holds as in PyTorch."""
    import sys

    torch = sys.modules[__name__.rpartition(".")[0]]
    for name in __all__:
        if hasattr(torch, name):
            globals()[name] = getattr(torch, name)


_same_as_torch()
