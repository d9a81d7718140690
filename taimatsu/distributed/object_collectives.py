"""Collectives on picklable Python objects: broadcast_object_list, all_gather_object,
gather_object, scatter_object_list; and point to point: send_object_list, recv_object_list.

Objects are pickled, as PyTorch does (so only exchange objects from trusted ranks); the
pickles travel with mpi4py's object messaging. The lists are filled in place, as in PyTorch.
"""

from __future__ import annotations

import pickle

import numpy as np

from .collectives import collective_root
from .point_to_point import recv, send
from .process_group import get_rank, resolve


def broadcast_object_list(object_list: list, src=None, group=None, device=None, group_src=None) -> None:  # fmt: skip
    """Replace ``object_list``'s items on every rank by ``src``'s."""
    pg = resolve(group)
    if pg is None:
        return
    root = collective_root(pg, src, group_src, "src", "broadcast")
    items = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root=root)
    object_list[:] = items[: len(object_list)]


def all_gather_object(object_list: list, obj, group=None) -> None:
    """``object_list[i]`` = rank i's ``obj``, on every rank."""
    pg = resolve(group)
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise RuntimeError(
            f"all_gather_object: object_list has {len(object_list)} items, expected {pg.size()}"
        )
    object_list[:] = pg._comm.allgather(obj)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None) -> None:
    """On ``dst``, ``object_gather_list[i]`` = rank i's ``obj``."""
    pg = resolve(group)
    if pg is None:
        return
    here = pg.rank() == group_dst if group_dst is not None else get_rank() == (dst or 0)
    if object_gather_list is not None and not here:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    root = collective_root(pg, dst, group_dst, "dst", "gather")
    mine = pg.rank() == root
    if mine and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError(
            "Argument ``gather_list`` must be specified on destination rank."
            if object_gather_list is None
            else f"Expected list of size {pg.size()}, but got {len(object_gather_list)}"
        )
    objects = pg._comm.gather(obj, root=root)
    if mine:
        object_gather_list[:] = objects


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list=None, src=None, group=None, group_src=None) -> None:  # fmt: skip
    """``scatter_object_output_list[0]`` = ``src``'s ``scatter_object_input_list[rank]``."""
    pg = resolve(group)
    if pg is None:
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")  # fmt: skip
    root = collective_root(pg, src, group_src, "src", "broadcast")
    items = None
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != pg.size():
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        items = list(scatter_object_input_list)
    scatter_object_output_list[0] = pg._comm.scatter(items, root=root)


def _as_tensor(array: np.ndarray):
    from .. import from_numpy

    return from_numpy(array)


def _check_peer(rank, group_rank) -> None:
    """PyTorch's: exactly one of the global and the group rank of the peer."""
    if rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    if rank is None and group_rank is None:
        raise ValueError("Must specify global_rank or group_rank")


def send_object_list(object_list: list, dst=None, group=None, device=None, group_dst=None) -> None:
    """Send ``object_list``'s items to ``dst`` (``recv_object_list`` there), as PyTorch does:
    first their pickles' sizes (an int64 tensor), then the pickles (a uint8 tensor)."""
    if resolve(group) is None:
        return
    _check_peer(dst, group_dst)
    blobs = [pickle.dumps(obj) for obj in object_list]
    send(_as_tensor(np.array([len(b) for b in blobs], dtype=np.int64)), dst, group, group_dst=group_dst)  # fmt: skip
    send(_as_tensor(np.frombuffer(b"".join(blobs), dtype=np.uint8).copy()), dst, group, group_dst=group_dst)  # fmt: skip


def recv_object_list(object_list: list, src=None, group=None, device=None, group_src=None) -> int:
    """Fill ``object_list`` (in place, as many items as it has) with what ``src`` sent by
    ``send_object_list``; the sender's global rank (-1 outside the group). Unlike ``recv``,
    PyTorch wants the source named here."""
    if resolve(group) is None:
        return -1
    _check_peer(src, group_src)
    sizes = np.zeros(len(object_list), dtype=np.int64)
    sender = recv(_as_tensor(sizes), src, group, group_src=group_src)
    data = np.zeros(int(sizes.sum()), dtype=np.uint8)
    recv(_as_tensor(data), sender, group)
    offset = 0
    for i, size in enumerate(sizes.tolist()):
        object_list[i] = pickle.loads(data[offset : offset + size].tobytes())
        offset += size
    return sender
