"""Checkpoints: torch.save/torch.load in PyTorch's zip format (both directions, checked against real
PyTorch) and the weights-only unpickler. Hostile archives, failure injection and safetensors are
in test_serialization_safety.py; the shared helpers in serialization_helpers.py."""

import ast
import io
import itertools
import os
import pathlib
import pickle
import pickletools
import re
import subprocess
import tracemalloc
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest
from serialization_helpers import DTYPES, _archive, _Evil, _same, _shares, _torch_sample

import taimatsu as tm
from taimatsu import serialization as ser
from taimatsu.serialization import _zip


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


@pytest.mark.parametrize("name", DTYPES)
def test_torch_legacy_format_to_taimatsu(torch_oracle, tmp_path, name):
    """torch.save(..., _use_new_zipfile_serialization=False), the format before PyTorch 1.6."""
    torch = torch_oracle
    x = _torch_sample(torch, name)
    p = torch.nn.Parameter(torch.randn(2)) if x.is_floating_point() else x[0]
    saved = {"x": x, "t": x.t(), "s": x[1:, ::2], "p": p, "sd": torch.nn.Linear(3, 2).state_dict()}
    torch.save(saved, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    for weights_only in (True, False):
        got = tm.load(tmp_path / "old.pt", weights_only=weights_only)
        for k in ("x", "t", "s", "p"):
            _same(got[k], saved[k])
        assert type(got["p"]).__name__ == type(saved["p"]).__name__
        assert type(got["sd"]) is OrderedDict and list(got["sd"]) == list(saved["sd"])
        _same(got["sd"]["weight"], saved["sd"]["weight"])
        assert _shares(got["x"], got["t"]) and _shares(got["x"], got["s"])


def test_torch_legacy_format_modules_and_truncation(torch_oracle, tmp_path):
    torch = torch_oracle
    lin = torch.nn.Linear(3, 2)
    buf = io.BytesIO()
    torch.save(lin, buf, _use_new_zipfile_serialization=False)
    got = tm.load(io.BytesIO(buf.getvalue()), weights_only=False)  # a whole pickled module
    assert isinstance(got, tm.nn.Linear)
    _same(got.weight, lin.weight)
    torch.save({"w": torch.arange(5.0)}, buf := io.BytesIO(), _use_new_zipfile_serialization=False)
    raw = buf.getvalue()
    for cut in (len(raw) - 3, len(raw) - 24, 30):  # in the data, in a count, in the pickle
        errors = []
        for lib in (torch, tm):
            with pytest.raises(Exception) as e:
                lib.load(io.BytesIO(raw[:cut]))
            errors.append((type(e.value), str(e.value)))
        assert errors[0] == errors[1]


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


@pytest.mark.parametrize("protocol", [2, 4])
def test_archive_bytes_match_pytorch(torch_oracle, tmp_path, protocol):
    """Record for record, byte for byte, except the random serialization id."""
    torch = torch_oracle
    for lib, sub in ((torch, "a"), (tm, "b")):
        (tmp_path / sub).mkdir()
        t = lib.arange(12.0).reshape(3, 4)
        obj = {"a": t, "b": t.t(), "c": lib.ones(2, dtype=lib.int8), "u": lib.ones(2, dtype=lib.uint16),
               "misc": [lib.float16, lib.device("cpu"), lib.Size([1]), lib.nn.Parameter(lib.ones(1))]}  # fmt: skip
        lib.save(obj, tmp_path / sub / "ck.pt", pickle_protocol=protocol)
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


def _globals(raw: bytes) -> set:
    z = zipfile.ZipFile(io.BytesIO(raw))
    data = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    return {str(arg) for op, arg, _ in pickletools.genops(data) if op.name == "GLOBAL"}


def test_whole_model_loads_in_torch(torch_oracle):
    # a pickled model names taimatsu's classes and functions as PyTorch does, so PyTorch loads
    # it (and taimatsu, which maps the torch names back)
    torch = torch_oracle
    tm.manual_seed(0)
    m = tm.nn.Sequential(tm.nn.Conv2d(1, 2, 3), tm.nn.ReLU(), tm.nn.Flatten(), tm.nn.Linear(8, 3))
    m.act, m.f = tm.sigmoid, tm.nn.functional.gelu
    buf = io.BytesIO()
    tm.save(m, buf)
    names = _globals(buf.getvalue())
    assert {"torch.nn.modules.container Sequential", "torch.nn.modules.conv Conv2d",
            "torch.nn.modules.linear Linear", "torch sigmoid", "torch.nn.functional gelu"} <= names  # fmt: skip
    assert not any("taimatsu" in n for n in names)
    got = torch.load(io.BytesIO(buf.getvalue()), weights_only=False)
    assert type(got) is torch.nn.Sequential and got.act is torch.sigmoid
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(
        got(torch.from_numpy(x)).detach().numpy(), m(tm.from_numpy(x)).detach().numpy(), rtol=1e-5
    )
    back = tm.load(io.BytesIO(buf.getvalue()), weights_only=False)
    assert type(back) is tm.nn.Sequential and back.act is tm.sigmoid
    assert back.f is tm.nn.functional.gelu


def test_torch_functions_in_a_pickled_model(torch_oracle):
    # PyTorch pickles its C functions by their C namespaces (torch._C._VariableFunctionsClass,
    # torch._C._nn, torch._C._special, ...): each maps to taimatsu's function of that name
    torch = torch_oracle
    cases = [(torch.sigmoid, tm.sigmoid), (torch.relu, tm.relu), (torch.nn.functional.gelu, tm.nn.functional.gelu),
             (torch.nn.functional.elu, tm.nn.functional.elu), (torch.special.erf, tm.special.erf),
             (torch.linalg.norm, tm.linalg.norm), (torch.fft.fft, tm.fft.fft)]  # fmt: skip
    for fn, want in cases:
        m = torch.nn.Linear(2, 2)
        m.act = fn
        buf = io.BytesIO()
        torch.save(m, buf)
        got = tm.load(io.BytesIO(buf.getvalue()), weights_only=False)
        assert type(got) is tm.nn.Linear and got.act is want, fn


def test_unpicklable_globals_raise_torchs_errors(torch_oracle):
    torch = torch_oracle

    def local_class(lib):
        class Local(lib.nn.Module):
            pass

        return Local()

    class Net:
        def __init__(self, lib):
            self.fc = lib.nn.Linear(2, 2)
            self.act = lambda x: x

    for make in (lambda lib: Net(lib), local_class, lambda lib: {"f": lambda: 1}):
        errors = []
        for lib in (torch, tm):
            with pytest.raises(Exception) as e:
                lib.save(make(lib), io.BytesIO())
            errors.append((type(e.value), str(e.value)))
        assert errors[0] == errors[1]


# ---- legacy format (_use_new_zipfile_serialization=False), taimatsu -> PyTorch -------------------------
@pytest.mark.parametrize("name", DTYPES)
def test_taimatsu_legacy_format_to_torch(torch_oracle, tmp_path, name):
    torch = torch_oracle
    x = tm.load(_saved_by_torch(torch, tmp_path, _torch_sample(torch, name))).clone()
    p = tm.nn.Parameter(tm.randn(2)) if x.is_floating_point() else x[0]
    objs = {"x": x, "t": x.t(), "s": x[1:, ::2], "p": p, "sd": tm.nn.Linear(3, 2).state_dict(),
            "nest": [(x[0], {"k": x[2]})], "leaf": tm.ones(2, requires_grad=True)}  # fmt: skip
    tm.save(objs, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    for weights_only in (True, False):
        got = torch.load(tmp_path / "old.pt", weights_only=weights_only)
        for k in ("x", "t", "s", "p", "leaf"):
            _same(objs[k], got[k])
        _same(objs["sd"]["weight"], got["sd"]["weight"])
        _same(objs["nest"][0][1]["k"], got["nest"][0][1]["k"])
        assert (
            type(got["p"]).__name__ == type(objs["p"]).__name__ and type(got["sd"]) is OrderedDict
        )
        ptr = got["x"].untyped_storage().data_ptr()  # one storage, as saved
        assert (
            got["t"].untyped_storage().data_ptr()
            == ptr
            == got["nest"][0][0].untyped_storage().data_ptr()
        )
    back = tm.load(tmp_path / "old.pt")  # and round trip
    for k in ("x", "t", "s", "p", "leaf"):
        _same(back[k], objs[k])
    assert _shares(back["x"], back["s"])


def _legacy_parts(raw: bytes):
    """The five pickles of a legacy file and its storage records ``{key: (count, bytes)}``."""
    f, pickles = io.BytesIO(raw), []
    for _ in range(5):
        start = f.tell()
        list(pickletools.genops(f))
        pickles.append(raw[start : f.tell()])
    keys = pickle.loads(pickles[4])
    records = {}
    for key, nbytes in zip(keys, _legacy_record_sizes(pickles[3], keys)):
        records[key] = (int.from_bytes(f.read(8), "little"), f.read(nbytes))
    assert f.read() == b""
    return pickles, keys, records


def _legacy_record_sizes(obj_pickle, keys):
    """Each record's size in bytes, from the storage ids (class name and numel) in the pickle."""
    size = {"FloatStorage": 4, "HalfStorage": 2, "BFloat16Storage": 2, "BoolStorage": 1,
            "ComplexFloatStorage": 8, "UntypedStorage": 1, "DoubleStorage": 8}  # fmt: skip
    found = {}

    class Ids(pickle.Unpickler):
        def persistent_load(self, pid):
            if isinstance(pid, str):  # protocol 0 writes the id's repr
                pid = ast.literal_eval(re.sub(r"<class '[\w.]*\.(\w+)'>", r"'\1'", pid))
            found[pid[2]] = size[pid[1]] * pid[4]

        def find_class(self, module, name):
            return name if name.endswith("Storage") else _Anything

    Ids(io.BytesIO(obj_pickle)).load()
    return [found[k] for k in keys]


class _Anything:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return self

    def __setitem__(self, key, value):
        pass


def _legacy_sample(lib):
    x = lib.arange(12.0).reshape(3, 4)
    out = {"x": x, "t": x.t(), "s": x[1:, ::2], "h": lib.tensor([1.5, -2.0], dtype=lib.half),
            "bf": lib.tensor([1.5], dtype=lib.bfloat16), "b": lib.tensor([True, False]),
            "c": lib.tensor([1 + 2j], dtype=lib.complex64), "u": lib.tensor([1, 2], dtype=lib.uint16),
            "p": lib.nn.Parameter(lib.ones(2)), "leaf": lib.zeros(2, requires_grad=True),
            "e": lib.zeros(0, 3), "n": [1, (2.5, "a"), None, lib.float64, lib.bfloat16, lib.Size([2]), lib.strided],
            "d": [lib.device("cpu"), lib.device("cpu"), lib.device("cuda", 1)], "m": lib.ones(2, device="meta"),
            "sd": lib.nn.Linear(2, 2).requires_grad_(False).state_dict(keep_vars=True)}  # fmt: skip
    for v in out["sd"].values():
        v.fill_(0.5)  # the same values in both
    return out


@pytest.mark.parametrize("protocol", [0, 1, 2, 4, 5])
def test_legacy_bytes_match_pytorch(torch_oracle, protocol):
    """Byte for byte but for the storage keys: PyTorch's are storage addresses (a new file each run),
    taimatsu's the storages' indices. The pickles must match once keys are mapped by first use."""
    torch = torch_oracle
    files = []
    for lib in (torch, tm):
        buf = io.BytesIO()
        lib.save(
            _legacy_sample(lib), buf, _use_new_zipfile_serialization=False, pickle_protocol=protocol
        )
        files.append(buf.getvalue())
    (pa, ka, ra), (pb, kb, rb) = (_legacy_parts(f) for f in files)
    assert pa[:3] == pb[:3]  # magic number, protocol version, system info
    assert kb == sorted(kb, key=str) and sorted(kb, key=int) == [str(i) for i in range(len(kb))]
    order = [k for k in re.findall(rb"\d{6,}", pa[3]) if k.decode() in ka]
    keymap = dict(zip(dict.fromkeys(k.decode() for k in order), [str(i) for i in range(len(kb))]))
    ops = []
    for raw, mapping in ((pa[3], keymap), (pb[3], {})):
        ops.append([(op.name, None if op.name == "FRAME" else _map_keys(arg, mapping))
                    for op, arg, _ in pickletools.genops(raw)])  # fmt: skip
    assert ops[0] == ops[1]
    assert {keymap[k]: v for k, v in ra.items()} == rb  # element counts and little-endian bytes


def _map_keys(arg, mapping):
    if not isinstance(arg, str):
        return arg
    for old, new in mapping.items():
        arg = (
            arg.replace(f"'{old}'", f"'{new}'")
            if arg.startswith("(")
            else (new if arg == old else arg)
        )
    return arg


def test_legacy_files_paths_and_errors(torch_oracle, tmp_path):
    torch = torch_oracle
    x = tm.arange(5.0)
    for f in (str(tmp_path / "s.pt"), pathlib.Path(tmp_path / "p.pt")):
        tm.save({"x": x}, f, _use_new_zipfile_serialization=False)
        assert torch.equal(torch.load(f)["x"], torch.arange(5.0))
        _same(tm.load(f)["x"], x)

    class WriteOnly:  # PyTorch's legacy writer needs neither seek nor tell
        def __init__(self):
            self.chunks = []

        def write(self, b):
            self.chunks.append(bytes(b))

    w = WriteOnly()
    tm.save(x, w, _use_new_zipfile_serialization=False)
    assert torch.equal(torch.load(io.BytesIO(b"".join(w.chunks))), torch.arange(5.0))
    with open(tmp_path / "fh.pt", "wb") as f:
        f.write(b"head")
        tm.save(x, f, _use_new_zipfile_serialization=False)
    with open(tmp_path / "fh.pt", "rb") as f:
        assert f.read(4) == b"head" and torch.load(f).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    cases = {"missing_dir": lambda lib: (lib.ones(1), str(tmp_path / "no" / "a.pt")),
             "directory": lambda lib: (lib.ones(1), str(tmp_path) + "/"),
             "no_write": lambda lib: (lib.ones(1), 5),
             "two_dtypes": lambda lib: ([a := lib.arange(4.0), a.view(lib.int32)], io.BytesIO())}  # fmt: skip
    for name in ("uint16", "uint32", "uint64"):  # PyTorch writes them, and cannot read them back
        buf = io.BytesIO()
        tm.save(
            {"u": tm.tensor([1, 2], dtype=getattr(tm, name))},
            buf,
            _use_new_zipfile_serialization=False,
        )
        for lib, weights_only in itertools.product((torch, tm), (True, False)):
            with pytest.raises(
                AttributeError, match="'torch.storage.UntypedStorage' has no attribute 'dtype'"
            ):
                lib.load(io.BytesIO(buf.getvalue()), weights_only=weights_only)
    for name, make in cases.items():
        errors = []
        for lib in (torch, tm):
            with pytest.raises(Exception) as e:
                lib.save(*make(lib), _use_new_zipfile_serialization=False)
            errors.append((type(e.value), str(e.value)))
        assert errors[0] == errors[1], name


@pytest.mark.parametrize("zip_format", [False, True])
def test_map_location_meta_and_the_legacy_byte_order_flag(torch_oracle, zip_format):
    """``map_location="meta"`` (or a dict to it) loads shapes without data; a legacy file whose
    system info says big-endian is read as little-endian anyway (PyTorch ignores the flag)."""
    torch = torch_oracle
    buf = io.BytesIO()
    saved = {
        "x": torch.arange(4.0),
        "v": torch.arange(6.0).reshape(2, 3).t(),
        "p": torch.nn.Parameter(torch.ones(2)),
    }
    torch.save(saved, buf, _use_new_zipfile_serialization=zip_format)
    raw = buf.getvalue()
    for ml in ("meta", {"cpu": "meta"}):
        got = [lib.load(io.BytesIO(raw), map_location=ml) for lib in (torch, tm)]
        for a, b in zip(*(g.values() for g in got)):
            assert (str(a.device), a.shape, a.stride(), a.requires_grad, type(a).__name__) == (
                str(b.device), b.shape, b.stride(), b.requires_grad, type(b).__name__)  # fmt: skip
    truncated = (
        "failed finding central directory" if zip_format else "unexpected EOF, expected 3 more"
    )
    with pytest.raises(RuntimeError, match=truncated):
        tm.load(io.BytesIO(raw[:-3]), map_location="meta")
    if not zip_format:
        flag = raw.index(b"little_endian") + len(b"little_endian") + 2
        big = raw[:flag] + pickle.NEWFALSE + raw[flag + 1 :]
        for weights_only in (True, False):
            assert torch.load(io.BytesIO(big), weights_only=weights_only)["x"].tolist() == [
                0.0,
                1.0,
                2.0,
                3.0,
            ]
            _same(tm.load(io.BytesIO(big), weights_only=weights_only)["x"], saved["x"])


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


# BUILD states appended to a saved tensor or Parameter: PyTorch runs ``set_(*state)`` on a tensor
# and ``Tensor.__setstate__`` on a Parameter, so an attribute dict is refused, never applied
BUILD_STATES = {
    "size_attribute": b"}X\x04\x00\x00\x00sizeK\x05s",  # {'size': 5}: w.size() would be an int
    "two_dicts": b"}}\x86",
    "none": b"N",
    "empty_tuple": b")",
    "empty_list": b"]",
    "four_ints": b"(K\x01K\x02K\x03K\x04t",
    "one_int": b"K\x05\x85",
    "legacy_requires_grad": b"\x88NN\x87",  # (True, None, None)
    "legacy_hooks_dict": b"\x89K\x00}\x87",  # (False, 0, {})
    "legacy_int_requires_grad": b"K\x01K\x02K\x03\x87",
    "legacy_variable": b"(X\x01\x00\x00\x00aK\x00K\x00K\x00K\x00t",
}


def _load_outcome(lib, path):
    try:
        t = lib.load(path)
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("raised", type(e).__name__, str(e))
    return ("loaded", type(t).__name__, t.tolist(), t.requires_grad, sorted(vars(t)))


@pytest.mark.parametrize("kind", ["tensor", "parameter"])
@pytest.mark.parametrize("state", BUILD_STATES)
def test_weights_only_build_on_tensors(torch_oracle, tmp_path, kind, state):
    obj = tm.ones(2) if kind == "tensor" else tm.nn.Parameter(tm.ones(2))
    path = _rewrite_pickle(tmp_path, obj, lambda pkl: pkl[:-1] + BUILD_STATES[state] + b"b.")
    ours, theirs = _load_outcome(tm, path), _load_outcome(torch_oracle, path)
    assert ours == theirs
    if state == "size_attribute":
        assert ours[0] == "raised"


def test_weights_only_refuses_a_declared_huge_bytearray_before_allocating(torch_oracle, tmp_path):
    """``bytearray(3_000_000_000)`` from a 100-byte pickle: PyTorch allocates the 3 GB (under a
    1 GB address-space limit it raises MemoryError); taimatsu refuses the file, on purpose."""
    pkl = b"\x80\x02c__builtin__\nbytearray\n\x8a\x05\x00^\xd0\xb2\x00\x85R."
    assert pickle.loads(b"\x80\x02\x8a\x05\x00^\xd0\xb2\x00.") == 3_000_000_000  # the size declared
    path = _archive(tmp_path, pkl)
    tracemalloc.start()
    try:
        with pytest.raises(pickle.UnpicklingError, match="bytearray can only be rebuilt"):
            tm.load(path)
        assert tracemalloc.get_traced_memory()[1] < 10_000_000
    finally:
        tracemalloc.stop()
    # what real checkpoints hold, bytearrays of bytes, loads as in PyTorch
    torch_oracle.save({"b": bytearray(b"\x00\xffabc")}, tmp_path / "ok.pt")
    assert tm.load(tmp_path / "ok.pt") == torch_oracle.load(tmp_path / "ok.pt")


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
    with pytest.raises(KeyError, match="7"):  # PyTorch's type: BINGET of nothing
        tm.load(_archive(tmp_path, b"\x80\x02h\x07.", name="memo.pt"))
    with pytest.raises(pickle.UnpicklingError, match="bytearray can only be rebuilt"):
        tm.load(
            _archive(
                tmp_path, b"\x80\x02c__builtin__\nbytearray\nJ\x00\x00\x00\x7f\x85R.", name="ba.pt"
            )
        )
