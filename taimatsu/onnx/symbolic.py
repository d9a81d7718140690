"""ONNX translations of the traced ops (PyTorch calls these "symbolic functions").

Each translation reads the op's arguments by name (``a["input"]``), adds nodes to the graph
builder ``g`` and binds the op's result ``out`` to the value it computed. Shapes are those of
the example inputs: reshapes write the traced result's shape as a constant, as PyTorch's
exporter does without dynamic shapes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._tensor.core import Tensor
from .builder import GraphBuilder, onnx_dtype
from .errors import UnsupportedOperatorError

TRANSLATIONS: dict[str, Callable] = {}
MULTI_RESULT = frozenset(
    {"multi_head_attention_forward", "split", "chunk", "tensor_split", "unbind", "split_with_sizes"}
    | {"lstm", "gru", "rnn_tanh", "rnn_relu"}
)  # ops whose tuple result is translated


def translates(*names: str):
    def register(fn):
        for n in names:
            TRANSLATIONS[n] = fn
        return fn

    return register


def _tuple(v, n: int) -> list[int]:
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


def _dim(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def _refuse(name: str, g: GraphBuilder, why: str):
    raise UnsupportedOperatorError(name, g.opset, why)


def _spatial(name: str, g: GraphBuilder, x: Tensor) -> int:
    """The number of spatial dims of a pooling op (its name ends in 1d/2d/3d); ONNX wants a batch."""
    k = int(name[-2])
    if x.dim() != k + 2:
        _refuse(name, g, "An unbatched input is not supported.")
    return k


# ---- layers ------------------------------------------------------------------------------------
@translates("conv1d", "conv2d", "conv3d")
def _conv(g, a, out, name):
    weight = a["weight"]
    k = weight.dim() - 2
    if a["input"].dim() != k + 2:
        _refuse(name, g, "An unbatched input is not supported.")
    padding = a["padding"]
    dilation = _tuple(a["dilation"], k)
    if padding == "valid":
        pads = [0] * (2 * k)
    elif padding == "same":
        total = [d * (s - 1) for d, s in zip(dilation, weight.shape[2:])]
        pads = [t // 2 for t in total] + [t - t // 2 for t in total]
    else:
        pads = _tuple(padding, k) * 2
    inputs = [g.value(a["input"]), g.value(weight)]
    if a["bias"] is not None:
        inputs.append(g.value(a["bias"]))
    y = g.node(
        "Conv",
        inputs,
        kernel_shape=list(weight.shape[2:]),
        strides=_tuple(a["stride"], k),
        pads=pads,
        dilations=dilation,
        group=a["groups"],
    )
    g.bind(out, y)


@translates("linear")
def _linear(g, a, out, name):
    x, w, b = a["input"], a["weight"], a["bias"]
    if x.dim() == 2:
        inputs = [g.value(x), g.value(w)] + ([g.value(b)] if b is not None else [])
        g.bind(out, g.node("Gemm", inputs, transB=1))
        return
    y = g.node("MatMul", [g.value(x), g.node("Transpose", [g.value(w)], perm=[1, 0])])
    g.bind(out, g.node("Add", [y, g.value(b)]) if b is not None else y)


@translates("batch_norm")
def _batch_norm(g, a, out, name):
    if a["training"] or a["running_mean"] is None:
        _refuse(name, g, "Only inference batch norm (running statistics, eval mode) is exported.")
    c = a["input"].shape[1]
    weight = g.value(a["weight"]) if a["weight"] is not None else g.const(np.ones(c, np.float32))
    bias = g.value(a["bias"]) if a["bias"] is not None else g.const(np.zeros(c, np.float32))
    inputs = [
        g.value(a["input"]),
        weight,
        bias,
        g.value(a["running_mean"]),
        g.value(a["running_var"]),
    ]
    g.bind(out, g.node("BatchNormalization", inputs, epsilon=float(a["eps"])))


@translates("layer_norm")
def _layer_norm(g, a, out, name):
    shape = list(a["normalized_shape"])
    weight = (
        g.value(a["weight"])
        if a["weight"] is not None
        else g.const(np.ones(shape, a["input"].dtype.np))
    )
    inputs = [g.value(a["input"]), weight]
    if a["bias"] is not None:
        inputs.append(g.value(a["bias"]))
    g.bind(out, g.node("LayerNormalization", inputs, axis=-len(shape), epsilon=float(a["eps"])))


@translates("embedding")
def _embedding(g, a, out, name):
    if a.get("max_norm") is not None:
        _refuse(name, g, "max_norm renormalises the weight in place.")
    g.bind(out, g.node("Gather", [g.value(a["weight"]), g.value(a["input"])], axis=0))


# ---- pooling -----------------------------------------------------------------------------------
@translates("max_pool1d", "max_pool2d", "max_pool3d")
def _max_pool(g, a, out, name):
    if a.get("return_indices"):
        _refuse(name, g, "return_indices=True is not supported.")
    k = _spatial(name, g, a["input"])
    kernel = _tuple(a["kernel_size"], k)
    stride = _tuple(a["stride"], k) if a["stride"] not in (None, [], ()) else kernel
    y = g.node(
        "MaxPool",
        [g.value(a["input"])],
        kernel_shape=kernel,
        strides=stride,
        pads=_tuple(a["padding"], k) * 2,
        dilations=_tuple(a["dilation"], k),
        ceil_mode=int(bool(a["ceil_mode"])),
    )
    g.bind(out, y)


@translates("avg_pool1d", "avg_pool2d", "avg_pool3d")
def _avg_pool(g, a, out, name):
    if a.get("divisor_override") is not None:
        _refuse(name, g, "divisor_override is not supported.")
    k = _spatial(name, g, a["input"])
    kernel = _tuple(a["kernel_size"], k)
    stride = _tuple(a["stride"], k) if a["stride"] not in (None, [], ()) else kernel
    y = g.node(
        "AveragePool",
        [g.value(a["input"])],
        kernel_shape=kernel,
        strides=stride,
        pads=_tuple(a["padding"], k) * 2,
        ceil_mode=int(bool(a["ceil_mode"])),
        count_include_pad=int(bool(a["count_include_pad"])),
    )
    g.bind(out, y)


@translates(
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
)
def _adaptive_pool(g, a, out, name):
    x = a["input"]
    k = _spatial(name, g, x)
    sizes = list(x.shape[-k:])
    wanted = [s if o is None else o for o, s in zip(_tuple(a["output_size"], k), sizes)]
    is_max = "max" in name
    if is_max and a.get("return_indices"):
        _refuse(name, g, "return_indices=True is not supported.")
    if all(o == 1 for o in wanted):
        g.bind(out, g.node("GlobalMaxPool" if is_max else "GlobalAveragePool", [g.value(x)]))
        return
    if any(s % o for s, o in zip(sizes, wanted)):
        _refuse(name, g, "Only output sizes that divide the input size are supported.")
    kernel = [s // o for s, o in zip(sizes, wanted)]
    op = "MaxPool" if is_max else "AveragePool"
    g.bind(out, g.node(op, [g.value(x)], kernel_shape=kernel, strides=kernel))


# ---- activations -------------------------------------------------------------------------------
_UNARY = {
    "relu": "Relu",
    "sigmoid": "Sigmoid",
    "tanh": "Tanh",
    "exp": "Exp",
    "log": "Log",
    "sqrt": "Sqrt",
    "abs": "Abs",
    "neg": "Neg",
    "negative": "Neg",
    "erf": "Erf",
    "sin": "Sin",
    "cos": "Cos",
    "reciprocal": "Reciprocal",
    "floor": "Floor",
    "ceil": "Ceil",
    "softsign": "Softsign",
}


@translates(*_UNARY)
def _unary(g, a, out, name):
    g.bind(out, g.node(_UNARY[name], [g.value(a["input"])]))


@translates("rsqrt")
def _rsqrt(g, a, out, name):
    g.bind(out, g.node("Reciprocal", [g.node("Sqrt", [g.value(a["input"])])]))


@translates("detach", "contiguous", "clone", "alias")
def _identity(g, a, out, name):
    g.bind(out, g.node("Identity", [g.value(a["input"] if "input" in a else a["self"])]))


@translates(
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"
)
def _dropout(g, a, out, name):
    if a.get("training"):
        _refuse(name, g, "Dropout is exported in inference mode only.")
    g.bind(out, g.node("Identity", [g.value(a["input"])]))


@translates("gelu")
def _gelu(g, a, out, name):
    x = a["input"]
    xv = g.value(x)
    half = g.node("Mul", [xv, g.scalar(0.5, x)])
    if a.get("approximate", "none") == "tanh":
        cube = g.node("Mul", [g.node("Mul", [xv, xv]), xv])
        inner = g.node("Add", [xv, g.node("Mul", [cube, g.scalar(0.044715, x)])])
        t = g.node("Tanh", [g.node("Mul", [inner, g.scalar(math.sqrt(2 / math.pi), x)])])
    else:
        t = g.node("Erf", [g.node("Mul", [xv, g.scalar(1 / math.sqrt(2), x)])])
    g.bind(out, g.node("Mul", [half, g.node("Add", [t, g.scalar(1.0, x)])]))


@translates("silu")
def _silu(g, a, out, name):
    xv = g.value(a["input"])
    g.bind(out, g.node("Mul", [xv, g.node("Sigmoid", [xv])]))


@translates("leaky_relu")
def _leaky_relu(g, a, out, name):
    g.bind(out, g.node("LeakyRelu", [g.value(a["input"])], alpha=float(a["negative_slope"])))


@translates("elu")
def _elu(g, a, out, name):
    g.bind(out, g.node("Elu", [g.value(a["input"])], alpha=float(a["alpha"])))


@translates("hardtanh", "relu6", "clamp", "clip")
def _clip(g, a, out, name):
    x = a["input"]
    lo, hi = {"relu6": (0.0, 6.0)}.get(name, (None, None))
    if name == "hardtanh":
        lo, hi = a["min_val"], a["max_val"]
    elif name in ("clamp", "clip"):
        lo, hi = a.get("min"), a.get("max")
    bounds = [_operand(g, v, x) if v is not None else "" for v in (lo, hi)]
    g.bind(out, g.node("Clip", [g.value(x), *bounds]))


@translates("softmax", "log_softmax")
def _softmax(g, a, out, name):
    x = a["input"]
    xv = g.value(x)
    if a.get("dtype") is not None:
        xv = g.node("Cast", [xv], to=onnx_dtype(out))
    op = "Softmax" if name == "softmax" else "LogSoftmax"
    g.bind(out, g.node(op, [xv], axis=_dim(a["dim"], x.dim())))


# ---- arithmetic --------------------------------------------------------------------------------
def _operand(g: GraphBuilder, v, like: Tensor) -> str:
    if isinstance(v, Tensor):
        return g.cast_to(g.value(v), v, like)
    return g.scalar(v, like)


_BINARY = {
    "add": "Add",
    "sub": "Sub",
    "mul": "Mul",
    "div": "Div",
    "maximum": "Max",
    "minimum": "Min",
}


@translates(*_BINARY)
def _binary(g, a, out, name):
    if name == "div" and a.get("rounding_mode") is not None:
        _refuse(name, g, "rounding_mode is not supported.")
    x, other = _operand(g, a["input"], out), _operand(g, a["other"], out)
    alpha = a.get("alpha", 1)
    if alpha not in (None, 1):
        other = g.node("Mul", [other, g.scalar(alpha, out)])
    g.bind(out, g.node(_BINARY[name], [x, other]))


@translates("rsub")
def _rsub(g, a, out, name):
    x = _operand(g, a["input"], out)
    if a.get("alpha", 1) != 1:
        x = g.node("Mul", [x, g.scalar(a["alpha"], out)])
    g.bind(out, g.node("Sub", [_operand(g, a["other"], out), x]))


@translates("pow")
def _pow(g, a, out, name):
    base = a.get("input", a.get("self"))
    g.bind(out, g.node("Pow", [_operand(g, base, out), _operand(g, a["exponent"], out)]))


@translates("matmul", "mm", "bmm")
def _matmul(g, a, out, name):
    other = a.get("other", a.get("mat2"))
    g.bind(out, g.node("MatMul", [g.value(a["input"]), g.value(other)]))


@translates("mean", "sum")
def _reduce(g, a, out, name):
    x = a["input"]
    dim = a.get("dim")
    axes = list(range(x.dim())) if dim is None or dim == () else _tuple(dim, 1)
    axes = [_dim(d, x.dim()) for d in axes]
    keep = int(bool(a.get("keepdim", False)))
    xv = g.value(x)
    if a.get("dtype") is not None or x.dtype != out.dtype:
        xv = g.node("Cast", [xv], to=onnx_dtype(out))
    op = "ReduceMean" if name == "mean" else "ReduceSum"
    if op == "ReduceSum" or g.opset >= 18:
        g.bind(out, g.node(op, [xv, g.ints(axes, "axes")], keepdims=keep))
    else:
        g.bind(out, g.node(op, [xv], axes=axes, keepdims=keep))


@translates("to", "float", "double", "half", "long", "int", "bool", "type_as")
def _cast(g, a, out, name):
    x = a.get("input", a.get("self"))
    xv = g.value(x)
    g.bind(
        out,
        g.node("Cast", [xv], to=onnx_dtype(out))
        if x.dtype != out.dtype
        else g.node("Identity", [xv]),
    )


# ---- shapes ------------------------------------------------------------------------------------
@translates(
    "view",
    "reshape",
    "flatten",
    "unflatten",
    "squeeze",
    "unsqueeze",
    "view_as",
    "reshape_as",
    "ravel",
    "expand",
    "expand_as",
)
def _reshape(g, a, out, name):
    x = a["input"] if "input" in a else a["self"]
    op = "Expand" if name.startswith("expand") else "Reshape"
    g.bind(out, g.node(op, [g.value(x), g.ints(out.shape)]))


@translates("permute", "transpose", "t", "swapaxes", "swapdims", "movedim")
def _transpose(g, a, out, name):
    x = a["input"]
    rank = x.dim()
    perm = list(range(rank))
    if name == "permute":
        dims = a.get("*") or a.get("dims")
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        perm = [_dim(d, rank) for d in dims]
    elif name == "t":
        perm = perm[::-1]
    elif name == "movedim":
        src, dst = _tuple(a["source"], 1), _tuple(a["destination"], 1)
        src, dst = [_dim(d, rank) for d in src], [_dim(d, rank) for d in dst]
        rest = [d for d in perm if d not in src]
        perm = [None] * rank
        for s, d in zip(src, dst):
            perm[d] = s
        it = iter(rest)
        perm = [p if p is not None else next(it) for p in perm]
    else:
        d0, d1 = (_dim(a[k], rank) for k in [k for k in a if k not in ("input", "*")][:2])
        perm[d0], perm[d1] = perm[d1], perm[d0]
    g.bind(out, g.node("Transpose", [g.value(x)], perm=perm))


@translates("cat", "concat", "concatenate")
def _cat(g, a, out, name):
    tensors = a["tensors"]
    axis = _dim(a.get("dim", 0), out.dim())
    g.bind(out, g.node("Concat", [_operand(g, t, out) for t in tensors], axis=axis))


@translates("stack")
def _stack(g, a, out, name):
    axis = _dim(a.get("dim", 0), out.dim())
    parts = []
    for t in a["tensors"]:
        shape = list(t.shape)
        shape.insert(axis, 1)
        parts.append(g.node("Reshape", [_operand(g, t, out), g.ints(shape)]))
    g.bind(out, g.node("Concat", parts, axis=axis))


# ---- attention ---------------------------------------------------------------------------------
def _last_two_swapped(rank: int) -> list[int]:
    return list(range(rank - 2)) + [rank - 1, rank - 2]


def _neg_inf(g: GraphBuilder, like: Tensor) -> str:
    return g.scalar(-np.inf, like)


def _attend(
    g: GraphBuilder, q: str, k: str, v: str, like: Tensor, rank: int, scale: float, masks
) -> str:
    """softmax(q @ k^T * scale + masks) @ v on graph values; ``masks`` are (kind, value) pairs:
    "add" (a float mask added to the scores) or "keep" (a bool mask, False -> -inf)."""
    scores = g.node("MatMul", [q, g.node("Transpose", [k], perm=_last_two_swapped(rank))])
    scores = g.node("Mul", [scores, g.scalar(scale, like)])
    for kind, mask in masks:
        if kind == "add":
            scores = g.node("Add", [scores, mask])
        else:
            scores = g.node("Where", [mask, scores, _neg_inf(g, like)])
    return g.node("MatMul", [g.node("Softmax", [scores], axis=-1), v])


def _causal_mask(g: GraphBuilder, L: int, S: int, like: Tensor) -> str:
    """PyTorch's is_causal: query i sees keys 0..i (the lower triangle, top-left aligned)."""
    return g.const(np.tril(np.ones((L, S), dtype=bool)), "causal_mask")


def _mask_entry(g: GraphBuilder, mask: Tensor, like: Tensor):
    if mask.dtype.is_floating_point:
        return ("add", _operand(g, mask, like))
    return ("keep", g.value(mask))


@translates("scaled_dot_product_attention")
def _sdpa(g, a, out, name):
    q, k, v = a["query"], a["key"], a["value"]
    if a.get("dropout_p", 0.0):
        _refuse(name, g, "dropout_p > 0 draws random masks; pass 0.0 when not training.")
    if a.get("enable_gqa") and q.shape[-3] != k.shape[-3]:
        _refuse(name, g, "Grouped-query attention is not supported.")
    scale = a.get("scale") or 1 / math.sqrt(q.shape[-1])
    masks = []
    if a.get("is_causal"):
        masks.append(("keep", _causal_mask(g, q.shape[-2], k.shape[-2], q)))
    if a.get("attn_mask") is not None:
        masks.append(_mask_entry(g, a["attn_mask"], q))
    y = _attend(g, g.value(q), g.value(k), g.value(v), q, q.dim(), scale, masks)
    g.bind(out, y)


@translates("multi_head_attention_forward")
def _mha(g, a, out, name):
    """nn.MultiheadAttention's computation on (L, N, E) inputs (the module transposes batch_first)."""
    unsupported = ("bias_k", "bias_v", "static_k", "static_v")
    if any(a.get(n) is not None for n in unsupported) or a.get("add_zero_attn"):
        _refuse(name, g, "bias_k/bias_v, add_zero_attn and static_k/v are not supported.")
    if a.get("dropout_p") and a.get("training"):
        _refuse(name, g, "Attention dropout is exported in inference mode only.")
    query, key = a["query"], a["key"]
    if query.dim() != 3:
        _refuse(name, g, "An unbatched input is not supported.")
    L, N, E = query.shape
    S = key.shape[0]
    H = a["num_heads"]
    D = E // H
    heads = []
    weights = _in_projection_weights(a, E)
    for x, (w, b), length in zip((query, key, a["value"]), weights, (L, S, S)):
        y = g.node("MatMul", [g.value(x), g.const(w.T.copy(), "in_proj_t")])
        if b is not None:
            y = g.node("Add", [y, g.const(b, "in_proj_b")])
        y = g.node("Reshape", [y, g.ints([length, N, H, D])])
        heads.append(g.node("Transpose", [y], perm=[1, 2, 0, 3]))  # (N, H, length, D)
    masks = []
    if a.get("attn_mask") is not None:
        mask = a["attn_mask"]
        entry = _mask_entry(g, mask, query)
        if entry[0] == "keep":  # MultiheadAttention's bool mask marks what may NOT be attended
            entry = ("keep", g.node("Not", [entry[1]]))
        if mask.dim() == 3:  # (N*H, L, S)
            entry = (entry[0], g.node("Reshape", [entry[1], g.ints([N, H, L, S])]))
        masks.append(entry)
    elif a.get("is_causal"):
        masks.append(("keep", _causal_mask(g, L, S, query)))
    if a.get("key_padding_mask") is not None:
        kpm = a["key_padding_mask"]  # (N, S): True (or -inf) marks padding
        if kpm.dtype.is_floating_point:
            masks.append(
                ("add", g.node("Reshape", [_operand(g, kpm, query), g.ints([N, 1, 1, S])]))
            )
        else:
            keep = g.node("Not", [g.node("Reshape", [g.value(kpm), g.ints([N, 1, 1, S])])])
            masks.append(("keep", keep))
    scale = 1 / math.sqrt(D)
    q, k, v = heads
    scores = g.node(
        "Mul",
        [
            g.node("MatMul", [q, g.node("Transpose", [k], perm=[0, 1, 3, 2])]),
            g.scalar(scale, query),
        ],
    )
    for kind, mask in masks:
        scores = (
            g.node("Add", [scores, mask])
            if kind == "add"
            else g.node("Where", [mask, scores, _neg_inf(g, query)])
        )
    probs = g.node("Softmax", [scores], axis=-1)
    y = g.node("Transpose", [g.node("MatMul", [probs, v])], perm=[2, 0, 1, 3])  # (L, N, H, D)
    y = g.node("Reshape", [y, g.ints([L, N, E])])
    y = g.node("MatMul", [y, g.node("Transpose", [g.value(a["out_proj_weight"])], perm=[1, 0])])
    if a.get("out_proj_bias") is not None:
        y = g.node("Add", [y, g.value(a["out_proj_bias"])])
    attn, attn_weights = out
    g.bind(attn, y)
    if attn_weights is not None:
        if a.get("average_attn_weights", True):
            probs = g.node(
                "ReduceMean",
                [probs, g.ints([1], "axes")] if g.opset >= 18 else [probs],
                keepdims=0,
                **({} if g.opset >= 18 else {"axes": [1]}),
            )
        g.bind(attn_weights, probs)


def _in_projection_weights(a, E: int) -> list:
    """(weight, bias) as NumPy arrays for the query, key and value projections."""
    if a.get("use_separate_proj_weight"):
        ws = [a["q_proj_weight"], a["k_proj_weight"], a["v_proj_weight"]]
        ws = [w.detach().cpu().numpy() for w in ws]
    else:
        w = a["in_proj_weight"].detach().cpu().numpy()
        ws = [w[:E], w[E : 2 * E], w[2 * E :]]
    b = a.get("in_proj_bias")
    bs = [None] * 3 if b is None else np.split(b.detach().cpu().numpy(), 3)
    return list(zip(ws, bs))


@translates("split", "chunk", "tensor_split", "unbind", "split_with_sizes")
def _split(g, a, out, name):
    """Cut along ``dim`` into the traced pieces' sizes (``unbind`` then drops that dim)."""
    x = a["input"] if "input" in a else a["self"]
    dim = _dim(a.get("dim", 0), x.dim())
    pieces = list(out)
    sizes = [1] * len(pieces) if name == "unbind" else [p.shape[dim] for p in pieces]
    names = g.node("Split", [g.value(x), g.ints(sizes, "split")], n_out=len(pieces), axis=dim)
    names = names if isinstance(names, list) else [names]
    for piece, value in zip(pieces, names):
        if name == "unbind":
            value = g.node("Reshape", [value, g.ints(piece.shape)])
        g.bind(piece, value)


# ---- recurrent layers (recorded as one op each: tracer.py's ``opaque``) ---------------------------------
# PyTorch stacks the gate blocks of its weights as (i, f, g, o) for LSTM and (r, z, n) for GRU;
# ONNX wants (i, o, f, c) and (z, r, h).
_GATE_ORDER = {"lstm": [0, 3, 1, 2], "gru": [1, 0, 2], "rnn_tanh": [0], "rnn_relu": [0]}
_ONNX_OP = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}


def _gates(w: np.ndarray, order: list[int]) -> np.ndarray:
    blocks = np.split(w, len(order))
    return np.concatenate([blocks[i] for i in order])


def _layer_weights(module, name: str, layer: int, directions: int):
    """W, R, B of one layer (all directions stacked), in ONNX's gate order."""
    order = _GATE_ORDER[name]
    H = module.hidden_size
    W, R, B = [], [], []
    for d in range(directions):
        suffix = f"_l{layer}" + ("_reverse" if d else "")

        def param(kind, suffix=suffix):
            p = getattr(module, kind + suffix, None)
            return None if p is None else p.detach().cpu().numpy()

        W.append(_gates(param("weight_ih"), order))
        R.append(_gates(param("weight_hh"), order))
        b_ih, b_hh = param("bias_ih"), param("bias_hh")
        zeros = np.zeros(len(order) * H, W[-1].dtype)
        B.append(
            np.concatenate([_gates(b, order) if b is not None else zeros for b in (b_ih, b_hh)])
        )
    return np.stack(W), np.stack(R), np.stack(B)


def _state_slice(g: GraphBuilder, state: Tensor | None, layer: int, directions: int) -> str:
    if state is None:
        return ""
    start = layer * directions
    return g.node(
        "Slice",
        [
            g.value(state),
            g.ints([start], "starts"),
            g.ints([start + directions], "ends"),
            g.ints([0], "axes"),
        ],
    )


@translates("lstm", "gru", "rnn_tanh", "rnn_relu")
def _recurrent(g, a, out, name):
    module, x = a["module"], a["input"]
    if not isinstance(x, Tensor) or x.dim() != 3:
        _refuse(name, g, "Only batched tensor inputs are supported (not PackedSequence or 2-D).")
    if getattr(module, "proj_size", 0):
        _refuse(name, g, "LSTM with proj_size is not supported.")
    D = 2 if module.bidirectional else 1
    H = module.hidden_size
    h0, c0 = a["hx"] if name == "lstm" and a["hx"] is not None else (a["hx"], None)
    y = g.value(x)
    if module.batch_first:
        y = g.node("Transpose", [y], perm=[1, 0, 2])
    T, N = (x.shape[1], x.shape[0]) if module.batch_first else (x.shape[0], x.shape[1])
    attrs = {"hidden_size": H, "direction": "bidirectional" if D == 2 else "forward"}
    if name == "gru":
        attrs["linear_before_reset"] = 1  # PyTorch applies r to (W_hn h + b_hn)
    if name.startswith("rnn_"):
        attrs["activations"] = ["Tanh" if name == "rnn_tanh" else "Relu"] * D
    finals_h, finals_c = [], []
    for layer in range(module.num_layers):
        W, R, B = _layer_weights(module, name, layer, D)
        inputs = [y, g.const(W, "W"), g.const(R, "R"), g.const(B, "B"), ""]
        inputs.append(_state_slice(g, h0, layer, D))
        if name == "lstm":
            inputs.append(_state_slice(g, c0, layer, D))
        n_out = 3 if name == "lstm" else 2
        results = g.node(_ONNX_OP[name], inputs, n_out=n_out, **attrs)
        seq = g.node("Transpose", [results[0]], perm=[0, 2, 1, 3])  # (T, N, D, H)
        y = g.node("Reshape", [seq, g.ints([T, N, D * H])])
        finals_h.append(results[1])
        if name == "lstm":
            finals_c.append(results[2])
    if module.batch_first:
        y = g.node("Transpose", [y], perm=[1, 0, 2])
    output, state = out
    g.bind(output, y)
    h_n, c_n = state if name == "lstm" else (state, None)
    g.bind(
        h_n,
        g.node("Concat", finals_h, axis=0) if len(finals_h) > 1 else g.node("Identity", finals_h),
    )
    if c_n is not None:
        g.bind(
            c_n,
            g.node("Concat", finals_c, axis=0)
            if len(finals_c) > 1
            else g.node("Identity", finals_c),
        )
