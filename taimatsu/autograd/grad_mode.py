"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (thread-local)."""

from __future__ import annotations

import functools
import threading


class _State(threading.local):
    # Class attributes act as per-thread defaults.
    enabled = True
    inference = False


state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _DecoratorContextManager:
    """A context manager that can also decorate functions (and generator-free callables)."""

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording inside the block."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside the block (even under no_grad)."""

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode; works as a function call, a context manager and a decorator."""

    def __init__(self, mode: bool) -> None:
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad; tensors made inside are inference tensors (``is_inference()``)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled, state.inference = False, True

    def __exit__(self, *exc) -> None:
        state.enabled, state.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)
