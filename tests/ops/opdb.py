"""The op database: one entry per op, driving the generic oracle tests in test_opdb.py.

Each family registers its entries in ``tests/opdb_<family>.py`` (collected automatically)::

    from opdb import OpInfo, Sample, register

    register(OpInfo(
        name="exp",                              # unique id; "base.variant" names a variant ("div.floor")
        op=lambda T, x: T.exp(x),                # T is taimatsu or torch
        method=lambda x: x.exp(),                # optional
        inplace=lambda x: x.exp_(),              # optional, run on a clone of the first argument
        samples=lambda rng, dtype: [Sample(rng.standard_normal((3, 4)))],
        dtypes=("float32", "float64"),
    ))

Sample arguments
    * ``np.ndarray`` / ``np.generic``: becomes a tensor of the dtype under test. Float data
      given for an integer dtype is scaled and rounded (``round(3 * a)``, absolute value for
      unsigned, clipped to the dtype's range); for bool it becomes ``a > 0``.
    * ``Typed(array, "int64")``: a tensor of that fixed dtype whatever dtype is under test
      (masks, indices, type-promotion cases). Float ``Typed`` args require grad by default.
    * anything else (Python numbers, tuples, None, dtypes given as strings via ``Dtype``)
      is passed through unchanged.
    * ``noncontig=True``: every tensor argument with at least one element is passed as a
      non-contiguous view with the same shape and values (a transposed view for ndim >= 2,
      a stride-2 slice for ndim 1).
    * ``kwargs``: keyword arguments, converted like positional ones; they are passed as
      ``**kwargs`` to ``op``, ``method`` and ``inplace``.

Checks (test_opdb.py), for every entry x sample
    forward   (each dtype): values, dtype, shape (each element of tuple results) against
              PyTorch; the method form; the in-place form (values, returns self). When
              PyTorch raises, taimatsu must raise the same type with the same message.
    grad      (float64): VJP with a random cotangent against ``torch.autograd.grad``; the
              grad_fn class name and the length of ``next_functions`` against PyTorch;
              the in-place form's gradient too.
    gradcheck (float64): ``taimatsu.autograd.gradcheck`` and, with ``gradgrad``,
              ``gradgradcheck`` (keep samples small: finite differences cost numel calls).
    jvp       (float64): forward-mode tangents (``autograd.forward_ad``) against PyTorch.
    errors    ``errors(T)`` lists ``(thunk, ExceptionType)``: both libraries must raise
              that type with the same message.

    out       (one dtype: float32 if listed, else the first; the first few samples): the
              ``out=`` form, see below.

``out=`` forms
    ``out=lambda T, *args, out, **kwargs: ...`` gives an entry's ``out=`` form explicitly.
    Without it the form is derived: ``op`` is run with ``T`` seen through ``OutInjector``,
    which adds ``out=`` to the library function the lambda calls (``T.exp``,
    ``T.linalg.cross``, ...); when it makes several calls through ``T`` (building an input
    first: ``T.cholesky_solve(b, T.linalg.cholesky(a))``), to the last one. An entry whose
    lambda makes none (operators, methods) has no derived form.
    Whether PyTorch has ``out=`` is discovered per sample: the call is probed with a
    0-element ``out``. When PyTorch raises TypeError (no such keyword), taimatsu must raise
    TypeError too (its message may differ: PyTorch's argument parser lists signatures).
    Otherwise, with ``out`` a tensor (or a tuple of tensors, one per result: max, sort,
    frexp, ...) both libraries are called with an ``out`` that has the right shape, one with
    0 elements, one non-empty of the wrong shape (the "was resized" UserWarning must match),
    one of a dtype the result cannot be cast to, one of a wider dtype (ops wanting exactly
    the result's dtype refuse it), a transposed view (written through), inputs requiring
    grad in grad mode, and an ``out`` that itself requires grad. Errors must match (type
    and message); otherwise the result must BE ``out`` (the same objects), ``out`` must hold
    PyTorch's values/dtype/shape and requires_grad, and its version counter must have
    moved. The first sample gets every case, the second only the right-shaped ``out``.
    ``out_check=False`` leaves an entry out; test_opdb.py lists known gaps (xfail) and
    PyTorch quirks not copied (skipped) per entry and case.

Tolerances
    ``_TOL`` gives each dtype's default. An entry's ``rtol``/``atol`` replace the defaults of
    its single and half precision checks only (float32, complex64, float16, bfloat16: LAPACK
    builds and summation orders differ in the last bits there). Double precision results and
    gradients (float64, complex128) keep the tight default unless the entry gives
    ``tol64=(rtol, atol, "reason")``: a looser double tolerance must say why.

``xfail`` maps a check name ("forward", "grad", "grad_fn", "gradcheck", "jvp", "inplace",
"errors", "out"), or a check and dtype ("gradcheck-complex128"), to a reason, for known gaps that
should stay visible. The marks are strict: a check that starts passing fails until its mark goes.
"""

from __future__ import annotations

import types
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

REGISTRY: dict[str, OpInfo] = {}

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
COMPLEX_DTYPES = ("complex64", "complex128")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
ALL_INT = INT_DTYPES + ("bool",)


class Sample:
    """Arguments for one call of an op (see the module docstring)."""

    __slots__ = ("args", "kwargs", "noncontig", "name")

    def __init__(self, *args, kwargs=None, noncontig=False, name=None):
        self.args = args
        self.kwargs = dict(kwargs or {})
        self.noncontig = noncontig
        self.name = name

    def __repr__(self) -> str:
        parts = [_describe(a) for a in self.args]
        parts += [f"{k}={_describe(v)}" for k, v in self.kwargs.items()]
        if self.noncontig:
            parts.append("noncontig")
        return f"Sample({', '.join(parts)})" if self.name is None else f"Sample[{self.name}]"


@dataclass(frozen=True)
class Typed:
    """A tensor argument of a fixed dtype, independent of the dtype under test."""

    array: Any
    dtype: str
    requires_grad: bool | None = None  # None: float/complex Typed args require grad


@dataclass(frozen=True)
class Dtype:
    """A dtype argument (``T.<name>`` in each library), e.g. ``kwargs={"dtype": Dtype("float64")}``."""

    name: str


def _describe(a) -> str:
    if isinstance(a, (np.ndarray, np.generic)):
        return f"array{tuple(np.shape(a))}"
    if isinstance(a, Typed):
        return f"{a.dtype}{tuple(np.shape(a.array))}"
    return repr(a)


@dataclass
class OpInfo:
    name: str
    op: Callable
    samples: Callable
    method: Callable | None = None
    inplace: Callable | None = None
    dtypes: tuple = ("float32", "float64")
    grad: bool = True
    gradgrad: bool = True
    jvp: bool = True
    grad_args: tuple | None = None  # ints (positions) or str (kwarg names); None: all float tensors
    domain: Callable | None = None
    errors: Callable | None = None
    rtol: float | None = None  # single/half precision only; see "Tolerances" above
    atol: float | None = None
    tol64: tuple | None = None  # (rtol, atol, reason) for float64/complex128 checks
    grad_fn: bool = True  # compare grad_fn names / next_functions lengths with PyTorch
    out: Callable | None = (
        None  # the out= form, lambda T, *args, out, **kw; None: derived (see above)
    )
    out_check: bool = True
    xfail: dict = field(default_factory=dict)

    def seed(self, *extra) -> int:
        return zlib.crc32("/".join((self.name,) + tuple(str(e) for e in extra)).encode())

    def make_samples(self, dtype: str) -> list:
        rng = np.random.default_rng(self.seed(dtype))
        return list(self.samples(rng, dtype))


def implementation(fn):
    """The function a namespace name stands for: under the wrapper taimatsu's guard puts on tensor-first
    functions (``taimatsu._tensor_arguments``), so that two names of one function (``absolute``,
    ``abs``) are recognised as aliases though each has its own wrapper."""
    return fn.__wrapped__ if getattr(fn, "__guarded__", False) else fn


def register(info: OpInfo) -> OpInfo:
    if info.name in REGISTRY:
        raise ValueError(f"opdb: duplicate entry {info.name!r}")
    if info.tol64 is not None and not (len(info.tol64) == 3 and info.tol64[2]):
        raise ValueError(f"opdb: {info.name!r}: tol64 is (rtol, atol, reason), with a reason")
    REGISTRY[info.name] = info
    return info


# ---- turning a Sample into arguments -----------------------------------------------------------------
_TOL = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


_DOUBLE = ("float64", "complex128")


def tolerances(info: OpInfo, dtype_name: str) -> tuple[float, float]:
    """(rtol, atol) for a result or gradient of ``dtype_name``: see "Tolerances" above."""
    rtol, atol = _TOL.get(dtype_name, (0.0, 0.0))
    if dtype_name in _DOUBLE:
        return info.tol64[:2] if info.tol64 is not None else (rtol, atol)
    return (
        info.rtol if info.rtol is not None else rtol,
        info.atol if info.atol is not None else atol,
    )


def is_float(dtype_name: str) -> bool:
    return dtype_name in FLOAT_DTYPES or dtype_name in COMPLEX_DTYPES


def as_dtype_array(a, dtype: str) -> np.ndarray:
    """Sample data converted to ``dtype`` (NumPy side; bfloat16 is carried as float32)."""
    a = np.asarray(a)
    if dtype == "bool":
        return a > 0 if a.dtype.kind in "fc" else a.astype(bool)
    if dtype in INT_DTYPES:
        if a.dtype.kind in "fc":
            a = np.round(3 * a.real)
            if dtype == "uint8":
                a = np.abs(a)
            info = np.iinfo(dtype)
            a = np.clip(a, info.min, info.max)
        return a.astype(dtype)
    if dtype == "bfloat16":
        return a.astype(np.float32)
    if dtype in COMPLEX_DTYPES and a.dtype.kind != "c":
        # A nonzero imaginary part (the real parts rolled by one, scaled), so complex samples
        # exercise more than the real axis; the domain's real parts are kept, and exact zeros
        # stay zero (samples testing zeros keep them).
        a = a.astype(np.float64)
        return (a + 0.6j * np.roll(a.ravel(), 1).reshape(a.shape) * (a != 0)).astype(dtype)
    return a.astype(dtype)


class Leaf:
    """How one tensor argument is built: contiguous storage, and the view the op sees."""

    __slots__ = ("storage", "dtype", "view", "requires_grad")

    def __init__(self, array, dtype, noncontig, requires_grad):
        array = as_dtype_array(array, dtype)
        self.dtype = dtype
        self.requires_grad = requires_grad
        self.view = None
        if noncontig and array.size:
            if array.ndim >= 2:
                array, self.view = np.ascontiguousarray(np.swapaxes(array, -1, -2)), "mT"
            elif array.ndim == 1:
                pad = np.zeros(2 * array.shape[0], array.dtype)
                pad[::2] = array
                array, self.view = pad, "step2"
        self.storage = array

    def make(self, T, requires_grad=None):
        """A fresh leaf tensor in library ``T`` (the autograd input)."""
        t = T.tensor(self.storage)
        if self.dtype == "bfloat16":
            t = t.to(T.bfloat16)
        rg = self.requires_grad if requires_grad is None else requires_grad
        if rg:
            t.requires_grad_(True)
        return t

    def apply_view(self, t):
        if self.view == "mT":
            return t.transpose(-1, -2)
        if self.view == "step2":
            return t[::2]
        return t


def _default_rg(info: OpInfo, key, dtype: str) -> bool:
    if info.grad_args is None:
        return is_float(dtype)
    return key in info.grad_args and is_float(dtype)


class Call:
    """A Sample resolved for one dtype: leaves + a function of the leaves calling the op."""

    def __init__(self, info: OpInfo, sample: Sample, dtype: str):
        self.info, self.sample, self.dtype = info, sample, dtype
        self.leaves: list[Leaf] = []
        self.args = [self._convert(a, i) for i, a in enumerate(sample.args)]
        self.kwargs = {k: self._convert(v, k) for k, v in sample.kwargs.items()}

    def _convert(self, a, key):
        if isinstance(a, Typed):
            rg = a.requires_grad
            if rg is None:
                rg = _default_rg(self.info, key, a.dtype)
            leaf = Leaf(a.array, a.dtype, self.sample.noncontig, rg)
        elif isinstance(a, (np.ndarray, np.generic)):
            arr = a if self.info.domain is None else self.info.domain(np.asarray(a))
            leaf = Leaf(
                arr, self.dtype, self.sample.noncontig, _default_rg(self.info, key, self.dtype)
            )
        else:
            return a
        self.leaves.append(leaf)
        return leaf

    @property
    def grad_leaves(self) -> list[int]:
        return [i for i, leaf in enumerate(self.leaves) if leaf.requires_grad]

    def make_leaves(self, T, requires_grad=False) -> list:
        return [leaf.make(T, requires_grad and leaf.requires_grad) for leaf in self.leaves]

    def resolve(self, T, tensors) -> tuple[list, dict]:
        """Positional and keyword arguments, with ``tensors`` (one per leaf) as views."""
        it = iter(tensors)

        def conv(a):
            if isinstance(a, Leaf):
                return a.apply_view(next(it))
            if isinstance(a, Dtype):
                return getattr(T, a.name)
            return a

        args = [conv(a) for a in self.args]
        kwargs = {k: conv(v) for k, v in self.kwargs.items()}
        return args, kwargs

    def call(self, T, fn, tensors, with_T=True):
        args, kwargs = self.resolve(T, tensors)
        return fn(T, *args, **kwargs) if with_T else fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.info.name}[{self.dtype}] {self.sample!r}"


_NO_OUT = object()


class OutInjector:
    """``T`` as an op lambda sees it, adding ``out=`` to the ``target``-th library call it makes.

    ``calls`` collects the names called; with ``out`` left unset nothing is injected (a
    counting run, which finds the target: the lambda's last call through ``T``).
    """

    def __init__(self, T, out=_NO_OUT, calls=None, target=0):
        self._T, self._out, self._target = T, out, target
        self.calls = [] if calls is None else calls

    def __getattr__(self, name):
        attr = getattr(self._T, name)
        if isinstance(attr, types.ModuleType):
            return OutInjector(attr, self._out, self.calls, self._target)
        if not callable(attr) or isinstance(attr, type):
            return attr

        def call(*args, **kwargs):
            self.calls.append(name)
            if self._out is not _NO_OUT and len(self.calls) - 1 == self._target:
                kwargs["out"] = self._out
            return attr(*args, **kwargs)

        return call


def out_form(info: OpInfo, T, out, args, kwargs, target=0):
    """Call the ``out=`` form of ``info`` (explicit, or derived with ``out=`` on call ``target``)."""
    if info.out is not None:
        return info.out(T, *args, out=out, **kwargs)
    return info.op(OutInjector(T, out, target=target), *args, **kwargs)


def calls(info: OpInfo, dtype: str) -> list[Call]:
    return [Call(info, s, dtype) for s in info.make_samples(dtype)]


def load_all() -> dict[str, OpInfo]:
    """Import every ``tests/opdb_*.py`` so their entries register."""
    import importlib
    import pathlib

    for path in sorted(pathlib.Path(__file__).parent.glob("opdb_*.py")):
        importlib.import_module(path.stem)
    return REGISTRY
