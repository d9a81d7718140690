"""Models and functions for the torch.fx tests, written once as source and built with either
library bound to ``torch`` (taimatsu or PyTorch), so both trace the very same code."""

from __future__ import annotations

import numpy as np

SOURCE = """
import math
import operator
nn = torch.nn
F = torch.nn.functional


def scaled(x):
    return x * 2 + 1


torch.fx.wrap("scaled")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)
        self.drop = nn.Dropout(0.0)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.drop(x)
        return torch.softmax(self.fc2(x), dim=1)


class ResidualConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)
        self.body = nn.Sequential(nn.Conv2d(2, 2, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(2, 5)

    def forward(self, x):
        y = F.relu(self.bn(self.conv1(x)))
        y = self.body(y) + x
        y = F.max_pool2d(y, 2)
        y = torch.flatten(self.pool(y), 1)
        return self.head(y)


class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3) * 0.5)
        self.register_buffer("offset", torch.arange(3.0))
        self.inner = nn.Module()
        self.inner.weight = nn.Parameter(torch.ones(3, 3) / 3)

    def forward(self, x, bias=None):
        y = x * self.scale + self.offset
        y = y @ self.inner.weight.T
        z = y.view(-1, 3).sum(1, keepdim=True)
        w = torch.add(y, z, alpha=2)
        first, second = torch.split(w, 1, dim=0)
        return {"out": scaled(w).mean(dim=-1), "parts": [first, second], "rows": y.size(0)}


class Methods(nn.Module):
    def forward(self, x, y):
        a = x.permute(1, 0).contiguous().reshape(-1)
        b = (x[0] - y[:, 1]).abs().clamp(min=0.1).pow(2)
        c = torch.cat([x, y], dim=0).max(dim=1).values
        d = -x / (y + 3) // 2
        e = torch.where(x > y, x, y).transpose(0, 1)
        return a, b, c, d, e, x.shape, x.dtype, (x == y), ~(x < y)


@torch.fx.wrap
def deco(x, k=2):
    return x * k


class Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x, scale=1.0, *, shift=0):
        return self.lin(x) * scale + shift


class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.k = 3
        self.weight = nn.Parameter(torch.ones(3, 3))

    def forward(self, x, mask):
        y = self.sub(x, 2.0, shift=1)
        y = y.view(y.size(0), -1)[:, 1:3, None, ...]
        z = torch.zeros(x.shape, dtype=torch.float64)
        w = x.to(torch.float64) + z
        v = x.clamp(max=float("inf"), min=-float("inf"))
        u = x.masked_fill(mask, 0) @ self.weight.t()
        t = F.dropout(x, training=self.training) * self.k
        x2 = x.clone()
        x2 += 1
        q = deco(x2, k=3)
        r = x.to("cpu")
        return (y, (w, None), v, u, t, q, r, x.shape[1], x.dim(), x.ndim)


class VarArgs(nn.Module):
    def forward(self, x, *rest, scale=2, **named):
        return x * scale + rest[0] + named["k"]


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=8, n_head=2, block=4):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        self.n_embd = n_embd
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class GPTBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.ln_1 = nn.LayerNorm(8)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(8)
        self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(8, 32), c_proj=nn.Linear(32, 8), act=nn.GELU()))
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, idx, x):
        x = x + self.emb(idx)
        x = x + self.attn(self.ln_1(x))
        m = self.mlp
        x = x + m.c_proj(m.act(m.c_fc(self.ln_2(x))))
        a, _ = self.mha(x, x, x, need_weights=False)
        return x + a


class BasicBlock(nn.Module):
    expansion = 1
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False); self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False); self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)
class ResNetLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.layers = nn.ModuleList([BasicBlock(4, 4), BasicBlock(4, 8, 2, nn.Sequential(nn.Conv2d(4, 8, 1, 2, bias=False), nn.BatchNorm2d(8)))])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1)); self.fc = nn.Linear(8, 3)
    def forward(self, x):
        x = self.stem(x)
        for layer in self.layers:
            x = layer(x)
        for i in range(2):
            x = x * (i + 1)
        return self.fc(torch.flatten(self.avgpool(x), 1))


imported_relu = F.relu  # a torch function under another global name


class Held(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.sigmoid  # a torch function held by the module

    def forward(self, x):
        return self.act(imported_relu(x))


def functional(x, y):
    h = torch.relu(x) + torch.mul(y, 3.0)
    h = torch.tanh(h) - F.gelu(h) + F.leaky_relu(h, 0.2)
    return F.log_softmax(h, dim=-1).sum() + F.mse_loss(h, y)
"""


def build(lib):
    """The models above, with ``torch`` bound to ``lib``."""
    namespace = {"torch": lib, "__name__": "fxmodels"}
    exec(compile(SOURCE, "<fxmodels>", "exec"), namespace)  # noqa: S102
    return namespace


def copy_weights(src, dst, to_dst) -> None:
    """Load ``src``'s parameters and buffers into ``dst`` (the other library's module)."""
    state = {k: to_dst(np.array(v.detach().numpy())) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)
