"""``torch.sparse.as_sparse_gradcheck``: a ``gradcheck`` that takes functions of sparse tensors.

The wrapped check only ever sees strided tensors: each sparse input that requires grad travels as
its structure (layout, shape, index tensors) plus a strided values tensor, and is rebuilt inside
the checked function by the sparse factory (whose gradient reaches the values); sparse outputs
that require grad are densified. Unless ``masked=True``, a sparse input is first given every
element of its shape (zeros filled in), so the check covers the unspecified elements too, as
PyTorch's does.
"""

from __future__ import annotations

from .._layout import sparse_coo, strided
from .._tensor.core import Tensor
from .compressed import BLOCK, ROW_COMPRESSED


class _Structure:
    """What rebuilds a sparse input around its values: layout, shape and index tensors."""

    __slots__ = ("coalesced", "indices", "layout", "shape")

    def __init__(self, t: Tensor):
        self.layout, self.shape = t.layout, tuple(t.shape)
        if t.layout is sparse_coo:
            self.indices, self.coalesced = (t._indices(),), t.is_coalesced()
        elif t.layout in ROW_COMPRESSED:
            self.indices, self.coalesced = (t.crow_indices(), t.col_indices()), None
        else:
            self.indices, self.coalesced = (t.ccol_indices(), t.row_indices()), None

    def rebuild(self, values: Tensor) -> Tensor:
        from .compressed import sparse_compressed_tensor
        from .construction import sparse_coo_tensor

        if self.layout is sparse_coo:
            return sparse_coo_tensor(
                self.indices[0], values, self.shape, is_coalesced=self.coalesced,
                check_invariants=False,
            )  # fmt: skip
        return sparse_compressed_tensor(
            *self.indices, values, self.shape, layout=self.layout, check_invariants=False
        )


def _every_element(t: Tensor) -> Tensor:
    """``t`` (detached) with every element of its shape specified, in its layout."""
    from ..ops.creation.factories import ones

    block = tuple(t._data.values.shape[1:3]) if t.layout in BLOCK else None
    full = ones(tuple(t.shape), dtype=t.dtype, device=t.device)
    if t.layout is sparse_coo:
        pattern = full.to_sparse(t.sparse_dim())
    else:
        pattern = full.to_sparse(layout=t.layout, blocksize=block)
    return t.detach().to_dense().sparse_mask(pattern)


def _to_strided(inputs, masked: bool) -> list:
    packed = []
    for x in inputs if isinstance(inputs, (list, tuple)) else (inputs,):
        if isinstance(x, Tensor) and x.requires_grad and x.layout is not strided:
            full = x.detach() if masked else _every_element(x)
            values = full._values() if full.layout is sparse_coo else full.values()
            packed.append(_Structure(full))
            packed.append(values.detach().requires_grad_(True))
        else:
            packed.append(x)
    return packed


def _from_strided(args) -> list:
    restored, args = [], list(args)
    while args:
        a = args.pop(0)
        restored.append(a.rebuild(args.pop(0)) if isinstance(a, _Structure) else a)
    return restored


def as_sparse_gradcheck(gradcheck):
    """Wrap ``gradcheck`` (``torch.autograd.gradcheck`` or a ``functools.partial`` of it) so
    that ``func`` may take and return sparse tensors of any layout; ``masked=True`` checks
    only the specified elements of sparse inputs."""

    def gradcheck_with_sparse_support(func, inputs, **kwargs):
        masked = kwargs.pop("masked", False)

        def strided_func(*args, **kw):
            outputs = func(*_from_strided(args), **kw)
            many = isinstance(outputs, (list, tuple))
            dense = tuple(
                o.to_dense() if isinstance(o, Tensor) and o.requires_grad
                and o.layout is not strided else o
                for o in (outputs if many else (outputs,))
            )  # fmt: skip
            return dense if many else dense[0]

        return gradcheck(strided_func, tuple(_to_strided(inputs, masked)), **kwargs)

    return gradcheck_with_sparse_support
