"""Activation kernels PyTorch runs as one op with its own backward node (GeluBackward0, ...).

Each activation gives its forward on arrays and its derivative in Tensor ops; ``_act`` runs
the forward, records one node named like PyTorch's (its VJP is ``g * deriv``, so double
backward works) and propagates forward-mode tangents as ``t * deriv``.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from ... import _dtype as D
from ..._autocast import LOWER, cast_policy
from ..._tensor.core import Tensor, _wrap
from ...autograd.forward_ad import _register
from ...autograd.forward_ad import on_primals as _on_primals
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...autograd.ownership import COUNTED as _COUNTED
from ...backend import fused
from ...backend.bit_select import where_bits
from ...backend.float32_math import activation as f32_activation
from ...backend.float32_math import emulated
from ...backend.float32_math import run as f32_run
from ...backend.float32_math.exp import expf
from ...backend.float32_math.gelu import (
    aten_erf,
    block_buffers,
    gelu_abramowitz_stegun_with_derivative,
    gelu_aten,
    gelu_erf,
    uses_avx512,
)
from ...backend.fp_errors import loud, quiet, silent
from ...backend.parallel import PASS_WORK, halves
from .._dispatch import (
    _fw_state,
    inplace,
    record,
    scalar_name,
    second_order_node,
    with_zero_edge,
    xp_for,
)
from ..pointwise.common import _F32, _HALVES, half_in_float32, in_float32_once, rounded


def _deriv_vjp(node, g):
    x, out = node.saved()
    if g._dtype in _HALVES:  # PyTorch's backward kernels: in float32, rounded once
        deriv = (
            node.deriv if node.half_deriv is None else functools.partial(node.half_deriv, g.dtype)
        )
        return (in_float32_once(g, deriv, x, out, *node.params),)
    if node.array_deriv is not None and not _gm.enabled:
        # No graph to build (no create_graph): the derivative on arrays in one pass, instead of
        # a chain of Tensor ops; under create_graph the Tensor-op form keeps double backward.
        xd = x._data
        gd = None
        if node.array_vjp is not None:
            into = g._data if not node._hooks and _engine_owns(g) else None
            gd = node.array_vjp(g._data, xd, out._data, into, *node.params)
            if gd is not None and gd is into:
                return (g,)  # as it came, so the next node may take it over in turn
        if gd is None:
            d = node.array_deriv(xp_for(x), xd, out._data, *node.params)
            gd = (g._data * d).astype(xd.dtype, copy=False)
        return (_wrap(gd, x._dtype, x._device),)
    if node.select:
        keep = None if node.select is True else node.select(x, *node.params)
        r = _select_grad(g, node.deriv(x, out, *node.params), keep)
    else:
        r = g * node.deriv(x, out, *node.params)
    if node.second is not None:  # a piecewise-linear op: its input keeps an edge (zero gradient)
        r = with_zero_edge(r, x, node.second)
    return (r,)


def _select_grad(g, d, keep=None):
    """``g * d`` inside ``keep`` (a bool Tensor; by default where ``d`` is nonzero), 0 outside:
    the backward of an op whose derivative is 0 outside a region (hardtanh, threshold, the
    shrinks, hardsigmoid, hardswish), which PyTorch's kernels compute as a choice, so a NaN or
    infinite gradient outside the region gives 0 (``g * 0`` gave NaN). On a contiguous float
    NumPy gradient with no graph to record, by bit masks (``where_bits``); else in Tensor ops
    (double backward)."""
    gd, dd = g._data, d._data
    if (
        not _gm.enabled and gd.__class__ is np.ndarray and dd.__class__ is np.ndarray
        and gd.dtype.char in "fd" and dd.dtype == gd.dtype and dd.shape == gd.shape
        and gd.flags.c_contiguous
    ):  # fmt: skip
        scaled = gd * dd  # g itself where d is 1
        inside = dd != 0 if keep is None else keep._data
        return _wrap(where_bits(inside, scaled, 0, out=scaled), g._dtype, g._device)
    return (g * d).masked_fill(d == 0 if keep is None else keep.logical_not(), 0.0)


def _engine_owns(g) -> bool:
    """Whether only the engine can see the gradient ``g`` and its memory, so the backward may
    write its result into ``g``'s array: no user's ``gradient=``, hook, capture or second
    consumer holds it. (A node hook also sees the gradients it was given: the caller checks.)
    ``g`` may be a view of a tensor that only ``g`` holds (ViewBackward0 reshapes a Linear's
    input gradient so). The counts are of the references on the path engine ->
    ``node.apply(*buf)`` -> the VJP -> here: ``g``'s are the buffer list, the argument tuple,
    two frames and getrefcount's own. See test_gelu_backward_writes_into_an_unshared_gradient.
    """
    data = g._data
    if (
        not _COUNTED
        or data.__class__ is not np.ndarray
        or g._rg
        or not data.flags.writeable
        or sys.getrefcount(g) > 5
        or sys.getrefcount(data) > 3  # g._data, the local name, getrefcount
    ):
        return False
    src = g._base
    if src is None:
        return data.base is None and g._storage is None
    arr = data.base
    return (
        arr.__class__ is np.ndarray
        and arr.base is None
        and src._data is arr
        and src._base is None
        and not src._rg
        and src._grad_fn is None
        and sys.getrefcount(src) <= 3  # g._base, the local name, getrefcount
        # data.base, src._data, the local name, getrefcount (and the _storage slots naming it)
        and sys.getrefcount(arr) <= 4 + (g._storage is arr) + (src._storage is arr)
    )


def _check_float(input: Tensor, kernel: str) -> None:
    if kernel and input._dtype.category != D.FLOAT:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._dtype)}'")


def activation(
    name: str, kernel: str, forward, deriv, save_out: bool = False, array_deriv=None, array_vjp=None,
    half_deriv=None, piecewise: bool = False, select: bool = False,
):  # fmt: skip
    """Declare ``f(input, *params)`` and its in-place form ``f_(input, *params)``.

    ``forward(xp, x, *params)`` works on arrays; ``deriv(x, out, *params)`` in Tensor ops.
    ``array_deriv(xp, x, out, *params)``, when given, is the same derivative on arrays: the
    backward uses it when no graph of the backward is recorded (both ``input`` and the output
    are saved then; the output is usually kept alive by the next layer anyway).
    A float16/bfloat16 gradient is ``deriv`` in float32, rounded once, as PyTorch's backward
    kernels compute it; ``half_deriv(dtype, x, out, *params)`` replaces ``deriv`` there where
    the kernel reads a value its forward stored in the half type.
    ``select``: the gradient is 0 outside a region whatever ``g`` holds (``_select_grad``):
    True for the region where the derivative is nonzero, or ``keep(x, *params)`` giving it.
    ``array_vjp(g, x, out, into, *params)``, when given with ``array_deriv``, is tried first:
    ``g * deriv`` on arrays, written into ``into`` when that is not None (the incoming
    gradient's array, which only the engine holds), or None where it does not apply.
    """
    Node = node_class(name, _deriv_vjp)
    Node.saved_names = ("self", "result")  # grad_fn._saved_self / ._saved_result
    # piecewise-linear ops (derivative constant between kinks): PyTorch's double-backward node
    Node.second = (
        second_order_node(name.replace("Backward0", "BackwardBackward0")) if piecewise else None
    )
    # 0 outside a region whatever the gradient (_select_grad): True, the region where the
    # derivative is nonzero; or keep(x, *params), a bool Tensor
    Node.select = select if isinstance(select, bool) else staticmethod(select)
    Node.half_deriv = None if half_deriv is None else staticmethod(half_deriv)
    Node.array_deriv = None if array_deriv is None else staticmethod(half_in_float32(array_deriv))
    Node.array_vjp = None if array_vjp is None else staticmethod(array_vjp)
    if not getattr(forward, "handles_halves", False):
        forward = half_in_float32(forward)

    def op(input: Tensor, *params) -> Tensor:
        _check_float(input, kernel)
        x = input._data
        token = quiet()
        try:
            data = forward(xp_for(input), x, *params)
        finally:
            loud(token)
        r = _wrap(data.astype(x.dtype, copy=False), input._dtype, input._device)
        if input._rg and _gm.enabled:
            saved = (input, r) if array_deriv else (None, r) if save_out else (input, None)
            record(Node, (input,), r, saved, deriv=deriv, params=params)
        if _fw_state.level and input._fw is not None:
            r._fw = input._fw * _on_primals(deriv, input, r, *params)
            _register(r)
        return r

    def op_(input: Tensor, *params) -> Tensor:
        return inplace(input, op, params, saves_self=not save_out)

    op.Node = Node
    return op, op_


def _where(x, cond, a, b):
    """``a`` where ``cond`` else ``b`` for a Tensor condition and Tensor-or-scalar branches."""
    if not isinstance(a, Tensor):
        a = x.new_full((), a)
    return a.where(cond, b)


# ---- GELU ------------------------------------------------------------------------------------
_FUSED = (np.dtype(np.float32), np.dtype(np.float64))  # dtypes of the CUDA fused kernels
_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_HALF32, _ONE32 = np.float32(0.5), np.float32(1)


def _gelu_fwd(xp, x, approximate):
    if x.dtype.char in D.HALF_CHARS:
        # in float32, rounded once; PyTorch hands a float16 tensor to ATen's kernel, not
        # oneDNN's (which takes bfloat16 as float32): gelu(inf) is inf there, NaN in oneDNN
        wide = x.astype(np.float32)
        if xp is np and x.dtype.char == "e" and approximate == "none":
            return f32_run(gelu_aten, wide, scalar=lambda b: _gelu_scalar(xp, b)).astype(x.dtype)
        return _gelu_fwd(xp, wide, approximate).astype(x.dtype)
    if xp is not np and x.dtype in _FUSED:  # CUDA: one fused kernel
        return (fused.gelu_tanh if approximate == "tanh" else fused.gelu_erf)(xp, x)
    if approximate == "tanh":
        if xp is np and x.dtype == np.float32:  # PyTorch's float32 formula around SLEEF's tanhf
            return f32_run(f32_activation.gelu_tanh, x)
        return 0.5 * x * (1 + rounded(xp, xp.tanh, _SQRT_2_PI * (x + 0.044715 * (x * x * x))))
    if xp is np and x.dtype == _F32:
        if x.size > 1 and x.flags.c_contiguous:
            # PyTorch runs a contiguous float32 GELU in oneDNN: reproduce that kernel bit for bit.
            return gelu_erf(x)
        # Otherwise ATen's kernel: vectorised (A&S with SLEEF's expf) where the tensor is dense
        # in memory, its scalar loop elsewhere
        return f32_run(gelu_aten, x, scalar=lambda b: _gelu_scalar(xp, b))
    return _gelu_scalar(xp, x)


_gelu_fwd.handles_halves = True


def _gelu_scalar(xp, x):
    from ..pointwise.unary import _special

    # PyTorch's scalar loop: float32 arithmetic around erf (correctly rounded here); -inf * 0
    # is NaN as in PyTorch, without a warning
    with np.errstate(invalid="ignore"):
        return x * 0.5 * (1 + rounded(xp, _special(xp).erf, x * _INV_SQRT_2))


def _gelu_deriv(x, out, approximate, derivative=None):
    # (``derivative``: oneDNN's, kept from the forward; the Tensor-op form is PyTorch's formula)
    if approximate == "tanh":
        inner = (x + x.pow(3) * 0.044715) * _SQRT_2_PI
        t = inner.tanh()
        return (t + 1) * 0.5 + x * 0.5 * (1 - t * t) * _SQRT_2_PI * (x * x * (3 * 0.044715) + 1)
    cdf = ((x * _INV_SQRT_2).erf() + 1) * 0.5
    pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return cdf + x * pdf


def _gelu_tanh_deriv64(xp, x):
    """The tanh approximation's derivative (PyTorch's formula) on a float64 array."""
    t = xp.tanh(_SQRT_2_PI * (x + 0.044715 * (x * x * x)))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * (x * x))


def _gelu_array_deriv(xp, x, out, approximate, derivative=None):
    if derivative is not None:  # oneDNN's backward, computed with the forward (AVX2 CPUs)
        return derivative
    if xp is not np and x.dtype in _FUSED:  # CUDA: one fused kernel, no host read of `bad`
        return (fused.gelu_tanh_grad if approximate == "tanh" else fused.gelu_erf_grad)(xp, x)
    if approximate == "tanh":  # float32 on the CPU: in float64, rounded once
        return rounded(xp, lambda a: _gelu_tanh_deriv64(xp, a), x)
    # Otherwise the backward does not replay oneDNN's/ATen's float32 kernels step by step: on
    # its own (the AVX-512 forward shares nothing with it) that costs ~5x this formula (the GPT
    # training step of benchmarks/bench_training.py ~25% longer) for last-bit agreement of the
    # gradient; this one agrees with PyTorch's gradient within float32 rounding.
    with np.errstate(all="ignore"):  # inf * 0 is nan, as in PyTorch; no warning
        return _gelu_erf_deriv(xp, x, out)


def _gelu_erf_deriv(xp, x, out, cdf=None, pdf=None):
    """d/dx x * Phi(x) = Phi(x) + x * phi(x), with Phi(x) read off the forward's output (out / x):
    the erf, the costly part, is not evaluated again. Where that quotient is not finite (x = 0,
    +-inf, nan) or not accurate (subnormal x: the output kept a few bits) Phi is computed from
    its definition. ``cdf``, ``pdf``: buffers of ``x``'s shape for the result and a temporary.
    Under ``errstate(all="ignore")``."""
    cdf = xp.divide(out, x, out=cdf)
    pdf = xp.multiply(x, x, out=pdf)
    # Which elements need Phi from its definition, found by two cheap reductions of x^2 rather
    # than a sum of the quotient and a min of |x| (a pass fewer): where tiny <= x^2 < inf, x is
    # neither 0, subnormal, +-inf nor nan and out is finite, so the quotient is finite and
    # accurate. The exact test below runs only where that fails (nan fails both comparisons).
    tiny = np.finfo(x.dtype).tiny
    fix = not (pdf.min() >= tiny and pdf.max() < math.inf)
    # cdf + x * (exp(-x^2 / 2) / sqrt(2 pi)), in place in one temporary
    pdf *= -0.5
    xp.exp(pdf, out=pdf)
    pdf *= 1 / math.sqrt(2 * math.pi)
    pdf *= x
    cdf += pdf
    if fix:
        # a quotient that is not finite leaves a sum that is not finite, as does the x * phi of
        # x = +-inf, whose sum is nan with either Phi: the same elements get the same bits
        bad = ~xp.isfinite(cdf) | (xp.abs(x) < tiny)
        if bad.any():
            from ..pointwise.unary import _special

            cdf[bad] = 0.5 * (1 + _special(xp).erf(x[bad] * _INV_SQRT_2)) + pdf[bad]
    return cdf


def _gelu_array_vjp(g, x, out, into, approximate, derivative=None):
    """``g * d gelu / dx`` of the erf form on the CPU, a cache-sized block at a time (its
    temporaries are a block, not the tensor: they set the GPT training step's peak memory),
    into ``into`` (the incoming gradient's array) or a new array. The same bits as
    ``g * _gelu_array_deriv(...)``. None for the tanh form, CUDA, half types or other layouts."""
    if (
        approximate != "none"
        or x.__class__ is not np.ndarray
        or x.dtype not in _FUSED
        or not (g.dtype == x.dtype == out.dtype and g.shape == x.shape == out.shape)
        or not (x.flags.c_contiguous and g.flags.c_contiguous and out.flags.c_contiguous)
    ):
        return None
    r = np.empty_like(g) if into is None else into
    fg, fx, fo, fr = g.reshape(-1), x.reshape(-1), out.reshape(-1), r.reshape(-1)
    fd = None if derivative is None else derivative.reshape(-1)
    n = fx.size
    # A block is as long as the temporaries: this thread's kept GELU kernel buffers (32K float32
    # elements: ~10% less time than 16K, and no allocation), on each thread its own
    block = block_buffers(x.dtype)[0].size

    def run(lo, hi):
        cdf, pdf = block_buffers(x.dtype)
        with np.errstate(all="ignore"):
            for i in range(lo * block, min(hi * block, n), block):
                j = min(i + block, n)
                if fd is None:
                    d = _gelu_erf_deriv(np, fx[i:j], fo[i:j], cdf[: j - i], pdf[: j - i])
                else:
                    d = fd[i:j]
                np.multiply(fg[i:j], d, out=fr[i:j])

    halves(run, -(-n // block), n * PASS_WORK)
    return r


_GELU_ALPHA, _GELU_BETA = np.float32(_INV_SQRT_2), np.float32(1 / math.sqrt(2 * math.pi))


def _gelu_half_deriv(dtype, x, out, approximate, derivative=None):
    """The erf form's derivative as PyTorch's half-type backward kernel takes it (``x`` and
    ``out`` widened to float32): ``0.5 * (1 + erf(x / sqrt(2))) + x * (exp(-x*x/2) /
    sqrt(2 pi))`` in float32 with ATen's vectorised erf and SLEEF's expf (its scalar tail's
    libm calls are not reproduced). The Tensor-op formula where a graph is recorded."""
    if approximate != "none" or _gm.enabled or x._data.__class__ is not np.ndarray:
        return _gelu_deriv(x, out, approximate)
    x32 = x._data
    if dtype is D.bfloat16 and x32.flags.c_contiguous and x32.size > 1:
        # PyTorch runs bfloat16 GELU in oneDNN, whose backward (one algorithm on every CPU)
        # comes with the AVX2 forward's replay
        return _wrap(gelu_abramowitz_stegun_with_derivative(x32)[1], D.float32, x._device)
    with np.errstate(all="ignore"):
        cdf = _HALF32 * (_ONE32 + aten_erf(x32 * _GELU_ALPHA))
        pdf = _GELU_BETA * expf((x32 * x32) * np.float32(-0.5))
        return _wrap(cdf + x32 * pdf, D.float32, x._device)


_gelu, _gelu_ = activation(
    "GeluBackward0",
    "GeluKernelImpl",
    _gelu_fwd,
    _gelu_deriv,
    array_deriv=_gelu_array_deriv,
    array_vjp=_gelu_array_vjp,
    half_deriv=_gelu_half_deriv,
)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if approximate == "none" and _with_onednn_backward(input):
        return _gelu_with_derivative(input)
    return _gelu(input, approximate)


def _with_onednn_backward(input: Tensor) -> bool:
    """Whether this call records a GELU that oneDNN runs on an AVX2 CPU: its forward computes
    the erf and exp that oneDNN's backward uses, so the exact derivative costs ~3% more (less
    than the plain formula of the backward)."""
    x = input._data
    return (
        input._rg
        and _gm.enabled
        and not _fw_state.level
        and type(x) is np.ndarray
        and x.dtype == _F32
        and x.size > 1
        and x.flags.c_contiguous
        and not uses_avx512()
    )


def _gelu_with_derivative(input: Tensor) -> Tensor:
    out, derivative = gelu_abramowitz_stegun_with_derivative(input._data)
    r = _wrap(out, input._dtype, input._device)
    saved = (input, r)
    record(_gelu.Node, (input,), r, saved, deriv=_gelu_deriv, params=("none", derivative))
    return r


# ---- sigmoid family -------------------------------------------------------------------------
# The activations below follow PyTorch's float arithmetic around exp/log1p/tanh. float32 NumPy
# arrays run PyTorch's vectorised kernels step by step (``backend.float32_math.activation``:
# SLEEF's exp/log1p/tanh, float32 roundings), so they match PyTorch's bit for bit in >99% of
# elements; other dtypes use each of exp/log1p/tanh rounded once (``rounded``).
def _exp(xp, x):
    return rounded(xp, xp.exp, x)


def _log1p(xp, x):
    return rounded(xp, xp.log1p, x)


def _sig(xp, x):
    return 1 / (1 + _exp(xp, -x))


def _silu_deriv(x, out):
    s = x.sigmoid()
    return s * (1 + x * (1 - s))


@emulated(f32_activation.silu)
def _silu_fwd(xp, x):
    if xp is not np and x.dtype in _FUSED:  # CUDA: one fused kernel
        return fused.silu(xp, x)
    return x / (1 + _exp(xp, -x))


silu, silu_ = activation("SiluBackward0", "silu_cpu", _silu_fwd, _silu_deriv)


def _softplus_arr(xp, x):
    return _log1p(xp, _exp(xp, x))


def _mish_deriv(x, out):
    tsp = _softplus(x, 1.0, 20.0).tanh()
    return tsp + x * x.sigmoid() * (1 - tsp * tsp)


@emulated(f32_activation.mish, scalar=f32_activation.mish_scalar)
def _mish_fwd(xp, x):
    return x * rounded(xp, xp.tanh, _softplus_arr(xp, x))


@emulated(f32_activation.log_sigmoid, scalar_loop=False)  # its kernel has no scalar loop
def _logsigmoid_fwd(xp, x):
    return xp.minimum(x, 0) - _log1p(xp, _exp(xp, -xp.abs(x)))


mish, mish_ = activation("MishBackward0", "mish_cpu", _mish_fwd, _mish_deriv)


def _logsigmoid_half_deriv(dtype, x, out):
    # PyTorch's forward keeps exp(-|x|) in the input's (half) type for its backward, which
    # takes 1 - z / (1 + z) for x < 0, z / (1 + z) otherwise, from that rounded z
    z = (-x.abs()).exp().to(dtype).float()
    q = z / (1 + z)
    return (1 - q).where(x < 0, q)


logsigmoid, _ = activation(
    "LogSigmoidBackward0", "log_sigmoid_cpu", _logsigmoid_fwd, lambda x, out: 1 - x.sigmoid(),
    half_deriv=_logsigmoid_half_deriv,
)  # fmt: skip


@emulated(f32_activation.softplus, scalar=f32_activation.softplus_scalar)
def _softplus_fwd(xp, x, beta, threshold):
    bx = x * beta
    return xp.where(bx > threshold, x, _softplus_arr(xp, bx) / beta)


def _softplus_deriv(x, out, beta, threshold):
    bx = x * beta
    return _where(x, bx > threshold, 1.0, bx.sigmoid())


_softplus, _ = activation("SoftplusBackward0", "softplus_cpu", _softplus_fwd, _softplus_deriv)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return _softplus(input, beta, threshold)


# ---- ReLU family ---------------------------------------------------------------------------
def _leaky_fwd(xp, x, slope):
    """``x if x > 0 else x * slope``. For a contiguous float32/float64 array and a slope in
    (0, 1], ``maximum(x, x * slope)``: the same bits (x * slope is below x where x > 0, above
    it where x < 0, and where they tie, at ±0 and NaN, x * slope has x's bits whichever operand
    NumPy keeps) without ``where``'s per-element branch, which a random sign pattern makes
    ~20x slower ((256, 256): 212 against ~9 us). Other slopes (0: inf * 0 is NaN; negative:
    +0 * slope is -0) take ``where``."""
    neg = x * slope
    if xp is np and x.dtype.char in "fd" and 0 < slope <= 1 and x.flags.c_contiguous:
        return np.maximum(x, neg, out=neg)
    return xp.where(x > 0, x, neg)


def _leaky_deriv(x, out, slope):
    return _where(x, x > 0, 1.0, slope)


def _leaky_array_deriv(xp, x, out, slope):
    return xp.where(x > 0, x.dtype.type(1), x.dtype.type(slope))


def _leaky_array_vjp(g, x, out, into, slope):
    """PyTorch's ``g if x > 0 else g * slope`` for contiguous float32/float64 NumPy arrays, selected
    by bit masks (``where_bits``: ``where``'s per-element branch costs ~20x on a random sign
    pattern), into ``into`` when given; None otherwise."""
    if not (
        g.__class__ is np.ndarray and x.__class__ is np.ndarray
        and g.dtype.char in "fd" and x.dtype == g.dtype and x.shape == g.shape
        and g.flags.c_contiguous and x.flags.c_contiguous
    ):  # fmt: skip
        return None  # (CuPy arrays: the derivative's own where)
    return where_bits(x > 0, g, g * slope, out=into)


leaky_relu, _ = activation(
    "LeakyReluBackward0", "leaky_relu_cpu", _leaky_fwd, _leaky_deriv, piecewise=True,
    array_deriv=_leaky_array_deriv, array_vjp=_leaky_array_vjp,
)  # fmt: skip

_NEGATIVE_SLOPE_IN_PLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, please "
    "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
    "do require supporting in-place leakRelu backward calculation with negative slope"
)


def _leaky_inplace_vjp(node, g):
    (out,) = node.saved()
    if node.slope < 0:  # the input's sign is lost: PyTorch refuses, at the backward
        raise RuntimeError(_NEGATIVE_SLOPE_IN_PLACE)
    return (g * _leaky_deriv(out, out, node.slope),)  # out > 0 exactly where the input was


_LeakyInPlace = node_class("LeakyReluBackward1", _leaky_inplace_vjp)
_LeakyInPlace.saved_names = ("result",)


def _leaky_for_inplace(input: Tensor, slope) -> Tensor:
    """leaky_relu for ``leaky_relu_``: PyTorch's in-place node saves the result, not the input
    (LeakyReluBackward1), so no copy of the input is kept."""
    if _fw_state.level:  # tangents: the out-of-place op's
        return leaky_relu(input, slope)
    from ...autograd.grad_mode import no_grad

    with no_grad():
        r = leaky_relu(input, slope)
    if input._rg and _gm.enabled:
        record(_LeakyInPlace, (input,), r, (r,), slope=slope)
    return r


def leaky_relu_(input: Tensor, negative_slope=0.01) -> Tensor:
    return inplace(input, _leaky_for_inplace, (negative_slope,), saves_self=False)


@emulated(f32_activation.elu, scalar=f32_activation.elu_scalar)
def _elu_fwd(xp, x, alpha, scale, input_scale):
    neg = rounded(xp, xp.expm1, xp.minimum(x, 0) * input_scale) * (alpha * scale)
    return xp.where(x > 0, x * scale, neg)


def _elu_deriv(x, out, alpha, scale, input_scale):
    neg = (x.clamp(max=0) * input_scale).exp() * (alpha * scale * input_scale)
    return _where(x, x > 0, float(scale), neg)


elu_op, elu_op_ = activation("EluBackward0", "elu_cpu", _elu_fwd, _elu_deriv)
celu_op, celu_op_ = activation("CeluBackward0", "elu_cpu", _elu_fwd, _elu_deriv)

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _hardtanh_fwd(xp, x, lo, hi):
    return (
        xp.clip(x, lo, hi) if x.dtype.char in D.FLOAT_CHARS else xp.minimum(xp.maximum(x, lo), hi)
    )


def _hardtanh_deriv(x, out, lo, hi):
    return ((x > lo) & (x < hi)).to(x.dtype)


_hardtanh, _hardtanh_ = activation(
    "HardtanhBackward0", "", _hardtanh_fwd, _hardtanh_deriv, piecewise=True, select=True
)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return _hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return _hardtanh_(input, min_val, max_val)


hardsigmoid, hardsigmoid_ = activation(
    "HardsigmoidBackward0",
    "hardsigmoid_cpu",
    lambda xp, x: xp.clip(x + 3, 0, 6) / 6,
    lambda x, out: ((x > -3) & (x < 3)).to(x.dtype) / 6,
    select=True,
)


def _hardswish_deriv(x, out):
    mid = x / 3 + 0.5
    # PyTorch takes the outer pieces at the kinks: 0 at x = -3, 1 at x = 3
    return _where(x, x <= -3, 0.0, _where(x, x < 3, mid, 1.0))


hardswish, hardswish_ = activation(
    "HardswishBackward0",
    "hardswish_cpu",
    lambda xp, x: x * xp.clip(x + 3, 0, 6) / 6,
    _hardswish_deriv,
    select=lambda x: x > -3,  # 0 up to -3 whatever g; g * (x / 3 + 0.5) inside, even where it is 0
)


# ---- shrinkage and threshold ---------------------------------------------------------------
def _softshrink_fwd(xp, x, lambd):
    # x * 0 inside the band: NaN stays NaN (and a negative x gives -0), as PyTorch's kernel
    return xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, x * 0))


def _outside_band(x, lambd):
    # PyTorch's shrink backward: 0 where -lambd <= x <= lambd, the gradient elsewhere (NaN too)
    return (x.ge(-lambd) & x.le(lambd)).logical_not().to(x.dtype)


softshrink_op, _ = activation(
    "SoftshrinkBackward0", "softshrink_check", _softshrink_fwd, lambda x, out, lambd: _outside_band(x, lambd),
    piecewise=True, select=True,
)  # fmt: skip


def _x_else(xp, keep, x, value):
    """``where(keep, x, value)`` for a number ``value``: by bit masks on a contiguous float32/
    float64 NumPy array (``where``'s per-element branch is ~20x slower on a random pattern)."""
    if xp is np and x.dtype.char in "fd" and x.flags.c_contiguous and x.size >= 1024:
        return where_bits(keep, x, value)
    return xp.where(keep, x, value)


hardshrink_op, _ = activation(
    "HardshrinkBackward0",
    "hardshrink_cpu",
    lambda xp, x, lambd: _x_else(xp, ~((x >= -lambd) & (x <= lambd)), x, 0),  # NaN passes
    lambda x, out, lambd: _outside_band(x, lambd),
    piecewise=True,
    select=True,
)
threshold_op, threshold_op_ = activation(
    "ThresholdBackward0",
    "",
    lambda xp, x, th, value: _x_else(xp, ~(x <= th), x, value),  # NaN passes, as in PyTorch
    lambda x, out, th, value: x.le(th).logical_not().to(x.dtype),
    piecewise=True,
    select=True,
)


# ---- GLU and PReLU (more than one gradient) ----------------------------------------------
def _glu_vjp(node, g):
    (x,) = node.saved()
    a, b = x.chunk(2, node.dim)
    s = b.sigmoid()
    return (_cat2(g * s, g * a * s * (1 - s), node.dim),)


def _cat2(a, b, dim):
    from ..shape.copies import cat

    return cat([a, b], dim)


_Glu = node_class("GluBackward0", _glu_vjp)


@silent
def glu(input: Tensor, dim: int = -1) -> Tensor:
    _check_float(input, "glu_cpu")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim()
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    x = input._data
    xp = xp_for(input)
    a, b = xp.split(x, 2, axis=d)
    r = _wrap((a * _sig(xp, b)).astype(x.dtype, copy=False), input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(_Glu, (input,), r, (input,), dim=d)
    if _fw_state.level and input._fw is not None:
        from ...autograd.grad_mode import no_grad

        with no_grad():
            ta, tb = input._fw.chunk(2, d)
            ia, ib = input.detach().chunk(2, d)
            s = ib.sigmoid()
            r._fw = ta * s + tb * ia * s * (1 - s)
        _register(r)
    return r


def _prelu_vjp(node, g):
    x, w = node.saved()
    wb = _prelu_weight(x, w)
    pos = x > 0
    gx = _where(x, pos, g, g * wb) if node.next_functions[0][0] is not None else None
    gw = None
    if node.next_functions[1][0] is not None:
        gfull = _where(x, pos, 0.0, g * x)
        dims = [d for d in range(x.dim()) if not (x.dim() >= 2 and d == 1 and w.numel() > 1)]
        gw = gfull.sum(dims).reshape(w.shape) if dims else gfull.reshape(w.shape)
    return gx, gw


_Prelu = node_class("PreluKernelBackward0", _prelu_vjp)


def _prelu_weight(x, w):
    if w.numel() == 1 or x.dim() < 2:
        return w.reshape(())
    return w.reshape([-1] + [1] * (x.dim() - 2))


@cast_policy(LOWER)
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        c = input.shape[1] if input.dim() >= 2 else 1
        if weight.numel() != c:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{weight.numel()} and channel size = {c}."
            )
    from ...autograd.grad_mode import no_grad

    with no_grad():
        wb = _prelu_weight(input, weight)
        r = input.where(input > 0, input * wb)
    if _gm.enabled and (input._rg or weight._rg):
        record(_Prelu, (input, weight), r, (input, weight))
    return r


# ---- RReLU ---------------------------------------------------------------------------------
def _rrelu_vjp(node, g):
    return (g * node.noise,)


_Rrelu = node_class("RreluWithNoiseBackward0", _rrelu_vjp)
_RreluInplace = node_class("RreluWithNoiseBackward1", _rrelu_vjp)


def _rrelu_noise(xp, x, lower, upper, training, generator):
    """The slope of every element: 1 where ``x > 0``; elsewhere one ``U(lower, upper)`` draw per
    element in memory order (PyTorch's CPU kernel draws a double for each non-positive element
    only, so a seeded run gets the same slopes), or ``(lower + upper) / 2`` in eval mode."""
    pos = x > 0
    if not training:
        return xp.where(pos, 1.0, (lower + upper) / 2).astype(x.dtype)
    from ...backend import to_numpy
    from ..creation.random import _gen

    neg = ~to_numpy(pos).reshape(-1)  # the draws happen on the host, in memory order
    u = _gen(generator)._uniform_double(int(neg.sum()))
    # The kernel holds the bounds in the op's math type (float for float32) before drawing.
    math_t = np.float64 if x.dtype == np.float64 else np.float32
    lower, upper = float(math_t(lower)), float(math_t(upper))
    noise = np.ones(x.size, x.dtype)
    noise[neg] = (u * (upper - lower) + lower).astype(x.dtype)
    return xp.asarray(noise.reshape(x.shape))


def _rrelu(input: Tensor, lower, upper, training, generator, node_cls) -> Tensor:
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    _check_float(input, "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
    xp = xp_for(input)
    x = input._data
    noise = _rrelu_noise(
        xp, xp.ascontiguousarray(x), float(lower), float(upper), training, generator
    )
    r = _wrap(x * noise, input._dtype, input._device)
    tnoise = _wrap(noise, input._dtype, input._device)
    if input._rg and _gm.enabled:
        record(node_cls, (input,), r, (), noise=tnoise)
    if _fw_state.level and input._fw is not None:
        r._fw = input._fw * tnoise
        _register(r)
    return r


def rrelu(
    input: Tensor, lower=1.0 / 8, upper=1.0 / 3, training: bool = False, generator=None
) -> Tensor:
    """``torch.rrelu``: ``x`` where ``x > 0``, else ``x * a`` with a random slope ``a`` (training)
    or ``(lower + upper) / 2`` (eval); grad_fn RreluWithNoiseBackward0."""
    return _rrelu(input, lower, upper, training, generator, _Rrelu)


def rrelu_(
    input: Tensor, lower=1.0 / 8, upper=1.0 / 3, training: bool = False, generator=None
) -> Tensor:
    def op(x, lo, hi, tr, gen):
        return _rrelu(x, lo, hi, tr, gen, _RreluInplace)

    return inplace(input, op, (lower, upper, training, generator), saves_self=False)
