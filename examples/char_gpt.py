"""A character-level GPT (nanoGPT-style): a small decoder-only transformer that learns to
continue text one character at a time.

    python examples/char_gpt.py                      # trains on the Zen of Python, then samples
    python examples/char_gpt.py --text input.txt --steps 2000 --block-size 64

The model: token and position embeddings, pre-LayerNorm transformer blocks (causal
self-attention through F.scaled_dot_product_attention, then a GELU MLP), a final LayerNorm and
a linear head tied to the token embedding. Training: random windows of the text, next-character
cross-entropy, AdamW with warm-up and cosine decay, gradient clipping. Sampling: keep the top-k
logits (torch.topk), softmax with a temperature, then torch.multinomial.

The default text is the Zen of Python (PEP 20, public domain), which ships with every Python
as the `this` module, so the script needs no download; --text trains on any UTF-8 file.
"""

import argparse
import codecs
import contextlib
import io
import math
import time
from pathlib import Path

import taimatsu as torch
import taimatsu.nn.functional as F
from taimatsu import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        # (B, T, C) -> (B, heads, T, C / heads): every head attends over the sequence separately
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # no peeking ahead
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd)
        )

    def forward(self, x):
        x = x + self.attn(self.ln1(x))  # residual connections around both sub-layers
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, block_size: int, n_embd: int, n_head: int, n_layer: int):
        super().__init__()
        self.block_size = block_size
        self.tok = nn.Embedding(vocab, n_embd)
        self.pos = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab, bias=False)
        self.head.weight = self.tok.weight  # weight tying, as in GPT-2
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                nn.init.normal_(p, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        logits = self.head(self.ln_f(self.blocks(x)))
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))

    @torch.no_grad()
    def generate(self, idx, n: int, temperature: float = 0.8, top_k: int = 10):
        for _ in range(n):
            logits, _ = self(idx[:, -self.block_size :])
            logits = logits[:, -1, :] / temperature  # < 1 sharpens the distribution
            kth = torch.topk(logits, min(top_k, logits.shape[-1])).values[:, -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))  # only the k likeliest
            nxt = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


def zen_of_python() -> str:
    with contextlib.redirect_stdout(io.StringIO()):  # `import this` prints the poem
        import this
    return codecs.decode(this.s, "rot13") + "\n"


def positive_int(text: str) -> int:
    if int(text) < 1:  # argparse reports a ValueError from int() as an invalid value
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return int(text)


def non_negative_int(text: str) -> int:
    if int(text) < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return int(text)


def positive_float(text: str) -> float:
    if not 0 < float(text) < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return float(text)


def seed_int(text: str) -> int:
    if not -(2**63) <= int(text) < 2**64:  # what torch.manual_seed accepts
        raise argparse.ArgumentTypeError(f"must be in [-2**63, 2**64), got {text}")
    return int(text)


def parse_args(argv=None) -> tuple:
    """The arguments, and the training text (checked here: it must be longer than a block)."""
    p = argparse.ArgumentParser(description="character-level GPT (nanoGPT-style)")
    p.add_argument("--text", default=None, help="UTF-8 text file (default: the Zen of Python)")
    dflt = "(default: %(default)s)"
    p.add_argument("--steps", type=positive_int, default=600, help="training steps " + dflt)
    p.add_argument("--batch-size", type=positive_int, default=16, help="windows per batch " + dflt)
    p.add_argument("--block-size", type=positive_int, default=32, help="context length " + dflt)
    p.add_argument("--n-embd", type=positive_int, default=64, help="embedding width " + dflt)
    p.add_argument("--n-head", type=positive_int, default=4, help="must divide --n-embd " + dflt)
    p.add_argument("--n-layer", type=positive_int, default=2, help="transformer blocks " + dflt)
    p.add_argument("--lr", type=positive_float, default=3e-3, help="peak learning rate " + dflt)
    p.add_argument(
        "--sample-chars", type=non_negative_int, default=200, help="characters to generate " + dflt
    )
    p.add_argument("--seed", type=seed_int, default=0, help=dflt)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="train on " + dflt)
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("argument --device: cuda: no CUDA device is available")
    if args.n_embd % args.n_head:
        p.error(f"argument --n-head: {args.n_head} does not divide --n-embd {args.n_embd}")
    try:
        text = zen_of_python() if args.text is None else Path(args.text).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        p.error(f"argument --text: cannot read {args.text}: {getattr(e, 'strerror', None) or e}")
    # A training window is block_size characters plus the one that follows it.
    if len(text) < args.block_size + 2:
        p.error(f"--block-size {args.block_size}: the text has only {len(text)} characters")
    return args, text


def main() -> None:
    args, text = parse_args()
    torch.manual_seed(args.seed)

    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    print(f"text: {len(text):,} characters, vocabulary of {len(chars)}")

    model = GPT(len(chars), args.block_size, args.n_embd, args.n_head, args.n_layer).to(args.device)
    print(f"model: {sum(p.numel() for p in model.parameters()):,} parameters")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, args.steps // 10)

    def lr_factor(step: int) -> float:  # linear warm-up, then cosine decay to 10%
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, args.steps - warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor)

    started = time.perf_counter()
    for step in range(1, args.steps + 1):
        # A batch of random windows; the targets are the same windows shifted by one.
        starts = torch.randint(len(data) - args.block_size - 1, (args.batch_size,))
        x = torch.stack([data[s : s + args.block_size] for s in starts.tolist()])
        y = torch.stack([data[s + 1 : s + 1 + args.block_size] for s in starts.tolist()])
        _, loss = model(x.to(args.device), y.to(args.device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        if step == 1 or step % 100 == 0 or step == args.steps:
            print(f"step {step:4d}: loss {loss.item():.3f}")
    print(f"trained in {time.perf_counter() - started:.1f} s")

    model.eval()
    prompt = torch.tensor([[stoi[c] for c in text[:16]]], device=args.device)
    out = model.generate(prompt, args.sample_chars)[0].tolist()
    print("sample:")
    print("".join(chars[i] for i in out))


if __name__ == "__main__":
    main()
