"""``torch.nn.utils.rnn``: padding and packing variable-length sequences.

A ``PackedSequence`` stores the time steps of a batch of sequences, sorted longest first, one
after the other: ``data[sum(batch_sizes[:t]) : sum(batch_sizes[:t + 1])]`` holds step ``t`` of the
``batch_sizes[t]`` sequences still running. The recurrent layers consume that layout directly.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ... import _dtype as D
from ..._tensor.core import Tensor
from ..._tensor_arguments import type_name
from ...ops.creation.factories import tensor as _tensor
from ...ops.shape.copies import cat, stack

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]  # fmt: skip

_PackedSequenceBase = namedtuple(
    "PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"]
)


def _int64(values) -> Tensor:
    return _tensor(np.asarray(values, dtype=np.int64), dtype=D.int64)


def invert_permutation(permutation):
    if permutation is None:
        return None
    p = np.asarray(permutation.tolist(), dtype=np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=np.int64)
    return _int64(inv).to(permutation.device)


class PackedSequence(_PackedSequenceBase):
    """Holds the data and the list of ``batch_sizes`` of a packed sequence (PyTorch's namedtuple)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                    "be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
                )
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise TypeError("Expected a (data, batch_sizes) pair")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def _map(self, fn) -> PackedSequence:
        data = fn(self.data)
        if data is self.data:
            return self
        move = lambda t: None if t is None else t.to(data.device)
        return type(self)(
            data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices)
        )

    def to(self, *args, **kwargs) -> PackedSequence:
        return self._map(lambda d: d.to(*args, **kwargs))

    def cuda(self, *args, **kwargs) -> PackedSequence:
        return self._map(lambda d: d.cuda(*args, **kwargs))

    def cpu(self, *args, **kwargs) -> PackedSequence:
        return self._map(lambda d: d.cpu(*args, **kwargs))

    def pin_memory(self) -> PackedSequence:
        return self

    def double(self) -> PackedSequence:
        return self.to(dtype=D.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=D.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=D.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=D.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=D.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=D.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=D.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=D.uint8)

    def detach(self) -> PackedSequence:
        return self._map(lambda d: d.detach())

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(lengths.tolist(), dtype=np.int64).reshape(-1)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _index(lengths_order: np.ndarray, device) -> Tensor:
    return _int64(lengths_order).to(device)


def pack_padded_sequence(
    input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True
):
    """Packs a padded batch (``T x B x *``, or ``B x T x *`` with ``batch_first``)."""
    ndim = np.ndim(lengths.tolist() if isinstance(lengths, Tensor) else lengths)
    if ndim > 1 and not enforce_sorted:  # PyTorch's index_select of the sorted order refuses it
        raise IndexError("index_select(): Index is supposed to be a vector")
    if ndim != 1:
        raise RuntimeError(
            f"'lengths' argument should be a 1D CPU int64 tensor, but got {ndim}D cpu Long tensor"
        )
    lens = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        sorted_indices = _index(order, input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.size(0 if batch_first else 1)
    if lens.size != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} (batch_size={batch})"
        )
    if lens.size and lens[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if np.any(lens[1:] > lens[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
            "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
            "if you do not need ONNX exportability."
        )
    if batch_first:
        input = input.transpose(0, 1)
    steps = int(lens[0])
    if steps > input.size(0):
        raise RuntimeError(
            f"Expected sequence length to be larger than or equal to {steps} but got {input.size(0)}"
        )  # fmt: skip
    batch_sizes = np.array([(lens > t).sum() for t in range(steps)], dtype=np.int64)
    data = cat([input[t, : int(b)] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _int64(batch_sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence, batch_first: bool = False, padding_value: float = 0.0, total_length=None
):
    """Inverse of :func:`pack_padded_sequence`: returns ``(padded, lengths)``."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    steps, batch = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, "
                f"but got total_length={total_length} and max sequence length being {steps}"
            )
    else:
        total_length = steps
    rows, offset = [], 0
    for b in batch_sizes:
        step = data[offset : offset + b]
        if b < batch:
            step = cat([step, data.new_full((batch - b, *data.shape[1:]), padding_value)], 0)
        rows.append(step)
        offset += b
    for _ in range(total_length - steps):
        rows.append(data.new_full((batch, *data.shape[1:]), padding_value))
    padded = stack(rows, 0)
    lengths = np.array([sum(1 for b in batch_sizes if b > i) for i in range(batch)], dtype=np.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = _int64(lengths)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(
    sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"
):
    """Stacks tensors of different lengths into ``L x B x *`` (``B x L x *`` with ``batch_first``).

    As PyTorch's kernel: the result takes ``sequences[0]``'s trailing sizes and dtype, is filled
    with ``padding_value``, and each sequence is ``copy_``-ed into its slot (so others are cast
    and broadcast, a size mismatch is copy_'s error, and the grad_fn is CopySlices)."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    elif not isinstance(sequences, Iterable):
        raise RuntimeError(  # noqa: TRY004 (PyTorch's type)
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    sequences = tuple(sequences)
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(s)}")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    longest = max(s.size(0) for s in sequences)
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = first.new_full((*shape, *first.shape[1:]), padding_value)
    for i, s in enumerate(sequences):
        n = s.size(0)
        start = longest - n if padding_side == "left" else 0
        slot = out[i] if batch_first else out[:, i]
        slot[start : start + n].copy_(s)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[: int(n)] for seq, n in zip(padded_sequences, lengths.tolist())]


def pack_sequence(sequences, enforce_sorted: bool = True):
    """Packs a list of variable-length tensors (``pad_sequence`` then ``pack_padded_sequence``)."""
    lengths = _int64([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
