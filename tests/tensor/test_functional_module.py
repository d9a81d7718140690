"""torch.functional and torch.types against PyTorch 2.13: the same public names; torch.functional's
functions are the torch.* ones (and give PyTorch's results through the module); torch.types' aliases
are built from taimatsu's classes as PyTorch's are from torch's."""

from __future__ import annotations

import os
import typing

import numpy as np
import pytest

import taimatsu as T

torch = pytest.importorskip("torch")


def test_functional_names_are_pytorchs():
    assert sorted(T.functional.__all__) == sorted(torch.functional.__all__)


@pytest.mark.parametrize("name", sorted(T.functional.__all__))
def test_functional_names_are_the_torch_functions(name):
    assert getattr(T.functional, name) is getattr(T, name)


def _same(call, rtol=1e-6):
    g = np.random.default_rng(0)
    arrays = [g.standard_normal(s).astype(np.float32) for s in [(3, 4), (4, 5), (2, 3, 4)]]
    ours = call(T, [T.tensor(a) for a in arrays])
    theirs = call(torch, [torch.tensor(a) for a in arrays])
    if isinstance(theirs, torch.Size):
        assert tuple(ours) == tuple(theirs) and type(ours).__name__ == "Size"
        return
    if not isinstance(theirs, (tuple, list)):
        ours, theirs = [ours], [theirs]
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs, strict=True):
        if isinstance(t, torch.Tensor):
            assert str(o.dtype) == str(t.dtype)
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=rtol, atol=1e-6)
        else:
            assert o == t


CALLS = {
    "einsum": lambda L, x: L.functional.einsum("ij,jk->ik", x[0], x[1]),
    "tensordot": lambda L, x: L.functional.tensordot(x[2], x[1], dims=1),
    "split": lambda L, x: L.functional.split(x[1], [1, 3], dim=0),
    "meshgrid": lambda L, x: L.functional.meshgrid(x[0][0], x[1][0], indexing="xy"),
    "broadcast_shapes": lambda L, x: L.functional.broadcast_shapes((3, 1), (1, 4), (2, 1, 1)),
    "broadcast_tensors": lambda L, x: L.functional.broadcast_tensors(x[0], x[2]),
    "atleast_3d": lambda L, x: L.functional.atleast_3d(x[0], x[0][0]),
    "block_diag": lambda L, x: L.functional.block_diag(x[0], x[1]),
    "cartesian_prod": lambda L, x: L.functional.cartesian_prod(x[0][0], x[1][1]),
    "cdist": lambda L, x: L.functional.cdist(x[0], x[1][:, :4].T),
    "norm": lambda L, x: L.functional.norm(x[2], dim=(0, 2)),
    "unique": lambda L, x: L.functional.unique(
        (x[1] * 2).round(), return_inverse=True, return_counts=True
    ),
    "unique_consecutive": lambda L, x: L.functional.unique_consecutive(
        (x[1].flatten() > 0).float(), return_counts=True
    ),
    "unravel_index": lambda L, x: L.functional.unravel_index(L.tensor([0, 7, 11]), (3, 4)),
    "lu": lambda L, x: L.functional.lu(x[1][:, :4]),
}


@pytest.mark.filterwarnings("ignore:torch.lu is deprecated")
@pytest.mark.parametrize("name", list(CALLS))
def test_functional_calls(name):
    _same(CALLS[name], rtol=1e-5)


def test_types_names():
    assert sorted(T.types.__all__) == sorted(torch.types.__all__)


def test_types_aliases():
    t = T.types
    assert t.Number == int | float | bool
    assert t._Number == (int, float, bool)
    assert isinstance(2.5, t._Number) and not isinstance("2", t._Number)
    assert t.FileLike == str | os.PathLike[str] | typing.IO[bytes]
    assert typing.get_args(t.Device) == (T.device, str, int, type(None))
    assert typing.get_args(t._size) == (T.Size, list[int], tuple[int, ...])
    assert typing.get_args(t._TensorOrTensors)[0] is T.Tensor
    assert (t._bool, t._int, t._float, t._complex, t._str, t._bytes) == (
        bool,
        int,
        float,
        complex,
        str,
        bytes,
    )
    assert (t._dtype, t._device, t._layout, t.Size, t.Tensor) == (
        T.dtype,
        T.device,
        T.layout,
        T.Size,
        T.Tensor,
    )


def test_types_storage_interface():
    def methods(cls):
        return sorted(n for n, v in vars(cls).items() if callable(v))

    assert methods(T.types.Storage) == methods(torch.types.Storage)
    assert T.types.Storage.__annotations__.keys() == torch.types.Storage.__annotations__.keys()
    with pytest.raises(NotImplementedError):
        T.types.Storage().element_size()
