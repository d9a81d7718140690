"""``torch.backends.openmp``: True as on PyTorch's CPU wheel; taimatsu's parallel CPU work runs on
NumPy's threads and its own thread pool (see ``torch.set_num_threads``)."""

from __future__ import annotations


def is_available() -> bool:
    return True
