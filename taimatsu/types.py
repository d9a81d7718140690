"""``torch.types``: the type aliases PyTorch's signatures are annotated with.

Left out: the aliases built on ``SymInt``/``SymFloat``/``SymBool`` (``IntLikeType``,
``FloatLikeType``, ``BoolLikeType``, ``PySymType``, ``py_sym_types``, ``_symsize``), which
taimatsu does not have, and ``_dispatchkey``/``_qscheme`` (no dispatcher, no quantization).
"""

# ruff: noqa: PYI042, PYI047  (PyTorch's private alias names, kept for code that imports them)
from __future__ import annotations

import os
from builtins import bool as _bool  # noqa: F401
from builtins import bytes as _bytes  # noqa: F401
from builtins import complex as _complex  # noqa: F401
from builtins import float as _float  # noqa: F401
from builtins import int as _int  # noqa: F401
from builtins import str as _str  # noqa: F401
from collections.abc import Sequence
from typing import IO, Any, TypeAlias

from ._device import device as _device
from ._dtype import dtype as _dtype
from ._layout import layout as _layout  # noqa: F401
from ._size import Size
from ._tensor.core import Tensor
from .autograd.graph import GradientEdge

__all__ = ["Device", "FileLike", "Number", "Storage"]

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_TensorOrTensorsOrGradEdge: TypeAlias = (
    Tensor | Sequence[Tensor] | GradientEdge | Sequence[GradientEdge]
)
_size: TypeAlias = Size | list[int] | tuple[int, ...]

Number: TypeAlias = int | float | bool
_Number = (int, float, bool)  # for isinstance
FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]
Device: TypeAlias = _device | str | int | None


class Storage:
    """The interface PyTorch's annotations expect of a storage (a typing aid: the methods are
    abstract here, as in PyTorch; taimatsu's storages are ``UntypedStorage``/``TypedStorage``)."""

    _cdata: int
    device: _device
    dtype: _dtype
    _torch_load_uninitialized: bool

    def __deepcopy__(self, memo: dict[int, Any]) -> Storage:
        raise NotImplementedError

    def _new_shared(self, size: int) -> Storage:
        raise NotImplementedError

    def _write_file(self, f: Any, is_real_file: bool, save_size: bool, element_size: int) -> None:
        raise NotImplementedError

    def element_size(self) -> int:
        raise NotImplementedError

    def is_shared(self) -> bool:
        raise NotImplementedError

    def share_memory_(self) -> Storage:
        raise NotImplementedError

    def nbytes(self) -> int:
        raise NotImplementedError

    def cpu(self) -> Storage:
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError

    def from_file(self, filename: str, shared: bool = False, nbytes: int = 0) -> Storage:
        raise NotImplementedError

    def _new_with_file(self, f: Any, element_size: int) -> Storage:
        raise NotImplementedError
