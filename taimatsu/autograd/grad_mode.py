"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (thread-local).

Each works as a context manager and as a decorator (``@no_grad()``, or bare ``@no_grad``
as PyTorch >= 2.1 allows); decorating a generator function applies the mode each time the
generator resumes, as PyTorch does.
"""

from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    # Class attributes act as per-thread defaults (a new thread starts with grad enabled).
    enabled = True  # whether ops record a graph (every op reads this)
    inference = False
    # Inside inference mode nothing is recorded, yet enable_grad / set_grad_enabled still set
    # the grad mode torch.is_grad_enabled() reports (and factories' requires_grad=True works):
    # that mode is kept here, and ``enabled`` stays False.
    shown = False


state = _State()


class _Active:
    """Process-wide count of open inference_mode blocks: a cheap pre-check for ``_wrap``."""

    inference = 0


active = _Active()


def is_grad_enabled() -> bool:
    return state.shown if state.inference else state.enabled


def _set_mode(mode: bool) -> None:
    """Set the grad mode (in inference mode, the one reported: recording stays off)."""
    if state.inference:
        state.shown = mode
    else:
        state.enabled = mode


def is_inference_mode_enabled() -> bool:
    return state.inference


class _DecoratorContextManager:
    """A context manager that can also decorate functions and generator functions."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is deprecated and will be disabled in future versions. "
                               "You should only decorate functions or methods.")  # fmt: skip
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    request = gen.send(None)
                while True:
                    try:
                        response = yield request
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:  # noqa: BLE001
                        with self.clone():
                            request = gen.throw(e)
                    else:
                        with self.clone():
                            request = gen.send(response)
            except StopIteration as e:
                return e.value

        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: ``@no_grad`` without parentheses."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable gradient recording inside the block."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        _set_mode(False)

    def __exit__(self, *exc) -> None:
        _set_mode(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Enable gradient recording inside the block (even under no_grad)."""

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        _set_mode(True)

    def __exit__(self, *exc) -> None:
        _set_mode(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode; works as a function call, a context manager and a decorator."""

    def __init__(self, mode: bool) -> None:
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        _set_mode(self.mode)

    def __call__(self, func):
        _set_mode(self.prev)  # decorating must not change the mode now
        return super().__call__(func)

    def __enter__(self) -> None:
        _set_mode(self.mode)

    def __exit__(self, *exc) -> None:
        _set_mode(self.prev)

    def clone(self):
        return self.__class__(self.mode)

    def __repr__(self) -> str:
        # torch.typename's spelling, as PyTorch's repr: the module path under torch's name
        module = type(self).__module__.replace("taimatsu", "torch", 1)
        return f"{module}.{type(self).__qualname__}(mode={self.mode})"


class _Threading(threading.local):
    multithreading = True


_threading = _Threading()


def is_multithreading_enabled() -> bool:
    return _threading.multithreading


class set_multithreading_enabled(_DecoratorContextManager):
    """PyTorch's switch between device worker threads and the calling thread for the backward
    (per thread; a call, a context manager or a decorator). taimatsu's engine always runs the
    backward on the calling thread, which is what PyTorch does for CPU tensors either way: the
    switch is kept and read back, and changes no result."""

    def __init__(self, mode: bool) -> None:
        self.prev = _threading.multithreading
        _threading.multithreading = self.mode = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _threading.multithreading = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad; tensors made inside are inference tensors (``is_inference()``)."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference, state.shown)
        if self.mode:
            state.enabled, state.inference, state.shown = False, True, False
            active.inference += 1
        else:  # PyTorch: disabling inference mode enables grad mode
            state.enabled, state.inference = True, False

    def __exit__(self, *exc) -> None:
        state.enabled, state.inference, state.shown = self.prev
        if self.mode:
            active.inference -= 1

    def clone(self):
        return self.__class__(self.mode)
