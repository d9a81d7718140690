"""Writing a checkpoint to a path: atomically for regular files, straight through for anything else.

A regular file (or a new name) is replaced all or nothing: the archive goes to a temporary in the
same directory, is fsynced, then renamed over the target, so a failed or killed save leaves the
previous checkpoint intact. On Linux the temporary is anonymous (``O_TMPFILE``) until it is
complete, so a process killed mid-write leaves nothing behind; where that is unavailable the
temporary is named ``.<name>.<pid>.<random>.tmp`` and those of dead processes are removed by the
next save of the same name.

Where PyTorch's plain open-and-write succeeds and a rename cannot stand in for it, the file is
written in place as PyTorch does: a path that is not a regular file (``/dev/null``, a FIFO, a
character device: renaming over it would replace the device by a regular file) and a writable file
in a directory where no temporary can be created. Errors name the user's path with PyTorch's
words, never the hidden temporary.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat

# errnos meaning "this filesystem or kernel has no anonymous temporaries"
_NO_TMPFILE = (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT)
_anonymous_ok = hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd")


def write_to_path(path: str, write_to, python_open: bool = False) -> None:
    """``torch.save(obj, path)``: ``write_to(file)`` writes the archive into a binary file.

    Errors are those of PyTorch's zip writer, or of Python's ``open()`` where PyTorch uses it: for a
    non-ASCII name, and for every name when ``python_open`` (the legacy format)."""
    python_open = python_open or not path.isascii()
    if path.endswith("/") and not python_open:
        raise RuntimeError(f"[enforce fail at inline_container.cc:720] . invalid file name: {path}")
    target = os.path.realpath(path)  # replace the file a symlink points to, not the link
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        _write_in_place(path, write_to, python_open)
        return
    _check_parent(path, python_open)
    directory, base = os.path.split(target)
    try:
        _write_atomically(target, directory or ".", base, write_to)
    except _TemporaryRefused:
        # no temporary can live here (read-only directory): PyTorch's open-and-write would
        # still overwrite the file, or fail with its own words when there is none
        _write_in_place(path, write_to, python_open)


class _TemporaryRefused(OSError):
    """No temporary could be created next to the target (nothing was written)."""


def _check_parent(path: str, python_open: bool) -> None:
    parent = path.rpartition("/")[0]
    if parent and not os.path.isdir(parent):
        if not python_open:
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)


def _write_in_place(path: str, write_to, python_open: bool) -> None:
    try:
        f = open(path, "wb")  # noqa: SIM115 - closed below
    except OSError as e:
        if python_open:
            raise
        raise RuntimeError(
            f"[enforce fail at inline_container.cc:747] . open file failed with strerror: {e.strerror}"
        ) from None
    with f:
        write_to(f)
        f.flush()


def _write_atomically(target: str, directory: str, base: str, write_to) -> None:
    global _anonymous_ok
    _remove_stale_temporaries(directory, base)
    fd, name = _create_tmp(directory, base)
    try:
        with _open_tmp(fd) as out:
            write_to(out)
            out.flush()
            os.fsync(out.fileno())
            _copy_mode(out.fileno(), target)
            if name is None:
                name = _link_anonymous(out.fileno(), directory, base)
        if name is None:  # linking an anonymous file is refused here: write a named one
            _anonymous_ok = False
            _write_atomically(target, directory, base, write_to)
            return
        os.replace(name, target)
    except BaseException:
        if name is not None:
            try:
                os.unlink(name)
            except OSError:
                pass
        raise
    _fsync_dir(directory)


def _temporary_name(directory: str, base: str) -> str:
    return os.path.join(directory, f".{base}.{os.getpid()}.{secrets.token_hex(6)}.tmp")


def _create_tmp(directory: str, base: str):
    """``(fd, None)`` for an anonymous temporary, else ``(fd, name)`` of a named one."""
    try:
        if _anonymous_ok:
            try:
                return os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o666), None
            except OSError as e:
                if e.errno not in _NO_TMPFILE:
                    raise
        name = _temporary_name(directory, base)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        return os.open(name, flags, 0o666), name
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise _TemporaryRefused(e.errno, e.strerror) from e
        raise


def _link_anonymous(fd: int, directory: str, base: str) -> str | None:
    """Give the complete anonymous temporary a name (None where the kernel refuses)."""
    name = _temporary_name(directory, base)
    dfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        # a dst_dir_fd makes CPython call linkat(AT_SYMLINK_FOLLOW), which links the file
        # /proc/self/fd/N stands for rather than the magic link itself
        os.link(f"/proc/self/fd/{fd}", os.path.basename(name), dst_dir_fd=dfd, follow_symlinks=True)
    except OSError:
        return None
    finally:
        os.close(dfd)
    return name


def _open_tmp(fd: int):
    return os.fdopen(fd, "wb")


def _copy_mode(fd: int, target: str) -> None:
    try:
        os.fchmod(fd, os.stat(target).st_mode & 0o7777)
    except FileNotFoundError:
        pass


def _remove_stale_temporaries(directory: str, base: str) -> None:
    """Remove temporaries of ``base`` left by saves whose process died (SIGKILL, power loss)."""
    pattern = re.compile(rf"\.{re.escape(base)}\.(\d+)\.[0-9a-f]{{12}}\.tmp")
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m and not _process_alive(int(m.group(1))):
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another thread of ours may be saving
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _fsync_dir(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
