"""``put`` / ``put_``: write values at flat indices of a tensor (PutBackward0), optionally
accumulating."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import backend as _backend
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend.scatter_at import add_at
from .._dispatch import check_inplace, commit_inplace, needs_input_grad, record, scalar_name, xp_for
from ..shape.diagonal import _tangent


# ---- put -----------------------------------------------------------------------------------------------
def _put_checks(self: Tensor, index: Tensor, source: Tensor) -> np.ndarray:
    if index._dtype is not D.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {scalar_name(index._dtype)}"
        )
    if source._dtype is not self._dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_name(self._dtype)} and source.dtype = {scalar_name(source._dtype)}"
        )
    if index._data.size != source._data.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source._data.size}, index.numel() = {index._data.size}"
        )
    n = self._data.size
    idx = index._data.reshape(-1)
    bad = (idx >= n) | (idx < -n)
    _backend.check(bad.any(), lambda: IndexError(
        f"out of range: tried to access index {int(idx[bad][0])} on a tensor of {n} elements."
    ))  # fmt: skip
    return idx


def _put_array(xp, x, idx, src, accumulate: bool):
    out = x.copy().reshape(-1)
    src = src.reshape(-1)
    if accumulate:
        add_at(xp, out, idx, src)
    else:
        out[idx] = src
    return out.reshape(x.shape)


def _put_vjp(node, g):
    index, source = node.index, node.source_shape
    gs = g.reshape(-1).take(index).reshape(source) if needs_input_grad(node, 1) else None
    gx = None
    if needs_input_grad(node, 0):
        gx = g if node.accumulate else g.put(index, g.new_zeros(index.shape), False)
    return gx, gs


_Put = node_class("PutBackward0", _put_vjp)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    idx = _put_checks(input, index, source)
    xp = xp_for(input)
    r = _wrap(
        _put_array(xp, input._data, xp.asarray(idx), source._data, accumulate),
        input._dtype,
        input._device,
    )
    if (input._rg or source._rg) and _gm.enabled:
        record(
            _Put,
            (input, source),
            r,
            (),
            index=index,
            source_shape=tuple(source._data.shape),
            accumulate=accumulate,
        )
    _tangent(r, (input, source), lambda a, b: put(a, index, b, accumulate))
    return r


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    check_inplace(self, (source,))
    return commit_inplace(self, put(self, index, source, accumulate))
