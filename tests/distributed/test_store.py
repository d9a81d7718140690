"""HashStore / PrefixStore against torch.distributed's (one process)."""

import datetime

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
