"""Shared memory segments: the memory of ``share_memory_()`` tensors, passed between processes.

A segment is an anonymous shared file (``memfd_create`` on Linux; elsewhere a temporary file
unlinked at once) mapped ``MAP_SHARED`` into this process. It has no name anywhere, so nothing
can be left behind in ``/dev/shm``: the kernel frees the memory when the last descriptor and the
last mapping of it are gone, whichever process holds them. This is PyTorch's default
``file_descriptor`` sharing strategy: another process receives a duplicate of the descriptor
(through ``multiprocessing``'s descriptor passing) and maps the same memory.

The mapping is made with ``mmap(2)`` through ctypes rather than Python's ``mmap`` module, which
would keep a second descriptor open for every segment (PyTorch keeps one per storage, and a
DataLoader epoch can hold many).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import tempfile

import numpy as np

SUPPORTED = sys.platform != "win32"  # POSIX shared files and mmap(2)
if SUPPORTED:
    _libc = ctypes.CDLL(None, use_errno=True)
    _libc.mmap.restype = ctypes.c_void_p
    _libc.mmap.argtypes = (
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long,
    )  # fmt: skip
    _libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_MAP_FAILED = ctypes.c_void_p(-1).value


def map_memory(length: int, flags: int, fd: int) -> int:
    """``mmap(2)`` of ``length`` readable and writable bytes; the address (OSError on failure)."""
    if not SUPPORTED:
        raise RuntimeError("taimatsu's shared memory needs a POSIX system (not Windows)")
    addr = _libc.mmap(None, length, mmap.PROT_READ | mmap.PROT_WRITE, flags, fd, 0)
    if addr is None or addr == _MAP_FAILED:
        err = ctypes.get_errno()
        raise OSError(err, f"could not map {length} bytes of memory: {os.strerror(err)}")
    return addr


def unmap_memory(addr: int, length: int) -> None:
    _libc.munmap(addr, length)


class Mapping:
    """``nbytes`` of mmap(2)ed memory seen by NumPy as bytes (``np.asarray(mapping)``); the arrays
    over it keep it alive, and it is unmapped when the last of them goes."""

    __slots__ = ("__weakref__", "_addr", "nbytes")

    def __init__(self, nbytes: int, flags: int, fd: int = -1) -> None:
        self._addr, self.nbytes = None, nbytes
        self._addr = map_memory(max(nbytes, 1), flags, fd)  # mmap(2) maps none of 0 bytes

    @property
    def __array_interface__(self) -> dict:
        return {
            "data": (self._addr, False),
            "shape": (self.nbytes,),
            "typestr": "|u1",
            "version": 3,
        }

    def __del__(self) -> None:
        if self._addr is not None:
            unmap_memory(self._addr, max(self.nbytes, 1))
            self._addr = None


class Segment(Mapping):
    """One mapping of a shared file; NumPy arrays over it keep it (and its descriptor) alive."""

    __slots__ = ("fd",)

    def __init__(self, fd: int, nbytes: int) -> None:
        self.fd = fd
        try:
            super().__init__(nbytes, mmap.MAP_SHARED, fd)
        except BaseException:
            os.close(fd)
            raise

    def __del__(self) -> None:
        if self._addr is not None:
            super().__del__()
            os.close(self.fd)


def _anonymous_file(nbytes: int) -> int:
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("taimatsu", os.MFD_CLOEXEC)
    else:  # no memfd: a file in the shared-memory folder, unlinked before anyone can see it
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        fd, path = tempfile.mkstemp(prefix="taimatsu_", dir=folder)
        os.unlink(path)
    try:
        os.ftruncate(fd, max(nbytes, 1))
    except OSError:
        os.close(fd)
        raise
    return fd


def allocate(nbytes: int) -> np.ndarray:
    """``nbytes`` of new zeroed shared memory, as a 1-d ``uint8`` array."""
    return np.asarray(Segment(_anonymous_file(nbytes), nbytes))


def map_descriptor(fd: int, nbytes: int) -> np.ndarray:
    """The shared memory behind a received descriptor (now owned by the returned array)."""
    return np.asarray(Segment(fd, nbytes))


def segment_of(array) -> Segment | None:
    """The segment an array's memory lies in, or None for private memory.

    NumPy points a view's ``base`` at the array or object that owns the memory; ``as_strided``
    puts a helper object with its own ``base`` in between, so the chain is followed through any
    object that has one.
    """
    base = getattr(array, "base", None)
    while base is not None and not isinstance(base, Segment):
        base = getattr(base, "base", None)
    return base
