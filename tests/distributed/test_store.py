"""HashStore / PrefixStore against torch.distributed's (one process)."""

import datetime
import multiprocessing
import socket
import threading

import pytest
import torch.distributed as tdist

import taimatsu.distributed as dist


def _script(d):
    s = d.HashStore()
    out = []
    s.set("a", "x")
    out += [s.get("a"), s.num_keys(), s.add("c", 3), s.add("c", 2), s.get("c"), s.num_keys()]
    out += [s.check(["a", "z"]), s.check(["a", "c"])]
    out += [s.compare_set("a", "x", "y"), s.compare_set("a", "nope", "q"), s.get("a")]
    out += [s.compare_set("q", "", "n"), s.compare_set("r", "w", "n"), s.check(["r"])]
    s.append("a", "zz")
    s.append("new", b"\x00\x01")
    out += [s.get("a"), s.get("new"), s.multi_get(["a", "c"])]
    s.multi_set(["m", "n"], ["1", b"2"])
    out += [s.delete_key("m"), s.delete_key("m"), s.num_keys(), s.timeout]
    p = d.PrefixStore("pre", s)
    p.set("k", "v")
    out += [s.get("pre/k"), p.get("k"), p.add("cnt", 7), s.get("pre/cnt"), p.num_keys()]
    out += [p.check(["k"]), p.check(["a"]), p.underlying_store is s, p.delete_key("k")]
    s.set_timeout(datetime.timedelta(milliseconds=50))
    for call in (
        lambda: s.get("none"),
        lambda: s.wait(["none"], datetime.timedelta(milliseconds=50)),
    ):
        with pytest.raises(d.DistStoreError) as e:
            call()
        out.append((type(e.value).__name__, isinstance(e.value, RuntimeError), str(e.value)))
    with pytest.raises(TypeError):
        s.set(1, "x")
    return out


def test_hash_and_prefix_store_match_torch():
    got, want = _script(dist), _script(tdist)
    assert got == want
    assert all(type(g) is type(w) for g, w in zip(got, want))


def _file_script(d, path):
    s = d.FileStore(path, 1)
    out = [s.num_keys()]
    s.set("a", "x")
    out += [s.num_keys(), s.add("c", 2), s.num_keys(), s.get("c"), s.timeout, s.path == path]
    out += [s.compare_set("a", "x", "y"), s.get("a"), s.check(["a", "zz"])]
    s.append("a", b"!")
    out += [s.get("a"), s.delete_key("a"), s.delete_key("a"), s.num_keys()]
    other = d.FileStore(path, 1)
    out += [other.get("c"), other.num_keys(), other.add("c", 5), s.get("c")]
    s.set_timeout(datetime.timedelta(milliseconds=50))
    with pytest.raises(RuntimeError) as e:
        s.get("zz")
    out.append(str(e.value))
    with pytest.raises(TypeError):
        d.FileStore(path, "x")
    return out


def test_file_store_matches_torch(tmp_path):
    got = _file_script(dist, str(tmp_path / "ours"))
    want = _file_script(tdist, str(tmp_path / "theirs"))
    assert got == want
    assert all(type(g) is type(w) for g, w in zip(got, want))


def _tcp_script(d):
    s = d.TCPStore("127.0.0.1", 0, 1, True, datetime.timedelta(seconds=10))
    out = [s.port > 0, s.host, s.num_keys()]
    s.set("a", "x")
    out += [
        s.num_keys(),
        s.add("c", 1),
        s.num_keys(),
        s.get("c"),
        s.delete_key("a"),
        s.delete_key("a"),
    ]
    out += [s.compare_set("c", "1", "7"), s.check(["c"]), s.check(["a"]), s.timeout]
    s.set_timeout(datetime.timedelta(milliseconds=50))
    with pytest.raises(d.DistStoreError) as e:
        s.get("zz")
    out.append(str(e.value))
    return out


def test_tcp_store_one_process_matches_torch():
    got, want = _tcp_script(dist), _tcp_script(tdist)
    assert got == want
    assert all(type(g) is type(w) for g, w in zip(got, want))


def _tcp_client(port, queue):
    s = dist.TCPStore("127.0.0.1", port, 2, False, datetime.timedelta(seconds=10))
    s.set("from_client", b"\x01\x02")
    queue.put((s.get("from_master"), s.add("count", 10)))


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_tcp_store_two_processes():
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    port = _free_port()
    built = {}

    def build_master():  # the master waits for both workers, so it is built while the client starts
        built["store"] = dist.TCPStore("127.0.0.1", port, 2, True, datetime.timedelta(seconds=20))

    thread = threading.Thread(target=build_master, daemon=True)
    thread.start()
    proc = ctx.Process(target=_tcp_client, args=(port, queue))
    proc.start()
    try:
        thread.join(30)
        master = built["store"]
        master.add("count", 1)
        master.set("from_master", "hi")
        assert queue.get(timeout=30) == (b"hi", 11)
        assert master.get("from_client") == b"\x01\x02"
        assert master.num_keys() == 4
        proc.join(30)
        assert proc.exitcode == 0
    finally:
        if proc.is_alive():
            proc.kill()
            proc.join()


class _Planted:
    """Unpickling this object would create ``path`` (the test's proof that code ran)."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_stores_never_unpickle_what_they_read(tmp_path):
    """A stranger who can write a FileStore's file or reach a TCPStore's port can change keys but
    cannot run code: neither reads pickles; the master answers only the store's own requests and
    keeps serving its clients."""
    import pickle
    import socket
    import struct

    planted = tmp_path / "ran"
    path = str(tmp_path / "store")
    with open(path, "wb") as f:
        f.write(pickle.dumps(_Planted(str(planted))))
    with pytest.raises(ValueError):  # not a store's file: refused, nothing run
        dist.FileStore(path, 1)
    assert not planted.exists()

    s = dist.TCPStore("127.0.0.1", 0, 1, True, datetime.timedelta(seconds=10))
    s.set("k", "v")
    blob = pickle.dumps(("set", [_Planted(str(planted))]))
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as c:
        c.sendall(struct.pack("!Q", len(blob)) + blob)
        c.settimeout(5)
        assert c.recv(8) == b""  # the master hangs up on a frame that is not JSON
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as c:
        frame = b'["__init__", []]'
        c.sendall(struct.pack("!Q", len(frame)) + frame)
        c.settimeout(5)
        (n,) = struct.unpack("!Q", c.recv(8))
        assert b"unknown store request" in c.recv(n)
    assert not planted.exists()
    assert s.get("k") == b"v"  # still serving
