"""Tensor collectives: all_reduce, broadcast, reduce, the gathers, scatters and all-to-alls.

Each one validates its arguments as PyTorch does, checks that every rank passed tensors of
the same shape and dtype (one tiny MPI all-reduce: a mismatch raises RuntimeError on every
rank instead of corrupting memory or hanging), then starts one non-blocking MPI operation on
the tensors' bytes and returns a ``Work`` (``async_op=True``) or waits for it. Results land in
the given tensors, in place, as in PyTorch. ``src``/``dst`` are global ranks.
"""

from __future__ import annotations

import time
import warnings
import zlib

import numpy as np

from . import _mpi
from .process_group import default_group, resolve
from .reduce_op import RedOpType, check, mpi_reduction
from .work import Work, finished_within


def _tensor_class():
    from .._tensor.core import Tensor

    return Tensor


def _check_tensor(t, param: str = "tensor") -> None:
    if not isinstance(t, _tensor_class()):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{param}` of type torch.Tensor\n"
            f"             but got {type(t)} instead."
        )


def _check_tensor_list(ts, param: str) -> None:
    if not isinstance(ts, list) or not all(isinstance(t, _tensor_class()) for t in ts):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{param}` of type "
            f"List[torch.Tensor]\n             but got {type(ts)} instead."
        )


def _same_dtype(*tensors) -> None:
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        a, b = tensors[0].dtype, next(t.dtype for t in tensors if t.dtype != tensors[0].dtype)
        raise ValueError(f"Invalid usage of tensors with different dtypesFound {a} and  {b}")


def _fingerprint(*parts) -> int:
    return zlib.crc32(repr(parts).encode()) & 0x7FFFFFFF


def check_same_on_all_ranks(pg, name: str, *parts) -> None:
    """RuntimeError on every rank unless all ranks passed the same ``parts`` (shapes, dtypes)."""
    if pg.size() == 1:
        return
    fp = _fingerprint(*parts)
    both = np.array([fp, -fp], dtype=np.int64)
    Work([pg._comm.Iallreduce(_mpi.mpi().IN_PLACE, both, op=_mpi.mpi().MAX)], timeout=pg._timeout, name=name).wait()  # fmt: skip
    if both[0] != -both[1]:
        raise RuntimeError(
            f"taimatsu.distributed: {name}: the ranks of the group passed tensors of different "
            "shapes or dtypes (every rank must call the same collective with matching tensors)"
        )


def _finish(pg, name, requests, finish, result, async_op):
    work = Work(requests, finish, result, pg._timeout, name)
    if async_op:
        return work
    work.wait()
    return None


def collective_root(pg, rank, group_rank, what: str, name: str) -> int:
    """The group rank of a ``src``/``dst`` given as a global rank (or as ``group_src``). In the
    default group global ranks are group ranks, unchecked as in PyTorch: one out of range is
    Gloo's RuntimeError, where another group's mapping raises ValueError."""
    if group_rank is not None:
        if rank is not None:
            raise ValueError(f"Can not specify both {what} and group_{what}")
        r = group_rank
    elif rank is not None and pg is default_group():
        r = rank
    else:
        r = pg.group_rank(0 if rank is None else rank)
    if not 0 <= r < pg.size():
        raise RuntimeError(f"ProcessGroupGloo::{name}: invalid root rank: {r}")
    return r


def _byte_spec(arr: np.ndarray):
    return [_mpi.as_bytes(arr), _mpi.mpi().BYTE]


def _reduce_spec(arr: np.ndarray, op):
    datatype, mpi_op, view = mpi_reduction(op, arr.dtype)
    flat = arr.reshape(-1)
    if view is None:
        return [_mpi.as_bytes(arr), flat.size, datatype], mpi_op
    return [flat.view(view), datatype], mpi_op


def _average(arr: np.ndarray, op, n: int) -> None:
    if op is RedOpType.AVG:
        np.divide(arr, n, out=arr, casting="unsafe")


# ---- reductions ------------------------------------------------------------------------


def all_reduce(tensor, op=RedOpType.SUM, group=None, async_op: bool = False):
    """Reduce ``tensor`` over the group; every rank gets the result in ``tensor``."""
    _check_tensor(tensor)
    check(op, tensor.dtype, "all_reduce")
    pg = resolve(group)
    if pg is None:
        return None
    check_same_on_all_ranks(pg, "all_reduce", tuple(tensor.shape), str(tensor.dtype))
    work = start_all_reduce(pg, tensor, op)
    if async_op:
        return work
    work.wait()
    return None


def start_all_reduce(pg, tensor, op=RedOpType.SUM) -> Work:
    """Start an all-reduce of ``tensor`` on ``pg`` without the cross-rank shape check.

    For callers that already know every rank passes the same tensors (DDP's buckets).
    """
    arr = _mpi.host_array(tensor)
    spec, mpi_op = _reduce_spec(arr, op)
    req = pg._comm.Iallreduce(_mpi.mpi().IN_PLACE, spec, op=mpi_op)

    def finish():
        _average(arr, op, pg.size())
        _mpi.write_back(tensor, arr)

    return Work([req], finish, [tensor], pg._timeout, "all_reduce")


def reduce(tensor, dst=None, op=RedOpType.SUM, group=None, async_op: bool = False, group_dst=None):
    """Reduce ``tensor`` over the group into ``dst``'s ``tensor``; the others' are unchanged."""
    _check_tensor(tensor)
    check(op, tensor.dtype, "reduce")
    pg = resolve(group)
    if pg is None:
        return None
    root = collective_root(pg, dst, group_dst, "dst", "reduce")
    check_same_on_all_ranks(pg, "reduce", tuple(tensor.shape), str(tensor.dtype))
    arr = _mpi.host_array(tensor)
    MPI = _mpi.mpi()
    mine = pg.rank() == root
    if mine:
        spec, mpi_op = _reduce_spec(arr, op)
        req = pg._comm.Ireduce(MPI.IN_PLACE, spec, op=mpi_op, root=root)
    else:
        scratch = np.empty_like(arr)  # MPI may use the receive buffer as scratch off-root
        spec, mpi_op = _reduce_spec(arr, op)
        req = pg._comm.Ireduce(spec, _reduce_spec(scratch, op)[0], op=mpi_op, root=root)

    def finish():
        if mine:
            _average(arr, op, pg.size())
            _mpi.write_back(tensor, arr)

    return _finish(pg, "reduce", [req], finish, [tensor], async_op)


def reduce_scatter(output, input_list, op=RedOpType.SUM, group=None, async_op: bool = False):
    """``output`` on rank i = the reduction over ranks of ``input_list[i]``."""
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    check(op, output.dtype, "reduce_scatter")
    pg = resolve(group)
    if pg is None:
        return None
    if len(input_list) != pg.size():
        raise RuntimeError("invalid input tensor list size, must be world size")
    _same_dtype(output, *input_list)
    for i, t in enumerate(input_list):
        if t.shape != output.shape:
            raise RuntimeError(
                f"ProcessGroupGloo::reduce_scatter: invalid tensor size at index {i} "
                f"(expected {_sizes(output)}, got {_sizes(t)})"
            )
    check_same_on_all_ranks(pg, "reduce_scatter", tuple(output.shape), str(output.dtype))
    send = np.concatenate([_mpi.host_array(t).reshape(-1) for t in input_list])
    return _reduce_scatter(pg, output, send, op, async_op)


def reduce_scatter_single(output, input, op=RedOpType.SUM, group=None, async_op: bool = False):
    """Reduce ``input`` over ranks; rank i keeps the i-th of ``world_size`` equal chunks."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    check(op, output.dtype, "reduce_scatter_tensor")
    pg = resolve(group)
    if pg is None:
        return None
    _same_dtype(output, input)
    _check_scatter_shapes(output, input, pg.size())
    check_same_on_all_ranks(pg, "reduce_scatter_tensor", tuple(output.shape), str(output.dtype))
    return _reduce_scatter(pg, output, _mpi.host_array(input).reshape(-1), op, async_op)


def _check_scatter_shapes(output, input, n: int) -> None:
    """PyTorch's gloo: ``input`` is ``n`` outputs along dim 0 (RuntimeError, its failed check,
    otherwise; a missing dim of ``input`` reads as 0 there)."""
    out, inp = tuple(output.shape) or (1,), tuple(input.shape) or (1,)
    if out[0] * n != inp[0]:
        raise RuntimeError(f"Check failed: outputShape[0] * worldSize == inputShape[0] ({out[0] * n} vs. {inp[0]}).")  # fmt: skip
    for i in range(1, max(len(out), len(inp))):
        a, b = (out[i] if i < len(out) else 0), (inp[i] if i < len(inp) else 0)
        if a != b:
            raise RuntimeError(f"Check failed: outputShape[i] == inputShape[i] ({a} vs. {b}).")


def _check_gather_chunks(output, input, n: int) -> None:
    """PyTorch's gloo splits ``output`` with ``chunk(n)`` on dim 0 and wants each chunk shaped
    as ``input``; taimatsu also takes the stacked ``(n, *input.shape)`` form (docs/distributed.md)."""
    if tuple(output.shape) == (n, *input.shape):
        return
    if output.dim() == 0:
        sizes = [1]
    else:
        rows = output.shape[0]
        step = -(-rows // n) if rows else 0
        sizes = [min(step, rows - k) for k in range(0, rows, step)] if step else [0] * n
    if len(sizes) != n:
        raise RuntimeError(
            f"ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length {n}, got {len(sizes)})"
        )
    for i, rows in enumerate(sizes):
        chunk = (rows, *output.shape[1:])
        if chunk != tuple(input.shape):
            got = "(" + ", ".join(str(d) for d in chunk) + ")"
            raise RuntimeError(
                f"ProcessGroupGloo::allgather: invalid tensor size at index {i} (expected {_sizes(input)}, got {got})"
            )


def _reduce_scatter(pg, output, send: np.ndarray, op, async_op):
    out = np.empty(output.numel(), dtype=send.dtype)
    send_spec, mpi_op = _reduce_spec(send, op)
    recv_spec, _ = _reduce_spec(out, op)
    req = pg._comm.Ireduce_scatter_block(send_spec, recv_spec, op=mpi_op)

    def finish():
        _average(out, op, pg.size())
        _mpi.write_back(output, out)

    return _finish(pg, "reduce_scatter", [req], finish, [output], async_op)


# ---- data movement ---------------------------------------------------------------------


def _sizes(t) -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


def broadcast(tensor, src=None, group=None, async_op: bool = False, group_src=None):
    """Copy ``src``'s ``tensor`` into ``tensor`` on every rank of the group."""
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = collective_root(pg, src, group_src, "src", "broadcast")
    check_same_on_all_ranks(pg, "broadcast", tuple(tensor.shape), str(tensor.dtype))
    arr = _mpi.host_array(tensor)
    req = pg._comm.Ibcast(_byte_spec(arr), root=root)
    mine = pg.rank() == root

    def finish():
        if not mine:
            _mpi.write_back(tensor, arr)

    return _finish(pg, "broadcast", [req], finish, [tensor], async_op)


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """``tensor_list[i]`` = rank i's ``tensor``, on every rank."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor)
    _same_dtype(*tensor_list, tensor)
    pg = resolve(group)
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise RuntimeError(
            f"ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected "
            f"length {pg.size()}, got {len(tensor_list)})"
        )
    for i, t in enumerate(tensor_list):
        if t.shape != tensor.shape:
            raise RuntimeError(
                f"ProcessGroupGloo::allgather: invalid tensor size at index {i} "
                f"(expected {_sizes(tensor)}, got {_sizes(t)})"
            )
    check_same_on_all_ranks(pg, "all_gather", tuple(tensor.shape), str(tensor.dtype))
    arr = _mpi.host_array(tensor)
    out = np.empty((pg.size(), *arr.shape), dtype=arr.dtype)
    req = pg._comm.Iallgather(_byte_spec(arr), _byte_spec(out))

    def finish():
        for t, part in zip(tensor_list, out):
            _mpi.write_back(t, part)

    return _finish(pg, "all_gather", [req], finish, tensor_list, async_op)


def all_gather_single(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Rank i's ``input_tensor`` fills the i-th chunk of ``output_tensor`` (on dim 0 or stacked)."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    _same_dtype(output_tensor, input_tensor)
    pg = resolve(group)
    if pg is None:
        return None
    _check_gather_chunks(output_tensor, input_tensor, pg.size())
    check_same_on_all_ranks(pg, "all_gather_into_tensor", tuple(input_tensor.shape), str(input_tensor.dtype))  # fmt: skip
    arr = _mpi.host_array(input_tensor)
    out = _mpi.host_array(output_tensor)
    req = pg._comm.Iallgather(_byte_spec(arr), _byte_spec(out))
    return _finish(pg, "all_gather_into_tensor", [req], lambda: _mpi.write_back(output_tensor, out), [output_tensor], async_op)  # fmt: skip


# PyTorch 2.13 renamed these two (FutureWarning on each call); the old names still work.
def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    warnings.warn(
        "`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
        "`torch.distributed.all_gather_single` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def reduce_scatter_tensor(output, input, op=RedOpType.SUM, group=None, async_op: bool = False):
    warnings.warn(
        "`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
        "`torch.distributed.reduce_scatter_single` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return reduce_scatter_single(output, input, op, group, async_op)


# gather's and scatter's list of tensors on the root: its argument name, the root's role, and the
# word Gloo's size message uses for it.
_ROOT_LISTS = {"gather": ("gather_list", "destination", "output"), "scatter": ("scatter_list", "source", "input")}  # fmt: skip


def _check_root_list(pg, op: str, tensor, tensors, root: int) -> bool:
    """PyTorch's checks of gather's/scatter's list (given on the root only, one same-dtype tensor
    per rank) and of the tensor's shape on every rank; whether this rank is the root."""
    name, role, side = _ROOT_LISTS[op]
    mine = pg.rank() == root
    if mine:
        if tensors is None:
            raise ValueError(f"Argument ``{name}`` must be specified on {role} rank.")
        _check_tensor_list(tensors, name)
        if len(tensors) != pg.size():
            raise RuntimeError(
                f"ProcessGroupGloo::{op}: Incorrect {side} list size {len(tensors)}. "
                f"{side.capitalize()} list size should be {pg.size()}, same as size of the process group."
            )
        _same_dtype(tensor, *tensors)
    elif tensors:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{role} ranks.")
    check_same_on_all_ranks(pg, op, tuple(tensor.shape), str(tensor.dtype))
    return mine


def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False, group_dst=None):  # fmt: skip
    """``gather_list[i]`` on ``dst`` = rank i's ``tensor``; other ranks pass no list."""
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = collective_root(pg, dst, group_dst, "dst", "gather")
    mine = _check_root_list(pg, "gather", tensor, gather_list, root)
    arr = _mpi.host_array(tensor)
    out = np.empty((pg.size(), *arr.shape), dtype=arr.dtype) if mine else None
    recv = _byte_spec(out) if mine else None
    req = pg._comm.Igather(_byte_spec(arr), recv, root=root)

    def finish():
        if mine:
            for t, part in zip(gather_list, out):
                _mpi.write_back(t, part)

    return _finish(pg, "gather", [req], finish, gather_list or [], async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False, group_src=None):  # fmt: skip
    """Rank i's ``tensor`` = ``scatter_list[i]`` of ``src``; other ranks pass no list."""
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = collective_root(pg, src, group_src, "src", "scatter")
    mine = _check_root_list(pg, "scatter", tensor, scatter_list, root)
    arr = _mpi.host_array(tensor)
    send = None
    if mine:
        send = np.stack([_mpi.host_array(t).reshape(arr.shape) for t in scatter_list])
        send = _byte_spec(send)
    req = pg._comm.Iscatter(send, _byte_spec(arr), root=root)
    return _finish(pg, "scatter", [req], lambda: _mpi.write_back(tensor, arr), [tensor], async_op)  # fmt: skip


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank j's ``output_tensor_list[i]`` = rank i's ``input_tensor_list[j]``."""
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = resolve(group)
    if pg is None:
        return None
    n = pg.size()
    for kind, tensors in (("input", input_tensor_list), ("output", output_tensor_list)):
        if len(tensors) != n:
            raise RuntimeError(
                f"ProcessGroupGloo::alltoall: {kind} tensor list size {len(tensors)} does not "
                f"match world size {n}"
            )
    _same_dtype(*output_tensor_list, *input_tensor_list)
    sends = [_mpi.host_array(t).reshape(-1) for t in input_tensor_list]
    recvs = [np.empty(t.numel(), dtype=sends[0].dtype) for t in output_tensor_list]
    req, unpack = _alltoallv(pg, sends, recvs)

    def finish():
        unpack()
        for t, part in zip(output_tensor_list, recvs):
            _mpi.write_back(t, part)

    return _finish(pg, "all_to_all", [req], finish, output_tensor_list, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op: bool = False):  # fmt: skip
    """``all_to_all`` on dim-0 slices of ``input``/``output`` (equal ones, or the given sizes)."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _same_dtype(output, input)
    if not (input.is_contiguous() and output.is_contiguous()):
        raise ValueError("Tensors must be contiguous")  # PyTorch's check, before any transfer
    pg = resolve(group)
    if pg is None:
        return None
    n = pg.size()
    sends = _split(_mpi.host_array(input), input_split_sizes, n, "input")
    out = np.empty(tuple(output.shape), dtype=sends[0].dtype)
    recvs = _split(out, output_split_sizes, n, "output")
    req, unpack = _alltoallv(pg, [s.reshape(-1) for s in sends], [r.reshape(-1) for r in recvs])

    def finish():
        unpack()
        _mpi.write_back(output, out)

    return _finish(pg, "all_to_all_single", [req], finish, [output], async_op)


def _split(arr: np.ndarray, sizes, n: int, what: str) -> list[np.ndarray]:
    rows = arr.shape[0] if arr.ndim else 1
    if not sizes:
        if rows % n:
            raise RuntimeError(f"Tensor's dim 0 does not divide equally across group size {n}")  # fmt: skip
        sizes = [rows // n] * n
    if len(sizes) != n or sum(sizes) != rows:
        raise RuntimeError(f"Split sizes doesn't match total dim 0 size of the {what} tensor")
    edges = np.cumsum([0, *sizes])
    return [arr[edges[i] : edges[i + 1]] for i in range(n)]


def _alltoallv(pg, sends, recvs):
    """Start one MPI all-to-all-v of byte blocks: ``(request, unpack)``.

    The receive sizes are first checked against what the senders send; ``unpack`` copies
    the received bytes into ``recvs`` once the request is complete.
    """
    send_counts = [s.nbytes for s in sends]
    recv_counts = np.empty(pg.size(), dtype=np.int64)
    Work([pg._comm.Ialltoall(np.array(send_counts, dtype=np.int64), recv_counts)], timeout=pg._timeout, name="all_to_all").wait()  # fmt: skip
    want = [r.nbytes for r in recvs]
    if list(recv_counts) != want:
        raise RuntimeError(
            "taimatsu.distributed: all_to_all: the output tensors' sizes do not match what the "
            f"other ranks send (expected {want} bytes per rank, they send {list(recv_counts)})"
        )
    send = np.concatenate([_mpi.as_bytes(np.ascontiguousarray(s)) for s in sends]) if sends else np.empty(0, np.uint8)  # fmt: skip
    recv = np.empty(sum(want), dtype=np.uint8)
    displ_s = np.cumsum([0, *send_counts[:-1]])
    displ_r = np.cumsum([0, *want[:-1]])
    MPI = _mpi.mpi()
    req = pg._comm.Ialltoallv([send, (send_counts, displ_s), MPI.BYTE], [recv, (want, displ_r), MPI.BYTE])  # fmt: skip

    def unpack():
        for r, lo, size in zip(recvs, displ_r, want):
            _mpi.as_bytes(r)[...] = recv[lo : lo + size]

    return req, unpack


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Wait until every rank of the group has reached the barrier."""
    pg = resolve(group)
    if pg is None:
        return None
    return _finish(pg, "barrier", [pg._comm.Ibarrier()], None, [], async_op)


# The tag of monitored_barrier's messages (the top of the range MPI guarantees); user
# point-to-point messages on this tag would mix with them
_MONITOR_TAG = 32767


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    """A barrier whose rank 0 says which ranks did not arrive within ``timeout``, as gloo's:
    it waits for each other rank in turn (one deadline for all) and raises RuntimeError
    "[Rank 0]: Rank 1 failed to pass monitoredBarrier in 1000 ms ..." for the first late one
    (``wait_all_ranks``: "Ranks 1, 2 failed ..." for all of them); then it releases the others,
    which wait (``timeout``) for that. Deviation: a late rank whose rank 0 gave up times out
    itself (gloo's is cut off at once: its rank 0 aborts the connections)."""
    pg = resolve(group)
    if pg is None:
        return
    limit = pg._timeout if timeout is None else timeout.total_seconds()
    comm, name = pg._comm, "monitored_barrier"
    if comm.Get_rank() != 0:
        Work([comm.Isend(_byte_spec(np.zeros(1, np.uint8)), dest=0, tag=_MONITOR_TAG)], timeout=limit, name=name).wait()  # fmt: skip
        Work([comm.Irecv(_byte_spec(np.zeros(1, np.uint8)), source=0, tag=_MONITOR_TAG)], timeout=limit, name=name).wait()  # fmt: skip
        return
    deadline, late = time.monotonic() + limit, []
    for r in range(1, comm.Get_size()):
        arrived = comm.Irecv(_byte_spec(np.zeros(1, np.uint8)), source=r, tag=_MONITOR_TAG)
        if not finished_within([arrived], max(deadline - time.monotonic(), 0.0), name):
            late.append(r)
            if not wait_all_ranks:
                break
    ms = int(limit * 1000)
    if len(late) == 1 and not wait_all_ranks:
        raise RuntimeError(
            f"[Rank 0]: Rank {late[0]} failed to pass monitoredBarrier in {ms} ms\n Original "
            f"exception: \nTimed out waiting {ms}ms for recv operation to complete"
        )
    if late:
        raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, late))} failed to pass monitoredBarrier in {ms} ms")  # fmt: skip
    releases = [comm.Isend(_byte_spec(np.zeros(1, np.uint8)), dest=r, tag=_MONITOR_TAG) for r in range(1, comm.Get_size())]  # fmt: skip
    Work(releases, timeout=limit, name=name).wait()
