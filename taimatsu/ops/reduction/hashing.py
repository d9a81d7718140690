"""``torch.hash_tensor``: a tensor's elements (or its rows along ``dim``) hashed to uint64.

Mode 0, PyTorch's only one: each element widened to its 64-bit type (floats to float64, bool
and integers to int64), its bits read as uint64, and those xor-ed together. Complex tensors and
uint16/32/64 raise PyTorch's "not implemented" error; an empty tensor needs a ``dim``, and a
reduced dim must not be empty (PyTorch's errors).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor, _wrap
from .._dispatch import scalar_name, takes_out, xp_for
from .reduce import reduce_dims


@takes_out("hash_tensor", "Expected result to be of dtype uint64, but got {out}")
def hash_tensor(input: Tensor, dim=None, *, keepdim: bool = False, mode: int = 0) -> Tensor:
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input._dtype.category == D.COMPLEX or input._dtype in D._SHELL_UINTS:
        raise NotImplementedError(
            f"\"xor_sum_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    a = input._data
    whole = dim is None or (isinstance(dim, (tuple, list)) and not dim)
    if whole and a.size == 0:
        raise RuntimeError(
            "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    dims = reduce_dims(dim, a.ndim)
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    xp = xp_for(input)
    wide = np.float64 if input._dtype.category == D.FLOAT else np.int64
    bits = xp.asarray(a, wide).view(np.uint64)
    r = _xor_reduce(xp, bits, dims, keepdim) if dims else bits.copy()
    return _wrap(xp.asarray(r, np.uint64), D.uint64, input._device)


def _xor_reduce(xp, bits, dims: tuple, keepdim: bool):
    """``bitwise_xor.reduce`` over ``dims``: NumPy's ufunc method, or on CuPy (whose ufuncs
    reduce only by add and multiply) halving the moved-to-the-end axis pairwise: xor is
    associative and commutative, so any order gives the same bits."""
    if xp is np:
        return np.bitwise_xor.reduce(bits, axis=dims, keepdims=keepdim)
    kept = [i for i in range(bits.ndim) if i not in dims]
    flat = xp.ascontiguousarray(bits.transpose(*kept, *dims)).reshape(
        [bits.shape[i] for i in kept] + [-1]
    )
    while flat.shape[-1] > 1:
        half = flat.shape[-1] // 2
        top = flat[..., half : 2 * half] ^ flat[..., :half]
        flat = top if flat.shape[-1] % 2 == 0 else xp.concatenate([top, flat[..., -1:]], -1)
    r = flat[..., 0]
    if keepdim:
        r = r.reshape([1 if i in dims else s for i, s in enumerate(bits.shape)])
    return r
