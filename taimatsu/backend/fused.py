"""Elementwise chains fused into one GPU kernel with ``cupy.fuse``, for CUDA arrays only.

A chain of NumPy-style operations on CuPy arrays launches one kernel (and allocates one
temporary) per operation; where such a chain is hot -- an optimizer step per parameter, an
activation in every layer -- ``cupy.fuse`` compiles the whole chain into one kernel, the first
time it meets a combination of dtypes. CPU arrays never come here: their paths reproduce
PyTorch's CPU roundings step by step, which a fused chain would not.

Each chain is written once as a function of ``xp`` (the array namespace) and the arrays, using
only ufuncs and arithmetic so that ``cupy.fuse`` can compile it; scalars are passed as Python
floats (kernel arguments, so a new learning rate does not compile a new kernel). Results agree
with the unfused CUDA path to float rounding (the order of operations is the same; the GPU may
contract a multiply-add into an FMA).
"""

from __future__ import annotations

import math

_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

_compiled: dict = {}


def _fused(body):
    """``run(cp, *args)``: ``body(cp, *args)`` as one ``cupy.fuse`` kernel (built once per CuPy
    module and body)."""

    def run(cp, *args):
        key = (id(cp), body)
        kernel = _compiled.get(key)
        if kernel is None:
            kernel = _compiled[key] = cp.fuse(kernel_name=f"taimatsu_{body.__name__}")(
                lambda *a: body(cp, *a)
            )
        return kernel(*args)

    run.__name__ = body.__name__
    return run


def _erf(cp):
    import cupyx.scipy.special

    return cupyx.scipy.special.erf


# ---- activations ----------------------------------------------------------------------------------
def _gelu_erf(cp, x):
    return x * 0.5 * (1 + _erf(cp)(x * _INV_SQRT_2))


def _gelu_erf_grad(cp, x):
    """d/dx x * Phi(x) = Phi(x) + x * phi(x)."""
    cdf = 0.5 * (1 + _erf(cp)(x * _INV_SQRT_2))
    return cdf + x * (cp.exp(x * x * -0.5) * _INV_SQRT_2PI)


def _gelu_tanh(cp, x):
    return 0.5 * x * (1 + cp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))))


def _gelu_tanh_grad(cp, x):
    t = cp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x)))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * (x * x))


def _silu(cp, x):
    return x / (1 + cp.exp(-x))


gelu_erf = _fused(_gelu_erf)
gelu_erf_grad = _fused(_gelu_erf_grad)
gelu_tanh = _fused(_gelu_tanh)
gelu_tanh_grad = _fused(_gelu_tanh_grad)
silu = _fused(_silu)


# ---- optimizer steps ------------------------------------------------------------------------------
def _adam(cp, p, g, m, v, l2, decay, c1, beta2, c2, bc2, eps, step_size):
    """One Adam/AdamW update: the new (parameter, exp_avg, exp_avg_sq)."""
    g = g + p * l2  # L2 weight decay (Adam); l2 = 0 for AdamW's decoupled decay
    m = m + (g - m) * c1  # exp_avg.lerp_(g, 1 - beta1)
    v = v * beta2 + g * g * c2
    return p * decay - step_size * m / (cp.sqrt(v) / bc2 + eps), m, v


def _adam_amsgrad(cp, p, g, m, v, vmax, l2, decay, c1, beta2, c2, bc2, eps, step_size):
    g = g + p * l2
    m = m + (g - m) * c1
    v = v * beta2 + g * g * c2
    vmax = cp.maximum(vmax, v)
    return p * decay - step_size * m / (cp.sqrt(vmax) / bc2 + eps), m, v, vmax


def _sgd_momentum(cp, p, g, buf, wd, momentum, c, lr, nesterov):
    """One SGD step with a momentum buffer: the new (parameter, buffer); ``nesterov`` is 1.0 or
    0.0 (a kernel argument, not a branch)."""
    g = g + p * wd
    buf = buf * momentum + g * c
    return p - lr * (buf + nesterov * (g + buf * momentum - buf)), buf


_adam_kernel = _fused(_adam)
_adam_amsgrad_kernel = _fused(_adam_amsgrad)
_sgd_kernel = _fused(_sgd_momentum)


def adam_update(cp, p, g, m, v, vmax, h: dict) -> None:
    """Adam/AdamW on CUDA arrays, in place: one fused kernel, then the results written back into
    the parameter and state arrays (their memory is the tensors'). ``h``: lr, beta1, beta2, eps,
    weight_decay, decoupled, step_size, bias_correction2_sqrt."""
    wd = h["weight_decay"]
    l2, decay = (0.0, 1 - h["lr"] * wd) if h["decoupled"] else (wd, 1.0)
    scalars = (l2, decay, 1 - h["beta1"], h["beta2"], 1 - h["beta2"],
               h["bias_correction2_sqrt"], h["eps"], h["step_size"])  # fmt: skip
    if vmax is None:
        out = _adam_kernel(cp, p, g, m, v, *scalars)
        targets = (p, m, v)
    else:
        out = _adam_amsgrad_kernel(cp, p, g, m, v, vmax, *scalars)
        targets = (p, m, v, vmax)
    for dst, src in zip(targets, out):
        cp.copyto(dst, src)


def sgd_momentum_update(cp, p, g, buf, h: dict) -> None:
    """SGD with an existing momentum buffer on CUDA arrays, in place (see adam_update)."""
    new_p, new_buf = _sgd_kernel(cp, p, g, buf, h["weight_decay"], h["momentum"],
                                 1 - h["dampening"], h["lr"], 1.0 if h["nesterov"] else 0.0)  # fmt: skip
    cp.copyto(buf, new_buf)
    cp.copyto(p, new_p)


def fusable(*arrays, differentiable: bool = False) -> bool:
    """Whether an optimizer step on these arrays (parameter, gradient, state) takes the fused
    kernel: CuPy arrays of one float32/float64 dtype and shape, outside a differentiable step
    (which needs the Tensor ops' graph)."""
    from . import is_cupy_array

    if differentiable:
        return False
    first = arrays[0]
    if not is_cupy_array(first) or first.dtype.name not in ("float32", "float64"):
        return False
    return all(
        is_cupy_array(a) and a.dtype == first.dtype and a.shape == first.shape for a in arrays
    )
