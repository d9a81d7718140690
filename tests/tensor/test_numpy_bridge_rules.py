"""Where tensors meet NumPy memory, against PyTorch: np.asarray follows numpy()'s rules (a tensor
that requires grad raises), a storage that is a NumPy array's (from_numpy, as_tensor) cannot grow
with resize_, and ``x.data = ...`` checks what it is given."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")


def _outcome(f):
    try:
        r = f()
        return ("ok", r.tolist() if hasattr(r, "tolist") else r)
    except (RuntimeError, TypeError) as e:
        return (type(e).__name__, str(e))


def _program(T):
    out = []
    out.append(_outcome(lambda: np.asarray(T.ones(2, requires_grad=True))))
    out.append(_outcome(lambda: np.asarray(T.ones(2))))
    out.append(_outcome(lambda: np.asarray(T.ones(2), dtype=np.float64).dtype.name))
    a = np.ones(3)
    x = T.from_numpy(a)
    out.append(_outcome(lambda: tuple(x.resize_(5).shape)))
    out.append(_outcome(lambda: tuple(x.resize_(2).shape)))
    out.append(_outcome(lambda: tuple(x[1:].resize_(4).shape)))
    out.append(_outcome(lambda: tuple(T.as_tensor(np.ones(2)).resize_(3).shape)))
    out.append(_outcome(lambda: tuple(T.tensor(np.ones(2)).resize_(3).shape)))
    w = T.ones(2, requires_grad=True)

    def set_data(value):
        w.data = value
        return (str(w.dtype), w.requires_grad)

    out.append(_outcome(lambda: set_data(5)))
    out.append(_outcome(lambda: set_data(np.ones(2))))
    out.append(_outcome(lambda: set_data(T.ones(2, dtype=T.int64))))
    out.append(_outcome(lambda: set_data(T.eye(2).to_sparse())))
    out.append(_outcome(lambda: set_data(T.ones(3, dtype=T.float64))))
    plain = T.ones(2)
    plain.data = T.ones(3, dtype=T.int64)
    out.append((str(plain.dtype), tuple(plain.shape)))
    return out


def test_numpy_bridge_rules():
    got = [str(g).replace("taimatsu", "torch") for g in _program(tm)]
    assert got == [str(w) for w in _program(torch)]
