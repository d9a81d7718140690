"""``torch.lstm``, ``torch.gru``, ``torch.rnn_tanh`` and ``torch.rnn_relu``: a stack of recurrent
layers given its weights (what ``nn.LSTM`` & co. call), and ``run_layers``, the loop over layers
and directions that the modules share.

Each takes PyTorch's two overloads, told apart as its argument parser does (the packed one first):

- padded: ``(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)``
  with ``input`` (time, batch, features), or (batch, time, features) when ``batch_first``;
- packed: ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``
  with ``data`` and ``batch_sizes`` those of a ``PackedSequence``.

``hx`` is ``h0`` (layers * directions, batch, hidden), a pair ``(h0, c0)`` for ``lstm``; ``params``
the flat weights in the modules' ``_flat_weights`` order. As in ATen, an LSTM has projections when
``h0`` and ``c0`` differ in their last size, and the params then come in fives (threes without
biases). lstm returns (output, h_n, c_n), the others (output, h_n).

Every direction of every layer is one call of ``ops.nn.rnn.rnn_layer``, as in the modules. ATen's
checks come first, in its order and with its messages: the hidden-state count (lstm), the params'
count, the layers' and directions' counts, an empty sequence, then each layer's products (the
input projection's dtype and shapes, each hidden state's product and its batch against the input's).
Deviations: where a float32 ``lstm`` runs through oneDNN PyTorch checks none of those shapes (and
computes garbage or crashes); here the checks above raise. A ``c0`` whose batch is 1 is broadcast
as in PyTorch; an ``h0`` whose batch is larger than the input's when that is 1 raises (PyTorch
broadcasts). As with the modules, the output's grad_fn (when not ``batch_first``) is not PyTorch's.
"""

from __future__ import annotations

import numbers

from .._flags import warn_once
from .._tensor.core import Tensor
from ..ops.nn.rnn import GATES, onednn_input, rnn_layer
from ..ops.shape.copies import cat, stack
from .rnn_cell_functions import product_dtype_error

__all__ = ["gru", "lstm", "rnn_relu", "rnn_tanh", "run_layers"]

NO_ONEDNN_PROJECTIONS = (
    "LSTM with projections is not supported with oneDNN. Using default implementation. (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)"
)


def run_layers(
    mode: str, data: Tensor, batch_sizes: list, hx: Tensor, cx, cells: list, has_biases: bool,
    num_layers: int, dropout: float, train: bool, bidirectional: bool, bias_apart: bool = False,
    steps=None,
) -> tuple:  # fmt: skip
    """All layers over packed ``data`` (rows of ``batch_sizes``); returns (output data, h_n, c_n
    or None). ``cells`` holds each (layer, direction)'s weights ``[w_ih, w_hh, b_ih, b_hh, w_hr]``
    (biases without ``has_biases``, ``w_hr`` without projections left out). ``bias_apart``: the
    input was a non-contiguous (time, batch, input) tensor (see ``rnn_layer``); later layers take
    contiguous outputs. Dropout between layers is ``torch.dropout``'s (its RuntimeError for p).
    ``steps``: the input is a (steps, batch) sequence, not packed: the output comes back as
    (steps, batch, features), from the last layer's node (``StackBackward0``,
    ``MkldnnRnnLayerBackward0``, or ``CatBackward0`` of the two directions, as PyTorch's)."""
    from ._torch_functions import dropout as _dropout

    num_directions = 2 if bidirectional else 1
    h_n, c_n = [], []
    x = data
    for layer in range(num_layers):
        outs = []
        last = layer == num_layers - 1
        for direction in range(num_directions):
            idx = layer * num_directions + direction
            w = cells[idx]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if len(w) % 2 else None  # a projection makes the count odd (5 or 3)
            c0 = None if cx is None else cx[idx]
            out, h, c = rnn_layer(mode, x, batch_sizes, hx[idx], c0, w[0], w[1], b_ih, b_hh, w_hr,
                                  direction == 1, bias_apart and layer == 0,
                                  steps if last else None, steps is None)  # fmt: skip
            if last and steps and out.dim() == 2:  # (the op-by-op layer returns rows)
                out = out.reshape(steps, -1, out.size(1))
            outs.append(out)
            h_n.append(h)
            c_n.append(c)
        x = outs[0] if num_directions == 1 else cat(outs, outs[0].dim() - 1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = _dropout(x, dropout, True)
    return x, stack(h_n, 0), (stack(c_n, 0) if cx is not None else None)


# --- ATen's checks ---------------------------------------------------------------------------------


def _states(mode: str, hx) -> tuple:
    """(h0, c0 or None, whether the LSTM has projections)."""
    if mode != "LSTM":
        return hx, None, False
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    h0, c0 = hx
    return h0, c0, h0.size(2) != c0.size(2)  # size(2): ATen's IndexError for 2-D states


def _cells(params, has_biases: bool, has_proj: bool) -> list:
    per_cell = (4 if has_biases else 2) + has_proj
    if len(params) % per_cell:
        raise RuntimeError("got an incorrect number of RNN parameters")
    return [list(params[i : i + per_cell]) for i in range(0, len(params), per_cell)]


def _check_counts(h0: Tensor, c0, cells: list, num_layers: int, bidirectional: bool) -> None:
    states, weights = h0.size(0), len(cells)
    if c0 is not None and c0.size(0) < states:  # ATen reads past c0's layers
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if bidirectional:
        if states % 2 or weights % 2:
            raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
        states, weights = states // 2, weights // 2
    if states != num_layers:
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if weights != num_layers:
        raise RuntimeError("Expected more weights in stacked_rnn")
    if h0.dim() == 2:  # each layer's state is 1-D: ATen's size(1) on it
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")


def _check_layers(mode: str, x: Tensor, batch: int, h0: Tensor, c0, cells: list, has_biases: bool,
                  bidirectional: bool) -> None:  # fmt: skip
    """The errors ATen's layers raise from their products, in its order: each layer's input
    projection of all steps (dtype, then shapes), then its hidden state's product and the sum of
    the gates over the batch (a state of batch 1 fails the in-place broadcast instead)."""
    rows, features, source = x.size(0), x.size(1), x  # source: a tensor of the input's dtype
    per_layer = 2 if bidirectional else 1
    for idx, w in enumerate(cells):
        w_ih, w_hh = w[0], w[1]
        if source.dtype != w_ih.dtype:
            raise product_dtype_error(source, w_ih, has_biases)
        if features != w_ih.size(1):
            raise _shapes_error(rows, features, w_ih)
        h = h0[idx]
        if h.dtype != w_hh.dtype:
            raise product_dtype_error(h, w_hh, has_biases)
        if h.size(1) != w_hh.size(1):
            raise _shapes_error(h.size(0), h.size(1), w_hh)
        if h.size(0) != batch:
            raise _batch_error(mode, h.size(0), batch, w_hh)
        if c0 is not None and c0.size(1) not in (batch, 1):  # a c0 of batch 1 broadcasts
            raise RuntimeError(
                f"The size of tensor a ({batch}) must match the size of tensor b ({c0.size(1)}) at "
                "non-singleton dimension 0"
            )
        if idx % per_layer == per_layer - 1:  # the next layer's input
            features = (w[-1].size(0) if len(w) % 2 else w_hh.size(1)) * per_layer
            source = w_ih


def _batch_error(mode: str, h_batch: int, batch: int, w_hh: Tensor) -> RuntimeError:
    if h_batch == 1:  # the in-place sum of the gates into the state's
        width = w_hh.size(0) if mode == "LSTM" else w_hh.size(0) // GATES[mode]
        return RuntimeError(
            f"output with shape [1, {width}] doesn't match the broadcast shape [{batch}, {width}]"
        )
    return RuntimeError(
        f"The size of tensor a ({h_batch}) must match the size of tensor b ({batch}) at "
        "non-singleton dimension 0"
    )


def _shapes_error(rows: int, cols: int, w: Tensor) -> RuntimeError:
    return RuntimeError(
        f"mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and {w.size(1)}x{w.size(0)})"
    )


# --- the two overloads -----------------------------------------------------------------------------


def _padded(mode: str, input: Tensor, hx, params, has_biases: bool, num_layers: int, dropout: float,
            train: bool, bidirectional: bool, batch_first: bool) -> tuple:  # fmt: skip
    h0, c0, has_proj = _states(mode, hx)
    if has_proj and onednn_input(input):
        warn_once("lstm_projections", NO_ONEDNN_PROJECTIONS, stacklevel=4)
    cells = _cells(params, has_biases, has_proj)
    _check_counts(h0, c0, cells, num_layers, bidirectional)
    seq = input.transpose(0, 1) if batch_first else input
    if seq.dim() == 2:  # each step is 1-D: ATen's size(1) on it
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    steps, batch = seq.size(0), seq.size(1)
    if steps == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    x = seq.reshape(steps * batch, seq.size(2))
    _check_layers(mode, x, batch, h0, c0, cells, has_biases, bidirectional)
    output, h_n, c_n = run_layers(mode, x, [batch] * steps, h0, _broadcast(c0, batch), cells,
                                  has_biases, num_layers, dropout, train, bidirectional,
                                  not seq.is_contiguous(), steps)  # fmt: skip
    if batch_first:  # ATen's lstm transposes its result, the others theirs in place
        output = output.transpose(0, 1) if mode == "LSTM" else output.transpose_(0, 1)
    return (output, h_n, c_n) if mode == "LSTM" else (output, h_n)


def _packed(mode: str, data: Tensor, batch_sizes: Tensor, hx, params, has_biases: bool,
            num_layers: int, dropout: float, train: bool, bidirectional: bool) -> tuple:  # fmt: skip
    from ..ops._dispatch import scalar_name

    h0, c0, has_proj = _states(mode, hx)
    cells = _cells(params, has_biases, has_proj)
    _check_counts(h0, c0, cells, num_layers, bidirectional)
    if batch_sizes.dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {scalar_name(batch_sizes._dtype)}")
    sizes = [int(b) for b in batch_sizes.reshape(-1).tolist()]
    batch = sizes[0] if sizes else 0
    _check_layers(mode, data, batch, h0, c0, cells, has_biases, bidirectional)
    start = 0
    for size in sizes:  # ATen narrows each step's rows out of data
        if start + size > data.size(0):
            raise RuntimeError(
                f"start ({start}) + length ({size}) exceeds dimension size ({data.size(0)})."
            )
        start += size
    x = data if start == data.size(0) else data[:start]
    out, h_n, c_n = run_layers(mode, x, sizes, h0, _broadcast(c0, batch), cells, has_biases,
                               num_layers, dropout, train, bidirectional)  # fmt: skip
    return (out, h_n, c_n) if mode == "LSTM" else (out, h_n)


def _broadcast(c0, batch: int):
    if c0 is None or c0.size(1) == batch:
        return c0
    return c0.expand(c0.size(0), batch, c0.size(2))


# --- PyTorch's argument parser for the two overloads ----------------------------------------------

_TENSORS = "tuple of Tensors"
_TAIL = (("bool", "has_biases"), ("int", "num_layers"), ("float", "dropout"), ("bool", "train"),
         ("bool", "bidirectional"))  # fmt: skip


def _signatures(name: str) -> tuple:
    hx = _TENSORS if name == "lstm" else "Tensor"
    head = ((hx, "hx"), (_TENSORS, "params"))
    packed = (("Tensor", "data"), ("Tensor", "batch_sizes"), *head, *_TAIL)
    padded = (("Tensor", "input"), *head, *_TAIL, ("bool", "batch_first"))
    return packed, padded


def _fits(kind: str, value) -> bool:
    if kind == "Tensor":
        return isinstance(value, Tensor)
    if kind == _TENSORS:
        return isinstance(value, (list, tuple)) and all(isinstance(t, Tensor) for t in value)
    if kind == "bool":
        return type(value) is bool
    if isinstance(value, bool):
        return False
    if kind == "int":
        return isinstance(value, numbers.Integral)
    return isinstance(value, numbers.Real)  # float: ints too, as PyTorch's parser


def _bind(signature: tuple, args: tuple, kwargs: dict):
    """The arguments by name when they fit ``signature`` (no defaults: all are required)."""
    names = [n for _, n in signature]
    if len(args) > len(names) or len(args) + len(kwargs) != len(names):
        return None
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            return None
        bound[k] = v
    if all(_fits(kind, bound[n]) for kind, n in signature):
        return bound
    return None


def _describe(value) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(type(v).__name__ for v in value)
        return f"tuple of ({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, list):
        return f"list of [{', '.join(type(v).__name__ for v in value)}]"
    return type(value).__name__


def _overload_error(name: str, signatures: tuple, args: tuple, kwargs: dict) -> TypeError:
    """PyTorch's TypeError when no overload fits. As in PyTorch, a sequence given for a tuple of
    Tensors is always marked as not matching in the per-overload explanations."""
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    head = f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), "
    lines = [head + "but expected one of:"]
    for signature in signatures:
        lines.append(f" * ({', '.join(f'{kind} {n}' for kind, n in signature)})")
        names = [n for _, n in signature]
        kinds = {n: kind for kind, n in signature}
        wrong = [k for k in kwargs if k not in names]
        if wrong:
            lines.append(
                f"      didn't match because some of the keywords were incorrect: {', '.join(wrong)}"
            )
            continue
        if len(args) > len(names) or len(args) + len(kwargs) != len(names):
            continue
        marked = []
        for n, value in [*zip(names, args), *kwargs.items()]:
            text = _describe(value) if n in names[: len(args)] else f"{n}={_describe(value)}"
            bad = kinds[n] == _TENSORS or not _fits(kinds[n], value)
            marked.append(f"!{text}!" if bad else text)
        lines.append(
            "      didn't match because some of the arguments have invalid types: "
            f"({', '.join(marked)})"
        )
    return TypeError("\n".join(lines) + "\n")


def _layer_function(name: str, mode: str):
    packed, padded = _signatures(name)

    def function(*args, **kwargs) -> tuple:
        bound = _bind(packed, args, kwargs)
        if bound is not None:
            return _packed(mode, **bound)
        bound = _bind(padded, args, kwargs)
        if bound is not None:
            return _padded(mode, **bound)
        raise _overload_error(name, (packed, padded), args, kwargs)

    function.__name__ = function.__qualname__ = name
    hx = "(h0, c0)" if mode == "LSTM" else "h0"
    out = "(output, h_n, c_n)" if mode == "LSTM" else "(output, h_n)"
    function.__doc__ = (
        f"``{name}(input, {hx}, params, has_biases, num_layers, dropout, train, bidirectional, "
        f"batch_first)`` or ``{name}(data, batch_sizes, {hx}, params, has_biases, num_layers, "
        f"dropout, train, bidirectional)``: returns {out}."
    )
    return function


lstm = _layer_function("lstm", "LSTM")
gru = _layer_function("gru", "GRU")
rnn_tanh = _layer_function("rnn_tanh", "RNN_TANH")
rnn_relu = _layer_function("rnn_relu", "RNN_RELU")
