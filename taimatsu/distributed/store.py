"""``torch.distributed``'s in-process key-value stores: ``Store``, ``HashStore``, ``PrefixStore``.

Values are kept as bytes (``str`` values are UTF-8 encoded); ``add`` keeps its counter as the
decimal text of the integer, as PyTorch does, so ``get`` of a counter gives ``b"5"``. Waits are
bounded by the store's timeout and raise ``DistStoreError("Wait timeout")``.
"""

from __future__ import annotations

import datetime
import threading

from .errors import DistStoreError

_DEFAULT_TIMEOUT = datetime.timedelta(minutes=5)


def _key(method, key):
    if not isinstance(key, str):
        raise TypeError(
            f"{method}(): incompatible function arguments: key must be str, not {type(key).__name__}"
        )
    return key


def _value(method, value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return bytes(value)
    raise TypeError(
        f"{method}(): incompatible function arguments: value must be str or bytes, not {type(value).__name__}"
    )


class Store:
    """Base class of the key-value stores."""

    def __init__(self):
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(
                "set_timeout(): incompatible function arguments: timeout must be a datetime.timedelta"
            )
        self._timeout = timeout

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        if len(keys) != len(values):
            raise ValueError("multi_set: keys and values must have the same length")
        for k, v in zip(keys, values):
            self.set(k, v)


class HashStore(Store):
    """A thread-safe in-memory store shared by the threads of one process."""

    def __init__(self):
        super().__init__()
        self._data = {}
        self._cond = threading.Condition()

    def set(self, key, value):
        key, value = _key("set", key), _value("set", value)
        with self._cond:
            self._data[key] = value
            self._cond.notify_all()

    def _wait_locked(self, keys, timeout):
        seconds = timeout.total_seconds()
        ok = self._cond.wait_for(
            lambda: all(k in self._data for k in keys), None if seconds <= 0 else seconds
        )
        if not ok:
            raise DistStoreError("Wait timeout")

    def get(self, key):
        key = _key("get", key)
        with self._cond:
            self._wait_locked([key], self._timeout)
            return self._data[key]

    def add(self, key, amount):
        key = _key("add", key)
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise TypeError(
                f"add(): incompatible function arguments: amount must be int, not {type(amount).__name__}"
            )
        with self._cond:
            total = int(self._data.get(key, b"0")) + amount
            self._data[key] = str(total).encode()
            self._cond.notify_all()
            return total

    def append(self, key, value):
        key, value = _key("append", key), _value("append", value)
        with self._cond:
            self._data[key] = self._data.get(key, b"") + value
            self._cond.notify_all()

    def compare_set(self, key, expected_value, desired_value):
        key = _key("compare_set", key)
        expected, desired = (
            _value("compare_set", expected_value),
            _value("compare_set", desired_value),
        )
        with self._cond:
            if key not in self._data:
                if expected == b"":
                    self._data[key] = desired
                    self._cond.notify_all()
                    return desired
                return expected
            if self._data[key] == expected:
                self._data[key] = desired
                self._cond.notify_all()
            return self._data[key]

    def wait(self, keys, timeout=None):
        keys = [_key("wait", k) for k in keys]
        with self._cond:
            self._wait_locked(keys, self._timeout if timeout is None else timeout)

    def check(self, keys):
        keys = [_key("check", k) for k in keys]
        with self._cond:
            return all(k in self._data for k in keys)

    def num_keys(self):
        with self._cond:
            return len(self._data)

    def delete_key(self, key):
        key = _key("delete_key", key)
        with self._cond:
            return self._data.pop(key, None) is not None


class PrefixStore(Store):
    """A view of ``store`` whose keys are all prefixed with ``prefix + "/"``."""

    def __init__(self, prefix, store):
        if not isinstance(prefix, str) or not isinstance(store, Store):
            raise TypeError(
                "__init__(): incompatible constructor arguments: PrefixStore(prefix: str, store: Store)"
            )
        super().__init__()
        self._prefix = prefix
        self.underlying_store = store

    def _k(self, key):
        return f"{self._prefix}/{_key('PrefixStore', key)}"

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def set(self, key, value):
        self.underlying_store.set(self._k(key), value)

    def get(self, key):
        return self.underlying_store.get(self._k(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._k(key), amount)

    def append(self, key, value):
        self.underlying_store.append(self._k(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._k(key), expected_value, desired_value)

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._k(k) for k in keys], timeout)

    def check(self, keys):
        return self.underlying_store.check([self._k(k) for k in keys])

    def num_keys(self):
        return self.underlying_store.num_keys()

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._k(key))
