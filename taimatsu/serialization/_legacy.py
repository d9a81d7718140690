"""Files that are not zip checkpoints: PyTorch's pre-1.6 format (both directions), plain pickles
and garbage.

PyTorch sends every such file through its legacy readers, and so does taimatsu, step by step, so
that whatever the file holds the outcome is PyTorch's: a real file at offset 0 is first tried as
the (pre-0.4) tar format (refused here, with PyTorch's error under ``weights_only``), then the
stream is unpickled (by the weights-only unpickler when ``weights_only``) expecting the legacy
magic number: ``Invalid magic number; corrupt file?`` for a plain pickle, the unpickler's own
error for bytes that are not a pickle, ``EOFError`` for an empty file.

A genuine legacy checkpoint (``torch.save(..., _use_new_zipfile_serialization=False)``, or
PyTorch < 1.6) is read: magic number, protocol version, system info, the object pickle (whose
storages are ``('storage', type, key, location, numel, view)`` ids), the sorted storage keys, then
each storage's bytes after its element count. Storages are allocated when the pickle names them
and filled once the pickle ends (the bytes come after it); so they load to the CPU only.

``save_legacy`` writes that format as PyTorch 2.x does (``torch.save(...,
_use_new_zipfile_serialization=False)``): the same pickles (the object pickle written as the zip
format's ``data.pkl`` is, its storage ids carrying a sixth field, ``None``: PyTorch 2.x never writes
a storage view), then the storages in sorted key order. PyTorch's keys are storage addresses, so its
files differ run to run; taimatsu's keys are the storages' first-seen indices ("0", "1", ...): the
same object gives the same bytes. Storage bytes are little-endian on every host, and the system info
says so.
"""

from __future__ import annotations

import io
import pickle
import tarfile

import numpy as np

from ._format import STORAGE_NAMES, UNTYPED_STORAGE_TYPE, Pickler, storage_bytes

LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL_VERSION = 1001
# PyTorch's C type sizes are the standard ones of ``struct`` ('=h', '=i', '=l'), not the host's
_TYPE_SIZES = {"short": 2, "int": 4, "long": 4}


def save_legacy(obj, write, protocol: int) -> None:
    """Write ``obj`` in PyTorch's legacy format through ``write`` (every pickle is built first, so
    a pickling error writes nothing)."""
    pickler = _LegacyPickler(io.BytesIO(), protocol)
    pickler.dump(obj)
    refs = {ref.key: ref for ref in pickler.storages.values()}
    keys = sorted(refs)
    sys_info = {"protocol_version": LEGACY_PROTOCOL_VERSION, "little_endian": True,
                "type_sizes": dict(_TYPE_SIZES)}  # fmt: skip
    for header in (LEGACY_MAGIC_NUMBER, LEGACY_PROTOCOL_VERSION, sys_info):
        write(pickle.dumps(header, protocol))
    write(pickler.getvalue())
    write(pickle.dumps([_fresh(k) for k in keys], protocol))
    for key in keys:
        data = storage_bytes(refs[key])
        write(_record_numel(refs[key], data.size).to_bytes(8, "little"))
        write(data)


def _record_numel(ref, nbytes: int) -> int:
    # dtypes without a legacy storage class (uint16/32/64) are byte storages: counted in bytes
    return nbytes // ref.dtype.itemsize if ref.dtype.name in STORAGE_NAMES else nbytes


def _fresh(key: str) -> str:
    # A new string object each time, as PyTorch's keys are: the pickle memo must not turn the
    # second mention of a key into a back-reference, or the bytes would differ from PyTorch's.
    return str(int(key))


class _LegacyPickler(Pickler):
    """The zip format's pickler with legacy storage ids: ``(..., numel, None)``, fresh keys."""

    def __init__(self, file, protocol: int):
        super().__init__(file, protocol)
        self._file = file

    def getvalue(self) -> bytes:
        return self._file.getvalue()

    def persistent_id(self, obj):
        pid = super().persistent_id(obj)
        if pid is None:
            return None
        kind, storage_type, key, location, numel = pid
        return (kind, storage_type, _fresh(key), location, numel, None)


def load_legacy(f, unsafe_message: str, unpickle_one, unpickler, restore):
    """PyTorch's legacy-format load of the non-zip file ``f``, or its error.

    ``unpickle_one(f)`` reads one pickle as PyTorch would (the weights-only unpickler or the
    user's pickle module), ``unpickler(f, persistent_load)`` makes the object's unpickler,
    ``restore(storage, location)`` applies ``map_location``. ``unsafe_message`` is set exactly
    when ``weights_only`` (PyTorch's text for the tar refusal).
    """
    if _is_real_file(f) and f.tell() == 0 and _is_tar(f):
        if unsafe_message:
            raise RuntimeError(
                "Cannot use ``weights_only=True`` with files saved in the legacy .tar format. "
                + unsafe_message
            )
        raise RuntimeError(
            "this is a legacy .tar checkpoint (PyTorch < 0.4), which taimatsu.load cannot read: load it with "
            "PyTorch and save it again with torch.save to convert it"
        )
    if unpickle_one(f) != LEGACY_MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = unpickle_one(f)
    if version != LEGACY_PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    unpickle_one(f)  # system info (byte order, C type sizes): read and ignored, as PyTorch does
    storages = _LegacyStorages(restore, _remaining(f))
    result = unpickler(f, storages.persistent_load).load()
    storages.fill(f, unpickle_one(f))
    return result


class _LegacyStorages:
    """Storages named by the object pickle, filled from the records that follow it."""

    def __init__(self, restore, budget: int):
        self.restore, self.budget = restore, budget
        self.roots: dict = {}
        self.views: dict = {}

    def persistent_load(self, pid):
        from ._format import StorageType

        kind = _ascii(pid[0]) if isinstance(pid, tuple) and pid else pid
        if (
            kind == "module" and len(pid) == 4
        ):  # a pickled nn.Module class (its source is not checked)
            return pid[1]
        if kind != "storage" or len(pid) != 6:
            raise RuntimeError(f"Unknown saved id type: {kind}")
        _, storage_type, key, location, numel, view = pid
        if not isinstance(storage_type, StorageType) or type(numel) is not int or numel < 0:
            raise RuntimeError(f"invalid storage record id {pid!r}")
        if storage_type is UNTYPED_STORAGE_TYPE:
            # PyTorch 2.x writes uint16/32/64 tensors this way but its reader asks the storage
            # class for a dtype it lacks: such files load nowhere, and here neither
            raise AttributeError(
                "type object 'torch.storage.UntypedStorage' has no attribute 'dtype'"
            )
        dtype = storage_type.dtype
        if key not in self.roots:
            self.roots[key] = self._allocate(dtype, numel, _ascii(location))
        root = self.roots[key]
        if view is None:
            return root
        view_key, offset, size = view
        if view_key not in self.views:
            from ._format import TypedStorage

            isz = dtype.itemsize
            part = root._untyped_storage._bytes[offset * isz : (offset + size) * isz]
            self.views[view_key] = TypedStorage(
                type(root._untyped_storage)._over(part, root.device), dtype
            )
        return self.views[view_key]

    def _allocate(self, dtype, numel: int, location: str):
        from .._device import cpu
        from ..storage import UntypedStorage
        from ._format import TypedStorage

        nbytes = numel * dtype.itemsize
        if nbytes > self.budget:  # PyTorch would allocate it; a lying file gets no huge allocation
            raise RuntimeError(
                f"the checkpoint declares a storage of {nbytes} bytes but holds only {self.budget} more: "
                "the file is corrupted or truncated"
            )
        self.budget -= nbytes
        storage = self.restore(UntypedStorage._over(np.zeros(nbytes, np.uint8), cpu), location)
        if storage.device.type not in ("cpu", "meta"):
            raise RuntimeError(
                "taimatsu.load reads legacy-format checkpoints to the CPU (or meta) only: pass map_location='cpu' "
                "and move the tensors afterwards"
            )
        return TypedStorage(storage, dtype)

    def fill(self, f, keys) -> None:
        for key in keys:
            if key not in self.roots:
                raise AssertionError(f"storage key {key!r} not found in deserialized_objects")
            storage = self.roots[key]
            target = memoryview(storage._untyped_storage._bytes)
            expected = target.nbytes // storage.dtype.itemsize
            count = int.from_bytes(_read_exactly(f, 8), "little")
            if count != expected:
                raise RuntimeError(f"storage has wrong byte size: expected {expected} got {count}")
            if storage.device.type == "meta":  # no memory to fill: read past the bytes
                _read_into(f, memoryview(bytearray(min(target.nbytes, _CHUNK))), target.nbytes)
            else:
                _read_into(f, target)


def _read_exactly(f, n: int) -> bytes:
    data = f.read(n)
    if len(data) < n:
        raise _eof(n - len(data))
    return data


_CHUNK = 1 << 20


def _read_into(f, target: memoryview, nbytes: int | None = None) -> None:
    """Fill ``target`` from ``f``; with ``nbytes``, read that many bytes through ``target`` (a
    scratch buffer, reused) and keep none."""
    total = target.nbytes if nbytes is None else nbytes
    done = 0
    while done < total:
        window = target[done:] if nbytes is None else target[: min(target.nbytes, total - done)]
        got = f.readinto(window)
        if not got:
            raise _eof(total - done)
        done += got


def _eof(missing: int) -> RuntimeError:
    return RuntimeError(
        f"unexpected EOF, expected {missing} more bytes. The file might be corrupted."
    )


def _remaining(f) -> int:
    here = f.tell()
    end = f.seek(0, 2)
    f.seek(here)
    return end - here


def _ascii(x):
    return x.decode("ascii") if isinstance(x, bytes) else x


def _is_real_file(f) -> bool:
    # PyTorch tries the tar reader only on files backed by a descriptor (not BytesIO)
    try:
        return f.fileno() >= 0
    except (io.UnsupportedOperation, AttributeError):
        return False


def _is_tar(f) -> bool:
    try:
        tarfile.open(fileobj=f, mode="r:", format=tarfile.PAX_FORMAT).close()
    except tarfile.TarError:
        return False
    finally:
        f.seek(0)
    return True
