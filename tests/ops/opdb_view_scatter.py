"""opdb entries for taimatsu/ops/shape/view_scatter.py and ops/reduction/covariance.py (hsplit/vsplit/dsplit, rot90, put,
the *_scatter family, narrow_copy, split_with_sizes, diff, complex, polar, cov, corrcoef, pinverse),
and for the scope ops of issue #3 that were tested only outside the op database: angle, real, imag,
conj, isclose, the atleast/stack/flip helpers, argwhere, view_as_real/complex, and the core of
torch.linalg (inv, det, slogdet, logdet, solve, eigh, eigvalsh, matrix_rank, matrix_power, vecdot)."""

from __future__ import annotations

import numpy as np
from opdb import OpInfo, Sample, Typed, register

FLOATS = ("float32", "float64")
ALL = ("float32", "float64", "int64", "bool")


def _reg(name, op, samples, method=None, inplace=None, **kw):
    register(OpInfo(name=name, op=op, method=method, inplace=inplace, samples=samples, **kw))


def _fn(name):
    return lambda T, *a, **k: getattr(T, name)(*a, **k)


def _m(name):
    return lambda x, *a, **k: getattr(x, name)(*a, **k)


# ---- hsplit / vsplit / dsplit ---------------------------------------------------------------------------
def _split_samples(ndim):
    def samples(rng, dtype):
        shape = {1: (6,), 2: (4, 6), 3: (2, 3, 4)}[ndim]
        out = [Sample(rng.standard_normal(shape), 2), Sample(rng.standard_normal(shape), [1, 3])]
        if ndim >= 2:
            out.append(Sample(rng.standard_normal((2, 4, 6)), (1,), noncontig=True))
        return out

    return samples


def _split_errors(name, min_dim):
    def errors(T):
        small = T.ones(*([2] * (min_dim - 1))) if min_dim > 1 else T.tensor(1.0)
        return [
            (lambda: getattr(T, name)(small, 2), RuntimeError),
            (lambda: getattr(T, name)(T.ones(3, 3, 3), 2), RuntimeError),
        ]

    return errors


for _name, _nd in (("hsplit", 1), ("vsplit", 2), ("dsplit", 3)):
    _reg(_name, _fn(_name), _split_samples(max(_nd, 2) if _name != "hsplit" else 2), method=_m(_name),
         dtypes=ALL, errors=_split_errors(_name, _nd), gradgrad=False)  # fmt: skip
_reg("hsplit.1d", _fn("hsplit"), _split_samples(1), dtypes=FLOATS, gradgrad=False)
_reg("dsplit.3d", _fn("dsplit"), _split_samples(3), dtypes=FLOATS, gradgrad=False)


# ---- rot90 -----------------------------------------------------------------------------------------------
def rot90_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((3, 4))),
        Sample(rng.standard_normal((3, 4)), 2),
        Sample(rng.standard_normal((3, 4)), -1),
        Sample(rng.standard_normal((3, 4)), 0),
        Sample(rng.standard_normal((2, 3, 4)), 3, (2, 0), noncontig=True),
        Sample(rng.standard_normal((2, 3, 4)), 1, [-1, 1]),
    ]


_reg("rot90", _fn("rot90"), rot90_samples, method=_m("rot90"), dtypes=ALL, errors=lambda T: [
    (lambda: T.rot90(T.ones(3, 3), 1, [0]), RuntimeError),
    (lambda: T.rot90(T.ones(3)), RuntimeError),
    (lambda: T.rot90(T.ones(3, 3), 1, [0, 0]), RuntimeError),
    (lambda: T.rot90(T.ones(3, 3), 1, [0, 2]), IndexError),
])  # fmt: skip


# ---- put -------------------------------------------------------------------------------------------------
def put_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((3, 4)), Typed(np.array([0, 5, -1]), "int64"), rng.standard_normal(3)),
        Sample(rng.standard_normal((3, 4)), Typed(np.array([[1, 2]]), "int64"), rng.standard_normal((2, 1))),
        Sample(rng.standard_normal((3, 4)), Typed(np.array([1, 1, 2]), "int64"), rng.standard_normal(3),
               kwargs={"accumulate": True}),
        Sample(rng.standard_normal((4, 3)), Typed(np.array([], dtype=np.int64), "int64"), rng.standard_normal(0),
               noncontig=True),
    ]  # fmt: skip


_reg("put", _fn("put"), put_samples, method=_m("put"), inplace=_m("put_"), dtypes=("float32", "float64", "int64"),
     errors=lambda T: [
         (lambda: T.ones(3).put(T.tensor([0, 1]), T.ones(1)), IndexError),
         (lambda: T.ones(3).put(T.tensor([0, 7]), T.ones(2)), IndexError),
         (lambda: T.ones(3).put(T.tensor([0.0]), T.ones(1)), RuntimeError),
         (lambda: T.ones(3).put(T.tensor([0]), T.ones(1, dtype=T.int64)), RuntimeError),
     ])  # fmt: skip


# ---- *_scatter ----------------------------------------------------------------------------------------------
def _scatter(name, make, **kw):
    _reg(name, _fn(name), make, method=_m(name), dtypes=("float32", "float64", "int64"), **kw)


_scatter("diagonal_scatter", lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4)), rng.standard_normal(3)),
    Sample(rng.standard_normal((3, 4)), rng.standard_normal(2), 2),
    Sample(rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 2)), -1, 0, 2, noncontig=True),
])  # fmt: skip
_scatter("slice_scatter", lambda rng, dtype: [
    Sample(rng.standard_normal((4, 3)), rng.standard_normal((2, 3)), 0, 1, 3),
    Sample(rng.standard_normal((3, 6)), rng.standard_normal((3, 3)), 1, None, None, 2),
    Sample(rng.standard_normal((4, 3)), rng.standard_normal((4, 3))),
])  # fmt: skip
_scatter("select_scatter", lambda rng, dtype: [
    Sample(rng.standard_normal((4, 3)), rng.standard_normal(3), 0, 1),
    Sample(rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 3)), 1, -1, noncontig=True),
])  # fmt: skip
_scatter("as_strided_scatter", lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4)), rng.standard_normal((2, 2)), (2, 2), (1, 2)),
    Sample(rng.standard_normal((3, 4)), rng.standard_normal(3), (3,), (5,)),
], xfail={"grad": "PyTorch 2.13's AsStridedScatterBackward0 is wrong (torch.autograd.gradcheck fails on it); "
                  "taimatsu's gradient passes gradcheck"})  # fmt: skip


# ---- narrow_copy / split_with_sizes / diff ------------------------------------------------------------------
_reg("narrow_copy", _fn("narrow_copy"), lambda rng, dtype: [
    Sample(rng.standard_normal((4, 3)), 0, 1, 2),
    Sample(rng.standard_normal((4, 5)), 1, -3, 2, noncontig=True),
], method=_m("narrow_copy"), dtypes=ALL)  # fmt: skip
_reg("split_with_sizes", _fn("split_with_sizes"), lambda rng, dtype: [
    Sample(rng.standard_normal((5, 3)), [2, 3]),
    Sample(rng.standard_normal((3, 4)), [1, 0, 3], 1, noncontig=True),
], method=_m("split_with_sizes"), dtypes=ALL, gradgrad=False,
   errors=lambda T: [(lambda: T.ones(4).split_with_sizes([1, 2]), RuntimeError)])  # fmt: skip


def diff_samples(rng, dtype):
    return [
        Sample(rng.standard_normal(5)),
        Sample(rng.standard_normal((3, 4)), 2, 0),
        Sample(
            rng.standard_normal((3, 4)),
            1,
            -1,
            rng.standard_normal((3, 1)),
            rng.standard_normal((3, 2)),
        ),
        Sample(rng.standard_normal((3, 4)), 0, noncontig=True),
        Sample(rng.standard_normal(3), 5),
    ]


_reg("diff", _fn("diff"), diff_samples, method=_m("diff"), dtypes=ALL, errors=lambda T: [
    (lambda: T.diff(T.tensor(1.0)), RuntimeError),
    (lambda: T.diff(T.ones(3), n=-1), RuntimeError),
])  # fmt: skip


# ---- complex / polar ---------------------------------------------------------------------------------------
def _complex_errors(name):
    return lambda T: [
        (lambda: getattr(T, name)(T.ones(2), T.ones(2, dtype=T.float64)), RuntimeError),
        (
            lambda: getattr(T, name)(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64)),
            RuntimeError,
        ),
        (lambda: getattr(T, name)(T.ones(2, 1), T.ones(3, 2)), RuntimeError),
    ]


def _pair_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((2, 3)), rng.standard_normal((2, 3))),
        Sample(rng.standard_normal((2, 1)), rng.standard_normal(3)),
        Sample(rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), noncontig=True),
        Sample(rng.standard_normal(0), rng.standard_normal(0)),
    ]


def _polar_samples(rng, dtype):
    # abs > 0: PyTorch's PolarBackward0 uses sgn(result), which is not the derivative where abs < 0
    return [
        Sample(np.abs(s.args[0]) + 0.1, s.args[1], noncontig=s.noncontig)
        for s in _pair_samples(rng, dtype)
    ]


_reg("complex", _fn("complex"), _pair_samples, dtypes=FLOATS, errors=_complex_errors("complex"))
_reg("polar", _fn("polar"), _polar_samples, dtypes=FLOATS, errors=_complex_errors("polar"))


# ---- cov / corrcoef / pinverse ---------------------------------------------------------------------------
def cov_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((3, 5))),
        Sample(rng.standard_normal(6)),
        Sample(rng.standard_normal((2, 4)), kwargs={"correction": 0}),
        Sample(rng.standard_normal((2, 4)), kwargs={"fweights": Typed(np.array([1, 2, 0, 3]), "int64")}),
        Sample(rng.standard_normal((2, 4)), kwargs={"aweights": Typed(np.array([0.5, 1.0, 2.0, 1.5]), "float64",
                                                                      requires_grad=False)}),
        Sample(rng.standard_normal((4, 3)), noncontig=True),
    ]  # fmt: skip


_reg("cov", _fn("cov"), cov_samples, method=_m("cov"), dtypes=("float32", "float64", "int64"),
     errors=lambda T: [
         (lambda: T.cov(T.ones(2, 2, 2)), RuntimeError),
         (lambda: T.cov(T.ones(2, 3), fweights=T.ones(3)), RuntimeError),
         (lambda: T.cov(T.ones(2, 3), aweights=T.ones(2)), RuntimeError),
         (lambda: T.cov(T.ones(2, 3), fweights=T.tensor([1, -1, 1])), RuntimeError),
     ])  # fmt: skip
_reg("corrcoef", _fn("corrcoef"), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 5))),
    Sample(rng.standard_normal(5)),
    Sample(rng.standard_normal((4, 3)), noncontig=True),
], method=_m("corrcoef"), dtypes=("float32", "float64", "int64"))  # fmt: skip
_reg("pinverse", _fn("pinverse"), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4))),
    Sample(rng.standard_normal((2, 4, 3))),
    Sample(rng.standard_normal((3, 3)), 1e-5),
], method=_m("pinverse"), dtypes=FLOATS, gradgrad=False)  # fmt: skip


# ---- complex views and parts -------------------------------------------------------------------------------
def _complex_samples(rng, dtype):
    return [
        Sample(rng.standard_normal((2, 3))),
        Sample(rng.standard_normal((3, 2)), noncontig=True),
        Sample(rng.standard_normal(())),
    ]


for _name in ("angle", "real", "imag", "conj"):
    # real and imag are attributes of a tensor, not methods.
    _method = (lambda x, _name=_name: getattr(x, _name)) if _name in ("real", "imag") else _m(_name)
    _reg(
        _name,
        _fn(_name),
        _complex_samples,
        method=_method,
        dtypes=("float32", "float64", "complex64", "complex128"),
    )
_reg("view_as_real", _fn("view_as_real"), lambda rng, dtype: [
    Sample(rng.standard_normal((2, 3))), Sample(rng.standard_normal(()))
], dtypes=("complex64", "complex128"))  # fmt: skip
_reg("view_as_complex", lambda T, x: T.view_as_complex(x), lambda rng, dtype: [
    Sample(rng.standard_normal((2, 3, 2))), Sample(rng.standard_normal(2)),
], dtypes=FLOATS, errors=lambda T: [
    (lambda: T.view_as_complex(T.ones(3, 3)), RuntimeError),
    (lambda: T.view_as_complex(T.ones(3, 2, dtype=T.int64)), RuntimeError),
])  # fmt: skip
_reg("isclose", _fn("isclose"), lambda rng, dtype: [
    Sample(rng.standard_normal((2, 3)), rng.standard_normal((2, 3))),
    Sample(np.array([1.0, np.nan, np.inf, 1e-9]), np.array([1.0 + 1e-9, np.nan, np.inf, 0.0]), kwargs={"equal_nan": True}),
    Sample(rng.standard_normal(3), rng.standard_normal(3), kwargs={"rtol": 0.5, "atol": 0.5}),
], method=_m("isclose"), dtypes=ALL, grad=False, errors=lambda T: [
    (lambda: T.isclose(T.ones(2), T.ones(2, dtype=T.float64)), RuntimeError),
    (lambda: T.isclose(T.ones(2, dtype=T.int64), T.ones(2)), RuntimeError),
    (lambda: T.allclose(T.ones(2), T.ones(2, dtype=T.float16)), RuntimeError),
    (lambda: T.isclose(T.ones(2), T.ones(2), rtol=-1), RuntimeError),
    (lambda: T.isclose(T.ones(2), T.ones(2), atol=-0.5), RuntimeError),
    (lambda: T.isclose(T.ones(2), 1.0), TypeError),
])  # fmt: skip


# ---- atleast / stacks / flips / argwhere ----------------------------------------------------------------------
def _nd_samples(rng, dtype):
    return [Sample(rng.standard_normal(())), Sample(rng.standard_normal(3)), Sample(rng.standard_normal((2, 3))),
            Sample(rng.standard_normal((2, 3, 2)))]  # fmt: skip


for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    _reg(_name, _fn(_name), _nd_samples, dtypes=ALL)


def _tensors_samples(rng, dtype):
    return [
        Sample(rng.standard_normal(3), rng.standard_normal(3)),
        Sample(rng.standard_normal((2, 3)), rng.standard_normal((2, 1))),
        Sample(rng.standard_normal(()), rng.standard_normal(2)),
    ]


for _name in ("column_stack", "dstack"):
    _reg(_name, (lambda n: lambda T, *xs: getattr(T, n)(xs))(_name), _tensors_samples, dtypes=ALL)
_reg("broadcast_tensors", lambda T, a, b: T.broadcast_tensors(a, b), lambda rng, dtype: [
    Sample(rng.standard_normal((2, 1)), rng.standard_normal(3)),
    Sample(rng.standard_normal(()), rng.standard_normal((2, 2))),
], dtypes=ALL, errors=lambda T: [(lambda: T.broadcast_tensors(T.ones(2), T.ones(3)), RuntimeError)])  # fmt: skip
_reg("fliplr", _fn("fliplr"), lambda rng, dtype: [
    Sample(rng.standard_normal((2, 3))), Sample(rng.standard_normal((2, 3, 2)), noncontig=True)
], method=_m("fliplr"), dtypes=ALL, errors=lambda T: [(lambda: T.fliplr(T.ones(3)), RuntimeError)])  # fmt: skip
_reg("flipud", _fn("flipud"), lambda rng, dtype: [
    Sample(rng.standard_normal(3)), Sample(rng.standard_normal((2, 3)), noncontig=True)
], method=_m("flipud"), dtypes=ALL, errors=lambda T: [(lambda: T.flipud(T.tensor(1.0)), RuntimeError)])  # fmt: skip
_reg("argwhere", _fn("argwhere"), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4)) > 0.3), Sample(rng.standard_normal(5)), Sample(rng.standard_normal(())),
], method=_m("argwhere"), dtypes=ALL, grad=False)  # fmt: skip


# ---- torch.linalg core -----------------------------------------------------------------------------------
def _square(rng, shape):
    a = rng.standard_normal(shape)
    return a + 3 * np.eye(shape[-1])


def _linalg(name, fn, samples, dtypes=("float32", "float64", "complex128"), **kw):
    _reg(name, fn, samples, dtypes=dtypes, **kw)


def square_samples(rng, dtype):
    return [
        Sample(_square(rng, (3, 3))),
        Sample(_square(rng, (2, 2, 2))),
        Sample(_square(rng, (4, 4)), noncontig=True),
        Sample(_square(rng, (1, 1))),
    ]


def _square_errors(fn):
    return lambda T: [
        (lambda: fn(T, T.ones(2, 3)), RuntimeError),
        (lambda: fn(T, T.ones(3)), RuntimeError),
        (lambda: fn(T, T.ones(2, 2, dtype=T.int64)), RuntimeError),
    ]


for _name, _f in (
    ("linalg.inv", lambda T, a: T.linalg.inv(a)),
    ("linalg.det", lambda T, a: T.linalg.det(a)),
    ("linalg.slogdet", lambda T, a: T.linalg.slogdet(a)),
    ("det", lambda T, a: T.det(a)),
    ("inverse", lambda T, a: T.inverse(a)),
    ("slogdet", lambda T, a: T.slogdet(a)),
):
    _linalg(_name, _f, square_samples, errors=_square_errors(_f))
_linalg("logdet", _fn("logdet"), lambda rng, dtype: [
    Sample(_square(rng, (3, 3)) @ _square(rng, (3, 3)).T + np.eye(3)),
    Sample(-np.eye(2) * 2),
    Sample(np.diag([2.0, -1.0, -3.0])),
], dtypes=FLOATS, method=_m("logdet"))  # fmt: skip
for _name, _f in (
    ("linalg.matrix_power", lambda T, a, n: T.linalg.matrix_power(a, n)),
    ("matrix_power", lambda T, a, n: T.matrix_power(a, n)),
):
    _linalg(_name, _f, lambda rng, dtype: [
        Sample(_square(rng, (3, 3)) / 3, 3), Sample(_square(rng, (2, 2, 2)) / 3, 0), Sample(_square(rng, (3, 3)), -2),
        Sample(_square(rng, (2, 2)), 1, noncontig=True),
    ], dtypes=("float32", "float64", "int64"))  # fmt: skip


def solve_samples(rng, dtype):
    return [
        Sample(_square(rng, (3, 3)), rng.standard_normal((3, 2))),
        Sample(_square(rng, (3, 3)), rng.standard_normal(3)),
        Sample(_square(rng, (2, 3, 3)), rng.standard_normal((2, 3, 1)), noncontig=True),
        Sample(_square(rng, (3, 3)), rng.standard_normal((2, 3)), kwargs={"left": False}),
    ]


_linalg("linalg.solve", lambda T, a, b, **k: T.linalg.solve(a, b, **k), solve_samples, errors=lambda T: [
    (lambda: T.linalg.solve(T.ones(2, 3), T.ones(2)), RuntimeError),
    (lambda: T.linalg.solve(T.eye(3), T.ones(2)), RuntimeError),
    (lambda: T.linalg.solve(T.zeros(2, 2), T.ones(2)), RuntimeError),
])  # fmt: skip


def _sym(T, a):
    return (a + a.mT.conj()) / 2


def eigh_samples(rng, dtype):
    return [Sample(rng.standard_normal((3, 3))), Sample(rng.standard_normal((2, 4, 4))),
            Sample(rng.standard_normal((3, 3)), "U")]  # fmt: skip


def _eigh(T, a, uplo="L"):
    vals, vecs = T.linalg.eigh(_sym(T, a), uplo)
    return vals, vecs.abs()  # eigenvectors are defined up to sign (phase): compare |V|


_linalg("linalg.eigh", _eigh, eigh_samples, dtypes=FLOATS, gradgrad=False)
_linalg("linalg.eigvalsh", lambda T, a, uplo="L": T.linalg.eigvalsh(_sym(T, a), uplo), eigh_samples,
        dtypes=("float32", "float64", "complex128"))  # fmt: skip
_linalg("linalg.matrix_rank", lambda T, a, **k: T.linalg.matrix_rank(a, **k), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4))),
    Sample(rng.standard_normal((3, 1)) @ rng.standard_normal((1, 4))),
    Sample(rng.standard_normal((2, 3, 3)), kwargs={"hermitian": True}),
    Sample(np.diag([1.0, 1e-3, 1e-9]), kwargs={"atol": 1e-2}),
    Sample(np.diag([1.0, 1e-3, 1e-9]), kwargs={"rtol": 1e-4}),
], dtypes=FLOATS, grad=False)  # fmt: skip
_linalg("linalg.vecdot", lambda T, a, b, **k: T.linalg.vecdot(a, b, **k), lambda rng, dtype: [
    Sample(rng.standard_normal((2, 3)), rng.standard_normal((2, 3))),
    Sample(rng.standard_normal((2, 3)), rng.standard_normal(3), kwargs={"dim": -1}),
    Sample(rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), kwargs={"dim": 0}),
], dtypes=("float32", "float64", "complex128"))  # fmt: skip


# ---- expand_as and the in-place methods cumsum_/cumprod_/polygamma_/as_strided_ ---------------------------
_reg("expand_as", lambda T, x, y: x.expand_as(y), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 1)), rng.standard_normal((2, 3, 4))),
    Sample(rng.standard_normal(()), rng.standard_normal((2,))),
], dtypes=ALL, grad_args=(0,))  # fmt: skip
_reg("cumsum.inplace", _fn("cumsum"), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4)), 1), Sample(rng.standard_normal((3, 4)), 0, noncontig=True),
], inplace=_m("cumsum_"), dtypes=("float32", "float64", "int64"))  # fmt: skip
_reg("cumprod.inplace", _fn("cumprod"), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 4)), 1), Sample(rng.standard_normal((3, 4)), -2, noncontig=True),
], inplace=_m("cumprod_"), dtypes=("float32", "float64", "int64"))  # fmt: skip
_reg("polygamma.inplace", lambda T, x, n: T.polygamma(n, x), lambda rng, dtype: [
    Sample(np.abs(rng.standard_normal((2, 3))) + 0.5, 1), Sample(np.abs(rng.standard_normal(3)) + 0.5, 0),
], inplace=lambda x, n: x.polygamma_(n), dtypes=FLOATS)  # fmt: skip
_reg("as_strided.inplace", lambda T, x, *a: x.as_strided(*a), lambda rng, dtype: [
    Sample(rng.standard_normal(6), (2, 2), (1, 2)), Sample(rng.standard_normal((2, 3)), (3,), (2,), 1),
], inplace=lambda x, *a: x.as_strided_(*a), dtypes=("float32", "float64", "int64"), gradgrad=False)  # fmt: skip
