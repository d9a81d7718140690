"""The ``weights_only=True`` unpickler: a small interpreter of the pickle opcodes a checkpoint needs.

It never imports anything: a GLOBAL is looked up in a fixed table (tensors, storages, dtypes,
``Size``, ``device``, ``OrderedDict`` and a few builtins) or in the user's allow-list
(``add_safe_globals``), and anything else stops the load with ``pickle.UnpicklingError`` before
it is called. REDUCE/NEWOBJ only call allowed objects; BUILD is PyTorch's: ``set_(*state)`` on a
tensor, ``Tensor.__setstate__`` on a Parameter (neither sets attributes), ``__dict__`` updates on
OrderedDicts and allow-listed types; APPEND(S)/SETITEM(S) only fill lists and dicts. The opcode set
and the messages are PyTorch's (``torch._weights_only_unpickler``), so a file refused by one is
refused by the other with the same words.

Refused here but not by PyTorch, on purpose: ``bytearray(n)`` with a number (a few bytes of pickle
would allocate ``n`` bytes; real checkpoints hold bytearrays of bytes) and a Parameter state with
backward hooks (a weights-only file cannot hold a callable hook).
"""

from __future__ import annotations

import pickle
import struct
import sys
import warnings
from collections import Counter, OrderedDict
from pickle import UnpicklingError

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

# Python 2 names in protocol-2 pickles, renamed as PyTorch renames them (a subset of
# ``_compat_pickle``'s tables: PyTorch's messages name e.g. ``commands.call`` unmapped).
_IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}  # fmt: skip
_NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"), ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"), ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"), ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"), ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"), ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"), ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"), ("UserDict", "UserDict"): ("collections", "UserDict"),
}  # fmt: skip

_user_globals: set = set()


def add_safe_globals(safe_globals: list) -> None:
    """Allow these functions/classes (or ``(obj, "module.name")`` pairs) in ``weights_only`` loads."""
    global _user_globals
    _user_globals = _user_globals.union(set(safe_globals))


def get_safe_globals() -> list:
    return list(_user_globals)


def clear_safe_globals() -> None:
    global _user_globals
    _user_globals = set()


def _remove_safe_globals(globals_to_remove: list) -> None:
    global _user_globals
    _user_globals = _user_globals - set(globals_to_remove)


class safe_globals:
    """Context manager: ``add_safe_globals`` for the duration of a ``with`` block."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _remove_safe_globals(self.safe_globals)


def user_allowed_globals() -> dict:
    rc = {}
    for f in _user_globals:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: {len(f)}"
                )
            if type(f[1]) is not str:
                raise TypeError(
                    f"Expected second item in tuple to be str of callable full path, but got: {type(f[1])}"
                )
            rc[f[1]] = f[0]
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


def _safe_bytearray(*args):
    # bytearray(n) allocates n bytes: a tiny file could ask for terabytes.
    if args and not isinstance(args[0], (bytes, bytearray, str)):
        raise UnpicklingError(
            "bytearray can only be rebuilt from bytes or str in a weights_only load"
        )
    return bytearray(*args)


def _read_global(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    if (module, name) in _NAME_MAPPING:
        module, name = _NAME_MAPPING[(module, name)]
    elif module in _IMPORT_MAPPING:
        module = _IMPORT_MAPPING[module]
    return module, name


def _unsupported_global(full_path: str) -> UnpicklingError:
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins") :]
        full_path = rest[1:] if rest[:1] == "." else "builtins" + rest
    return UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
        "if you trust this class/function."
    )


def _object_at_torch_path(module: str, name: str):
    """The taimatsu object at PyTorch's path ``module.name``, or None; imports only taimatsu's modules."""
    if not module.startswith("torch."):
        return None
    import importlib

    try:
        return getattr(importlib.import_module("taimatsu" + module[5:]), name, None)
    except (ImportError, ValueError):
        return None


class Unpickler:
    """``Unpickler(file, allowed, persistent_load).load()``; ``allowed`` maps "module.name" to objects."""

    def __init__(self, file, allowed: dict, persistent_load, *, encoding: str = "utf-8"):
        self.read, self.readline = file.read, file.readline
        self.allowed = allowed
        self.persistent_load = persistent_load
        self.encoding = encoding

    def load(self):
        # A corrupt stream fails as in PyTorch: KeyError for a missing memo entry, IndexError for an
        # empty stack, struct.error for a short read (not wrapped: PyTorch's types)
        return self._load()

    def _lookup(self, module: str, name: str):
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
            )
        if full_path in self.allowed:
            return self.allowed[full_path]
        user = user_allowed_globals()
        if full_path in user:
            return user[full_path]
        # A user-allowed taimatsu class named by PyTorch's path (torch.nn.modules.linear.Linear)
        obj = _object_at_torch_path(module, name)
        if obj is not None and any(obj is v for v in user.values()):
            return obj
        raise _unsupported_global(full_path)

    def _is_allowed(self, obj) -> bool:
        return any(obj is v for v in self.allowed.values()) or any(
            obj is v for v in user_allowed_globals().values()
        )

    def _load(self):
        read, readline = self.read, self.readline
        memo: dict = {}
        metastack: list = []
        stack: list = []
        unpack = struct.unpack
        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            if op == pickle.GLOBAL[0]:
                stack.append(self._lookup(*_read_global(readline)))
            elif op == pickle.NEWOBJ[0]:
                args = stack.pop()
                cls = stack.pop()
                if not self._is_allowed(cls) or not isinstance(cls, type):
                    raise UnpicklingError(
                        f"Can only create new object for nn.Parameter or classes allowlisted via `add_safe_globals` but got {cls}"
                    )
                stack.append(
                    cls(*args)
                    if getattr(cls, "__name__", "") == "Parameter"
                    else cls.__new__(cls, *args)
                )
            elif op == pickle.REDUCE[0]:
                args = stack.pop()
                func = stack[-1]
                if not self._is_allowed(func):
                    msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        msg += f" which belongs to {func.__self__}"
                    raise UnpicklingError(msg)
                if not isinstance(args, tuple):
                    raise UnpicklingError(f"REDUCE arguments must be a tuple, but got {type(args)}")
                stack[-1] = (_safe_bytearray if func is bytearray else func)(*args)
            elif op == pickle.BUILD[0]:
                state = stack.pop()
                _build(stack[-1], state, self)
            elif op == pickle.APPEND[0]:
                item = stack.pop()
                if type(stack[-1]) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(stack[-1])}")
                stack[-1].append(item)
            elif op == pickle.APPENDS[0]:
                items, stack = stack, metastack.pop()
                if type(stack[-1]) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(stack[-1])}")
                stack[-1].extend(items)
            elif op == pickle.SETITEM[0]:
                v, k = stack.pop(), stack.pop()
                _check_dict(stack[-1], "SETITEM")
                stack[-1][k] = v
            elif op == pickle.SETITEMS[0]:
                items, stack = stack, metastack.pop()
                _check_dict(stack[-1], "SETITEMS")
                for i in range(0, len(items) - 1, 2):
                    stack[-1][items[i]] = items[i + 1]
            elif op == pickle.MARK[0]:
                metastack.append(stack)
                stack = []
            elif op == pickle.TUPLE[0]:
                items, stack = stack, metastack.pop()
                stack.append(tuple(items))
            elif op == pickle.TUPLE1[0]:
                stack[-1] = (stack[-1],)
            elif op == pickle.TUPLE2[0]:
                stack[-2:] = [(stack[-2], stack[-1])]
            elif op == pickle.TUPLE3[0]:
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif op == pickle.NONE[0]:
                stack.append(None)
            elif op == pickle.NEWFALSE[0]:
                stack.append(False)
            elif op == pickle.NEWTRUE[0]:
                stack.append(True)
            elif op == pickle.EMPTY_TUPLE[0]:
                stack.append(())
            elif op == pickle.EMPTY_LIST[0]:
                stack.append([])
            elif op == pickle.EMPTY_DICT[0]:
                stack.append({})
            elif op == pickle.EMPTY_SET[0]:
                stack.append(set())
            elif op == pickle.BININT[0]:
                stack.append(unpack("<i", read(4))[0])
            elif op == pickle.BININT1[0]:
                stack.append(read(1)[0])
            elif op == pickle.BININT2[0]:
                stack.append(unpack("<H", read(2))[0])
            elif op == pickle.BINFLOAT[0]:
                stack.append(unpack(">d", read(8))[0])
            elif op == pickle.BINUNICODE[0]:
                n = unpack("<I", read(4))[0]
                if n > sys.maxsize:
                    raise UnpicklingError("String is too long")
                stack.append(str(read(n), "utf-8", "surrogatepass"))
            elif op == pickle.SHORT_BINSTRING[0]:
                data = read(read(1)[0])
                stack.append(
                    data if self.encoding == "bytes" else data.decode(self.encoding, "strict")
                )
            elif op == pickle.BINPERSID[0]:
                pid = stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(
                        f"persistent_load id must be tuple or int, but got {type(pid)}"
                    )
                if type(pid) is tuple and len(pid) > 0 and _ascii(pid[0]) != "storage":
                    raise UnpicklingError(
                        f"Only persistent_load of storage is allowed, but got {type(pid[0])}"
                    )
                stack.append(self.persistent_load(pid))
            elif op in (pickle.BINGET[0], pickle.LONG_BINGET[0]):
                idx = (read(1) if op == pickle.BINGET[0] else unpack("<I", read(4)))[0]
                stack.append(memo[idx])
            elif op in (pickle.BINPUT[0], pickle.LONG_BINPUT[0]):
                idx = (read(1) if op == pickle.BINPUT[0] else unpack("<I", read(4)))[0]
                memo[idx] = stack[-1]
            elif op == pickle.LONG1[0]:
                n = read(1)[0]
                stack.append(pickle.decode_long(read(n)))
            elif op == pickle.PROTO[0]:
                proto = read(1)[0]
                if proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {proto} in the checkpoint, which was not the default pickle protocol "
                        "used by `torch.load` (2). The weights_only Unpickler might not support all instructions "
                        "implemented by this protocol, please file an issue for adding support if you encounter this.",
                        stacklevel=2,
                    )
            elif op == pickle.STOP[0]:
                return stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {op}")


def _ascii(x):
    return x.decode("ascii") if isinstance(x, bytes) else x


def _check_dict(target, opcode: str) -> None:
    if type(target) not in (dict, OrderedDict, Counter):
        raise UnpicklingError(
            f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but got {type(target)}"
        )


def _build(inst, state, unpickler: Unpickler) -> None:
    from .._tensor.core import Tensor
    from ..nn.parameter import Parameter

    if type(inst) is OrderedDict:
        if not isinstance(state, dict):
            raise UnpicklingError(f"OrderedDict state must be a dict, but got {type(state)}")
        inst.__dict__.update(state)
    # PyTorch's BUILD on a tensor is the legacy ``set_(*state)`` and on a Parameter
    # ``Tensor.__setstate__``: neither sets attributes, so a state such as ``{'size': 5}``
    # (which would shadow ``Tensor.size``) is refused with their errors
    elif type(inst) is Tensor:
        if not _iterable(state):
            raise TypeError(
                f"Tensor.set_() argument after * must be an iterable, not {type(state).__name__}"
            )
        _legacy_set(inst, tuple(state))
    elif type(inst) is Parameter:
        _parameter_setstate(inst, state)
    elif unpickler._is_allowed(type(inst)):
        if hasattr(inst, "__setstate__"):
            inst.__setstate__(state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        if state:
            inst.__dict__.update(state)
        if slotstate:
            for k, v in slotstate.items():
                setattr(inst, k, v)
    else:
        raise UnpicklingError(
            f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, but got {type(inst)}"
        )


def _iterable(obj) -> bool:
    try:
        iter(obj)
    except TypeError:
        return False
    return True


_SET_SIGNATURES = (
    "()",
    "(torch.Storage source)",
    "(torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
    "(Tensor source)",
    "(Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
)


def _legacy_set(inst, args: tuple) -> None:
    """``Tensor.set_(*args)`` for the four forms PyTorch accepts, with its errors otherwise."""
    from .._tensor.core import Tensor
    from ..storage import UntypedStorage
    from ._format import TypedStorage, _contiguous_strides, _rebuild_tensor

    sizes_ok = len(args) >= 3 and all(isinstance(a, (tuple, list)) or a is None for a in args[2:])
    if args and isinstance(args[0], TypedStorage):
        args = (args[0].untyped(), *args[1:])
    if not args:
        source = UntypedStorage._over(inst._data.reshape(-1)[:0].view("u1"), inst._device)
        args = (source, 0, (0,), None)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        source = args[0]
        if source._dtype is not inst._dtype:
            raise RuntimeError(
                f"Could not set tensor of type {source._dtype.name} to a tensor of type "
                f"{inst._dtype.name}".replace("float64", "double").replace("float32", "float")
            )
        inst._data, inst._storage = source._data, source._storage
        return
    elif len(args) == 1 and isinstance(args[0], UntypedStorage):
        args = (args[0], 0, (args[0].nbytes() // inst._dtype.itemsize,), None)
    elif not (
        len(args) in (3, 4)
        and isinstance(args[0], UntypedStorage)
        and type(args[1]) is int
        and sizes_ok
        and args[2] is not None
    ):
        raise TypeError(_set_mismatch(args))
    storage, offset, size = args[0], args[1], tuple(args[2])
    stride = _contiguous_strides(size) if len(args) == 3 or args[3] is None else tuple(args[3])
    # set_ reads a storage's bytes as the tensor's dtype
    built = _rebuild_tensor(TypedStorage(storage, inst._dtype), offset, size, stride)
    inst._data, inst._storage = built._data, built._storage


def _set_mismatch(args: tuple) -> str:
    """PyTorch's argument-parser message for ``set_`` (which overloads it explains, and how)."""
    from .._tensor.core import Tensor
    from ..storage import UntypedStorage

    got = ", ".join(_type_name(a) for a in args)
    lines = [
        f"set_() received an invalid combination of arguments - got ({got}), but expected one of:"
    ]
    for i, sig in enumerate(_SET_SIGNATURES):
        lines.append(f" * {sig}")
        if len(args) == 1 and i in (0, 1, 3):
            why = f"!{_type_name(args[0])}!"
        elif len(args) == 4 and i in (2, 4):
            source_ok = isinstance(args[0], Tensor if i == 4 else UntypedStorage)
            marks = [_mark(args[0], source_ok), _mark(args[1], type(args[1]) is int)]
            why = ", ".join(marks + [_mark(a, False) for a in args[2:]])
        else:
            continue
        lines.append(
            f"      didn't match because some of the arguments have invalid types: ({why})"
        )
    return "\n".join(lines) + "\n"


def _type_name(a) -> str:
    from .._tensor.core import Tensor

    return "Tensor" if isinstance(a, Tensor) else type(a).__name__


def _mark(a, ok: bool) -> str:
    name = _type_name(a)
    if isinstance(a, tuple):  # PyTorch names a tuple by its items' types (and always flags it)
        items = ", ".join(_type_name(x) for x in a)
        name = f"tuple of ({items},)" if len(a) == 1 else f"tuple of ({items})"
    return name if ok else f"!{name}!"


def _parameter_setstate(inst, state) -> None:
    """``Tensor.__setstate__`` as PyTorch runs it on a Parameter: legacy tuples only."""
    n = len(state)
    if n == 4:
        _legacy_set(inst, tuple(state))
        return
    if n == 5:
        from .._tensor.core import Tensor

        if not isinstance(state[0], Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(state[0])}")
        _legacy_set(inst, (state[0],))
        state = (state[3], state[4], state[2])
    requires_grad, _, hooks = state
    if type(requires_grad) is not bool:
        raise RuntimeError("requires_grad must be a bool")
    if hooks:  # a weights-only file cannot hold callables, so there is nothing to run
        raise UnpicklingError(f"Parameter backward hooks must be empty, but got {type(hooks)}")
    inst.requires_grad_(requires_grad)
