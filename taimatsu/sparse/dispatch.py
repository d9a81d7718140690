"""``torch.add(s, ...)``, ``torch.sum(s)``, ``torch.t(s)``...: the top-level functions whose first
argument may be a sparse tensor run the sparse tensor's method, as PyTorch's dispatcher does.

Only the functions listed in ``taimatsu/__init__.py`` are wrapped; the check is one class
comparison, and everything else goes straight to the dense op.
"""

from __future__ import annotations

import functools

from .._layout import sparse_coo
from .._tensor.sparse import SparseTensor


def sparse_first(fn, method: str, commutative: bool = False):
    """``fn`` that hands a sparse first argument (or, for ``commutative`` ops, a sparse second
    one with a dense first) to that sparse tensor's ``method``."""

    @functools.wraps(fn)
    def wrapper(input, *args, **kwargs):
        if input.__class__ is SparseTensor:
            return getattr(input, method)(*args, **kwargs)
        if commutative and args and args[0].__class__ is SparseTensor:
            return getattr(args[0], method)(input, *args[1:], **kwargs)
        return fn(input, *args, **kwargs)

    return wrapper


def zeros_like(fn):
    """``torch.zeros_like(sparse)``: an empty sparse tensor of the same size and layout."""

    @functools.wraps(fn)
    def wrapper(input, *args, **kwargs):
        if input.__class__ is SparseTensor:
            return input.clone().detach().zero_()
        return fn(input, *args, **kwargs)

    return wrapper


def stack(fn):
    """``torch.stack`` of sparse tensors: their unsqueezed copies concatenated (uncoalesced)."""

    @functools.wraps(fn)
    def wrapper(tensors, dim=0, *args, **kwargs):
        if isinstance(tensors, (list, tuple)) and tensors and tensors[0].__class__ is SparseTensor:
            from .shape import cat as sparse_cat

            if tensors[0].layout is not sparse_coo:
                tensors[0].is_contiguous()  # PyTorch's error for the compressed layouts
            return sparse_cat([t.unsqueeze(dim) for t in tensors], dim)
        return fn(tensors, dim, *args, **kwargs)

    return wrapper


def cat(fn):
    """``torch.cat`` of sparse tensors (the first one decides, as PyTorch's dispatcher does)."""

    @functools.wraps(fn)
    def wrapper(tensors, dim=0, *args, **kwargs):
        if isinstance(tensors, (list, tuple)) and tensors and tensors[0].__class__ is SparseTensor:
            from .shape import cat as sparse_cat

            return sparse_cat(tensors, dim)
        return fn(tensors, dim, *args, **kwargs)

    return wrapper
