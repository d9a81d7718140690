"""NumPy's keyword names where PyTorch's parser takes them as aliases: ``axis`` for ``dim``,
``keepdims`` for ``keepdim``, ``x`` and ``x1`` for ``input``, ``x2`` for ``other``
(``p.sum(axis=0, keepdims=True)``, ``torch.cat(ts, axis=1)``, ``torch.maximum(x1=a, x2=b)``).

taimatsu's functions name their parameters as PyTorch's schemas do, so a call with an alias
fails as Python binds it; only then are the aliases translated and the call made again (a call
with PyTorch's own names costs nothing more). The namespaces' guarded functions
(``_tensor_arguments.py``) retry this way; so do the Tensor methods listed in ``METHODS``.
"""

from __future__ import annotations

import functools

_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "x1": "input", "x2": "other"}

# Tensor methods with a dim / keepdim parameter that NumPy users call with NumPy's names
METHODS = (
    "sum", "mean", "nansum", "nanmean", "prod", "std", "var", "max", "min", "amax", "amin", "argmax",
    "argmin", "all", "any", "cumsum", "cumprod", "logsumexp", "median", "nanmedian", "mode", "norm",
    "softmax", "log_softmax", "squeeze", "unsqueeze", "count_nonzero", "aminmax", "sort", "argsort",
    "topk", "kthvalue", "cummax", "cummin", "unbind", "flatten", "diff", "take_along_dim", "roll",
    "repeat_interleave", "quantile", "nanquantile", "std_mean", "var_mean", "logcumsumexp",
)  # fmt: skip


def translated(kwargs: dict, error: Exception) -> dict | None:
    """``kwargs`` with NumPy's names replaced by PyTorch's, or None when there is none to replace
    (or both spellings are given, or ``error`` is not Python's refusal of the call's arguments:
    a function whose own parameter is called ``x2`` raised it; the original TypeError stands)."""
    if not any(k in _ALIASES for k in kwargs) or not any(
        m in str(error) for m in ("unexpected keyword argument", "required positional argument")
    ):
        return None
    out = {}
    for k, v in kwargs.items():
        name = _ALIASES.get(k, k)
        if name in out or (name != k and name in kwargs):
            return None
        out[name] = v
    return out


def _retrying(fn):
    @functools.wraps(fn)
    def method(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            new = translated(kwargs, e) if kwargs else None
            if new is None:
                raise
        return fn(*args, **new)

    return method


def accept_on_methods(cls) -> None:
    """Wrap ``METHODS`` of the Tensor class ``cls`` so that they take NumPy's names."""
    for name in METHODS:
        fn = getattr(cls, name, None)
        if fn is not None:
            setattr(cls, name, _retrying(fn))
