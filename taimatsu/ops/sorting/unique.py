"""unique and unique_consecutive: the distinct values of a tensor (sorted), with inverse indices
and counts.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import record
from ..on_host import on_host
from .sort import _no_complex_kernel


# ---- unique ----------------------------------------------------------------------------------------------
def _unique_vjp(node, g):
    raise NotImplementedError(f"the derivative for '{node.op}' is not implemented.")


_Unique2 = node_class("Unique2Backward0", _unique_vjp)
_UniqueDim = node_class("UniqueDimBackward0", _unique_vjp)
_UniqueConsecutive = node_class("UniqueConsecutiveBackward0", _unique_vjp)


def _unique_out(input, out, inverse, counts, return_inverse, return_counts, node, op, dim=0):
    """The results; the values laid out as PyTorch's: along ``dim`` the slowest (its kernel
    builds them with ``dim`` moved first, then moves it back)."""
    dev = input._device
    out = np.moveaxis(np.ascontiguousarray(np.moveaxis(out, dim, 0)), 0, dim) if out.ndim else out
    u = _wrap(out, input._dtype, dev)
    if input._rg and _gm.enabled:
        record(node, (input,), u, (), op=op)
    res = [u]
    if return_inverse:
        res.append(_wrap(np.asarray(inverse, np.int64), D.int64, dev))
    if return_counts:
        res.append(_wrap(np.asarray(counts, np.int64), D.int64, dev))
    return res[0] if len(res) == 1 else tuple(res)


@on_host  # sized by the data: computed on the host
def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim=None,
):
    """``torch.unique``: the result is sorted whatever ``sorted`` says (as PyTorch's CPU kernel)."""
    _no_complex_kernel("unique" if dim is None else "unique_dim", input)
    a = input._data
    if dim is None:
        # every NaN is its own value (NaN != NaN), as in PyTorch's sorted CPU kernel
        u, inv, cnt = np.unique(
            a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
        )
        return _unique_out(
            input, u, inv.reshape(a.shape), cnt, return_inverse, return_counts, _Unique2, "_unique2"
        )
    d = _wrapdim(dim, a.ndim)
    if a.shape[d] == 0 or a.size == 0:
        u, inv, cnt = a.copy(), np.zeros(a.shape[d], np.int64), np.zeros(0, np.int64)
    else:
        u, inv, cnt = np.unique(a, axis=d, return_inverse=True, return_counts=True)
    return _unique_out(
        input, u, inv.reshape(-1), cnt, return_inverse, return_counts, _UniqueDim, "unique_dim", d
    )


@on_host  # sized by the data: computed on the host
def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    _no_complex_kernel("unique" if dim is None else "unique_dim", input)
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        new = np.ones(flat.shape, bool)
        new[1:] = flat[1:] != flat[:-1]
        u, shape = flat[new], a.shape
    else:
        d = _wrapdim(dim, a.ndim)
        m = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
        new = np.ones(a.shape[d], bool)
        new[1:] = (m[1:] != m[:-1]).any(1)
        u, shape = np.compress(new, a, axis=d), (a.shape[d],)
    inv = (np.cumsum(new) - 1).reshape(shape)
    cnt = np.diff(np.append(np.nonzero(new)[0], new.size))
    return _unique_out(input, u, inv, cnt, return_inverse, return_counts, _UniqueConsecutive,
                       "unique_consecutive", 0 if dim is None else d)  # fmt: skip
