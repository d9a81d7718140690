"""``torch.distributed.ReduceOp`` and its translation into MPI reductions.

``ReduceOp.SUM`` is ``ReduceOp.RedOpType.SUM``, printed ``<RedOpType.SUM: 0>`` as in PyTorch.
Each (op, dtype) pair maps onto an MPI datatype and operation: MPI's built-in ones where MPI
has them (float32/64, integers, complex sums and products), and for float16, bfloat16 and
bool an operation written in NumPy on whole elements, so every dtype reduces with the same
wrap-around and rounding as the dtype itself. ``AVG`` is a sum divided by the group size.
"""

from __future__ import annotations

import enum

import numpy as np

from . import _mpi


class RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __int__(self) -> int:
        return self.value


class ReduceOp:
    """The reduction a collective applies; the members are ``RedOpType`` values."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM
    UNUSED = RedOpType.UNUSED


_BITWISE = (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR)
# A bool is a 0/1 byte: OR is MAX, AND is MIN (PyTorch's gloo sums bools as OR, multiplies as AND).
_BOOL_AS = {
    RedOpType.SUM: RedOpType.MAX,
    RedOpType.PRODUCT: RedOpType.MIN,
    RedOpType.MIN: RedOpType.MIN,
    RedOpType.MAX: RedOpType.MAX,
    RedOpType.BAND: RedOpType.BAND,
    RedOpType.BOR: RedOpType.BOR,
    RedOpType.BXOR: RedOpType.BXOR,
}
_NUMPY = {
    RedOpType.SUM: np.add,
    RedOpType.AVG: np.add,
    RedOpType.PRODUCT: np.multiply,
    RedOpType.MIN: np.minimum,
    RedOpType.MAX: np.maximum,
    RedOpType.BAND: np.bitwise_and,
    RedOpType.BOR: np.bitwise_or,
    RedOpType.BXOR: np.bitwise_xor,
}
_NATIVE_KINDS = "iuc"  # plus float32/float64, checked by itemsize below
_user_ops: dict = {}
_byte_types: dict = {}


def check(op, dtype, name: str) -> None:
    """Refuse what PyTorch refuses: bitwise ops on floats; on complex numbers, all but SUM/AVG.

    Deviation: PyTorch's gloo also refuses int16 ("Invalid scalar type"); MPI reduces it.
    """
    if not isinstance(op, RedOpType) or op in (RedOpType.PREMUL_SUM, RedOpType.UNUSED):
        raise ValueError(f"taimatsu.distributed: unsupported reduce op {op!r}")
    if dtype.is_complex and op not in (RedOpType.SUM, RedOpType.AVG):
        raise ValueError(f"{name} does not support {op} on complex tensors")
    if op in _BITWISE and dtype.is_floating_point:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op is RedOpType.AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {_type_name(dtype)}"
        )


def _type_name(dtype) -> str:
    names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte"}
    name = str(dtype).removeprefix("torch.")
    return names.get(name, name.capitalize())


def mpi_reduction(op: RedOpType, np_dtype: np.dtype):
    """``(datatype, mpi_op, view_dtype)``: how to reduce an array of ``np_dtype`` with ``op``.

    ``view_dtype`` is the dtype the buffer must be viewed as (bool travels as uint8); it is
    None when the datatype is an opaque element of ``np_dtype.itemsize`` bytes.
    """
    MPI = _mpi.mpi()
    if np_dtype == np.bool_:
        op, np_dtype = _BOOL_AS[op], np.dtype(np.uint8)
    if op is RedOpType.AVG:
        op = RedOpType.SUM
    native = np_dtype.kind in _NATIVE_KINDS or np_dtype in (np.float32, np.float64)
    if native:
        mpi_op = {
            RedOpType.SUM: MPI.SUM, RedOpType.PRODUCT: MPI.PROD, RedOpType.MIN: MPI.MIN,
            RedOpType.MAX: MPI.MAX, RedOpType.BAND: MPI.BAND, RedOpType.BOR: MPI.BOR,
            RedOpType.BXOR: MPI.BXOR,
        }[op]  # fmt: skip
        return MPI.Datatype.fromcode(np_dtype.char), mpi_op, np_dtype
    return _element_type(np_dtype.itemsize), _user_op(op, np_dtype), None


def _element_type(itemsize: int):
    """An MPI datatype of ``itemsize`` opaque bytes, so MPI never splits an element."""
    MPI = _mpi.mpi()
    t = _byte_types.get((MPI, itemsize))
    if t is None:
        t = _byte_types[MPI, itemsize] = MPI.BYTE.Create_contiguous(itemsize).Commit()
    return t


def _user_op(op: RedOpType, np_dtype: np.dtype):
    key = (_mpi.mpi(), op, np_dtype)  # per transport: MPI's and the TCP one's ops differ
    mpi_op = _user_ops.get(key)
    if mpi_op is None:
        ufunc = _NUMPY[op]

        def reduce(inbuf, inoutbuf, datatype):
            a = np.frombuffer(inbuf, dtype=np.uint8).view(np_dtype)
            b = np.frombuffer(inoutbuf, dtype=np.uint8).view(np_dtype)
            ufunc(a, b, out=b)

        mpi_op = _user_ops[key] = key[0].Op.Create(reduce, commute=True)
    return mpi_op
