"""torch.from_file, UntypedStorage.from_file and the legacy storages' from_file against PyTorch:
values, private copies versus mappings that write through to the file (and grow it), sizes,
dtypes, errors."""

import io
import os
import warnings
from contextlib import redirect_stdout

import numpy as np

import taimatsu as tm


def _program(T, d):
    fn = os.path.join(d, "a.bin")
    np.arange(10, dtype=np.float32).tofile(fn)

    def tr(f):
        try:
            return f()
        except RuntimeError as e:
            return f"RuntimeError: {str(e).replace(d, 'D')}"

    print(T.from_file(fn, size=10), T.from_file(fn, size=4, dtype=T.float64))
    t = T.from_file(fn, shared=False, size=4)
    t[0] = 100
    print(np.fromfile(fn, np.float32)[:2].tolist())  # a private copy: the file is unchanged
    t = T.from_file(fn, shared=True, size=4)
    t[0] = 100
    t.add_(1)
    print(
        np.fromfile(fn, np.float32)[:4].tolist(), t.untyped_storage().nbytes(), t.storage_offset()
    )
    for kw in [
        {"size": 20}, {"size": 20, "shared": True}, {"size": 0}, {}, {"size": 3, "dtype": T.int64},
        {"size": -1}, {"size": 2, "dtype": T.bool}, {"size": 2, "requires_grad": True},
    ]:  # fmt: skip
        r = tr(lambda kw=kw: T.from_file(fn, **kw))
        shown = r if isinstance(r, str) else (tuple(r.shape), r.dtype, r.requires_grad)
        print(kw, shown, os.path.getsize(fn))
    print(tr(lambda: T.from_file(os.path.join(d, "missing.bin"), size=2)))
    print(tuple(T.from_file(os.path.join(d, "new.bin"), shared=True, size=2).shape))
    print(os.path.getsize(os.path.join(d, "new.bin")))
    s = T.UntypedStorage.from_file(fn, False, 8)
    print(s.nbytes(), type(s).__name__, list(s)[:4], T.UntypedStorage.from_file(fn).nbytes())
    print(tr(lambda: T.UntypedStorage.from_file(fn, nbytes=1000)))
    print(
        T.DoubleStorage.from_file(fn, False, 2).tolist(),
        T.FloatStorage.from_file(fn, True, 3).tolist(),
    )
    print(tr(lambda: T.TypedStorage.from_file(fn, False, 2)))
    x, y = T.from_file(fn, shared=True, size=3), T.from_file(fn, shared=True, size=3)
    x[1] = -5  # two mappings of one file see each other's writes
    print(y.tolist())


def _output(lib, d) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation warning
        _program(lib, d)
    return buf.getvalue()


def test_from_file_matches_pytorch(torch_oracle, tmp_path):
    (tmp_path / "tm").mkdir()
    (tmp_path / "torch").mkdir()
    mine = _output(tm, str(tmp_path / "tm"))
    assert mine == _output(torch_oracle, str(tmp_path / "torch"))
