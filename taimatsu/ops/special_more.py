"""The regularized incomplete gamma functions (``igamma``/``igammac``, ``special.gammainc``/
``gammaincc``), ``nuclear_norm``, ``frobenius_norm`` and ``binomial`` sampling.

igamma's derivative exists only in its second argument (PyTorch raises for the first):
``d/dx P(a, x) = exp(-x) x**(a - 1) / Gamma(a)``, and igammac's is its negative.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap
from ._dispatch import scalar_name
from .binary import binary
from .pointwise import _special


def _gamma_forward(fname: str):
    def forward(xp, a, x):
        # scipy has float32/float64 loops; half types go through float32 and round once.
        work = a.dtype if a.dtype in (np.float32, np.float64) else np.float32
        return getattr(_special(xp), fname)(
            a.astype(work, copy=False), x.astype(work, copy=False)
        ).astype(a.dtype, copy=False)

    return forward


def _density(a: Tensor, x: Tensor) -> Tensor:
    return ((a - 1) * x.log() - x - a.lgamma()).exp()


def _gamma_vjp(name: str, sign: float):
    def vjp(node, g):
        a, x = node.saved()
        if node.next_functions[0][0] is not None:
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        gx = g * _density(a, x) * sign if node.next_functions[1][0] is not None else None
        return None, gx

    return vjp


def _floats_only(kernel: str):
    def check(dtype):
        if dtype.category != D.FLOAT:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dtype)}'")

    return check


_check, _checkc = _floats_only("igamma_cpu"), _floats_only("igammac_cpu")
_igamma, _igamma_ = binary(
    "igamma",
    _gamma_forward("gammainc"),
    _gamma_vjp("igamma", 1.0),
    None,
    check=_check,
)
_igammac, _igammac_ = binary("igammac", _gamma_forward("gammaincc"), _gamma_vjp("igammac", -1.0), None, check=_checkc)  # fmt: skip


def _tensors_only(name: str, input, other) -> None:
    """PyTorch's type errors, and its refusal of forward-mode AD (igamma has no JVP formula)."""
    from .._linalg_legacy import _no_forward_ad

    for arg, v, pos in (("input", input, 1), ("other", other, 2)):
        if not isinstance(v, Tensor):
            raise TypeError(
                f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
            )
    _no_forward_ad(
        name.replace("special_gammaincc", "igammac").replace("special_gammainc", "igamma"),
        input,
        other,
    )


def igamma(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(input, other)``."""
    _tensors_only("igamma", input, other)
    return _igamma(input, other, out=out)


def igammac(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``."""
    _tensors_only("igammac", input, other)
    return _igammac(input, other, out=out)


def igamma_(self: Tensor, other: Tensor) -> Tensor:
    _tensors_only("igamma", self, other)
    return _igamma_(self, other)


def igammac_(self: Tensor, other: Tensor) -> Tensor:
    _tensors_only("igammac", self, other)
    return _igammac_(self, other)


def gammainc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    _tensors_only("special_gammainc", input, other)
    return _igamma(input, other, out=out)


def gammaincc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    _tensors_only("special_gammaincc", input, other)
    return _igammac(input, other, out=out)


# ---- norms -------------------------------------------------------------------------------------------------
def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Sum of singular values over the two dims ``dim`` (the last two by default); deprecated
    in PyTorch, which warns once."""
    from .._flags import warn_once
    from ..linalg import matrix_norm

    warn_once(
        "nuclear_norm",
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead (Triggered internally "
        "at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3229.)",
    )

    if isinstance(dim, bool):  # torch.nuclear_norm(input, keepdim) overload
        dim, keepdim = None, dim
    dims = (-2, -1) if dim is None else dim
    return matrix_norm(input, "nuc", dim=dims, keepdim=keepdim, out=out)


def frobenius_norm(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """The 2-norm over at most two dims (the deprecated form of ``linalg.vector_norm``, which
    PyTorch warns about once)."""
    from .._flags import warn_once
    from .reduction import norm

    warn_once(
        "frobenius_norm",
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3175.)",
    )

    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."
        )
    if input._dtype.category < D.FLOAT:
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {scalar_name(input._dtype)} instead."
        )
    from .copy_family import renamed

    if out is not None:
        return norm(input, 2, dims, keepdim, out=out)
    return renamed(input, norm(input, 2, dims, keepdim), "NormBackward1")


# ---- binomial ------------------------------------------------------------------------------------------------
def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Draws from Binomial(count, prob), elementwise with broadcasting.

    The draws come from taimatsu's generator (seeded by ``manual_seed``), so they have the right
    distribution but are not PyTorch's numbers for the same seed. ``prob`` outside [0, 1] is
    clamped and a negative count gives 0, as PyTorch's sampler does."""
    from .random import _gen

    if count._dtype.category != D.FLOAT:
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {scalar_name(count._dtype)}"
        )
    if prob._dtype is not count._dtype:
        raise RuntimeError(
            f"Found dtype {scalar_name(prob._dtype)} but expected {scalar_name(count._dtype)}"
        )
    if count._dtype not in (D.float32, D.float64):
        raise NotImplementedError(
            f"\"binomial_cpu\" not implemented for '{scalar_name(count._dtype)}'"
        )
    n, p = np.broadcast_arrays(np.asarray(count.cpu()._data), np.asarray(prob.cpu()._data))
    rng = np.random.default_rng(int(_gen(generator).random((), np.int64, 0, 2**62)))
    draws = rng.binomial(np.maximum(n, 0).astype(np.int64), np.clip(np.nan_to_num(p), 0.0, 1.0))
    return _wrap(draws.astype(count._dtype.np), count._dtype).to(count.device)
