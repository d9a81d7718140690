"""``torch.distributed``'s key-value stores: ``Store``, ``HashStore``, ``FileStore``, ``TCPStore``,
``PrefixStore``.

Values are kept as bytes (``str`` values are UTF-8 encoded); ``add`` keeps its counter as the
decimal text of the integer, as PyTorch does, so ``get`` of a counter gives ``b"5"``. Waits are
bounded by the store's timeout and raise ``DistStoreError("Wait timeout")``.

Nothing a store reads from its file or from the network is unpickled: the FileStore's file and
the TCPStore's frames are JSON with bytes as base64 and timeouts as seconds (``_encode`` /
``_decode``), and the TCP master runs only the store's own methods, so a stranger who can write
the file or reach the port can change keys but cannot run code.
"""

from __future__ import annotations

import base64
import datetime
import fcntl
import json
import os
import socket
import struct
import threading
import time

from .errors import DistNetworkError, DistStoreError

_DEFAULT_TIMEOUT = datetime.timedelta(minutes=5)


def _key(method, key):
    if not isinstance(key, str):
        raise TypeError(
            f"{method}(): incompatible function arguments: key must be str, not {type(key).__name__}"
        )
    return key


def _value(method, value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return bytes(value)
    raise TypeError(
        f"{method}(): incompatible function arguments: value must be str or bytes, not {type(value).__name__}"
    )


class Store:
    """Base class of the key-value stores."""

    def __init__(self):
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(
                "set_timeout(): incompatible function arguments: timeout must be a datetime.timedelta"
            )
        self._timeout = timeout

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        if len(keys) != len(values):
            raise ValueError("multi_set: keys and values must have the same length")
        for k, v in zip(keys, values):
            self.set(k, v)


class HashStore(Store):
    """A thread-safe in-memory store shared by the threads of one process."""

    def __init__(self):
        super().__init__()
        self._data = {}
        self._cond = threading.Condition()

    def set(self, key, value):
        key, value = _key("set", key), _value("set", value)
        with self._cond:
            self._data[key] = value
            self._cond.notify_all()

    def _wait_locked(self, keys, timeout):
        seconds = timeout.total_seconds()
        ok = self._cond.wait_for(
            lambda: all(k in self._data for k in keys), None if seconds <= 0 else seconds
        )
        if not ok:
            raise DistStoreError("Wait timeout")

    def get(self, key):
        key = _key("get", key)
        with self._cond:
            self._wait_locked([key], self._timeout)
            return self._data[key]

    def add(self, key, amount):
        key = _key("add", key)
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TypeError(
                f"add(): incompatible function arguments: amount must be int, not {type(amount).__name__}"
            )
        with self._cond:
            total = int(self._data.get(key, b"0")) + amount
            self._data[key] = str(total).encode()
            self._cond.notify_all()
            return total

    def append(self, key, value):
        key, value = _key("append", key), _value("append", value)
        with self._cond:
            self._data[key] = self._data.get(key, b"") + value
            self._cond.notify_all()

    def compare_set(self, key, expected_value, desired_value):
        key = _key("compare_set", key)
        expected, desired = (
            _value("compare_set", expected_value),
            _value("compare_set", desired_value),
        )
        with self._cond:
            if key not in self._data:
                if expected == b"":
                    self._data[key] = desired
                    self._cond.notify_all()
                    return desired
                return expected
            if self._data[key] == expected:
                self._data[key] = desired
                self._cond.notify_all()
            return self._data[key]

    def wait(self, keys, timeout=None):
        keys = [_key("wait", k) for k in keys]
        with self._cond:
            self._wait_locked(keys, self._timeout if timeout is None else timeout)

    def check(self, keys):
        keys = [_key("check", k) for k in keys]
        with self._cond:
            return all(k in self._data for k in keys)

    def num_keys(self):
        with self._cond:
            return len(self._data)

    def delete_key(self, key):
        key = _key("delete_key", key)
        with self._cond:
            return self._data.pop(key, None) is not None


class FileStore(HashStore):
    """A store kept in a file, shared by the processes that open the same path.

    Every operation locks the file (``flock``), reads the whole table, and writes it back when it
    changed; waits poll the file until the timeout. Like PyTorch's, it keeps one internal key (the
    count of users), which ``num_keys`` counts. Unlike PyTorch's, the file is not removed when the
    last of ``world_size`` users closes it.
    """

    _USERS = "\x00users"

    def __init__(self, file_name, world_size=-1):
        if (
            not isinstance(file_name, str)
            or not isinstance(world_size, int)
            or isinstance(world_size, bool)
        ):
            raise TypeError(
                "__init__(): incompatible constructor arguments: FileStore(file_name: str, world_size: int = -1)"
            )
        super().__init__()
        self.path = file_name
        self._world_size = world_size
        self._update(
            lambda d: d.__setitem__(self._USERS, str(int(d.get(self._USERS, b"0")) + 1).encode())
        )

    def _update(self, fn, write=True):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with os.fdopen(os.dup(fd), "rb") as f:
                raw = f.read()
            self._data = _decode(raw) if raw else {}
            result = fn(self._data)
            if write:
                blob = _encode(self._data)
                os.lseek(fd, 0, os.SEEK_SET)
                os.ftruncate(fd, 0)
                os.write(fd, blob)
            return result
        finally:
            os.close(fd)

    def _wait_locked(self, keys, timeout, get=False):
        deadline = time.monotonic() + timeout.total_seconds()
        while not self._update(lambda d: all(k in d for k in keys), write=False):
            if timeout.total_seconds() > 0 and time.monotonic() >= deadline:
                if not get:  # PyTorch's FileStore words a wait's timeout and a get's apart
                    raise RuntimeError("Wait timeout")
                ms = int(timeout.total_seconds() * 1000)
                raise RuntimeError(f"Timeout waiting for key: {keys[0]} after {ms} ms")
            time.sleep(0.01)

    def _locked(self, name, *args, write=True):
        method = getattr(HashStore, name)
        return self._update(lambda d: method(self, *args), write=write)

    def set(self, key, value):
        self._locked("set", key, value)

    def add(self, key, amount):
        return self._locked("add", key, amount)

    def append(self, key, value):
        self._locked("append", key, value)

    def compare_set(self, key, expected_value, desired_value):
        return self._locked("compare_set", key, expected_value, desired_value)

    def delete_key(self, key):
        self._locked("delete_key", key)
        return True  # PyTorch's FileStore reports True even for a missing key

    def check(self, keys):
        return self._locked("check", keys, write=False)

    def num_keys(self):
        return self._locked("num_keys", write=False)

    def wait(self, keys, timeout=None):
        self._wait_locked(
            [_key("wait", k) for k in keys], self._timeout if timeout is None else timeout
        )

    def get(self, key):
        key = _key("get", key)
        self._wait_locked([key], self._timeout, get=True)
        return self._update(lambda d: d[key], write=False)


def _encode(obj):
    """``obj`` (str/int/float/bool/None, bytes, timedelta, lists and tuples of them) as JSON text."""

    def plain(v):
        if isinstance(v, (bytes, bytearray)):
            return {"b": base64.b64encode(v).decode("ascii")}
        if isinstance(v, datetime.timedelta):
            return {"td": v.total_seconds()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {"d": [[k, plain(x)] for k, x in v.items()]}
        if v is None or isinstance(v, (str, int, float)):
            return v
        raise TypeError(f"a store cannot carry a {type(v).__name__}")

    return json.dumps(plain(obj)).encode()


def _decode(blob):
    def back(v):
        if isinstance(v, list):
            return [back(x) for x in v]
        if isinstance(v, dict):
            if "b" in v:
                return base64.b64decode(v["b"])
            if "td" in v:
                return datetime.timedelta(seconds=v["td"])
            return {k: back(x) for k, x in v["d"]}
        return v

    return back(json.loads(blob))


# Errors the TCP master hands back to its client, by name (anything else: RuntimeError)
_ERRORS = {
    c.__name__: c
    for c in (DistStoreError, DistNetworkError, RuntimeError, TypeError, ValueError, KeyError)
}


def _send(sock, obj):
    blob = _encode(obj)
    sock.sendall(struct.pack("!Q", len(blob)) + blob)


def _recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the store's peer closed the connection")
        buf += chunk
    return buf


# The largest frame a store reads (a stranger's 8 bytes must not make it allocate gigabytes)
_MAX_FRAME = 1 << 30


def _recv(sock):
    (n,) = struct.unpack("!Q", _recv_exact(sock, 8))
    if n > _MAX_FRAME:
        raise ConnectionError(f"a store frame of {n} bytes is over the limit")
    return _decode(_recv_exact(sock, n))


_TCP_METHODS = (
    "set",
    "get",
    "add",
    "append",
    "compare_set",
    "check",
    "num_keys",
    "delete_key",
    "wait",
)


class TCPStore(Store):
    """A store served over TCP by the master (``is_master=True``) to clients that connect to it.

    The master runs a daemon thread that accepts connections and answers each client's requests
    (JSON ``(method, args)`` frames, see ``_encode``) from a ``HashStore``; every other instance is a client.
    Like PyTorch's, the master holds one internal key (``num_keys`` counts it). Connecting
    retries until ``timeout`` and then raises ``DistNetworkError``.
    """

    def __init__(self, host_name, port, world_size=None, is_master=False,
                 timeout=_DEFAULT_TIMEOUT, wait_for_workers=True, multi_tenant=False,
                 master_listen_fd=None, use_libuv=True):  # fmt: skip
        if not isinstance(host_name, str) or not isinstance(port, int) or isinstance(port, bool):
            raise TypeError(
                "__init__(): incompatible constructor arguments: TCPStore(host_name: str, port: int, ...)"
            )
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(
                "__init__(): incompatible constructor arguments: timeout must be a datetime.timedelta"
            )
        super().__init__()
        self._timeout = timeout
        self.host = host_name
        self.libuvBackend = use_libuv
        self._lock = threading.Lock()
        self._server = None
        if is_master:
            self._table = HashStore()
            self._table.set("\x00workers", "0")  # the one internal key PyTorch counts too
            self._server = socket.create_server((host_name, port), reuse_port=False)
            port = self._server.getsockname()[1]
            threading.Thread(target=self._accept, daemon=True).start()
        self.port = port
        deadline = time.monotonic() + timeout.total_seconds()
        while True:
            try:
                self._sock = socket.create_connection(
                    (host_name, port), timeout=max(timeout.total_seconds(), 0.1)
                )
                break
            except OSError as e:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(
                        f"The client socket has timed out after {timeout} while trying to connect to ({host_name}, {port})."
                    ) from e
                time.sleep(0.05)
        self._sock.settimeout(None)
        if world_size is not None and wait_for_workers:
            self.add("\x00workers", 1)
            self._request("wait_count", "\x00workers", world_size, timeout)

    def _accept(self):
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        table = self._table
        with conn:
            while True:
                try:
                    method, args = _recv(conn)
                except (ConnectionError, OSError, EOFError, ValueError):
                    return  # closed, or not a store's frame (json's errors are ValueErrors)
                try:
                    if method not in _TCP_METHODS and method != "wait_count":
                        raise RuntimeError(f"unknown store request {method!r}")
                    if method == "wait_count":
                        key, n, timeout = args
                        with table._cond:
                            ok = table._cond.wait_for(
                                lambda key=key, n=n: int(table._data.get(key, b"0")) >= n,
                                timeout.total_seconds() or None,
                            )
                        if not ok:
                            raise DistStoreError(
                                f"Timed out after {int(timeout.total_seconds())} seconds waiting for clients. {int(table._data.get(key, b'0'))}/{n} clients joined."
                            )
                        result = (True, None)
                    elif method == "wait":
                        keys, timeout = args
                        try:
                            table.wait(keys, timeout)
                        except DistStoreError:
                            ms = int(timeout.total_seconds() * 1000)
                            raise DistStoreError(
                                f"wait timeout after {ms}ms, keys: {', '.join('/' + k for k in keys)}"
                            ) from None
                        result = (True, None)
                    else:
                        result = (True, getattr(table, method)(*args))
                except Exception as e:  # noqa: BLE001 -- forwarded to the client, which raises it
                    result = (False, [type(e).__name__, str(e)])
                try:
                    _send(conn, result)
                except OSError:
                    return

    def _request(self, method, *args):
        with self._lock:
            _send(self._sock, (method, args))
            ok, value = _recv(self._sock)
        if not ok:
            name, message = value
            raise _ERRORS.get(name, RuntimeError)(message)
        return value

    def set(self, key, value):
        self._request("set", _key("set", key), _value("set", value))

    def get(self, key):
        key = _key("get", key)
        self._request("wait", [key], self._timeout)
        return self._request("get", key)

    def add(self, key, amount):
        return self._request("add", _key("add", key), amount)

    def append(self, key, value):
        self._request("append", _key("append", key), _value("append", value))

    def compare_set(self, key, expected_value, desired_value):
        return self._request("compare_set", _key("compare_set", key), expected_value, desired_value)

    def wait(self, keys, timeout=None):
        self._request(
            "wait", [_key("wait", k) for k in keys], self._timeout if timeout is None else timeout
        )

    def check(self, keys):
        return self._request("check", [_key("check", k) for k in keys])

    def num_keys(self):
        return self._request("num_keys")

    def delete_key(self, key):
        return self._request("delete_key", _key("delete_key", key))


class PrefixStore(Store):
    """A view of ``store`` whose keys are all prefixed with ``prefix + "/"``."""

    def __init__(self, prefix, store):
        if not isinstance(prefix, str) or not isinstance(store, Store):
            raise TypeError(
                "__init__(): incompatible constructor arguments: PrefixStore(prefix: str, store: Store)"
            )
        super().__init__()
        self._prefix = prefix
        self.underlying_store = store

    def _k(self, key):
        return f"{self._prefix}/{_key('PrefixStore', key)}"

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def set(self, key, value):
        self.underlying_store.set(self._k(key), value)

    def get(self, key):
        return self.underlying_store.get(self._k(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._k(key), amount)

    def append(self, key, value):
        self.underlying_store.append(self._k(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._k(key), expected_value, desired_value)

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._k(k) for k in keys], timeout)

    def check(self, keys):
        return self.underlying_store.check([self._k(k) for k in keys])

    def num_keys(self):
        return self.underlying_store.num_keys()

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._k(key))
