"""How tensors cross process boundaries: through shared memory, never by copying their data.

``init_reductions()`` registers reducers with ``multiprocessing.reduction.ForkingPickler`` -- the
pickler every ``multiprocessing`` queue, pipe, pool and spawned ``Process`` uses -- as PyTorch's
``torch.multiprocessing`` does. Pickling a CPU tensor there first moves its storage into shared
memory (``share_memory_()``), then sends a duplicate of the memory's file descriptor with the
tensor's offset, shape and strides. The receiving process maps the same memory: a write on
either side is seen by the other. Ordinary ``pickle`` (``torch.save``, ``copy.deepcopy``) is
unaffected and still copies.

Within one pickled message, tensors over the same memory travel as one segment (pickle's memo),
so a batch of views costs one descriptor. Gradients are not sent (as in PyTorch); a Parameter
arrives as a Parameter with its ``requires_grad``.

Deviations from PyTorch: CUDA tensors are copied through host memory (no CUDA IPC); a tensor's
storage is rebuilt once per message rather than once per process (two messages carrying the same
tensor give two tensors over the same memory, not one storage object).
"""

from __future__ import annotations

import pickle
from multiprocessing.reduction import DupFd, ForkingPickler

import numpy as np

from .. import _dtype as D
from .._device import cpu
from .._shared_memory import SUPPORTED, Segment, segment_of
from .._tensor.core import Tensor, _address, _wrap
from ..storage import UntypedStorage

_NON_LEAF_MESSAGE = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not "
    "support crossing process boundaries.  If you just want to transfer the data, call detach() "
    "on the tensor before serializing (e.g., putting it on the queue)."
)


def _reduce_segment(segment: Segment):
    return (_rebuild_segment, (DupFd(segment.fd), segment.nbytes))


def _rebuild_segment(dup_fd, nbytes: int) -> Segment:
    return Segment(dup_fd.detach(), nbytes)


def _array_over(segment: Segment, dtype: np.dtype, offset: int, shape, strides) -> np.ndarray:
    return np.ndarray(shape, dtype, buffer=np.asarray(segment), offset=offset, strides=strides)


def reduce_tensor(t: Tensor):
    """``ForkingPickler``'s reducer for ``Tensor`` and ``Parameter``."""
    if t._rg and t._grad_fn is not None:
        raise RuntimeError(_NON_LEAF_MESSAGE)
    if t._device.type == "meta":  # no data: its metadata is the whole tensor
        args = (t._dtype, tuple(t._data.shape), t.stride(), t._rg)
        return (_finish_meta, (type(t), args))
    if t._device.type != "cpu":
        return t.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    if t._storage_array().size == 0:  # no bytes to share: PyTorch's arrive unshared too
        return (_rebuild_empty, (type(t), t._dtype.name, t._data.shape, t._rg))
    t.share_memory_()
    st, data = t._storage_array(), t._data
    segment = segment_of(st)
    base = _address(np.asarray(segment))
    storage = (st.dtype, _address(st) - base, st.shape, st.strides)
    view = (_address(data) - base, data.shape, data.strides)
    return (_rebuild_tensor, (type(t), segment, t._dtype.name, storage, view, t._rg))


def _rebuild_tensor(cls, segment: Segment, dtype_name: str, storage, view, requires_grad: bool):
    dtype = D._dtype_by_name(dtype_name)
    st_dtype, st_offset, st_shape, st_strides = storage
    offset, shape, strides = view
    t = _wrap(_array_over(segment, dtype.np, offset, shape, strides), dtype)
    t._storage = _array_over(segment, st_dtype, st_offset, st_shape, st_strides)
    return _finish(t, cls, requires_grad)


def _finish_meta(cls, args: tuple) -> Tensor:
    from ..serialization._format import rebuild_meta_tensor_no_storage

    dtype, shape, stride, requires_grad = args
    return _finish(rebuild_meta_tensor_no_storage(dtype, shape, stride), cls, requires_grad)


def _rebuild_empty(cls, dtype_name: str, shape, requires_grad: bool):
    dtype = D._dtype_by_name(dtype_name)
    return _finish(_wrap(np.zeros(shape, dtype.np), dtype), cls, requires_grad)


def _finish(t: Tensor, cls, requires_grad: bool) -> Tensor:
    if issubclass(cls, _parameter_class()):
        return cls(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_storage(storage: UntypedStorage):
    """``ForkingPickler``'s reducer for ``UntypedStorage`` (CPU storages go through shared memory)."""
    if storage.device.type != "cpu":
        return (_rebuild_storage_copy, (storage.cpu().tolist(), str(storage.device)))
    storage.share_memory_()
    segment = segment_of(storage._bytes)
    offset = _address(storage._bytes) - _address(np.asarray(segment)) if storage.nbytes() else 0
    return (_rebuild_storage, (segment, offset, storage.nbytes()))


def reduce_typed_storage(storage):
    """``ForkingPickler``'s reducer for ``TypedStorage``: its bytes as ``reduce_storage`` sends
    them (shared memory on the CPU), and its dtype."""
    return (_rebuild_typed_storage, (storage._untyped_storage, storage.dtype))


def _rebuild_typed_storage(untyped: UntypedStorage, dtype):
    from ..typed_storage import TypedStorage

    return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)


def _rebuild_storage(segment: Segment, offset: int, nbytes: int) -> UntypedStorage:
    return UntypedStorage._over(np.asarray(segment)[offset : offset + nbytes], cpu)


def _rebuild_storage_copy(values: list, device: str) -> UntypedStorage:
    return UntypedStorage(values, device=device)


def _parameter_class():
    from ..nn.parameter import Parameter  # nn is built on this layer: import it when needed

    return Parameter


def init_reductions() -> None:
    """Register the reducers above with ``ForkingPickler`` (idempotent; on Windows, which has
    no shared files to pass, tensors keep pickling by copy)."""
    if not SUPPORTED:
        return
    ForkingPickler.register(Segment, _reduce_segment)
    ForkingPickler.register(UntypedStorage, reduce_storage)
    from ..serialization._format import TypedStorage as LoadedStorage
    from ..typed_storage import TypedStorage

    for cls in (TypedStorage, LoadedStorage):
        ForkingPickler.register(cls, reduce_typed_storage)
    for cls in (Tensor, _parameter_class()):
        ForkingPickler.register(cls, reduce_tensor)
