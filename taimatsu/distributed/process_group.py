"""Process groups: ``init_process_group``, ``new_group``, ranks and sizes, ``Backend``.

Two transports carry every backend name ("gloo", "mpi", and "nccl" where CUDA is available;
GPU tensors are staged through host memory, see docs/distributed.md):

- MPI, for ranks started by ``mpiexec`` (or ``python -m taimatsu.distributed.run``). Rank and
  world size come from MPI; the env:// variables (``RANK``, ``WORLD_SIZE``) and the
  ``rank=``/``world_size=`` arguments are checked against MPI, not used to connect.
- TCP sockets (``_tcp.py``, ``rendezvous.py``), for ranks the program starts itself
  (``torch.multiprocessing.spawn``, ``Process``) and joins with ``rank=``/``world_size=`` over
  env://, tcp:// or file://, as in PyTorch's tutorials: no MPI launcher, and a world of more
  than one rank.

A group owns its own communicator (a duplicate of the world's for the default group), so user
code that uses mpi4py directly never mixes its messages with ours.
"""

from __future__ import annotations

import datetime
import os
import sys
import typing
import warnings

from . import _mpi, _tcp, rendezvous

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)
_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)
default_pg_timeout = _DEFAULT_TIMEOUT  # PyTorch's public name for it
# Names PyTorch's CPU wheel knows (a "device:backend" list is passed through unchecked).
_KNOWN_BACKENDS = ("gloo", "nccl", "mpi", "ucc", "xccl")


class Backend(str):
    """A backend name, lower-cased as PyTorch's ``Backend("GLOO") == "gloo"``."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    # The backend each device type gets by default (PyTorch's table).
    default_device_backend_map: typing.ClassVar[dict] = {"cpu": "gloo", "cuda": "nccl", "xpu": "xccl", "mps": "gloo"}  # fmt: skip

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(  # noqa: TRY004  (PyTorch's type)
                f"Backend constructor parameter must be string-ish, but got: {type(name)}"
            )
        return str.__new__(cls, name.lower())


class ProcessGroup:
    """A set of ranks sharing one MPI communicator; ``rank()``/``size()`` as in PyTorch."""

    def __init__(self, comm, ranks: list[int], backend: str, timeout: datetime.timedelta) -> None:
        self._comm = comm
        self._ranks = list(ranks)
        self._group_rank_of = {r: i for i, r in enumerate(self._ranks)}
        self._backend = backend
        self._timeout = timeout.total_seconds()

    def rank(self) -> int:
        return self._comm.Get_rank()

    def size(self) -> int:
        return len(self._ranks)

    def name(self) -> str:
        return self._backend.upper()

    def group_rank(self, global_rank: int, what: str = "Global rank") -> int:
        """The rank inside this group of ``global_rank``; ValueError when it is not a member."""
        try:
            return self._group_rank_of[global_rank]
        except (KeyError, TypeError):
            raise ValueError(f"{what} {global_rank} is not part of group {self}") from None

    def __repr__(self) -> str:
        return f"<taimatsu.distributed.ProcessGroup {self._backend} ranks={self._ranks}>"


class GroupMember:
    """``GroupMember.WORLD`` (the default group, or None) and ``NON_GROUP_MEMBER`` (-100)."""

    NON_GROUP_MEMBER = -100

    class _World:
        def __get__(self, obj, cls):
            return _state.default

    WORLD = _World()


class _Group:
    """``dist.group.WORLD``: the default group (None before ``init_process_group``)."""

    @property
    def WORLD(self):
        return _state.default


group = _Group()


class _State:
    def __init__(self) -> None:
        self.default: ProcessGroup | None = None
        self.groups: list[ProcessGroup] = []
        self.excepthook = None
        self.tcp_world: _tcp.World | None = None  # the connections, when the ranks use TCP
        self.non_member_ranks: list[int] | None = None  # see new_group


_state = _State()


def is_available() -> bool:
    """True: ranks started without MPI connect over TCP (standard library only)."""
    return True


def is_mpi_available() -> bool:
    return _mpi.available()


def is_gloo_available() -> bool:
    """ "gloo" is served by MPI or, for ranks started without MPI, by the TCP transport."""
    return True


def is_nccl_available() -> bool:
    from .. import cuda

    return _mpi.available() and cuda.is_available()


def get_default_backend_for_device(device) -> str:
    """The backend PyTorch chooses for ``device`` (a device or its name): "gloo" for the CPU,
    "nccl" for CUDA; ValueError for a device type without one."""
    from .._device import device as as_device

    kind = as_device(device).type
    try:
        return Backend.default_device_backend_map[kind]
    except KeyError:
        raise ValueError(f"Default backend not registered for device : {kind}") from None


def is_initialized() -> bool:
    return _state.default is not None


def is_torchelastic_launched() -> bool:
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def default_group() -> ProcessGroup:
    if _state.default is None:
        raise ValueError(_NOT_INITIALIZED)
    return _state.default


def resolve(group) -> ProcessGroup | None:
    """The group a collective runs on; None when this rank is not a member of ``group``."""
    if group is None or group is GroupMember.WORLD:
        return default_group()
    if group == GroupMember.NON_GROUP_MEMBER:
        default_group()
        return None
    if not isinstance(group, ProcessGroup):
        raise ValueError(  # noqa: TRY004  (PyTorch's type)
            f"Group {group} is not registered, please create group with torch.distributed.new_group API"
        )
    if group not in _state.groups:  # destroyed: PyTorch's collectives skip it, as a non-member
        return None
    return group


def _not_registered(group) -> ValueError:
    return ValueError(f"Group {group} is not registered, please create group with torch.distributed.new_group API")  # fmt: skip


def _table_ranks(group) -> list[int]:
    """The global ranks PyTorch's table files under ``group`` (for NON_GROUP_MEMBER: those
    of the last group this rank is not in); ValueError for a destroyed group."""
    pg = resolve(group)
    if pg is not None:
        return pg._ranks
    if group == GroupMember.NON_GROUP_MEMBER and _state.non_member_ranks is not None:
        return _state.non_member_ranks
    raise _not_registered(group)


def _launcher_rank() -> tuple[int, int] | None:
    """(rank, size) when an MPI launcher started this process (MPICH's hydra, Open MPI)."""
    for r, s in (("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")):
        if r in os.environ and s in os.environ:
            return int(os.environ[r]), int(os.environ[s])
    return None


def _expected_rank_and_size(init_method, rank: int, world_size: int) -> tuple[int, int]:
    """What the caller asked for (arguments, else env://), as PyTorch reads it; -1 = unknown."""
    if init_method in (None, "env://"):
        if rank == -1 and "RANK" in os.environ:
            rank = int(os.environ["RANK"])
        if world_size == -1 and "WORLD_SIZE" in os.environ:
            world_size = int(os.environ["WORLD_SIZE"])
        if _launcher_rank() is None:
            for name, value in (("RANK", rank), ("WORLD_SIZE", world_size)):
                if value == -1:
                    raise ValueError(
                        "Error initializing torch.distributed using env:// rendezvous: "
                        f"environment variable {name} expected, but not set"
                    )
    elif _launcher_rank() is None:  # tcp:// and file:// carry both, as in PyTorch
        scheme = rendezvous.check_url(init_method)
        for what, value in (("rank", rank), ("world size", world_size)):
            if value == -1:
                raise rendezvous.init_error(scheme, f"{what} parameter missing")
    return rank, world_size


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: datetime.timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store=None,
    group_name: str = "",
    pg_options=None,
    device_id=None,
) -> None:
    """Join the default process group: MPI's ranks, or ranks connected here over TCP.

    As PyTorch: a second call raises ValueError; env:// without ``RANK``/``WORLD_SIZE`` (and
    without an MPI launcher) raises PyTorch's rendezvous ValueError. Without an MPI launcher
    and with ``world_size > 1``, the ranks meet over TCP (``rendezvous.join``): a rank missing
    after ``timeout`` raises DistStoreError on rank 0 and DistNetworkError or DistStoreError on
    the others. A world of one rank runs on MPI when mpi4py is installed, else on TCP too.
    With ``store=`` (and ``rank``, ``world_size``; no ``init_method``: PyTorch's
    AssertionErrors otherwise) the ranks meet through the user's store
    (``rendezvous.join_store``); the user's own keys stay theirs.
    Deviation: with an MPI launcher, asking for a rank or world size that differs from MPI's
    raises ValueError.
    """
    if _state.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    backend = Backend(backend if backend is not None else "gloo")
    if ":" not in backend and backend not in _KNOWN_BACKENDS:
        warnings.warn(
            f"Device capability of {backend} unknown, assuming `cpu` and `cuda`. You can specify it "
            "in `device:backend` format in `init_process_group` call.",
            UserWarning,
            stacklevel=2,
        )
        raise AssertionError(f"Unknown backend type {backend}")
    if backend == Backend.NCCL:
        from .. import cuda

        if not cuda.is_available():
            raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found!")
    if store is None:
        want_rank, want_size = _expected_rank_and_size(init_method, rank, world_size)
    else:
        want_rank, want_size = rank, world_size
    timeout = _DEFAULT_TIMEOUT if timeout is None else timeout
    if _launcher_rank() is None and (want_size > 1 or store is not None or not _mpi.available()):
        if store is None:
            world = rendezvous.join(init_method, want_rank, want_size, timeout.total_seconds())
        else:
            if want_rank >= want_size:  # PyTorch's gloo enforces this when it builds its context
                raise RuntimeError(f"[enforce fail at gloo/context.cc:23] rank < size. {want_rank} vs {want_size}")  # fmt: skip
            world = rendezvous.join_store(store, want_rank, want_size, timeout.total_seconds())
        _state.tcp_world = world
        _mpi.use(_tcp)
        pg = ProcessGroup(_tcp.Comm(world, list(range(want_size)), "0"), list(range(want_size)), backend, timeout)  # fmt: skip
        _state.default = pg
        _state.groups = [pg]
        return
    MPI = _mpi.mpi()
    world = MPI.COMM_WORLD
    size, me = world.Get_size(), world.Get_rank()
    if want_size not in (-1, size) or want_rank not in (-1, me):
        # Finalize now: a multiprocessing child leaves through os._exit, skipping mpi4py's
        # exit-time MPI_Finalize, and MPICH's shared-memory segment would stay in /dev/shm.
        MPI.Finalize()
        raise ValueError(
            f"taimatsu.distributed runs on MPI: MPI started {size} process(es) and "
            f"this is rank {me}, but rank={want_rank}, world_size={want_size} "
            "was asked for. Start the ranks with `mpiexec -n N` or "
            "`python -m taimatsu.distributed.run --nproc-per-node N`."
        )
    pg = ProcessGroup(world.Dup(), list(range(world.Get_size())), backend, timeout)
    _state.default = pg
    _state.groups = [pg]
    if pg.size() > 1:
        _abort_on_uncaught_exception()


def _abort_on_uncaught_exception() -> None:
    """A rank dying of an exception takes the whole job down instead of leaving peers waiting.

    The exception is printed first, as usual; then ``MPI_Abort`` makes the launcher stop every
    rank (what ``python -m mpi4py`` does).
    """
    if _state.excepthook is not None:
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        _wait_until_read(sys.stderr)
        _mpi.mpi().COMM_WORLD.Abort(1)

    _state.excepthook = previous
    sys.excepthook = hook


def _wait_until_read(stream, limit: float = 2.0) -> None:
    """Wait (at most ``limit`` seconds) until the launcher has read what this rank wrote.

    A rank's stderr is a pipe to mpiexec's proxy. ``MPI_Abort`` makes mpiexec kill every proxy,
    and a proxy killed before it read the pipe loses the traceback the rank just printed (seen on a
    busy machine: the run failed with an empty stderr). The pipe's unread byte count (``FIONREAD``,
    which Linux answers on either end) says when the proxy has taken it all.
    """
    import fcntl
    import stat
    import termios
    import time

    try:
        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return
        deadline = time.monotonic() + limit
        while (
            fcntl.ioctl(fd, termios.FIONREAD, bytes(4)) != bytes(4) and time.monotonic() < deadline
        ):
            time.sleep(0.002)
    except (OSError, ValueError, AttributeError):  # not a pipe, a closed or a replaced stream
        return


def destroy_process_group(group=None) -> None:
    """Free ``group``'s communicator; without ``group``, every group (and the default one)."""
    if _state.default is None:
        raise AssertionError("Process group cannot be None")
    if group is None or group is GroupMember.WORLD:
        world, _state.tcp_world = _state.tcp_world, None
        if world is not None:
            world.close()  # first: wakes any collective still waiting for a peer
            _mpi.use(None)
        for pg in _state.groups:
            pg._comm.Free()
        _state.default, _state.groups, _state.non_member_ranks = None, [], None
        if _state.excepthook is not None:
            sys.excepthook, _state.excepthook = _state.excepthook, None
        return
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve(group)
    if pg is None:  # destroyed already
        raise ValueError("Invalid process group specified")
    pg._comm.Free()
    _state.groups.remove(pg)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False, group_desc=None):  # fmt: skip
    """A group of ``ranks`` (global ranks); every rank of the default group must call it.

    Ranks outside the group get ``GroupMember.NON_GROUP_MEMBER``, as in PyTorch.
    """
    world = default_group()
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
    if len(ranks) > world.size():
        raise ValueError(
            "the new group's world size should be less or equal to the world size set by "
            "init_process_group"
        )
    for r in ranks:
        if r < 0 or r >= world.size():
            raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {world.size() - 1} (world_size={world.size()})")  # fmt: skip
    comm = world._comm.Create(world._comm.Get_group().Incl(ranks))
    if comm == _mpi.mpi().COMM_NULL:
        # PyTorch files the ranks of the last group a rank is not in under NON_GROUP_MEMBER,
        # so get_process_group_ranks(NON_GROUP_MEMBER) gives them
        _state.non_member_ranks = ranks
        return GroupMember.NON_GROUP_MEMBER
    timeout = datetime.timedelta(seconds=world._timeout) if timeout is None else timeout
    pg = ProcessGroup(comm, ranks, Backend(backend or world._backend), timeout)
    _state.groups.append(pg)
    return pg


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (-1 when it is not a member)."""
    pg = resolve(group)
    if pg is None and isinstance(group, ProcessGroup):
        raise _not_registered(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    """The number of ranks in ``group`` (-1 when this process is not a member)."""
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> str:
    pg = resolve(group)
    if pg is None and isinstance(group, ProcessGroup):
        raise ValueError(f"Process group {group} is not initialized in the world group map. Please initialize the group first.")  # fmt: skip
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg._backend


def get_process_group_ranks(group) -> list[int]:
    try:
        return list(_table_ranks(group))
    except ValueError:
        raise KeyError(group) from None  # PyTorch's lookup of an unknown group


def get_global_rank(group, group_rank: int) -> int:
    if group is not None and group is GroupMember.WORLD:
        return group_rank  # PyTorch answers for the default group unchecked
    ranks = _table_ranks(group)
    if not isinstance(group_rank, int) or not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    if group is not None and group is GroupMember.WORLD:
        return global_rank  # PyTorch answers for the default group unchecked
    ranks = _table_ranks(group)
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):  # fmt: skip
    """Split ``group``'s ranks into consecutive subgroups of ``group_size``; (this rank's
    subgroup, all of them). Every rank of the default group must call it, as ``new_group``.

    As PyTorch: without ``group_size`` it is the number of CUDA devices (ValueError without
    CUDA); it must be positive, at most the world size, and divide it."""
    if group_size is None:
        from .. import cuda

        if not cuda.is_available():
            raise ValueError(
                "Default group size only takes effect when CUDA is available."
                "If your subgroup using a backend that does not depend on CUDA,"
                "please pass in 'group_size' correctly."
            )
        group_size = cuda.device_count()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    size = get_world_size(group)
    if size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({size})")  # fmt: skip
    if size % group_size != 0:
        raise ValueError(f"The world size ({size}) must be divisible by '{group_size=}'")
    ranks = get_process_group_ranks(group)
    return new_subgroups_by_enumeration(
        [ranks[i : i + group_size] for i in range(0, len(ranks), group_size)],
        timeout=timeout, backend=backend, pg_options=pg_options, group_desc=group_desc,
    )  # fmt: skip


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None, group_desc=None):  # fmt: skip
    """One ``new_group`` per list of global ranks; (this rank's subgroup or None, all of them).
    A rank in two lists raises ValueError (after both groups were made, as in PyTorch)."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    me, mine, subgroups, owner = get_rank(), None, [], {}
    for ranks in ranks_per_subgroup_list:
        subgroup = new_group(ranks, timeout=timeout, backend=backend, pg_options=pg_options, group_desc=group_desc)  # fmt: skip
        subgroups.append(subgroup)
        for r in ranks:
            if r in owner:
                raise ValueError(f"Rank {r} has appeared in both subgroup {owner[r]} and {ranks}")
            owner[r] = ranks
            if r == me:
                mine = subgroup
    return mine, subgroups


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank on its node: ``LOCAL_RANK`` (set by torchrun), else ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
        "and want the code to run locally instead."
    )
