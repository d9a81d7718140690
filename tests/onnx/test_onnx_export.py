"""torch.onnx.export: the exported file runs in onnxruntime and gives taimatsu's outputs; ops
without a translation raise an error naming them. Skipped without onnx / onnxruntime."""

from __future__ import annotations

import io

import numpy as np
import pytest

import taimatsu as torch

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
nn, F = torch.nn, torch.nn.functional


def _roundtrip(model, *inputs, **kwargs):
    buf = io.BytesIO()
    torch.onnx.export(model, inputs, buf, **kwargs)
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    feeds = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)}
    got = session.run(None, feeds)
    with torch.no_grad():
        model.eval()
        expected = model(*inputs)
    expected = list(_flat(expected))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-4, atol=1e-5)
    return session


def _flat(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _flat(v)
    else:
        yield value


class _Acts(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(6, 16), nn.Linear(16, 4)
        self.acts = nn.Sequential(
            nn.ReLU(), nn.Dropout(0.5), nn.GELU(approximate="tanh"), nn.SiLU()
        )

    def forward(self, x):
        y = self.acts(self.l1(x))
        y = F.leaky_relu(y, 0.2) + F.elu(y, 0.5) - F.hardtanh(y, -0.5, 0.5) * F.gelu(y)
        y = F.relu6(torch.sigmoid(y) * 8) + torch.tanh(y)
        z = self.l2(y)
        return F.softmax(z, dim=-1), F.log_softmax(z, dim=1)


def test_mlp_and_activations():
    torch.manual_seed(0)
    _roundtrip(_Acts(), torch.randn(5, 6))


def _cnn():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding="same"),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2, ceil_mode=True),
        nn.Conv2d(8, 8, 3, stride=2, padding=1, dilation=1, groups=2),
        nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False),
        nn.Conv2d(8, 6, 1, bias=False),
        nn.AdaptiveAvgPool2d((1, 1)),
        nn.Flatten(),
        nn.Linear(6, 3),
    )


def test_cnn_with_trained_batch_norm():
    model = _cnn()
    model.train()
    for _ in range(3):  # running statistics away from their initial values
        model(torch.randn(4, 3, 9, 9))
    _roundtrip(model, torch.randn(2, 3, 9, 9))
    assert not model.training  # _roundtrip put it in eval mode itself


def test_export_keeps_training_mode_and_writes_a_file(tmp_path):
    model = _cnn().train()
    path = tmp_path / "cnn.onnx"
    torch.onnx.export(model, (torch.randn(1, 3, 8, 8),), str(path), output_names=["logits"])
    assert model.training and all(m.training for m in model.modules())
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    assert [i.name for i in proto.graph.input] == ["input"]  # Sequential.forward(input)
    assert [o.name for o in proto.graph.output] == ["logits"]
    assert "0.weight" in {i.name for i in proto.graph.initializer}


class _Conv1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, 3, padding="valid")
        self.pool = nn.MaxPool1d(2)
        self.gap = nn.AdaptiveMaxPool1d(1)

    def forward(self, x):
        return self.gap(self.pool(self.conv(x))).squeeze(-1)


def test_conv1d_and_pooling():
    torch.manual_seed(0)
    _roundtrip(_Conv1d(), torch.randn(3, 2, 11))


class _Shapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 8)
        self.register_buffer("offset", torch.linspace(-1, 1, 4))

    def forward(self, x, y):
        b = x.shape[0]
        h = self.proj(x).view(b, 2, 2, 2).permute(0, 2, 1, 3).reshape(b, 8)
        h = torch.cat([h, y.transpose(0, 1).t()], dim=1)  # (b, 8 + 3)
        h = torch.stack([h, h * 0.5], dim=1).flatten(1)  # (b, 22)
        w = torch.ones(22, 4) / 22 + torch.arange(4.0)  # folded into a constant
        out = (h @ w + self.offset).unsqueeze(1).expand(b, 3, 4)
        out = (1 - out) ** 2 / 3 + out.clamp(min=-0.5, max=0.5)
        return out.mean(dim=(1,), keepdim=False) + out.sum(-1, keepdim=True).mean(1)


def test_reshapes_arithmetic_and_constants():
    torch.manual_seed(0)
    _roundtrip(_Shapes(), torch.randn(5, 4), torch.randn(5, 3))


class _Tokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Linear(8, 10)

    def forward(self, idx):
        h = self.norm(self.emb(idx))  # (B, T, 8): Linear on a 3-d input
        return self.head(F.gelu(h)).mean(dim=1)


def test_embedding_layer_norm_on_token_ids():
    torch.manual_seed(0)
    _roundtrip(_Tokens(), torch.randint(0, 10, (2, 5)))


class _Det(nn.Module):
    def forward(self, x):
        return torch.linalg.det(x)


class _Index(nn.Module):
    def forward(self, x):
        return torch.relu(x[:, :2])


def test_unsupported_ops_are_named():
    with pytest.raises(torch.onnx.errors.UnsupportedOperatorError) as info:
        torch.onnx.export(_Det(), (torch.randn(2, 3, 3),), io.BytesIO())
    assert str(info.value) == (
        "Exporting the operator 'aten::linalg_det' to ONNX opset version 18 is not supported."
    )
    with pytest.raises(torch.onnx.OnnxExporterError, match="indexing"):
        torch.onnx.export(_Index(), (torch.randn(2, 3),), io.BytesIO())
    with pytest.raises(torch.onnx.errors.UnsupportedOperatorError, match="aten::max_pool2d"):
        torch.onnx.export(
            nn.MaxPool2d(2, return_indices=True), (torch.randn(1, 1, 4, 4),), io.BytesIO()
        )
    with pytest.raises(torch.onnx.OnnxExporterError, match="dynamic"):
        torch.onnx.export(nn.ReLU(), (torch.randn(2),), io.BytesIO(), dynamic_axes={"input": [0]})


class _SelfAttention(nn.Module):
    """nanoGPT's attention block: one qkv projection, heads, causal SDPA, output projection."""

    def __init__(self, mask_kind):
        super().__init__()
        self.qkv, self.proj = nn.Linear(8, 24), nn.Linear(8, 8)
        self.mask_kind = mask_kind
        T = 5
        self.register_buffer("float_mask", torch.triu(torch.full((T, T), -1e4), diagonal=2))
        self.register_buffer("bool_mask", torch.rand(T, T) > 0.3)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (t.view(B, T, 2, C // 2).transpose(1, 2) for t in self.qkv(x).split(C, dim=2))
        kw = {"is_causal": True} if self.mask_kind == "causal" else {}
        if self.mask_kind in ("float", "bool"):
            kw["attn_mask"] = self.float_mask if self.mask_kind == "float" else self.bool_mask
        y = F.scaled_dot_product_attention(q, k, v, **kw)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


@pytest.mark.parametrize("mask_kind", ["causal", "float", "bool", "none"])
def test_scaled_dot_product_attention(mask_kind):
    torch.manual_seed(0)
    _roundtrip(_SelfAttention(mask_kind), torch.randn(2, 5, 8))


class _MHA(nn.Module):
    def __init__(self, need_weights, masks):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
        self.need_weights, self.masks = need_weights, masks
        self.register_buffer("pad", torch.tensor([[False, False, False, True], [False] * 4]))
        self.register_buffer("causal", torch.triu(torch.ones(3, 4, dtype=torch.bool), diagonal=1))

    def forward(self, x, memory):
        kw = {"key_padding_mask": self.pad, "attn_mask": self.causal} if self.masks else {}
        out, w = self.attn(x, memory, memory, need_weights=self.need_weights, **kw)
        return (out, w) if self.need_weights else out


@pytest.mark.parametrize(("need_weights", "masks"), [(True, False), (False, False), (True, True)])
def test_multihead_attention(need_weights, masks):
    torch.manual_seed(0)
    _roundtrip(_MHA(need_weights, masks), torch.randn(2, 3, 8), torch.randn(2, 4, 8))


class _Recurrent(nn.Module):
    def __init__(self, kind, **kw):
        super().__init__()
        self.rnn = getattr(nn, kind)(4, 3, **kw)
        self.head = nn.Linear(3 * (2 if kw.get("bidirectional") else 1), 2)
        self.kind = kind

    def forward(self, x, h0):
        state = (h0, h0 * 0.5) if self.kind == "LSTM" else h0
        out, state = self.rnn(x, state)
        h = state[0] if self.kind == "LSTM" else state
        return self.head(out), h


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize(
    "kw",
    [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True, "num_layers": 2}],
    ids=["plain", "2-layer-bidirectional", "batch-first"],
)
def test_recurrent_layers(kind, kw):
    torch.manual_seed(0)
    model = _Recurrent(kind, **kw)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    x = torch.randn(3, 5, 4) if kw.get("batch_first") else torch.randn(5, 3, 4)
    _roundtrip(model, x, torch.randn(layers, 3, 3))


def test_relu_rnn_and_no_initial_state():
    torch.manual_seed(0)
    _roundtrip(nn.RNN(4, 3, nonlinearity="relu"), torch.randn(5, 2, 4))
    _roundtrip(nn.LSTM(4, 3, bias=False), torch.randn(5, 2, 4))


def test_recurrent_refusals():
    with pytest.raises(torch.onnx.errors.UnsupportedOperatorError, match="'aten::lstm'.*proj_size"):
        torch.onnx.export(nn.LSTM(4, 3, proj_size=2), (torch.randn(2, 1, 4),), io.BytesIO())
    with pytest.raises(torch.onnx.errors.UnsupportedOperatorError, match="'aten::gru'.*batched"):
        torch.onnx.export(nn.GRU(4, 3), (torch.randn(2, 4),), io.BytesIO())


class _Pieces(nn.Module):
    def forward(self, x):
        a, b = torch.chunk(x, 2, dim=1)
        c, d, e = x.unbind(0)
        return torch.cat(list(x.split([1, 3], dim=1)), dim=1) * a.sum() + b.mean() + c + d * e


def test_split_chunk_unbind():
    _roundtrip(_Pieces(), torch.randn(3, 4))


def test_onnx_program_as_the_tutorial_uses_it(tmp_path):
    """PyTorch's tutorial: program = export(model, args, dynamo=True); program.optimize(); save."""
    model = _cnn().eval()
    x = torch.randn(2, 3, 8, 8)
    program = torch.onnx.export(model, (x,), dynamo=True)
    program.optimize()
    program.save(tmp_path / "cnn.onnx")
    onnx.checker.check_model(onnx.load(str(tmp_path / "cnn.onnx")))
    (y,) = program(x)
    with torch.no_grad():
        np.testing.assert_allclose(y.numpy(), model(x).numpy(), rtol=1e-4, atol=1e-5)
    assert isinstance(program.model_proto, onnx.ModelProto)
    assert torch.onnx.export(model, (x,), io.BytesIO(), dynamo=False) is None


def test_custom_function_is_refused_not_dropped():
    """A custom autograd.Function is one op of the trace (its forward's ops are inside it): the
    export names it instead of writing a model without it."""

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)

        def forward(self, x):
            return Square.apply(self.fc(x)) + 1

    with pytest.raises(
        torch.onnx.errors.UnsupportedOperatorError, match=r"prim::PythonOp\[Square\]"
    ):
        torch.onnx.export(Model(), (torch.ones(2, 3),), io.BytesIO())


def test_nested_tuple_inputs_are_flattened():
    """``export(model, (x, (h, c)))`` (word_language_model's call): one graph input per tensor,
    the nested argument named hidden_0, hidden_1; onnxruntime gives the model's outputs."""

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.LSTM(4, 5)
            self.fc = torch.nn.Linear(5, 3)

        def forward(self, x, hidden):
            out, (h, c) = self.rnn(x, hidden)
            return self.fc(out), (h, c)

    torch.manual_seed(0)
    model = Model().eval()
    x, hidden = torch.randn(6, 2, 4), (torch.randn(1, 2, 5), torch.randn(1, 2, 5))
    f = io.BytesIO()
    torch.onnx.export(model, (x, hidden), f)
    sess = ort.InferenceSession(f.getvalue())
    assert [i.name for i in sess.get_inputs()] == ["x", "hidden_0", "hidden_1"]
    got = sess.run(
        None, {"x": x.numpy(), "hidden_0": hidden[0].numpy(), "hidden_1": hidden[1].numpy()}
    )
    want = model(x, hidden)
    for g, w in zip(got, (want[0], *want[1])):
        np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-5, atol=1e-6)
