"""Recurrent layers in float16/bfloat16 (CPU autocast, half modules) against PyTorch.

- Under ``autocast("cpu", dtype=float16)`` PyTorch sends a plain LSTM layer to oneDNN in float16,
  which on a CPU without float16 kernels (no AVX512-FP16/AMX-FP16) cannot create its primitive:
  a RuntimeError, not a result.
- A ``batch_first`` input is a non-contiguous (time, batch, input) tensor, for which PyTorch's
  ``linear`` adds the bias after the product (two roundings in a half type): the layers computed
  op by op give PyTorch's bits only when that is followed.
- An empty sequence is PyTorch's RuntimeError; an LSTM with projections on oneDNN's input warns.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import taimatsu as tm
from taimatsu.ops.nn.rnn import _onednn_fp16

LAYERS = {
    "gru": lambda L: L.nn.GRU(3, 4, batch_first=True),
    "gru_2layer_bi": lambda L: L.nn.GRU(3, 4, 2, batch_first=True, bidirectional=True),
    "rnn": lambda L: L.nn.RNN(3, 4, batch_first=True),
    "lstm_proj": lambda L: L.nn.LSTM(3, 4, batch_first=True, proj_size=2),
}


def _run(lib, make, dtype, half_module):
    lib.manual_seed(0)
    m = make(lib)
    x = lib.randn(2, 5, 3)
    dt = getattr(lib, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the projections warning (tested below)
        if half_module:
            out = m.to(dt)(x.to(dt))
        else:
            with lib.autocast("cpu", dtype=dt):
                out = m(x)
    h = out[1][0] if isinstance(out[1], tuple) else out[1]
    return [out[0], h]


@pytest.mark.parametrize("half_module", [False, True], ids=["autocast", "half_module"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_batch_first_layers_bit_exact(torch_oracle, name, dtype, half_module):
    ours = _run(tm, LAYERS[name], dtype, half_module)
    theirs = _run(torch_oracle, LAYERS[name], dtype, half_module)
    for a, b in zip(ours, theirs):
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(a.detach().float().numpy(), b.detach().float().numpy())


LSTMS = {
    "batch_first": lambda L, x: L.nn.LSTM(3, 4, batch_first=True)(x),
    "2layer_bi": lambda L, x: L.nn.LSTM(3, 4, 2, bidirectional=True)(x),
    "unbatched": lambda L, x: L.nn.LSTM(3, 4)(x[0]),
}


@pytest.mark.skipif(_onednn_fp16(), reason="this CPU has oneDNN float16 kernels")
@pytest.mark.parametrize("name", sorted(LSTMS))
def test_float16_autocast_lstm_refused(torch_oracle, name):
    errors = []
    for lib in (tm, torch_oracle):
        lib.manual_seed(0)
        with lib.autocast("cpu", dtype=lib.float16), pytest.raises(RuntimeError) as e:
            LSTMS[name](lib, lib.randn(2, 5, 3))
        errors.append(str(e.value))
    assert errors[0] == errors[1]
    assert "could not create a primitive descriptor" in errors[0]


def test_float16_autocast_lstm_paths_that_run(torch_oracle):
    """Not oneDNN's float16 layer: a half input, float64, an LSTMCell."""
    for lib in (tm, torch_oracle):
        lib.manual_seed(0)
        m = lib.nn.LSTM(3, 4)
        with lib.autocast("cpu", dtype=lib.float16):
            assert m(lib.randn(5, 2, 3).half())[0].dtype == lib.float16
            assert lib.nn.LSTMCell(3, 4)(lib.randn(2, 3))[0].dtype == lib.float32
            assert m.double()(lib.randn(5, 2, 3, dtype=lib.float64))[0].dtype == lib.float64


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_empty_sequence(torch_oracle, mode):
    for lib in (tm, torch_oracle):
        m = getattr(lib.nn, mode)(3, 4, batch_first=True)
        with pytest.raises(
            RuntimeError, match="^Expected sequence length to be larger than 0 in RNN$"
        ):
            m(lib.randn(2, 0, 3))


def test_projections_warning(torch_oracle):
    messages = []
    for lib in (tm, torch_oracle):
        lib.set_warn_always(True)  # PyTorch warns once per process
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                lib.nn.LSTM(3, 4, proj_size=2)(lib.randn(5, 2, 3))
                lib.nn.LSTM(3, 4, proj_size=2).double()(lib.randn(5, 2, 3, dtype=lib.float64))
        finally:
            lib.set_warn_always(False)
        messages.append([(x.category, str(x.message)) for x in w])
    assert messages[0] == messages[1]
    assert len(messages[0]) == 1
