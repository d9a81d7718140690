"""``detect_anomaly`` / ``set_detect_anomaly``.

While enabled (with ``check_nan``), the engine checks every backward node's outputs and
raises PyTorch's "Function 'XBackward0' returned nan values in its 0th output." Unlike
PyTorch, no traceback of the forward call is recorded.
"""

from __future__ import annotations

import warnings


class _Anomaly:
    enabled = False
    check_nan = True


state = _Anomaly()


def is_anomaly_enabled() -> bool:
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return state.check_nan


class detect_anomaly:
    """Context manager that enables anomaly detection inside its block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = state.check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        state.enabled, state.check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        state.enabled, state.check_nan = self.prev, self.prev_check_nan

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off; as a function call or as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = state.enabled, state.check_nan
        state.enabled, state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled, state.check_nan = self.prev, self.prev_check_nan
