"""Random numbers for CUDA tensors, drawn on the GPU by CuPy's generator (cuRAND).

``CUDAGenerator`` is ``torch.Generator(device="cuda")`` and each of ``torch.cuda``'s default
generators (one per device). It offers the samplers of ``CPUGenerator`` (random.py) under the
same names and arguments, returning CuPy arrays on the generator's device, so an op draws with
either one without knowing which.

Deviation, documented in docs/cuda.md: the numbers are NOT PyTorch's (PyTorch's CUDA kernels
use their own Philox4x32-10 stream and layout). What holds is PyTorch's contract: the same seed
gives the same numbers run to run, each device has its own generator seeded by
``torch.manual_seed`` / ``torch.cuda.manual_seed(_all)``, and ``get_state()`` / ``set_state()``
rewind it.

Why a state of (seed, offset) and a re-seed per call: CuPy's ``RandomState`` cannot hand out
or restore its position. So every sampling call re-seeds one cached cuRAND Philox generator
with a key mixed from (seed, offset) and then advances ``offset`` by one. The state is the
16 bytes PyTorch's CUDA generator state has (seed, then offset, little-endian uint64), so
``torch.cuda.get_rng_state()`` has PyTorch's size and dtype; the offset counts calls, not
Philox counters as PyTorch's does.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import check, cupy
from ._rng_checks import (
    _DIGITS,
    _INT_RANGE,
    _INTEGERS,
    _check_cauchy,
    _check_exponential,
    _check_geometric,
    _check_log_normal,
    _check_multinomial,
    _check_randperm,
    _check_uniform_bounds,
    _not_implemented,
    _num,
    _random_range,
)
from .random import _DEFAULT_SEED, SeededGenerator, _shape, _to_uint64_seed

__all__ = ["CUDAGenerator", "default_cuda_generator"]

_MASK64 = 2**64 - 1
_P_IN_RANGE = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)"
)
_STATE_BYTES = 16


def _mix64(x: int) -> int:
    """splitmix64's finaliser: spreads (seed, offset) so that neighbouring calls get unrelated
    Philox keys."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _on_device(method):
    """Run a sampler under ``cupy.cuda.Device(self.index)``: its draws and arithmetic allocate
    on the generator's GPU whatever the current device."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with cupy().cuda.Device(self.index):
            return method(self, *args, **kwargs)

    return run


def _as_float_sample_dtype(dtype: np.dtype) -> np.dtype:
    """cuRAND draws float32 or float64; half and bfloat16 are drawn in float32 and cast, as
    PyTorch's kernels compute them in float."""
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


class CUDAGenerator(SeededGenerator):
    """A generator of one CUDA device (see the module docstring)."""

    __slots__ = ("_offset", "_rs", "index")

    def __init__(self, index: int = 0, seed: int = _DEFAULT_SEED) -> None:
        self.index = int(index)
        self._rs = None  # the cuRAND generator, made on first draw (CuPy is imported lazily)
        self.manual_seed(seed)

    # ---- state -------------------------------------------------------------------------------
    def manual_seed(self, seed: int) -> CUDAGenerator:
        self._initial_seed = _to_uint64_seed(seed)
        self._offset = 0
        return self

    def get_state(self) -> np.ndarray:
        """16 bytes, as PyTorch's CUDA generator state: the seed, then the offset."""
        return np.array([self._initial_seed, self._offset], np.uint64).view(np.uint8)

    def set_state(self, state: np.ndarray) -> None:
        buf = self._state_bytes(state, _STATE_BYTES, "RNG state is wrong size")
        self._initial_seed, self._offset = (int(v) for v in buf.view(np.uint64))

    # ---- the raw stream ----------------------------------------------------------------------
    def _state(self):
        """The cuRAND generator, re-seeded for this call (and the offset moved past it)."""
        if self._rs is None:
            cp = cupy()
            self._rs = cp.random.RandomState(0, method=_philox(cp))
        key = _mix64(self._initial_seed ^ _mix64(self._offset)) >> 1  # CuPy takes seeds below 2**64
        self._offset += 1
        self._rs.seed(key)
        return self._rs

    def _uniform(self, shape, dtype) -> object:
        """Uniform floats in [0, 1) of ``dtype`` (float32 or float64) on this device."""
        return self._state().random_sample(shape, dtype)

    def _open_uniform(self, shape, dtype) -> object:
        """Uniform floats in (0, 1]: for the logarithms of the inverse-transform samplers."""
        return 1 - self._uniform(shape, dtype)

    # ---- the samplers of CPUGenerator ----------------------------------------------------------
    @_on_device
    def uniform(self, shape, dtype, low: float = 0.0, high: float = 1.0):
        shape, dtype = _shape(shape), np.dtype(dtype)
        if dtype.kind == "c":
            real = np.float32 if dtype == np.complex64 else np.float64
            return self.uniform(shape + (2,), real, low, high).view(dtype).reshape(shape)
        _check_uniform_bounds(dtype, float(low), float(high))
        wide = _as_float_sample_dtype(dtype)
        u = self._uniform(shape, wide)
        out = (u * wide.type(float(high) - float(low)) + wide.type(low)).astype(dtype)
        # keep [low, high) half-open after rounding to the tensor's dtype, as the CPU does
        to = float(np.array(high, np.float64).astype(dtype))
        return cupy().where(out >= to, out.dtype.type(low), out)

    @_on_device
    def normal(self, shape, dtype, mean: float = 0.0, std: float = 1.0, *, contiguous=True):
        shape, dtype = _shape(shape), np.dtype(dtype)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        if dtype.kind == "c":
            real = np.float32 if dtype == np.complex64 else np.float64
            out = self.normal(shape + (2,), real, mean, std / math.sqrt(2))
            return out.view(dtype).reshape(shape)
        if dtype.name not in _DIGITS:
            raise _not_implemented("normal_kernel_cuda", dtype)
        wide = _as_float_sample_dtype(dtype)
        z = self._state().standard_normal(shape, wide)
        return (z * wide.type(std) + wide.type(mean)).astype(dtype)

    @_on_device
    def random(self, shape, dtype, low: int | None = None, high: int | None = None):
        """random_(): [0, 2**digits] for floats, [0, max] for integers; random_(to),
        random_(from, to)."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        if low is None and high is None:
            if dtype.name == "bool":
                return self._integers(shape, 0, 2).astype(bool)
            if dtype.name in _DIGITS:
                return self._integers(shape, 0, 2 ** _DIGITS[dtype.name] + 1).astype(dtype)
            if dtype.name not in _INTEGERS:
                raise _not_implemented("random_kernel_cuda", dtype)
            return self._integers(shape, 0, _INT_RANGE[dtype.name][1] + 1).astype(dtype)
        low = 0 if low is None else int(low)
        base, span = _random_range(dtype, low, None if high is None else int(high))
        return (self._integers(shape, 0, span) + base).astype(dtype)

    def randint(self, low: int, high: int, shape, dtype=np.int64):
        return self.random(shape, dtype, low, high)

    def _integers(self, shape, low: int, high: int):
        """int64 uniform in [low, high) (high may be 2**63: the whole non-negative range)."""
        return self._state().randint(low, high, size=shape, dtype=np.int64)

    @_on_device
    def randperm(self, n: int, dtype=np.int64):
        """A permutation as the order of n uniform float64 keys (ties: about n**2 / 2**54)."""
        n, dtype = int(n), np.dtype(dtype)
        _check_randperm(n, dtype)
        return cupy().argsort(self._uniform((n,), np.float64)).astype(dtype)

    @_on_device
    def bernoulli(self, p, shape, dtype):
        """bernoulli_(float p) or with an array p (on this device, broadcast to ``shape``): a
        float64 p is compared with a double uniform, any other with a float one, as the CPU."""
        shape, dtype = _shape(shape), np.dtype(dtype)
        cp = cupy()
        if hasattr(p, "dtype") and hasattr(p, "shape"):
            if p.dtype.name not in _DIGITS:
                raise _not_implemented("bernoulli_tensor_cuda_p_", p.dtype)
            check(
                ~((p >= 0) & (p <= 1)).all(),
                lambda: RuntimeError(_P_IN_RANGE),
            )
            wide = _as_float_sample_dtype(p.dtype)
            hit = self._uniform(shape, wide) < cp.broadcast_to(p, shape).astype(wide)
        else:
            p = float(p)
            if not 0 <= p <= 1:
                raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
            hit = self._uniform(shape, np.float64) < p
        return hit.astype(dtype)

    @_on_device
    def exponential(self, shape, dtype, lambd: float = 1.0):
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_exponential(dtype, lambd)
        u = self._open_uniform(shape, np.float64)
        return ((-1.0 / lambd) * cupy().log(u)).astype(dtype)

    @_on_device
    def geometric(self, shape, dtype, p: float):
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_geometric(dtype, p, "cuda")
        cp = cupy()
        u = self._open_uniform(shape, np.float64)
        return cp.maximum(cp.ceil(cp.log(u) / math.log1p(-p)), 1).astype(dtype)

    @_on_device
    def cauchy(self, shape, dtype, median: float = 0.0, sigma: float = 1.0):
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_cauchy(dtype, sigma)
        u = self._uniform(shape, np.float64)
        return (median + sigma * cupy().tan(math.pi * (u - 0.5))).astype(dtype)

    @_on_device
    def log_normal(self, shape, dtype, mean: float = 1.0, std: float = 2.0):
        shape, dtype = _shape(shape), np.dtype(dtype)
        _check_log_normal(dtype, std, "cuda")
        return cupy().exp(self.normal(shape, np.float64, mean, std)).astype(dtype)

    @_on_device
    def multinomial(self, probs, num_samples: int, replacement: bool = False):
        """torch.multinomial on the device. Without replacement (or one sample) the top k of
        probs / Exp(1), as PyTorch's kernels; with replacement the inverse of each row's
        normalised cumulative sum. Bad rows are reported at the next synchronisation."""
        _check_multinomial(probs, num_samples, replacement)
        cp = cupy()
        rows = probs.reshape(-1, probs.shape[-1]).astype(np.float64)
        check(
            ~(cp.isfinite(rows) & (rows >= 0)).all(),
            lambda: RuntimeError("probability tensor contains either `inf`, `nan` or element < 0"),
        )
        check(
            (rows.sum(-1) <= 0).any(),
            lambda: RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)"),
        )
        if replacement and num_samples > 1:
            out = self._inverse_cdf(cp, rows, num_samples)
        else:
            keys = rows / -cp.log(self._open_uniform(rows.shape, np.float64))
            out = cp.argsort(-keys, axis=-1)[:, :num_samples]
        return out.astype(np.int64).reshape(probs.shape[:-1] + (num_samples,))

    def _inverse_cdf(self, cp, rows, k: int):
        """One searchsorted over all rows at once: row i's cumulative sums (in [0, 1]) are
        shifted by i so that the rows form one increasing sequence."""
        n_rows, n = rows.shape
        cum = cp.cumsum(rows, axis=-1)
        cum = cum / cum[:, -1:]
        shift = cp.arange(n_rows, dtype=np.float64)[:, None]
        flat = (cum + shift).reshape(-1)
        u = self._uniform((n_rows, k), np.float64) + shift
        found = cp.searchsorted(flat, u.reshape(-1), side="right").reshape(n_rows, k)
        return cp.minimum(found - (shift.astype(np.int64) * n), n - 1)


def _philox(cp) -> int:
    """cuRAND's Philox4x32-10 (the family of PyTorch's CUDA generator): cheap to re-seed,
    unlike the default XORWOW whose states are set up anew after each seeding."""
    try:
        return cp.cuda.curand.CURAND_RNG_PSEUDO_PHILOX4_32_10
    except AttributeError:
        return 161  # the value of CURAND_RNG_PSEUDO_PHILOX4_32_10 in curand.h


_default: dict[int, CUDAGenerator] = {}


def default_cuda_generator(index: int) -> CUDAGenerator:
    """``torch.cuda.default_generators[index]``, made on first use with PyTorch's default seed."""
    g = _default.get(index)
    if g is None:
        g = _default[index] = CUDAGenerator(index)
    return g
