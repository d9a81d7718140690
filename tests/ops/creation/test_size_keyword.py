"""Factories called with PyTorch's ``size=`` keyword (``torch.empty(size=(3, 4))``, as the GAT example
in pytorch/examples writes it) and without any size, against PyTorch.

zeros/ones/empty/rand/randn take their sizes as ``*size`` or ``size=``; giving both, or neither,
is a TypeError in PyTorch (``torch.zeros()`` is no 0-d tensor). Seeded draws must give PyTorch's
numbers whichever spelling is used.
"""

from __future__ import annotations

import pytest
from oracle_expr import same

import taimatsu

torch = pytest.importorskip("torch")

FACTORIES = ["zeros", "ones", "empty", "rand", "randn"]
CASES = [
    "T.{f}(size=(2, 3))",
    "T.{f}(size=[2])",
    "T.{f}(size=T.Size([2, 1]))",
    "T.{f}(size=())",
    "T.{f}(size=(2, 3), dtype=T.float64).dtype",
    "T.{f}(size=(2,), requires_grad=True).requires_grad",
    "T.{f}()",
    "T.{f}(2, size=(3,))",
    "T.{f}((2,), size=(3,))",
    "T.{f}(size=3)",
    "T.{f}(size=(2, -1))",
    "T.{f}(size=(2,), bogus=1)",
    "o = T.ones(4); T.{f}(size=(2, 2), out=o); o.shape",
]


@pytest.mark.parametrize("code", CASES)
@pytest.mark.parametrize("f", FACTORIES)
def test_size_keyword(f: str, code: str) -> None:
    seed = "T.manual_seed(0); " if f.startswith("rand") else ""
    code = code.format(f=f)
    if f == "empty" and code.endswith(")"):  # uninitialised memory: compare what is defined
        code = f"x = {code}; (x.shape, x.dtype)"
    same(seed + code, torch, taimatsu)


def test_size_keyword_draws_pytorch_numbers() -> None:
    for f in ("rand", "randn"):
        torch.manual_seed(3)
        want = getattr(torch, f)(size=(3, 4), generator=None)
        taimatsu.manual_seed(3)
        got = getattr(taimatsu, f)(size=(3, 4))
        assert got.tolist() == want.tolist()
        g, h = torch.Generator().manual_seed(5), taimatsu.Generator().manual_seed(5)
        assert (
            getattr(taimatsu, f)(size=(2,), generator=h).tolist()
            == getattr(torch, f)(size=(2,), generator=g).tolist()
        )


def test_gat_parameter_spelling() -> None:
    """The GAT example's line: ``nn.Parameter(torch.empty(size=(in, out)))`` then xavier init."""
    for T in (torch, taimatsu):
        T.manual_seed(0)
        w = T.nn.Parameter(T.empty(size=(5, 4)))
        T.nn.init.xavier_normal_(w, gain=1.414)
        if T is torch:
            want = w.tolist()
    assert w.tolist() == want
