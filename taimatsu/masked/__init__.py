"""``torch.masked``: reductions and normalizations that skip the elements a boolean mask marks
out (``torch.masked.sum(x, 1, mask=m)``). See ``_ops.py`` for what matches PyTorch.

PyTorch's prototype ``MaskedTensor`` (``masked_tensor``, ``as_masked_tensor``) is not here: it
routes every ``torch.*`` call through ``__torch_function__``/``__torch_dispatch__``, which
taimatsu does not have.
"""

from ._ops import (
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logaddexp,
    logsumexp,
    mean,
    median,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]
