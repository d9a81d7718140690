"""Checkpoints that must not hurt: hostile and corrupt archives, nothing lost on a failed save, and
safetensors. (PyTorch interop and the weights-only unpickler: test_serialization.py.)"""

import io
import os
import pathlib
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from serialization_helpers import DTYPES, _archive, _Evil, _raw, _same, _torch_sample

import taimatsu as tm
from taimatsu.serialization import _format
from taimatsu.serialization import _path_writer as pw
from taimatsu.utils import safetensors as st


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
    with pytest.raises(pickle.UnpicklingError, match="Unsupported operand 100"):
        tm.load(io.BytesIO(b"definitely not a checkpoint"))
    with pytest.raises(RuntimeError, match="CRC-32 check failed"):
        bad = bytearray(raw)
        bad[raw.index(np.arange(100.0, dtype=np.float32).tobytes()) + 5] ^= 1
        tm.load(io.BytesIO(bytes(bad)))


def _not_a_checkpoint(torch, tmp_path, case):
    """A file that is not a (whole) zip checkpoint, written with the oracle; returns its path."""
    path = tmp_path / case
    good = io.BytesIO()
    torch.save({"w": torch.arange(6.0)}, good)
    raw = good.getvalue()
    contents = {
        "empty": b"",
        "truncated_zip": raw[: len(raw) // 2],
        "zip_head_only": raw[:10],
        "zip_without_last_byte": raw[:-1],
        "random_bytes": np.random.default_rng(0).integers(0, 256, 1000, dtype=np.uint8).tobytes(),
        "pickle_protocol2": pickle.dumps({"a": 1, "b": [1, 2.0]}, protocol=2),
        "pickle_protocol4": pickle.dumps({"a": 1, "b": [1, 2.0]}, protocol=4),
        "pickled_int": pickle.dumps(3, protocol=2),
        "pickled_object": pickle.dumps({"a": OrderedDict(x=np.float64(1.0))}, protocol=2),
        "text": b"hello world\nthis is text\n",
    }
    if case == "legacy_checkpoint":
        torch.save({"w": torch.arange(3.0)}, path, _use_new_zipfile_serialization=False)
    elif case == "directory":
        path.mkdir()
    elif case != "missing":
        path.write_bytes(contents[case])
    return path


NOT_CHECKPOINTS = ["empty", "truncated_zip", "zip_head_only", "zip_without_last_byte", "random_bytes",
                   "pickle_protocol2", "pickle_protocol4", "pickled_int", "pickled_object", "text",
                   "legacy_checkpoint", "directory", "missing"]  # fmt: skip


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("case", NOT_CHECKPOINTS)
def test_loading_what_is_not_a_checkpoint_raises_pytorchs_error(
    torch_oracle, tmp_path, case, weights_only
):
    """PyTorch sends a non-zip file through its legacy readers: their errors, not a zip-format one."""
    path = _not_a_checkpoint(torch_oracle, tmp_path, case)
    sources = (str(path), io.BytesIO(path.read_bytes()) if path.is_file() else str(path))
    if case == "legacy_checkpoint":  # read by both (tests/serialization/test_serialization.py)
        for f in sources:
            assert tm.load(f, weights_only=weights_only)["w"].tolist() == [0.0, 1.0, 2.0]
        return
    errors = []
    for lib in (torch_oracle, tm):
        for f in sources:
            with pytest.raises(Exception) as e:
                lib.load(f, weights_only=weights_only)
            errors.append((type(e.value), str(e.value)))
            if isinstance(f, io.BytesIO):
                f.seek(0)
    assert errors[2:] == errors[:2]


def test_load_of_a_legacy_tar_file(torch_oracle, tmp_path):
    import tarfile

    path = tmp_path / "old.tar"
    with tarfile.open(path, "w") as tar:
        tar.addfile(tarfile.TarInfo("sys_info"), io.BytesIO(b""))
    errors = []
    for lib in (torch_oracle, tm):
        with pytest.raises(RuntimeError) as e:
            lib.load(path, weights_only=True)
        errors.append(str(e.value))
    assert errors[0] == errors[1]
    with pytest.raises(RuntimeError, match="legacy .tar checkpoint .* cannot read"):
        tm.load(path, weights_only=False)


def test_mmap_of_a_file_that_is_not_a_zip_checkpoint(torch_oracle, tmp_path):
    path = tmp_path / "plain.pkl"
    path.write_bytes(pickle.dumps([1], protocol=2))
    errors = []
    for lib in (torch_oracle, tm):
        for f in (str(path), path):
            with pytest.raises(RuntimeError) as e:
                lib.load(f, mmap=True)
            errors.append(str(e.value))
    assert errors[:2] == errors[2:]


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


ZIP_NAMES = {
    "dotdot_before_folder": lambda names: [("../" + n, b) for n, b in names],
    "dotdot_as_folder": lambda names: [(n.replace("archive/", "../", 1), b) for n, b in names],
    "absolute": lambda names: [("/" + n, b) for n, b in names],
    "dotdot_inside": lambda names: [
        (n.replace("archive/", "archive/../archive/"), b) for n, b in names
    ],
    "escaping_first": lambda names: [("../../evil", b"x"), *names],
    "absolute_first": lambda names: [("/etc/evil", b"x"), *names],
    "no_folder": lambda names: [(n.replace("archive/", "archive_"), b) for n, b in names],
    "no_version": lambda names: [(n, b) for n, b in names if not n.endswith("/version")],
    "no_data_pkl": lambda names: [(n, b) for n, b in names if not n.endswith("data.pkl")],
    "no_storage": lambda names: [(n, b) for n, b in names if not n.endswith("data/0")],
}


@pytest.mark.parametrize("case", ZIP_NAMES)
def test_zip_member_names_as_pytorch_reads_them(torch_oracle, tmp_path, case):
    """Member names are looked up, never used as paths: ``../`` or ``/`` only move the folder."""
    torch = torch_oracle
    buf = io.BytesIO()
    torch.save(torch.arange(3.0), buf)
    with zipfile.ZipFile(buf) as z:
        names = [(n, z.read(n)) for n in z.namelist()]
    path = tmp_path / "names.pt"
    with zipfile.ZipFile(path, "w") as z:
        for n, b in ZIP_NAMES[case](names):
            z.writestr(n, b)
    outcomes = []
    for lib in (torch, tm):
        try:
            outcomes.append(("loaded", lib.load(path).tolist()))
        except Exception as e:  # noqa: BLE001 - the exception is the result compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["names.pt"]


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
    real = pw._open_tmp
    monkeypatch.setattr(pw, "_open_tmp", lambda fd: _DiskFull(real(fd), budget))
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


_KILLED_SAVE = """
import os, signal, sys
sys.path.insert(0, {cwd!r})
import taimatsu as tm
from taimatsu.serialization import _path_writer as pw
pw._anonymous_ok = pw._anonymous_ok and {anonymous!r}
real = pw._open_tmp
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
pw._open_tmp = lambda fd: Killer(real(fd))
tm.save({{"step": 2, "w": tm.zeros(100000), "v": tm.ones(10)}}, {path!r})
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.parametrize("anonymous", [True, False], ids=["O_TMPFILE", "named_temporary"])
def test_process_killed_mid_write_leaves_previous_checkpoint(tmp_path, anonymous):
    path = tmp_path / "ck.pt"
    before = _good_checkpoint(path)
    script = _KILLED_SAVE.format(cwd=os.getcwd(), anonymous=anonymous, path=str(path))
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
    left = sorted(p.name for p in tmp_path.iterdir())
    if anonymous and pw._anonymous_ok:
        assert left == ["ck.pt"]  # the half-written temporary never had a name
        return
    # without O_TMPFILE the dead process's temporary stays until the next save of that name,
    # which removes it (and leaves a live process's temporary alone)
    assert len(left) == 2 and left[0].startswith(".ck.pt.") and left[0].endswith(".tmp"), left
    live = tmp_path / f".ck.pt.{os.getppid()}.0123456789ab.tmp"
    live.write_bytes(b"in progress")
    tm.save({"step": 3}, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["ck.pt", live.name])
    assert tm.load(path)["step"] == 3


@pytest.fixture
def null_device(tmp_path):
    """A character device like /dev/null: a private node when root (a broken save replaces a
    device it may rename over, so the system's /dev/null must not be the one tested), else
    /dev/null itself (which no rename by an unprivileged user can replace)."""
    if os.geteuid() != 0:
        return "/dev/null"
    path = tmp_path / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        with open(path, "wb") as f:
            f.write(b"x")
    except OSError as e:
        pytest.skip(f"cannot make a device node here: {e}")
    return str(path)


@pytest.mark.skipif(not hasattr(os, "mknod"), reason="device nodes")
def test_save_to_a_device_writes_through(torch_oracle, null_device):
    torch = torch_oracle
    for lib in (torch, tm):
        lib.save({"w": lib.ones(3)}, null_device)
        assert stat.S_ISCHR(os.stat(null_device).st_mode)  # as root a rename would replace it
    assert not [p for p in os.listdir(os.path.dirname(null_device)) if p.endswith(".tmp")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFO")
def test_save_to_fifo_writes_through(torch_oracle, tmp_path):
    torch = torch_oracle
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}

    def read():
        with open(fifo, "rb") as f:
            got["bytes"] = f.read()

    for lib in (torch, tm):
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        lib.save({"w": lib.arange(4.0)}, fifo)
        reader.join(30)
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)
        assert torch.load(io.BytesIO(got["bytes"]))["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def _save_errors(torch, path):
    out = []
    for lib in (torch, tm):
        with pytest.raises(Exception) as e:
            lib.save(1, path)
        out.append((type(e.value), str(e.value)))
    return out


@pytest.mark.parametrize(
    "where",
    ["absolute", "relative", "pathlib", "under_a_file", "directory", "trailing_slash", "non_ascii"],
)
def test_unopenable_paths_raise_pytorch_errors(torch_oracle, tmp_path, monkeypatch, where):
    torch = torch_oracle
    (tmp_path / "afile").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    path = {
        "absolute": str(tmp_path / "nope" / "ck.pt"),
        "relative": "nope/sub/ck.pt",
        "pathlib": tmp_path / "nope" / "ck.pt",
        "under_a_file": str(tmp_path / "afile" / "ck.pt"),
        "directory": str(tmp_path),
        "trailing_slash": str(tmp_path) + "/",
        "non_ascii": str(tmp_path / "nöpe" / "ck.pt"),
    }[where]
    theirs, ours = _save_errors(torch, path)
    assert ours == theirs
    if where in ("absolute", "relative", "pathlib"):
        assert ours[1] == f"Parent directory {os.path.dirname(path)} does not exist."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # no temporary either


def test_read_only_directory_falls_back_to_writing_in_place(tmp_path, monkeypatch):
    path = tmp_path / "ck.pt"
    _good_checkpoint(path)

    def refused(directory, base):
        raise pw._TemporaryRefused(13, "Permission denied")

    monkeypatch.setattr(pw, "_create_tmp", refused)
    tm.save({"step": 2}, path)
    assert tm.load(path)["step"] == 2
    tm.save({"step": 3}, tmp_path / "new.pt")  # PyTorch's plain open decides, as in PyTorch
    assert tm.load(tmp_path / "new.pt")["step"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.pt", "new.pt"]


_READ_ONLY_DIR = """
import os, sys
sys.path.insert(0, {cwd!r})
import torch, taimatsu as tm
if os.geteuid() == 0:  # root ignores permissions: drop them (after the imports, which need root)
    os.setegid(65534)
    os.seteuid(65534)
d = {d!r}
for lib, name in ((torch, "torch"), (tm, "taimatsu")):
    lib.save({{"step": 2}}, os.path.join(d, "ck.pt"))
    print(name, "overwrite", torch.load(os.path.join(d, "ck.pt"))["step"])
    try:
        lib.save(1, os.path.join(d, "new.pt"))
    except Exception as e:
        print(name, "new", type(e).__name__, e)
"""


@pytest.fixture
def shared_tmp():
    """A folder an unprivileged user can reach (pytest's tmp_path is private to root)."""
    base = pathlib.Path(tempfile.mkdtemp(prefix="taimatsu-ckpt-"))
    base.chmod(0o755)
    yield base
    for p in [base, *base.rglob("*")]:
        if p.is_dir():
            p.chmod(0o755)
    shutil.rmtree(base)


@pytest.mark.slow  # imports PyTorch in a child process
@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_read_only_directory_as_an_unprivileged_user(torch_oracle, shared_tmp):
    """chmod 555 stops an unprivileged user (never root): the saves run as `nobody` when root."""
    d = shared_tmp / "ro"
    d.mkdir()
    _good_checkpoint(d / "ck.pt")
    os.chmod(d / "ck.pt", 0o666)
    os.chmod(d, 0o555)
    script = _READ_ONLY_DIR.format(cwd=os.getcwd(), d=str(d))
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd="/", capture_output=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == "torch overwrite 2" and lines[2] == "taimatsu overwrite 2"
    assert lines[1].startswith("torch new RuntimeError")
    assert lines[1].replace("torch", "taimatsu", 1) == lines[3]
    assert sorted(p.name for p in d.iterdir()) == ["ck.pt"]


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
