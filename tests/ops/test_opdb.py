"""Generic oracle tests driven by the op database (tests/ops/opdb.py, tests/opdb_*.py).

Every registered OpInfo is checked against PyTorch: forward values/dtypes/shapes per dtype,
the method and in-place forms, the ``out=`` form, VJPs with random cotangents, grad_fn names,
float64 gradcheck/gradgradcheck, forward-mode JVPs, and error types/messages.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import warnings

import numpy as np
import pytest
from opdb import (
    REGISTRY,
    OutInjector,
    calls,
    implementation,
    is_float,
    load_all,
    out_form,
    tolerances,
)
from snippet_bugs import refuse_test_bug

import taimatsu

torch = pytest.importorskip("torch")

load_all()
pytestmark = pytest.mark.oracle


def _params(check, pairs):
    out = []
    for name, dtype in pairs:
        info = REGISTRY[name]
        reason = info.xfail.get(f"{check}-{dtype}") or info.xfail.get(check)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        pid = name if dtype is None else f"{name}-{dtype}"
        out.append(pytest.param(name, dtype, id=pid, marks=marks))
    return out


def _grad_dtype(info):
    if "float64" in info.dtypes or any(
        d in info.dtypes for d in ("float16", "bfloat16", "float32")
    ):
        return "float64"
    if any(d.startswith("complex") for d in info.dtypes):
        return "complex128"
    return None


_FWD = [(n, d) for n, i in REGISTRY.items() for d in i.dtypes]
_INPLACE = [(n, d) for n, i in REGISTRY.items() if i.inplace is not None for d in i.dtypes]
# Entries listing complex dtypes besides real ones are also checked in complex128 (Wirtinger VJPs).
_GRAD = [(n, _grad_dtype(i)) for n, i in REGISTRY.items() if i.grad and _grad_dtype(i)] + [
    (n, "complex128")
    for n, i in REGISTRY.items()
    if i.grad and _grad_dtype(i) == "float64" and "complex128" in i.dtypes
]
_GRADCHECK = [(n, d) for n, d in _GRAD]
_JVP = [(n, d) for n, d in _GRAD if REGISTRY[n].jvp]
_ERRORS = [(n, None) for n, i in REGISTRY.items() if i.errors is not None]


# ---- comparison helpers --------------------------------------------------------------------------
def _np(t) -> np.ndarray:
    t = t.detach()
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj()
    if hasattr(t, "resolve_neg"):
        t = t.resolve_neg()
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    if getattr(t, "_is_zerotensor", lambda: False)():  # PyTorch's symbolic zero (a JVP of sgn)
        t = torch.zeros(t.shape, dtype=t.dtype)
    return np.asarray(t.numpy())


def _is_tensor(x) -> bool:
    return isinstance(x, (taimatsu.Tensor, torch.Tensor))


def assert_same(tm, th, info, where=""):
    """taimatsu result ``tm`` equals PyTorch result ``th`` (tensors, tuples, Python values).

    Tolerances follow the result's dtype (an int64 input to ``exp`` gives float32).
    """
    if isinstance(th, torch.Tensor):
        rtol, atol = tolerances(info, str(th.dtype).replace("torch.", ""))
        assert isinstance(tm, taimatsu.Tensor), (
            f"{where}: expected a Tensor, got {type(tm).__name__}"
        )
        assert str(tm.dtype) == str(th.dtype), f"{where}: dtype {tm.dtype} != torch {th.dtype}"
        assert tuple(tm.shape) == tuple(th.shape), (
            f"{where}: shape {tuple(tm.shape)} != torch {tuple(th.shape)}"
        )
        a, b = _np(tm), _np(th)
        if b.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(th, (tuple, list)):
        assert isinstance(tm, (tuple, list)), (
            f"{where}: expected a sequence, got {type(tm).__name__}"
        )
        assert len(tm) == len(th), f"{where}: {len(tm)} results != torch {len(th)}"
        for i, (x, y) in enumerate(zip(tm, th)):
            assert_same(x, y, info, f"{where}[{i}]")
    elif isinstance(th, float):
        rtol, atol = tolerances(info, "float64")
        assert isinstance(tm, float), f"{where}: expected float, got {type(tm).__name__}"
        np.testing.assert_allclose(tm, th, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    elif isinstance(th, torch.dtype):
        assert str(tm) == str(th), f"{where}: {tm} != torch {th}"
    else:
        assert type(tm) is type(th) or isinstance(th, tuple), (
            f"{where}: {type(tm).__name__} != torch {type(th).__name__}"
        )
        assert tm == th, f"{where}: {tm!r} != torch {th!r}"


def _run(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's below
        return None, e


def assert_same_error(tm_exc, th_exc, where=""):
    __tracebackhide__ = True
    if th_exc is None and tm_exc is None:
        return
    if th_exc is None:
        raise AssertionError(
            f"{where}: taimatsu raised {type(tm_exc).__name__}({tm_exc}) but PyTorch did not"
        ) from tm_exc
    if tm_exc is None:
        raise AssertionError(
            f"{where}: PyTorch raised {type(th_exc).__name__}({th_exc}) but taimatsu did not"
        )
    # The same class name; PyTorch's own classes (torch._C._LinAlgError) may be matched by a base.
    th_types = (
        [c.__name__ for c in type(th_exc).__mro__]
        if type(th_exc).__module__ != "builtins"
        else [type(th_exc).__name__]
    )
    assert type(tm_exc).__name__ in th_types, (
        f"{where}: taimatsu raised {type(tm_exc).__name__}({tm_exc}), PyTorch {type(th_exc).__name__}({th_exc})"
    )
    assert str(tm_exc) == str(th_exc), f"{where}: message | taimatsu: {tm_exc} | pytorch: {th_exc}"


def _both(call, fn, with_T=True, prepare=None):
    """Run ``fn`` on fresh tensors in both libraries: ((tm, tm_exc), (th, th_exc))."""
    res = []
    for T in (taimatsu, torch):
        tensors = call.make_leaves(T)
        if prepare is not None:
            tensors = prepare(tensors)
        res.append(_run(lambda T=T, tensors=tensors: call.call(T, fn, tensors, with_T)))
    if res[1][1] is not None:
        refuse_test_bug(res[1][1], repr(call))
    return res


def _flat(out):
    if _is_tensor(out):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return []


# ---- forward -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "dtype"), _params("forward", _FWD))
def test_forward(name, dtype):
    info = REGISTRY[name]
    for call in calls(info, dtype):
        (tm, tm_exc), (th, th_exc) = _both(call, info.op)
        assert_same_error(tm_exc, th_exc, repr(call))
        if th_exc is None:
            assert_same(tm, th, info, repr(call))
        if info.method is not None:
            (tm, tm_exc), (th, th_exc) = _both(call, info.method, with_T=False)
            assert_same_error(tm_exc, th_exc, f"method {call!r}")
            if th_exc is None:
                assert_same(tm, th, info, f"method {call!r}")


@pytest.mark.parametrize(("name", "dtype"), _params("inplace", _INPLACE))
def test_inplace(name, dtype):
    info = REGISTRY[name]

    def fn(x, *args, **kwargs):
        y = x.clone()
        r = info.inplace(y, *args, **kwargs)
        return r is y, y

    for call in calls(info, dtype):
        (tm, tm_exc), (th, th_exc) = _both(call, fn, with_T=False)
        assert_same_error(tm_exc, th_exc, f"in-place {call!r}")
        if th_exc is None:
            assert tm[0], f"in-place {call!r}: did not return self"
            assert_same(tm[1], th[1], info, f"in-place {call!r}")


# ---- out= ------------------------------------------------------------------------------------------
def _out_dtype(info):
    return "float32" if "float32" in info.dtypes else info.dtypes[0]


# Known out= gaps in taimatsu/linalg.py (owned elsewhere); strict, so a fix fails until the entry goes.
OUT_GAPS = {"linalg.multi_dot": "out= not yet implemented in taimatsu.linalg"}


_INTS = ("int64", "int32", "int16", "int8", "uint8", "bool")


def _out_params(integer=False):
    """(entry, dtype): float32 (else the first dtype), or with ``integer`` the first integer dtype."""
    params = []
    for name, info in REGISTRY.items():
        dtype = next((d for d in info.dtypes if d in _INTS), None) if integer else _out_dtype(info)
        if not info.out_check or dtype is None or integer and dtype == _out_dtype(info):
            continue
        reason = info.xfail.get("out") or info.xfail.get("forward") or OUT_GAPS.get(name)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        params.append(pytest.param(name, dtype, id=f"{name}-{dtype}", marks=marks))
    return params


_OUT_SAMPLES = (
    2  # samples per entry given to the out= check: every kind for the first, "exact" for the next
)
# A dtype each result dtype cannot be cast to (bool casts to anything: float32 must simply work).
_UNCASTABLE = {"complex64": "float32", "complex128": "float64", "bool": "float32"}
# A wider dtype the result casts to (ops that want exactly the result's dtype refuse it).
_WIDER = {"float16": "float32", "bfloat16": "float32", "float32": "float64", "float64": "complex128",
          "complex64": "complex128", "complex128": "complex128", "bool": "int64"}  # fmt: skip
# exact: the result's shape and dtype; noncontig: the same, as a transposed view (written through).
# grad: the inputs require grad; out_grad: out itself does (a float leaf).
_OUT_KINDS = ("exact", "empty", "resize", "uncastable", "wider", "noncontig", "grad", "out_grad")
_TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.S)


def _tensor_dtype(t) -> str:
    return str(t.dtype).replace("torch.", "")


def _make_out(T, ref, kind):
    """``out`` for torch result ``ref`` (a tensor or a tuple of them) in library ``T``."""
    if isinstance(ref, torch.Tensor):
        shape = {"empty": (0,), "resize": (ref.numel() + 1,)}.get(kind, tuple(ref.shape))
        dtype = str(ref.dtype).replace("torch.", "")
        if kind == "uncastable":
            dtype = _UNCASTABLE.get(dtype, "int64" if ref.is_floating_point() else "bool")
        elif kind == "wider":
            dtype = _WIDER.get(dtype, "float64")
        if kind == "noncontig" and len(shape) >= 2:
            return T.full(shape[:-2] + shape[:-3:-1], 3, dtype=getattr(T, dtype)).transpose(-1, -2)
        out = T.full(shape, 3, dtype=getattr(T, dtype))
        return (
            out.requires_grad_()
            if kind == "out_grad" and (out.is_floating_point() or out.is_complex())
            else out
        )
    # A tuple: only the first output gets another dtype.
    return tuple(_make_out(T, r, kind if i == 0 or kind not in ("uncastable", "wider") else "exact")
                 for i, r in enumerate(ref))  # fmt: skip


def _out_call(info, call, ref, kind, T, target):
    leaves = call.make_leaves(T, requires_grad=kind == "grad")
    args, kwargs = call.resolve(T, leaves)
    out = _make_out(T, ref, kind)
    before = [o._version for o in _flat(out)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res, exc = out_form(info, T, out, args, kwargs, target), None
        except Exception as e:  # noqa: BLE001 - compared with PyTorch's below
            res, exc = None, e
    resized = [
        _TRIGGERED.sub("", str(w.message)) for w in caught if "was resized" in str(w.message)
    ]
    return res, exc, out, before, resized


# PyTorch behaviours not worth copying, per (entry, kind).
_OUT_QUIRKS = {
    ("narrow_copy", "noncontig"): "PyTorch's narrow_copy out kernel ignores out's strides",
    ("ldexp", "wider"): "PyTorch fails an internal assert (needs_dynamic_casting)",
}


# Known gaps per (entry, kind), in files owned elsewhere: checked, and an xfail while they fail.
_OUT_KIND_GAPS = {
    (
        n,
        "out_grad",
    ): 'an out= that requires grad should raise aten::<op>() (grad="aten" in write_out)'
    for n in ("linalg.eigvals", "linalg.ldl_factor", "linalg.ldl_factor_ex", "linalg.ldl_solve")
}


def _check_out_kind(info, call, ref, kind, target):
    if (info.name, kind) in _OUT_QUIRKS:
        return
    if (info.name, kind) in _OUT_KIND_GAPS:
        try:
            return _check_out_kind_now(info, call, ref, kind, target)
        except AssertionError:
            pytest.xfail(_OUT_KIND_GAPS[info.name, kind])
    _check_out_kind_now(info, call, ref, kind, target)


def _check_out_kind_now(info, call, ref, kind, target):
    if kind == "wider":  # computed in the result's dtype, stored wider: that dtype's tolerance
        rtol, atol = tolerances(info, _tensor_dtype(_flat(ref)[0]))
        info = dataclasses.replace(info, rtol=rtol, atol=atol, tol64=(rtol, atol, "stored wider"))
    where = f"out= ({kind}) {call!r}"
    tm, th = (_out_call(info, call, ref, kind, T, target) for T in (taimatsu, torch))
    assert_same_error(tm[1], th[1], where)
    if th[1] is not None:
        return
    (tm_res, _, tm_out, tm_before, tm_warn), (th_res, _, th_out, th_before, th_warn) = tm, th
    if all(a is b for a, b in zip(_flat(th_res), _flat(th_out))):
        assert len(_flat(tm_res)) == len(_flat(tm_out)), f"{where}: {len(_flat(tm_res))} results"
        assert all(a is b for a, b in zip(_flat(tm_res), _flat(tm_out))), (
            f"{where}: the result is not out"
        )
    assert_same(tm_out, th_out, info, where)
    assert [o.requires_grad for o in _flat(tm_out)] == [o.requires_grad for o in _flat(th_out)], (
        where
    )
    for k, (o, v, tho, thv) in enumerate(zip(_flat(tm_out), tm_before, _flat(th_out), th_before)):
        if tho._version > thv:
            assert o._version > v, f"{where}: out[{k}]'s version counter did not move"
    assert tm_warn == th_warn, f"{where}: resize warnings {tm_warn} != torch {th_warn}"


@pytest.mark.parametrize(("name", "dtype"), _out_params() + _out_params(integer=True))
def test_out(name, dtype):
    """The out= form of each entry where PyTorch has one (see opdb.py's docstring); one float
    dtype with two samples, and an integer dtype (where the entry has one) with one."""
    info = REGISTRY[name]
    checked = rejected = 0
    for call in calls(info, dtype)[: _OUT_SAMPLES if dtype not in _INTS else 1]:
        inj = OutInjector(torch)
        ref, exc = _run(lambda: call.call(inj, info.op, call.make_leaves(torch)))
        if info.out is None and not inj.calls:
            pytest.skip("no derived out= form: the op lambda calls no library function")
        target = len(inj.calls) - 1
        if (
            exc is not None
            or not _flat(ref)
            or len(_flat(ref)) != (len(ref) if isinstance(ref, tuple) else 1)
        ):
            continue
        # Does PyTorch take out= here? A TypeError says it has no such keyword.
        th_exc = _out_call(info, call, ref, "empty", torch, target)[1]
        if isinstance(th_exc, TypeError):
            tm_exc = _out_call(info, call, ref, "empty", taimatsu, target)[1]
            assert isinstance(tm_exc, TypeError), (
                f"{call!r}: PyTorch has no out= here, taimatsu took it ({tm_exc!r})"
            )
            rejected += 1
            continue
        for kind in _OUT_KINDS if not checked else ("exact",):
            if kind != "grad" or call.grad_leaves:
                _check_out_kind(info, call, ref, kind, target)
        checked += 1
    if not checked:
        pytest.skip(
            "PyTorch has no out= for this form" if rejected else "no sample with a tensor result"
        )


# ---- reverse mode ----------------------------------------------------------------------------------
def _vjp(T, call, fn, with_T, cotangents):
    leaves = call.make_leaves(T, requires_grad=True)
    out = call.call(T, fn, leaves, with_T)
    outs = [o for o in _flat(out) if o.requires_grad]
    inputs = [leaves[i] for i in call.grad_leaves]
    if cotangents is None:  # PyTorch runs first and picks them
        rng = np.random.default_rng(call.info.seed("cotangent"))
        cotangents = [rng.standard_normal(tuple(o.shape)) for o in outs]
        if any(o.is_complex() for o in outs):
            cotangents = [
                c + 1j * rng.standard_normal(c.shape) if o.is_complex() else c
                for c, o in zip(cotangents, outs)
            ]
    if not outs or not inputs:
        return out, outs, None, cotangents
    cots = [T.tensor(c).to(o.dtype) for c, o in zip(cotangents, outs)]
    grads = T.autograd.grad(outs, inputs, cots, allow_unused=True)
    grads = [np.zeros(tuple(x.shape)) if g is None else _np(g) for g, x in zip(grads, inputs)]
    return out, outs, grads, cotangents


def _node_names(t):
    fn = t.grad_fn
    if fn is None:
        return None, None
    return type(fn).__name__, [
        None if f is None else type(f).__name__ for f, _ in fn.next_functions
    ]


def _loosest(info, dtypes):
    """The loosest tolerance over ``dtypes``: a gradient or tangent that passed through a
    narrower dtype (a float32 result of a float64 0-d input) is only that precise."""
    tols = [tolerances(info, d) for d in dtypes]
    return max(t[0] for t in tols), max(t[1] for t in tols)


_NO_DERIVATIVE = re.compile(r"^derivative for .* is not implemented")


def _gradcheck_call(call, fn, with_T, where, gradgrad=False):
    """Finite-difference gradcheck of ``fn`` in its float64/complex128 leaves (the others
    fixed: finite differences need double precision), and with ``gradgrad`` gradgradcheck when
    the inputs are small. Returns the highest order checked (0: nothing to check)."""
    fixed = call.make_leaves(taimatsu)
    idx = [i for i in call.grad_leaves if fixed[i].dtype in (taimatsu.float64, taimatsu.complex128)]
    if not idx:
        return 0

    def f(*diff):
        tensors = list(fixed)
        for i, t in zip(idx, diff, strict=True):
            tensors[i] = t
        return call.call(taimatsu, fn, tensors, with_T)

    inputs = [call.leaves[i].make(taimatsu, True) for i in idx]
    outs = [o for o in _flat(f(*inputs)) if o.requires_grad]
    if not outs or any(o.dtype not in (taimatsu.float64, taimatsu.complex128) for o in outs):
        return 0  # a lower-precision result (type promotion) cannot be finite-differenced
    assert taimatsu.autograd.gradcheck(f, inputs), where
    # Second order costs (inputs + outputs) x numel backward passes: small samples only.
    if not (gradgrad and 0 < sum(x.numel() for x in inputs) <= 12):
        return 1
    assert taimatsu.autograd.gradgradcheck(f, inputs), f"gradgrad {where}"
    return 2


def _check_vjp(info, call, fn, with_T, where):
    th_res, th_exc = _run(lambda: _vjp(torch, call, fn, with_T, None))
    if th_exc is not None:
        if (
            _run(lambda: call.call(torch, fn, call.make_leaves(torch, requires_grad=True), with_T))[
                1
            ]
            is None
        ):
            # PyTorch's backward fails: taimatsu's fails the same way (always where PyTorch has
            # no derivative), or, PyTorch failing an internal check of its own, taimatsu's
            # gradient must agree with finite differences.
            tm_exc = _run(lambda: _vjp(taimatsu, call, fn, with_T, None))[1]
            if tm_exc is not None or _NO_DERIVATIVE.search(str(th_exc)):
                assert_same_error(tm_exc, th_exc, f"{where}: backward")
            else:
                _gradcheck_call(call, fn, with_T, f"{where}: backward (PyTorch: {th_exc!r})"[:400])
        return  # otherwise a forward error: test_forward's business
    th_out, th_outs, th_grads, cot = th_res
    tm_out, tm_outs, tm_grads, _ = _vjp(taimatsu, call, fn, with_T, cot)
    assert [o.requires_grad for o in _flat(tm_out)] == [o.requires_grad for o in _flat(th_out)], (
        f"{where}: requires_grad of outputs differs"
    )
    if th_grads is None:
        return
    if info.grad_fn and "grad_fn" not in info.xfail:
        for a, b in zip(tm_outs, th_outs):
            (na, nexta), (nb, nextb) = _node_names(a), _node_names(b)
            assert na == nb, f"{where}: grad_fn {na} != torch {nb}"
            if (
                na is None
            ):  # the output is an input itself (real() of a real tensor, atleast_1d, ...)
                continue
            assert len(nexta) == len(nextb), (
                f"{where}: {na}.next_functions {nexta} != torch {nextb}"
            )
            if not call.sample.noncontig:
                assert nexta == nextb, f"{where}: {na}.next_functions {nexta} != torch {nextb}"
    out_dtypes = [_tensor_dtype(o) for o in th_outs]
    for k, (a, b, i) in enumerate(zip(tm_grads, th_grads, call.grad_leaves, strict=True)):
        rtol, atol = _loosest(info, [call.leaves[i].dtype, *out_dtypes])
        np.testing.assert_allclose(
            a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{where}: grad {k}"
        )


@pytest.mark.parametrize(("name", "dtype"), _params("grad", _GRAD))
def test_grad(name, dtype):
    info = REGISTRY[name]
    for call in calls(info, dtype):
        _check_vjp(info, call, info.op, True, repr(call))
        if info.inplace is not None and call.leaves and call.leaves[0].requires_grad:

            def fn(x, *args, **kwargs):
                return info.inplace(x.clone(), *args, **kwargs)

            _check_vjp(info, call, fn, False, f"in-place {call!r}")


@pytest.mark.parametrize(("name", "dtype"), _params("gradcheck", _GRADCHECK))
def test_gradcheck(name, dtype):
    info = REGISTRY[name]
    gg_left = 2
    for call in calls(info, dtype):
        if not call.grad_leaves:
            continue
        th_ok = _run(lambda: call.call(torch, info.op, call.make_leaves(torch)))[1] is None
        if not th_ok:
            continue
        if (
            _gradcheck_call(call, info.op, True, repr(call), gradgrad=info.gradgrad and gg_left > 0)
            == 2
        ):
            gg_left -= 1  # second order on a few small samples


# ---- forward mode ------------------------------------------------------------------------------------
def _jvp(T, call, tangents):
    fa = T.autograd.forward_ad
    with fa.dual_level():
        leaves = call.make_leaves(T)
        for k, i in enumerate(call.grad_leaves):
            leaves[i] = fa.make_dual(leaves[i], T.tensor(tangents[k]).to(leaves[i].dtype))
        out = call.call(T, call.info.op, leaves)
        res = []
        for o in _flat(out):
            t = fa.unpack_dual(o).tangent
            res.append(None if t is None else _np(t))
    return res


def _jvp_by_finite_differences(call, tangents, h=1e-6):
    """Central differences of the op along the tangents: (f(x + h t) - f(x - h t)) / 2h."""

    def at(step):
        with taimatsu.no_grad():
            leaves = call.make_leaves(taimatsu)
            for k, i in enumerate(call.grad_leaves):
                leaves[i] = leaves[i] + step * taimatsu.tensor(tangents[k]).to(leaves[i].dtype)
            return [_np(o) for o in _flat(call.call(taimatsu, call.info.op, leaves))]

    return [(p - m) / (2 * h) for p, m in zip(at(h), at(-h), strict=True)]


def _triangle_read(call, t):
    """triangular_solve(b, A, upper=True, transpose=False, unitriangular=False) reads one
    triangle of A (without its diagonal when unitriangular)."""
    a, k = call.sample.args, call.sample.kwargs
    upper = a[2] if len(a) > 2 else k.get("upper", True)
    unit = a[4] if len(a) > 4 else k.get("unitriangular", False)
    return np.triu(t, int(unit)) if upper else np.tril(t, -int(unit))


# Ops that read only part of an input: finite differences see only that part of its tangent,
# while the JVP (PyTorch's formula too) uses all of it. The finite-difference check gives such
# an input a tangent in the part read: entry -> (leaf index, projection).
_TANGENT_READ = {"triangular_solve": (1, _triangle_read)}


def _check_jvp_without_oracle(call, tangents, th_exc):
    """PyTorch has no forward AD here: taimatsu raises the same error, or its JVP matches
    finite differences (double precision leaves only)."""
    if call.info.name in _TANGENT_READ:
        leaf, project = _TANGENT_READ[call.info.name]
        k = call.grad_leaves.index(leaf)
        tangents = [project(call, t) if j == k else t for j, t in enumerate(tangents)]
    tm, tm_exc = _run(lambda: _jvp(taimatsu, call, tangents))
    if tm_exc is not None:
        assert_same_error(tm_exc, th_exc, f"{call!r}: JVP")
        return
    if any(call.leaves[i].dtype not in ("float64", "complex128") for i in call.grad_leaves):
        return  # finite differences in a narrower dtype say nothing
    for k, (a, fd) in enumerate(zip(tm, _jvp_by_finite_differences(call, tangents), strict=True)):
        if fd.dtype.kind not in "fc":
            assert a is None or not np.any(a), f"{call!r}: tangent {k} of a non-float result"
            continue
        assert a is not None or not np.any(fd), f"{call!r}: tangent {k} missing"
        a = np.zeros_like(fd) if a is None else a
        np.testing.assert_allclose(
            a, fd, rtol=1e-5, atol=1e-5, err_msg=f"{call!r}: tangent {k} (finite differences)"
        )


@pytest.mark.parametrize(("name", "dtype"), _params("jvp", _JVP))
def test_jvp(name, dtype):
    info = REGISTRY[name]
    rng = np.random.default_rng(info.seed("tangent"))
    for call in calls(info, dtype):
        if not call.grad_leaves:
            continue
        tangents = [rng.standard_normal(call.leaves[i].storage.shape) for i in call.grad_leaves]
        th, th_exc = _run(lambda: _jvp(torch, call, tangents))
        if th_exc is not None:
            if _run(lambda: call.call(torch, info.op, call.make_leaves(torch)))[1] is None:
                _check_jvp_without_oracle(call, tangents, th_exc)
            continue  # otherwise a forward error: test_forward's business
        tm = _jvp(taimatsu, call, tangents)
        assert len(tm) == len(th), repr(call)
        leaf_dtypes = [call.leaves[i].dtype for i in call.grad_leaves]
        for k, (a, b) in enumerate(zip(tm, th)):
            rtol, atol = _loosest(info, [*leaf_dtypes, *([] if b is None else [b.dtype.name])])
            if b is None:
                assert a is None or not np.any(a), f"{call!r}: tangent {k} should be None"
                continue
            assert a is not None, f"{call!r}: tangent {k} missing"
            np.testing.assert_allclose(
                a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{call!r}: tangent {k}"
            )


# ---- errors ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "dtype"), _params("errors", _ERRORS))
def test_errors(name, dtype):
    info = REGISTRY[name]
    tm_cases, th_cases = info.errors(taimatsu), info.errors(torch)
    assert len(tm_cases) == len(th_cases)
    for k, ((tm_fn, exc), (th_fn, _)) in enumerate(zip(tm_cases, th_cases)):
        _, th_exc = _run(th_fn)
        _, tm_exc = _run(tm_fn)
        if th_exc is not None:
            refuse_test_bug(th_exc, f"error case {k}")
        assert th_exc is not None, f"error case {k}: PyTorch did not raise"
        assert isinstance(th_exc, exc), (
            f"error case {k}: PyTorch raised {type(th_exc).__name__}, entry says {exc.__name__}"
        )
        assert_same_error(tm_exc, th_exc, f"error case {k}")


# ---- coverage (informative) --------------------------------------------------------------------------------
_CALLED = re.compile(r"\bT\.(\w+)|\.(\w+)_?\(")


def _covered_names() -> set:
    names = set()
    for info in REGISTRY.values():
        names.add(info.name.split(".")[0])
        for fn in (info.op, info.method, info.inplace):
            if fn is None:
                continue
            try:
                src = inspect.getsource(fn)
            except (OSError, TypeError):
                continue
            for a, b in _CALLED.findall(src):
                names.add(a or b)
    return names


# Public callables that are not ops of the op database, each tested elsewhere (file named; the
# top-level kernels and helpers no other test called are in test_torch_namespace.py's TOP_LEVEL).
TESTED_ELSEWHERE = {
    # the short-time Fourier transform and its inverse: tests/ops/test_stft.py
    "stft", "istft",
    # randomized low-rank SVD and PCA: tests/linalg/test_lowrank.py
    "svd_lowrank", "pca_lowrank",
    # one step of a recurrent cell from its weights: tests/nn/test_rnn_cell_functions.py
    "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell",
    # stacked recurrent layers from their weights: tests/nn/test_rnn_layer_functions.py
    "rnn_tanh", "rnn_relu", "lstm", "gru",
    # bags of embeddings with ATen's 4-tuple: tests/nn/test_torch_embedding_bag.py
    "embedding_bag",
    # creation, conversion, random: tests/tensor/test_tensor_core.py, tests/backend/test_random_backend.py
    "arange", "as_tensor", "asarray", "empty", "empty_like", "empty_strided", "eye", "from_numpy", "full",
    "full_like", "linspace", "logspace", "ones_like", "range", "scalar_tensor", "zeros", "zeros_like",
    "bernoulli", "get_rng_state", "initial_seed", "manual_seed", "multinomial", "normal", "poisson", "rand",
    "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm", "seed", "set_rng_state",
    # dtype, device, printing, threads, grad-mode and anomaly queries: tests/tensor/test_tensor_core.py,
    # tests/tensor/test_tensor_str.py, tests/backend/test_threads.py, tests/autograd/test_autograd.py
    "can_cast", "promote_types", "result_type", "get_default_dtype", "set_default_dtype", "get_default_device",
    "get_printoptions", "set_printoptions", "printoptions", "set_printoptions_default", "get_num_threads",
    "set_num_threads", "get_num_interop_threads", "set_num_interop_threads", "is_grad_enabled",
    "is_inference_mode_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "is_tensor",
    "is_complex", "is_floating_point", "is_nonzero", "numel", "detach", "equal", "allclose", "isclose",
    "broadcast_shapes", "broadcast_tensors", "eig",
    # checkpoints and interop: tests/serialization/test_serialization.py, tests/serialization/test_dlpack.py
    "load", "save", "from_dlpack",
    # nn.functional kernels exported at top level, as torch does: tests/test_nn_*.py
    "adaptive_avg_pool1d", "avg_pool1d", "batch_norm", "celu", "constant_pad_nd", "conv1d", "conv2d",
    "conv_transpose1d", "conv_transpose2d", "cosine_similarity", "dropout", "dropout_", "embedding",
    "feature_dropout", "group_norm", "hardshrink", "instance_norm", "layer_norm", "log_softmax", "max_pool1d",
    "max_pool2d", "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "prelu", "rms_norm", "selu",
    "softmax", "threshold",
    # issue #4's top-level nn ops: tests/nn/test_nn_new_layers.py
    "bilinear", "rrelu", "rrelu_",
    "adaptive_max_pool1d", "affine_grid_generator", "channel_shuffle", "conv3d", "conv_tbc", "conv_transpose3d",
    "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "max_pool1d_with_indices", "max_pool3d",
    "native_channel_shuffle", "pdist",
    # complex views and linalg wrappers: tests/tensor/test_tensor_core.py (COMPLEX), tests/ops/test_reduction_linalg.py
    "view_as_real", "view_as_complex", "real", "imag", "conj", "conj_physical", "angle", "det", "inverse",
    "logdet", "slogdet", "matrix_power",
    # shape helpers composed of registered ops: tests/ops/test_views_indexing.py
    "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "dstack", "row_stack", "fliplr", "flipud",
    "adjoint", "argwhere",
    # namespace completions (misc, calculus, histogram, windows, flags, *_copy, special): tests/ops/test_torch_namespace.py
    "cumulative_trapezoid", "fill", "gradient", "is_conj", "is_inference", "is_neg", "is_same_size", "is_signed",
    "isin", "resolve_conj", "resolve_neg", "trapezoid", "trapz", "typename", "unravel_index",
    "histogram", "histogramdd", "bartlett_window", "blackman_window", "hamming_window", "hann_window",
    "kaiser_window", "are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
    "get_float32_matmul_precision", "is_deterministic_algorithms_warn_only_enabled", "is_warn_always_enabled",
    "set_default_device", "set_default_tensor_type", "set_deterministic_debug_mode", "set_float32_matmul_precision",
    "set_flush_denormal", "set_warn_always", "use_deterministic_algorithms", "get_default_device",
    "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy", "frombuffer", "permute_copy",
    "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy",
    "unbind_copy", "unfold_copy", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "unsqueeze_copy",
    "view_as_complex_copy", "view_as_real_copy", "view_copy", "binomial", "frobenius_norm", "igamma", "igammac",
    "nuclear_norm", "empty_permuted", "get_device", "nonzero_static", "sym_float", "sym_int", "sym_ite", "sym_max",
    "sym_min", "sym_not", "sym_sqrt", "sym_sum", "set_anomaly_enabled", "to_dlpack",
    "index_reduce", "cond", "while_loop", "segment_reduce",
    # torch.vmap (torch.func.vmap): tests/autograd/test_func.py
    "vmap",
    # autocast state: tests/amp/test_autocast.py; torch.compile: tests/compiler/test_compile.py
    "autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache",
    "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype", "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled", "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled", "set_autocast_gpu_dtype",
    "compile",
    # sparse construction and products: tests/sparse/ (test_sparse_compressed.py,
    # test_sparse_hspmm_smm.py for the compressed layouts and hspmm/smm/sspaddmm)
    "sparse_coo_tensor", "sparse_csr_tensor", "spmm", "sparse_csc_tensor", "sparse_bsr_tensor",
    "sparse_bsc_tensor", "sparse_compressed_tensor", "hspmm", "smm", "sspaddmm",
    # storages: tests/tensor/test_storage_typed.py, tests/tensor/test_from_file.py
    "is_storage", "from_file",
    # torch.zero_(t) (no out-of-place torch.zero): tests/ops/test_inplace_functions.py
    "zero_",
    # torch.* spellings of losses and dropouts (ATen's int reductions): tests/ops/test_torch_namespace.py
    "alpha_dropout", "alpha_dropout_", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "ctc_loss",
    "feature_alpha_dropout", "feature_alpha_dropout_", "hinge_embedding_loss", "kl_div", "margin_ranking_loss",
    "poisson_nll_loss", "triplet_margin_loss",
    # device-generic queries: tests/backends/test_backends.py
    "get_device_module", "is_distributed",
    # hash_tensor: tests/ops/test_torch_namespace.py; resize_as_: tests/tensor/test_resize.py
    "hash_tensor", "resize_as_",
}  # fmt: skip


def _public_callables() -> list:
    return sorted(
        n
        for n in dir(taimatsu)
        if not n.startswith("_")
        and callable(getattr(taimatsu, n))
        and not inspect.isclass(getattr(taimatsu, n))
        and not inspect.ismodule(getattr(taimatsu, n))
    )


def test_every_public_op_is_covered(capsys):
    """An op in the taimatsu namespace must have an opdb entry, be an alias or the in-place
    form of one, or be listed in TESTED_ELSEWHERE. Prints the coverage."""
    public = _public_callables()
    covered = _covered_names()
    by_object = {id(implementation(getattr(taimatsu, n))) for n in covered if hasattr(taimatsu, n)}
    missing = []
    for n in public:
        if n in covered or n in TESTED_ELSEWHERE:
            continue
        if (
            id(implementation(getattr(taimatsu, n))) in by_object
        ):  # an alias (arccos is acos, divide is div)
            continue
        if n.endswith("_") and (
            n[:-1] in covered
            or n[:-1] in TESTED_ELSEWHERE
            or id(implementation(getattr(taimatsu, n[:-1], None))) in by_object
        ):
            continue  # torch.exp_ and friends: the in-place form of a covered op (or of an alias of one)
        missing.append(n)
    direct = sum(1 for n in public if n in covered)
    with capsys.disabled():
        print(
            f"\nopdb: {len(REGISTRY)} entries; {direct}/{len(public)} public callables have their own entry, "
            f"{len(public) - len(missing)}/{len(public)} covered counting aliases, in-place forms and "
            "TESTED_ELSEWHERE"
        )
    assert not missing, "public ops without an opdb entry: " + ", ".join(missing)
