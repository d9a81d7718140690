"""torch.embedding_bag against PyTorch: the 4-tuple (output, offset2bag, bag_size, max_indices)
in each mode with per-sample weights, padding_idx and include_last_offset, gradients of the
weight and the per-sample weights with random cotangents, and ATen's errors in its order."""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")

INDICES = [1, 2, 4, 5, 4, 3, 2, 9]
OFFSETS = [0, 4, 4, 6]  # an empty bag
ILO_OFFSETS = [0, 4, 4, 6, 8]  # the same bags with include_last_offset
PAST_LAST = [0, 2, 5]  # with include_last_offset, indices 5..7 lie past the last offset


def _call(M, mode, dtype, psw=False, padding_idx=None, ilo=False, requires_grad=True,
          offsets=None, index_dtype="int64"):  # fmt: skip
    rng = np.random.default_rng(0)
    dt = getattr(M, dtype)
    weight = M.tensor(rng.standard_normal((10, 3)), dtype=dt, requires_grad=requires_grad)
    per_sample = None
    if psw:
        per_sample = M.tensor(rng.random(len(INDICES)), dtype=dt, requires_grad=True)
    ix = getattr(M, index_dtype)
    if offsets is None:
        offsets = ILO_OFFSETS if ilo else OFFSETS
    out = M.embedding_bag(weight, M.tensor(INDICES, dtype=ix), M.tensor(offsets, dtype=ix), False,
                          mode, False, per_sample, ilo, padding_idx)  # fmt: skip
    return [t for t in (weight, per_sample) if t is not None and t.requires_grad], out


def _compare(*args, grads=True, **kw):
    (lo, oo), (lt, ot) = _call(T, *args, **kw), _call(torch, *args, **kw)
    assert len(oo) == 4
    tol = 1e-6 if args[1] == "float32" else 1e-13
    for i, (x, y) in enumerate(zip(oo, ot)):
        assert str(x.dtype) == str(y.dtype) and tuple(x.shape) == tuple(y.shape), i
        if i == 0:
            xv, yv = x.detach().float().numpy(), y.detach().float().numpy()
            np.testing.assert_allclose(xv, yv, rtol=tol, atol=tol)
        else:
            assert x.tolist() == y.tolist(), i
        names = [t.grad_fn.name() if t.grad_fn is not None else None for t in (x, y)]
        assert names[0] == names[1], i
    if not lt or not grads:
        return
    g = np.random.default_rng(5).standard_normal(tuple(ot[0].shape))
    oo[0].backward(T.tensor(g, dtype=oo[0].dtype))
    ot[0].backward(torch.tensor(g, dtype=ot[0].dtype))
    for x, y in zip(lo, lt):
        np.testing.assert_allclose(
            x.grad.float().numpy(), y.grad.float().numpy(), rtol=tol, atol=tol
        )


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("padding_idx, ilo", [(None, False), (2, False), (None, True), (-6, True)])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_modes(mode, dtype, padding_idx, ilo, requires_grad):
    _compare(mode, dtype, padding_idx=padding_idx, ilo=ilo, requires_grad=requires_grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("padding_idx, ilo", [(None, False), (4, True)])
def test_per_sample_weights(dtype, padding_idx, ilo):
    _compare(0, dtype, psw=True, padding_idx=padding_idx, ilo=ilo)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_indices_past_the_last_offset(mode, dtype, padding_idx):
    """PyTorch's fast float sum stops the last bag at the last offset; every other path runs it to
    the end of the indices (a fast mean divides by that count all the same). The fast sum's
    backward reads uninitialized memory for the indices past the last offset there (values like
    1e32 in PyTorch's gradient): its gradient is not compared."""
    fast_sum = mode == 0 and dtype == "float32" and padding_idx is None
    _compare(mode, dtype, padding_idx=padding_idx, ilo=True, offsets=PAST_LAST, grads=not fast_sum)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision(mode, dtype):
    _compare(mode, dtype, requires_grad=False)


@pytest.mark.parametrize("index_dtype", ["int32", "int16"])
def test_index_dtypes(index_dtype):
    ok = {"int32": "int32", "int16": "int64"}[index_dtype]  # int16 only with int64 offsets
    for M in (T, torch):
        w = M.ones(10, 3)
        ix, off = M.tensor(INDICES, dtype=getattr(M, index_dtype)), M.tensor(OFFSETS)
        if index_dtype == "int32":
            off = off.int()
        assert str(M.embedding_bag(w, ix, off, False, 1)[1].dtype) == f"torch.{ok}"


def test_functional_runs_the_last_bag_to_the_end():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((10, 3))
    for mode in ("sum", "mean", "max"):
        outs = [
            M.nn.functional.embedding_bag(M.tensor(INDICES), M.tensor(w), M.tensor(PAST_LAST),
                                          mode=mode, include_last_offset=True).numpy()
            for M in (T, torch)
        ]  # fmt: skip
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)


def _bad(M, weight=(10, 3), indices=INDICES, offsets=OFFSETS, mode=0, psw=None, padding_idx=None,
         wdtype="float32", idtype="int64", odtype="int64"):  # fmt: skip
    w = M.ones(weight, dtype=getattr(M, wdtype))
    ix = M.tensor(indices, dtype=getattr(M, idtype))
    off = offsets if not isinstance(offsets, list) else M.tensor(offsets, dtype=getattr(M, odtype))
    if isinstance(offsets, tuple):
        off = M.tensor(offsets[0]).reshape(offsets[1])
    ps = None if psw is None else M.ones(psw[0], dtype=getattr(M, psw[1]))
    return M.embedding_bag(w, ix, off, False, mode, False, ps, False, padding_idx)


ERRORS = {
    "offsets None": {"offsets": None},
    "mode str": {"mode": "sum"},
    "mode 3": {"mode": 3},
    "mode -1": {"mode": -1},
    "padding_idx 11": {"padding_idx": 11},
    "padding_idx -11, mode 3": {"padding_idx": -11, "mode": 3},
    "offsets 2-D, weight 1-D": {"offsets": ([0, 4, 4, 6], (2, 2)), "weight": (10,)},
    "weight 1-D, float indices": {"weight": (10,), "idtype": "float32"},
    "weight 3-D": {"weight": (10, 3, 2)},
    "float offsets": {"odtype": "float32"},
    "int16 indices and offsets": {"idtype": "int16", "odtype": "int16"},
    "int64 weight, float indices": {"wdtype": "int64", "idtype": "float32"},
    "int64 weight, mode 3": {"wdtype": "int64", "mode": 3},
    "offsets[0] 1, mode 3": {"offsets": [1, 3], "mode": 3},
    "offsets[0] 1, per-sample weights in mean": {
        "offsets": [1, 3],
        "mode": 1,
        "psw": (8, "float32"),
    },
    "offsets[-1] past the input": {"offsets": [0, 9]},
    "per-sample weights in max": {"mode": 2, "psw": (8, "float32")},
    "per-sample weights in mode 3": {"mode": 3, "psw": (8, "float32")},
    "per-sample weights float64, 3 of them": {"psw": (3, "float64")},
    "per-sample weights 2-D": {"psw": ((8, 1), "float32")},
    "3 per-sample weights": {"psw": (3, "float32")},
    "index 12, sum": {"indices": [1, 12], "offsets": [0]},
    "index 12, max": {"indices": [1, 12], "offsets": [0], "mode": 2},
    "index -1, padding_idx": {"indices": [1, -1], "offsets": [0], "padding_idx": 0},
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    with pytest.raises(Exception) as theirs:
        _bad(torch, **ERRORS[case])
    with pytest.raises(Exception) as ours:
        _bad(T, **ERRORS[case])
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)
