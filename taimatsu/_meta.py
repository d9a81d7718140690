"""The meta device: tensors with a shape, dtype and strides, and no data.

A meta tensor's array lies over anonymous memory that is mapped but never reserved
(``MAP_NORESERVE``): until something writes to it, every page is the kernel's shared zero page,
so a meta tensor of any size costs address space only. NumPy sees an ordinary array, so shapes,
strides and views (slicing, ``t()``, ``view``) behave exactly as for a CPU tensor.

What matches PyTorch: factories (``empty``, ``zeros``, ``ones``, ``full``, ``rand``, ``randn``, ...
and their ``_like`` forms, ``device="meta"`` or ``with torch.device("meta")``), ``to("meta")``,
modules built on the meta device and ``Module.to_empty``, random in-place initialisation being
a no-op there (and drawing nothing from the generator), ``is_meta``, ``data_ptr() == 0``, the
repr ``tensor(..., device='meta', size=(2, 3))``, and PyTorch's errors when data is asked for
(``item``, ``tolist``, ``numpy``, ``cpu``).

What differs: other ops are run for real on the (zero) data, so they give meta tensors of the
right shape, dtype and strides, but take the time and memory of the real computation (PyTorch
only infers shapes); writing into a meta tensor (``fill_``, ``copy_``, ...) touches the pages
it writes.
"""

from __future__ import annotations

import math
import mmap
import sys

import numpy as np

from ._shared_memory import SUPPORTED, Mapping

NO_DATA = "Cannot copy out of meta tensor; no data!"
# Python's mmap module names it from 3.13 on; Linux's value (other systems: no such flag, and
# the mapping is reserved as any other).
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000 if sys.platform == "linux" else 0)


class ZeroPages(Mapping):
    """An anonymous private mapping of ``nbytes`` (zero pages, none reserved until written)."""

    __slots__ = ()

    def __init__(self, nbytes: int) -> None:
        super().__init__(nbytes, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE)


def meta_array(shape: tuple, dtype: np.dtype, order=None) -> np.ndarray:
    """An array of ``shape`` and ``dtype`` over zero pages; ``order`` (axes, outermost first)
    lays it out like a non-contiguous dense tensor, as ``to("meta")`` of one keeps its strides."""
    dtype = np.dtype(dtype)
    shape = tuple(int(n) for n in shape)
    if not SUPPORTED:  # no mmap(2): plain zeros (lazily zeroed by the allocator)
        return np.zeros(shape, dtype)
    flat = np.asarray(ZeroPages(math.prod(shape) * dtype.itemsize)).view(dtype)
    if order is None:
        return flat.reshape(shape)
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return flat.reshape([shape[i] for i in order]).transpose(inverse)


def to_meta(array) -> np.ndarray:
    """A meta array shaped and laid out like ``array`` (dense layouts keep their strides)."""
    order = None
    if array.ndim > 1 and not array.flags.c_contiguous and array.size:
        axes = sorted(range(array.ndim), key=lambda i: (-array.strides[i], -i))
        expect = array.itemsize
        for i in reversed(axes):
            if array.shape[i] != 1 and array.strides[i] != expect:
                break
            expect *= array.shape[i]
        else:
            order = axes
    return meta_array(array.shape, array.dtype, order)


def meta_repr(shape: tuple, dtype_name: str, default_dtype_name: str, tail: tuple) -> str:
    """PyTorch's repr of a meta tensor: no values, the size always, the dtype unless default."""
    from ._tensor.printing import _add_suffixes

    suffixes = ["device='meta'", f"size={tuple(shape)}"]
    if dtype_name != default_dtype_name:
        suffixes.append(f"dtype=torch.{dtype_name}")
    return _add_suffixes("tensor(...", [*suffixes, *tail], len("tensor("))
