"""opdb entries for taimatsu/ops/sorting/sort.py (sort, topk, kthvalue, mode, unique, searchsorted, ...).

Integer dtypes (``round(3 * randn)``) give many ties, which checks PyTorch's tie order.
"""

from __future__ import annotations

import numpy as np
from opdb import REGISTRY, OpInfo, Sample, Typed, register

ORDER = ("float32", "float64", "int64", "uint8")


_TIES = {"gradcheck": "tied or NaN values: finite differences see a different selection"}
# Tied samples that gradcheck passes all the same (argsort: an integer result, nothing to check).
_TIES_GRADCHECK_PASSES = {"argsort", "nanquantile"}


def _split(samples):
    """(tie-free samples, samples with ties or NaN): the second set skips gradcheck."""

    def plain(rng, dtype):
        return [s for s in samples(rng, dtype) if s.name != "ties"]

    def ties(rng, dtype):
        return [s for s in samples(rng, dtype) if s.name == "ties"]

    return plain, ties


def _reg(name, fn, samples, **kw):
    if "." not in name and any(
        x.name == "ties" for x in samples(np.random.default_rng(0), "float64")
    ):
        plain, ties = _split(samples)
        _reg(
            name + ".ties",
            fn,
            ties,
            xfail={} if name in _TIES_GRADCHECK_PASSES else dict(_TIES),
            **{k: v for k, v in kw.items() if k not in ("errors", "xfail")},
        )
        samples = plain
    register(OpInfo(
        name=name,
        op=lambda T, x, *a, **k: getattr(T, fn)(x, *a, **k),
        method=lambda x, *a, **k: getattr(x, fn)(*a, **k),
        samples=samples,
        **kw,
    ))  # fmt: skip


def _ties(rng, shape):
    """Floats with repeated values (ties survive the float dtypes too)."""
    return np.round(rng.standard_normal(shape) * 1.5) / 2


def _with_nan(rng, shape):
    a = rng.standard_normal(shape)
    a.flat[::3] = np.nan
    return a


def sort_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 5))),
        Sample(n((3, 5)), 0),
        Sample(n((3, 5)), -1, True),
        Sample(n((2, 3, 4)), kwargs={"dim": 1, "descending": True, "stable": True}),
        Sample(_ties(rng, (4, 9)), 1, True, name="ties"),
        Sample(_ties(rng, (4, 9)), kwargs={"stable": True}, name="ties"),
        Sample(_ties(rng, (3, 40)), name="ties"),  # past std::sort's insertion-sort size: unstable
        Sample(_ties(rng, (3, 40)), kwargs={"descending": True}, name="ties"),
        Sample(_ties(rng, (40, 3)), kwargs={"dim": 0, "stable": True}, name="ties"),
        Sample(n(())),
        Sample(n((4, 3)), 1, noncontig=True),
        Sample(n((0, 3)), 0),
    ]


_reg("sort", "sort", sort_samples, dtypes=ORDER + ("bool", "float16"), errors=lambda T: [
    (lambda: T.ones(3, dtype=T.complex64).sort(), RuntimeError),
    (lambda: T.ones(3).sort(1), IndexError),
])  # fmt: skip
_reg(
    "sort.nan",
    "sort",
    lambda rng, dtype: [Sample(_with_nan(rng, (3, 7))), Sample(_with_nan(rng, (3, 7)), 1, True)],
    xfail=_TIES,
)
_reg("argsort", "argsort", sort_samples, dtypes=ORDER)
register(OpInfo(
    name="msort", op=lambda T, x: T.msort(x), method=lambda x: x.msort(),
    samples=lambda rng, dtype: [Sample(rng.standard_normal((4, 3))), Sample(_ties(rng, (7, 2)), name="ties")],
    xfail=_TIES,
    dtypes=ORDER,
))  # fmt: skip


def topk_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 6)), 2),
        Sample(n((3, 6)), 3, 0),
        Sample(n((3, 6)), 2, kwargs={"largest": False}),
        Sample(n((2, 6)), 6, -1, False),
        Sample(_ties(rng, (5, 10)), 3, name="ties"),
        Sample(_ties(rng, (5, 10)), 4, 1, False, name="ties"),
        Sample(_ties(rng, (3, 200)), 2, name="ties"),  # the partial_sort path (k * 64 <= n)
        Sample(_ties(rng, (3, 200)), 3, kwargs={"largest": False}, name="ties"),
        Sample(n((3, 8)), 4, kwargs={"sorted": False}),
        Sample(n(()), 1),
        Sample(n((4, 3)), 2, 1, noncontig=True),
        Sample(n((3, 2)), 0),
    ]


_reg("topk", "topk", topk_samples, dtypes=ORDER, errors=lambda T: [
    (lambda: T.ones(3).topk(4), RuntimeError),
    (lambda: T.ones(3).topk(-1), RuntimeError),
])  # fmt: skip


def kth_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 5)), 2),
        Sample(n((3, 5)), 1, 0, True),
        Sample(_ties(rng, (6, 9)), 4, name="ties"),
        Sample(_ties(rng, (6, 9)), 2, 1, kwargs={"keepdim": True}, name="ties"),
        Sample(_ties(rng, (30,)), 11, name="ties"),
        Sample(n(()), 1),
        Sample(n((4, 3)), 3, 0, noncontig=True),
    ]


_reg("kthvalue", "kthvalue", kth_samples, dtypes=ORDER, errors=lambda T: [
    (lambda: T.ones(3).kthvalue(4), RuntimeError),
    (lambda: T.ones(3).kthvalue(0), RuntimeError),
])  # fmt: skip


def mode_samples(rng, dtype):
    return [
        Sample(_ties(rng, (4, 9)), name="ties"),
        Sample(_ties(rng, (4, 9)), 0, True, name="ties"),
        Sample(_ties(rng, (20,)), name="ties"),
        Sample(rng.standard_normal((3, 4)), 1),
        Sample(rng.standard_normal(())),
    ]


_reg(
    "mode",
    "mode",
    mode_samples,
    dtypes=ORDER,
    errors=lambda T: [(lambda: T.ones(0).mode(), IndexError)],
)


def nanmedian_samples(rng, dtype):
    allnan = rng.standard_normal((3, 4))
    allnan[1] = np.nan
    return [
        Sample(rng.standard_normal((3, 5))),
        Sample(_with_nan(rng, (3, 5)), name="ties"),
        Sample(_with_nan(rng, (3, 5)), 1, name="ties"),
        Sample(_with_nan(rng, (4, 6)), 0, True, name="ties"),
        Sample(allnan, 1, name="ties"),
        Sample(rng.standard_normal(())),
    ]


_reg("nanmedian", "nanmedian", nanmedian_samples, dtypes=("float32", "float64"))


def cum_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((3, 5)), 1),
        Sample(_ties(rng, (6, 4)), 0, name="ties"),
        Sample(rng.standard_normal(()), 0),
        Sample(rng.standard_normal((4, 3)), 1, noncontig=True),
        Sample(rng.standard_normal((0, 3)), 0),
    ]


_reg("cummax", "cummax", cum_samples, dtypes=ORDER + ("bool",))
_reg("cummin", "cummin", cum_samples, dtypes=ORDER + ("bool",))
_reg("cummax.nan", "cummax", lambda rng, dtype: [Sample(_with_nan(rng, (3, 7)), 1)], grad=False)


def unique_samples(rng, dtype):
    t = _ties(rng, (4, 6))
    t[2] = t[0]
    return [
        Sample(t),
        Sample(t, kwargs={"return_inverse": True, "return_counts": True}),
        Sample(t, False, True),
        Sample(t, kwargs={"dim": 0, "return_inverse": True, "return_counts": True}),
        Sample(t, kwargs={"dim": 1, "return_counts": True}),
        Sample(rng.standard_normal(())),
        Sample(np.zeros((0, 3))),
    ]


_reg("unique", "unique", unique_samples, dtypes=ORDER + ("bool",), grad=False)


def unique_consecutive_samples(rng, dtype):
    t = np.repeat(_ties(rng, (3, 4)), 2, axis=1)
    return [
        Sample(t),
        Sample(t, True, True),
        Sample(t, kwargs={"return_counts": True, "dim": 1}),
        Sample(np.repeat(t, 2, axis=0), kwargs={"return_inverse": True, "dim": 0}),
    ]


_reg(
    "unique_consecutive", "unique_consecutive", unique_consecutive_samples, dtypes=ORDER, grad=False
)


def searchsorted_samples(rng, dtype):
    seq = np.sort(_ties(rng, (9,)))
    seq2 = np.sort(_ties(rng, (3, 6)), -1)
    v = _ties(rng, (2, 5))
    return [
        Sample(seq, v),
        Sample(seq, v, kwargs={"right": True}),
        Sample(seq, v, kwargs={"side": "right", "out_int32": True}),
        Sample(seq2, _ties(rng, (3, 4))),
        Sample(seq2, _ties(rng, (3, 4)), kwargs={"right": True}),
        Sample(seq, 0.25),
    ]


register(OpInfo(
    name="searchsorted", op=lambda T, s, v, **k: T.searchsorted(s, v, **k), samples=searchsorted_samples,
    dtypes=("float32", "float64", "int64"), grad=False,
    errors=lambda T: [
        (lambda: T.searchsorted(T.ones(2, 3), T.ones(3)), RuntimeError),
        (lambda: T.searchsorted(T.ones(3), T.ones(3), side="up"), RuntimeError),
    ],
))  # fmt: skip
register(OpInfo(
    name="bucketize", op=lambda T, v, b, **k: T.bucketize(v, b, **k), grad=False,
    samples=lambda rng, dtype: [
        Sample(_ties(rng, (3, 4)), np.sort(_ties(rng, (6,))), name="ties"),
        Sample(_ties(rng, (3, 4)), np.sort(_ties(rng, (6,))), kwargs={"right": True}, name="ties"),
        Sample(_ties(rng, ()), np.sort(_ties(rng, (6,))), kwargs={"out_int32": True}, name="ties"),
    ],
    dtypes=("float32", "float64", "int64"),
))  # fmt: skip
register(OpInfo(
    name="histc", op=lambda T, x, *a, **k: T.histc(x, *a, **k), method=lambda x, *a, **k: x.histc(*a, **k),
    grad=False,
    samples=lambda rng, dtype: [
        Sample(rng.standard_normal((50,))),
        Sample(rng.standard_normal((5, 6)), 7, -1, 1),
        Sample(rng.standard_normal((40,)), kwargs={"bins": 5, "min": -0.5, "max": 0.5}),
        Sample(np.ones(4)),
        Sample(np.zeros(0), 4),
    ],
    dtypes=("float32", "float64"),
    errors=lambda T: [(lambda: T.histc(T.arange(3), 3), NotImplementedError)],
))  # fmt: skip


def bincount_samples(rng, dtype):
    x = rng.integers(0, 6, 12)
    return [
        Sample(Typed(x, "int64")),
        Sample(Typed(x, "int64"), kwargs={"minlength": 9}),
        Sample(Typed(x, "int64"), Typed(rng.standard_normal(12), "float32", False)),
        Sample(Typed(x, "int64"), Typed(rng.standard_normal(12), "float64", False)),
        Sample(Typed(x, "int64"), Typed(rng.integers(0, 5, 12), "int64")),
        Sample(Typed(np.zeros(0, np.int64), "int64")),
    ]


register(OpInfo(
    name="bincount", op=lambda T, x, *a, **k: T.bincount(x, *a, **k), samples=bincount_samples,
    dtypes=("int64",), grad=False,
    errors=lambda T: [
        (lambda: T.bincount(T.tensor([-1])), RuntimeError),
        (lambda: T.bincount(T.tensor([[1]])), RuntimeError),
        (lambda: T.bincount(T.tensor([1.0])), NotImplementedError),
    ],
))  # fmt: skip


def quantile_samples(rng, dtype):
    n = rng.standard_normal
    out = [
        Sample(n((3, 5)), 0.3),
        Sample(n((3, 5)), 0.5, 1, True),
        Sample(n((3, 5)), Typed(np.array([0.1, 0.5, 0.9]), dtype, False), 0),
        Sample(n((4,)), 1.0),
        Sample(n(()), 0.25),
    ]
    for how in ("lower", "higher", "midpoint", "nearest"):
        out.append(
            Sample(
                n((3, 6)),
                Typed(np.array([0.2, 0.7]), dtype, False),
                1,
                kwargs={"interpolation": how},
            )
        )
    return out


_QERR = lambda T: [
    (lambda: T.quantile(T.ones(3), 1.5), RuntimeError),
    (lambda: T.quantile(T.ones(3, dtype=T.int64), 0.5), RuntimeError),
    (lambda: T.quantile(T.ones(0), 0.5), RuntimeError),
    (lambda: T.quantile(T.ones(3), 0.5, interpolation="cubic"), RuntimeError),
]
_reg("quantile", "quantile", quantile_samples, errors=_QERR, grad_fn=False)
_reg(
    "quantile.nan",
    "quantile",
    lambda rng, dtype: [Sample(_with_nan(rng, (3, 5)), 0.4, 1)],
    grad=False,
)
_reg("nanquantile", "nanquantile", lambda rng, dtype: quantile_samples(rng, dtype) + [
    Sample(_with_nan(rng, (3, 5)), 0.4, 1, name="ties"),
    Sample(_with_nan(rng, (3, 5)), Typed(np.array([0.0, 0.6]), dtype, False), 0, True, name="ties"),
], grad_fn=False)  # fmt: skip


# ---- complex dtypes ----------------------------------------------------------------------------------------
# PyTorch orders no complex numbers: every entry needing an order refuses complex inputs, and the
# forward check compares the error type and message (bincount takes integer input only).
for _name, _info in REGISTRY.items():
    if _info.op.__module__ == __name__ and _name != "bincount":
        _info.dtypes = tuple(_info.dtypes) + ("complex64",)
