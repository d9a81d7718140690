"""``OptimizedModule``: what ``torch.compile(module)`` returns, at PyTorch's path
``torch._dynamo.eval_frame.OptimizedModule``.

Calling the wrapper calls the original module (its hooks included); with a string backend that is
PyTorch's ``backend="eager"`` (a callable backend replaces ``forward``). The original is
the child ``_orig_mod`` (so ``state_dict`` keys start with ``_orig_mod.`` and the repr nests it), and
attribute reads, writes and deletes that are not the wrapper's own go to the original.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nn.modules.module import Module


class OptimizedModule(Module):
    """A compiled module: ``_orig_mod`` is the module given to ``torch.compile``."""

    # Names the wrapper keeps for itself; every other attribute lives on the original module.
    _opt_mod_attributes = frozenset(
        {"_orig_mod", "_torchdynamo_orig_callable", "forward", "__dict__", "compiler_config"}
    )

    def __init__(self, mod: Module, compiler_config: dict | None = None) -> None:
        super().__init__()
        self._orig_mod = mod
        self.compiler_config = compiler_config or {}

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    @property
    def _torchdynamo_orig_callable(self):
        return self._orig_mod.forward

    def get_compiler_config(self) -> dict:
        """The keyword arguments ``torch.compile`` was given (PyTorch returns its backend's config)."""
        return self.compiler_config

    # ``training`` is the original's: ``compiled.training`` follows ``model.eval()``.
    @property
    def training(self) -> bool:
        orig = self.__dict__.get("_modules", {}).get("_orig_mod")
        return True if orig is None else orig.training

    @training.setter
    def training(self, value: bool) -> None:
        orig = self.__dict__.get("_modules", {}).get("_orig_mod")
        if orig is not None:  # Module.__init__ sets it before _orig_mod exists
            orig.training = value

    def __getattr__(self, name: str):
        modules = self.__dict__.get("_modules")
        if modules is None or "_orig_mod" not in modules:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if name == "_orig_mod":
            return modules["_orig_mod"]
        return getattr(modules["_orig_mod"], name)

    def __setattr__(self, name: str, value) -> None:
        if name in self._opt_mod_attributes or "_orig_mod" not in self.__dict__.get("_modules", {}):
            super().__setattr__(name, value)
        else:
            setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._opt_mod_attributes:
            super().__delattr__(name)
        else:
            delattr(self._orig_mod, name)


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None):
    """``torch.compiler.disable``: keep ``fn`` out of compilation. Everything already runs eagerly in
    taimatsu, so ``fn`` is returned as it is; without ``fn``, a decorator that does the same."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    return fn


def is_compiling() -> bool:
    """False: taimatsu never traces, so no code ever runs while being compiled."""
    return False
