"""The one place that imports mpi4py, and the bridge from tensors to MPI buffers.

mpi4py is imported on first use (``init_process_group``), so ``import taimatsu`` never starts
MPI. While a TCP world is up (ranks started without MPI, see ``_tcp.py``), ``mpi()`` returns
the TCP transport, which has the same names, instead. Tensors travel as raw bytes through the buffer protocol (never pickled): a C-contiguous
CPU tensor is handed to MPI in place; any other tensor (non-contiguous, or on a GPU) goes
through a contiguous host copy that is written back into the tensor's own memory afterwards.
"""

from __future__ import annotations

import numpy as np

_MPI = None
_transport = None  # the TCP transport module while a TCP world is up


def use(transport) -> None:
    """Make ``mpi()`` return ``transport`` (the ``_tcp`` module), or MPI again when None."""
    global _transport
    _transport = transport


def mpi():
    """The ``mpi4py.MPI`` module, imported (and MPI initialised) on first call; the TCP
    transport instead while a TCP world is up."""
    global _MPI
    if _transport is not None:
        return _transport
    if _MPI is None:
        import mpi4py

        # Threads are never needed; asking for less keeps MPICH's fast paths.
        mpi4py.rc.thread_level = "single"
        from mpi4py import MPI

        _MPI = MPI
    return _MPI


def available() -> bool:
    """True when mpi4py can be imported (without initialising MPI)."""
    if _MPI is not None:
        return True
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


# ---- tensors as host buffers -------------------------------------------------------------


def host_array(t) -> np.ndarray:
    """``t``'s elements as a C-contiguous NumPy array: ``t``'s own memory when it can be."""
    data = t._data
    if t._device.type != "cpu":
        return np.ascontiguousarray(data.get())
    if data.flags.c_contiguous:
        return data
    return np.ascontiguousarray(data)


def shares_memory(t, arr: np.ndarray) -> bool:
    return t._device.type == "cpu" and t._data is arr


def write_back(t, arr: np.ndarray) -> None:
    """Store ``arr`` into ``t``'s memory (a no-op when ``arr`` is that memory); bump its version."""
    if not shares_memory(t, arr):
        if t._device.type == "cpu":
            t._data[...] = arr.reshape(t._data.shape)
        else:
            from ..backend import cupy

            t._data[...] = cupy().asarray(arr.reshape(t._data.shape))
    t._vc[0] += 1


def as_bytes(arr: np.ndarray) -> np.ndarray:
    """A flat uint8 view of a C-contiguous array (works for every dtype, bfloat16 included)."""
    return arr.reshape(-1).view(np.uint8)
