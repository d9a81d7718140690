"""The torch namespace's functions given something other than a Tensor where their first
argument, a Tensor, belongs: PyTorch's parser TypeError (``exp(): argument 'input' (position 1)
must be Tensor, not NoneType``) instead of the AttributeError taimatsu's kernels meet on its
missing attributes.

``guard`` wraps those functions once, at import. The wrapper calls the function as it is and looks
at the arguments only when an AttributeError comes out of it, with a first argument that is not a
Tensor: a call that works costs one Python frame more and nothing else. Tensor methods are not
wrapped (their first argument is the tensor itself), nor are functions whose first parameter is
not a tensor (``torch.tensor(data)``, ``torch.zeros(*size)``).

The second argument too, for the functions of ``_SECOND_TENSOR`` and ``_SECOND_COMBINATION``
(``add(x, ndarray)``, ``mm(x, None)``, ``logaddexp(x, 2.0)``): when the call fails with an
AttributeError or TypeError and that argument is not a Tensor (nor a number, where the function
takes one), PyTorch's parser text replaces taimatsu's. ``guard_methods`` does the same for the
Tensor methods of those names, whose tensor argument is the first after ``self``.
"""

from __future__ import annotations

import functools

import numpy as np

from ._numpy_keywords import translated
from ._tensor.core import Tensor

# First parameters that name a tensor in taimatsu's signatures (PyTorch calls them all 'input'
# in its messages, but for the ones its own schema names otherwise)
_TENSOR_PARAMETERS = {"input": "input", "self": "input", "A": "input", "x": "x", "y": "y",
                      "tensor": "tensor", "condition": "condition", "tensors": "tensors",
                      "abs": "abs", "real": "real", "x1": "x1",
                      "sorted_sequence": "sorted_sequence"}  # fmt: skip
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


# Functions and methods whose second parameter is a Tensor in PyTorch's schema, by the name
# PyTorch's message gives it, and whether a number is refused there too (read off PyTorch 2.13:
# ``f(x, ndarray)`` and ``f(x, 2.0)``); in-place methods included.
_SECOND_TENSOR = {
    **dict.fromkeys(("add", "add_", "copy_", "div", "div_", "mul", "mul_", "sub", "sub_"), ("other", False)),
    **dict.fromkeys((
        "allclose", "arctan2", "arctan2_", "atan2", "atan2_", "cross", "dist", "equal", "expand_as",
        "fmax", "fmin", "gcd", "gcd_", "hypot", "hypot_", "igamma", "igamma_", "igammac", "igammac_",
        "inner", "is_same_size", "isclose", "kron", "lcm", "lcm_", "ldexp", "ldexp_", "logaddexp",
        "logaddexp2", "logical_and", "logical_and_", "logical_or", "logical_or_", "logical_xor",
        "logical_xor_", "matmul", "maximum", "minimum", "nextafter", "nextafter_", "reshape_as",
        "type_as", "vdot", "view_as",
    ), ("other", True)),
    **dict.fromkeys(("as_strided_scatter", "diagonal_scatter", "select_scatter", "slice_scatter"), ("src", True)),
    **dict.fromkeys(("bmm", "mm", "smm"), ("mat2", True)),
    **dict.fromkeys(("cholesky_solve", "orgqr", "ormqr"), ("input2", True)),
    **dict.fromkeys(("ger", "outer"), ("vec2", True)),
    **dict.fromkeys(("heaviside", "heaviside_"), ("values", True)),
    **dict.fromkeys(("masked_scatter", "masked_scatter_", "masked_select"), ("mask", True)),
    **dict.fromkeys(("put", "put_", "take"), ("index", True)),
    "bincount": ("weights", True), "dot": ("tensor", True), "mv": ("vec", True),
    "take_along_dim": ("indices", True), "prelu": ("weight", True), "polar": ("angle", True),
    "complex": ("imag", True), "cosine_similarity": ("x2", True), "pairwise_distance": ("x2", True),
}  # fmt: skip
# Functions and methods whose third parameter (after an int dim) is a Tensor in PyTorch's
# schema, by the name PyTorch's message gives it (numbers refused too)
_THIRD_TENSOR = dict.fromkeys(
    ("gather", "index_add", "index_add_", "index_copy", "index_copy_", "index_select"), "index"
)
# Binary ops with a Tensor and a Scalar overload: a second argument that is neither gets the
# "invalid combination" text (and so do their in-place forms)
_SECOND_COMBINATION = {
    "bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "copysign", "divide", "eq", "float_power", "floor_divide", "fmod", "ge", "greater",
    "greater_equal", "gt", "le", "lerp", "less", "less_equal", "lt", "masked_fill", "multiply", "ne",
    "not_equal", "pow", "remainder", "rsub", "subtract", "true_divide", "where", "xlogy",
    "bucketize", "searchsorted",
}  # fmt: skip
_SECOND_COMBINATION |= {
    n + "_" for n in _SECOND_COMBINATION if n not in ("where", "rsub", "bucketize", "searchsorted")
}
NUMBERS = (int, float, complex, np.number, np.bool_)


def type_name(value) -> str:
    """A value's type as PyTorch's messages print it (CPython's ``tp_name``): the bare name for
    builtins and classes defined in Python, module and name for extension types
    (``numpy.ndarray``)."""
    t = type(value)
    own = t.__dict__.get("_tp_name")  # taimatsu's stand-ins for PyTorch's C types: torch.Size
    if own is not None:
        return own
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _shown_type(value) -> str:
    return "Tensor" if isinstance(value, Tensor) else type_name(value)


def invalid_combination(name: str, positional, kwargs: dict) -> str:
    """PyTorch's "invalid combination" text; ``positional``: the arguments after ``self`` for a
    method. (With keyword arguments only, PyTorch's list ends in ", ".)"""
    got = [_shown_type(a) for a in positional]
    named = [f"{k}={_shown_type(v)}" for k, v in kwargs.items()]
    inner = ", ".join(got + named) if got else "".join(f"{n}, " for n in named)
    return f"{name}() received an invalid combination of arguments - got ({inner}), but expected one of:"


# Combinations whose third parameter is a tensor or a number too (``where(c, x, y)``)
_THIRD_CHECKED = {"where", "lerp", "lerp_", "masked_fill", "masked_fill_"}


def _second_argument_message(name: str, params, args, kwargs, method: bool, error=None):
    """PyTorch's parser text when ``name``'s second argument (``args[1]``, or by keyword the
    parameter ``params[0]``) is not a Tensor (nor a number where one is taken), else None;
    for ``_THIRD_CHECKED`` the third (``params[1]``) too. ``method``: the call was
    ``self.name(...)``, whose positions PyTorch counts after ``self``. ``error``: the call's
    exception; for a combination, Python's refusal of missing arguments is the parser's too."""
    third = _THIRD_TENSOR.get(name)
    if third is not None:
        return _third_argument_message(name, third, params, args, kwargs, method)
    entry = _SECOND_TENSOR.get(name)
    if entry is None and name not in _SECOND_COMBINATION:
        return None
    checked = 3 if name in _THIRD_CHECKED else 2
    values = []  # (value, given by position)
    for i in range(1, checked):
        param = params[i - 1] if i - 1 < len(params) else None
        if len(args) > i:
            values.append((args[i], True))
        elif param is not None and param in kwargs:
            values.append((kwargs[param], False))
    if entry is None:  # a Scalar overload takes numbers
        if all(isinstance(v, (Tensor, *NUMBERS)) for v, _ in values) and not (
            error is not None and "required positional argument" in str(error)
        ):
            return None
        return invalid_combination(name, args[1:] if method else args, kwargs)
    if not values or isinstance(values[0][0], Tensor):
        return None
    value, positional = values[0]
    arg, tensor_only = entry
    if not tensor_only and isinstance(value, NUMBERS):
        return None
    where = f" (position {1 if method else 2})" if positional else ""
    return f"{name}(): argument '{arg}'{where} must be Tensor, not {type_name(value)}"


def _third_argument_message(name: str, arg: str, params, args, kwargs, method: bool):
    """PyTorch's parser text when ``name``'s third argument (``args[2]``, or by keyword the
    parameter ``params[1]``) is not a Tensor, else None."""
    if len(args) > 2:
        value, where = args[2], f" (position {2 if method else 3})"
    elif len(params) > 1 and params[1] in kwargs:
        value, where = kwargs[params[1]], ""
    else:
        return None
    if isinstance(value, Tensor):
        return None
    return f"{name}(): argument '{arg}'{where} must be Tensor, not {type_name(value)}"


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
        return invalid_combination(name, args, kwargs)
    if first == "*" or name in _SEQUENCE_FIRST:
        unpacked = listed and name in _UNPACKS_A_LIST
        items = args[0] if unpacked else args
        i, bad = next(((i, a) for i, a in enumerate(items) if not isinstance(a, Tensor)), (0, None))
        return f"expected Tensor as element {i} in argument 0, but got {type_name(bad)}"
    value = args[0] if args else kwargs.get(first)
    if prefix:  # a submodule's function: PyTorch's schema keeps the argument's name
        shown, arg = name, "input" if name in _CALLED_INPUT else first
    else:
        shown, arg = _SHOWN.get(name, (name, _TENSOR_PARAMETERS[first]))
    return f"{shown}(): argument '{arg}' (position 1) must be Tensor, not {type_name(value)}"


def _not_tensor_first(first: str, args: tuple, kwargs: dict) -> bool:
    if first == "*":
        items = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        return any(not isinstance(a, Tensor) for a in items)
    value = args[0] if args else kwargs.get(first)
    if isinstance(value, (list, tuple)) and first == "tensors":
        return any(not isinstance(a, Tensor) for a in value)
    return not isinstance(value, Tensor)


def _later_parameters(fn) -> tuple:
    """The names of ``fn``'s second and third parameters (as many as it has), through
    ``functools.wraps``."""
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    return () if code is None else code.co_varnames[1 : min(3, code.co_argcount)]


def _guarded(name: str, fn, first: str, prefix: str = ""):
    later = () if prefix else _later_parameters(fn)
    binary = name in _SECOND_TENSOR or name in _SECOND_COMBINATION

    def second_argument_message(args, kwargs, error):
        if _not_tensor_first(first, args, kwargs):
            # a binary op's number first (``add(2, x)``) is taken as a scalar tensor
            value = args[0] if args else kwargs.get(first)
            if binary and not isinstance(value, NUMBERS) and (len(args) + len(kwargs) > 1):
                if name in _SECOND_COMBINATION:
                    return invalid_combination(name, args, kwargs)
                return _message(name, first, args, kwargs, prefix)
            return None
        return _second_argument_message(name, later, args, kwargs, False, error)

    third = _THIRD_TENSOR.get(name)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if third is not None and (kwargs or len(args) > 2 and not isinstance(args[2], Tensor)):
            # checked first: the kernels' own index checks would speak first
            message = _third_argument_message(name, third, later, args, kwargs, False)
            if message:
                raise TypeError(message)
        try:
            return fn(*args, **kwargs)
        except AttributeError:
            if _not_tensor_first(first, args, kwargs):
                raise TypeError(_message(name, first, args, kwargs, prefix)) from None
            message = second_argument_message(args, kwargs, None)
            if message:
                raise TypeError(message) from None
            raise
        except TypeError as e:  # NumPy's keyword names (axis=, keepdims=): PyTorch's aliases
            new = translated(kwargs, e) if kwargs else None
            if new is None:
                message = second_argument_message(args, kwargs, e)
                if message:
                    raise TypeError(message) from None
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


def _guarded_method(name: str, fn):
    later = _later_parameters(fn)
    third = _THIRD_TENSOR.get(name)

    @functools.wraps(fn)
    def method(*args, **kwargs):
        if third is not None and (kwargs or len(args) > 2 and not isinstance(args[2], Tensor)):
            # checked first: the kernels' own index checks would speak first
            message = _third_argument_message(name, third, later, args, kwargs, True)
            if message:
                raise TypeError(message)
        try:
            return fn(*args, **kwargs)
        except (AttributeError, TypeError) as e:
            new = translated(kwargs, e) if kwargs and isinstance(e, TypeError) else None
            if new is None:
                message = _second_argument_message(name, later, args, kwargs, True, e)
                if message:
                    raise TypeError(message) from None
                raise
        return method(*args, **new)

    method.__guarded__ = True
    return method


def guard_methods(cls) -> None:
    """Wrap the methods of ``cls`` named in ``_SECOND_TENSOR`` and ``_SECOND_COMBINATION``: a
    failed call whose argument after ``self`` is not a Tensor (nor a number, where one is taken)
    gets PyTorch's parser text. A call that works costs one Python frame more."""
    for name in sorted(_SECOND_TENSOR.keys() | _SECOND_COMBINATION | _THIRD_TENSOR.keys()):
        fn = getattr(cls, name, None)
        if callable(fn) and not getattr(fn, "__guarded__", False):
            setattr(cls, name, _guarded_method(name, fn))


def tensor_method_names(cls) -> None:
    """Python names a function by its ``__qualname__`` in its argument errors, which showed
    taimatsu's mixin classes ("TensorMethods.add() missing 1 required positional argument");
    pickle finds a function by ``__module__`` and ``__qualname__``. ``cls``'s methods (and the
    functions under their wrappers) become ``taimatsu.Tensor.<name>``: "Tensor.add() missing
    ...", as PyTorch's Python-level Tensor methods say, and ``pickle.dumps(Tensor.sum)`` works."""
    for fn in vars(cls).values():
        while callable(fn) and hasattr(fn, "__code__"):
            fn.__qualname__, fn.__module__ = f"Tensor.{fn.__name__}", "taimatsu"
            fn = getattr(fn, "__wrapped__", None)
