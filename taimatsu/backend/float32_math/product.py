"""``prod`` of real float arrays in the order of PyTorch's CPU kernel (``prod_kernel_impl``
in ``aten/src/ATen/native/cpu/ReduceOpsKernel.cpp``: ``binary_kernel_reduce_vec`` of
``Reduce.h``), so ``prod`` gives PyTorch's bits.

What the kernel does (re-implemented from its description; measured against torch 2.13):

- The reduced dim innermost and contiguous after TensorIterator's ordering of dims: ATen's AVX2
  build (on AVX-512 CPUs too), four accumulator vectors of 8 floats / 4 doubles, so
  ``4 * lanes`` running products over blocks of ``4 * lanes`` elements (each starting at the
  first block's element); the accumulators combined as ``(a0 * a1) * (a2 * a3)``, the lanes
  multiplied left to right, the output (1) times that, then times each element of the tail.
- Otherwise (reduced dims strided): one running product per output over the reduced elements
  in TensorIterator's order.
- float16/bfloat16 the same way with 16 lanes, each product rounded to the half type (exact in
  float, then rounded once: NumPy's and ml_dtypes' half multiplies round alike).
- One output from 32768+ elements on several threads: each thread's chunk of the elements its
  own product (as above), the output 1 times each chunk's product in order.

Layouts whose reduced dims TensorIterator cannot merge into one loop dim are left to the caller
(None), as are other dtypes (complex: its multiplication formula differs).
"""

from __future__ import annotations

import numpy as np

from .. import threads
from .cascade_sum import GRAIN, _loop_dims
from .vector_norm import lanes_in_turn, running

_LANES = {"f": 8, "d": 4, "e": 16, "E": 16}  # AVX2 vectors: 32 bytes (float16, bfloat16: 16)


def ordered_prod(a, dims, num_threads=None):
    """The product of ``a`` (float16/bfloat16/float32/float64, non-empty) over the axes ``dims`` (removed), or
    None for a layout with several reduced loop dims."""
    reduced = set(dims)
    out_shape = tuple(s for i, s in enumerate(a.shape) if i not in reduced)
    if any(s < 0 for s in a.strides):  # a flipped view: PyTorch's flip is a fresh tensor
        a = np.ascontiguousarray(a)
    keep = [i for i, s in enumerate(a.shape) if s != 1]
    reduced = {k for k, i in enumerate(keep) if i in reduced}
    a = a.reshape([a.shape[i] for i in keep])
    if not reduced:
        return a.copy().reshape(out_shape)
    loop = _loop_dims(a, reduced, a.strides)
    if sum(d[3] == 0 for d in loop) != 1:
        return None
    red = loop[0][0][::-1]
    kept = [i for i in range(a.ndim) if i not in reduced]
    v = a.transpose(kept + red).reshape(-1, loop[0][1])
    inner = loop[0][2] == a.itemsize
    nthreads = num_threads or threads.get_num_threads()
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if v.shape[0] == 1 and v.size >= GRAIN and nthreads > 1:
            tasks = min(nthreads, -(-v.size // GRAIN))
            chunk = -(-v.size // tasks)
            parts = [_product(v[:, t * chunk : (t + 1) * chunk], inner) for t in range(tasks)]
            r = np.stack(parts)
            r = running(r, 0, np.multiply)
        else:
            r = _product(v, inner)
    return r.reshape(out_shape)


def _product(v, inner: bool):
    """The products of the rows of ``v`` (outputs, reduced), as the kernel's loop computes them."""
    if not inner:
        return running(v, 1, np.multiply)
    m, n = v.shape
    width = 4 * _LANES[v.dtype.char]
    body = n - n % width
    out = np.ones(m, v.dtype)
    if body:
        acc = running(v[:, :body].reshape(m, body // width, width), 1, np.multiply)
        acc = acc.reshape(m, 4, width // 4)
        lanes = (acc[:, 0] * acc[:, 1]) * (acc[:, 2] * acc[:, 3])
        out = lanes_in_turn(lanes, np.multiply)
    for k in range(body, n):
        out = out * v[:, k]
    return out
