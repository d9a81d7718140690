"""NumPy's floating-point error reporting, switched off around taimatsu's kernels.

PyTorch's kernels never report IEEE exceptions: ``log(-1)`` is NaN, ``1 / 0`` is inf and
``exp(1e30)`` overflows to inf silently. NumPy's ufuncs instead emit a RuntimeWarning ("divide
by zero encountered in log"), which a user's ``warnings.simplefilter("error")`` (or pytest's
``-W error``) turns into an exception. Each op runs its kernel under ``quiet()`` ... ``loud()``
(or the ``silent`` decorator): the same as ``np.errstate(all="ignore")``, without building an
errstate object on every call. The state is NumPy's own, per thread and per context, so a
user's NumPy code outside taimatsu's kernels keeps its settings.
"""

from __future__ import annotations

import functools

import numpy as np

try:  # NumPy >= 2: the error state is a context variable holding an "extobj"
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE = _make_extobj(all="ignore")
    _set, loud = _extobj_contextvar.set, _extobj_contextvar.reset

    def quiet():
        """Ignore floating-point errors until ``loud(token)``; returns the token."""
        return _set(_IGNORE)

except ImportError:  # NumPy 1.x: a per-thread setting that seterr swaps

    def quiet():
        """Ignore floating-point errors until ``loud(token)``; returns the token."""
        return np.seterr(all="ignore")

    def loud(token) -> None:
        """Restore the error state ``quiet`` returned ``token`` for."""
        np.seterr(**token)


def silent(fn):
    """``fn`` with NumPy's floating-point errors ignored while it runs."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        token = quiet()
        try:
            return fn(*args, **kwargs)
        finally:
            loud(token)

    return run
