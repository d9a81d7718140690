"""Tensor shape methods and ``new_*`` factories called with PyTorch's keyword names
(``x.view(size=...)``, ``x.reshape(shape=...)``, ``x.permute(dims=...)``, ``x.expand(size=...)``,
``x.repeat(repeats=...)``, ``x.view(dtype=...)``, ``x.new_zeros(size=...)``, ``torch.flip(x,
dims=...)``, ``x.swapaxes(axis0=, axis1=)``, ``tensor_split(sections=/indices=)``) and with no size at
all, against PyTorch: values, shapes, and TypeErrors (type and message).

Known deviation, checked by type only: an unknown keyword, or ``view(dtype=..., size=...)``,
raises TypeError with Python's wording where PyTorch's argument parser lists its signatures.
"""

from __future__ import annotations

import pytest
from oracle_expr import same

import taimatsu

torch = pytest.importorskip("torch")

T0 = "t = T.arange(6.).view(2, 3); "
CASES = [
    "t.view(size=(3, 2))",
    "t.view(size=[-1, 2])",
    "t.view(dtype=T.int32)",
    "t.view(T.float32).dtype",
    "t.view()",
    "t[0, 0].view()",
    "t[0, 0].view(())",
    "t.view(-1)",
    "t.reshape(shape=(6,))",
    "t.reshape(shape=T.Size([3, 2]))",
    "t.reshape()",
    "t.reshape(shape=6)",
    "t.reshape(6, shape=(6,))",
    "t.permute(dims=(1, 0))",
    "t.permute()",
    "t.permute(1, 0, dims=(1, 0))",
    "t.expand(size=(2, 2, 3))",
    "t.expand(size=(2, -1, -1))",
    "t.expand()",
    "t.repeat(repeats=(2, 1))",
    "t.repeat()",
    "t.new_zeros(size=(2,))",
    "t.new_ones(size=[3], dtype=T.int64)",
    "t.new_empty(size=(2, 2)).shape",
    "t.new_zeros()",
    "t.new_ones(2, size=(2,))",
    "t.flip(dims=(0,))",
    "t.flip(dims=[0, 1])",
    "t.flip()",
    "t.flip(0, dims=(0,))",
    "T.flip(t, dims=(1,))",
    "T.flip(t)",
    "t.swapaxes(axis0=0, axis1=1)",
    "t.clone().swapaxes_(axis0=0, axis1=1)",
    "t.swapdims(dim0=0, dim1=1)",
    "T.swapaxes(t, axis0=0, axis1=1)",
    "T.swapdims(t, dim0=1, dim1=0)",
    "T.swapaxes(t, 0, 1)",
    "t.tensor_split(sections=2)",
    "t.tensor_split(indices=[1], dim=1)",
    "t.tensor_split(tensor_indices_or_sections=T.tensor(2))",
    "T.tensor_split(t, sections=2, dim=1)",
    "t.tensor_split(2, 1)",
    "t.tensor_split(indices_or_sections=2)",
    "t.tensor_split()",
    "t.tensor_split(2, 1, 0)",
]


@pytest.mark.parametrize("code", CASES)
def test_shape_keyword(code: str) -> None:
    same(T0 + code, torch, taimatsu)


def test_keyword_spellings_keep_gradients() -> None:
    """The keyword spellings are the same ops: gradients with a random cotangent match PyTorch's."""
    grads = []
    for T in (torch, taimatsu):
        T.manual_seed(0)
        x = T.randn(2, 3, requires_grad=True)
        y = x.view(size=(3, 2)).permute(dims=(1, 0)).reshape(shape=(6,)).expand(size=(2, 6))
        y = y.repeat(repeats=(1, 2))
        y.backward(T.randn(2, 12))
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


@pytest.mark.parametrize(
    "code",
    ["t.view(3, 2, bogus=1)", "t.view(dtype=T.int32, size=(6,))", "t.swapaxes(dim0=0, dim1=1)"],
)
def test_parser_errors_are_type_errors(code: str) -> None:
    for T in (torch, taimatsu):
        t = T.arange(6.0).view(2, 3)
        with pytest.raises(TypeError):
            eval(code, {"T": T, "t": t})
