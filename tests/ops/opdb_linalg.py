"""opdb entries for taimatsu/ops/contraction/matmul.py and contraction.py (matmul, BLAS family, einsum)."""

from __future__ import annotations

from opdb import OpInfo, Sample, register

PRODUCT_DTYPES = ("float32", "float64", "int64", "complex64")
COMPLEX = ("complex128",)


def _pair(rng, sa, sb, **kw):
    return Sample(rng.standard_normal(sa), rng.standard_normal(sb), **kw)


def _reg(name, fn, samples, method=True, inplace=None, **kw):
    register(OpInfo(
        name=name,
        op=lambda T, *a, **k: getattr(T, fn)(*a, **k),
        method=(lambda x, *a, **k: getattr(x, fn)(*a, **k)) if method else None,
        inplace=inplace,
        samples=samples,
        **kw,
    ))  # fmt: skip


def _complex(name, fn, samples, **kw):
    """The same op on complex128: gradients follow PyTorch's conjugate convention."""
    _reg(f"{name}.complex", fn, lambda rng, dtype: [s for s in samples(rng, dtype) if not s.noncontig][:3],
         dtypes=COMPLEX, method=False, **kw)  # fmt: skip


# ---- mm / mv / dot / vdot / bmm ------------------------------------------------------------------------
def mm_samples(rng, dtype):
    return [
        _pair(rng, (2, 3), (3, 4)),
        _pair(rng, (1, 3), (3, 1)),
        _pair(rng, (4, 3), (2, 4), noncontig=True),
        _pair(rng, (0, 3), (3, 2)),
        _pair(rng, (2, 0), (0, 3)),
    ]


def _shape_errors(T):
    return [
        (lambda: T.ones(2, 3).mm(T.ones(2, 3)), RuntimeError),
        (lambda: T.mm(T.ones(3), T.ones(3, 2)), RuntimeError),
        (lambda: T.mm(T.ones(2, 3), T.ones(3)), RuntimeError),
        (lambda: T.mm(T.ones(2, 3), T.ones(3, 2, dtype=T.float64)), RuntimeError),
        (lambda: T.mm(T.ones(2, 3, dtype=T.int64), T.ones(3, 2)), RuntimeError),
        (lambda: T.mm(T.ones(2, 3, dtype=T.bool), T.ones(3, 2, dtype=T.bool)), NotImplementedError),
    ]


_reg("mm", "mm", mm_samples, dtypes=PRODUCT_DTYPES, errors=_shape_errors)
_complex("mm", "mm", mm_samples)


def mv_samples(rng, dtype):
    return [
        _pair(rng, (2, 3), (3,)),
        _pair(rng, (4, 3), (4,), noncontig=True),
        _pair(rng, (0, 3), (3,)),
        _pair(rng, (2, 0), (0,)),
    ]


_reg("mv", "mv", mv_samples, dtypes=PRODUCT_DTYPES, errors=lambda T: [
    (lambda: T.mv(T.ones(2, 3), T.ones(4)), RuntimeError),
    (lambda: T.mv(T.ones(2, 3), T.ones(3, 1)), RuntimeError),
    (lambda: T.mv(T.ones(3), T.ones(3)), RuntimeError),
    (lambda: T.mv(T.ones(2, 3), T.ones(3, dtype=T.float64)), RuntimeError),
    (lambda: T.mv(T.ones(2, 3, dtype=T.float64), T.ones(3)), RuntimeError),
    (lambda: T.mv(T.ones(2, 3, dtype=T.bool), T.ones(3, dtype=T.bool)), NotImplementedError),
])  # fmt: skip
_complex("mv", "mv", mv_samples)


def dot_samples(rng, dtype):
    return [_pair(rng, (3,), (3,)), _pair(rng, (5,), (5,), noncontig=True), _pair(rng, (0,), (0,))]


def _dot_errors(fn):
    return lambda T: [
        (lambda: getattr(T, fn)(T.ones(3), T.ones(4)), RuntimeError),
        (lambda: getattr(T, fn)(T.ones(3, 1), T.ones(3)), RuntimeError),
        (lambda: getattr(T, fn)(T.ones(3), T.ones(3, dtype=T.float64)), RuntimeError),
        (lambda: getattr(T, fn)(T.ones(3, dtype=T.int64), T.ones(3)), RuntimeError),
    ]


for fn in ("dot", "vdot"):
    _reg(fn, fn, dot_samples, dtypes=PRODUCT_DTYPES, errors=_dot_errors(fn))
    _complex(fn, fn, dot_samples)


def bmm_samples(rng, dtype):
    return [
        _pair(rng, (2, 2, 3), (2, 3, 4)),
        _pair(rng, (3, 4, 3), (3, 2, 4), noncontig=True),
        _pair(rng, (0, 2, 3), (0, 3, 2)),
        _pair(rng, (2, 1, 3), (2, 3, 1)),
    ]


_reg("bmm", "bmm", bmm_samples, dtypes=PRODUCT_DTYPES, errors=lambda T: [
    (lambda: T.bmm(T.ones(5, 2, 3), T.ones(4, 3, 2)), RuntimeError),
    (lambda: T.bmm(T.ones(5, 2, 3), T.ones(5, 4, 2)), RuntimeError),
    (lambda: T.bmm(T.ones(2, 3), T.ones(5, 3, 2)), RuntimeError),
    (lambda: T.bmm(T.ones(5, 2, 3), T.ones(3, 2)), RuntimeError),
    (lambda: T.bmm(T.ones(5, 2, 3), T.ones(5, 3, 2, dtype=T.float64)), RuntimeError),
])  # fmt: skip
_complex("bmm", "bmm", bmm_samples)


# ---- matmul ---------------------------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3, 4)),
    ((2, 2, 3), (3, 4)),
    ((2, 2, 3), (3,)),
    ((3,), (2, 3, 4)),
    ((2, 3), (2, 3, 4)),
    ((2, 2, 3), (2, 3, 4)),
    ((1, 2, 3), (2, 3, 2)),
    ((2, 2, 3), (1, 3, 2)),
    ((2, 1, 2, 3), (3, 3, 2)),
    ((2, 1, 2, 3), (3, 2)),
    ((0, 2, 3), (3, 2)),
]


def matmul_samples(rng, dtype):
    out = [_pair(rng, a, b) for a, b in MATMUL_SHAPES]
    return out + [
        _pair(rng, (3, 2, 3), (3, 4), noncontig=True),
        _pair(rng, (2, 4, 3), (2, 2, 4), noncontig=True),
    ]


def _matmul_errors(T):
    return [
        (lambda: T.ones(2, 3) @ T.ones(2, 3), RuntimeError),
        (lambda: T.matmul(T.tensor(1.0), T.ones(3)), RuntimeError),
        (lambda: T.ones(3) @ T.ones(4), RuntimeError),
        (lambda: T.ones(2, 3) @ T.ones(4), RuntimeError),
        (lambda: T.ones(3) @ T.ones(4, 2), RuntimeError),
        (lambda: T.ones(5, 2, 3) @ T.ones(4, 2), RuntimeError),
        (lambda: T.ones(2, 3) @ T.ones(5, 4, 2), RuntimeError),
        (lambda: T.ones(5, 2, 3) @ T.ones(5, 4, 2), RuntimeError),
        (lambda: T.ones(5, 2, 3) @ T.ones(4, 3, 2), RuntimeError),
        (lambda: T.ones(5, 2, 3) @ T.ones(4), RuntimeError),
        (lambda: T.ones(4) @ T.ones(5, 3, 2), RuntimeError),
        (lambda: T.ones(2, 3) @ T.ones(3, 2, dtype=T.float64), RuntimeError),
        (lambda: T.ones(3) @ T.ones(3, dtype=T.float64), RuntimeError),
        (lambda: T.ones(5, 2, 3) @ T.ones(5, 3, 2, dtype=T.float64), RuntimeError),
        (lambda: T.ones(5, 2, 3) @ T.ones(3, 2, dtype=T.float64), RuntimeError),
        (lambda: T.ones(2, 3) @ T.ones(3, dtype=T.float64), RuntimeError),
        (lambda: T.ones(3, dtype=T.bool) @ T.ones(3, dtype=T.bool), NotImplementedError),
        (lambda: T.ones(3) @ 2, TypeError),
    ]


register(OpInfo(
    name="matmul",
    op=lambda T, a, b: T.matmul(a, b),
    method=lambda a, b: a @ b,
    samples=matmul_samples,
    dtypes=("float16", "float32", "float64", "int64", "complex64"),
    errors=_matmul_errors,
))  # fmt: skip
_complex("matmul", "matmul", matmul_samples)


# ---- outer / ger / inner ---------------------------------------------------------------------------------------
def outer_samples(rng, dtype):
    return [_pair(rng, (3,), (4,)), _pair(rng, (5,), (2,), noncontig=True), _pair(rng, (0,), (2,))]


for fn in ("outer", "ger"):
    _reg(fn, fn, outer_samples, dtypes=PRODUCT_DTYPES, errors=lambda T, fn=fn: [
        (lambda: getattr(T, fn)(T.ones(2, 2), T.ones(3)), RuntimeError),
        (lambda: getattr(T, fn)(T.ones(2), T.ones(3, 1)), RuntimeError),
    ])  # fmt: skip


def inner_samples(rng, dtype):
    return [
        _pair(rng, (3,), (3,)),
        _pair(rng, (2, 3), (4, 3)),
        _pair(rng, (2, 3), (3,)),
        _pair(rng, (2, 2, 3), (2, 4, 3)),
        _pair(rng, (), (2, 3)),
        _pair(rng, (4, 3), (2, 3), noncontig=True),
    ]


_reg("inner", "inner", inner_samples, dtypes=PRODUCT_DTYPES, errors=lambda T: [
    (lambda: T.inner(T.ones(2, 3), T.ones(2, 4)), RuntimeError),
])  # fmt: skip


# ---- the fused add* forms ---------------------------------------------------------------------------------------
def _fused_samples(shapes):
    def samples(rng, dtype):
        n = rng.standard_normal
        out = []
        for inp, a, b in shapes:
            out.append(Sample(n(inp), n(a), n(b)))
        inp, a, b = shapes[0]
        out += [
            Sample(n(inp), n(a), n(b), kwargs={"beta": 0.5, "alpha": 2}),
            Sample(n(inp), n(a), n(b), kwargs={"beta": 0}),
            Sample(n(inp), n(a), n(b), kwargs={"alpha": -1.5}),
            Sample(n(inp), n(a), n(b), noncontig=True),
        ]
        return out

    return samples


def _inplace(fn):
    return lambda x, *a, **k: getattr(x, fn + "_")(*a, **k)


FUSED = {
    "addmm": [
        ((2, 4), (2, 3), (3, 4)),
        ((4,), (2, 3), (3, 4)),
        ((), (2, 3), (3, 4)),
        ((2, 1), (2, 3), (3, 4)),
    ],
    "addmv": [((2,), (2, 3), (3,)), ((1,), (2, 3), (3,)), ((), (2, 3), (3,))],
    "addr": [((2, 3), (2,), (3,)), ((3,), (2,), (3,)), ((), (2,), (3,))],
    "baddbmm": [
        ((2, 2, 4), (2, 2, 3), (2, 3, 4)),
        ((2, 4), (2, 2, 3), (2, 3, 4)),
        ((1,), (2, 2, 3), (2, 3, 4)),
    ],
    "addbmm": [((2, 4), (3, 2, 3), (3, 3, 4)), ((4,), (3, 2, 3), (3, 3, 4))],
}
FUSED_ERRORS = {
    "addmm": lambda T: [
        (lambda: T.addmm(T.ones(3, 3), T.ones(2, 3), T.ones(3, 4)), RuntimeError),
        (lambda: T.addmm(T.ones(2, 4), T.ones(2, 3), T.ones(2, 4)), RuntimeError),
        (lambda: T.addmm(T.ones(2, 4, dtype=T.float64), T.ones(2, 3), T.ones(3, 4)), RuntimeError),
    ],
    "addmv": lambda T: [
        (lambda: T.addmv(T.ones(3), T.ones(2, 3), T.ones(3)), RuntimeError),
        (lambda: T.addmv(T.ones(2, dtype=T.float64), T.ones(2, 3), T.ones(3)), RuntimeError),
    ],
    "addr": lambda T: [
        (lambda: T.addr(T.ones(3, 3), T.ones(2), T.ones(3)), RuntimeError),
        (lambda: T.addr(T.ones(2, 3), T.ones(2, 1), T.ones(3)), RuntimeError),
    ],
    "baddbmm": lambda T: [
        (lambda: T.baddbmm(T.ones(5, 2, 5), T.ones(5, 2, 3), T.ones(5, 3, 4)), RuntimeError),
        (
            lambda: T.baddbmm(T.ones(2, 2, 2, dtype=T.float64), T.ones(2, 2, 3), T.ones(2, 3, 2)),
            RuntimeError,
        ),
    ],
    "addbmm": lambda T: [
        (lambda: T.addbmm(T.ones(2, 2), T.ones(2, 2, 3), T.ones(3, 3, 2)), RuntimeError),
        (lambda: T.addbmm(T.ones(3, 3), T.ones(2, 2, 3), T.ones(2, 3, 2)), RuntimeError),
    ],
}

for fn, shapes in FUSED.items():
    _reg(fn, fn, _fused_samples(shapes), dtypes=("float32", "float64"), errors=FUSED_ERRORS[fn])
    _reg(
        f"{fn}_",
        fn,
        _fused_samples([shapes[0]]),
        method=False,
        inplace=_inplace(fn),
        dtypes=("float32", "float64"),
    )


# ---- tensordot / einsum ---------------------------------------------------------------------------------------------
def tensordot_samples(rng, dtype):
    return [
        _pair(rng, (2, 3), (3, 4), kwargs={"dims": 1}),
        _pair(rng, (2, 3, 4), (3, 4, 5)),
        _pair(rng, (2, 3), (2, 3), kwargs={"dims": 2}),
        _pair(rng, (3,), (3,), kwargs={"dims": 1}),
        _pair(rng, (2,), (3,), kwargs={"dims": 0}),
        _pair(rng, (2, 3, 4), (4, 2, 5), kwargs={"dims": ([0, 2], [1, 0])}),
        _pair(rng, (2, 1), (3, 4), kwargs={"dims": ([1], [0])}),
    ]


register(OpInfo(
    name="tensordot",
    op=lambda T, a, b, **k: T.tensordot(a, b, **k),
    samples=tensordot_samples,
    dtypes=("float32", "float64", "int64"),
    errors=lambda T: [
        (lambda: T.tensordot(T.ones(2, 3), T.ones(4, 5), 1), RuntimeError),
        (lambda: T.tensordot(T.ones(2, 3), T.ones(2, 3), ([0], [0, 1])), RuntimeError),
        (lambda: T.tensordot(T.ones(2), T.ones(2), -1), RuntimeError),
        (lambda: T.tensordot(T.ones(2), T.ones(2), 2), RuntimeError),
    ],
))  # fmt: skip


EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(2, 3)]),
    ("i,ij,j->", [(2,), (2, 3), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("b...,b...->...", [(2, 3, 4), (2, 1, 4)]),
    ("iij->j", [(2, 2, 3)]),
]


def einsum_samples(rng, dtype):
    return [Sample(eq, *[rng.standard_normal(s) for s in shapes]) for eq, shapes in EINSUM]


register(OpInfo(
    name="einsum",
    op=lambda T, eq, *ops: T.einsum(eq, *ops),
    samples=einsum_samples,
    dtypes=("float32", "float64", "int64"),
    grad_fn=False,  # values and gradients match; einsum's intermediate graph (its path) does not
    errors=lambda T: [
        (lambda: T.einsum("ij,jk", T.ones(2, 3)), RuntimeError),
        (lambda: T.einsum("ij", T.ones(2, 3), T.ones(3)), RuntimeError),
        (lambda: T.einsum("ij,jk", T.ones(2, 3), T.ones(4, 5)), RuntimeError),
        (lambda: T.einsum("ijk", T.ones(2, 3)), RuntimeError),
        (lambda: T.einsum("ij...k", T.ones(2, 2)), RuntimeError),
        (lambda: T.einsum("ij,jk->ikk", T.ones(2, 2), T.ones(2, 2)), RuntimeError),
        (lambda: T.einsum("ij,jk->iz", T.ones(2, 2), T.ones(2, 2)), RuntimeError),
        (lambda: T.einsum("i1", T.ones(2, 2)), RuntimeError),
        (lambda: T.einsum("i,i", T.ones(2), T.ones(3)), RuntimeError),
    ],
))  # fmt: skip
