"""Legacy typed tensor classes: ``torch.FloatTensor(2, 3)``, ``isinstance(t, torch.LongTensor)``.

Each class builds a Tensor of its dtype; ``isinstance`` checks dtype and device, as in
PyTorch (this small metaclass is the whole trick).
"""

from __future__ import annotations

from .. import _dtype as D
from .._size import Size


class _LegacyMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        from .core import Tensor

        return (
            isinstance(obj, Tensor)
            and obj._dtype is cls._legacy_dtype
            and obj._device.type == cls._device_type
            and not obj.is_sparse  # a sparse tensor is a torch.sparse.FloatTensor only
        )

    def __repr__(cls) -> str:
        prefix = "torch." if cls._device_type == "cpu" else "torch.cuda."
        return f"<class '{prefix}{cls.__name__}'>"


def _legacy_class(name: str, dtype: D.dtype, device_type: str = "cpu"):
    def __new__(cls, *args, device=None, size=None):
        from ..ops.creation.factories import legacy_new
        from .core import Tensor

        if size is not None:  # torch.FloatTensor(size=(2, 3))
            args = (*args, Size(size))
        if device_type == "cuda":
            from ..backend import cuda_available

            if not cuda_available():
                raise TypeError(
                    f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled."
                )
        return legacy_new(
            Tensor,
            dtype,
            args,
            device if device is not None else (None if device_type == "cpu" else "cuda"),
        )

    return _LegacyMeta(
        name,
        (),
        {
            "__new__": __new__,
            "_legacy_dtype": dtype,
            "_device_type": device_type,
            "dtype": dtype,
            "is_cuda": device_type == "cuda",
        },
    )


FloatTensor = _legacy_class("FloatTensor", D.float32)
DoubleTensor = _legacy_class("DoubleTensor", D.float64)
HalfTensor = _legacy_class("HalfTensor", D.float16)
BFloat16Tensor = _legacy_class("BFloat16Tensor", D.bfloat16)
ByteTensor = _legacy_class("ByteTensor", D.uint8)
CharTensor = _legacy_class("CharTensor", D.int8)
ShortTensor = _legacy_class("ShortTensor", D.int16)
IntTensor = _legacy_class("IntTensor", D.int32)
LongTensor = _legacy_class("LongTensor", D.int64)
BoolTensor = _legacy_class("BoolTensor", D.bool)

cuda_classes = {
    name: _legacy_class(name, getattr(D, dt), "cuda")
    for name, dt in (("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
                     ("ByteTensor", "uint8"), ("CharTensor", "int8"), ("ShortTensor", "int16"),
                     ("IntTensor", "int32"), ("LongTensor", "int64"), ("BoolTensor", "bool"))
}  # fmt: skip
