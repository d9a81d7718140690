"""``torch.nn.parallel``: ``DistributedDataParallel`` (processes, over MPI) and ``DataParallel``."""

from ..modules.data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
