"""float32 transcendentals and activations on 4M elements: PyTorch vs taimatsu, time per call.

taimatsu computes these in float64 and rounds once (so they round like PyTorch's kernels); this
measures what that costs. Same code for both frameworks, as in ``bench_core.py``.

    python benchmarks/bench_float32_math.py            # full run
    python benchmarks/bench_float32_math.py --quick    # one iteration each (smoke run)
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_core import fmt_time, numpy_blas_threads, taimatsu, time_per_step, torch

N = 4 << 20


def _gelu_fwd_bwd(T, x):
    x = x.detach().requires_grad_()
    return T.autograd.grad(T.nn.functional.gelu(x), x, x)


FUNCTIONS = {
    "exp": lambda T, x: T.exp(x),
    "tanh": lambda T, x: T.tanh(x),
    "sin": lambda T, x: T.sin(x),
    "sigmoid": lambda T, x: T.sigmoid(x),
    "gelu": lambda T, x: T.nn.functional.gelu(x),
    "silu": lambda T, x: T.nn.functional.silu(x),
    "x ** 1.5": lambda T, x: x**1.5,
    "expm1": lambda T, x: T.expm1(x),
    "sinh": lambda T, x: T.sinh(x),
    "softplus": lambda T, x: T.nn.functional.softplus(x),
    "mish": lambda T, x: T.nn.functional.mish(x),
    "logsigmoid": lambda T, x: T.nn.functional.logsigmoid(x),
    "elu": lambda T, x: T.nn.functional.elu(x),
    "gelu tanh": lambda T, x: T.nn.functional.gelu(x, approximate="tanh"),
    "logaddexp": lambda T, x: T.logaddexp(x, x),
    "2 ** x": lambda T, x: 2.0**x,
    "gelu fwd+bwd": lambda T, x: _gelu_fwd_bwd(T, x),
    "log1p": lambda T, x: T.log1p(x.abs()),
    "atanh": lambda T, x: T.atanh(x / 8.5),
    "atan2": lambda T, x: T.atan2(x, x),
    "erfinv": lambda T, x: T.erfinv(x / 8.5),
    "softmax": lambda T, x: T.softmax(x.view(-1, 1024), -1),
    "log_softmax": lambda T, x: T.log_softmax(x.view(-1, 1024), -1),
}


def setup(T, fn):
    x = T.linspace(-8, 8, N, dtype=T.float32)
    return lambda: fn(T, x)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one iteration each (smoke run)")
    args = ap.parse_args(argv)
    if torch is not None:
        torch.set_num_threads(numpy_blas_threads() or os.cpu_count() or 1)
        print(f"torch intra-op threads: {torch.get_num_threads()}")
    head = f"{'4M float32':<12}{'torch':>12}{'taimatsu':>12}{'ratio':>9}"
    print(head)
    print("-" * len(head))
    for name, fn in FUNCTIONS.items():
        ta = time_per_step(setup(taimatsu, fn), args.quick)
        tt = time_per_step(setup(torch, fn), args.quick) if torch is not None else None
        ratio = f"{ta / tt:8.2f}x" if tt else "       -"
        tt_col = fmt_time(tt) if tt is not None else "-"
        print(f"{name:<12}{tt_col:>12}{fmt_time(ta):>12}{ratio:>9}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
