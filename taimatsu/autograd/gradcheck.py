"""Finite-difference checks of first and second derivatives (``gradcheck``, ``gradgradcheck``).

The numerical Jacobian perturbs each input element by +-eps (central differences); the
analytical one comes from ``autograd.grad`` with a one-hot cotangent per output element.
"""

from __future__ import annotations

import numpy as np


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,) if not isinstance(x, list) else tuple(x)


def _outputs(fn, inputs):
    from .._tensor import Tensor

    return [o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)]


def _numerical(fn, inputs, eps):
    from .._tensor import Tensor
    from .grad_mode import enable_grad

    jac = []
    # Not under no_grad: gradgradcheck's function calls autograd.grad on fn's outputs.
    with enable_grad():
        outs = _outputs(fn, inputs)
        nout = sum(o.numel() for o in outs)
        for x in inputs:
            if not (isinstance(x, Tensor) and x.requires_grad):
                continue
            flat = x._data.reshape(-1)
            if flat.size and not np.shares_memory(flat, x._data):
                raise GradcheckError("gradcheck needs contiguous inputs")
            J = np.zeros((x.numel(), nout), dtype=np.complex128 if x.is_complex() else np.float64)
            for k in range(x.numel()):
                orig = flat[k].copy()
                flat[k] = orig + eps
                plus = np.concatenate([np.asarray(o._data, np.complex128).reshape(-1) for o in _outputs(fn, inputs)])
                flat[k] = orig - eps
                minus = np.concatenate([np.asarray(o._data, np.complex128).reshape(-1) for o in _outputs(fn, inputs)])
                flat[k] = orig
                d = (plus - minus) / (2 * eps)
                J[k] = d if J.dtype.kind == "c" else d.real
            jac.append(J)
    return jac


def _analytical(fn, inputs):
    from .. import ops
    from .._tensor import Tensor
    from . import grad as autograd_grad

    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    outs = _outputs(fn, inputs)
    nout = sum(o.numel() for o in outs)
    jac = [np.zeros((x.numel(), nout)) for x in diff]
    col = 0
    for o in outs:
        for k in range(o.numel()):
            if not o.requires_grad:
                col += 1
                continue
            seed = ops.creation.zeros(o.shape, dtype=o.dtype)
            seed._data.reshape(-1)[k] = 1
            grads = autograd_grad([o], diff, [seed], retain_graph=True, allow_unused=True)
            for j, g in enumerate(grads):
                if g is not None:
                    jac[j][:, col] = np.asarray(g._data, np.float64).reshape(-1)
            col += 1
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None) -> bool:  # fmt: skip
    """Compare analytical and finite-difference Jacobians of ``func`` at ``inputs``."""
    inputs = _as_tuple(inputs)
    num = _numerical(func, inputs, eps)
    ana = _analytical(func, inputs)
    for i, (n, a) in enumerate(zip(num, ana)):
        if not np.allclose(a, n.real, rtol=rtol, atol=atol):
            if raise_exception:
                raise GradcheckError(
                    f"Jacobian mismatch for output 0 with respect to input {i},\nnumerical:{n.real}\nanalytical:{a}\n"
                )
            return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False) -> bool:  # fmt: skip
    """gradcheck of the function that maps inputs (and cotangents) to first derivatives."""
    from .. import ops
    from .._tensor import Tensor
    from . import grad as autograd_grad

    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            ops.creation.tensor(rng.standard_normal(o.shape), dtype=o.dtype).requires_grad_(True) for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivs(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = _outputs(func, xs)
        diff = [xs[i] for i in diff_idx]
        gs = autograd_grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivs, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
