"""Tensor.apply_/map_/map2_ (a Python callable per element) against PyTorch: the values the
callable sees and returns, conversions and range checks by dtype, broadcasting, errors."""

import numpy as np
import pytest

import taimatsu as tm


def _run(lib, program):
    seen = []
    try:
        out = program(lib, seen)
        return [out.tolist(), str(out.dtype), seen]
    except (RuntimeError, TypeError, ValueError) as e:
        return [type(e).__name__, str(e), seen]


def _seeing(seen, fn):
    def wrapped(*values):
        seen.append([type(v).__name__ for v in values] + [v for v in values])
        return fn(*values)

    return wrapped


def _each(*results):
    """A callable returning ``results`` one call after another."""
    it = iter(results)
    return lambda *values: next(it)


P = {
    "float doubled": lambda T, s: T.arange(4.0).apply_(_seeing(s, lambda v: v * 2)),
    "order of a transpose": lambda T, s: (
        T.arange(6.0).view(2, 3).t().apply_(_seeing(s, lambda v: v))
    ),
    "int truncates": lambda T, s: T.arange(3).apply_(_seeing(s, lambda v: v - 2.7)),
    "int32 from numpy int": lambda T, s: T.ones(3, dtype=T.int32).apply_(lambda v: np.int64(7)),
    "float from numpy float": lambda T, s: T.ones(3).apply_(lambda v: np.float32(2.5)),
    "float from a tensor": lambda T, s: T.ones(2).apply_(lambda v: T.tensor(5.0)),
    "float from bool": lambda T, s: T.ones(2).apply_(lambda v: True),
    "bool": lambda T, s: T.tensor([True, False]).apply_(_seeing(s, lambda v: 2 if v else 0.0)),
    "complex": lambda T, s: T.tensor([1 + 2j]).apply_(_seeing(s, lambda v: v * 1j)),
    "complex from int": lambda T, s: T.tensor([1 + 2j]).apply_(lambda v: 2),
    "float16 rounding": lambda T, s: T.ones(3, dtype=T.float16).apply_(lambda v: 1 / 3),
    "float16 overflow is inf": lambda T, s: T.ones(1, dtype=T.float16).apply_(lambda v: 1e10),
    "float32 overflow is inf": lambda T, s: T.ones(1).apply_(lambda v: 1e300),
    "uint8 negatives wrap": lambda T, s: T.zeros(3, dtype=T.uint8).apply_(_each(-1, -128, -255)),
    "uint8 -256": lambda T, s: T.zeros(1, dtype=T.uint8).apply_(lambda v: -256),
    "uint8 256": lambda T, s: T.zeros(1, dtype=T.uint8).apply_(lambda v: 256),
    "int8 128": lambda T, s: T.zeros(1, dtype=T.int8).apply_(lambda v: 128),
    "int8 -128": lambda T, s: T.zeros(1, dtype=T.int8).apply_(lambda v: -128),
    "int32 from huge float": lambda T, s: T.zeros(1, dtype=T.int32).apply_(lambda v: 1e300),
    "int32 from nan": lambda T, s: T.zeros(1, dtype=T.int32).apply_(lambda v: float("nan")),
    "int64 2**63": lambda T, s: T.zeros(1, dtype=T.int64).apply_(lambda v: 2**63),
    "int64 limits": lambda T, s: T.zeros(2, dtype=T.int64).apply_(_each(2**63 - 1, -(2**63))),
    "None for float": lambda T, s: T.ones(3).apply_(lambda v: None),
    "None for int": lambda T, s: T.arange(3).apply_(lambda v: None),
    "str for int": lambda T, s: T.ones(3, dtype=T.int32).apply_(lambda v: "3"),
    "str for float": lambda T, s: T.ones(3).apply_(lambda v: "s"),
    "complex for float": lambda T, s: T.ones(3).apply_(lambda v: 1 + 2j),
    "str for bool": lambda T, s: T.ones(1, dtype=T.bool).apply_(lambda v: "x"),
    "not callable": lambda T, s: T.arange(3).apply_(3),
    "not callable, empty": lambda T, s: T.ones(0).apply_(3),
    "requires grad": lambda T, s: T.ones(2, requires_grad=True).apply_(lambda v: v),
    "map_": lambda T, s: T.arange(4.0).map_(T.ones(4), _seeing(s, lambda u, v: u + v)),
    "map_ broadcasts other": lambda T, s: T.ones(3).map_(T.ones(1), lambda u, v: u + v),
    "map_ cannot broadcast self": lambda T, s: T.ones(1).map_(T.ones(3), lambda u, v: u + v),
    "map_ bad size": lambda T, s: T.ones(3).map_(T.ones(2), lambda u, v: u),
    "map_ other dtype": lambda T, s: T.ones(3).map_(T.ones(3, dtype=T.int64), lambda u, v: u),
    "map_ not a tensor": lambda T, s: T.ones(3).map_(3, lambda u, v: u),
    "map_ requires grad": lambda T, s: T.ones(2, requires_grad=True).map_(
        T.ones(2), lambda u, v: u
    ),
    "map_ other requires grad": lambda T, s: T.ones(2).map_(
        T.ones(2, requires_grad=True), lambda u, v: u
    ),
    "map2_": lambda T, s: T.arange(4.0).map2_(
        T.ones(4), T.full((2, 1, 1), 3.0).view(2, 1)[0], _seeing(s, lambda u, v, w: u + v * w)
    ),
    "map2_ requires grad": lambda T, s: T.ones(2, requires_grad=True).map2_(
        T.ones(2), T.ones(2), lambda u, v, w: u
    ),
    "map2_ y not a tensor": lambda T, s: T.ones(2).map2_(T.ones(2), 1, lambda u, v, w: u),
}


@pytest.mark.parametrize("name", list(P))
def test_apply_matches_pytorch(torch_oracle, name):
    assert _run(tm, P[name]) == _run(torch_oracle, P[name])


def test_apply_keeps_the_version_and_meta_tensors_untouched(torch_oracle):
    for lib in (tm, torch_oracle):
        t = lib.ones(3)
        assert t.apply_(lambda v: v + 1)._version == 0 and t.tolist() == [2.0] * 3
        m = lib.ones(3, device="meta")
        assert m.apply_(lambda v: 1 / 0) is m
        assert m.map_(lib.ones(3, device="meta"), lambda u, v: 1 / 0) is m


def test_a_view_writes_through():
    base = tm.zeros(2, 3)
    base[:, 1].apply_(lambda v: 5.0)
    assert base.tolist() == [[0.0, 5.0, 0.0], [0.0, 5.0, 0.0]]
