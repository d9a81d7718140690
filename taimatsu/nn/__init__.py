"""``torch.nn``: modules, parameters, ``functional``, ``init`` and ``utils``."""

from . import attention, functional, grad, init, utils
from . import parallel  # torch.nn.parallel: DistributedDataParallel, DataParallel
from .modules import *
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [  # noqa: PLE0604
    *_modules_all,
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "attention",
    "functional",
    "grad",
    "init",
    "utils",
]
