"""``default_collate`` and ``default_convert``: turn a list of samples into a batch.

The rules are PyTorch's: tensors are stacked along a new dim 0; NumPy arrays and scalars become
tensors first; Python floats become float64, ints int64 (bools bool); strings are left as a
list; mappings, namedtuples and sequences are collated field by field (a tuple sample gives a
*list* of batches, as in PyTorch).
"""

from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from .... import _dtype as D
from ...._tensor.core import Tensor
from ....ops.creation.factories import as_tensor, tensor
from ....ops.shape.copies import stack
from ....storage import empty_shared

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def default_convert(data):
    """Convert NumPy arrays/scalars (also inside mappings and sequences) to tensors; no batching."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if (
            elem_type.__name__ == "ndarray"
            and np_str_obj_array_pattern.search(data.dtype.str) is not None
        ):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` recursively; ``collate_fn_map`` maps element types to leaf collate functions."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        fields = {
            key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem
        }
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(fields)
                return clone
            return elem_type(fields)
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(
            *(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch))
        )
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        columns = [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        if isinstance(elem, tuple):
            return columns  # a list, for backwards compatibility (as in PyTorch)
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, c in enumerate(columns):
                    clone[i] = c
                return clone
            return elem_type(columns)
        except TypeError:
            return columns
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """``stack(batch)``; in a DataLoader worker, stacked straight into shared memory of the first
    tensor's dtype (as PyTorch's workers do, with the same cast errors), so sending the batch to
    the main process copies nothing more."""
    from .worker import get_worker_info  # worker.py imports this package: import on use

    if get_worker_info() is None or not all(
        isinstance(t, Tensor) and t._device.type == "cpu" for t in batch
    ):
        return stack(batch, 0)
    first = batch[0]
    out = empty_shared((len(batch), *first._data.shape), first._dtype)
    if all(
        t._dtype is first._dtype and t._data.shape == first._data.shape and not t._rg for t in batch
    ):  # nothing for stack to check, cast or record: stack the arrays in place
        np.stack([t._data for t in batch], axis=0, out=out._data)
        return out
    return stack(batch, 0, out=out)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=D.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Collate a list of samples into a batch with PyTorch's default rules (see module doc)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
