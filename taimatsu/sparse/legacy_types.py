"""The legacy sparse tensor classes ``torch.sparse.FloatTensor`` & co.: the constructors old
code (pygcn's ``torch.sparse.FloatTensor(indices, values, shape)``) still calls, with PyTorch's
deprecation warnings, and ``isinstance`` checks of a COO tensor's dtype.
"""

from __future__ import annotations

from .. import _dtype as D
from .._layout import sparse_coo

_WARN = "torch.sparse.SparseTensor({args}) is deprecated.  Please use torch.sparse_coo_tensor({use}). (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:{line}.)"


def _deprecated(args: str, use: str, line: int) -> None:
    """PyTorch warns once per process for each form, at the user's line."""
    from .construction import _warn_once

    _warn_once(f"legacy{line}", _WARN.format(args=args, use=use, line=line))


class _SparseLegacyMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        from .._tensor.core import Tensor

        return (
            isinstance(obj, Tensor)
            and obj.layout is sparse_coo
            and obj._dtype is cls.dtype
            and obj._device.type == "cpu"
        )

    def __repr__(cls) -> str:
        return f"<class 'torch.sparse.{cls.__name__}'>"


def _construct(dtype, args, device):
    from .._tensor.core import Tensor
    from .construction import sparse_coo_tensor

    kw = {"device": device, "check_invariants": False}
    if len(args) >= 2 and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
        # the values keep their own dtype, as PyTorch's legacy constructor does
        if len(args) == 2:
            _deprecated("indices, values, *, device=", "indices, values, dtype=, device=", 641)
            return sparse_coo_tensor(args[0], args[1], **kw)
        _deprecated(
            "indices, values, shape, *, device=", "indices, values, shape, dtype=, device=", 653
        )
        return sparse_coo_tensor(args[0], args[1], tuple(args[2]), **kw)
    if not args:
        _deprecated("", "(0,), dtype=", 623)
        return sparse_coo_tensor((0,), dtype=dtype, **kw)
    size = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else tuple(args)
    _deprecated("shape, *, device=", "shape, dtype=, device=", 684)
    return sparse_coo_tensor(size, dtype=dtype, **kw)


def _sparse_class(name: str, dtype: D.dtype):
    def __new__(cls, *args, device=None):
        return _construct(dtype, args, device)

    return _SparseLegacyMeta(name, (), {"__new__": __new__, "dtype": dtype, "is_sparse": True})


FloatTensor = _sparse_class("FloatTensor", D.float32)
DoubleTensor = _sparse_class("DoubleTensor", D.float64)
HalfTensor = _sparse_class("HalfTensor", D.float16)
BFloat16Tensor = _sparse_class("BFloat16Tensor", D.bfloat16)
ByteTensor = _sparse_class("ByteTensor", D.uint8)
CharTensor = _sparse_class("CharTensor", D.int8)
ShortTensor = _sparse_class("ShortTensor", D.int16)
IntTensor = _sparse_class("IntTensor", D.int32)
LongTensor = _sparse_class("LongTensor", D.int64)
