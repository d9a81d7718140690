"""``torch.rnn_tanh_cell``, ``torch.rnn_relu_cell``, ``torch.lstm_cell`` and ``torch.gru_cell``:
one step of a recurrent cell given its weights (what ``nn.RNNCell`` & co. call), on 2-D input
``(batch, input_size)`` and hidden state ``(batch, hidden_size)``.

They run the same fused cell as the modules (``ops/nn/rnn_cell.py``) after ATen's checks, in its
order and with its messages: the hidden-state count (LSTM), the input's feature size against
``w_ih``, each hidden state's batch and feature sizes against the input and ``w_hh``, then each
weight's first dimension against gates * hidden_size.
"""

from __future__ import annotations

from .._tensor.core import Tensor
from ..ops.nn.rnn_cell import rnn_cell


def _check(input: Tensor, hidden: list, w_ih: Tensor, w_hh: Tensor, gates: int, b_ih=None) -> None:
    """ATen's checks of one cell step's shapes (``input.size(1)`` raising IndexError on 1-D
    input as PyTorch's does), then the first product's dtypes as its linear layer reports them
    (addmm with a bias, mm without)."""
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.size(1)} expected {w_ih.size(1)}"
        )
    hidden_size = w_hh.size(1)
    for i, h in enumerate(hidden):
        if input.size(0) != h.size(0):
            raise RuntimeError(
                f"Input batch size {input.size(0)} doesn't match hidden{i} batch size {h.size(0)}"
            )
        if h.size(1) != hidden_size:
            raise RuntimeError(
                f"hidden{i} has inconsistent hidden_size: got {h.size(1)}, expected {hidden_size}"
            )
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.size(0) != gates * hidden_size:
            raise RuntimeError(
                f"{name} first dim must be {gates} * hidden_size = {gates * hidden_size}, but got {w.size(0)}"
            )
    if input.dtype != w_ih.dtype:
        raise product_dtype_error(input, w_ih, b_ih is not None)


def product_dtype_error(a: Tensor, b: Tensor, with_bias: bool) -> RuntimeError:
    """The error of ``a @ b.T`` in mismatched dtypes as PyTorch's linear reports it: addmm's
    words with a bias, mm's without."""
    from ..ops._dispatch import scalar_name
    from ..ops.contraction.matmul import _cname

    a, b = a._dtype, b._dtype
    if with_bias:
        return RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {scalar_name(a)} and {scalar_name(b)}"
        )
    return RuntimeError(
        f"expected m1 and m2 to have the same dtype, but got: {_cname(a.np)} != {_cname(b.np)}"
    )


def _tensor_arg(fn: str, name: str, position: int, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}"
        )


def _plain_cell(mode: str, name: str, activation: str):
    def cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih=None, b_hh=None) -> Tensor:
        _tensor_arg(name, "hx", 2, hx)
        _check(input, [hx], w_ih, w_hh, 1, b_ih)
        return rnn_cell(mode, input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]

    cell.__name__ = cell.__qualname__ = name
    cell.__doc__ = f"``{activation}(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``."
    return cell


rnn_tanh_cell = _plain_cell("RNN_TANH", "rnn_tanh_cell", "tanh")
rnn_relu_cell = _plain_cell("RNN_RELU", "rnn_relu_cell", "relu")


def lstm_cell(
    input: Tensor, hx, w_ih: Tensor, w_hh: Tensor, b_ih=None, b_hh=None
) -> tuple[Tensor, Tensor]:
    """One LSTM step: ``hx`` is the pair (h, c); returns the new (h, c)."""
    if isinstance(hx, Tensor) or not isinstance(hx, (tuple, list)):
        raise TypeError(
            f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not {type(hx).__name__}"
        )
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check(input, list(hx), w_ih, w_hh, 4, b_ih)
    return rnn_cell("LSTM", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih=None, b_hh=None) -> Tensor:
    """One GRU step."""
    _tensor_arg("gru_cell", "hx", 2, hx)
    _check(input, [hx], w_ih, w_hh, 3, b_ih)
    return rnn_cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]
