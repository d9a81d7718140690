"""``torch.quasirandom``: the Sobol' low-discrepancy sequence engine.

Points come in Gray-code order (Antonov and Saleev): point ``i + 1`` is point ``i`` XOR the
direction number indexed by the lowest zero bit of ``i``, so each new point costs one XOR per
dimension. Coordinates are 30-bit integers scaled by ``2**-30``. The direction numbers are Joe and
Kuo's table (new-joe-kuo-6.21201, search criterion D(6), up to dimension 21201), the table PyTorch
uses; SciPy ships it, and SciPy's own initialiser turns it into the 30-bit numbers.

Scrambling (Owen's linear matrix scramble plus a digital shift) draws a random 30-bit shift per
dimension and a random unit lower-triangular bit matrix per dimension with ``torch.randint``, from
a generator seeded with ``seed`` (or the global one), in PyTorch's order; taimatsu's generator is
PyTorch's stream, so a seeded engine gives PyTorch's points bit for bit.
"""

from __future__ import annotations

import numpy as np

from . import _dtype as D
from ._tensor.core import Tensor

__all__ = ["SobolEngine"]


def _direction_numbers(dimension: int, bits: int) -> np.ndarray:
    """``(dimension, bits)`` int64: ``v[d, j] = m_dj << (bits - 1 - j)`` from Joe and Kuo's table."""
    from scipy.stats import _sobol  # SciPy's loader of the table it ships (scipy.stats.qmc.Sobol)

    v = np.zeros((dimension, bits), dtype=np.uint64)
    _sobol._initialize_v(v, dimension, bits)
    return v.astype(np.int64)


def _lowest_zero_bits(start: int, n: int) -> np.ndarray:
    """For each counter in ``start .. start + n - 1``, the position of its lowest zero bit."""
    c = np.arange(start, start + n, dtype=np.int64)
    return np.log2(~c & (c + 1)).astype(np.intp)  # a power of two: its log2 is exact


def _flip_parity(start: int, n: int, bits: int) -> np.ndarray:
    """Whether each bit position is the lowest zero bit of an odd number of the ``n`` counters
    from ``start``. Counters below ``N`` whose lowest zero bit is ``l`` are the ones congruent to
    ``2**l - 1`` modulo ``2**(l + 1)``: there are ``(N + 2**l) >> (l + 1)`` of them."""
    pos = np.arange(bits, dtype=np.int64)

    def below(N: int) -> np.ndarray:
        return (N + (1 << pos)) >> (pos + 1)

    return ((below(start + n) - below(start)) & 1).astype(bool)


def _scrambled(v: np.ndarray, ltm: np.ndarray, bits: int) -> np.ndarray:
    """Each direction number's bits, most significant first, multiplied (mod 2) by its
    dimension's lower-triangular matrix with the diagonal set to one."""
    L = ltm.astype(np.float32)
    idx = np.arange(bits)
    L[:, idx, idx] = 1
    msb_first = (bits - 1) - idx
    vbits = ((v[..., None] >> msb_first) & 1).astype(np.float32)  # (dim, j, k)
    prod = np.matmul(vbits, L.transpose(0, 2, 1)).astype(np.int64) & 1  # sums <= bits: exact
    return prod @ (np.int64(1) << msb_first)


class SobolEngine:
    """An engine that draws (optionally scrambled) Sobol' points, as ``torch.quasirandom.SobolEngine``.

    Args:
        dimension: the dimension of the points, 1 to 21201.
        scramble: draw a scrambled sequence (a random linear matrix scramble and digital shift).
        seed: the seed of the scrambling's generator; the global generator when ``None``.
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        from .ops.creation.factories import from_numpy, zeros

        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(
                f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]"
            )
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self.sobolstate = from_numpy(_direction_numbers(dimension, self.MAXBIT))
        if scramble:
            self._scramble()
        else:
            self.shift = zeros(dimension, dtype=D.int64)
        self.quasi = self.shift.clone()
        # In the default dtype of construction time, as PyTorch (a float32 first point, rounded,
        # even when later draws ask for float64).
        self._first_point = (self.quasi / 2**self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def _scramble(self) -> None:
        from .ops.creation.factories import from_numpy
        from .ops.creation.random import Generator, randint

        g = None
        if self.seed is not None:
            g = Generator()
            g.manual_seed(self.seed)
        # PyTorch's draws in its order: the shift's bits, then the matrices
        shift_bits = randint(2, (self.dimension, self.MAXBIT), generator=g).numpy()
        self.shift = from_numpy(
            shift_bits @ (np.int64(1) << np.arange(self.MAXBIT, dtype=np.int64))
        )
        ltm = np.tril(randint(2, (self.dimension, self.MAXBIT, self.MAXBIT), generator=g).numpy())
        self.sobolstate.numpy()[...] = _scrambled(self.sobolstate.numpy(), ltm, self.MAXBIT)

    def _next_points(self, n: int, counter: int, dtype) -> Tensor:
        """``n`` points after ``self.quasi``, the first reached from counter ``counter``; moves ``quasi``."""
        from .ops._dispatch import scalar_name
        from .ops.creation.factories import empty, from_numpy

        empty((n, self.dimension), dtype=dtype)  # PyTorch's check of n comes before the dtype's
        if dtype not in (D.float32, D.float64):
            raise NotImplementedError(
                f"\"_sobol_engine_draw\" not implemented for '{scalar_name(dtype)}'"
            )
        steps = self.sobolstate.numpy()[:, _lowest_zero_bits(counter, n)].T
        points = np.bitwise_xor.accumulate(steps, axis=0) ^ self.quasi.numpy()
        if n:
            self.quasi = from_numpy(points[-1].copy())
        return from_numpy(np.ldexp(points.astype(dtype.np), -self.MAXBIT))

    def draw(self, n: int = 1, out: Tensor | None = None, dtype: D.dtype | None = None) -> Tensor:
        """The next ``n`` points, an ``(n, dimension)`` tensor (the default dtype unless ``dtype``)."""
        from .ops.shape.copies import cat

        if dtype is None:
            dtype = D.get_default_dtype()
        if self.num_generated == 0:
            # the sequence's first point is the shift itself; the Gray-code steps start after it
            result = self._first_point.to(dtype)
            if n != 1:
                result = cat((result, self._next_points(n - 1, 0, dtype)), dim=-2)
        else:
            result = self._next_points(n, self.num_generated - 1, dtype)
        self.num_generated += n
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Tensor | None = None, dtype: D.dtype | None = None) -> Tensor:
        """The next ``2**m`` points; the total drawn must stay a power of two (the balance property)."""
        n = 2**m
        total_n = self.num_generated + n
        if total_n & (total_n - 1) != 0:
            raise ValueError(
                "The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total_n}. "
                "If you still want to do this, please use 'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Back to the sequence's start."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip ``n`` points, as drawing them would."""
        steps = n - 1 if self.num_generated == 0 else n
        if steps > 0:
            counter = max(self.num_generated - 1, 0)
            flips = self.sobolstate.numpy()[:, _flip_parity(counter, steps, self.MAXBIT)]
            self.quasi.numpy()[...] ^= np.bitwise_xor.reduce(flips, axis=1)
        self.num_generated += n
        return self

    def __repr__(self) -> str:
        args = [f"dimension={self.dimension}"]
        if self.scramble:
            args.append("scramble=True")
        if self.seed is not None:
            args.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(args)})"
