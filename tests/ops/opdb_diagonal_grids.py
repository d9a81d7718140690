"""opdb entries for taimatsu/ops/shape/diagonal.py: diag/diag_embed/diagflat/block_diag, meshgrid,
cartesian_prod, combinations, tril/triu_indices, repeat_interleave, Tensor.unfold, kron, trace, vander."""

from __future__ import annotations

import numpy as np
from opdb import COMPLEX_DTYPES, REGISTRY, OpInfo, Sample, Typed, register

ALL = ("float32", "float64", "int64", "bool")
NUM = ("float32", "float64", "int64")
FLOATS = ("float32", "float64")


def _reg(name, op, samples, method=None, dtypes=NUM, **kw):
    register(OpInfo(name=name, op=op, method=method, samples=samples, dtypes=dtypes, **kw))


def _s(*shapes, noncontig=False, **kw):
    def make(rng, dtype):
        out = [Sample(rng.standard_normal(s), **kw) for s in shapes]
        if noncontig:
            out.append(Sample(rng.standard_normal(shapes[0]), noncontig=True, **kw))
        return out

    return make


def _samples(*specs):
    """specs: (shapes tuple, kwargs dict[, noncontig])."""

    def make(rng, dtype):
        return [Sample(*[rng.standard_normal(s) for s in shapes], kwargs=kw, noncontig=nc)
                for shapes, kw, *rest in specs for nc in ([rest[0]] if rest else [False])]  # fmt: skip

    return make


# ---- diagonals -------------------------------------------------------------------------------------------
_reg("diag", lambda T, x, **k: T.diag(x, **k), _samples(
    (((4,),), {}), (((3,),), {"diagonal": 1}), (((3,),), {"diagonal": -2}), (((0,),), {}),
    (((3, 4),), {}), (((3, 4),), {"diagonal": 1}), (((4, 3),), {"diagonal": -1}, True), (((3, 4),), {"diagonal": 5}),
), method=lambda x, **k: x.diag(**k), dtypes=ALL, errors=lambda T: [
    (lambda: T.diag(T.ones(2, 2, 2)), RuntimeError),
])  # fmt: skip
_reg("diag_embed", lambda T, x, **k: T.diag_embed(x, **k), _samples(
    (((3,),), {}), (((2, 3),), {"offset": 1}), (((2, 3),), {"offset": -1, "dim1": 0, "dim2": 2}),
    (((2, 3),), {"dim1": -1, "dim2": 0}, True), (((0, 2),), {}),
), method=lambda x, **k: x.diag_embed(**k), dtypes=ALL, errors=lambda T: [
    (lambda: T.diag_embed(T.ones(2, 3), 0, 1, 1), RuntimeError),
])  # fmt: skip
_reg("diagflat", lambda T, x, **k: T.diagflat(x, **k), _samples(
    (((3,),), {}), (((2, 2),), {"offset": 1}), (((2, 3),), {"offset": -1}, True),
), method=lambda x, **k: x.diagflat(**k), dtypes=ALL)  # fmt: skip


def _block_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((2, 3)), n((3,)), n(())),
        Sample(n((1, 2)), n((2, 2)), noncontig=True),
        Sample(n((0, 2)), n((2, 0))),
    ]


_reg("block_diag", lambda T, *a: T.block_diag(*a), _block_samples, dtypes=ALL, errors=lambda T: [
    (lambda: T.block_diag(T.ones(2, 2, 2)), RuntimeError),
])  # fmt: skip
_reg("block_diag.promote", lambda T, a, b: T.block_diag(a, b),
     lambda rng, dtype: [Sample(Typed(rng.standard_normal((2,)), "float64"), rng.standard_normal((1, 2)))],
     dtypes=("int64", "float32"))  # fmt: skip


# ---- grids and index sets ---------------------------------------------------------------------------------
def _vecs(*ns, **kw):
    return lambda rng, dtype: [Sample(*[rng.standard_normal(n) for n in ns], **kw)]


def _grid_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(n(3), n(2), kwargs={"indexing": "ij"}), Sample(n(3), n(2), n(()), kwargs={"indexing": "xy"}),
            Sample(n(4), n(3), kwargs={"indexing": "xy"}, noncontig=True), Sample(n(2), kwargs={"indexing": "xy"})]  # fmt: skip


_reg("meshgrid", lambda T, *a, **k: T.meshgrid(*a, **k), _grid_samples, dtypes=ALL, errors=lambda T: [
    (lambda: T.meshgrid(T.ones(2, 2), T.ones(2), indexing="ij"), RuntimeError),
])  # fmt: skip
_reg("cartesian_prod", lambda T, *a: T.cartesian_prod(*a),
     lambda rng, dtype: [Sample(rng.standard_normal(3), rng.standard_normal(2)),
                         Sample(rng.standard_normal(2), rng.standard_normal(2), rng.standard_normal(2), noncontig=True)],
     dtypes=ALL, errors=lambda T: [(lambda: T.cartesian_prod(T.ones(2, 2), T.ones(2)), RuntimeError)])  # fmt: skip
_reg("combinations", lambda T, x, **k: T.combinations(x, **k), _samples(
    (((4,),), {}), (((4,),), {"r": 3}), (((3,),), {"with_replacement": True}, True), (((2,),), {"r": 3}),
    (((3,),), {"r": 1}),
), dtypes=ALL, errors=lambda T: [
    (lambda: T.combinations(T.ones(2, 2)), RuntimeError),
    (lambda: T.combinations(T.ones(2), -1), RuntimeError),
])  # fmt: skip
_reg(
    "cartesian_prod.single", lambda T, x: T.cartesian_prod(x), _s((3,)), dtypes=ALL, grad=False
)  # returns x itself
_reg("combinations.r0", lambda T, x: T.combinations(x, 0), _s((3,)), grad=False)
for _fn in ("tril_indices", "triu_indices"):
    _reg(_fn, (lambda fn: lambda T, *a, **k: getattr(T, fn)(*a, **k))(_fn),
         lambda rng, dtype: [Sample(3, 4), Sample(4, 3, 1), Sample(3, 3, -1), Sample(0, 3), Sample(3, 3, 5),
                             Sample(2, 2, kwargs={"dtype": __import__("opdb").Dtype("int32")})],
         dtypes=("int64",), grad=False)  # fmt: skip


# ---- repeat_interleave / unfold ------------------------------------------------------------------------------
def _ri_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((2, 3)), 2), Sample(n((2, 3)), 3, kwargs={"dim": 1}), Sample(n((3, 2)), 2, kwargs={"dim": 0}, noncontig=True),
        Sample(n((3, 2)), Typed(np.array([1, 0, 2]), "int64"), kwargs={"dim": 0}),
        Sample(n((3,)), Typed(np.array([2]), "int64")), Sample(n((2, 2)), Typed(np.array(2), "int64"), kwargs={"dim": 1}),
        Sample(n(()), 3),
    ]  # fmt: skip


_reg("repeat_interleave", lambda T, x, r, **k: T.repeat_interleave(x, r, **k), _ri_samples,
     method=lambda x, r, **k: x.repeat_interleave(r, **k), dtypes=ALL, errors=lambda T: [
    (lambda: T.repeat_interleave(T.ones(3), T.tensor([1, 2])), RuntimeError),
    (lambda: T.repeat_interleave(T.ones(3), T.tensor([1.0, 2, 3])), NotImplementedError),
    (lambda: T.repeat_interleave(T.ones(3), T.tensor([1, -2, 3])), RuntimeError),
])  # fmt: skip
_reg("repeat_interleave.indices", lambda T, r: T.repeat_interleave(r),
     lambda rng, dtype: [Sample(Typed(np.array([1, 0, 3]), "int64")), Sample(Typed(np.array([2, 1]), "int32"))],
     dtypes=("int64",), grad=False)  # fmt: skip
_reg("unfold", lambda T, x, *a: T.Tensor.unfold(x, *a), lambda rng, dtype: [
    Sample(rng.standard_normal((3, 5)), 1, 2, 1), Sample(rng.standard_normal((6,)), 0, 2, 2),
    Sample(rng.standard_normal((4, 3)), 0, 3, 1, noncontig=True), Sample(rng.standard_normal((2, 7)), -1, 3, 2),
    Sample(rng.standard_normal(()), 0, 1, 1), Sample(rng.standard_normal((2, 3)), 1, 3, 1),
], method=lambda x, *a: x.unfold(*a), dtypes=ALL, errors=lambda T: [
    (lambda: T.ones(3, 4).unfold(1, 5, 1), RuntimeError),
    (lambda: T.ones(3, 4).unfold(1, 2, 0), RuntimeError),
])  # fmt: skip


# ---- kron / trace / vander -------------------------------------------------------------------------------------
def _kron_samples(rng, dtype):
    n = rng.standard_normal
    return [Sample(n((2, 3)), n((2, 2))), Sample(n((3,)), n((2, 2))), Sample(n((2, 2)), n((3, 2)), noncontig=True),
            Sample(n(()), n((2,))), Sample(n((1, 2, 2)), n((2,)))]  # fmt: skip


_reg("kron", lambda T, a, b: T.kron(a, b), _kron_samples, method=lambda a, b: a.kron(b))
_reg("trace", lambda T, x: T.trace(x), _s((3, 3), (2, 4), (0, 2), noncontig=True), method=lambda x: x.trace(),
     dtypes=ALL, errors=lambda T: [(lambda: T.trace(T.ones(2)), RuntimeError)])  # fmt: skip
_reg("vander", lambda T, x, **k: T.vander(x, **k), _samples(
    (((3,),), {}), (((4,),), {"N": 2}), (((3,),), {"N": 4, "increasing": True}, True), (((3,),), {"N": 0}),
    (((0,),), {}),
), dtypes=NUM, xfail={"jvp": "forward-mode tangents do not flow through setitem (CopySlices) yet"}, errors=lambda T: [
    (lambda: T.vander(T.ones(2, 2)), RuntimeError), (lambda: T.vander(T.ones(2), -1), RuntimeError),
])  # fmt: skip


# ---- complex dtypes ----------------------------------------------------------------------------------------
# These ops are dtype-agnostic in PyTorch: every entry above (the index generators aside) also runs
# on complex inputs, complex128 adding the gradient checks.
for _name, _info in REGISTRY.items():
    if _info.op.__module__ == __name__ and _name not in ("tril_indices", "triu_indices"):
        _info.dtypes = tuple(_info.dtypes) + COMPLEX_DTYPES
