"""PyTorch's CPU random number generator, reproduced with NumPy.

`CPUGenerator` produces the numbers of `torch.Generator()` on the CPU, bit for bit (PyTorch 2.13
on x86-64, whose AVX2 kernels also serve AVX-512 machines for these ops): after the same seed,
every sampler returns PyTorch's values and leaves the stream where PyTorch leaves it, so that
consecutive calls stay in step. `get_state()` is byte-identical to `torch.get_rng_state()`, so
states interchange. The library never imports torch; the tests use it as the oracle.

What PyTorch does (aten/src/ATen/core/MT19937RNGEngine.h, CPUGeneratorImpl.cpp,
core/DistributionsHelper.h, core/TransformationHelper.h, native/cpu/DistributionTemplates.h,
native/cpu/avx_mathfun.h, native/TensorFactories.cpp, native/Distributions.cpp), and what
measuring PyTorch 2.13 added:

- One mt19937 stream seeded with init_genrand(seed & 0xffffffff). `random()` is one 32-bit draw,
  `random64()` two, the first one the high half. NumPy's MT19937 is the same engine: we load
  PyTorch's seeding into it and read it with `random_raw`.
- A uniform keeps the low 24 bits of a draw (float32, half and bfloat16 alike) or the low 53 bits
  of a 64-bit draw (float64), times 2**-bits. A uniform_ value that rounds up to `to` becomes
  `from`.
- The AVX2 build fuses `a * b + c` into one FMA wherever the compiler can, so results here go
  through an exact FMA emulation (`_fma32`, `_fma64`); without it about one value in ten would
  differ in its last bit.
- normal_ on 16 or more contiguous elements runs Box-Muller on blocks of 16 uniforms (float32,
  half and bfloat16: avx_mathfun's polynomial log and sincos, reproduced operation by operation
  in _rng_math.py); smaller tensors use a scalar Box-Muller in double that caches its second
  sample in the generator (log_normal_ shares that cache).
- random_(from, to) takes a 64-bit draw once to - from >= 2**28.

Known limits: a PyTorch built for another CPU family (no AVX2 kernels, e.g. ARM) differs in
float32/half/bfloat16 `normal`; on Intel CPUs `bernoulli_(float p)` uses MKL's own stream, which
is not reproduced (we follow the kernel that other CPUs use); float64 maths (log, log1p, exp, sin, cos,
tan) goes through the C library element by element (``libm.py``), as PyTorch's does, because
NumPy's own kernels differ from it in the last bit on some CPUs (AVX-512).
"""

from __future__ import annotations

import functools
import math
import operator
import os

import numpy as np

from . import libm
from ._cpu_sort import _cpu_topk, _heap_select, _introselect, _sort, _sort_heap  # noqa: F401 - ops/sorting.py imports the sort steps from here
from ._rng_checks import (
    _DIGITS,
    _INT64_MIN,
    _INT_RANGE,
    _INTEGERS,
    _check_cauchy,
    _check_exponential,
    _check_geometric,
    _check_log_normal,
    _check_multinomial,
    _check_multinomial_rows,
    _check_randperm,
    _check_uniform_bounds,
    _from_float,
    _from_int64,
    _not_implemented,
    _num,
    _random_range,
)
from ._rng_math import (  # noqa: F401 - _fma32_exact: the tests reach it as random._fma32_exact
    _blocks_of_16,
    _box_muller_f32_exact,
    _box_muller_f64,
    _fma32,
    _fma32_exact,
    _fma64,
)
from ._rng_shuffle import _fisher_yates, _inside_out
from .fp_errors import silent

__all__ = ["CPUGenerator", "default_generator"]

_N = 624  # mt19937 state words
_DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator() holds
_STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState), the layout of torch.get_rng_state()
_U64 = np.uint64


# ------------------------------------------------------------------------------ small helpers


def _shape(shape) -> tuple[int, ...]:
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)


# The exact FMA and the Box-Muller kernels are in _rng_math.py; topk's tie order in _cpu_sort.py;
# the dtype tables, casts and argument checks in _rng_checks.py; randperm's shuffles in _rng_shuffle.py.


def _to_float32(v: float) -> float:
    """``v`` rounded to float32 (a float32 operation's result, computed exactly in double)."""
    return float(np.float32(v))


# log(k!) - Stirling's approximation, for k = 0..9 (the BTRS bound's correction terms)
_STIRLING_TAIL = (
    0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
    0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
    0.00925546218271273, 0.00833056343336287,
)  # fmt: skip


def _stirling_tail(k: float) -> float:
    if k < len(_STIRLING_TAIL):
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _floor_to_int64(v: float) -> int:
    """(int64_t) floor(v) as C computes it: x86-64 gives INT64_MIN for NaN, infinities and
    overflow (an infinite rate samples -9223372036854775808 in PyTorch)."""
    if math.isfinite(v) and -(2.0**63) <= v < 2.0**63:
        return math.floor(v)
    return -(2**63)


# ------------------------------------------------------------------------------ seeding


@functools.lru_cache(maxsize=64)
def _mt_key(seed32: int) -> np.ndarray:
    """init_genrand: PyTorch's (and NumPy's legacy) mt19937 seeding."""
    key = np.empty(_N, np.uint32)
    for i in range(_N):
        key[i] = seed32
        seed32 = (1812433253 * (seed32 ^ (seed32 >> 30)) + i + 1) & 0xFFFFFFFF
    key.flags.writeable = False
    return key


def _to_uint64_seed(seed) -> int:
    """Generator.manual_seed's argument: an integer in [-2**63, 2**64), negatives taken as two's
    complement."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = operator.index(seed)
    if not _INT64_MIN <= seed < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return seed & 0xFFFFFFFFFFFFFFFF


# ------------------------------------------------------------------------------ the generator


class SeededGenerator:
    """What the CPU and CUDA generators share: the seed they were given and the checked bytes
    of a state to load. A subclass sets ``_initial_seed`` in ``manual_seed``."""

    __slots__ = ("_initial_seed",)

    def seed(self) -> int:
        """Re-seed with 64 bits from the OS (PyTorch reads /dev/urandom) and return the seed."""
        seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._initial_seed

    @staticmethod
    def _state_bytes(state: np.ndarray, size: int, wrong_size: str) -> np.ndarray:
        """``set_state``'s argument as flat bytes, refused as PyTorch refuses a tensor that is
        not a ByteTensor or not ``size`` bytes long (``wrong_size``: its message)."""
        buf = np.ascontiguousarray(state).reshape(-1)
        if buf.dtype != np.uint8:
            raise RuntimeError(f"expected a torch.ByteTensor, but got {buf.dtype}")
        if buf.size != size:
            raise RuntimeError(wrong_size)
        return buf


class CPUGenerator(SeededGenerator):
    """A CPU random generator that matches `torch.Generator(device="cpu")` bit for bit.

    Samplers take a shape and a NumPy dtype (`ml_dtypes.bfloat16` for bfloat16) and return a
    C-ordered array: the values PyTorch writes into a contiguous tensor, in memory order."""

    __slots__ = (
        "_engine",
        "_fresh_next",
        "_next_double_normal",
        "_next_float_normal",
    )

    def __init__(self, seed: int = _DEFAULT_SEED) -> None:
        self._engine = np.random.MT19937()
        self.manual_seed(seed)

    # ---- state -------------------------------------------------------------------------------

    def manual_seed(self, seed: int) -> CPUGenerator:
        """Seed as PyTorch does (dropping any cached normal sample)."""
        seed = _to_uint64_seed(seed)
        self._set_engine(_mt_key(seed & 0xFFFFFFFF), _N)
        self._initial_seed = seed
        self._fresh_next = 0  # PyTorch's engine holds next_=0, left_=1 until the first draw
        self._next_double_normal: float | None = None
        self._next_float_normal: float | None = None  # kept for the state bytes only
        return self

    def get_state(self) -> np.ndarray:
        """The state as the bytes of PyTorch's CPUGeneratorImplState (torch.get_rng_state())."""
        state = self._engine.state["state"]
        pos = int(state["pos"])
        left, nxt = (1, self._fresh_next) if self._fresh_next is not None else (_N + 1 - pos, pos)
        buf = np.zeros(_STATE_BYTES, np.uint8)
        buf[0:8].view(np.uint64)[0] = self._initial_seed
        buf[8:16].view(np.int32)[:] = (left, 1)  # left, seeded
        buf[16:24].view(np.uint64)[0] = nxt
        buf[24:5016].view(np.uint64)[:] = state["key"]
        if self._next_double_normal is not None:
            buf[5024:5032].view(np.float64)[0] = self._next_double_normal  # normal_y
            buf[5040:5044].view(np.int32)[0] = 1  # normal_is_valid
        if self._next_float_normal is not None:
            buf[5048:5052].view(np.float32)[0] = self._next_float_normal
            buf[5052] = 1
        return buf

    def set_state(self, state: np.ndarray) -> None:
        """Load bytes from `get_state()` or `torch.get_rng_state()`, with PyTorch's checks."""
        size = np.size(state)
        buf = self._state_bytes(
            state,
            _STATE_BYTES,
            f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input "
            f"RNG state size to be {size}",
        )
        left, seeded = (int(v) for v in buf[8:16].view(np.int32))
        nxt = int(buf[16:24].view(np.uint64)[0]) & 0xFFFFFFFF
        if not (seeded != 0 and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        if left > 1 and left + nxt != _N + 1:
            # PyTorch never writes such a state itself, and NumPy's engine cannot hold it.
            raise ValueError(f"unsupported mt19937 state: left={left} with next={nxt}")
        key = buf[24:5016].view(np.uint64).astype(np.uint32)  # PyTorch keeps the low 32 bits
        self._set_engine(key, _N if left == 1 else nxt)
        self._initial_seed = int(buf[0:8].view(np.uint64)[0])
        self._fresh_next = nxt if left == 1 else None
        has_double = buf[5040:5044].view(np.int32)[0] != 0
        self._next_double_normal = float(buf[5024:5032].view(np.float64)[0]) if has_double else None
        has_float = buf[5052] != 0
        self._next_float_normal = float(buf[5048:5052].view(np.float32)[0]) if has_float else None

    def _set_engine(self, key: np.ndarray, pos: int) -> None:
        self._engine.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}

    # ---- the raw stream ----------------------------------------------------------------------

    def _random(self, n: int) -> np.ndarray:
        """n of PyTorch's random(): 32-bit draws, held as uint64 for modular arithmetic."""
        if not n:
            return np.zeros(0, np.uint64)
        self._fresh_next = None
        return self._engine.random_raw(n)

    def _random64(self, n: int) -> np.ndarray:
        """n of PyTorch's random64(): two 32-bit draws, the first one the high half."""
        r = self._random(2 * n)
        return (r[0::2] << _U64(32)) | r[1::2]

    def _uniform_float(self, n: int) -> np.ndarray:
        """uniform_real_distribution<float>(0, 1): 24 bits of one draw."""
        return (self._random(n) & _U64(2**24 - 1)).astype(np.float32) * np.float32(2.0**-24)

    def _uniform_double(self, n: int) -> np.ndarray:
        """uniform_real_distribution<double>(0, 1): 53 bits of a 64-bit draw."""
        return (self._random64(n) & _U64(2**53 - 1)).astype(np.float64) * 2.0**-53

    # ---- uniform -----------------------------------------------------------------------------

    def uniform(self, shape, dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """torch.rand / Tensor.uniform_(low, high); complex dtypes fill the real view."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        if dtype.kind == "c":
            real = np.float32 if dtype == np.complex64 else np.float64
            return self.uniform(shape + (2,), real, low, high).view(dtype).reshape(shape)
        _check_uniform_bounds(dtype, float(low), float(high))
        n = math.prod(shape)
        if dtype.name == "float64":
            x, lo, width = self._uniform_double(n), float(low), float(high) - float(low)
            value = x + lo if width == 1 else _fma64(x, width, lo)
        else:  # float32, and half and bfloat16 too: they compute in float
            x, lo = self._uniform_float(n), np.float32(low)
            width = np.float32(high) - lo
            value = x + lo if width == 1 else _fma32(x, width, lo)
        out = _from_float(value, dtype)
        # A value that rounds up to `to` becomes `from`, keeping the range half-open.
        to, start = _from_float(np.array([high, low], np.float64), dtype)
        out[out >= to] = start
        return out.reshape(shape)

    # ---- normal ------------------------------------------------------------------------------

    def normal(
        self, shape, dtype, mean: float = 0.0, std: float = 1.0, *, contiguous: bool = True
    ) -> np.ndarray:
        """torch.randn / Tensor.normal_(mean, std); complex dtypes fill the real view with
        std / sqrt(2), as torch.randn does. `contiguous=False` takes PyTorch's element-wise path
        for a non-contiguous destination (values in its memory order)."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        if dtype.kind == "c":
            real = np.float32 if dtype == np.complex64 else np.float64
            out = self.normal(shape + (2,), real, mean, std / math.sqrt(2), contiguous=contiguous)
            return out.view(dtype).reshape(shape)
        if dtype.name not in _DIGITS:
            raise _not_implemented("normal_kernel_cpu", dtype)
        n = math.prod(shape)
        if n >= 16 and contiguous:
            out = self._normal_fill(n, dtype, mean, std)
        else:
            z = self._standard_normal_scalar(n)
            out = z + mean if std == 1 else _fma64(z, std, mean)
        return _from_float(out, dtype).reshape(shape)

    def _normal_fill(self, n: int, dtype: np.dtype, mean: float, std: float) -> np.ndarray:
        """normal_fill: float32 and float64 draw n uniforms, plus 16 fresh ones for the last
        block when n % 16 != 0; half and bfloat16 run the float32 kernel on ceil(n / 16) whole
        blocks, the last one doubling as the tail."""
        if dtype.name == "float64":
            u = self._uniform_double(n)
            z = _blocks_of_16(u, self._uniform_double(16) if n % 16 else None, _box_muller_f64)
            return z + mean if std == 1 else _fma64(z, std, mean)
        if dtype.name == "float32":
            u = self._uniform_float(n)
            tail = self._uniform_float(16) if n % 16 else None
        else:
            padded = -(-n // 16) * 16
            u = self._uniform_float(padded)
            u, tail = u[:n], (u[padded - 16 :] if n % 16 else None)
        z = _blocks_of_16(u, tail, _box_muller_f32_exact)
        std32, mean32 = np.float32(std), np.float32(mean)
        return z + mean32 if std32 == 1 else _fma32(z, std32, mean32)

    def _standard_normal_scalar(self, n: int) -> np.ndarray:
        """n calls of normal_distribution<double>, unscaled: each Box-Muller pair returns r*cos
        and caches r*sin in the generator for the next call."""
        out = np.empty(n)
        start = 0
        if n and self._next_double_normal is not None:
            out[0], self._next_double_normal, start = self._next_double_normal, None, 1
        pairs = (n - start + 1) // 2
        if pairs:
            u = self._uniform_double(2 * pairs)
            radius = np.sqrt(-2.0 * libm.log1p(-u[1::2]))
            theta = (2.0 * math.pi) * u[0::2]
            both = np.stack([radius * libm.cos(theta), radius * libm.sin(theta)], 1).reshape(-1)
            out[start:] = both[: n - start]
            if (n - start) % 2:
                self._next_double_normal = float(both[-1])
        return out

    # ---- integers ----------------------------------------------------------------------------

    def random(self, shape, dtype, low: int | None = None, high: int | None = None) -> np.ndarray:
        """Tensor.random_() when low and high are None; random_(to) as (None, to) or (0, to);
        random_(from, to); random_(from, None) for [from, the dtype's max]."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        n = math.prod(shape)
        if low is None and high is None:
            return self._random_full(n, dtype).reshape(shape)
        low = 0 if low is None else int(low)
        if high is None and low == _INT64_MIN:
            return self._random_int64_range(n, dtype).reshape(shape)
        base, span = _random_range(dtype, low, None if high is None else int(high))
        # spans of 2**28 and more take 64-bit draws (older PyTorch: 2**32, 64-bit types only)
        r = self._random64(n) if span >= 2**28 else self._random(n)
        out = ((r % _U64(span)) + _U64(base & 0xFFFFFFFFFFFFFFFF)).view(np.int64)
        return _from_int64(out, dtype).reshape(shape)

    def randint(self, low: int, high: int, shape, dtype=np.int64) -> np.ndarray:
        """torch.randint(low, high, shape): random_(low, high) on a new tensor."""
        return self.random(shape, dtype, low, high)

    def _random_full(self, n: int, dtype: np.dtype) -> np.ndarray:
        """random_(): [0, max] for integers (bool: a draw's low bit), [0, 2**digits] for floats."""
        name = dtype.name
        if name == "bool":
            return (self._random(n) & _U64(1)).astype(bool)
        if name not in _DIGITS and name not in _INTEGERS:
            raise _not_implemented("random_kernel_cpu", dtype)
        r = self._random64(n) if name in ("int64", "float64") else self._random(n)
        if name in _DIGITS:
            return _from_int64((r % _U64(2 ** _DIGITS[name] + 1)).view(np.int64), dtype)
        return (r % _U64(_INT_RANGE[name][1] + 1)).astype(dtype)

    def _random_int64_range(self, n: int, dtype: np.dtype) -> np.ndarray:
        """random_(from=INT64_MIN, to=None): the whole int64 range from one 64-bit draw."""
        if dtype.name not in _INTEGERS and dtype.name not in ("float32", "float64", "bfloat16"):
            raise _not_implemented("random_full_64_bits_range_kernel_cpu", dtype)
        if dtype.name not in ("int64", "float64", "float32", "bfloat16"):
            raise RuntimeError(
                "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"
            )
        return _from_int64(self._random64(n).view(np.int64), dtype)

    def randperm(self, n: int, dtype=np.int64) -> np.ndarray:
        """torch.randperm(n): Fisher-Yates with 32-bit draws, or for n >= (2**32 - 1) // 20 the
        inside-out variant with 64-bit draws."""
        n, dtype = int(n), np.dtype(dtype)
        _check_randperm(n, dtype)
        if n < 0xFFFFFFFF // 20:
            picks = self._random(max(n - 1, 0)) % np.arange(n, 1, -1, dtype=np.uint64)
            perm = _fisher_yates(picks.astype(np.int64), n)
        else:
            picks = self._random64(n) % np.arange(1, n + 1, dtype=np.uint64)
            perm = _inside_out(picks.astype(np.int64))
        return _from_int64(perm, dtype)

    # ---- other distributions -------------------------------------------------------------------

    def bernoulli(self, p, shape, dtype) -> np.ndarray:
        """Tensor.bernoulli_(p) for a Python float p; bernoulli_(p_tensor) and torch.bernoulli
        for an array p (broadcast to `shape`): a float64 p is compared with a double uniform,
        any other float p with a float one."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        n = math.prod(shape)
        if isinstance(p, np.ndarray):
            if p.dtype.name not in _DIGITS:
                raise _not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
            p = np.broadcast_to(p, shape).reshape(-1)
            if not ((p >= 0) & (p <= 1)).all():
                raise RuntimeError(
                    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                    "message be improved?  If so, please report an enhancement request to PyTorch.)"
                )
            if p.dtype == np.float64:
                hit = self._uniform_double(n) < p
            else:
                hit = self._uniform_float(n) < p.astype(np.float32)
        else:
            p = float(p)
            if not 0 <= p <= 1:
                raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
            hit = self._uniform_double(n) < p
        return hit.astype(dtype).reshape(shape)

    def exponential(self, shape, dtype, lambd: float = 1.0) -> np.ndarray:
        """Tensor.exponential_(lambd): -1/lambd * log1p(-u) in double."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_exponential(dtype, lambd)
        u = self._uniform_double(math.prod(shape))
        return _from_float((-1.0 / lambd) * libm.log1p(-u), dtype).reshape(shape)

    def geometric(self, shape, dtype, p: float) -> np.ndarray:
        """Tensor.geometric_(p): ceil(log(u) / log(1 - p)) in double; integer dtypes too."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_geometric(dtype, p, "cpu")
        u = self._uniform_double(math.prod(shape))
        with np.errstate(divide="ignore"):
            out = np.ceil(libm.log(u) / math.log(1.0 - p))
        return _from_float(out, dtype).reshape(shape)

    @silent
    def cauchy(self, shape, dtype, median: float = 0.0, sigma: float = 1.0) -> np.ndarray:
        """Tensor.cauchy_(median, sigma): median + sigma * tan(pi * (u - 0.5)) in double, fused."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_cauchy(dtype, sigma)
        u = self._uniform_double(math.prod(shape))
        return _from_float(_fma64(sigma, libm.tan(math.pi * (u - 0.5)), median), dtype).reshape(
            shape
        )

    @silent
    def log_normal(self, shape, dtype, mean: float = 1.0, std: float = 2.0) -> np.ndarray:
        """Tensor.log_normal_(mean, std): exp of the scalar, cached Box-Muller normal."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_log_normal(dtype, std, "cpu")
        z = _fma64(self._standard_normal_scalar(math.prod(shape)), std, mean)
        return _from_float(libm.exp(z), dtype).reshape(shape)

    def poisson(self, rates: np.ndarray) -> np.ndarray:
        """torch.poisson: one draw per rate, in C order, as float64 counts.

        PyTorch's CPU sampler draws double uniforms one at a time: below a rate of 10 it multiplies
        them until the product falls to exp(-rate) (Knuth); from 10 on it runs Hormann's
        transformed rejection (PTRS, 1993), two uniforms a try. How many draws an element takes
        depends on its values, so the loop is sequential."""
        rates = np.asarray(rates, np.float64)
        if not (rates >= 0).all():  # NaN fails too
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        out = [self._poisson_one(r) for r in rates.reshape(-1).tolist()]
        return np.array(out, np.float64).reshape(rates.shape)

    def binomial(self, count: np.ndarray, prob: np.ndarray) -> np.ndarray:
        """torch.binomial: one draw per (count, prob) pair, in C order, in their dtype.

        PyTorch's CPU sampler (TensorFlow's, after Kachitvichyanukul & Schmeiser): below
        count * p = 10 it counts geometric waiting times (one double uniform each); from 10 on it
        runs the BTRS transformed rejection (two a try). p > 0.5 samples count - B(count, 1 - p).
        A float32 tensor computes its own products, sums, sqrt and log1p in float32 and the rest
        in double, as the C++ template does; the replay rounds the same steps."""
        single = count.dtype == np.float32
        f = _to_float32 if single else float
        out = [
            self._binomial_one(f(n), f(p), f, single)
            for n, p in zip(count.reshape(-1).tolist(), prob.reshape(-1).tolist())
        ]
        return np.array(out, count.dtype).reshape(count.shape)

    def _binomial_one(self, n: float, p: float, f, single: bool) -> float:
        if math.isnan(n):  # PyTorch's loop never ends for a NaN count; NaN here
            return math.nan
        if n <= 0.0 or p <= 0.0:
            return 0.0
        if p >= 1.0:
            return n
        if p <= 0.5:
            return self._btrs(n, p, f) if f(n * p) >= 10.0 else self._inversion(n, p, f, single)
        if p > 0.5:
            q = f(1.0 - p)
            drawn = self._btrs(n, q, f) if f(n * q) >= 10.0 else self._inversion(n, q, f, single)
            return f(n - drawn)
        return math.nan

    def _inversion(self, n: float, p: float, f, single: bool) -> float:
        """How many geometric waiting times fit in ``n`` trials."""
        if single:
            from .float32_math.glibc import log1pf

            log_q = float(log1pf(np.array([-p], np.float32))[0])
        else:
            log_q = math.log1p(-p)
        total, found = 0.0, 0.0
        while True:
            wait = libm._log(self._uniform_one()) / log_q  # inf for a zero uniform
            total += math.ceil(wait) if math.isfinite(wait) else wait
            if total > n:
                return found
            found = f(found + 1)

    def _btrs(self, n: float, p: float, f) -> float:
        spq = math.sqrt(f(f(n * p) * f(1 - p)))
        spq = f(spq)
        b = 1.15 + 2.53 * spq
        a = -0.0873 + 0.0248 * b + 0.01 * p
        c = f(n * p) + 0.5
        v_r = 0.92 - 4.2 / b
        r = f(p / f(1 - p))
        alpha = (2.83 + 5.1 / b) * spq
        m = float(math.floor(f(f(n + 1) * p)))
        while True:
            u = self._uniform_one() - 0.5
            v = self._uniform_one()
            us = 0.5 - abs(u)
            if us == 0:  # C divides by zero here: k is -inf, rejected
                continue
            k = f(math.floor((2 * a / us + b) * u + c))
            if k < 0 or k > n:
                continue
            if us >= 0.07 and v <= v_r:
                return k
            v = math.log(v * alpha / (a / (us * us) + b))
            bound = (
                (m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
                + f(n + 1) * math.log((n - m + 1) / f(f(n - k) + 1))
                + (k + 0.5) * math.log(r * f(f(n - k) + 1) / f(k + 1))
                + _stirling_tail(m) + _stirling_tail(n - m)
                - _stirling_tail(k) - _stirling_tail(f(n - k))
            )  # fmt: skip
            if v <= bound:
                return k

    def _uniform_one(self) -> float:
        hi, lo = self._engine.random_raw(2).tolist()
        self._fresh_next = None
        return (((hi << 32) | lo) & (2**53 - 1)) * 2.0**-53

    def _poisson_one(self, rate: float) -> float:
        if rate == 0:
            return 0.0
        if rate < 10:
            count, product, limit = 0, 1.0, math.exp(-rate)
            while True:
                product *= self._uniform_one()
                if product <= limit:
                    return float(count)
                count += 1
        root, log_rate = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
        v_r = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = self._uniform_one() - 0.5
            v = self._uniform_one()
            us = 0.5 - abs(u)
            k = _floor_to_int64((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= v_r:
                return float(k)
            if k < 0 or (us < 0.013 and v > us):
                continue
            # Python's lgamma is its own, not the C library's: a last-bit difference could only
            # flip this comparison at an exact tie
            bound = -rate + k * log_rate - math.lgamma(k + 1.0)
            if math.log(v) + math.log(inv_alpha) - math.log(a / (us * us) + b) <= bound:
                return float(k)

    def multinomial(
        self, probs: np.ndarray, num_samples: int, replacement: bool = False
    ) -> np.ndarray:
        """torch.multinomial on 1-D or 2-D `probs`, as int64 indices. Without replacement, or for
        one sample, PyTorch takes the top k of probs / Exp(1) noise; with replacement it inverts
        each row's normalised cumulative sum with one double uniform per sample."""
        probs = np.asarray(probs)
        _check_multinomial(probs, num_samples, replacement)
        rows = probs.reshape(-1, probs.shape[-1])
        if replacement and num_samples > 1:
            out = self._multinomial_with_replacement(rows, num_samples)
        else:
            out = self._multinomial_top_k(rows, num_samples)
        return out.reshape(probs.shape[:-1] + (num_samples,))

    def _multinomial_top_k(self, rows: np.ndarray, k: int) -> np.ndarray:
        if not (np.isfinite(rows) & (rows >= 0)).all():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (rows.sum(-1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = self.exponential(rows.shape, rows.dtype)
        wide = np.float64 if rows.dtype == np.float64 else np.float32  # half divides in float
        keys = (rows.astype(wide) / q.astype(wide)).astype(rows.dtype).astype(np.float64)
        if k == 1:
            return np.argmax(keys, axis=-1, keepdims=True)  # the first maximum, as argmax does
        ranked = np.argsort(-keys, axis=-1, kind="stable")
        top = np.take_along_axis(keys, ranked[:, : k + 1], -1)
        ranked = ranked[:, :k]
        # topk's std::partial_sort / nth_element put equal keys in an order of their own: rows
        # with a tie in their top k (or just past it) are redone with those algorithms.
        for row in np.nonzero((top[:, 1:] == top[:, :-1]).any(-1))[0]:
            ranked[row] = _cpu_topk(keys[row].tolist(), k)
        return ranked

    def _multinomial_with_replacement(self, rows: np.ndarray, k: int) -> np.ndarray:
        acc = np.float64 if rows.dtype == np.float64 else np.float32  # half sums in float
        values = rows.astype(acc)
        _check_multinomial_rows(rows, values)
        cum = np.cumsum(values, axis=-1, dtype=acc)  # sequential, like the C++ loop
        cum /= cum[:, -1:].copy()
        cum[:, -1] = 1
        u = self._uniform_double(rows.shape[0] * k).reshape(-1, k)
        # the binary search finds the first bucket whose cumulative value is >= u
        found = [np.searchsorted(c.astype(np.float64), s, "left") for c, s in zip(cum, u)]
        return np.stack(found).astype(np.int64)


# ------------------------------------------------------------------------------ argument checks


default_generator = CPUGenerator()
default_generator.seed()  # like PyTorch's, the default CPU generator starts from a random seed
