"""Random sampling: the ``torch.Generator`` object, the global seed functions, the
sampling factories (rand, randn, randint, randperm, normal, bernoulli, multinomial) and the
in-place samplers (uniform_, normal_, random_, ...).

CPU numbers come from ``backend.random.CPUGenerator``, which reproduces PyTorch's CPU
stream, so ``manual_seed(0); randn(3)`` prints PyTorch's numbers. CUDA tensors draw on their
GPU from ``backend.cuda_random.CUDAGenerator`` (CuPy's cuRAND; seeded by the same calls, but
not PyTorch's Philox numbers). ``_gen(generator, device)`` picks one; both have the same samplers.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import as_device, cpu
from ..._tensor.core import Tensor, _wrap
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from ...backend._rng_checks import _num
from ...backend.random import CPUGenerator
from ...backend.random import default_generator as _default_cpu
from .._dispatch import check_inplace, record, scalar_name
from ..._size import Size
from ..arg_types import _is_int, as_int, int_list, integer
from ..on_host import on_host
from .factories import (
    NO_SIZE,
    _finish,
    _meta_data,
    _size_args,
    allocate,
    creation_out,
    size_keyword,
)


class Generator:
    """``torch.Generator``: an independent random stream (CPU: PyTorch's numbers; CUDA: CuPy's,
    see backend/cuda_random.py)."""

    _tp_name = "torch._C.Generator"  # the name PyTorch's messages give its C type (type_name)

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        if self.device.type == "cuda":
            self.device, self._impl = _cuda_generator_for(self.device)
        else:
            self._impl = CPUGenerator()

    def __repr__(self) -> str:  # PyTorch's (its class lives in torch._C)
        return f"<torch._C.Generator object at {id(self):#x}>"

    def manual_seed(self, seed) -> Generator:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            from ..._tensor_arguments import type_name

            raise RuntimeError(f"manual_seed expected a long, but got {type_name(seed)}")
        self._impl.manual_seed(int(seed))
        return self

    def get_offset(self) -> int:
        return self._no_offset()

    def set_offset(self, offset: int) -> Generator:
        return self._no_offset()

    def _no_offset(self):
        if self.device.type == "cpu":  # PyTorch's answer
            raise RuntimeError("CPU Generator does not use offset")
        raise NotImplementedError(
            "taimatsu's CUDA generators are CuPy's streams: they have no Philox offset to read or set"
        )

    def graphsafe_get_state(self):
        return self._no_graphsafe("graphsafe_get_state")

    def graphsafe_set_state(self, state):
        return self._no_graphsafe("graphsafe_set_state")

    def _no_graphsafe(self, name: str):
        if self.device.type == "cpu":  # PyTorch's answer
            raise NotImplementedError(f"{name} is not supported in this Generator")
        raise NotImplementedError(
            f"taimatsu does not capture CUDA graphs, so {name} is not available"
        )

    def seed(self) -> int:
        return self._impl.seed()

    def initial_seed(self) -> int:
        return self._impl.initial_seed()

    def get_state(self) -> Tensor:
        return _wrap(self._impl.get_state(), D.uint8, cpu)

    def clone_state(self) -> Generator:
        """A new generator on this one's device, in this one's state (seed included)."""
        g = Generator(self.device)
        g._impl.set_state(self._impl.get_state())
        return g

    def set_state(self, new_state: Tensor) -> Generator:
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state._dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        self._impl.set_state(new_state._data)
        return self


default_generator = Generator.__new__(Generator)
default_generator.device = cpu
default_generator._impl = _default_cpu


_NO_CUDA_GENERATOR = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you are "
    "trying to use some CUDA functionality, but the CUDA library has not been loaded by the "
    "dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't directly "
    "use any symbols from the CUDA library! One common culprit is a lack of -Wl,--no-as-needed in "
    "your link arguments; many dynamic linkers will delete dynamic library dependencies if you "
    "don't depend on any of their symbols.  You can check if this has occurred by using ldd on "
    "your binary to see if there is a dependency on *_cuda.so library."
)


def _cuda_generator_for(dev):
    """``torch.Generator(device="cuda:i")``'s device (with its index) and a fresh CUDA stream."""
    from ...backend import cuda_available, current_cuda_index
    from ...backend.cuda_random import CUDAGenerator

    if not cuda_available():
        raise RuntimeError(_NO_CUDA_GENERATOR)
    index = current_cuda_index() if dev.index is None else dev.index
    return as_device(f"cuda:{index}"), CUDAGenerator(index)


def _gen(generator, device=None):
    """The sampler for a tensor on ``device``: the CPU generator, or for a CUDA tensor its
    device's CUDA generator (the default one of that GPU unless ``generator`` is given)."""
    if device is not None and device.type == "cuda":
        if generator is None:
            from ...backend import current_cuda_index
            from ...backend.cuda_random import default_cuda_generator

            return default_cuda_generator(
                current_cuda_index() if device.index is None else device.index
            )
        _check_generator_type(generator, "cuda")
        return generator._impl
    if generator is None:
        return default_generator._impl
    _check_generator_type(generator, "cpu")
    return generator._impl


def _check_generator_type(generator, want: str) -> None:
    if not isinstance(generator, Generator):
        from ..._tensor_arguments import type_name

        raise TypeError(f"expected a torch.Generator, but got {type_name(generator)}")
    if generator.device.type != want:
        raise RuntimeError(
            f"Expected a '{want}' device type for generator but found '{generator.device.type}'"
        )


def manual_seed(seed) -> Generator:
    seed = int(seed)
    default_generator.manual_seed(seed)
    from ... import cuda

    cuda.manual_seed_all(seed)
    return default_generator


def seed() -> int:
    """Seed the CPU generator from the OS, and every CUDA generator with the same seed."""
    s = default_generator.seed()
    from ... import cuda

    cuda.manual_seed_all(s)
    return s


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


def _np_dtype(dtype: D.dtype):
    return dtype.np


_SIZE_OVERLOADS = (
    "".join(
        f"\n * (tuple of ints size, *, {gen}Tensor out = None, torch.dtype dtype = None, torch.layout "
        "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
        for gen in ("torch.Generator generator, ", "")
    )
    + "\n"
)


def _make(sample, size, dtype, device, requires_grad, out=None, name="rand", generator=None):
    """A new tensor filled by ``sample(g, shape, dtype)`` with ``g`` the generator of its device."""
    shape = _size_args(size, name)
    if generator is not None and not isinstance(generator, Generator) and name in ("rand", "randn"):
        from ..._tensor_arguments import invalid_combination

        got = invalid_combination(name, tuple(size), {"generator": generator})
        raise TypeError(got + _SIZE_OVERLOADS)
    dev = as_device(device)
    if dev.type == "meta":  # no data: nothing is drawn, as on PyTorch's meta device
        t = _finish(_meta_data(shape, dtype), dtype, dev, requires_grad)
    else:
        g = _gen(generator, dev)
        data = allocate(lambda: sample(g, shape, dtype), shape, dtype)
        t = _finish(data, dtype, dev, requires_grad)
    if out is not None:
        from .._dispatch import write_out

        return write_out(out, t, "rand")
    return t


def _float_dtype(dtype, name, size=None):
    dtype = dtype or D.get_default_dtype()
    if dtype.category < D.FLOAT:
        from .._dispatch import scalar_name

        if size is not None:  # PyTorch allocates the output before its kernel refuses the dtype
            shape = _size_args(size, name)
            allocate(lambda: np.empty(shape, dtype.np), shape, dtype)

        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_name(dtype)}'")
    return dtype


def _random_size(name: str, size: tuple, kw: dict) -> tuple:
    """rand/randn's sizes from ``*size`` or ``size=``; PyTorch's argument-parser TypeError when
    there are none, both, or an unknown keyword (its wording for these two differs from
    zeros/ones/empty's, down to the trailing ", " it leaves after keyword-only arguments)."""
    given = kw.get("size", NO_SIZE)
    if (given is NO_SIZE) == (not size) or len(kw) > (given is not NO_SIZE):
        named = [f"{k}={type(v).__name__}" for k, v in sorted(kw.items())]
        got = ", ".join([type(v).__name__ for v in size] + named) + (
            ", " if named and not size else ""
        )
        sig = (
            "tuple of ints size, *, {}Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False"
        )
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            f" * ({sig.format('torch.Generator generator, ')})\n * ({sig.format('')})\n"
        )
    return size_keyword(name, size, given)


@creation_out
def rand(
    *size,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **kw,  # only size=: it cannot be a named parameter beside *size
) -> Tensor:
    size = _random_size("rand", size, kw)
    dtype = _float_dtype(dtype, "check_uniform_bounds", size)
    return _make(
        lambda g, s, d: g.uniform(s, d.np), size, dtype, device, requires_grad, None, "rand",
        generator,
    )  # fmt: skip


@creation_out
def randn(
    *size,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **kw,  # only size=: it cannot be a named parameter beside *size
) -> Tensor:
    size = _random_size("randn", size, kw)
    dtype = _float_dtype(dtype, "normal_kernel_cpu", size)
    return _make(
        lambda g, s, d: g.normal(s, d.np), size, dtype, device, requires_grad, None, "randn",
        generator,
    )  # fmt: skip


_RANDINT_OVERLOADS = (
    "".join(
        f"\n * ({args}tuple of ints size, *, {gen}Tensor out = None, torch.dtype dtype = None, torch.layout "
        "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
        for args in ("int high, ", "int low, int high, ")
        for gen in ("torch.Generator generator, ", "")
    )
    + "\n"
)


@creation_out
def randint(
    low=0,
    high=None,
    size=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
        integer("randint", "high", 1, high)
        int_list("randint", "size", 2, size, one=False)
    elif not (_is_int(low) and _is_int(high) and isinstance(size, (tuple, list, Size))):
        from ..._tensor_arguments import invalid_combination

        raise TypeError(invalid_combination("randint", (low, high, size), {}) + _RANDINT_OVERLOADS)
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    dtype = dtype or D.int64
    return _make(
        lambda g, s, d: g.randint(low, high, s, d.np), (tuple(size),), dtype, device,
        requires_grad, None, "rand", generator,
    )  # fmt: skip


def _random_like(
    input, dtype, device, requires_grad, memory_format, name, fill, floats=True
) -> Tensor:
    from .factories import empty_like

    dt = dtype or input._dtype
    if floats and dt.category < D.FLOAT:  # the in-place kernel's dispatch error
        from .._dispatch import scalar_name

        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_name(dt)}'")
    t = empty_like(input, dtype=dt, device=device, memory_format=memory_format)
    fill(t)
    return t.requires_grad_() if requires_grad else t


def rand_like(
    input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
    memory_format=None,
) -> Tensor:  # fmt: skip
    """empty_like (keeping a dense input's layout) filled in memory order, as in PyTorch."""
    dtype = D.dtype_argument("rand_like", dtype)
    return _random_like(input, dtype, device, requires_grad, memory_format,
                        "check_uniform_bounds", lambda t: uniform_(t, generator=generator))  # fmt: skip


def randn_like(
    input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
    memory_format=None,
) -> Tensor:  # fmt: skip
    dtype = D.dtype_argument("randn_like", dtype)
    return _random_like(input, dtype, device, requires_grad, memory_format,
                        "normal_kernel_cpu", lambda t: normal_(t, generator=generator))  # fmt: skip


def randint_like(
    input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
    requires_grad=False, memory_format=None,
) -> Tensor:  # fmt: skip
    """empty_like (keeping a dense input's layout) filled by random_(low, high) in memory
    order, as in PyTorch."""
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return _random_like(input, dtype, device, requires_grad, memory_format, "random_",
                        lambda t: random_(t, low, high, generator=generator), floats=False)  # fmt: skip


def randperm(
    n: int,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dtype = dtype or D.int64
    dev = as_device(device)
    return _finish(_gen(generator, dev).randperm(n, dtype.np), dtype, dev, requires_grad)


_NORMAL_OVERLOADS = (
    "\n * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)"
    "\n * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)"
    "\n * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)"
    "\n * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n"
)


def normal(
    mean,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    """``normal(mean, std)`` with tensor or float arguments, or ``normal(m, s, size)``."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        result = _normal_of_tensors(mean, std, generator)
        _record_normal(mean, std, result)
        return _written(result, out, "normal")
    if size is None:  # two numbers and no size: no overload of PyTorch's parser matches
        from ..._tensor_arguments import invalid_combination

        raise TypeError(invalid_combination("normal", (mean, std), {}) + _NORMAL_OVERLOADS)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    dtype = _float_dtype(dtype, "normal_kernel_cpu")
    return _make(
        lambda g, s, d: g.normal(s, d.np, float(mean), float(std)),
        (tuple(size),), dtype, device, requires_grad, out, "rand", generator,
    )  # fmt: skip


def _zero_grads(node, g):
    return tuple(None if n is None else g.new_zeros(g.shape) for n in node.next_functions)


# PyTorch's nodes for normal(Tensor, float), normal(float, Tensor) and normal(Tensor, Tensor):
# a sample is not differentiable in its parameters there, the gradients are zeros
_NormalNodes = {
    (True, False): node_class("NormalBackward1", _zero_grads),
    (False, True): node_class("NormalBackward2", _zero_grads),
    (True, True): node_class("NormalBackward3", _zero_grads),
}


def _record_normal(mean, std, result: Tensor) -> None:
    tensors = (isinstance(mean, Tensor), isinstance(std, Tensor))
    inputs = tuple(t for t in (mean, std) if isinstance(t, Tensor))
    if _gm.enabled and any(t._rg for t in inputs):
        record(_NormalNodes[tensors], inputs, result)


def _normal_of_tensors(mean, std, generator) -> Tensor:
    """normal(mean, std) with a tensor mean and/or std, drawn on their device (on CUDA a
    negative std is reported at the next synchronisation, as a device-side assert)."""
    from ...backend import check
    from .._dispatch import check_same_device

    ref = mean if isinstance(mean, Tensor) else std
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        check_same_device(mean, std)
        try:
            shape = np.broadcast_shapes(mean._data.shape, std._data.shape)
        except ValueError:
            from .._dispatch import broadcast_error

            raise broadcast_error([mean._data.shape, std._data.shape]) from None
    else:
        shape = ref._data.shape
    if isinstance(std, Tensor):
        check(
            (std._data < 0).any(), lambda: RuntimeError("normal expects all elements of std >= 0.0")
        )
    z = _gen(generator, ref._device).normal(shape, ref._dtype.np, 0.0, 1.0)
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    return _wrap((z * s + m).astype(ref._dtype.np), ref._dtype, ref._device)


def _written(result: Tensor, out, name: str) -> Tensor:
    """``result``, or ``out`` filled with it (PyTorch's out= checks)."""
    if out is None:
        return result
    from .._dispatch import write_out

    return write_out(out, result, name)


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    g = _gen(generator, input._device)
    probs = input._data if p is None else p
    # On CUDA the generator checks the probabilities on the device (reported at the next sync).
    if p is None and input._device.type != "cuda" and ((probs < 0) | (probs > 1)).any():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    drawn = g.bernoulli(probs, input._data.shape, input._dtype.np)
    return _written(_wrap(drawn, input._dtype, input._device), out, "bernoulli")


def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator=None, out=None
) -> Tensor:
    num_samples = as_int("multinomial", "num_samples", 2, num_samples)
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    # On CUDA the generator checks the probabilities on the device (reported at the next sync).
    if input._device.type != "cuda" and (input._data < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    g = _gen(generator, input._device)
    drawn = g.multinomial(input._data, num_samples, replacement).astype(np.int64)
    return _written(_wrap(drawn, D.int64, input._device), out, "multinomial")


@on_host  # sampled by the CPU generator from the data: CUDA data goes through the host
def poisson(input: Tensor, generator=None) -> Tensor:
    """PyTorch's numbers and stream position (``CPUGenerator.poisson``); the gradient is zero,
    through PyTorch's PoissonBackward0."""
    if input._dtype not in (D.float32, D.float64, D.float16, D.bfloat16):
        raise NotImplementedError(
            f"\"poisson_cpu\" not implemented for '{scalar_name(input._dtype)}'"
        )
    counts = _gen(generator).poisson(input._data)
    out = _wrap(counts.astype(input._dtype.np), input._dtype, input._device)
    if _gm.enabled and input._rg:
        record(_PoissonNode, (input,), out)
    return out


_PoissonNode = node_class("PoissonBackward0", lambda node, g: (g.new_zeros(g.shape),))


# ---- in-place samplers -------------------------------------------------------------------------------------
def _fill(self: Tensor, values) -> Tensor:
    check_inplace(self)
    from ...autograd.grad_mode import no_grad

    with no_grad():
        xp = np if self._device is cpu else None
        if xp is None:
            from ...backend import to_device

            values = to_device(values, self._device)
            self._data[...] = values
        else:
            np.copyto(self._data, values, casting="unsafe")
    self._vc[0] += 1
    return self


def _sampled(self: Tensor, sample) -> Tensor:
    """Fill ``self`` with ``sample(shape, contiguous)`` drawn in ``self``'s memory order, as PyTorch's
    CPU kernels do (a transposed tensor gets the numbers a contiguous one would, in memory order).
    A meta tensor has no data to fill, and nothing is drawn from the generator."""
    if self._device.type == "meta":
        self._vc[0] += 1
        return self
    a = self._data
    order = sorted(range(a.ndim), key=lambda i: -a.strides[i])  # outermost first; stable for ties
    contiguous = a.flags.c_contiguous
    if order == list(range(a.ndim)):
        return _fill(self, sample(a.shape, contiguous))
    values = sample(tuple(a.shape[i] for i in order), contiguous)
    return _fill(self, values.transpose(sorted(range(a.ndim), key=order.__getitem__)))


def _permuted_like(self: Tensor, p):
    """``p`` broadcast to ``self`` and laid out in ``self``'s memory order (C order of the result)."""
    from .._dispatch import xp_for

    a = self._data
    order = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    return xp_for(self).broadcast_to(p, a.shape).transpose(order)


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
        )
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.uniform(shape, self._dtype.np, a, b))


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.normal(shape, self._dtype.np, mean, std, contiguous=c))


_NO_TO = object()  # random_(to) leaves ``to`` out; random_(from, None) draws up to the dtype's max
_RANDOM_OVERLOADS = (
    "\n * (*, torch.Generator generator = None)"
    "\n      didn't match because some of the arguments have invalid types: (!NoneType!, !NoneType!)"
    "\n * (int from, int to, *, torch.Generator generator = None)"
    "\n * (int to, *, torch.Generator generator = None)\n"
)


def random_(self: Tensor, from_=None, to=_NO_TO, *, generator=None) -> Tensor:
    if to is _NO_TO:
        from_, to = (0, from_) if from_ is not None else (None, None)
    elif from_ is None and to is not None:  # random_(to=n): [0, n)
        from_ = 0
    elif from_ is None:  # (None, None) matches none of PyTorch's overloads
        from ..._tensor_arguments import invalid_combination

        raise TypeError(invalid_combination("random_", (from_, to), {}) + _RANDOM_OVERLOADS)
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.random(shape, self._dtype.np, from_, to))


def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    if isinstance(p, Tensor):  # drawn on self's device, from p's values there
        probs = _permuted_like(self, p.detach().to(self._device)._data)
    else:
        probs = p
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.bernoulli(probs, shape, self._dtype.np))


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.exponential(shape, self._dtype.np, lambd))


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.geometric(shape, self._dtype.np, p))


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.cauchy(shape, self._dtype.np, median, sigma))


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    g = _gen(generator, self._device)
    return _sampled(self, lambda shape, c: g.log_normal(shape, self._dtype.np, mean, std))


# ---- binomial ------------------------------------------------------------------------------------------------
@on_host  # sampled by the CPU generator from the data: CUDA data goes through the host
def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Draws from Binomial(count, prob), elementwise with broadcasting: PyTorch's numbers and
    stream position after the same seed (``CPUGenerator.binomial``). ``prob`` <= 0 or a count
    <= 0 gives 0 and ``prob`` >= 1 the count, as PyTorch's sampler."""

    if count._dtype.category != D.FLOAT:
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {scalar_name(count._dtype)}"
        )
    if prob._dtype is not count._dtype:
        raise RuntimeError(
            f"Found dtype {scalar_name(prob._dtype)} but expected {scalar_name(count._dtype)}"
        )
    if count._dtype not in (D.float32, D.float64):
        raise NotImplementedError(
            f"\"binomial_cpu\" not implemented for '{scalar_name(count._dtype)}'"
        )
    n, p = np.broadcast_arrays(np.asarray(count.cpu()._data), np.asarray(prob.cpu()._data))
    draws = _gen(generator).binomial(n, p)
    return _wrap(draws, count._dtype).to(count.device)
