"""``torch.save`` / ``torch.load`` in PyTorch's zip checkpoint format, both directions, and its
pre-1.6 legacy format (``_use_new_zipfile_serialization=False``, ``_legacy``), both directions.

Files written here load in PyTorch and vice versa: the same records (``data.pkl``, ``data/<key>``,
``version``, ``byteorder``, ...), the same pickled names, 64-byte aligned storage records.

Differences from PyTorch, on purpose:

- Saving to a regular file is atomic (``_path_writer``): a failed or killed save leaves the
  previous checkpoint intact and no temporary behind; devices and FIFOs are written through.
  Saving to a file object first builds the pickle in memory, so a pickling error writes nothing.
- Legacy (pre-1.6, non-zip) checkpoints load to the CPU (or ``map_location="meta"``) only
  (``_legacy``); the pre-0.4 tar format is refused. Other non-zip files get PyTorch's errors from the
  same steps. Legacy files are written with the storages' indices as keys (PyTorch: addresses),
  so saving one object twice gives the same bytes.
- Compressed zip records are refused (PyTorch never writes them; they could expand without bound).
- A loaded storage that is not inside a tensor comes back as a ``torch.TypedStorage`` (of a
  subclass whose loader-side accessors give no deprecation warning).

This module also keeps the plain-pickle support of tensors (``copy.deepcopy``, multiprocessing).
"""

from __future__ import annotations

import io
import os
import pickle
import secrets
import warnings

import numpy as np

from ._format import (
    STORAGE_TYPES,
    Pickler,
    StorageType,
    TypedStorage,
    UntypedStorage,
    allowed_globals,
    storage_bytes,
)
from ._legacy import load_legacy, save_legacy
from ._path_writer import write_to_path
from ._weights_only import Unpickler as _WeightsOnlyUnpickler
from ._weights_only import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._zip import ZipReader, ZipWriter, not_found

__all__ = [
    "UntypedStorage",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]

DEFAULT_PROTOCOL = 2

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


# ---- save ---------------------------------------------------------------------------------------------
def save(obj, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:  # fmt: skip
    """``torch.save``: write ``obj`` to a path or a binary file object in PyTorch's zip format, or
    its pre-1.6 legacy format with ``_use_new_zipfile_serialization=False`` (``_legacy``)."""
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )
    if not _use_new_zipfile_serialization:
        _save_legacy(obj, f, pickle_protocol)
        return
    data_pkl, storages = _pickle(obj, pickle_protocol)
    if _is_path(f):
        path = os.fspath(f)
        archive = os.path.splitext(os.path.basename(path))[0]
        write_to_path(
            path,
            lambda out: _write_archive(
                out.write, archive, data_pkl, storages, _disable_byteorder_record
            ),
        )
    else:
        _write_archive(f.write, "archive", data_pkl, storages, _disable_byteorder_record)
        if hasattr(f, "flush"):
            f.flush()


def _save_legacy(obj, f, protocol: int) -> None:
    if _is_path(f):
        write_to_path(
            os.fspath(f), lambda out: save_legacy(obj, out.write, protocol), python_open=True
        )
        return
    save_legacy(obj, f.write, protocol)
    if hasattr(f, "flush"):
        f.flush()


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def _pickle(obj, protocol: int):
    buf = io.BytesIO()
    pickler = Pickler(buf, protocol)
    pickler.dump(obj)
    return buf.getvalue(), list(pickler.storages.values())


def _write_archive(write, archive: str, data_pkl: bytes, storages, no_byteorder: bool) -> None:
    zw = ZipWriter(write, archive)
    zw.write_record("data.pkl", data_pkl)
    zw.write_record(".format_version", b"1")
    zw.write_record(".storage_alignment", b"64")
    if not no_byteorder:
        zw.write_record("byteorder", b"little")
    for ref in storages:
        zw.write_record(f"data/{ref.key}", storage_bytes(ref))
    zw.write_record("version", b"3\n")
    zw.write_record(
        ".data/serialization_id", "".join(str(secrets.randbelow(10)) for _ in range(40)).encode()
    )
    zw.finish()


# ---- load ---------------------------------------------------------------------------------------------
def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args):  # fmt: skip
    """``torch.load``: read a checkpoint written by ``torch.save`` (PyTorch's or taimatsu's).

    ``weights_only`` defaults to True (PyTorch >= 2.6): only tensors, primitive containers and
    allow-listed globals are rebuilt; anything else raises ``pickle.UnpicklingError``.
    """
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    truthy = ("1", "y", "yes", "true")
    force_wo = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in truthy
    force_no_wo = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in truthy
    if force_wo and force_no_wo:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set."
        )
    if force_wo:
        weights_only = True
    elif force_no_wo and not_set:
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.")
    pickle_load_args.setdefault("encoding", "utf-8")

    if _is_path(f):
        with open(f, "rb") as opened:
            return _load_file(
                opened, f, map_location, pickle_module, weights_only, mmap, pickle_load_args
            )
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _load_file(f, None, map_location, pickle_module, weights_only, False, pickle_load_args)


def _load_file(opened, path, map_location, pickle_module, weights_only, mmap, pickle_load_args):
    start = opened.tell()
    magic = opened.read(4)
    opened.seek(start)
    if magic != b"PK\x03\x04":
        if mmap:
            name = f"{path}, " if isinstance(path, str) else ""
            raise RuntimeError(
                f"mmap can only be used with files saved with `torch.save({name}_use_new_zipfile_serialization=True), "
                "please torch.save your checkpoint with this option in order to use mmap."
            )
        return _load_not_zip(opened, map_location, pickle_module, weights_only, pickle_load_args)
    if start:
        opened = _Window(opened, start)
    reader = ZipReader(opened)
    if reader.get("constants.pkl") is not None:
        raise RuntimeError(
            "this is a TorchScript archive (torch.jit.save); taimatsu cannot load TorchScript"
        )
    memmap = np.memmap(path, dtype=np.uint8, mode="c") if mmap else None
    loader = _Loader(reader, map_location, memmap)
    rec = reader.get("data.pkl")
    if rec is None:
        raise not_found("data.pkl")
    data = io.BytesIO(reader.read(rec))
    if weights_only:
        try:
            return _WeightsOnlyUnpickler(
                data,
                allowed_globals(),
                loader.persistent_load,
                encoding=pickle_load_args["encoding"],
            ).load()
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
    unpickler_cls = _unpickler_class(pickle_module or pickle)
    return unpickler_cls(data, loader.persistent_load, **pickle_load_args).load()


def _load_not_zip(opened, map_location, pickle_module, weights_only, pickle_load_args):
    """PyTorch's legacy-format path (``_legacy``): a legacy checkpoint, or PyTorch's error."""
    restore = _Loader(None, map_location, None)._restore
    if not weights_only:
        module = pickle_module or pickle
        unpickler_cls = _unpickler_class(module)
        return load_legacy(
            opened,
            "",
            lambda f: module.load(f, **pickle_load_args),
            lambda f, persistent_load: unpickler_cls(f, persistent_load, **pickle_load_args),
            restore,
        )

    def unpickler(f, persistent_load):
        encoding = pickle_load_args["encoding"]
        return _WeightsOnlyUnpickler(f, allowed_globals(), persistent_load, encoding=encoding)

    try:
        return load_legacy(
            opened,
            UNSAFE_MESSAGE,
            lambda f: unpickler(f, _refuse_persistent).load(),
            unpickler,
            restore,
        )
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_weights_only_message(str(e))) from None


def _refuse_persistent(pid):
    raise RuntimeError(f"Unknown saved id type: {pid!r}")


class _Window(io.RawIOBase):
    """A file seen from ``start`` on (a checkpoint written after other data in the same stream)."""

    def __init__(self, f, start: int):
        self._f, self._start = f, start

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = 0) -> int:
        return self._f.seek(pos + self._start if whence == 0 else pos, whence) - self._start

    def tell(self) -> int:
        return self._f.tell() - self._start

    def readinto(self, b) -> int:
        return self._f.readinto(b)

    def read(self, n: int = -1) -> bytes:
        return self._f.read(n)


def _weights_only_message(message: str) -> str:
    import re

    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: "
            + message
            + _DOCS_MESSAGE
        )
    out = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        out += (
            "Please file an issue with the following so that we can make "
            "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
        )
    return out + "\n\n" + message + _DOCS_MESSAGE


class _Loader:
    """Turns ``('storage', type, key, location, numel)`` ids into storages (each record read once)."""

    def __init__(self, reader: ZipReader, map_location, memmap):
        self.reader, self.map_location, self.memmap = reader, map_location, memmap
        self.loaded: dict = {}

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or len(pid) != 5 or _ascii(pid[0]) != "storage":
            raise RuntimeError(f"Unknown saved id type: {pid!r}")
        _, storage_type, key, location, numel = pid
        key, location = _ascii(key), _ascii(location)
        if key in self.loaded:
            return self.loaded[key]
        if not isinstance(storage_type, StorageType):
            raise RuntimeError(  # noqa: TRY004 - PyTorch's exception type
                f"unsupported storage type {storage_type!r} (taimatsu has no such dtype)"
            )
        if (
            not isinstance(key, str)
            or not isinstance(location, str)
            or type(numel) is not int
            or numel < 0
        ):
            raise RuntimeError(f"invalid storage record id {pid!r}")
        dtype = storage_type.dtype
        rec = self.reader.get(f"data/{key}")
        if rec is None:
            raise not_found(f"data/{key}")
        if rec.size != numel * dtype.itemsize:
            raise RuntimeError(
                f"storage record data/{key} holds {rec.size} bytes but the checkpoint declares {numel} elements of "
                f"{dtype} ({numel * dtype.itemsize} bytes): the file is corrupted"
            )
        if self.memmap is not None:
            off = self.reader.data_offset(rec)
            array = self.memmap[off : off + rec.size].view(dtype.np)
        else:
            array = np.empty(numel, dtype.np)
            self.reader.read_into(rec, array.view(np.uint8))
        if not np.little_endian:
            array = array.byteswap().view(array.dtype)
        untyped = self._restore(UntypedStorage._over(array.view(np.uint8), _cpu()), location)
        storage = TypedStorage(untyped, dtype)
        self.loaded[key] = storage
        return storage

    def _restore(self, storage, location: str):
        ml = self.map_location
        if ml is None:
            return _default_restore(storage, location)
        if isinstance(ml, dict):
            return _default_restore(storage, str(ml.get(location, location)))
        if isinstance(ml, (str, bytes)) or type(ml).__name__ == "device":
            return _default_restore(storage, str(_ascii(ml)))
        result = ml(storage, location)
        if result is None:
            return _default_restore(storage, location)
        if not isinstance(result, UntypedStorage):
            raise RuntimeError(  # noqa: TRY004 - PyTorch's exception type
                f"map_location must return a storage or None, got {type(result).__name__}"
            )
        return result


def _default_restore(storage, location: str):
    from .. import _device
    from ..backend import cuda_available

    if location == "cpu":
        return storage.cpu()
    if location == "meta":  # shapes without data: a storage of the same size on the meta device
        return UntypedStorage(storage.nbytes(), device="meta")
    if location.startswith("cuda"):
        if not cuda_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
                "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map "
                "your storages to the CPU."
            )
        return storage.to(_device.device(location))
    raise RuntimeError(
        f"don't know how to restore data location of taimatsu.UntypedStorage (tagged with {location})"
    )


def _cpu():
    from .._device import cpu

    return cpu


def _ascii(x):
    return x.decode("ascii") if isinstance(x, bytes) else x


def _unpickler_class(pickle_module):
    """``weights_only=False``: any global, with PyTorch's names mapped to taimatsu's objects."""
    table = allowed_globals()

    class TorchUnpickler(pickle_module.Unpickler):
        def __init__(self, file, persistent_load, **kwargs):
            super().__init__(file, **kwargs)
            self._persistent_load = persistent_load

        def persistent_load(self, pid):
            return self._persistent_load(pid)

        def find_class(self, module, name):
            full = f"{module}.{name}"
            if full in table:
                return table[full]
            if module == "torch" or module.startswith("torch."):
                import importlib

                try:
                    if module in _C_NAMESPACES:
                        return _c_function(module, name)
                    return getattr(importlib.import_module("taimatsu" + module[5:]), name)
                except (ImportError, AttributeError):
                    raise pickle.UnpicklingError(f"taimatsu has no equivalent of {full}") from None
            return super().find_class(module, name)

    return TorchUnpickler


# PyTorch pickles its C functions by their C namespaces: ``torch.sigmoid`` as
# ``getattr(torch._C._VariableFunctionsClass, "sigmoid")``, ``F.gelu`` as ``torch._C._nn.gelu``.
# Each namespace maps to the taimatsu modules that hold those functions, searched in order.
# (The C names of torch.special, torch.linalg and torch.fft carry their namespace as a prefix:
# ``torch._C._special.special_erf``.)
_C_NAMESPACES = {
    "torch._C": ((), ""),  # _VariableFunctionsClass / _VariableFunctions: the namespace itself
    "torch._C._nn": ((".nn.functional", ""), ""),
    "torch._C._special": ((".special",), "special_"),
    "torch._C._linalg": ((".linalg",), "linalg_"),
    "torch._C._fft": ((".fft",), "fft_"),
}


def _c_function(module: str, name: str):
    """The taimatsu object for PyTorch's C global ``module.name`` (an AttributeError where
    taimatsu has none): ``torch._C._VariableFunctionsClass`` is the ``taimatsu`` namespace,
    whose attributes the pickle then reads by ``getattr``."""
    import importlib

    if module == "torch._C":
        if name in ("_VariableFunctionsClass", "_VariableFunctions"):
            return importlib.import_module("taimatsu")
        raise AttributeError(name)
    subs, prefix = _C_NAMESPACES[module]
    if prefix and name.startswith(prefix):
        name = name[len(prefix) :]
    for sub in subs:
        found = getattr(importlib.import_module("taimatsu" + sub), name, None)
        if found is not None:
            return found
    raise AttributeError(name)


# ---- plain pickling of tensors (copy.deepcopy, multiprocessing, pickle.dumps) ----------------------------
def reduce_tensor(t, protocol):
    from ..backend import to_numpy

    return (_rebuild, (to_numpy(t._data).copy(), t._dtype.name, str(t._device), t._rg))


def _rebuild(array, dtype_name, device, requires_grad):
    from .. import _dtype
    from .._device import as_device
    from .._tensor.core import _wrap
    from ..backend import to_device

    dev = as_device(device)
    t = _wrap(to_device(array, dev), _dtype._dtype_by_name(dtype_name), dev)
    t._rg = requires_grad
    return t


_ = STORAGE_TYPES  # re-exported for tests and tools
