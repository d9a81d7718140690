"""Checkpoints: torch.save/torch.load in PyTorch's zip format (both directions, checked against real
PyTorch), the weights-only unpickler, hostile archives, failure injection, and safetensors."""

import io
import os
import pathlib
import pickle
import signal
import subprocess
import sys
import textwrap
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import serialization as ser
from taimatsu.serialization import _format, _zip
from taimatsu.utils import safetensors as st

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]  # fmt: skip


def _torch_sample(torch, name, shape=(3, 4)):
    g = torch.Generator().manual_seed(0)
    dt = getattr(torch, name)
    if name == "bool":
        return torch.rand(shape, generator=g) > 0.5
    if dt.is_floating_point or dt.is_complex:
        return (
            (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dt)
            if not dt.is_complex
            else torch.randn(shape, generator=g, dtype=dt)
        )
    return torch.randint(-100 if name != "uint8" else 0, 100, shape, generator=g, dtype=dt)


def _raw(t):
    """A taimatsu or torch tensor's elements as a NumPy array of the same bytes (bfloat16 as uint16)."""
    if isinstance(t, tm.Tensor):
        a = t._data
        return a.view(np.uint16) if t.dtype is tm.bfloat16 else np.asarray(a)
    import torch

    if t.dtype is torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.detach().numpy()


def _same(a, b):
    assert str(a.dtype) == str(b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    assert tuple(a.stride()) == tuple(b.stride())
    assert a.storage_offset() == b.storage_offset()
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(_raw(a), _raw(b))


def _shares(a, b) -> bool:
    return np.shares_memory(a._data, b._data)


# ---- PyTorch -> taimatsu ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
def test_torch_to_taimatsu_every_dtype(torch_oracle, tmp_path, name):
    torch = torch_oracle
    x = _torch_sample(torch, name)
    torch.save({"x": x, "t": x.t(), "s": x[1:, ::2]}, tmp_path / "ck.pt")
    got = tm.load(tmp_path / "ck.pt")
    for k, v in {"x": x, "t": x.t(), "s": x[1:, ::2]}.items():
        _same(got[k], v)
    assert _shares(got["x"], got["t"]) and _shares(got["x"], got["s"])
    assert got["x"]._storage is got["s"]._storage


def test_torch_views_share_storage_after_load(torch_oracle, tmp_path):
    torch = torch_oracle
    base = torch.arange(24.0).reshape(2, 3, 4)
    views = {"base": base, "perm": base.permute(2, 0, 1), "narrow": base[:, 1], "step": base[..., ::3],
             "expand": base[0, 0, :1].expand(5, 3), "flat_tail": base.view(-1)[7:]}  # fmt: skip
    torch.save(views, tmp_path / "v.pt")
    got = tm.load(tmp_path / "v.pt")
    for k, v in views.items():
        _same(got[k], v)
    got["base"].mul_(10)  # in place through the base: every loaded view sees it
    np.testing.assert_array_equal(got["perm"]._data, np.transpose(got["base"]._data, (2, 0, 1)))
    assert got["flat_tail"][0].item() == 70.0
    assert got["expand"].stride() == (0, 0) or got["expand"].stride() == tuple(
        views["expand"].stride()
    )


def test_torch_containers_and_scalars(torch_oracle, tmp_path):
    torch = torch_oracle
    t = torch.tensor([1.5, -2.0])
    od = OrderedDict([("w", t), ("n", 3)])
    obj = {"list": [t, 1, 2.5, "s", None, True], "tuple": (t, (t,)), "od": od, "bytes": b"\x00ab",
           "set": {1, 2}, "complex": 1 + 2j, "counter": Counter("aab"), "size": torch.Size([2, 3]),
           "device": torch.device("cpu"), "dtype": torch.float16, "big": 2**70, "neg": -(2**40), "empty": {}}  # fmt: skip
    torch.save(obj, tmp_path / "c.pt")
    got = tm.load(tmp_path / "c.pt")
    assert type(got["od"]) is OrderedDict and list(got["od"]) == ["w", "n"]
    assert got["list"][1:] == [1, 2.5, "s", None, True]
    assert got["tuple"][1][0] is got["tuple"][0] is got["list"][0]  # one object, memoised
    assert got["bytes"] == b"\x00ab" and got["set"] == {1, 2} and got["complex"] == 1 + 2j
    assert got["counter"] == Counter("aab") and got["big"] == 2**70 and got["neg"] == -(2**40)
    assert got["size"] == tm.Size([2, 3]) and type(got["size"]) is tm.Size
    assert got["device"] == tm.device("cpu") and got["dtype"] is tm.float16
    _same(got["od"]["w"], t)


def test_torch_parameters_requires_grad_and_state_dict(torch_oracle, tmp_path):
    torch = torch_oracle
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    leaf = torch.ones(2, requires_grad=True)
    torch.save(
        {"sd": lin.state_dict(), "p": lin.weight, "leaf": leaf, "nl": leaf * 2}, tmp_path / "m.pt"
    )
    got = tm.load(tmp_path / "m.pt")
    assert got["sd"]._metadata == lin.state_dict()._metadata
    _same(got["sd"]["weight"], lin.state_dict()["weight"])
    assert type(got["p"]).__name__ == "Parameter" and got["p"].requires_grad
    assert got["leaf"].requires_grad and got["leaf"].is_leaf
    assert got["nl"].requires_grad and got["nl"].is_leaf  # PyTorch saves a non-leaf as a leaf


def test_load_state_dict_into_taimatsu_module(torch_oracle, tmp_path):
    torch = torch_oracle
    if not hasattr(tm.nn, "Linear"):
        pytest.skip("taimatsu.nn.Linear not available yet")
    torch.manual_seed(0)
    ref = torch.nn.Linear(4, 3)
    torch.save(ref.state_dict(), tmp_path / "lin.pt")
    m = tm.nn.Linear(4, 3)
    m.load_state_dict(tm.load(tmp_path / "lin.pt"))
    x = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(
        m(tm.from_numpy(x)).detach().numpy(), ref(torch.from_numpy(x)).detach().numpy(), rtol=1e-6
    )
    # and back: taimatsu's state_dict loads into the torch module
    tm.save(m.state_dict(), tmp_path / "lin2.pt")
    ref2 = torch.nn.Linear(4, 3)
    ref2.load_state_dict(torch.load(tmp_path / "lin2.pt"))
    assert torch.equal(ref2.weight, ref.weight)


# ---- taimatsu -> PyTorch ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
def test_taimatsu_to_torch_every_dtype(torch_oracle, tmp_path, name):
    torch = torch_oracle
    src = _torch_sample(torch, name)
    x = tm.load(_saved_by_torch(torch, tmp_path, src))  # same values, made in taimatsu's memory
    x = x.clone()
    objs = {"x": x, "t": x.t(), "s": x[1:, ::2]}
    tm.save(objs, tmp_path / "tm.pt")
    got = torch.load(tmp_path / "tm.pt", weights_only=True)
    for k, v in objs.items():
        _same(v, got[k])
    ptr = got["x"].untyped_storage().data_ptr()
    assert (
        got["t"].untyped_storage().data_ptr() == ptr
        and got["s"].untyped_storage().data_ptr() == ptr
    )


def _saved_by_torch(torch, tmp_path, t):
    p = tmp_path / "src.pt"
    torch.save(t, p)
    return p


def test_taimatsu_to_torch_views_containers_params(torch_oracle, tmp_path):
    torch = torch_oracle
    base = tm.arange(24.0).reshape(2, 3, 4)
    p = tm.nn.Parameter(tm.ones(2, 2))
    leaf = tm.ones(3, requires_grad=True)
    obj = {"base": base, "perm": base.permute(2, 0, 1), "step": base[..., ::3], "tail": base.reshape(-1)[7:],
           "exp": base[0, 0, :1].expand(5, 3), "p": p, "leaf": leaf, "meta": ("a", 1, 2.5, None, [True]),
           "od": OrderedDict(a=tm.zeros(1)), "size": tm.Size([1, 2]), "dev": tm.device("cpu"), "dt": tm.bfloat16,
           "empty": tm.zeros(0, 3), "scalar": tm.tensor(5)}  # fmt: skip
    tm.save(obj, tmp_path / "o.pt")
    got = torch.load(tmp_path / "o.pt")
    for k in ("base", "perm", "step", "tail", "exp", "leaf", "empty", "scalar"):
        _same(obj[k], got[k])
    assert isinstance(got["p"], torch.nn.Parameter) and got["p"].requires_grad
    assert got["meta"] == ("a", 1, 2.5, None, [True]) and type(got["od"]) is OrderedDict
    assert (
        got["size"] == torch.Size([1, 2])
        and got["dev"] == torch.device("cpu")
        and got["dt"] is torch.bfloat16
    )
    got["base"].add_(1)
    assert got["tail"][0].item() == 8.0  # storage sharing survives in PyTorch too
    back = tm.load(tmp_path / "o.pt")
    assert (
        type(back["p"]).__name__ == "Parameter"
        and back["p"].requires_grad
        and back["leaf"].requires_grad
    )


def test_archive_bytes_match_pytorch(torch_oracle, tmp_path):
    """Record for record, byte for byte, except the random serialization id."""
    torch = torch_oracle
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    t = torch.arange(12.0).reshape(3, 4)
    torch.save({"a": t, "b": t.t(), "c": torch.ones(2, dtype=torch.int8)}, tmp_path / "a" / "ck.pt")
    x = tm.arange(12.0).reshape(3, 4)
    tm.save({"a": x, "b": x.t(), "c": tm.ones(2, dtype=tm.int8)}, tmp_path / "b" / "ck.pt")
    ra, rb = (tmp_path / "a" / "ck.pt").read_bytes(), (tmp_path / "b" / "ck.pt").read_bytes()
    assert len(ra) == len(rb)
    za, zb = zipfile.ZipFile(io.BytesIO(ra)), zipfile.ZipFile(io.BytesIO(rb))
    assert [i.filename for i in za.infolist()] == [i.filename for i in zb.infolist()]
    for ia, ib in zip(za.infolist(), zb.infolist()):
        assert ia.header_offset == ib.header_offset
        if not ia.filename.endswith("serialization_id"):
            assert za.read(ia) == zb.read(ib), ia.filename
    sid = za.getinfo("ck/.data/serialization_id")
    start = sid.header_offset
    assert ra[:start] == rb[:start]


def test_file_objects_paths_and_offsets(torch_oracle, tmp_path):
    torch = torch_oracle
    x = tm.arange(5.0)
    buf = io.BytesIO()
    tm.save(x, buf)
    assert zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()[0] == "archive/data.pkl"
    buf.seek(0)
    assert torch.equal(torch.load(buf), torch.arange(5.0))
    buf.seek(0)
    _same(tm.load(buf), x)
    for p in (str(tmp_path / "s.pt"), pathlib.Path(tmp_path / "p.pt")):
        tm.save(x, p)
        _same(tm.load(p), x)
    # a checkpoint after other data in the same stream, loaded from there
    buf = io.BytesIO()
    buf.write(b"header!")
    tm.save({"x": x}, buf)
    buf.seek(7)
    _same(tm.load(buf)["x"], x)
    with open(tmp_path / "fh.pt", "wb") as f:
        torch.save(torch.arange(3), f)
    with open(tmp_path / "fh.pt", "rb") as f:
        assert tm.load(f).tolist() == [0, 1, 2]


def test_map_location_variants(tmp_path):
    x = tm.arange(4.0)
    tm.save({"x": x}, tmp_path / "c.pt")
    for ml in ("cpu", tm.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s, lambda s, loc: None):
        got = tm.load(tmp_path / "c.pt", map_location=ml)
        _same(got["x"], x)
    seen = []
    tm.load(tmp_path / "c.pt", map_location=lambda s, loc: seen.append((loc, s.nbytes())) or s)
    assert seen == [("cpu", 16)]


def test_cuda_tagged_storages(tmp_path):
    """A checkpoint from a GPU machine: needs map_location on a CPU-only one."""
    path = _rewrite_pickle(
        tmp_path,
        tm.arange(3.0),
        lambda pkl: pkl.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0"),
    )
    if not tm.cuda.is_available():
        with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
            tm.load(path)
    assert tm.load(path, map_location="cpu").tolist() == [0.0, 1.0, 2.0]
    assert tm.load(path, map_location={"cuda:0": "cpu"}).tolist() == [0.0, 1.0, 2.0]
    assert tm.load(path, map_location=lambda s, loc: s).device == tm.device("cpu")


def test_mmap_shares_file_pages(torch_oracle, tmp_path):
    torch = torch_oracle
    t = torch.arange(1000, dtype=torch.float64)
    torch.save({"t": t, "v": t[10:20]}, tmp_path / "m.pt")
    got = tm.load(tmp_path / "m.pt", mmap=True)
    _same(got["t"], t)
    _same(got["v"], t[10:20])
    a = got["t"]._data
    while a is not None and not isinstance(a, np.memmap):
        a = a.base
    assert isinstance(a, np.memmap)  # no copy: the tensor's memory is the mapped file
    got["t"][0] = -1.0  # copy-on-write (PyTorch's default MAP_PRIVATE): the file is untouched
    assert got["v"]._storage is got["t"]._storage
    assert torch.load(tmp_path / "m.pt")["t"][0].item() == 0.0
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        tm.load(io.BytesIO((tmp_path / "m.pt").read_bytes()), mmap=True)


def test_zip64_structures_load_everywhere(torch_oracle, tmp_path, monkeypatch):
    torch = torch_oracle
    monkeypatch.setattr(_zip, "_ZIP64_LIMIT", 0)
    x = tm.arange(10.0)
    tm.save({"x": x, "y": x[2:]}, tmp_path / "z.pt")
    assert zipfile.ZipFile(tmp_path / "z.pt").testzip() is None
    got = torch.load(tmp_path / "z.pt")
    assert torch.equal(got["y"], torch.arange(2.0, 10.0))
    _same(tm.load(tmp_path / "z.pt")["y"], x[2:])


# ---- weights_only -------------------------------------------------------------------------------------
class Point:  # module level so plain pickle can find it
    def __init__(self, x):
        self.x = x


class _Evil:
    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


def _archive(tmp_path, data_pkl: bytes, storages=(), name="evil.pt"):
    path = tmp_path / name
    with open(path, "wb") as f:
        zw = _zip.ZipWriter(f.write, "evil")
        zw.write_record("data.pkl", data_pkl)
        for key, data in storages:
            zw.write_record(f"data/{key}", data)
        zw.write_record("version", b"3\n")
        zw.finish()
    return path


def _rewrite_pickle(tmp_path, obj, edit):
    buf = io.BytesIO()
    tm.save(obj, buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    path = tmp_path / "rewritten.pt"
    with open(path, "wb") as f:
        zw = _zip.ZipWriter(f.write, "archive")
        for n in z.namelist():
            data = z.read(n)
            zw.write_record(n.split("/", 1)[1], edit(data) if n.endswith("data.pkl") else data)
        zw.finish()
    return path


HOSTILE = [
    ("os.system", lambda m: _Evil(os.system, f"touch {m}")),
    ("eval", lambda m: _Evil(eval, f"open({str(m)!r}, 'w')")),
    ("exec", lambda m: _Evil(exec, f"open({str(m)!r}, 'w')")),
    ("subprocess", lambda m: _Evil(subprocess.call, ["touch", str(m)])),
    ("nested", lambda m: _Evil(getattr, _Evil(__import__, "os"), "system")),
    ("in_container", lambda m: {"ok": [1, 2], "bad": _Evil(os.system, f"touch {m}")}),
]


@pytest.mark.parametrize("case", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_weights_only_refuses_code_before_running_it(torch_oracle, tmp_path, case):
    torch = torch_oracle
    marker = tmp_path / "pwned"
    path = _archive(tmp_path, pickle.dumps(case[1](marker), protocol=2))
    with pytest.raises(pickle.UnpicklingError) as ours:
        tm.load(path)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(path)
    assert str(ours.value).startswith("Weights only load failed.")
    assert str(ours.value) == str(theirs.value)
    assert not marker.exists()


def test_weights_only_false_and_allow_lists(torch_oracle, tmp_path):
    torch = torch_oracle
    tm.save({"pt": Point(tm.ones(1))}, tmp_path / "p.pt")
    with pytest.raises(pickle.UnpicklingError) as ours:
        tm.load(tmp_path / "p.pt")
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(tmp_path / "p.pt")
    assert str(ours.value) == str(theirs.value)
    assert f"GLOBAL {__name__}.Point was not an allowed global" in str(ours.value)
    assert tm.load(tmp_path / "p.pt", weights_only=False)["pt"].x.tolist() == [1.0]
    with ser.safe_globals([Point]):
        assert Point in ser.get_safe_globals()
        assert tm.load(tmp_path / "p.pt")["pt"].x.tolist() == [1.0]
    assert Point not in ser.get_safe_globals()
    ser.add_safe_globals([(Point, f"{__name__}.Point")])
    try:
        assert isinstance(tm.load(tmp_path / "p.pt")["pt"], Point)
    finally:
        ser.clear_safe_globals()
    ser.add_safe_globals([os.system])  # blocked modules stay blocked
    try:
        with pytest.raises(
            pickle.UnpicklingError, match="whose module posix is blocked|whose module nt is blocked"
        ):
            tm.load(_archive(tmp_path, pickle.dumps(_Evil(os.system, "true"), protocol=2)))
    finally:
        ser.clear_safe_globals()
    with pytest.raises(
        RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"
    ):
        tm.load(tmp_path / "p.pt", pickle_module=pickle, weights_only=True)
    assert tm.load(tmp_path / "p.pt", pickle_module=pickle)["pt"].x.tolist() == [
        1.0
    ]  # explicit module: unsafe


def test_weights_only_opcode_tricks(tmp_path):
    """Pickles that try to reach code through the memo, protocol 4 or BUILD on a refused type."""
    for proto in (3, 4, 5):
        path = _archive(
            tmp_path, pickle.dumps(_Evil(os.system, "true"), protocol=proto), name=f"p{proto}.pt"
        )
        with (
            pytest.warns(UserWarning, match="Detected pickle protocol"),
            pytest.raises(pickle.UnpicklingError, match="Weights only load failed"),
        ):
            tm.load(path)
    # BINPERSID with something other than a storage
    pkl = b"\x80\x02X\x04\x00\x00\x00evilq\x00\x85Q."
    with pytest.raises(pickle.UnpicklingError, match="Only persistent_load of storage is allowed"):
        tm.load(_archive(tmp_path, pkl, name="pid.pt"))
    # APPEND into a non-list / SETITEM into a non-dict
    with pytest.raises(pickle.UnpicklingError, match="Can only append to lists"):
        tm.load(_archive(tmp_path, b"\x80\x02)K\x01a.", name="app.pt"))
    with pytest.raises(pickle.UnpicklingError, match="Can only SETITEM"):
        tm.load(_archive(tmp_path, b"\x80\x02]K\x01K\x02s.", name="set.pt"))
    with pytest.raises(pickle.UnpicklingError, match="corrupted or truncated"):
        tm.load(_archive(tmp_path, b"\x80\x02h\x07.", name="memo.pt"))  # BINGET of nothing
    with pytest.raises(pickle.UnpicklingError, match="bytearray can only be rebuilt"):
        tm.load(
            _archive(
                tmp_path, b"\x80\x02c__builtin__\nbytearray\nJ\x00\x00\x00\x7f\x85R.", name="ba.pt"
            )
        )


# ---- hostile and corrupt archives ---------------------------------------------------------------------
class _PidPickler(_format.Pickler):
    dispatch = _format.Pickler.dispatch.copy()

    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, _Pid) else None


class _Pid:
    def __init__(self, pid):
        self.pid = pid


def _tensor_pickle(pid, offset, size, stride):
    buf = io.BytesIO()
    g = _format._REBUILD_TENSOR_V2
    _PidPickler(buf, 2).dump(_Evil(g, _Pid(pid), offset, size, stride, False, OrderedDict()))
    return buf.getvalue()


def _float_pid(key="0", numel=4):
    return ("storage", _format._Global("torch", "FloatStorage"), key, "cpu", numel)


def test_crafted_tensor_records_load(tmp_path):
    path = _archive(
        tmp_path,
        _tensor_pickle(_float_pid(), 1, (3,), (1,)),
        [("0", np.arange(4, dtype=np.float32).tobytes())],
    )
    assert tm.load(path).tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "pid,offset,size,stride,data,match",
    [
        (_float_pid(numel=4), 0, (5,), (1,), 16, "out of bounds for storage of size 16"),
        (_float_pid(numel=4), 2, (2, 2), (2, 1), 16, "out of bounds"),
        (_float_pid(numel=4), 0, (2**20, 2**20), (1, 1), 16, "out of bounds"),
        (_float_pid(numel=4), 0, (2**62, 2**62), (0, 0), 16, "more than 2\\*\\*63 elements"),
        (_float_pid(numel=4), 0, (2,), (-1,), 16, "negative strides"),
        (_float_pid(numel=4), 0, (-2,), (1,), 16, "negative dimension"),
        (_float_pid(numel=4), -1, (2,), (1,), 16, "invalid storage offset"),
        (_float_pid(numel=2**60), 0, (2,), (1,), 16, "holds 16 bytes but the checkpoint declares"),
        (_float_pid(numel=8), 0, (2,), (1,), 16, "holds 16 bytes but the checkpoint declares"),
        (_float_pid(key="../0"), 0, (2,), (1,), 16, "failed locating file data/../0"),
        (_float_pid(numel=-3), 0, (2,), (1,), 16, "invalid storage record id"),
        (
            ("storage", _format._Global("torch", "Float8Storage"), "0", "cpu", 4),
            0,
            (2,),
            (1,),
            16,
            "Unsupported global",
        ),
        (
            ("storage", _format._Global("torch", "FloatStorage"), "0", "mars", 4),
            0,
            (2,),
            (1,),
            16,
            "tagged with mars",
        ),
        (_float_pid(), 0, (2,), "1", 16, "size and stride must be tuples"),
    ],
)
def test_hostile_tensor_records(tmp_path, pid, offset, size, stride, data, match):
    path = _archive(tmp_path, _tensor_pickle(pid, offset, size, stride), [("0", bytes(data))])
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match=match):
        tm.load(path)


def test_truncated_and_corrupt_archives(tmp_path):
    good = io.BytesIO()
    tm.save({"x": tm.arange(100.0), "y": [1, 2]}, good)
    raw = good.getvalue()
    for cut in (1, 10, 100, len(raw) // 2, len(raw) - 30, len(raw) - 1):
        with pytest.raises((RuntimeError, pickle.UnpicklingError, EOFError)):
            tm.load(io.BytesIO(raw[:cut]))
    # flip bytes everywhere: always a Python exception, never a crash or a wrong result
    rng = np.random.default_rng(0)
    for _ in range(60):
        bad = bytearray(raw)
        for i in rng.integers(0, len(raw), 3):
            bad[i] ^= 0xFF
        try:
            out = tm.load(io.BytesIO(bytes(bad)))
        except (
            RuntimeError,
            pickle.UnpicklingError,
            EOFError,
            ValueError,
            UnicodeDecodeError,
            TypeError,
        ):
            continue
        assert out["x"].tolist() == list(np.arange(100.0)) and out["y"] == [1, 2]
    with pytest.raises(EOFError):
        tm.load(io.BytesIO(b""))
    with pytest.raises(RuntimeError, match="not a zip archive"):
        tm.load(io.BytesIO(b"definitely not a checkpoint"))
    with pytest.raises(RuntimeError, match="CRC-32 check failed"):
        bad = bytearray(raw)
        bad[raw.index(np.arange(100.0, dtype=np.float32).tobytes()) + 5] ^= 1
        tm.load(io.BytesIO(bytes(bad)))


def test_zip_bomb_and_lying_directories_are_refused(tmp_path):
    bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/data.pkl", pickle.dumps([1], protocol=2))
        z.writestr("archive/data/0", b"\x00" * 10_000_000)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(RuntimeError, match="compressed"):
        tm.load(bomb)
    # a central directory whose sizes point past the end of the file
    buf = io.BytesIO()
    tm.save(tm.zeros(4), buf)
    raw = bytearray(buf.getvalue())
    cd = raw.index(b"PK\x01\x02")
    raw[cd + 20 : cd + 28] = (0x7FFFFFFF).to_bytes(4, "little") * 2
    with pytest.raises(RuntimeError, match="outside the archive|out of bounds"):
        tm.load(io.BytesIO(bytes(raw)))


# ---- nothing lost on a failed save --------------------------------------------------------------------
class _Unpicklable:
    def __reduce__(self):
        raise RuntimeError("cannot pickle this")


def _good_checkpoint(path):
    tm.save({"step": 1, "w": tm.arange(1000.0)}, path)
    return path.read_bytes()


def _assert_intact(path, before):
    assert path.read_bytes() == before
    assert tm.load(path)["step"] == 1
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_pickling_error_leaves_previous_checkpoint(tmp_path):
    path = tmp_path / "ck.pt"
    before = _good_checkpoint(path)
    with pytest.raises(RuntimeError, match="cannot pickle this"):
        tm.save({"step": 2, "w": tm.zeros(1000), "bad": _Unpicklable()}, path)
    _assert_intact(path, before)
    buf = io.BytesIO()
    with pytest.raises(RuntimeError):
        tm.save({"bad": _Unpicklable()}, buf)
    assert buf.getvalue() == b""  # a file object gets nothing either


class _DiskFull:
    def __init__(self, f, budget):
        self.f, self.budget = f, budget

    def write(self, data):
        n = memoryview(data).nbytes
        if n > self.budget:
            raise OSError(28, "No space left on device")
        self.budget -= n
        return self.f.write(data)

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


@pytest.mark.parametrize("budget", [0, 100, 1500])
def test_disk_full_leaves_previous_checkpoint(tmp_path, monkeypatch, budget):
    path = tmp_path / "ck.pt"
    before = _good_checkpoint(path)
    real = ser._open_tmp
    monkeypatch.setattr(ser, "_open_tmp", lambda fd: _DiskFull(real(fd), budget))
    with pytest.raises(OSError, match="No space left"):
        tm.save({"step": 2, "w": tm.zeros(1000)}, path)
    monkeypatch.undo()
    _assert_intact(path, before)


@pytest.mark.parametrize("fail", ["fsync", "replace"])
def test_fsync_or_rename_failure_leaves_previous_checkpoint(tmp_path, monkeypatch, fail):
    path = tmp_path / "ck.pt"
    before = _good_checkpoint(path)

    def boom(*a, **k):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, fail, boom)
    with pytest.raises(OSError, match="I/O error"):
        tm.save({"step": 2}, path)
    monkeypatch.undo()
    _assert_intact(path, before)


def test_file_like_write_error_propagates(tmp_path):
    class Broken(io.BytesIO):
        def write(self, b):
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        tm.save(tm.zeros(3), Broken())


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_process_killed_mid_write_leaves_previous_checkpoint(tmp_path):
    path = tmp_path / "ck.pt"
    before = _good_checkpoint(path)
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {os.getcwd()!r})
        import taimatsu as tm
        from taimatsu import serialization as ser
        real = ser._open_tmp
        class Killer:
            def __init__(self, f): self.f, self.n = f, 0
            def write(self, b):
                self.n += 1
                if self.n == 12:  # in the middle of the storage records
                    self.f.flush()
                    os.kill(os.getpid(), signal.SIGKILL)
                return self.f.write(b)
            def __getattr__(self, k): return getattr(self.f, k)
            def __enter__(self): return self
            def __exit__(self, *e): self.f.close()
        ser._open_tmp = lambda fd: Killer(real(fd))
        tm.save({{"step": 2, "w": tm.zeros(100000), "v": tm.ones(10)}}, {str(path)!r})
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=os.getcwd(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    assert path.read_bytes() == before
    assert tm.load(path)["step"] == 1


def test_save_through_symlink_replaces_target_file(tmp_path):
    real = tmp_path / "real.pt"
    link = tmp_path / "link.pt"
    tm.save(1, real)
    link.symlink_to(real)
    tm.save(2, link)
    assert link.is_symlink() and tm.load(real) == 2


# ---- safetensors ------------------------------------------------------------------------------------
def _tm_sample(name, shape=(3, 4)):
    rng = np.random.default_rng(1)
    if name == "bool":
        return tm.from_numpy(rng.random(shape) > 0.5)
    a = (rng.standard_normal(shape) * 50).astype(np.float64)
    if name == "bfloat16":
        return tm.from_numpy(a.astype(np.float32)).to(tm.bfloat16)
    dt = getattr(tm, name)
    return tm.from_numpy(
        a.astype(dt.np) if name not in ("complex64",) else (a + 1j * a).astype(np.complex64)
    )


ST_DTYPES = [d for d in DTYPES if d != "complex128"]


def test_safetensors_roundtrip_and_lazy_open(tmp_path):
    tensors = {f"t_{n}": _tm_sample(n) for n in ST_DTYPES}
    tensors["scalar"] = tm.tensor(3.5)
    tensors["empty"] = tm.zeros(0, 2)
    st.save_file(tensors, tmp_path / "m.safetensors", metadata={"format": "pt"})
    got = st.load_file(tmp_path / "m.safetensors")
    assert set(got) == set(tensors)
    for k, v in tensors.items():
        assert got[k].dtype is v.dtype and got[k].shape == v.shape
        np.testing.assert_array_equal(_raw(got[k]), _raw(v))
    with st.safe_open(tmp_path / "m.safetensors", framework="pt") as f:
        assert f.metadata() == {"format": "pt"} and f.keys() == sorted(tensors)
        assert f.get_tensor("t_int64").tolist() == tensors["t_int64"].tolist()
        sl = f.get_slice("t_float32")
        assert sl.get_shape() == [3, 4] and sl.get_dtype() == "F32"
        assert sl[1:].tolist() == tensors["t_float32"][1:].tolist()
    raw = (tmp_path / "m.safetensors").read_bytes()
    assert st.save(tensors, metadata={"format": "pt"}) == raw
    assert st.load(raw)["t_int8"].tolist() == tensors["t_int8"].tolist()


def test_safetensors_against_the_reference_package(torch_oracle, tmp_path):
    torch = torch_oracle
    ref = pytest.importorskip("safetensors.torch")
    tensors = {f"t_{n}": _tm_sample(n) for n in ST_DTYPES}
    st.save_file(tensors, tmp_path / "ours.safetensors", metadata={"k": "v"})
    theirs = ref.load_file(tmp_path / "ours.safetensors")
    for k, v in tensors.items():
        _same(v, theirs[k])
    # and their file, read by us
    ttensors = {f"t_{n}": _torch_sample(torch, n) for n in ST_DTYPES}
    ref.save_file(ttensors, tmp_path / "theirs.safetensors", metadata={"a": "b"})
    got = st.load_file(tmp_path / "theirs.safetensors")
    for k, v in ttensors.items():
        _same(got[k], v)
    with st.safe_open(tmp_path / "theirs.safetensors") as f:
        assert f.metadata() == {"a": "b"}


@pytest.mark.parametrize(
    "mutate,match",
    [
        (lambda h, d: (b"\xff" * 8, b""), "HeaderTooLarge"),
        (lambda h, d: ((len(h) + 1000).to_bytes(8, "little"), h), "InvalidHeaderLength"),
        (
            lambda h, d: (len(h).to_bytes(8, "little"), b"{not json" + b" " * (len(h) - 9)),
            "InvalidHeaderDeserialization",
        ),
        (lambda h, d: (None, h.replace(b'"F32"', b'"X32"')), "unsupported dtype"),
        (lambda h, d: (None, h.replace(b"[0,16]", b"[0,12]")), "TensorInvalidInfo"),
        (lambda h, d: (None, h.replace(b"[2,2]", b"[4,4]")), "TensorInvalidInfo"),
        (lambda h, d: (None, h.replace(b"[2,2]", b"[-2,2]")), "invalid shape"),
    ],
)
def test_safetensors_hostile_headers(tmp_path, mutate, match):
    raw = st.save({"a": tm.zeros(2, 2)})
    n = int.from_bytes(raw[:8], "little")
    header, data = raw[8 : 8 + n], raw[8 + n :]
    length, header = mutate(header, data)
    if length is None:
        header = header + b" " * (n - len(header)) if len(header) <= n else header
        length = len(header).to_bytes(8, "little")
    (tmp_path / "bad.safetensors").write_bytes(length + header + data)
    with pytest.raises(st.SafetensorError, match=match):
        st.load_file(tmp_path / "bad.safetensors")


def test_safetensors_refuses_views_and_shared_memory(tmp_path):
    x = tm.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="non contiguous tensor"):
        st.save_file({"t": x.t()}, tmp_path / "a.safetensors")
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        st.save_file({"x": x, "row": x[1]}, tmp_path / "a.safetensors")
    with pytest.raises(ValueError, match="expected torch.Tensor"):
        st.save_file({"x": 1}, tmp_path / "a.safetensors")
    assert not (tmp_path / "a.safetensors").exists()
