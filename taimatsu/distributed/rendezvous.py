"""The TCP rendezvous: how ranks that no MPI launcher started find each other.

``init_method`` names the master as PyTorch's does: ``env://`` (``MASTER_ADDR`` and
``MASTER_PORT``), ``tcp://host:port``, or ``file:///path`` (rank 0 listens on a free port and
writes its address to the file; the file is removed once every rank has joined). Rank 0
listens; every other rank listens on a free port of its own, connects to rank 0 and says who
it is; once all have joined, rank 0 sends everyone the table of addresses and each pair of
ranks connects directly (rank j connects to every rank below it). Every step is bounded by the
``timeout`` of ``init_process_group``; the errors are PyTorch's (``DistStoreError`` when ranks
are missing, ``DistNetworkError`` when the master cannot be reached).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import socket
import struct
import time
from urllib.parse import urlparse

from . import _tcp
from .errors import DistNetworkError, DistStoreError
from .store import PrefixStore

_MAGIC = "taimatsu-tcp-1"
_LENGTH = struct.Struct("!I")
_MAX_MESSAGE = 1 << 24  # a rendezvous message is small; a bigger length is not ours
# A rank sends its hello right after connecting; a connection silent for longer is a stranger
# (a port scanner, a health check) and must not hold up the others.
_HELLO_WAIT = 10.0


def init_error(scheme: str, what: str) -> ValueError:
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {what}")


def check_url(init_method: str) -> str:
    """PyTorch's checks of a ``tcp://`` or ``file://`` init method; its scheme."""
    url = urlparse(init_method)
    if url.scheme == "tcp" and not url.port:
        raise init_error("tcp", "port number missing")
    if url.scheme == "file" and not url.path:
        raise init_error("file", "path missing")
    if url.scheme not in ("tcp", "file", "env"):
        raise RuntimeError(f"No rendezvous handler for {url.scheme}://")
    return url.scheme


def master_of(init_method: str | None) -> tuple:
    """``("tcp", host, port)`` or ``("file", path)`` for ``init_method``."""
    if init_method is None or init_method.startswith("env://"):
        for name in ("MASTER_ADDR", "MASTER_PORT"):
            if name not in os.environ:
                raise init_error("env", f"environment variable {name} expected, but not set")
        return "tcp", os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    url = urlparse(init_method)
    if check_url(init_method) == "tcp":
        return "tcp", url.hostname, url.port
    return "file", url.path


# ---- small framed JSON messages ------------------------------------------------------------


def _send(sock: socket.socket, message: dict) -> None:
    data = json.dumps(message).encode()
    sock.sendall(_LENGTH.pack(len(data)) + data)


def _receive(sock: socket.socket, deadline: float) -> dict | None:
    """The next message, or None when the peer closed the connection or the deadline passed."""
    try:
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        head = _tcp.read_exact(sock, _LENGTH.size)
        if head is None:
            return None
        size = _LENGTH.unpack(head)[0]
        if size > _MAX_MESSAGE:  # not our protocol (a stranger on the port)
            return None
        message = json.loads(_tcp.read_exact(sock, size) or b"")
    except (OSError, ValueError):  # closed, timed out, or not our protocol
        return None
    return message if isinstance(message, dict) else None


def _listen(host: str, port: int) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((host, port))
    except OSError as e:
        s.close()
        raise DistNetworkError(
            "The server socket has failed to listen on any local network address. "
            f"port: {port}, useIpv6: false, code: {-e.errno}, name: {_errno_name(e.errno)}, "
            f"message: {os.strerror(e.errno).lower()}"
        ) from None
    s.listen(128)
    return s


def _errno_name(code: int) -> str:
    import errno

    return errno.errorcode.get(code, str(code))


def _accept(listener: socket.socket, deadline: float) -> socket.socket | None:
    listener.settimeout(max(deadline - time.monotonic(), 0.001))
    try:
        conn, _ = listener.accept()
    except (TimeoutError, OSError):
        return None
    return conn


# ---- the two roles -------------------------------------------------------------------------


def join(init_method: str | None, rank: int, world_size: int, timeout: float) -> _tcp.World:
    """Connect this rank to every other one; the connections, as a ``_tcp.World``."""
    master = master_of(init_method)
    start = time.monotonic()
    deadline = start + timeout
    opened: list[socket.socket] = []
    try:
        if rank == 0:
            peers = _serve(master, world_size, start, timeout, opened)
        else:
            peers = _enter(master, rank, world_size, deadline, timeout, opened)
    except BaseException:
        for s in opened:
            s.close()
        raise
    return _world(rank, world_size, peers, timeout)


def _world(rank: int, world_size: int, peers: dict, timeout: float) -> _tcp.World:
    for s in peers.values():
        s.settimeout(None)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return _tcp.World(rank, world_size, peers, timeout)


def _serve(master, world_size: int, start: float, timeout: float, opened) -> dict:
    """Rank 0: wait for every other rank, send them the table of addresses."""
    deadline = start + timeout
    if master[0] == "file":
        listener = _listen("", 0)
        opened.append(listener)
        _publish(master[1], listener.getsockname()[1])
    else:
        listener = _listen("", master[2])
        opened.append(listener)
    peers: dict[int, socket.socket] = {}
    table: dict[int, list] = {}
    while len(peers) < world_size - 1:
        conn = _accept(listener, deadline)
        if conn is None:
            elapsed = math.ceil(time.monotonic() - start)
            raise DistStoreError(
                f"Timed out after {elapsed} seconds waiting for clients. "
                f"{len(peers) + 1}/{world_size} clients joined."
            )
        opened.append(conn)
        hello = _receive(conn, min(deadline, time.monotonic() + _HELLO_WAIT))
        r = hello.get("rank") if hello and hello.get("magic") == _MAGIC else None
        if (
            not isinstance(r, int) or not 0 < r < world_size or r in peers
            or hello.get("world_size") != world_size or not isinstance(hello.get("port"), int)
        ):  # fmt: skip
            conn.close()  # a stranger, a duplicate rank or another world size: not one of ours
            continue
        peers[r] = conn
        table[r] = [conn.getpeername()[0], hello["port"]]
    listener.close()
    if master[0] == "file":
        try:
            os.unlink(master[1])
        except OSError:
            pass
    for conn in peers.values():
        _send(conn, {"table": table})
    return peers


def _publish(path: str, port: int) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{socket.gethostname()} {port}\n")
    os.replace(tmp, path)


def _master_address(master) -> tuple[str, int] | None:
    if master[0] == "tcp":
        return master[1], master[2]
    try:
        with open(master[1]) as f:
            host, port = f.read().split()
    except (OSError, ValueError):
        return None
    return ("127.0.0.1" if host == socket.gethostname() else host), int(port)


def _connect(address, deadline: float) -> socket.socket | None:
    try:
        return socket.create_connection(address, timeout=max(min(deadline - time.monotonic(), 1.0), 0.001))  # fmt: skip
    except OSError:
        return None


def _enter(master, rank: int, world_size: int, deadline: float, timeout: float, opened) -> dict:
    """Rank > 0: join rank 0, learn the others' addresses, connect to every rank."""
    listener = _listen("", 0)
    opened.append(listener)
    conn = None
    while conn is None:
        address = _master_address(master)
        conn = _connect(address, deadline) if address is not None else None
        if conn is None:
            if time.monotonic() >= deadline:
                if address is None:
                    raise RuntimeError("Wait timeout")  # PyTorch's FileStore
                raise DistNetworkError(
                    f"The client socket has timed out after {timeout * 1000:.0f}ms while trying "
                    f"to connect to ({address[0]}, {address[1]})."
                )
            time.sleep(0.05)
    opened.append(conn)
    _send(conn, {"magic": _MAGIC, "rank": rank, "world_size": world_size, "port": listener.getsockname()[1]})  # fmt: skip
    answer = _receive(conn, deadline)
    if answer is None or not isinstance(answer.get("table"), dict):
        raise DistStoreError(
            f"Timed out after {timeout:g} seconds waiting for the other ranks to join "
            "(rank 0 did not send the table of ranks)"
        )
    table = {int(r): tuple(a) for r, a in answer["table"].items()}
    return _mesh(rank, world_size, table, {0: conn}, listener, deadline, timeout, opened)


def _mesh(rank: int, world_size: int, table, peers, listener, deadline: float, timeout: float, opened) -> dict:  # fmt: skip
    """Connect to every rank below ``rank`` (``table``: their addresses) not yet in ``peers``,
    accept every rank above it; ``peers``, completed."""
    for r in range(rank):
        if r in peers:
            continue
        s = _connect(table[r], deadline)
        if s is None:
            raise DistNetworkError(f"rank {rank} could not connect to rank {r} at {table[r]}")
        opened.append(s)
        _send(s, {"magic": _MAGIC, "rank": rank})
        peers[r] = s
    while len(peers) < world_size - 1:
        s = _accept(listener, deadline)
        if s is None:
            raise DistStoreError(f"Timed out after {timeout:g} seconds waiting for the other ranks to connect")  # fmt: skip
        opened.append(s)
        hello = _receive(s, min(deadline, time.monotonic() + _HELLO_WAIT))
        r = hello.get("rank") if hello and hello.get("magic") == _MAGIC else None
        if not isinstance(r, int) or not rank < r < world_size or r in peers:
            s.close()
            continue
        peers[r] = s
    listener.close()
    return peers


# ---- through the user's store ----------------------------------------------------------------


def join_store(store, rank: int, world_size: int, timeout: float) -> _tcp.World:
    """Connect this rank to every other one through ``store`` (``init_process_group(store=)``).

    As PyTorch's gloo: the group's keys live under ``0//cpu//`` of the user's store (a
    ``PrefixStore``), so they never collide with the user's own; every rank publishes its
    address under ``<n>/<rank>`` and waits (``timeout``) for every other rank's, so a missing
    rank raises the store's own wait timeout (``DistStoreError`` for TCPStore and HashStore,
    naming the missing key, as PyTorch's). ``<n>`` counts this rank's earlier joins through
    the store (its own keys already there), so joining again after ``destroy_process_group``
    never reads the last round's addresses (PyTorch's gloo rewrites the same keys, and a
    3-rank rejoin through one store fails there now and then). The keys stay in the store
    afterwards, as PyTorch's do.
    """
    keys = PrefixStore("cpu/", PrefixStore("0/", store))
    deadline = time.monotonic() + timeout
    opened: list[socket.socket] = []
    try:
        listener = _listen("", 0)
        opened.append(listener)
        n = 0  # this rank's rounds so far: the first key of its own not yet in the store
        while keys.check([f"{n}/{rank}"]):
            n += 1
        me = {"magic": _MAGIC, "host": socket.gethostname(), "port": listener.getsockname()[1]}
        keys.set(f"{n}/{rank}", json.dumps(me))
        table = {}
        for r in range(world_size):
            if r != rank:
                keys.wait([f"{n}/{r}"], datetime.timedelta(seconds=timeout))
                table[r] = _peer_address(keys.get(f"{n}/{r}"), r)
        peers = _mesh(rank, world_size, table, {}, listener, deadline, timeout, opened)
    except BaseException:
        for s in opened:
            s.close()
        raise
    return _world(rank, world_size, peers, timeout)


def _peer_address(value: bytes, r: int) -> tuple[str, int]:
    try:
        info = json.loads(value)
        host, port = info["host"], info["port"]
        if info.get("magic") != _MAGIC or not isinstance(host, str) or not isinstance(port, int):
            raise ValueError
    except (ValueError, TypeError, KeyError):
        raise DistNetworkError(f"rank {r}'s address in the store is not one taimatsu wrote: {bytes(value)[:80]!r}") from None  # fmt: skip
    return ("127.0.0.1" if host == socket.gethostname() else host), port
