"""``MultiheadAttention``, ``TransformerEncoderLayer`` and ``TransformerEncoder``.

Parameters, registration order, default initialisation and reprs are PyTorch's. The computation
is PyTorch's reference ("slow") path written in Tensor ops; PyTorch's inference fast path
(``torch._native_multi_head_attention``) computes the same function, so eval-mode results agree
to rounding, but for query rows whose keys are all masked: NaN there (the softmax of the
scores), 0 from the reference path's fused attention. Where PyTorch's conditions for its fast
paths hold (``_takes_fast_path``), the scores' softmax is taken here too. Deviation: with ``enable_nested_tensor`` PyTorch's encoder returns zeros at padded
positions under ``no_grad`` in eval mode; we reproduce that by zeroing them (see
``TransformerEncoder.forward``).
"""

from __future__ import annotations

import copy
import warnings

from ..._flags import warn_once
from ..._tensor.core import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...ops.creation.factories import empty
from .. import functional as F
from .. import init
from .._functional.attention import _canonical_mask
from ..parameter import Parameter
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = [
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer",
]  # fmt: skip


class NonDynamicallyQuantizableLinear(Linear):
    """``MultiheadAttention.out_proj``: a plain ``Linear`` under PyTorch's class name (it shows in reprs)."""


class MultiheadAttention(Module):
    """PyTorch's ``nn.MultiheadAttention``; runs ``F.multi_head_attention_forward``."""

    def __init__(
        self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True, add_bias_kv: bool = False,
        add_zero_attn: bool = False, kdim=None, vdim=None, batch_first: bool = False, device=None, dtype=None,
    ) -> None:  # fmt: skip
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask=None, need_weights: bool = True,
        attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False,
    ):  # fmt: skip
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                "method `generate_square_subsequent_mask` to create this mask."
            )
        masked = key_padding_mask is not None or attn_mask is not None
        if (
            masked
            and not need_weights
            and self._takes_fast_path(query, key, value, key_padding_mask, attn_mask)
        ):
            # PyTorch's fast path computes the softmax of the scores, whose rows with every key
            # masked are NaN (its reference path's fused attention gives 0): the weights' path
            need_weights, keep_weights = True, False
        else:
            keep_weights = need_weights
        if self.batch_first and query.dim() == 3:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal,
        )  # fmt: skip
        if self.batch_first and query.dim() == 3:
            out = out.transpose(1, 0)
        return out, (weights if keep_weights else None)

    def _takes_fast_path(self, query, key, value, key_padding_mask, attn_mask) -> bool:
        """PyTorch's conditions for ``torch._native_multi_head_attention`` (inference, batched
        self-attention with packed projections, an even number of heads, boolean masks)."""
        from ... import backends
        from ...amp.autocast_mode import is_autocast_enabled

        if any(m is not None and m.is_floating_point() for m in (key_padding_mask, attn_mask)):
            return False
        w, b = self.in_proj_weight, self.in_proj_bias
        if not (
            backends.mha.get_fastpath_enabled() and query.dim() == 3 and query is key
            and key is value and w is not None and b is not None and query.dtype == w.dtype
            and query.dtype == b.dtype and not self.training and self.num_heads % 2 == 0
            and self.batch_first and self.bias_k is None and self.bias_v is None
            and not self.add_zero_attn and self._qkv_same_embed_dim and not is_autocast_enabled()
        ):  # fmt: skip
            return False
        tensors = (query, w, b, self.out_proj.weight, self.out_proj.bias)
        return not (is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors))


def _activation(name):
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual and LayerNorm (post-norm by
    default, pre-norm with ``norm_first``)."""

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1, activation="relu",
        layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False, bias: bool = True,
        device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation(activation)
        if activation is F.relu or type(activation).__name__ == "ReLU":
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or type(activation).__name__ == "GELU":
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(
        self, src: Tensor, src_mask=None, src_key_padding_mask=None, is_causal: bool = False
    ) -> Tensor:
        src_key_padding_mask = _canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", _dtype_of(src_mask), "src_mask", src.dtype
        )
        src_mask = _canonical_mask(src_mask, "src_mask", None, None, src.dtype)
        # PyTorch's fast path (torch._transformer_encoder_layer_fwd) takes the softmax of the
        # scores: a query whose keys are all masked gives NaN, not the fused attention's 0
        softmax = (
            src_mask is not None or src_key_padding_mask is not None
        ) and self._takes_fast_path(src)
        x = src
        if self.norm_first:
            x = x + self._sa_block(
                self.norm1(x), src_mask, src_key_padding_mask, is_causal, softmax
            )
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(
                x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal, softmax)
            )
            x = self.norm2(x + self._ff_block(x))
        return x

    def _takes_fast_path(self, src) -> bool:
        """PyTorch's conditions for its inference fast path of this layer."""
        from ... import backends
        from ...amp.autocast_mode import is_autocast_enabled

        attn = self.self_attn
        if not (
            backends.mha.get_fastpath_enabled() and src.dim() == 3 and not self.training
            and attn.batch_first and attn.in_proj_bias is not None and attn._qkv_same_embed_dim
            and self.activation_relu_or_gelu and self.norm1.eps == self.norm2.eps
            and attn.num_heads % 2 == 0 and not is_autocast_enabled()
            and not any(m._forward_hooks or m._forward_pre_hooks for m in self.modules())
        ):  # fmt: skip
            return False
        tensors = (
            src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
            self.norm1.weight, self.norm1.bias, self.norm2.weight, self.norm2.bias,
            self.linear1.weight, self.linear1.bias, self.linear2.weight, self.linear2.bias,
        )  # fmt: skip
        return not (is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal, softmax=False):
        # ``softmax``: the scores' softmax (the weights' path), as PyTorch's fast path computes
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=softmax,
                           is_causal=is_causal and attn_mask is not None)[0]  # fmt: skip
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_no_nested_tensor(layer) -> str:
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer``, then an optional final ``norm``."""

    def __init__(self, encoder_layer, num_layers: int, norm=None, enable_nested_tensor: bool = True,
                 mask_check: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(
                f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                stacklevel=2,  # at the line that builds the encoder, as PyTorch's
            )
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask=None, src_key_padding_mask=None, is_causal=None) -> Tensor:
        src_key_padding_mask = _canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", _dtype_of(mask), "mask", src.dtype
        )
        mask = _canonical_mask(mask, "mask", None, None, src.dtype)
        # PyTorch's inference path packs the batch into a nested tensor and pads the result back
        # with zeros, so padded positions come out as 0 there.
        zero_padded = (
            self.use_nested_tensor and not self.training and src.dim() == 3 and mask is None
            and src_key_padding_mask is not None and self.layers[0].self_attn.batch_first
            and not (is_grad_enabled() and any(p.requires_grad for p in self.parameters()))
            and not src.requires_grad
        )  # fmt: skip
        output = src
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=bool(is_causal),
                src_key_padding_mask=src_key_padding_mask,
            )
        if zero_padded:
            keep = src_key_padding_mask == 0
            rows = keep.tolist()
            if self.mask_check and any(r[i] < r[i + 1] for r in rows for i in range(len(r) - 1)):
                zero_padded = False  # PyTorch only nests masks that keep a prefix of each row
        if zero_padded:
            warn_once("nested_tensor_prototype", _NESTED_PROTOTYPE)
            output = output.masked_fill(~keep.unsqueeze(-1), 0.0)  # +0, as the nested tensor pads
        if self.norm is not None:
            output = self.norm(output)
        return output


def _dtype_of(mask):
    return None if mask is None else mask.dtype


# PyTorch's inference path warns (once) as it builds its nested tensor
_NESTED_PROTOTYPE = (
    "The PyTorch API of nested tensors is in prototype stage and will change in the near future. We "
    "recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout receives "
    "active development, has better operator coverage, and works with torch.compile. (Triggered internally "
    "at /__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)"
)


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    from ...ops.creation.factories import full

    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _detect_is_causal_mask(mask, is_causal=None, size=None) -> bool:
    """``is_causal`` if given, else whether ``mask`` equals the square causal mask (PyTorch's rule)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = mask.size() == causal.size() and bool((mask == causal).all())
    return make_causal


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention over ``memory``, then a feed-forward block; each with a
    residual and LayerNorm (post-norm by default, pre-norm with ``norm_first``)."""

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1, activation="relu",
        layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False, bias: bool = True,
        device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation) if isinstance(activation, str) else activation

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
        memory_key_padding_mask=None, tgt_is_causal: bool = False, memory_is_causal: bool = False,
    ) -> Tensor:  # fmt: skip
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]  # fmt: skip
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]  # fmt: skip
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer``, then an optional final ``norm``."""

    def __init__(self, decoder_layer, num_layers: int, norm=None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
        memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal: bool = False,
    ) -> Tensor:  # fmt: skip
        output = tgt
        batch_first = self.layers[0].self_attn.batch_first
        if tgt.dim() == 2:
            seq_len = tgt.size(0)
        else:
            seq_len = tgt.size(1 if batch_first else 0)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(
                output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal,
            )  # fmt: skip
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """PyTorch's ``nn.Transformer``: an encoder stack and a decoder stack, each with a final LayerNorm,
    every matrix re-initialised with ``xavier_uniform_``."""

    def __init__(
        self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
        dim_feedforward: int = 2048, dropout: float = 0.1, activation=F.relu, custom_encoder=None,
        custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
        bias: bool = True, device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        args = (
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            batch_first,
            norm_first,
            bias,
        )
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*args, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*args, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self, src: Tensor, tgt: Tensor, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
        tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
        memory_is_causal: bool = False,
    ) -> Tensor:  # fmt: skip
        is_batched = src.dim() == 3
        bdim = 0 if self.batch_first else 1
        if is_batched and src.size(bdim) != tgt.size(bdim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)  # fmt: skip
        return self.decoder(
            tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )  # fmt: skip

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
