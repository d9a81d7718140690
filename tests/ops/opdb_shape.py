"""opdb entries for taimatsu/ops/shape/view_ops.py, ops/shape/views.py, indexing.py and ops/indexing/subscript.py.

Views, copies and indexing ops, each with non-contiguous, 0-d or empty samples where they
mean something. Semantics the generic checks cannot see (memory sharing, version counters,
CopySlices) are tested in test_views_indexing.py.
"""

from __future__ import annotations

import numpy as np
from opdb import COMPLEX_DTYPES, REGISTRY, OpInfo, Sample, Typed, register

ALL = ("float32", "float64", "int64", "bool")
FLOATS = ("float32", "float64")


def _i64(v):
    return Typed(np.array(v, dtype=np.int64), "int64")


def _mask(v):
    return Typed(np.array(v, dtype=bool), "bool")


def _reg(name, op, samples, method=None, dtypes=ALL, **kw):
    register(OpInfo(name=name, op=op, method=method, samples=samples, dtypes=dtypes, **kw))


def _s(*shapes, noncontig=False):
    """Samples: one input per shape (plus a non-contiguous copy of the first, if asked)."""

    def make(rng, dtype):
        out = [Sample(rng.standard_normal(s)) for s in shapes]
        if noncontig:
            out.append(Sample(rng.standard_normal(shapes[0]), noncontig=True))
        return out

    return make


# ---- views ----------------------------------------------------------------------------------------
_reg(
    "view",
    lambda T, x: T.Tensor.view(x, -1, 2),
    _s((2, 3, 4), (4, 2)),
    method=lambda x: x.view(2, -1),
    errors=lambda T: [
        (lambda: T.ones(2, 3).view(-1, 4), RuntimeError),
        (lambda: T.ones(3, 4).t().view(12), RuntimeError),
        (lambda: T.ones(2, 3).view(-1, -1), RuntimeError),
    ],
)
_reg(
    "reshape",
    lambda T, x: T.reshape(x, (4, -1)),
    _s((2, 3, 4), (4, 3), noncontig=True),
    method=lambda x: x.reshape(-1),
)
_reg(
    "flatten",
    lambda T, x: T.flatten(x, 1),
    _s((2, 3, 4), noncontig=True),
    method=lambda x: x.flatten(),
)
_reg("unflatten", lambda T, x: T.unflatten(x, 1, (3, 1)), _s((2, 3), noncontig=True))
_reg(
    "permute",
    lambda T, x: T.permute(x, (1, 0, 2)),
    _s((2, 3, 4)),
    method=lambda x: x.permute(2, 0, 1),
    errors=lambda T: [(lambda: T.ones(2, 3).permute(0, 0), RuntimeError)],
)
_reg(
    "transpose",
    lambda T, x: T.transpose(x, 0, -1),
    _s((2, 3, 4), (3, 2), noncontig=True),
    method=lambda x: x.transpose(1, 0),
)
_reg(
    "swapaxes",
    lambda T, x: T.swapaxes(x, axis0=0, axis1=-1),
    _s((2, 3, 4), (3, 2), noncontig=True),
    method=lambda x: x.swapaxes(1, 0),
)
_reg(
    "swapdims",
    lambda T, x: T.swapdims(x, dim0=-1, dim1=0),
    _s((2, 3, 4), (3, 2), noncontig=True),
    method=lambda x: x.swapdims(1, 0),
)
_reg("t", lambda T, x: T.t(x), _s((2, 3), (3,), ()), method=lambda x: x.t())
_reg("T", lambda T, x: x.T, _s((2, 3), (3,)))
_reg("mT", lambda T, x: x.mT, _s((2, 3, 4), (3, 2), noncontig=True))
_reg(
    "movedim",
    lambda T, x: T.movedim(x, (0, 1), (2, 0)),
    _s((2, 3, 4)),
    method=lambda x: x.movedim(-1, 0),
)
_reg(
    "expand",
    lambda T, x: x.expand(2, 3, 4),
    _s((3, 1), (1, 4), (4,), ()),
    method=lambda x: x.expand(2, -1, -1) if x.dim() == 2 else x.expand(2, 3, 4),
    errors=lambda T: [
        (lambda: T.ones(3, 4).expand(2, 3), RuntimeError),
        (lambda: T.ones(3, 1).expand(-1, 4, 2), RuntimeError),
    ],
)
_reg("broadcast_to", lambda T, x: T.broadcast_to(x, (2, 3, 4)), _s((3, 1), ()))
_reg(
    "squeeze", lambda T, x: T.squeeze(x), _s((2, 1, 3, 1), (1,), ()), method=lambda x: x.squeeze(-1)
)
_reg("squeeze.dims", lambda T, x: T.squeeze(x, (0, 1)), _s((1, 1, 3), (1, 2, 3)))
_reg("unsqueeze", lambda T, x: T.unsqueeze(x, 1), _s((2, 3), ()), method=lambda x: x.unsqueeze(-1))
_reg(
    "narrow",
    lambda T, x: T.narrow(x, 1, 1, 2),
    _s((2, 4), (3, 3), noncontig=True),
    errors=lambda T: [(lambda: T.ones(2, 3).narrow(1, 2, 2), RuntimeError)],
)
_reg(
    "select",
    lambda T, x: T.select(x, 1, -1),
    _s((2, 4), (3, 3, 2), noncontig=True),
    errors=lambda T: [(lambda: T.ones(2, 3).select(1, 3), IndexError)],
)
_reg("unbind", lambda T, x: T.unbind(x, 1), _s((2, 3), (3, 2, 2)), method=lambda x: x.unbind())
_reg("chunk", lambda T, x: T.chunk(x, 3, 1), _s((2, 5), (2, 6)), method=lambda x: x.chunk(2))
_reg(
    "split",
    lambda T, x: T.split(x, 2, -1),
    _s((2, 5), (3, 4), noncontig=True),
    method=lambda x: x.split(1),
)
_reg(
    "split.sizes",
    lambda T, x: T.split(x, [1, 3, 0], 1),
    _s((2, 4), noncontig=True),
    errors=lambda T: [(lambda: T.ones(2, 3).split([1, 1], 1), RuntimeError)],
)
_reg("tensor_split", lambda T, x: T.tensor_split(x, 3, 1), _s((2, 5), (2, 7)))
_reg(
    "tensor_split.indices",
    lambda T, x: T.tensor_split(x, [1, -2, 9], 1),
    _s((2, 5), noncontig=True),
)
_reg(
    "diagonal",
    lambda T, x: T.diagonal(x),
    _s((3, 4), (4, 3), noncontig=True),
    method=lambda x: x.diagonal(1),
)
_reg("diagonal.dims", lambda T, x: T.diagonal(x, -1, 2, 0), _s((3, 2, 4)))
_reg(
    "as_strided",
    lambda T, x: T.as_strided(x, (2, 2), (1, 2), 1),
    _s((6,), (2, 3)),
    errors=lambda T: [(lambda: T.ones(3).as_strided((4,), (1,)), RuntimeError)],
)
_reg(
    "contiguous",
    lambda T, x: x.contiguous(),
    lambda r, d: [
        Sample(r.standard_normal((2, 3)), noncontig=True)
    ],  # a contiguous input is returned as is
)
_reg(
    "clone",
    lambda T, x: T.clone(x),
    _s((2, 3), (), (0, 2), noncontig=True),
    method=lambda x: x.clone(),
)
_reg("ravel", lambda T, x: T.ravel(x), _s((2, 3), noncontig=True))
_reg(
    "view_as",
    lambda T, x, y: x.view_as(y),
    lambda r, d: [Sample(r.standard_normal((2, 3)), r.standard_normal((3, 2)))],
)

# ---- copies ------------------------------------------------------------------------------------------
_reg(
    "cat",
    lambda T, x, y: T.cat([x, y], 1),
    lambda r, d: [
        Sample(r.standard_normal((2, 3)), r.standard_normal((2, 1))),
        Sample(r.standard_normal((2, 3)), r.standard_normal((2, 2)), noncontig=True),
    ],
    errors=lambda T: [
        (lambda: T.cat([T.ones(2, 3), T.ones(2, 4)]), RuntimeError),
        (lambda: T.cat([T.ones(()), T.ones(())]), RuntimeError),
        (lambda: T.cat([T.ones(2), T.ones(2, 1)]), RuntimeError),
    ],
)
_reg(
    "cat.promote",
    lambda T, x, y: T.cat([x, y]),
    lambda r, d: [Sample(r.standard_normal((2, 3)), Typed(np.arange(3).reshape(1, 3), "int64"))],
)
_reg(
    "stack",
    lambda T, x, y: T.stack([x, y], -1),
    lambda r, d: [Sample(r.standard_normal((2, 3)), r.standard_normal((2, 3)))],
)
_reg(
    "hstack",
    lambda T, x, y: T.hstack([x, y]),
    lambda r, d: [Sample(r.standard_normal((2, 3)), r.standard_normal((2, 1)))],
)
_reg(
    "vstack",
    lambda T, x, y: T.vstack([x, y]),
    lambda r, d: [Sample(r.standard_normal((3,)), r.standard_normal((1, 3)))],
)
_reg(
    "repeat",
    lambda T, x: x.repeat(2, 1, 3),
    _s((2, 3), (3,), ()),
    errors=lambda T: [(lambda: T.ones(2, 3).repeat(2), RuntimeError)],
)
_reg("tile", lambda T, x: T.tile(x, (2,)), _s((2, 3), (3,), noncontig=True))
_reg(
    "flip",
    lambda T, x: T.flip(x, (0, -1)),
    _s((2, 3), (3,), noncontig=True),
    method=lambda x: x.flip(0),
)
_reg(
    "roll",
    lambda T, x: T.roll(x, (1, -2), (0, 1)),
    _s((3, 4), noncontig=True),
    method=lambda x: x.roll(5),
)
_reg(
    "tril",
    lambda T, x: T.tril(x, -1),
    _s((3, 4), (2, 3, 3), noncontig=True),
    method=lambda x: x.tril(1),
    inplace=lambda x: x.tril_(),
)
_reg(
    "triu",
    lambda T, x: T.triu(x, 1),
    _s((3, 4), (2, 3, 3), noncontig=True),
    inplace=lambda x: x.triu_(-1),
)

# ---- indexing ------------------------------------------------------------------------------------------
_reg(
    "getitem.basic",
    lambda T, x: x[1:, None, ::2, -1],
    _s((3, 4, 2), noncontig=True),
)
_reg("getitem.int", lambda T, x: x[1], _s((3, 4), (3,), noncontig=True))
_reg("getitem.advanced", lambda T, x: x[[0, 2, 2], 1:], _s((3, 4), noncontig=True))
_reg("getitem.separated", lambda T, x: x[[0, 1], :, [1, 0]], _s((2, 3, 2), noncontig=True))
_reg(
    "getitem.mask",
    lambda T, x, m: x[m],
    lambda r, d: [Sample(r.standard_normal((2, 3)), _mask([[1, 0, 1], [0, 1, 1]]))],
)
_reg(
    "gather",
    lambda T, x, i: T.gather(x, 1, i),
    lambda r, d: [
        Sample(r.standard_normal((3, 4)), _i64([[0, 0], [3, 1], [2, 2]])),
        Sample(r.standard_normal((3, 4)), _i64([[0], [3], [1]]), noncontig=True),
    ],
    method=lambda x, i: x.gather(1, i),
    errors=lambda T: [(lambda: T.ones(3, 4).gather(0, T.tensor([[3]])), RuntimeError)],
)
_reg(
    "scatter",
    lambda T, x, i, s: T.scatter(x, 0, i, s),
    # index and src of one shape: with a smaller index, src's gradient is invalid in PyTorch too
    lambda r, d: [
        Sample(
            r.standard_normal((3, 4)), _i64([[2, 1, 0, 0], [0, 2, 1, 2]]), r.standard_normal((2, 4))
        )
    ],
    inplace=lambda x, i, s: x.scatter_(0, i, s),
)
_reg(
    "scatter.value",
    lambda T, x, i: T.scatter(x, 1, i, 2.5),
    lambda r, d: [Sample(r.standard_normal((3, 4)), _i64([[0, 1], [3, 2], [1, 1]]))],
    dtypes=FLOATS,
)
_reg(
    "scatter_add",
    lambda T, x, i, s: T.scatter_add(x, 0, i, s),
    lambda r, d: [
        Sample(
            r.standard_normal((3, 4)), _i64([[2, 1, 0, 0], [2, 2, 2, 2]]), r.standard_normal((2, 4))
        )
    ],
    inplace=lambda x, i, s: x.scatter_add_(0, i, s),
    dtypes=("float32", "float64", "int64"),
)
for _red in ("sum", "mean", "amax", "amin", "prod"):
    _reg(
        f"scatter_reduce.{_red}",
        lambda T, x, i, s, _red=_red: T.scatter_reduce(
            x, 0, i, s, _red, include_self=_red != "amin"
        ),
        lambda r, d: [
            Sample(
                r.standard_normal((3, 4)),
                _i64([[2, 1, 0, 0], [2, 0, 2, 1]]),
                r.standard_normal((2, 4)),
            )
        ],
        dtypes=FLOATS,
        gradgrad=_red in ("sum", "mean"),
    )
_reg(
    "index_select",
    lambda T, x, i: T.index_select(x, 1, i),
    lambda r, d: [
        Sample(r.standard_normal((3, 4)), _i64([3, 0, 0])),
        Sample(r.standard_normal((3, 4)), _i64([1]), noncontig=True),
    ],
    method=lambda x, i: x.index_select(0, i[:1] % 3),
)
_reg(
    "index_add",
    lambda T, x, i, s: T.index_add(x, 0, i, s, alpha=2),
    lambda r, d: [Sample(r.standard_normal((3, 4)), _i64([2, 0, 2]), r.standard_normal((3, 4)))],
    inplace=lambda x, i, s: x.index_add_(0, i, s),
    dtypes=("float32", "float64", "int64"),
)
_reg(
    "index_fill",
    lambda T, x, i: T.index_fill(x, 1, i, -1),
    lambda r, d: [Sample(r.standard_normal((3, 4)), _i64([0, 2]))],
    inplace=lambda x, i: x.index_fill_(1, i, 3),
)
_reg(
    "index_copy",
    lambda T, x, i, s: T.index_copy(x, 0, i, s),
    lambda r, d: [Sample(r.standard_normal((3, 4)), _i64([2, 0]), r.standard_normal((2, 4)))],
    inplace=lambda x, i, s: x.index_copy_(0, i, s),
)
_reg(
    "index_put",
    lambda T, x, i, j, v: T.index_put(x, (i, j), v, accumulate=True),
    lambda r, d: [
        Sample(r.standard_normal((3, 4)), _i64([0, 0, 2]), _i64([1, 1, 3]), r.standard_normal((3,)))
    ],
    inplace=lambda x, i, j, v: x.index_put_((i, j), v),
)
_reg(
    "masked_select",
    lambda T, x, m: T.masked_select(x, m),
    lambda r, d: [
        Sample(r.standard_normal((2, 3)), _mask([[1, 0, 1], [0, 0, 1]])),
        Sample(r.standard_normal((2, 3)), _mask([1, 0, 1]), noncontig=True),
    ],
)
_reg(
    "masked_scatter",
    lambda T, x, m, s: T.masked_scatter(x, m, s),
    lambda r, d: [
        Sample(r.standard_normal((2, 3)), _mask([[1, 0, 1], [0, 0, 1]]), r.standard_normal((2, 3)))
    ],
    inplace=lambda x, m, s: x.masked_scatter_(m, s),
)
_reg(
    "take",
    lambda T, x, i: T.take(x, i),
    lambda r, d: [
        Sample(r.standard_normal((3, 4)), _i64([[0, 11], [-1, 5]])),
        Sample(r.standard_normal((3, 4)), _i64([2]), noncontig=True),
    ],
)
_reg(
    "take_along_dim",
    lambda T, x, i: T.take_along_dim(x, i, 1),
    lambda r, d: [Sample(r.standard_normal((3, 4)), _i64([[0], [3], [1]]))],
)
_reg(
    "nonzero",
    lambda T, x: T.nonzero(x),
    _s((3, 4), (), noncontig=True),
    grad=False,
    method=lambda x: x.nonzero(as_tuple=True),
)
_reg(
    "copy_",
    lambda T, x, y: x.clone().copy_(y),
    lambda r, d: [Sample(r.standard_normal((2, 3)), r.standard_normal((3,)))],
)
_reg("fill_", lambda T, x: x.clone().fill_(2), _s((2, 3), ()), inplace=lambda x: x.zero_())


# ---- complex dtypes ----------------------------------------------------------------------------------------
# Views, copies and indexing are dtype-agnostic in PyTorch: every entry above also runs on complex
# inputs (complex128: the gradient checks, where a zero buffer of the wrong dtype would show).
# scatter_reduce's amax/amin are refused on complex, and PyTorch has no complex scatter_reduce
# gradient: complex64 only (the forward check compares values, or the errors).
for _name, _info in REGISTRY.items():
    if _info.op.__module__ == __name__:
        _refused = _name.startswith("scatter_reduce.")
        _info.dtypes = tuple(_info.dtypes) + (("complex64",) if _refused else COMPLEX_DTYPES)
