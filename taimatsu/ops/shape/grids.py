"""Grids and index sets: meshgrid, cartesian_prod, combinations, tril/triu_indices and vander.

PyTorch builds cartesian_prod, combinations, meshgrid and vander from other ops, so they are
compositions here too and their graphs carry PyTorch's node names."""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ..._flags import user_stacklevel
from ..._tensor.core import Tensor, _wrap
from .._dispatch import xp_for
from ..arg_types import as_int


# ---- grids and index sets ------------------------------------------------------------------------------
def meshgrid(*tensors, indexing: str | None = None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                + _legacy_repr(t)
            )
    sizes = [t.numel() for t in tensors]
    if indexing == "xy" and len(tensors) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    n = len(tensors)
    out = []
    for i, t in enumerate(tensors):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        view = [1] * n
        view[pos] = -1
        out.append(t.view(view).expand(sizes))
    return tuple(out)


def _legacy_repr(t: Tensor) -> str:
    """PyTorch's C++ tensor print in the meshgrid error (only its shape header is reliable)."""
    rows = np.asarray(t.detach().cpu().numpy())
    body = "\n".join(
        " " + "  ".join(_fmt(v) for v in row.ravel()) for row in rows.reshape(rows.shape[0], -1)
    )
    return f"{body}\n[ {t.type()}{{{','.join(map(str, t.shape))}}} ]"


def _fmt(v) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def cartesian_prod(*tensors) -> Tensor:
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    from .copies import stack

    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    r = as_int("combinations", "r", 2, r, any_dims=False)
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _wrap(xp_for(input).zeros(0, input._dtype.np), input._dtype, input._device)
    n = input._data.shape[0]
    xp = xp_for(input)
    idx = xp.meshgrid(*([xp.arange(n)] * r), indexing="ij")
    mask = xp.ones((n,) * r, bool)
    for a, b in zip(idx[:-1], idx[1:]):
        mask &= (a <= b) if with_replacement else (a < b)
    m = _wrap(mask, D.bool, input._device)
    from .copies import stack

    grids = meshgrid(*([input] * r), indexing="ij")
    return stack([g.masked_select(m) for g in grids], 1)


def _tri_indices(row, col, offset, lower, dtype, device):
    from ..creation.factories import tensor as _tensor

    a = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    dtype = D.int64 if dtype is None else dtype
    return _tensor(np.stack(a).astype(np.int64).reshape(2, -1), dtype=dtype, device=device)


def tril_indices(
    row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None
) -> Tensor:
    row, col, offset = _index_args("tril_indices", row, col, offset)
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(
    row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None
) -> Tensor:
    row, col, offset = _index_args("triu_indices", row, col, offset)
    return _tri_indices(row, col, offset, False, dtype, device)


def _index_args(fn: str, row, col, offset) -> tuple:
    return tuple(
        as_int(fn, name, i + 1, v, any_dims=False)
        for i, (name, v) in enumerate(zip(("row", "col", "offset"), (row, col, offset)))
    )


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else as_int("vander", "N", 2, N, any_dims=False)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x._dtype if x._dtype.category >= D.FLOAT else D.int64
    from ..creation.factories import ones, zeros

    result = zeros((x._data.shape[0], n), dtype=dt, device=x.device)
    if n > 0:
        result[:, 0] = ones((), dtype=dt)
    if n > 1:
        result[:, 1:] = x.to(dt).unsqueeze(1).expand(-1, n - 1).cumprod(1)
    return result if increasing else result.flip(1)
