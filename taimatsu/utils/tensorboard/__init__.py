"""``torch.utils.tensorboard``: ``SummaryWriter`` writing TensorBoard event files through the
``tensorboard`` package's own writer and protocol buffers.

Without the ``tensorboard`` package, importing this module raises what PyTorch's raises
(``ModuleNotFoundError: No module named 'tensorboard'``); with a version older than 1.15, PyTorch's
``ImportError``.
"""

import tensorboard

from ._version import older_than

if older_than(getattr(tensorboard, "__version__", "0"), (1, 15)):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard, older_than

from tensorboard.summary.writer.record_writer import RecordWriter

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
