"""``torch.distributed`` on MPI (mpi4py) or TCP sockets: process groups, collectives,
point-to-point, objects.

Start the ranks with ``python -m taimatsu.distributed.run --nproc-per-node N script.py`` (the
torchrun CLI) or ``mpiexec -n N python script.py``, or start them yourself
(``torch.multiprocessing.spawn``) and join them with ``init_process_group(rank=, world_size=)``
as PyTorch's tutorials do; see docs/distributed.md. Importing this package does not import
mpi4py: MPI starts in ``init_process_group``, and only for ranks an MPI launcher started.
"""

from __future__ import annotations

from .collectives import (
    all_gather,
    all_gather_into_tensor,
    all_gather_single,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    monitored_barrier,
    reduce,
    reduce_scatter,
    reduce_scatter_single,
    reduce_scatter_tensor,
    scatter,
)
from .errors import DistBackendError, DistError, DistNetworkError, DistStoreError
from .grad_bucket import GradBucket
from .object_collectives import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from .point_to_point import P2POp, batch_isend_irecv, irecv, isend, recv, send
from .process_group import (
    Backend,
    GroupMember,
    ProcessGroup,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_default_backend_for_device,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    new_group,
    new_subgroups,
    new_subgroups_by_enumeration,
)
from .reduce_op import ReduceOp
from .store import FileStore, HashStore, PrefixStore, Store, TCPStore
from .work import Work

__all__ = [
    "Backend", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
    "FileStore", "GradBucket", "GroupMember", "HashStore", "P2POp", "PrefixStore", "ProcessGroup", "ReduceOp",
    "Store", "TCPStore", "Work", "all_gather",
    "all_gather_into_tensor", "all_gather_object", "all_gather_single", "all_reduce", "all_to_all",
    "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list",
    "default_pg_timeout", "destroy_process_group", "gather", "gather_object", "get_backend",
    "get_default_backend_for_device", "get_global_rank",
    "get_group_rank", "get_node_local_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group",
    "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend",
    "monitored_barrier", "new_group", "new_subgroups", "new_subgroups_by_enumeration", "recv",
    "recv_object_list", "reduce", "reduce_scatter",
    "reduce_scatter_single", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
    "send_object_list",
]  # fmt: skip
