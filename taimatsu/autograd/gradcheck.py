"""Finite-difference checks of first and second derivatives (``gradcheck``, ``gradgradcheck``).

For each differentiable output ``i`` and each input ``j`` that requires grad, the numerical
Jacobian (central differences: each input element perturbed by +-eps in place) is compared
with the analytical one (``autograd.grad`` with a one-hot cotangent per output element).
Both have shape ``(input.numel(), output.numel())`` and the failure message is PyTorch's.
``fast_mode`` is accepted and runs the slow (exact) check.

Complex tensors are checked as pairs of real ones (PyTorch's view): an input's real and
imaginary parts are perturbed separately (rows ``re..., im...``), an output contributes its
real and imaginary parts (columns ``re..., im...``). Reverse mode gives those Jacobians under
PyTorch's convention: a cotangent ``a + ib`` (``dL/du + i dL/dw``) comes back as
``dL/dx + i dL/dy``, so seeding ``1`` and ``1j`` reads the columns of ``u`` and ``w``.
"""

from __future__ import annotations

import warnings

import numpy as np


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when a check fails."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(fn, inputs):
    from .._tensor.core import Tensor

    return [o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)]


def _is_complex(t) -> bool:
    return t._data.dtype.kind == "c"


def _real_view(a) -> np.ndarray:
    """A tensor's values as real float64 coordinates (real parts, then imaginary parts)."""
    a = np.asarray(a).reshape(-1)
    if a.dtype.kind == "c":
        return np.concatenate([a.real, a.imag]).astype(np.float64)
    return np.array(a, np.float64)


def _width(t) -> int:
    return t.numel() * (2 if _is_complex(t) else 1)


def _numerical(fn, inputs, diff, outs_meta, eps):
    """``jac[j][i]``: d output i / d input j by central differences (float64 arrays).

    ``fn`` runs in the caller's grad mode: gradgradcheck's function differentiates inside.
    """
    jac = [[np.zeros((_width(x), n)) for n, _ in outs_meta] for x in diff]
    for j, x in enumerate(diff):
        data = x._data
        steps = (eps, 1j * eps) if _is_complex(x) else (eps,)
        for s, step in enumerate(steps):
            for k in range(x.numel()):
                idx = np.unravel_index(k, data.shape)
                orig = data[idx].copy()
                data[idx] = orig - step
                minus = [_real_view(o._data) for o in _outputs(fn, inputs)]
                data[idx] = orig + step
                plus = [_real_view(o._data) for o in _outputs(fn, inputs)]
                data[idx] = orig
                for i in range(len(outs_meta)):
                    jac[j][i][s * x.numel() + k] = (plus[i] - minus[i]) / (2 * eps)
    return jac


def _analytical(outs, diff):
    """``jac[j][i]`` from reverse mode, one backward pass per output element."""
    from ..ops.creation import factories
    from . import grad as autograd_grad

    jac = [[np.zeros((_width(x), _width(o))) for o in outs] for x in diff]
    for i, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for s, unit in enumerate((1, 1j) if _is_complex(o) else (1,)):
            for k in range(o.numel()):
                seed = factories.zeros(o.shape, dtype=o.dtype)
                seed._data[np.unravel_index(k, seed._data.shape)] = unit
                grads = autograd_grad([o], diff, [seed], retain_graph=True, allow_unused=True)
                for j, g in enumerate(grads):
                    if g is not None:
                        jac[j][i][:, s * o.numel() + k] = _real_view(g._data)
    return jac


def _fail(msg: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None) -> bool:  # fmt: skip
    """Compare analytical and finite-difference Jacobians of ``func`` at ``inputs``."""
    from .. import _dtype as D
    from .._tensor.core import Tensor, _wrap

    inputs = _as_tuple(inputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have "
            "requires_grad=True."
        )
    for n, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x._dtype not in (D.float64, D.complex128):
            warnings.warn(
                f"Input #{n} requires gradient and is not a double precision floating point or complex. This "
                "check will likely fail if all the inputs are not of double precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    outs = _outputs(func, inputs)
    num = _numerical(func, inputs, diff, [(_width(o), o) for o in outs], eps)
    ana = _analytical(outs, diff)
    for i in range(len(outs)):
        for j in range(len(diff)):
            n, a = num[j][i], ana[j][i]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                dt = outs[i]._dtype.to_real() if _is_complex(outs[i]) else outs[i]._dtype
                shown = [_wrap(m.astype(dt.np), dt) for m in (n, a)]
                return _fail(
                    f"Jacobian mismatch for output {i} with respect to input {j},\n"
                    f"numerical:{shown[0]}\nanalytical:{shown[1]}\n",
                    raise_exception,
                )
    return True


def _random_cotangent(out, noncontiguous: bool):
    """PyTorch's random cotangent for ``out``: ``testing.make_tensor`` on [-1, 1) in out's
    floating dtype (else float64), from the global generator."""
    from .. import _dtype as D
    from ..testing.creation import make_tensor

    dtype = out.dtype if out.is_floating_point() or out.is_complex() else D.float64
    return make_tensor(tuple(out.shape), dtype=dtype, device=out.device, low=-1, high=1,
                       requires_grad=True, noncontiguous=noncontiguous)  # fmt: skip


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False) -> bool:  # fmt: skip
    """gradcheck of the map (inputs, cotangents) -> first derivatives, built with create_graph."""
    from .._tensor.core import Tensor
    from . import grad as autograd_grad

    inputs = _as_tuple(inputs)
    if grad_outputs is None:  # drawn from the global generator, as PyTorch draws them
        grad_outputs = tuple(
            _random_cotangent(o, gen_non_contig_grad_outputs)
            for o in _outputs(func, inputs)
            if o.requires_grad
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivs(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, xs) if o.requires_grad]
        gs = autograd_grad(
            outs, [xs[i] for i in diff_idx], gos, create_graph=True, allow_unused=True
        )
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivs, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)  # fmt: skip
