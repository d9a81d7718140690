"""Helpers behind the DataLoader (``torch.utils.data._utils``)."""

import atexit as _atexit

from . import collate  # noqa: F401

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between liveness checks while the loader or a worker waits on a queue."""

python_exit_status = False
"""True once the interpreter has begun to exit: iterators then leave their workers to
``multiprocessing``'s own exit handler (daemonic processes are terminated there)."""


def _set_python_exit_flag() -> None:
    global python_exit_status
    python_exit_status = True


_atexit.register(_set_python_exit_flag)
