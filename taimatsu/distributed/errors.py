"""``torch.distributed``'s error classes: ``DistError`` and its store, network and backend kinds.

All are ``RuntimeError`` subclasses, as in PyTorch, so ``except RuntimeError`` catches them.
"""

from __future__ import annotations


class DistError(RuntimeError):
    """An error of the distributed package."""


class DistBackendError(DistError):
    """A collective or point-to-point operation failed (a peer closed its connection...)."""


class DistStoreError(DistError):
    """The rendezvous failed (e.g. not every rank joined within the timeout)."""


class DistNetworkError(DistError):
    """A network error during the rendezvous (e.g. the master cannot be reached)."""
