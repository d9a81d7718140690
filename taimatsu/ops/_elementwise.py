"""Small helpers shared by the elementwise op families (``pointwise``, ``binary``, ``select``)."""

from __future__ import annotations

from .. import _dtype as D
from ._dispatch import Tensor

_FLOAT = D.FLOAT


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def _conj(t):
    if isinstance(t, Tensor):
        return t.conj() if t._dtype.category == D.COMPLEX else t
    return t.conjugate() if isinstance(t, complex) else t


def _scalar(dtype):
    from ._dispatch import scalar_name

    return scalar_name(dtype)


def _shape(x):
    return x._data.shape if isinstance(x, Tensor) else ()


def _tensor_or_none(x):
    return x if isinstance(x, Tensor) else None


def not_implemented(kernel, *categories):
    """``check(dtype)``: PyTorch's '"kernel" not implemented for 'ComplexFloat'' for these categories
    (``D.SHELL_UINT`` among them: uint16/32/64, which few PyTorch kernels take)."""

    def check(dtype):
        if dtype.category in categories or (dtype in D._SHELL_UINTS and D.SHELL_UINT in categories):
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar(dtype)}\'')

    return check


def no_complex(message, exc=NotImplementedError):
    """``check(dtype)`` raising ``exc(message)`` for complex dtypes (ops PyTorch refuses on them)."""

    def check(dtype):
        if dtype.category == D.COMPLEX:
            raise exc(message)

    return check


def checks(*fns):
    """Several dtype checks run in order."""

    def check(dtype):
        for f in fns:
            f(dtype)

    return check
