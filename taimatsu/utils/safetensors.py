"""The safetensors format (``safetensors.torch``'s API), in pure Python.

A file is: 8 bytes (little-endian u64) header length N, N bytes of JSON header
(``{"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}}``,
padded with spaces), then the raw little-endian tensor bytes. Offsets are relative to the end of
the header; tensors tile the data section with no gaps. The header is validated in full before
any tensor is read; ``safe_open`` then reads tensors one at a time.
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

from .. import _dtype as D
from .._tensor.core import Tensor, _wrap

__all__ = ["SafetensorError", "load", "load_file", "safe_open", "save", "save_file"]

_CODES = {
    D.bool: "BOOL", D.uint8: "U8", D.int8: "I8", D.int16: "I16", D.int32: "I32", D.int64: "I64",
    D.float16: "F16", D.bfloat16: "BF16", D.float32: "F32", D.float64: "F64", D.complex64: "C64",
}  # fmt: skip
_DTYPES = {code: dt for dt, code in _CODES.items()}
_MAX_HEADER = 100_000_000  # the reference implementation's limit


class SafetensorError(Exception):
    """A malformed or unsupported safetensors file."""


# ---- writing ----------------------------------------------------------------------------------------
def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The bytes of a safetensors file holding ``tensors`` (a dict of name -> contiguous Tensor)."""
    chunks = []
    _write(tensors, metadata, chunks.append)
    return b"".join(bytes(c) for c in chunks)


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Write ``tensors`` to ``filename`` atomically (temp file, fsync, rename)."""
    from ..serialization._path_writer import write_to_path

    header, arrays = _prepare(tensors, metadata)

    def write_to(out):
        out.write(header)
        for a in arrays:
            out.write(memoryview(a))

    write_to_path(os.fspath(filename), write_to)


def _write(tensors, metadata, write) -> None:
    header, arrays = _prepare(tensors, metadata)
    write(header)
    for a in arrays:
        write(memoryview(a))


def _prepare(tensors: dict, metadata: dict | None):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")  # noqa: TRY004 - PyTorch's exception type
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")  # noqa: TRY004 - PyTorch's exception type
    _check_shared(tensors)
    # Largest items first, then by name: every tensor starts aligned to its item size.
    names = sorted(tensors, key=lambda k: (-tensors[k]._dtype.itemsize, k))
    entries, arrays, pos = {}, [], 0
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise SafetensorError("metadata must be a dict of str to str")
        entries["__metadata__"] = metadata
    for k in names:
        t = tensors[k]
        if t._data.size and not t.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. It either means you"
                " are trying to save tensors which are reference of each other in which case it's recommended to save"
                " only the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to"
                " pack it before saving."
            )
        if t._dtype not in _CODES:
            raise SafetensorError(f"dtype {t._dtype} is not supported by the safetensors format")
        from ..backend import to_numpy

        a = np.ascontiguousarray(to_numpy(t._data)).reshape(-1)
        if not np.little_endian:
            a = a.byteswap()
        a = a.view(np.uint8)
        entries[k] = {
            "dtype": _CODES[t._dtype],
            "shape": list(t._data.shape),
            "data_offsets": [pos, pos + a.size],
        }
        arrays.append(a)
        pos += a.size
    text = json.dumps(entries, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, arrays


def _check_shared(tensors: dict) -> None:
    spans = []
    for k, t in tensors.items():
        if t._data.size == 0:
            continue
        lo = t.data_ptr()
        hi = (
            lo
            + sum((n - 1) * abs(s) for n, s in zip(t._data.shape, t._data.strides))
            + t._dtype.itemsize
        )
        spans.append((lo, hi, k))
    spans.sort()
    groups, current, end = [], set(), -1
    for lo, hi, k in spans:
        if lo < end:
            current.add(k)
        else:
            if len(current) > 1:
                groups.append(current)
            current = {k}
        end = max(end, hi) if lo < end else hi
    if len(current) > 1:
        groups.append(current)
    if groups:
        raise RuntimeError(
            f"""
            Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: {groups}.
            A potential way to correctly save your model is to use `save_model`.
            More information at https://huggingface.co/docs/safetensors/torch_shared_tensors
            """
        )


# ---- reading ----------------------------------------------------------------------------------------
def _parse_header(read, total_size: int):
    """(entries by name, metadata, data start) after checking every field against the file size."""
    head = read(8)
    if len(head) < 8:
        raise SafetensorError("Error while deserializing header: HeaderTooSmall")
    (n,) = struct.unpack("<Q", head)
    if n > _MAX_HEADER:
        raise SafetensorError("Error while deserializing header: HeaderTooLarge")
    if 8 + n > total_size:
        raise SafetensorError("Error while deserializing header: InvalidHeaderLength")
    raw = read(n)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SafetensorError(
            f"Error while deserializing header: InvalidHeaderDeserialization ({e})"
        ) from None
    if not isinstance(header, dict):
        raise SafetensorError("Error while deserializing header: header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())
    ):
        raise SafetensorError("Error while deserializing header: __metadata__ must map str to str")
    entries, spans = {}, []
    for name, info in header.items():
        entries[name] = _check_entry(name, info)
        spans.append(entries[name][2])
    spans.sort()
    pos = 0
    for b, e in spans:
        if b != pos:
            raise SafetensorError(
                "Error while deserializing header: InvalidOffset (tensors overlap or leave gaps)"
            )
        pos = e
    if pos != total_size - 8 - n:
        raise SafetensorError("Error while deserializing header: MetadataIncompleteBuffer")
    return entries, metadata, 8 + n


def _check_entry(name, info):
    if not isinstance(info, dict) or set(info) - {"dtype", "shape", "data_offsets"}:
        raise SafetensorError(
            f"Error while deserializing header: invalid entry for tensor '{name}'"
        )
    dtype = _DTYPES.get(info.get("dtype"))
    if dtype is None:
        raise SafetensorError(f"tensor '{name}' has unsupported dtype {info.get('dtype')!r}")
    shape, offsets = info.get("shape"), info.get("data_offsets")
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        raise SafetensorError(
            f"Error while deserializing header: invalid shape for tensor '{name}'"
        )
    if not (
        isinstance(offsets, list) and len(offsets) == 2 and all(type(o) is int for o in offsets)
    ) or not (0 <= offsets[0] <= offsets[1]):
        raise SafetensorError(
            f"Error while deserializing header: invalid data_offsets for tensor '{name}'"
        )
    numel = 1
    for s in shape:
        numel *= s
    if numel * dtype.itemsize != offsets[1] - offsets[0]:
        raise SafetensorError(
            f"Error while deserializing header: TensorInvalidInfo (size of '{name}' does not match its offsets)"
        )
    return dtype, tuple(shape), tuple(offsets)


def _to_tensor(buf, dtype, shape, device) -> Tensor:
    a = np.frombuffer(buf, dtype.np) if len(buf) else np.empty(0, dtype.np)
    if not np.little_endian:
        a = a.byteswap()
    t = _wrap(a.reshape(shape), dtype)
    return t if str(device) == "cpu" else t.to(device)


def load(data: bytes) -> dict:
    """Tensors from the bytes of a safetensors file (``safetensors.torch.load``)."""
    view = memoryview(data)
    pos = [0]

    def read(n):
        out = bytes(view[pos[0] : pos[0] + n])
        pos[0] += n
        return out

    entries, _, start = _parse_header(read, len(view))
    return {
        k: _to_tensor(bytearray(view[start + b : start + e]), dt, shape, "cpu")
        for k, (dt, shape, (b, e)) in entries.items()
    }


def load_file(filename, device="cpu") -> dict:
    """All tensors of a safetensors file (``safetensors.torch.load_file``)."""
    with safe_open(filename, framework="pt", device=device) as f:
        return {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 - safe_open has keys(), not __iter__


class safe_open:
    """Lazy access to a safetensors file: the header is read at once, each tensor on request."""

    def __init__(self, filename, framework: str = "pt", device="cpu"):
        if framework not in ("pt", "torch", "numpy", "np"):
            raise SafetensorError(f"framework {framework!r} is not supported")
        self._framework = framework
        self._device = device
        self._f = open(filename, "rb")  # noqa: SIM115 - closed by __exit__ / close()
        try:
            size = os.fstat(self._f.fileno()).st_size
            self._entries, self._metadata, self._start = _parse_header(self._f.read, size)
        except BaseException:
            self._f.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()
        return False

    def keys(self) -> list:
        return sorted(self._entries)

    def offset_keys(self) -> list:
        return sorted(self._entries, key=lambda k: self._entries[k][2][0])

    def metadata(self):
        return self._metadata

    def get_tensor(self, name: str):
        if name not in self._entries:
            raise SafetensorError(f"File does not contain tensor {name}")
        dtype, shape, (b, e) = self._entries[name]
        buf = bytearray(e - b)
        self._f.seek(self._start + b)
        if self._f.readinto(buf) != len(buf):
            raise SafetensorError(f"tensor '{name}' is truncated")
        t = _to_tensor(buf, dtype, shape, self._device)
        return t.numpy() if self._framework in ("numpy", "np") else t

    def get_slice(self, name: str):
        return _Slice(self, name)


class _Slice:
    def __init__(self, f: safe_open, name: str):
        if name not in f._entries:
            raise SafetensorError(f"File does not contain tensor {name}")
        self._f, self._name = f, name

    def get_shape(self) -> list:
        return list(self._f._entries[self._name][1])

    def get_dtype(self) -> str:
        return _CODES[self._f._entries[self._name][0]]

    def __getitem__(self, index):
        return self._f.get_tensor(self._name)[index]
