"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_`` and their pieces (PyTorch's maths)."""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import no_grad
from ...backend.float32_math.vector_norm import dense_norms, row_norms
from ...backend.float32_math.vector_norm import vector_norm as ordered_norm


def _tensors(parameters) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _plain_arrays(tensors) -> bool:
    """Dense float32/float64 NumPy tensors of one dtype that nothing records or differentiates:
    their 2-norm and scaling are computed on the arrays, with the NumPy operations the Tensor
    ops would run (the same bits), without one dispatch per tensor."""
    dt = tensors[0]._dtype
    if dt.np not in _FLOATS:
        return False
    return all(
        type(t._data) is np.ndarray and t._dtype is dt and not t._rg and t._fw is None
        and not t.is_sparse and t._data.flags.writeable
        for t in tensors
    )  # fmt: skip


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _total_2norm(tensors) -> Tensor:
    """``vector_norm(stack([vector_norm(t) for t in tensors]))`` for ``_plain_arrays`` tensors:
    the norm of the per-tensor norms, as PyTorch's foreach path takes it."""
    dt = tensors[0]._dtype
    norms = np.zeros(len(tensors), dt.np)
    dense, idx = [], []
    for i, t in enumerate(tensors):
        a = t._data
        if not a.size:
            continue
        if a.flags.c_contiguous or a.flags.f_contiguous:
            dense.append(a)
            idx.append(i)
        else:
            norms[i] = ordered_norm(a, range(a.ndim), 2)
    if dense:  # vector_norm's bits: a dense tensor's norm is one row of PyTorch's kernel
        norms[idx] = dense_norms(dense)
    return _wrap(row_norms(norms.reshape(1, -1)).reshape(()), dt, tensors[0]._device)


def get_total_norm(
    tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None
) -> Tensor:
    """The norm of the per-tensor norms (the norm of all values taken together)."""
    from ...ops.creation.factories import tensor
    from ...ops.reduction.norms import vector_norm
    from ...ops.shape.copies import stack

    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    if norm_type == 2.0 and _plain_arrays(tensors):
        total = _total_2norm(tensors)
    else:
        with no_grad():
            total = vector_norm(stack([vector_norm(g, norm_type) for g in tensors]), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale every gradient by ``min(1, max_norm / (total_norm + 1e-6))``, in place."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        if (
            coef._dtype is grads[0]._dtype
            and type(coef._data) is np.ndarray
            and _plain_arrays(grads)
        ):
            with np.errstate(all="ignore"):  # inf * 0 is nan, silently, as in mul_
                for g in grads:  # g.mul_(coef) on the array, and its version bump
                    np.multiply(g._data, coef._data, out=g._data)
                    g._vc[0] += 1
            return
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:  # fmt: skip
    """Clip the gradients' total norm to ``max_norm``; returns the norm before clipping."""
    parameters = _tensors(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:  # fmt: skip
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient to ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    if not grads:  # PyTorch groups the gradients by device first, and an empty list fails there
        raise RuntimeError(
            "Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    with no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)
