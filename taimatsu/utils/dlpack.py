"""``torch.utils.dlpack``: zero-copy exchange with NumPy, PyTorch, CuPy, JAX... through DLPack.

A taimatsu tensor *is* a NumPy (or CuPy) array, so exporting hands out the array's own DLPack
capsule and importing asks NumPy (or CuPy) to read the producer's capsule: no bytes are copied
either way, and a write through one side shows on the other. A CUDA tensor reports
``(kDLCUDA=2, device index)``; a producer or a bare capsule on a GPU is imported by CuPy onto
that GPU (``torch.from_dlpack(cupy_array)``, ``cupy.from_dlpack(tensor)``, PyTorch CUDA tensors).

Deviation: NumPy's DLPack speaks only bool, integer, float and complex dtypes, so bfloat16 tensors
can neither be exported nor imported here (PyTorch can); a ``BufferError`` says so.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor.core import Tensor, _wrap

__all__ = ["from_dlpack", "to_dlpack"]

_KDL_CPU, _KDL_CUDA = 1, 2


def dlpack(tensor: Tensor, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a DLPack capsule over the tensor's memory."""
    if tensor.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if tensor._dtype is D.bfloat16:
        raise BufferError(
            "taimatsu cannot export bfloat16 tensors through DLPack (NumPy's DLPack has no bfloat16)"
        )
    kwargs = {}
    if stream is not None:
        kwargs["stream"] = stream
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    return tensor._data.__dlpack__(**kwargs)


def dlpack_device(tensor: Tensor) -> tuple:
    """``Tensor.__dlpack_device__``: ``(1, 0)`` on the CPU, ``(2, index)`` on CUDA."""
    if tensor._device.type == "cuda":
        return (_KDL_CUDA, tensor._device.index or 0)
    return (_KDL_CPU, 0)


def to_dlpack(tensor: Tensor):
    """A DLPack capsule sharing ``tensor``'s memory (consume it once, e.g. with ``np.from_dlpack``)."""
    return tensor.__dlpack__()


def _capsule_device(capsule) -> tuple[int, int]:
    """The (device type, device id) a DLPack capsule's tensor lives on, read from the struct it
    points to: DLTensor starts with the data pointer, then DLDevice's two int32s. A legacy
    "dltensor" capsule holds a DLManagedTensor (DLTensor first); a "dltensor_versioned" one a
    DLManagedTensorVersioned (version, manager_ctx, deleter, flags: 32 bytes, then DLTensor)."""
    import ctypes

    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = get_name(capsule)
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise BufferError(f"not an unconsumed DLPack capsule (its name is {name!r})")
    start = get_pointer(capsule, name) + (0 if name == b"dltensor" else 32)
    kind, index = (ctypes.c_int32 * 2).from_address(start + ctypes.sizeof(ctypes.c_void_p))
    return int(kind), int(index)


class _Capsule:
    """Lets NumPy/CuPy read a bare (legacy) DLPack capsule: they only accept producer objects."""

    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def _writable(array: np.ndarray) -> np.ndarray:
    """NumPy marks arrays from legacy (unversioned) capsules read-only; DLPack before 1.0 had no
    read-only flag and PyTorch writes through them, so give back a writable array over the same memory."""
    if array.flags.writeable:
        return array
    return np.asarray(_Writable(array))


class _Writable:
    """Holds the imported array alive and re-exposes its memory as writable."""

    def __init__(self, array):
        self.owner = array
        self.__array_interface__ = dict(
            array.__array_interface__, data=(array.__array_interface__["data"][0], False)
        )


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor sharing the memory of ``ext_tensor`` (any object with ``__dlpack__``, or a capsule)."""
    if isinstance(ext_tensor, Tensor):
        t = _wrap(ext_tensor._data, ext_tensor._dtype, ext_tensor._device)
        t._storage = ext_tensor._storage
        return t
    if not hasattr(ext_tensor, "__dlpack__"):  # a bare capsule (to_dlpack): its own device
        dev_type, dev_id = _capsule_device(ext_tensor)
        if dev_type != _KDL_CUDA:
            array = _writable(np.from_dlpack(_Capsule(ext_tensor, (_KDL_CPU, 0))))
            return _wrap(array, D.from_numpy_dtype(array.dtype))
        producer = _Capsule(ext_tensor, (dev_type, dev_id))
    else:
        dev_type, dev_id = ext_tensor.__dlpack_device__()
        producer = ext_tensor
    if int(dev_type) == _KDL_CUDA:
        from .._device import device
        from ..backend import cupy

        cp = cupy()
        with cp.cuda.Device(int(dev_id)):
            array = cp.from_dlpack(producer)
        return _wrap(array, D.from_numpy_dtype(array.dtype), device("cuda", int(dev_id)))
    if int(dev_type) != _KDL_CPU:
        raise BufferError(f"taimatsu cannot import DLPack tensors of device type {int(dev_type)}")
    try:
        array = np.from_dlpack(producer)
    except TypeError:  # producers that predate the max_version/copy keywords
        array = np.from_dlpack(_Capsule(producer.__dlpack__(), (_KDL_CPU, 0)))
    return _wrap(array, D.from_numpy_dtype(array.dtype))
