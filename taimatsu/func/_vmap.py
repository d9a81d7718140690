"""``torch.vmap`` / ``torch.func.vmap`` by running the function once per sample.

PyTorch vectorises: ``func`` runs once on "batched tensors". Here ``vmap`` slices every mapped
input along its ``in_dim`` (``select``, a differentiable view), calls ``func`` on each sample and
stacks the per-sample outputs at their ``out_dim`` (``stack``, differentiable too, so
``vmap(grad(f))`` gives per-sample gradients and ``backward`` flows through). The results and
the errors for bad ``in_dims``/``out_dims``/batch sizes are PyTorch's; the speed is that of a
Python loop, not of a vectorised kernel.

Deviations, all consequences of running per sample:

- ``randomness="error"`` notices a random op by the default generator's state changing during a
  call (a sampler given its own ``generator=`` goes unnoticed); ``"same"`` replays the generator
  state for every sample; ``"different"`` draws sample after sample, which gives PyTorch's numbers
  when the per-sample draws add up to its batched draw (uniform draws, small normal draws) and
  other numbers from the same distribution otherwise.
- ``.item()`` and data-dependent Python control flow work inside ``func`` (PyTorch refuses them).
- An output with ``out_dims=None`` is accepted when it is equal for every sample (PyTorch checks
  whether it depends on a mapped input instead).
- With a batch of size 0, ``func`` runs once on a zero-filled sample to learn the output shapes.
- A result's ``grad_fn`` is ``StackBackward0`` (PyTorch's depends on the batching rules).
- ``chunk_size`` is validated and otherwise has nothing to change.
- Batch norm in training with running statistics that are not mapped inputs raises PyTorch's
  error (it would update them once per sample) whether or not its input depends on a mapped one.
"""

from __future__ import annotations

import functools

import numpy as np

from .._tensor.core import Tensor
from ..utils._pytree import _broadcast_to_and_flatten as broadcast_to_and_flatten
from ..utils._pytree import tree_flatten, tree_unflatten

_RANDOMNESS = ("error", "different", "same")
RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
    "'different' randomness flags on vmap or perform the randomness operation out of vmap"
)


# The running vmaps' per-sample inputs (ids of the slices handed to ``func``), innermost last:
# what PyTorch would see as batched tensors, for the ops that refuse unbatched state
SAMPLES: list = []


def unbatched(*tensors) -> bool:
    """Inside vmap, whether one of ``tensors`` is not a mapped input's sample (PyTorch: not a
    batched tensor)."""
    return any(t is not None and not any(id(t) in level for level in SAMPLES) for t in tensors)


def check_randomness(randomness) -> None:
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}"
        )


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """Map ``func`` over dimension ``in_dims`` of its inputs; see the module docstring."""
    check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args, **kwargs):
        flat_args, arg_spec, flat_dims, batch = _process_inputs(func, in_dims, args)
        samples = range(batch) if batch else [None]
        outputs = []
        state = _rng_state() if randomness != "different" else None
        for i in samples:
            if randomness == "same":
                _set_rng_state(state)
            sample = [_slice(x, d, i) for x, d in zip(flat_args, flat_dims)]
            SAMPLES.append({id(x) for x, d in zip(sample, flat_dims) if d is not None})
            try:
                outputs.append(func(*tree_unflatten(sample, arg_spec), **kwargs))
            finally:
                SAMPLES.pop()
            if randomness == "error" and not np.array_equal(state, _rng_state()):
                raise RuntimeError(RANDOM_ERROR)
        return _stack_outputs(func, out_dims, outputs, batch)

    return wrapped


def _slice(x, dim, i):
    if dim is None:
        return x
    if i is None:  # an empty batch: a zero sample stands in to learn the output structure
        shape = list(x.shape)
        del shape[dim]
        return x.new_zeros(shape)
    return x.select(dim, i)


def _process_inputs(func, in_dims, args: tuple):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(  # noqa: TRY004 (PyTorch's type)
            f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): expected `in_dims` to be int or a (potentially "
            f"nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap over "
            "a function with no inputs. The latter is unsupported."
        )
    flat_args, arg_spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, arg_spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {tree_flatten(in_dims)[1]!r} but inputs has structure {arg_spec!r}."
        )
    normal, sizes = [], []
    for x, d in zip(flat_args, flat_dims):
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for an input but in_dim must be "
                "either an integer dimension or None."
            )
        if d is not None and not isinstance(x, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for an input but the input is of "
                f"type {type(x)}. We cannot vmap over non-Tensor arguments, please use None as the respective in_dim"
            )
        if d is not None:
            n = x.dim()
            if not -n <= d < n:
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for some input, but that input "
                    f"is a Tensor of dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}."
                )
            d %= n
            sizes.append(x.shape[d])
        normal.append(d)
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for the "
            "mapped dimension"
        )
    return flat_args, arg_spec, normal, sizes[0]


def _stack_outputs(func, out_dims, outputs: list, batch: int):
    from ..ops.shape.copies import stack

    name = _name(func)
    flat0, spec = tree_flatten(outputs[0])
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))):
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python collection of ints "
            "representing where in the outputs the vmapped dimension should appear."
        )
    single = spec.type is None and isinstance(out_dims, tuple) and len(out_dims) == 1
    dims = broadcast_to_and_flatten(
        out_dims[0] if single else out_dims, spec
    )  # (0,) serves one tensor
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims!r})(<inputs>): out_dims is not compatible with the structure of "
            f"`outputs`. out_dims has structure {tree_flatten(out_dims)[1]!r} but outputs has structure {spec!r}."
        )
    per_sample = [tree_flatten(o)[0] for o in outputs]
    result = []
    for k, (first, d) in enumerate(zip(flat0, dims)):
        column = [p[k] for p in per_sample]
        if d is None:
            result.append(_unbatched(name, first, column))
            continue
        if not isinstance(first, Tensor):
            raise ValueError(  # noqa: TRY004 (PyTorch's type)
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. Did you mean to set "
                "out_dims= to None for output?"
            )
        if batch == 0:
            if not -(first.dim() + 1) <= d <= first.dim():
                stack([first], dim=d)  # raises PyTorch's dimension-out-of-range error
            shape = list(first.shape)
            shape.insert(d % (first.dim() + 1), 0)
            result.append(first.new_empty(shape))
        else:
            result.append(stack(column, dim=d))
    return tree_unflatten(result, spec)


def _unbatched(name: str, first, column: list):
    if not isinstance(first, Tensor):
        return first
    for t in column[1:]:
        if t is not first and not (t.shape == first.shape and bool((t == first).all())):
            raise ValueError(
                f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None"
            )
    return first


# ---- the default generator's state, to notice and to replay random draws -------------------------


def _rng_state():
    """The default CPU generator's state bytes (a NumPy array: no tensor is made per sample)."""
    from ..ops.creation.random import default_generator

    return default_generator._impl.get_state()


def _set_rng_state(state) -> None:
    from ..ops.creation.random import default_generator

    default_generator._impl.set_state(state)
