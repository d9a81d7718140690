"""Complex entries for the matmul family not covered by opdb_linalg's ``*.complex`` entries.

The samples are opdb_linalg's; the float sample data becomes complex with a nonzero imaginary
part (tests/ops/opdb.py). The VJPs follow PyTorch's convention: for ``a @ b`` the partials are
conjugated (grad_a = g @ b^H), and the gradient checks run in complex128.
"""

from __future__ import annotations

import numpy as np
from opdb import COMPLEX_DTYPES, OpInfo, Sample, Typed, register
from opdb_linalg import FUSED, einsum_samples, inner_samples, outer_samples, tensordot_samples
from opdb_linalg import _fused_samples as fused_samples


def _reg(name, op, samples, **kw):
    register(OpInfo(name=f"{name}.complex", op=op, samples=samples, dtypes=COMPLEX_DTYPES, **kw))


for _fn, _samples in (("outer", outer_samples), ("ger", outer_samples), ("inner", inner_samples)):
    _reg(
        _fn,
        lambda T, a, b, _fn=_fn: getattr(T, _fn)(a, b),
        _samples,
        method=lambda a, b, _fn=_fn: getattr(a, _fn)(b),
    )
for _fn, _shapes in FUSED.items():
    _reg(_fn, lambda T, *a, _fn=_fn, **k: getattr(T, _fn)(*a, **k), fused_samples(_shapes[:2]))
    _reg(
        _fn + "_",
        lambda T, *a, _fn=_fn, **k: getattr(T, _fn)(*a, **k),
        fused_samples(_shapes[:1]),
        inplace=lambda x, *a, _fn=_fn, **k: getattr(x, _fn + "_")(*a, **k),
    )
_reg("tensordot", lambda T, a, b, **k: T.tensordot(a, b, **k), tensordot_samples)
_reg("einsum", lambda T, eq, *ops: T.einsum(eq, *ops), einsum_samples, grad_fn=False)


# ---- real and complex operands together -------------------------------------------------------------------------
# The result is complex; the gradient reaching the real operand is the real part of its complex
# gradient (PyTorch casts at the edge), checked against torch.autograd.grad and gradcheck.
def _mixed(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(Typed(n((2, 3)), "float64"), Typed(n((2, 3)), "complex128")),
        Sample(Typed(n((2, 3)), "complex128"), Typed(n((3,)), "float64")),
        Sample(Typed(n(()), "float64"), Typed(n((2,)), "complex128")),
    ]


def _mixed_mm(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(Typed(n((2, 3)), "float64"), Typed(n((3, 4)), "complex128")),
        Sample(Typed(n((2, 3)), "complex128"), Typed(n((3,)), "float64")),
    ]


for _fn in ("add", "sub", "mul", "div", "pow", "atan2"):
    register(OpInfo(
        name=f"{_fn}.real_complex",
        op=lambda T, a, b, _fn=_fn: getattr(T, _fn)(a, b),
        samples=_mixed,
        dtypes=("complex128",),
        domain=None,
    ))  # fmt: skip
register(
    OpInfo(
        name="matmul.real_complex",
        op=lambda T, a, b: T.matmul(a, b),
        samples=_mixed_mm,
        dtypes=("complex128",),
    )
)
register(OpInfo(
    name="cat.real_complex",
    op=lambda T, a, b: T.cat([a.reshape(-1), b.reshape(-1)]),
    samples=_mixed,
    dtypes=("complex128",),
))  # fmt: skip


# ---- Python scalars from complex tensors -----------------------------------------------------------------------
register(OpInfo(
    name="scalar_conversion.complex",
    op=lambda T, x: (complex(x), float(x.real), int(x.real), float(x.imag * 0 + x), int(x * 0 + 1)),
    samples=lambda rng, dtype: [Sample(Typed(np.array(1.5 + 0j), "complex128")), Sample(Typed(np.array(-2.0 + 0.5j), "complex64"))],
    dtypes=("complex128",),
    grad=False,
    errors=lambda T: [
        (lambda: float(T.tensor(1 + 2j)), RuntimeError),
        (lambda: int(T.tensor(1 - 2j)), RuntimeError),
    ],
))  # fmt: skip
register(OpInfo(
    name="scatter_reduce.complex_grad",
    op=lambda T, x, s: x.scatter_reduce(0, T.tensor([[0, 1, 2, 0], [1, 2, 0, 1]]), s, "sum"),
    samples=lambda rng, dtype: [Sample(rng.standard_normal((3, 4)), rng.standard_normal((2, 4)))],
    dtypes=("complex128",),
    grad=False,
    errors=lambda T: [(
        lambda: T.ones(3, 4, dtype=T.complex128, requires_grad=True).scatter_reduce(0, T.zeros(1, 4, dtype=T.int64),
                                                                                   T.ones(1, 4, dtype=T.complex128), "prod"),
        RuntimeError,
    )],
))  # fmt: skip
