"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their single-step cells.

Parameter names, shapes, registration order, gate order and default initialisation are PyTorch's
(``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))`` for every parameter, in registration order), so
``manual_seed`` gives the same weights and a PyTorch ``state_dict`` loads unchanged.

Every layer runs on the packed layout (``nn.utils.rnn.PackedSequence``): a plain ``(T, B, *)``
input is the special case where all ``B`` sequences run for all ``T`` steps. Each direction of each
layer is one call of ``ops.nn.rnn.rnn_layer``: fused into one autograd node for float32/float64 on
the CPU (the input projection of all steps in one matrix product, one matrix product per step for
all gates, the weight gradients in one matrix product each), op by op otherwise.
Deviation: the graph inside a layer is not PyTorch's (one fused node, ``ops.nn.rnn.RnnLayerBackward``,
or our op-by-op composition), but the fused node carries the name of the node PyTorch's layer
leaves on its output (``StackBackward0``; ``MkldnnRnnLayerBackward0`` for a float32 LSTM;
``CatBackward0`` for a packed input), and the nodes around it (``CatBackward0`` of two
directions, ``StackBackward0`` of h_n, ``TransposeBackward0`` or, for RNN and GRU,
``TransposeBackward1`` of a batch_first output) are PyTorch's.
A cell's call is one fused op (``ops.nn.rnn_cell.rnn_cell``) whose node carries the name of
PyTorch's last op on the output (``h.grad_fn`` is ``MulBackward0`` after an LSTM cell).
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _autocast
from ..._flags import warn_once
from ..._tensor.core import Tensor
from ...ops.creation.factories import empty, zeros
from ...ops.nn.rnn import GATES as _GATES
from ...ops.nn.rnn import onednn_input
from ...ops.nn.rnn_cell import rnn_cell
from .. import init
from ..parameter import Parameter
from ..rnn_layer_functions import NO_ONEDNN_PROJECTIONS, run_layers
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]


class RNNBase(Module):
    """The shared constructor, parameters and forward of ``RNN``, ``LSTM`` and ``GRU``."""

    def __init__(
        self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
        batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
        device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}"
            )
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                shapes = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: there is no cuDNN weight buffer to compact."""

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- argument checks (PyTorch's messages) ---

    def check_input(self, input: Tensor, batch_sizes) -> None:
        w = getattr(self, self._flat_weights_names[0]).dtype
        # before the shape checks, as in PyTorch, which skips it under autocast (any device)
        if input.dtype != w and not _autocast.state.on:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w}). "
                f"Convert input: input.to({w}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(
        self, hx: Tensor, expected, msg: str = "Expected hidden size {}, got {}"
    ) -> None:
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    # --- the computation ---

    def _run(self, data: Tensor, batch_sizes: list, hx: Tensor, cx, bias_apart: bool = False,
             steps=None):  # fmt: skip
        """All layers over packed ``data``; returns (output, h_n, c_n or None): the output
        (steps, batch, features) for a sequence of ``steps``, else packed rows. ``bias_apart``:
        the input was a non-contiguous (time, batch, input) tensor (see ``rnn_layer``); later
        layers take contiguous outputs."""
        return run_layers(self.mode, data, batch_sizes, hx, cx, self.all_weights, self.bias,
                          self.num_layers, self.dropout, self.training, self.bidirectional,
                          bias_apart, steps)  # fmt: skip

    def forward(self, input, hx=None):
        is_lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        batch_dim = 0 if self.batch_first else 1
        unbatched = False
        if packed:
            x, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = [int(b) for b in batch_sizes_t.tolist()]
            max_batch = batch_sizes[0]
        else:
            name = type(self).__name__
            if input.dim() not in (2, 3):
                shown = "D" if is_lstm or self.mode == "GRU" else "D tensor"  # (PyTorch's texts)
                raise ValueError(
                    f"{name}: Expected input to be 2D or 3D, got {input.dim()}{shown} instead"
                )
            batch_sizes_t = sorted_indices = unsorted_indices = None
            unbatched = input.dim() == 2
            if unbatched:
                input = input.unsqueeze(batch_dim)
            max_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = zeros(self.num_layers * num_directions, max_batch, real_hidden, dtype=input_dtype(input),
                       device=input_device(input))  # fmt: skip
            c0 = None
            if is_lstm:
                c0 = zeros(self.num_layers * num_directions, max_batch, self.hidden_size,
                           dtype=input_dtype(input), device=input_device(input))  # fmt: skip
        else:
            if is_lstm:
                if not packed:
                    want = 2 if unbatched else 3
                    if hx[0].dim() != want or hx[1].dim() != want:
                        kind = "unbatched 2-D" if unbatched else "batched 3-D"
                        raise RuntimeError(
                            f"For {kind} input, hx and cx should also be {want}-D but got "
                            f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                        )
                h0, c0 = hx
                if unbatched:
                    h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
            else:
                if not packed:
                    if unbatched and hx.dim() != 2:
                        raise RuntimeError(
                            f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor"
                        )
                    if not unbatched and hx.dim() != 3:
                        raise RuntimeError(
                            f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
                        )
                h0, c0 = (hx.unsqueeze(1) if unbatched else hx), None
            if sorted_indices is not None:
                h0 = h0.index_select(1, sorted_indices)
                c0 = None if c0 is None else c0.index_select(1, sorted_indices)
        self.check_input(x if packed else input, batch_sizes_t)
        expected = self.get_expected_hidden_size(x if packed else input, batch_sizes_t)
        if is_lstm:
            self.check_hidden_size(h0, expected, "Expected hidden[0] size {}, got {}")
            expected_c = (expected[0], expected[1], self.hidden_size)
            self.check_hidden_size(c0, expected_c, "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(h0, expected)

        bias_apart = False
        if not packed:
            seq = input.transpose(0, 1) if self.batch_first else input
            bias_apart = not seq.is_contiguous()
            steps, batch = seq.size(0), seq.size(1)
            if steps == 0:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
            batch_sizes = [batch] * steps
            x = seq.reshape(steps * batch, seq.size(2))
        if is_lstm and self.proj_size > 0 and not packed and onednn_input(x):  # (packed: no oneDNN)
            warn_once("lstm_projections", NO_ONEDNN_PROJECTIONS, stacklevel=2)
        out, h_n, c_n = self._run(x, batch_sizes, h0, c0, bias_apart, None if packed else steps)
        if packed:
            if unsorted_indices is not None:
                h_n = h_n.index_select(1, unsorted_indices)
                c_n = None if c_n is None else c_n.index_select(1, unsorted_indices)
            output = PackedSequence(out, batch_sizes_t, sorted_indices, unsorted_indices)
        else:
            output = out
            if self.batch_first:  # as torch.lstm / gru / rnn_*: only lstm's is out of place
                output = output.transpose(0, 1) if is_lstm else output.transpose_(0, 1)
            if unbatched:
                output = output.squeeze(batch_dim)
                h_n = h_n.squeeze(1)
                c_n = None if c_n is None else c_n.squeeze(1)
        return output, ((h_n, c_n) if is_lstm else h_n)


def input_dtype(input):
    return input.data.dtype if isinstance(input, PackedSequence) else input.dtype


def input_device(input):
    return input.data.device if isinstance(input, PackedSequence) else input.device


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory; gates in PyTorch's order (input, forget, cell, output);
    ``proj_size > 0`` projects ``h`` with ``weight_hr``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit; gates in PyTorch's order (reset, update, new)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# --- cells ---------------------------------------------------------------------------------------


class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:  # fmt: skip
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(
            empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype)
        )
        self.weight_hh = Parameter(
            empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype)
        )
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check(self, input: Tensor, hx: Tensor, which: str) -> None:
        # shapes read once (a user loop over time steps checks two states a step); ``input``
        # is 2-D here, ``hx`` 1-D or 2-D: a 1-D one's size(1) raises size's error, as in PyTorch
        shape, hshape = input.shape, hx.shape
        if shape[1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {shape[1]} expected {self.input_size}"
            )
        if shape[0] != hshape[0]:
            raise RuntimeError(
                f"Input batch size {shape[0]} doesn't match {which} batch size {hshape[0]}"
            )
        hidden = hshape[1] if len(hshape) > 1 else hx.size(1)
        if hidden != self.hidden_size:
            raise RuntimeError(
                f"{which} has inconsistent hidden_size: got {hidden}, expected {self.hidden_size}"
            )

    def _batched(self, input: Tensor) -> bool:
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        return input.dim() == 2


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx=None) -> Tensor:
        batched = self._batched(input)
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity not in ("tanh", "relu"):  # before the shape checks, as in PyTorch
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check(input, hx, "hidden0")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        ret, _ = rnn_cell(mode, input, hx, None, self.weight_ih, self.weight_hh, self.bias_ih,
                          self.bias_hh)  # fmt: skip
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx=None):
        batched = self._batched(input)
        if hx is not None and hx[0].dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected hx[0] to be 1D or 2D, got {hx[0].dim()}D instead")
        if hx is not None and hx[1].dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected hx[1] to be 1D or 2D, got {hx[1].dim()}D instead")
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check(input, hx[0], "hidden0")
        self._check(input, hx[1], "hidden1")
        h, c = rnn_cell("LSTM", input, hx[0], hx[1], self.weight_ih, self.weight_hh, self.bias_ih,
                        self.bias_hh)  # fmt: skip
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx=None) -> Tensor:
        batched = self._batched(input)
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        self._check(input, hx, "hidden0")
        h, _ = rnn_cell("GRU", input, hx, None, self.weight_ih, self.weight_hh, self.bias_ih,
                        self.bias_hh)  # fmt: skip
        return h if batched else h.squeeze(0)
