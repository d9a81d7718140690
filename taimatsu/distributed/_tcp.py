"""The TCP transport: an mpi4py-shaped communicator over sockets, for ranks MPI did not start.

PyTorch's tutorials start their ranks themselves (``mp.spawn``, ``mp.Process``) and join them
with ``init_process_group(rank=, world_size=)``; such processes are MPI singletons that MPI
cannot join afterwards. For them ``init_process_group`` connects the ranks over TCP
(``rendezvous.py``) and this module stands in for ``mpi4py.MPI``: while a TCP world is up,
``_mpi.mpi()`` returns this module, so the collectives, point-to-point calls and DDP run
unchanged on the small part of MPI's interface they use (``Iallreduce``, ``Ibcast``, ...,
``Isend``/``Irecv``, ``bcast``/``gather``/``scatter``/``allgather``, ``Create``/``Dup``/``Free``).

How it works: every pair of ranks shares one socket. A reader thread per socket files each
incoming message under its key (communicator, collective number or point-to-point tag) in a
mailbox. Sends go out at once (the peer's reader always drains its socket, so a send never
waits on the peer's program). Collectives run in call order on one worker thread per
communicator, so ``async_op=True`` returns at once; their messages are keyed by the
collective's number, so they never mix with each other or with point-to-point messages.
Reductions go through group rank 0, which combines the ranks' data in rank order: every rank
gets the same bits. Every wait is bounded by the group's timeout, and a peer whose connection
ends raises ``DistBackendError`` instead of a hang.
"""

from __future__ import annotations

import collections
import pickle
import queue
import socket
import struct
import threading
import time

import numpy as np

from .errors import DistBackendError

# ---- the names of mpi4py.MPI that the collectives use ------------------------------------


class TransportError(DistBackendError):
    """A transfer failed: a peer closed its connection, a message was truncated, a timeout."""

    torch_error = DistBackendError  # what Work raises for it (PyTorch's gloo raises this type)

    def Get_error_string(self) -> str:
        return str(self)


Exception = TransportError  # mpi4py's name, used as ``MPI.Exception``


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


IN_PLACE = _Sentinel("IN_PLACE")
COMM_NULL = _Sentinel("COMM_NULL")
ANY_SOURCE = -1


class Datatype:
    """An element type: a NumPy dtype, or ``itemsize`` opaque bytes (reduced by a user Op)."""

    def __init__(self, dtype: np.dtype | None, itemsize: int | None = None) -> None:
        self.dtype = dtype
        self.itemsize = dtype.itemsize if itemsize is None else itemsize

    @staticmethod
    def fromcode(code: str) -> Datatype:
        return Datatype(np.dtype(code))

    def Create_contiguous(self, count: int) -> Datatype:
        return Datatype(None, self.itemsize * count)

    def Commit(self) -> Datatype:
        return self


BYTE = Datatype(np.dtype(np.uint8))


class Op:
    """A reduction: a NumPy ufunc on typed elements, or a user function on raw bytes."""

    def __init__(self, ufunc=None, function=None) -> None:
        self._ufunc, self._function = ufunc, function

    @staticmethod
    def Create(function, commute: bool = False) -> Op:
        return Op(function=function)

    def apply(self, incoming: np.ndarray, inout: np.ndarray, datatype: Datatype) -> None:
        """``inout = incoming (op) inout``, on uint8 views of the two buffers."""
        if self._function is not None:
            self._function(incoming, inout, datatype)
        else:
            a, b = incoming.view(datatype.dtype), inout.view(datatype.dtype)
            self._ufunc(a, b, out=b)


SUM, PROD, MIN, MAX = Op(np.add), Op(np.multiply), Op(np.minimum), Op(np.maximum)
BAND, BOR, BXOR = Op(np.bitwise_and), Op(np.bitwise_or), Op(np.bitwise_xor)


class Status:
    def __init__(self) -> None:
        self.source = -1

    def Get_source(self) -> int:
        return self.source


class Request:
    """A started operation; ``Testall`` polls them as ``MPI.Request.Testall`` does."""

    def __init__(self) -> None:
        self._done = False
        self._error: TransportError | None = None
        self._source = -1

    def _test(self) -> bool:
        if self._error is not None:
            raise self._error
        return self._done

    def _block(self, seconds: float) -> None:
        """Wait at most ``seconds`` for progress on this request."""

    @staticmethod
    def Testall(requests, statuses=None) -> bool:
        if not all(r._test() for r in requests):
            return False
        for status, r in zip(statuses or (), requests):
            status.source = r._source
        return True


def wait_all(requests, statuses, limit: float) -> bool:
    """Block until every request is done (True) or ``limit`` seconds have passed (False)."""
    deadline = time.monotonic() + limit
    while not Request.Testall(requests, statuses):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        next(r for r in requests if not r._done)._block(min(left, 0.1))
    return True


class _Job(Request):
    """A collective queued on a communicator's worker thread."""

    def __init__(self) -> None:
        super().__init__()
        self._event = threading.Event()
        self.value = None

    def _settle(self, value=None, error: TransportError | None = None) -> None:
        self.value, self._error = value, error
        self._done = error is None
        self._event.set()

    def _test(self) -> bool:
        return self._event.is_set() and super()._test()

    def _block(self, seconds: float) -> None:
        self._event.wait(seconds)

    def result(self, limit: float):
        """Wait for the job (a blocking collective) and return its value."""
        if not self._event.wait(limit):
            raise TransportError(
                f"timed out after {limit * 1000:.0f}ms waiting for the other ranks"
            )
        self._test()
        return self.value


class _Receive(Request):
    """A posted ``Irecv``: matched, in posting order, against the messages of its key."""

    def __init__(self, comm: Comm, key: str, source: int | None, buffer: np.ndarray) -> None:
        super().__init__()
        self._comm, self._key, self._want, self._buffer = comm, key, source, buffer

    def _test(self) -> bool:
        if not self._done and self._error is None:
            self._comm._match_receives(self)
        return super()._test()

    def _block(self, seconds: float) -> None:
        world = self._comm._world
        with world.cond:  # notified when a message arrives or a connection ends
            box = world._boxes.get(self._key, ())
            if not any(self._want in (None, src) for src, _ in box) and self._want not in world._gone:  # fmt: skip
                world.cond.wait(seconds)


# ---- connections ------------------------------------------------------------------------

_HEADER = struct.Struct("!IQ")  # key length, payload length


def read_exact(sock: socket.socket, n: int, into: bytearray | None = None) -> bytearray | None:
    """``n`` bytes from ``sock``; None at a clean end of stream before the first byte."""
    buf = bytearray(n) if into is None else into
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            if got == 0:
                return None
            raise ConnectionError("connection closed in the middle of a message")
        got += k
    return buf


def _read_body(sock: socket.socket, n: int) -> bytearray:
    body = read_exact(sock, n) if n else bytearray()
    if body is None:
        raise ConnectionError("connection closed in the middle of a message")
    return body


class World:
    """This process's connections to every other rank, and the messages received so far."""

    def __init__(self, rank: int, size: int, sockets: dict[int, socket.socket], timeout: float) -> None:  # fmt: skip
        self.rank, self.size, self.timeout = rank, size, timeout
        self._sockets = sockets
        self._send_locks = {r: threading.Lock() for r in sockets}
        self.cond = threading.Condition()
        self._boxes: dict[str, collections.deque] = collections.defaultdict(collections.deque)
        self._gone: dict[int, str] = {}
        self.closed = False
        self._readers = [
            threading.Thread(target=self._read, args=(r, s), name=f"taimatsu-tcp-{r}", daemon=True)
            for r, s in sockets.items()
        ]
        for t in self._readers:
            t.start()

    def _read(self, src: int, sock: socket.socket) -> None:
        why = "closed its connection"
        try:
            while True:
                head = read_exact(sock, _HEADER.size)
                if head is None:
                    break
                key_len, size = _HEADER.unpack(head)
                key = _read_body(sock, key_len).decode()
                payload = _read_body(sock, size)
                with self.cond:
                    self._boxes[key].append((src, payload))
                    self.cond.notify_all()
        except (OSError, ValueError) as e:  # a reset, or bytes that are not our messages
            why = f"connection failed ({e})"
        with self.cond:
            self._gone.setdefault(src, why)
            self.cond.notify_all()

    def send(self, dst: int, key: str, payload) -> None:
        """Send ``payload`` (bytes or a contiguous array) to global rank ``dst``, under ``key``."""
        data = memoryview(payload).cast("B")
        k = key.encode()
        try:
            with self._send_locks[dst]:
                self._sockets[dst].sendall(_HEADER.pack(len(k), data.nbytes) + k)
                if data.nbytes:
                    self._sockets[dst].sendall(data)
        except OSError as e:
            with self.cond:
                self._gone.setdefault(dst, f"connection failed ({e})")
            raise self._lost(dst) from None

    def _lost(self, peer: int) -> TransportError:
        if self.closed:
            return TransportError("the process group was destroyed")
        return TransportError(f"Connection closed by peer: rank {peer} {self._gone[peer]}")

    def take(self, key: str, src: int | None):
        """The oldest ``(src, payload)`` under ``key`` (from ``src`` unless None), or None.
        Call with ``cond`` held."""
        box = self._boxes.get(key)
        if not box:
            return None
        for i, (s, payload) in enumerate(box):
            if src is None or s == src:
                del box[i]
                if not box:
                    del self._boxes[key]
                return s, payload
        return None

    def check(self, src: int | None, peers, stop=None) -> None:
        """Raise when no message from ``src`` (any of ``peers`` when None) can come any more.
        Call with ``cond`` held."""
        if self.closed or (stop is not None and stop()):
            raise TransportError("the process group was destroyed")
        if src is not None and src in self._gone:
            raise self._lost(src)
        if src is None and peers and all(p in self._gone for p in peers):
            raise self._lost(next(iter(peers)))

    def receive(self, key: str, src: int, stop) -> bytearray:
        """Wait (at most the timeout) for the next message from ``src`` under ``key``."""
        deadline = time.monotonic() + self.timeout
        with self.cond:
            while True:
                found = self.take(key, src)
                if found is not None:
                    return found[1]
                self.check(src, (src,), stop)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TransportError(
                        f"timed out after {self.timeout * 1000:.0f}ms waiting for rank {src}"
                    )
                self.cond.wait(left)

    def close(self, linger: float = 1.0) -> None:
        """Close every connection: first our side (the peers read all we sent, then the end of
        the stream), then, after waiting at most ``linger`` seconds for the peers to finish
        too, the sockets."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        for s in self._sockets.values():
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        deadline = time.monotonic() + linger
        for t in self._readers:
            t.join(max(0.0, deadline - time.monotonic()))
        for s in self._sockets.values():
            try:
                s.shutdown(socket.SHUT_RDWR)  # wakes a reader still blocked in recv
            except OSError:
                pass
        for t in self._readers:
            t.join(1.0)
        for s in self._sockets.values():
            s.close()


# ---- communicators ----------------------------------------------------------------------


def _buffer(spec):
    """``(uint8 view, datatype, (counts, displacements) or None)`` of an mpi4py buffer spec."""
    if spec is None or spec is IN_PLACE:
        return None
    if isinstance(spec, np.ndarray):
        arr, datatype, vector = spec, Datatype(spec.dtype), None
    else:
        arr, *rest = spec
        datatype = rest[-1]
        vector = rest[0] if len(rest) == 2 and isinstance(rest[0], tuple) else None
    return np.asarray(arr).reshape(-1).view(np.uint8), datatype, vector


class _Group:
    def __init__(self, ranks: list[int]) -> None:
        self.ranks = ranks

    def Incl(self, members) -> _Group:
        return _Group([self.ranks[i] for i in members])


class Comm:
    """A communicator over some of the world's ranks (``ranks[i]`` is group rank i's global rank).

    Communicators made by ``Dup``/``Create`` are numbered by their parent; every member makes
    them in the same order (they are collective calls), so the numbers agree across ranks.
    """

    def __init__(self, world: World, ranks: list[int], cid: str) -> None:
        self._world, self._ranks, self._cid = world, list(ranks), cid
        self._rank = self._ranks.index(world.rank)
        self._collectives = 0
        self._children = 0
        self._posted: dict[str, list[_Receive]] = collections.defaultdict(list)
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._freed = False

    def Get_rank(self) -> int:
        return self._rank

    def Get_size(self) -> int:
        return len(self._ranks)

    def Get_group(self) -> _Group:
        return _Group(self._ranks)

    def Create(self, group: _Group):
        cid = f"{self._cid}.{self._children}"
        self._children += 1
        if self._world.rank not in group.ranks:
            return COMM_NULL
        return Comm(self._world, group.ranks, cid)

    def Dup(self) -> Comm:
        return self.Create(self.Get_group())

    def Free(self) -> None:
        with self._world.cond:
            self._freed = True
            self._world.cond.notify_all()
        if self._worker is not None:
            self._jobs.put(None)
            self._worker.join(5.0)
            self._worker = None

    # -- the worker thread and the messages of one collective --

    def _start(self, body) -> _Job:
        """Queue ``body(key)`` on the worker thread; every rank numbers its collectives alike."""
        key = f"{self._cid}|c|{self._collectives}"
        self._collectives += 1
        job = _Job()
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="taimatsu-tcp-worker", daemon=True)  # fmt: skip
            self._worker.start()
        self._jobs.put((job, body, key))
        return job

    def _work(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, body, key = item
            try:
                job._settle(body(key))
            except TransportError as e:
                job._settle(error=e)
            except BaseException as e:  # noqa: BLE001 - reported to the rank that waits on the job
                job._settle(error=TransportError(f"{type(e).__name__}: {e}"))

    def _put(self, r: int, key: str, data) -> None:
        self._world.send(self._ranks[r], key, data)

    def _get(self, r: int, key: str) -> np.ndarray:
        payload = self._world.receive(key, self._ranks[r], lambda: self._freed)
        return np.frombuffer(payload, dtype=np.uint8)

    def _others(self):
        return (r for r in range(len(self._ranks)) if r != self._rank)

    def _blocking(self, body):
        return self._start(body).result(self._world.timeout + 1.0)

    # -- reductions: through group rank 0, in rank order --

    def _reduce_at(self, key: str, data: np.ndarray, op: Op, datatype: Datatype, root: int):
        """The reduction of every rank's ``data``, on ``root`` (None elsewhere)."""
        if self._rank != root:
            self._put(root, key, data)
            return None
        parts = [data if r == root else self._get(r, key) for r in range(self.Get_size())]
        total = parts[0].copy()
        for part in parts[1:]:
            op.apply(part, total, datatype)
        return total

    def Iallreduce(self, sendbuf, recvbuf, op: Op) -> _Job:
        buf, datatype, _ = _buffer(recvbuf)
        if sendbuf is not IN_PLACE:
            buf[...] = _buffer(sendbuf)[0]

        def body(key):
            total = self._reduce_at(key, buf, op, datatype, 0)
            if total is None:
                buf[...] = self._get(0, key)
            else:
                for r in self._others():
                    self._put(r, key, total)
                buf[...] = total

        return self._start(body)

    def Ireduce(self, sendbuf, recvbuf, op: Op, root: int = 0) -> _Job:
        if sendbuf is IN_PLACE:
            buf, datatype, _ = _buffer(recvbuf)
            out = buf
        else:
            buf, datatype, _ = _buffer(sendbuf)
            out = _buffer(recvbuf)[0] if recvbuf is not None else None

        def body(key):
            total = self._reduce_at(key, buf, op, datatype, root)
            if total is not None:
                out[...] = total

        return self._start(body)

    def Ireduce_scatter_block(self, sendbuf, recvbuf, op: Op) -> _Job:
        send, datatype, _ = _buffer(sendbuf)
        out = _buffer(recvbuf)[0]
        block = out.nbytes

        def body(key):
            total = self._reduce_at(key, send, op, datatype, 0)
            if total is None:
                out[...] = self._get(0, key)
            else:
                for r in self._others():
                    self._put(r, key, total[r * block : (r + 1) * block])
                out[...] = total[:block]

        return self._start(body)

    # -- data movement --

    def Ibcast(self, buf, root: int = 0) -> _Job:
        data = _buffer(buf)[0]

        def body(key):
            if self._rank == root:
                for r in self._others():
                    self._put(r, key, data)
            else:
                data[...] = self._get(root, key)

        return self._start(body)

    def _exchange(self, key: str, sends, recvs) -> None:
        """Send ``sends[r]`` to every other rank r and receive ``recvs[r]`` from it."""
        for r in self._others():
            self._put(r, key, sends[r])
        recvs[self._rank][...] = sends[self._rank]
        for r in self._others():
            recvs[r][...] = self._get(r, key)

    def Iallgather(self, sendbuf, recvbuf) -> _Job:
        send, out = _buffer(sendbuf)[0], _buffer(recvbuf)[0]
        n = self.Get_size()
        blocks = out.reshape(n, -1) if n else out
        return self._start(lambda key: self._exchange(key, [send] * n, list(blocks)))

    def Ialltoall(self, sendbuf, recvbuf) -> _Job:
        n = self.Get_size()
        send, out = _buffer(sendbuf)[0].reshape(n, -1), _buffer(recvbuf)[0].reshape(n, -1)
        return self._start(lambda key: self._exchange(key, list(send), list(out)))

    def Ialltoallv(self, sendbuf, recvbuf) -> _Job:
        def pieces(spec):
            data, datatype, (counts, displs) = _buffer(spec)
            size = datatype.itemsize
            return [data[d * size : (d + c) * size] for c, d in zip(counts, displs)]

        sends, recvs = pieces(sendbuf), pieces(recvbuf)
        return self._start(lambda key: self._exchange(key, sends, recvs))

    def Igather(self, sendbuf, recvbuf, root: int = 0) -> _Job:
        send = _buffer(sendbuf)[0]
        out = _buffer(recvbuf)[0].reshape(self.Get_size(), -1) if self._rank == root else None

        def body(key):
            if self._rank != root:
                self._put(root, key, send)
                return
            out[root] = send
            for r in self._others():
                out[r] = self._get(r, key)

        return self._start(body)

    def Iscatter(self, sendbuf, recvbuf, root: int = 0) -> _Job:
        out = _buffer(recvbuf)[0]
        send = _buffer(sendbuf)[0].reshape(self.Get_size(), -1) if self._rank == root else None

        def body(key):
            if self._rank != root:
                out[...] = self._get(root, key)
                return
            for r in self._others():
                self._put(r, key, send[r])
            out[...] = send[root]

        return self._start(body)

    def Ibarrier(self) -> _Job:
        def body(key):
            if self._rank != 0:
                self._put(0, key, b"")
                self._get(0, key)
                return
            for r in self._others():
                self._get(r, key)
            for r in self._others():
                self._put(r, key, b"")

        return self._start(body)

    # -- objects (pickled), blocking --

    def bcast(self, obj, root: int = 0):
        def body(key):
            if self._rank == root:
                data = pickle.dumps(obj)
                for r in self._others():
                    self._put(r, key, data)
                return obj
            return pickle.loads(self._get(root, key))

        return self._blocking(body)

    def gather(self, obj, root: int = 0):
        def body(key):
            if self._rank != root:
                self._put(root, key, pickle.dumps(obj))
                return None
            return [obj if r == root else pickle.loads(self._get(r, key)) for r in range(self.Get_size())]  # fmt: skip

        return self._blocking(body)

    def scatter(self, objs, root: int = 0):
        def body(key):
            if self._rank != root:
                return pickle.loads(self._get(root, key))
            for r in self._others():
                self._put(r, key, pickle.dumps(objs[r]))
            return objs[root]

        return self._blocking(body)

    def allgather(self, obj):
        def body(key):
            data = pickle.dumps(obj)
            for r in self._others():
                self._put(r, key, data)
            return [obj if r == self._rank else pickle.loads(self._get(r, key)) for r in range(self.Get_size())]  # fmt: skip

        return self._blocking(body)

    # -- point to point: sends leave at once, receives match in posting order --

    def Isend(self, buf, dest: int, tag: int = 0) -> Request:
        self._put(dest, f"{self._cid}|p|{tag}", _buffer(buf)[0])
        done = Request()
        done._done = True
        return done

    def Irecv(self, buf, source: int = ANY_SOURCE, tag: int = 0) -> Request:
        key = f"{self._cid}|p|{tag}"
        want = None if source == ANY_SOURCE else self._ranks[source]
        request = _Receive(self, key, want, _buffer(buf)[0])
        with self._world.cond:
            self._posted[key].append(request)
        return request

    def _match_receives(self, request: _Receive) -> None:
        """Give the messages that have arrived to the posted receives of ``request``'s key,
        oldest receive first (MPI's matching order); raise for ``request`` if its message can
        no longer come."""
        world = self._world
        with world.cond:
            posted = self._posted[request._key]
            for r in list(posted):
                found = world.take(r._key, r._want)
                if found is None:
                    continue
                posted.remove(r)
                src, payload = found
                r._source = self._ranks.index(src)
                if len(payload) > r._buffer.nbytes:
                    r._error = TransportError(
                        f"message truncated: {len(payload)} bytes received into a "
                        f"{r._buffer.nbytes}-byte tensor"
                    )
                    continue
                r._buffer[: len(payload)] = np.frombuffer(payload, dtype=np.uint8)
                r._done = True
            if not request._done and request._error is None:
                peers = [p for p in self._ranks if p != world.rank]
                world.check(request._want, peers, lambda: self._freed)
