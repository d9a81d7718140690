"""The torch namespace's functions given something other than a Tensor where their first
argument, a Tensor, belongs: PyTorch's parser TypeError (``exp(): argument 'input' (position 1)
must be Tensor, not NoneType``) instead of the AttributeError taimatsu's kernels meet on its
missing attributes.

``guard`` wraps those functions once, at import. The wrapper calls the function as it is and looks
at the arguments only when an AttributeError comes out of it, with a first argument that is not a
Tensor: a call that works costs one Python frame more and nothing else. Tensor methods are not
wrapped (their first argument is the tensor itself), nor are functions whose first parameter is
not a tensor (``torch.tensor(data)``, ``torch.zeros(*size)``).
"""

from __future__ import annotations

import functools

from ._numpy_keywords import translated
from ._tensor.core import Tensor

# First parameters that name a tensor in taimatsu's signatures (PyTorch calls them all 'input'
# in its messages, but for the ones its own schema names otherwise)
_TENSOR_PARAMETERS = {"input": "input", "self": "input", "A": "input", "x": "x", "y": "y",
                      "tensor": "tensor", "condition": "condition", "tensors": "tensors"}  # fmt: skip
# Functions of a sequence of tensors (``*tensors``, or one list): PyTorch's text for the first
# element that is not one
_SEQUENCE_FIRST = {"meshgrid", "broadcast_tensors", "block_diag", "cartesian_prod", "chain_matmul",
                   "atleast_1d", "atleast_2d", "atleast_3d"}  # fmt: skip
# Of those, the ones that read a single list argument as the sequence (the others report the list)
_UNPACKS_A_LIST = {"meshgrid", "atleast_1d", "atleast_2d", "atleast_3d"}
# Functions written as (*args, **kwargs) whose first argument is the input tensor
_INPUT_FIRST = {"hardshrink", "hash_tensor"}
# PyTorch's own Python functions, which meet the AttributeError too: left as they are
_PYTHON_LEVEL = {"norm", "pca_lowrank", "svd_lowrank"}
# PyTorch's parser has several overloads for these: its text is the "invalid combination" one
_OVERLOADED = {
    "addmv_", "all", "any", "atleast_1d", "atleast_2d", "atleast_3d", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "conv3d", "fill_", "randint_like", "std", "std_mean", "var", "var_mean",
    "xlogy_", "linalg_matrix_rank", "linalg_pinv",
}  # fmt: skip
# Submodule functions whose PyTorch schema calls the argument 'input' (taimatsu's signature: 'A')
_CALLED_INPUT = {
    "linalg_cholesky", "linalg_cholesky_ex", "linalg_cond", "linalg_eig", "linalg_eigh",
    "linalg_eigvals", "linalg_eigvalsh", "linalg_ldl_factor", "linalg_ldl_factor_ex",
    "linalg_matrix_exp", "linalg_matrix_norm", "linalg_norm", "linalg_tensorinv",
}  # fmt: skip
# Where PyTorch's message names another function or argument than taimatsu's signature
_SHOWN = {"unique": ("_unique2", "input"), "lu": ("_lu_with_info", "input"),
          "to_dlpack": ("_to_dlpack", "data"), "repeat_interleave": ("repeat_interleave", "repeats"),
          "logsigmoid": ("log_sigmoid", "input")}  # fmt: skip


def _first_parameter(fn) -> str | None:
    """The name of ``fn``'s first parameter ('*' for ``*args``), through ``functools.wraps``."""
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    if code.co_argcount:
        return code.co_varnames[0]
    return "*" if code.co_flags & 0x04 else None  # CO_VARARGS


def _message(name: str, first: str, args: tuple, kwargs: dict, prefix: str = "") -> str:
    listed = len(args) == 1 and isinstance(args[0], (list, tuple))
    if prefix:
        name = prefix + name
    if name in _OVERLOADED and not (first == "*" and listed):
        got = [type(a).__name__ for a in args] + [
            f"{k}={type(v).__name__}" for k, v in kwargs.items()
        ]
        return (
            f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), "
            "but expected one of:"
        )
    if first == "*" or name in _SEQUENCE_FIRST:
        unpacked = listed and name in _UNPACKS_A_LIST
        items = args[0] if unpacked else args
        bad = next((a for a in items if not isinstance(a, Tensor)), None)
        return f"expected Tensor as element 0 in argument 0, but got {type(bad).__name__}"
    value = args[0] if args else kwargs.get(first)
    if prefix:  # a submodule's function: PyTorch's schema keeps the argument's name
        shown, arg = name, "input" if name in _CALLED_INPUT else first
    else:
        shown, arg = _SHOWN.get(name, (name, _TENSOR_PARAMETERS[first]))
    return f"{shown}(): argument '{arg}' (position 1) must be Tensor, not {type(value).__name__}"


def _not_tensor_first(first: str, args: tuple, kwargs: dict) -> bool:
    if first == "*":
        items = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        return any(not isinstance(a, Tensor) for a in items)
    value = args[0] if args else kwargs.get(first)
    if isinstance(value, (list, tuple)) and first == "tensors":
        return any(not isinstance(a, Tensor) for a in value)
    return not isinstance(value, Tensor)


def _guarded(name: str, fn, first: str, prefix: str = ""):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AttributeError:
            if not _not_tensor_first(first, args, kwargs):
                raise
            raise TypeError(_message(name, first, args, kwargs, prefix)) from None
        except TypeError:  # NumPy's keyword names (axis=, keepdims=): PyTorch's aliases
            new = translated(kwargs) if kwargs else None
            if new is None:
                raise
        return run(*args, **new)

    run.__guarded__ = True
    return run


def guard(namespace: dict, prefix: str = "", names=None) -> None:
    """Wrap the public functions of ``namespace`` (a module's globals) whose first parameter is a
    tensor, and those of ``_SEQUENCE_FIRST`` (``names``: only these). ``prefix``: how PyTorch's
    messages name a submodule's functions (``linalg_inv``, ``special_erf``, ``fft_fft``)."""
    for name, fn in list(namespace.items()):
        if names is not None and name not in names:
            continue
        if name.startswith("_") or isinstance(fn, type) or not callable(fn):
            continue
        if not getattr(fn, "__module__", "").startswith("taimatsu"):
            continue
        if getattr(fn, "__guarded__", False):  # another namespace's name for it (torch.det)
            fn = fn.__wrapped__
        first = _first_parameter(fn)
        if not prefix and name in _PYTHON_LEVEL:
            continue
        if not prefix and name in _SEQUENCE_FIRST:
            first = "*"
        elif name in _INPUT_FIRST:
            first = "input"
        if first in _TENSOR_PARAMETERS or first == "*" and name in _SEQUENCE_FIRST:
            namespace[name] = _guarded(name, fn, first, prefix)
