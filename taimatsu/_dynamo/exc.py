"""``torch._dynamo.exc``: the exceptions ``torch.compile`` raises before anything runs."""

from __future__ import annotations


class TorchDynamoException(RuntimeError):
    pass


class InvalidBackend(TorchDynamoException):
    """A ``backend=`` string PyTorch does not register; PyTorch's message."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends."
        )


class Unsupported(TorchDynamoException):
    """Code ``fullgraph=True`` cannot capture (PyTorch: data-dependent branching and the like)."""
