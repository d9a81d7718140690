"""``detect_anomaly`` / ``set_detect_anomaly``: after each backward node, check for NaN."""

from __future__ import annotations


class _Anomaly:
    enabled = False
    check_nan = True


state = _Anomaly()


def is_anomaly_enabled() -> bool:
    return state.enabled


class detect_anomaly:
    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        state.enabled, state.check_nan = self.prev


class set_detect_anomaly:
    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = mode, check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled, state.check_nan = self.prev
