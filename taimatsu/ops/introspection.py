"""Small top-level functions: isin, unravel_index, the tensor predicates PyTorch exposes as
functions (is_same_size, is_signed, is_conj, ...), typename, fill, nonzero_static,
empty_permuted, get_device, index_reduce, the ``sym_*`` helpers on plain numbers and the eager
forms of ``cond``/``while_loop``.

taimatsu's conj() and neg() materialise their result, so no tensor ever carries the lazy
conjugate or negative bit: ``is_conj``/``is_neg`` are always False and ``resolve_conj``/
``resolve_neg`` return their input (PyTorch returns ``input`` too when the bit is unset).
"""

from __future__ import annotations

from .._tensor.core import Tensor


def _need_tensor(name: str, x, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


# ---- predicates --------------------------------------------------------------------------------------------
def is_same_size(input: Tensor, other: Tensor) -> bool:
    _need_tensor("is_same_size", input)
    _need_tensor("is_same_size", other, "other", 2)
    return tuple(input._data.shape) == tuple(other._data.shape)


def is_signed(input: Tensor) -> bool:
    _need_tensor("is_signed", input)
    return input.is_signed()


def is_inference(input: Tensor) -> bool:
    _need_tensor("is_inference", input)
    return input.is_inference()


def is_conj(input: Tensor) -> bool:
    _need_tensor("is_conj", input)
    return input.is_conj()


def is_neg(input: Tensor) -> bool:
    _need_tensor("is_neg", input)
    return input.is_neg()


def resolve_conj(input: Tensor) -> Tensor:
    _need_tensor("resolve_conj", input)
    return input.resolve_conj()


def resolve_neg(input: Tensor) -> Tensor:
    _need_tensor("resolve_neg", input)
    return input.resolve_neg()


def typename(obj, /) -> str:
    """PyTorch's fully qualified type name; taimatsu's own classes are named under ``torch``."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "taimatsu" or module.startswith("taimatsu."):
        module = "torch" + module[len("taimatsu") :]
    return f"{module}.{qualname}"


def get_device(input: Tensor) -> int:
    _need_tensor("get_device", input)
    return input.get_device()


# ---- symbolic-shape helpers: on plain Python numbers they are the plain operations ----------------------------
newaxis = None
