"""The zip container of PyTorch checkpoints, written and read by hand.

PyTorch writes an uncompressed ("stored") zip whose records all live under one folder (the
archive name) and whose record data start on 64-byte boundaries (padding goes in an extra
field tagged ``FB``), so a record can be memory-mapped and viewed as an array. Python's
``zipfile`` cannot align data, and reading through it would hide the offsets ``mmap=True``
needs, so both directions are done here. Every number read from the file is checked against
the file's size before it is used: a hostile archive gets a ``RuntimeError``, never a huge
allocation or a read outside the file.
"""

from __future__ import annotations

import struct
import zlib

ALIGNMENT = 64
_ZIP64_LIMIT = 0xFFFFFFFF  # tests lower this to force the zip64 structures
_MAX32 = 0xFFFFFFFF

_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_EOCD = struct.Struct("<4sHHHHIIH")
_EOCD64 = struct.Struct("<4sQHHIIQQQQ")
_LOCATOR64 = struct.Struct("<4sIQI")
_FLAGS = 0x0808  # sizes in a data descriptor after the data; UTF-8 names (as PyTorch writes)


class ZipWriter:
    """Write records one after another to ``write`` (any binary ``write`` callable; no seeking)."""

    def __init__(self, write, archive_name: str):
        self._write = write
        self._pos = 0
        self._entries = []
        self._prefix = archive_name + "/"

    def _emit(self, data) -> None:
        self._write(data)
        self._pos += len(data) if isinstance(data, bytes) else memoryview(data).nbytes

    def write_record(self, name: str, data) -> None:
        """Append one record; ``data`` is bytes or a C-contiguous buffer (written without a copy)."""
        raw = (self._prefix + name).encode("utf-8")
        mv = memoryview(data).cast("B")
        size, offset = mv.nbytes, self._pos
        zip64 = size >= _ZIP64_LIMIT or offset >= _ZIP64_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, 0, 0) if zip64 else b""
        pad = -(offset + _LOCAL.size + len(raw) + len(extra) + 4) % ALIGNMENT
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        big = _MAX32 if zip64 else 0
        version = 45 if zip64 else 0
        self._emit(
            _LOCAL.pack(b"PK\x03\x04", version, _FLAGS, 0, 0, 0, 0, big, big, len(raw), len(extra))
        )
        self._emit(raw + extra)
        crc = zlib.crc32(mv)
        if size:
            self._emit(mv)
        desc = struct.pack("<4sIQQ" if zip64 else "<4sIII", b"PK\x07\x08", crc, size, size)
        self._emit(desc)
        self._entries.append((raw, crc, size, offset, zip64))

    def finish(self) -> None:
        """Write the central directory and the end records."""
        cd_start = self._pos
        for raw, crc, size, offset, zip64 in self._entries:
            extra = struct.pack("<HHQQQ", 1, 24, size, size, offset) if zip64 else b""
            s, o, v = (_MAX32, _MAX32, 45) if zip64 else (size, offset, 0)
            self._emit(
                _CENTRAL.pack(
                    b"PK\x01\x02",
                    v,
                    v,
                    _FLAGS,
                    0,
                    0,
                    0,
                    crc,
                    s,
                    s,
                    len(raw),
                    len(extra),
                    0,
                    0,
                    0,
                    0,
                    o,
                )
            )
            self._emit(raw + extra)
        n, cd_size = len(self._entries), self._pos - cd_start
        # PyTorch always ends with a zip64 end record and locator, then the classic end record
        # (whose fields saturate when they do not fit).
        eocd64 = self._pos
        self._emit(_EOCD64.pack(b"PK\x06\x06", 44, 0x031E, 45, 0, 0, n, n, cd_size, cd_start))
        self._emit(_LOCATOR64.pack(b"PK\x06\x07", 0, eocd64, 1))
        n16 = min(n, 0xFFFF)
        big = cd_start >= _ZIP64_LIMIT or cd_size >= _ZIP64_LIMIT
        self._emit(
            _EOCD.pack(
                b"PK\x05\x06",
                0,
                0,
                n16,
                n16,
                _MAX32 if big else cd_size,
                _MAX32 if big else cd_start,
                0,
            )
        )


class Record:
    __slots__ = ("_data_offset", "crc", "header_offset", "name", "size")

    def __init__(self, name, size, crc, header_offset):
        self.name, self.size, self.crc, self.header_offset = name, size, crc, header_offset
        self._data_offset = None


def _corrupt(why: str) -> RuntimeError:
    # PyTorch's wording (its zip reader's error name, then its advice); ``why`` is miniz's error
    # name where PyTorch would meet the same failure, a more precise one elsewhere
    return RuntimeError(
        f"PytorchStreamReader failed reading zip archive: {why}. This is an internal miniz error. If you are "
        "seeing this error, there is a high likelihood that your checkpoint file is corrupted. This can happen "
        "if the checkpoint was not saved properly, was transferred incorrectly, or the file was modified after "
        "saving."
    )


class ZipReader:
    """Index of a zip archive in a seekable binary file; records are read on demand."""

    def __init__(self, f):
        self._f = f
        f.seek(0, 2)
        self.file_size = size = f.tell()
        tail_len = min(size, 0xFFFF + _EOCD.size)
        f.seek(size - tail_len)
        tail = f.read(tail_len)
        if size < _EOCD.size:
            raise _corrupt("not a ZIP archive")
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + _EOCD.size > len(tail):
            raise _corrupt("failed finding central directory")
        eocd_pos = size - tail_len + at
        _, _, _, _, n, cd_size, cd_start, _ = _EOCD.unpack_from(tail, at)
        if (n == 0xFFFF or cd_size == _MAX32 or cd_start == _MAX32) and eocd_pos >= _LOCATOR64.size:
            f.seek(eocd_pos - _LOCATOR64.size)
            sig, _, eocd64_pos, _ = _LOCATOR64.unpack(f.read(_LOCATOR64.size))
            if sig == b"PK\x06\x07":
                if eocd64_pos + _EOCD64.size > eocd_pos:
                    raise _corrupt("zip64 end record out of bounds")
                f.seek(eocd64_pos)
                fields = _EOCD64.unpack(f.read(_EOCD64.size))
                if fields[0] != b"PK\x06\x06":
                    raise _corrupt("bad zip64 end record")
                n, cd_size, cd_start = fields[7], fields[8], fields[9]
        if cd_start + cd_size > eocd_pos or n * _CENTRAL.size > cd_size:
            raise _corrupt("central directory out of bounds")
        self._cd_start = cd_start
        f.seek(cd_start)
        cd = f.read(cd_size)
        self.records: dict[str, Record] = {}
        self.order: list[str] = []
        pos = 0
        for _ in range(n):
            self._parse_entry(cd, pos)
            pos = self._next
        first = self.order[0] if self.order else ""
        # PyTorch's reader takes the archive folder from the first name and insists on a version
        # record in it; names are only ever looked up (never used as paths), so ``../`` or ``/``
        # in a name only changes which folder is searched, as in PyTorch
        if "/" not in first:
            raise RuntimeError(
                f"[enforce fail at inline_container.cc:180] . file in archive is not in a subdirectory: {first}"
            )
        self.prefix = first[: first.index("/") + 1]
        if self.get(".data/version") is None and self.get("version") is None:
            raise RuntimeError(
                'Expected hasRecord("version") to be true, but got false.  (Could this error message be '
                "improved?  If so, please report an enhancement request to PyTorch.)"
            )

    def _parse_entry(self, cd: bytes, pos: int) -> None:
        if pos + _CENTRAL.size > len(cd):
            raise _corrupt("truncated central directory")
        (sig, _, _, flags, method, _, _, crc, csize, size, nlen, elen, clen, _, _, _, offset) = (
            _CENTRAL.unpack_from(cd, pos)
        )
        if sig != b"PK\x01\x02":
            raise _corrupt("bad central directory entry")
        start = pos + _CENTRAL.size
        self._next = start + nlen + elen + clen
        if self._next > len(cd):
            raise _corrupt("truncated central directory")
        name = cd[start : start + nlen].decode("utf-8" if flags & 0x800 else "cp437")
        size, csize, offset = _zip64_fields(
            cd[start + nlen : start + nlen + elen], size, csize, offset
        )
        if method != 0 or csize != size:
            raise RuntimeError(
                f"record '{name}' is compressed (method {method}); PyTorch checkpoints store records uncompressed, "
                "and compressed records are refused (they can expand without bound)"
            )
        if offset + _LOCAL.size + size > self._cd_start:
            raise _corrupt(f"record '{name}' lies outside the archive")
        self.records[name] = Record(name, size, crc, offset)
        self.order.append(name)

    def get(self, name: str) -> Record | None:
        return self.records.get(self.prefix + name)

    def data_offset(self, rec: Record) -> int:
        """Absolute offset of the record's first data byte (after its local header)."""
        if rec._data_offset is None:
            self._f.seek(rec.header_offset)
            head = self._f.read(_LOCAL.size)
            if len(head) < _LOCAL.size or head[:4] != b"PK\x03\x04":
                raise _corrupt(f"bad local header for record '{rec.name}'")
            nlen, elen = struct.unpack_from("<HH", head, 26)
            start = rec.header_offset + _LOCAL.size + nlen + elen
            if start + rec.size > self._cd_start:
                raise _corrupt(f"record '{rec.name}' lies outside the archive")
            rec._data_offset = start
        return rec._data_offset

    def read_into(self, rec: Record, buffer) -> None:
        """Fill ``buffer`` (exactly ``rec.size`` bytes) with the record and check its CRC."""
        mv = memoryview(buffer).cast("B")
        self._f.seek(self.data_offset(rec))
        got = 0
        while got < rec.size:
            n = self._f.readinto(mv[got:])
            if not n:
                raise _corrupt(f"record '{rec.name}' is truncated")
            got += n
        if zlib.crc32(mv) != rec.crc:
            raise _corrupt(f"CRC-32 check failed for record '{rec.name}'")

    def read(self, rec: Record) -> bytes:
        buf = bytearray(rec.size)
        self.read_into(rec, buf)
        return bytes(buf)


def not_found(name: str) -> RuntimeError:
    """PyTorch's error for a record missing from the archive."""
    return RuntimeError(
        f"PytorchStreamReader failed locating file {name}: file not found. This is an internal miniz error. "
        "If you are seeing this error, there is a high likelihood that your checkpoint file is corrupted. "
        "This can happen if the checkpoint was not saved properly, was transferred incorrectly, or the "
        "file was modified after saving."
    )


def _zip64_fields(extra: bytes, size: int, csize: int, offset: int):
    """Replace 0xFFFFFFFF fields by their zip64 values, in the order the format fixes."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + length]
        if tag == 1:
            vals = [struct.unpack_from("<Q", body, i)[0] for i in range(0, len(body) - 7, 8)]
            if size == _MAX32 and vals:
                size = vals.pop(0)
            if csize == _MAX32 and vals:
                csize = vals.pop(0)
            if offset == _MAX32 and vals:
                offset = vals.pop(0)
        pos += 4 + length
    return size, csize, offset
