"""Point-to-point messages: send/recv, isend/irecv, P2POp and batch_isend_irecv.

Tensors travel as bytes (MPI_BYTE), so every dtype works; ``dst``/``src`` are global ranks.
A receive whose tensor is smaller than the message raises RuntimeError (MPI's truncation
error), never a partial write.
"""

from __future__ import annotations

from . import _mpi
from .collectives import _check_tensor
from .process_group import resolve
from .work import Work


def _peer(pg, rank, what: str) -> int:
    if rank == pg._ranks[pg.rank()]:
        raise ValueError(
            f"Invalid {what} rank: {what} rank should not be the same as the rank of the current "
            "process."
        )
    return pg.group_rank(rank)


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    """Start sending ``tensor`` to ``dst``; returns a Work."""
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    peer = group_dst if group_dst is not None else _peer(pg, dst, "destination")
    arr = _mpi.host_array(tensor)
    req = pg._comm.Isend([_mpi.as_bytes(arr), _mpi.mpi().BYTE], dest=peer, tag=tag)
    return Work([req], lambda: arr, [tensor], pg._timeout, "send")  # the closure keeps arr alive


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    """Start receiving into ``tensor`` from ``src`` (any rank when None); returns a Work.

    After ``wait()``, ``work._source`` is the sender's global rank (what ``recv`` returns).
    """
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    MPI = _mpi.mpi()
    if group_src is not None:
        peer = group_src
    else:
        peer = MPI.ANY_SOURCE if src is None else _peer(pg, src, "source")
    arr = _mpi.host_array(tensor)
    req = pg._comm.Irecv([_mpi.as_bytes(arr), MPI.BYTE], source=peer, tag=tag)
    work = Work([req], None, [tensor], pg._timeout, "recv")
    work._statuses = [MPI.Status()]

    def finish():
        _mpi.write_back(tensor, arr)
        work._source = pg._ranks[work._statuses[0].Get_source()]

    work._finish = finish
    return work


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    """Send ``tensor`` to ``dst`` and wait until it has left."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receive into ``tensor``; returns the sender's global rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._source


class P2POp:
    """One send or receive for ``batch_isend_irecv``: ``P2POp(dist.isend, tensor, peer)``."""

    def __init__(self, op, tensor, peer=None, group=None, tag: int = 0, group_peer=None) -> None:
        if op not in (isend, irecv):
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        _check_tensor(tensor)
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag
        self.group_peer = group_peer


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every operation of the list; one Work per operation, in order."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError(
            "Invalid ``p2p_op_list``. Each op is expected to to be of type "
            "``torch.distributed.P2POp``."
        )
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return works
