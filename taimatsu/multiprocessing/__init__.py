"""``torch.multiprocessing``: Python's ``multiprocessing``, with tensors shared between processes.

Everything in the standard ``multiprocessing`` is here under the same name (``Process``,
``Queue``, ``SimpleQueue``, ``Pool``, ``get_context``, ``set_start_method``, ...). Importing this
module (``import taimatsu`` does) registers reducers with ``ForkingPickler`` so that a tensor
sent through any multiprocessing queue, pipe or pool, or passed to a spawned ``Process``, moves
into shared memory and arrives sharing it (see ``reductions``). ``spawn`` / ``start_processes``
run a function in N processes with PyTorch's error reporting.

Sharing strategies: both of PyTorch's names are accepted and read back. Memory always travels as
an anonymous shared file passed by descriptor (PyTorch's ``file_descriptor`` strategy), which
can leave nothing behind in ``/dev/shm``; choosing ``file_system`` changes nothing here.
"""

import multiprocessing
from multiprocessing import *

from .reductions import init_reductions
from .spawn import ProcessContext as ProcessContext
from .spawn import ProcessExitedException as ProcessExitedException
from .spawn import ProcessRaisedException as ProcessRaisedException
from .spawn import SpawnContext as SpawnContext
from .spawn import spawn as spawn
from .spawn import start_processes as start_processes

__all__ = ["get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy"]
__all__ += multiprocessing.__all__

_sharing_strategy = "file_descriptor"
_all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy: str) -> None:
    """Set the strategy for sharing CPU tensors (see the module docstring for what it changes)."""
    global _sharing_strategy
    assert new_strategy in _all_sharing_strategies
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set:
    """The strategies this system supports."""
    return set(_all_sharing_strategies)


init_reductions()
