"""Tensor methods bound late: methods that are the top-level function of the same name, the
in-place aliases (``arcsin_``, ``greater_``, ...) and in-place ops without a declaration of their
own (``cumsum_``, ``polygamma_``, ``scatter_reduce_``, ``as_strided_``).

``methods.py`` imports this module at its end, once ``TensorMethods`` and its generated unary
methods exist.
"""

from __future__ import annotations

from .methods import TensorMethods


def _top_level_method(name):
    """A method that is the top-level function of the same name (``A.det()`` is ``torch.det(A)``)."""

    def method(self, *args, **kwargs):
        import taimatsu

        return getattr(taimatsu, name)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


for _n in "positive det logdet slogdet inverse matrix_power cholesky cholesky_solve cholesky_inverse qr svd".split():
    setattr(TensorMethods, _n, _top_level_method(_n))
for _alias, _n in (
    ("arcsin_", "asin_"), ("arccos_", "acos_"), ("arctan_", "atan_"), ("arcsinh_", "asinh_"),
    ("arccosh_", "acosh_"), ("arctanh_", "atanh_"), ("greater_", "gt_"), ("greater_equal_", "ge_"),
    ("less_", "lt_"), ("less_equal_", "le_"), ("not_equal_", "ne_"),
):  # fmt: skip
    setattr(TensorMethods, _alias, getattr(TensorMethods, _n))
del _n, _alias


def _same_dtype_in_place(self, dtype) -> None:
    """PyTorch's error for an in-place scan asked for another dtype than its tensor's."""
    from .. import _dtype as D
    from ..ops._dispatch import cpp_name

    dtype = D.dtype_argument("cumsum_", dtype)
    if dtype is not None and dtype is not self._dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {cpp_name(self._dtype)} and output tensor dtype "
            f"{cpp_name(dtype)} should match"
        )


def _cumsum_(self, dim, *, dtype=None):
    from ..ops import _dispatch
    from ..ops.reduction import scans

    _same_dtype_in_place(self, dtype)
    return _dispatch.inplace(self, lambda s: scans.cumsum(s, dim, dtype=dtype), (), False)


def _cumprod_(self, dim, *, dtype=None):
    from ..ops import _dispatch
    from ..ops.reduction import scans

    _same_dtype_in_place(self, dtype)
    return _dispatch.inplace(self, lambda s: scans.cumprod(s, dim, dtype=dtype), (), True)


_polygamma1 = None


def _polygamma_(self, n):
    global _polygamma1
    from ..autograd.graph import node_class
    from ..ops import _dispatch
    from ..ops.pointwise import unary as pointwise

    r = _dispatch.inplace(self, lambda s: pointwise.polygamma(n, s), (), True)
    if (
        r.grad_fn.__class__ is pointwise._Polygamma
    ):  # PyTorch's in-place overload: PolygammaBackward1
        if _polygamma1 is None:
            _polygamma1 = node_class("PolygammaBackward1", pointwise._polygamma_vjp)
        r.grad_fn.__class__ = _polygamma1
    return r


def _scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    from ..ops.indexing import scatter

    return scatter.scatter_reduce_(self, dim, index, src, reduce, include_self=include_self)


_as_strided1 = []


def _as_strided1_class():
    if not _as_strided1:
        from ..autograd.graph import node_class
        from ..ops.shape import views

        _as_strided1.append(node_class("AsStridedBackward1", views.AsStridedBackward0.apply))
    return _as_strided1[0]


def _as_strided_(self, size, stride, storage_offset=None):
    """Give ``self`` the geometry of ``self.as_strided(...)`` (same storage); history follows the view."""
    from ..autograd.grad_mode import no_grad
    from ..ops import _dispatch
    from ..ops.shape import views

    _dispatch.check_inplace(self)
    if self._rg:
        v = views.as_strided(self, size, stride, storage_offset)
        node = v.grad_fn
        if (
            node.__class__ is views.AsStridedBackward0
        ):  # PyTorch's in-place overload: AsStridedBackward1
            node.__class__ = _as_strided1_class()
        self._data, self.grad_fn, self._output_nr = v._data, node, 0
    else:
        with no_grad():
            self._data = views.as_strided(self, size, stride, storage_offset)._data
    return self


for _n, _f in (("cumsum_", _cumsum_), ("cumprod_", _cumprod_), ("polygamma_", _polygamma_),
               ("scatter_reduce_", _scatter_reduce_), ("as_strided_", _as_strided_)):  # fmt: skip
    _f.__name__ = _f.__qualname__ = _n
    setattr(TensorMethods, _n, _f)
del _n, _f
