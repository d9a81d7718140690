"""Which taimatsu functions a symbolic trace records, the name PyTorch prints for each
(``torch.relu``, ``torch.nn.functional.relu``, ``torch._C._nn.linear``...) and how its arguments
are recorded.

PyTorch records a call through ``__torch_function__``. Its C builtins (``torch.add``,
``torch.conv2d``, ``F.linear``) record the arguments as the caller passed them; its Python
functionals (``F.relu``, ``F.softmax``, ``torch.functional.split``) hand over their required
parameters positionally and every optional one by keyword, defaults included:
``F.relu(x)`` is recorded as ``torch.nn.functional.relu(x, inplace = False)``. The tables below are
those facts about PyTorch 2.x; a function missing from them is recorded as called.
"""

from __future__ import annotations

import inspect

__all__ = [
    "TENSOR_FUNCTION_METHODS",
    "Alias",
    "display_name",
    "keyword_layout",
    "side_effectful",
    "traced_namespaces",
]

# torch.nn.functional names that are C builtins in PyTorch: recorded as called, under this name
_F_BUILTINS = {
    "adaptive_avg_pool1d": "torch.adaptive_avg_pool1d",
    "avg_pool1d": "torch.avg_pool1d",
    "avg_pool2d": "torch._C._nn.avg_pool2d",
    "avg_pool3d": "torch._C._nn.avg_pool3d",
    "bilinear": "torch.bilinear",
    "celu_": "torch.celu_",
    "channel_shuffle": "torch.channel_shuffle",
    "conv1d": "torch.conv1d",
    "conv2d": "torch.conv2d",
    "conv3d": "torch.conv3d",
    "conv_tbc": "torch.conv_tbc",
    "conv_transpose1d": "torch.conv_transpose1d",
    "conv_transpose2d": "torch.conv_transpose2d",
    "conv_transpose3d": "torch.conv_transpose3d",
    "cosine_similarity": "torch.cosine_similarity",
    "elu_": "torch._C._nn.elu_",
    "gelu": "torch._C._nn.gelu",
    "hardshrink": "torch.hardshrink",
    "hardtanh_": "torch._C._nn.hardtanh_",
    "leaky_relu_": "torch._C._nn.leaky_relu_",
    "linear": "torch._C._nn.linear",
    "logsigmoid": "torch._C._nn.log_sigmoid",
    "native_channel_shuffle": "torch.native_channel_shuffle",
    "one_hot": "torch._C._nn.one_hot",
    "pairwise_distance": "torch.pairwise_distance",
    "pdist": "torch.pdist",
    "pixel_shuffle": "torch.pixel_shuffle",
    "pixel_unshuffle": "torch.pixel_unshuffle",
    "prelu": "torch.prelu",
    "relu_": "torch.relu_",
    "rrelu_": "torch.rrelu_",
    "scaled_dot_product_attention": "torch._C._nn.scaled_dot_product_attention",
    "selu_": "torch.selu_",
    "softplus": "torch._C._nn.softplus",
    "softshrink": "torch._C._nn.softshrink",
    "threshold_": "torch.threshold_",
}
# deprecated functionals that call the Tensor method: recorded as call_method
F_METHODS = frozenset(("sigmoid", "tanh"))
# functions taimatsu's torch.* and F share that are Python functionals in PyTorch's F
_F_SHARED_PYTHON = frozenset(("group_norm", "layer_norm", "rms_norm"))
# PyTorch's Python functional records under another name
_F_RENAMED = {"threshold": "torch.nn.functional._threshold"}

# torch.* functions written in Python (torch/functional.py): keyword layout, under this module
_TORCH_FUNCTIONAL = frozenset(
    [
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "block_diag",
        "broadcast_tensors",
        "cartesian_prod",
        "cdist",
        "chain_matmul",
        "einsum",
        "lu",
        "meshgrid",
        "norm",
        "split",
        "tensordot",
        "unique",
        "unique_consecutive",
        "unravel_index",
    ]
)
_TORCH_RENAMED = {"segment_reduce": "torch._segment_reduce"}
# torch.* names that are not ops: a Proxy passes through them unrecorded, as in PyTorch
_TORCH_NOT_OPS = frozenset(
    [
        "is_tensor",
        "is_storage",
        "typename",
        "compile",
        "vmap",
        "save",
        "load",
        "from_dlpack",
        "to_dlpack",
        "cond",
        "while_loop",
        "broadcast_shapes",
        "sym_float",
        "sym_int",
        "sym_ite",
        "sym_max",
        "sym_min",
        "sym_not",
        "sym_sqrt",
        "sym_sum",
        "is_grad_enabled",
        "is_inference_mode_enabled",
        "is_anomaly_enabled",
        "is_anomaly_check_nan_enabled",
        "get_default_dtype",
        "set_default_dtype",
        "manual_seed",
        "seed",
        "initial_seed",
        "get_rng_state",
        "set_rng_state",
    ]
)

# Tensor methods that are not in PyTorch's overridable Tensor methods: a real tensor's method
# given a Proxy is recorded as call_function torch.Tensor.<name>, not call_method
TENSOR_FUNCTION_METHODS = frozenset(
    [
        "new",
        "new_empty",
        "new_full",
        "new_ones",
        "new_tensor",
        "new_zeros",
        "stride",
        "to_sparse_bsc",
        "to_sparse_bsr",
        "to_sparse_coo",
        "to_sparse_csc",
        "to_sparse_csr",
        "unflatten",
    ]
)

_names: dict[int, tuple[object, str]] | None = None
_layouts: dict[int, str] = {}  # id(fn) -> "keywords" (Python functional) or "method"
_namespaces: list | None = None


def _is_function(obj) -> bool:
    return callable(obj) and not isinstance(obj, type) and not inspect.ismodule(obj)


def _build() -> None:
    global _names, _namespaces
    import taimatsu
    import taimatsu.nn.functional as F

    names: dict[int, tuple[object, str]] = {}
    spaces = []  # (module, name, display name, layout) for every function a trace intercepts
    for sub, prefix in (("linalg", "linalg"), ("special", "special"), ("fft", "fft")):
        module = getattr(taimatsu, sub)
        for n in getattr(module, "__all__", None) or dir(module):
            fn = getattr(module, n, None)
            if n.startswith("_") or not _is_function(fn):
                continue
            display = f"torch._C._{prefix}.{prefix}_{n}"
            names.setdefault(id(fn), (fn, display))
            spaces.append((module, n, display, "as_called"))
    for n in dir(taimatsu):
        fn = getattr(taimatsu, n)
        if (n.startswith("_") and n not in ("_assert", "_assert_async")) or not _is_function(fn):
            continue
        if n in _TORCH_NOT_OPS:
            continue
        if n in _TORCH_FUNCTIONAL:
            display = f"torch.functional.{n}"
            _layouts[id(fn)] = "keywords" if n != "einsum" else "as_called"
        else:
            display = _TORCH_RENAMED.get(n, f"torch.{n}")
        # an alias (concat, concatenate) prints under the function's own name (cat)
        if (
            id(fn) not in names
            or getattr(fn, "__name__", None) == n
            or names[id(fn)][1].startswith("torch._C")
        ):
            names[id(fn)] = (fn, display)
        spaces.append((taimatsu, n, display, _layouts.get(id(fn), "as_called")))
    # torch.functional.split and the rest: the names generated code calls them by (the same
    # functions as torch.*), intercepted there too so that a GraphModule traces again
    import taimatsu.functional as tfunctional

    for n in sorted(_TORCH_FUNCTIONAL):
        if _is_function(getattr(tfunctional, n, None)):
            spaces.append((tfunctional, n, f"torch.functional.{n}", _layouts.get(id(getattr(tfunctional, n)), "as_called")))  # fmt: skip
    for n in dir(F):
        fn = getattr(F, n)
        if n.startswith("_") or not _is_function(fn):
            continue
        if n in _F_BUILTINS:
            display = _F_BUILTINS[n]
        elif n in F_METHODS:
            display = f"torch.nn.functional.{n}"
            _layouts[id(fn)] = "method"
        else:
            display = _F_RENAMED.get(n, f"torch.nn.functional.{n}")
            _layouts[id(fn)] = "keywords"
        # a function taimatsu shares between torch.* and F keeps its torch.* name, but for the
        # norms PyTorch's F writes in Python (F.layer_norm is the one models call)
        if id(fn) not in names or n in _F_SHARED_PYTHON:
            names[id(fn)] = (fn, display)
        layout = "as_called" if n in _F_BUILTINS else "method" if n in F_METHODS else "keywords"
        spaces.append((F, n, display, layout))
    for n in TENSOR_FUNCTION_METHODS:
        fn = getattr(taimatsu.Tensor, n, None)
        if fn is not None:
            names.setdefault(id(fn), (fn, f"torch.Tensor.{n}"))
    # one taimatsu function under several PyTorch names (torch.concat is torch.cat here): a call
    # through the other name records an alias of the function that prints under that name
    with_targets = []
    for module, n, display, layout in spaces:
        fn = getattr(module, n)
        target = fn
        if names[id(fn)][1] != display:
            target = _aliases.get(display)
            if target is None:
                target = _aliases[display] = Alias(fn, display)
                names[id(target)] = (target, display)
        with_targets.append((module, n, display, layout, target))
    _names, _namespaces = names, with_targets


class Alias:
    """``torch.concat`` when taimatsu's ``concat`` is its ``cat``: calls the function, compares
    equal to it, prints under its own PyTorch name."""

    def __init__(self, fn, display: str):
        self.__wrapped__ = fn
        self.display = display
        self.__name__ = self.__qualname__ = display.rsplit(".", 1)[-1]
        self.__module__ = getattr(fn, "__module__", None)
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def __eq__(self, other) -> bool:
        return other is self or other is self.__wrapped__

    def __hash__(self) -> int:
        return hash(self.__wrapped__)

    def __repr__(self) -> str:
        return f"<function {self.display}>"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_alias_named, (self.display,))


_aliases: dict[str, Alias] = {}


def _alias_named(display: str) -> Alias:
    if _names is None:
        _build()
    return _aliases[display]


def display_name(fn) -> str | None:
    """PyTorch's printed name for a taimatsu function, or None for any other callable."""
    if _names is None:
        _build()
    hit = _names.get(id(fn))
    return hit[1] if hit is not None and hit[0] is fn else None


def traced_namespaces() -> list:
    """``(module, attribute, display name, layout, target)`` for every function a trace
    intercepts: the layout is how a call through that attribute is recorded (``as_called``;
    ``keywords``: required parameters positional, the rest by keyword with defaults filled in;
    ``method``: as the Tensor method), the target what the node calls (the function, or an
    :class:`Alias` of it)."""
    if _namespaces is None:
        _build()
    return _namespaces


def keyword_layout(fn, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """A Python functional's arguments as PyTorch's ``handle_torch_function`` passes them."""
    try:
        sig = inspect.signature(fn)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs  # the call itself is wrong: record it as written
    bound.apply_defaults()
    positional, keywords = [], {}
    for name, param in sig.parameters.items():
        if param.kind is param.VAR_POSITIONAL:
            positional.extend(bound.arguments.get(name, ()))
        elif param.kind is param.VAR_KEYWORD:
            keywords.update(bound.arguments.get(name, {}))
        elif param.default is param.empty and param.kind is not param.KEYWORD_ONLY:
            positional.append(bound.arguments[name])
        else:
            keywords[name] = bound.arguments[name]
    return tuple(positional), keywords


def side_effectful(fn) -> bool:
    """``torch._assert`` and friends: kept by eliminate_dead_code."""
    import taimatsu

    from . import _symbolic_trace

    return (
        fn is taimatsu._assert
        or fn is taimatsu._assert_async
        or fn is _symbolic_trace._assert_is_none
    )
