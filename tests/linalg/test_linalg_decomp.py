"""Direct tests of the linear-algebra decompositions that the op database cannot express:
gauge errors, legacy return conventions, forward-mode tangents where PyTorch's own is wrong,
and the free gauge of full_matrices SVD tangents. Values come from PyTorch (the oracle) or from
finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from snippet_bugs import refuse_test_bug

import taimatsu

torch = pytest.importorskip("torch")


def _both(fn):
    out = {}
    for T in (taimatsu, torch):
        try:
            out[T.__name__] = (fn(T), None)
        except Exception as e:  # noqa: BLE001 - compared below
            if T is torch:
                refuse_test_bug(e)
            out[T.__name__] = (None, e)
    return out["taimatsu"], out["torch"]


@pytest.mark.parametrize("which", ["svd", "eig"])
def test_phase_dependent_loss_raises_like_pytorch(which):
    a = np.random.default_rng(0).standard_normal((3, 3)) + 1j * np.random.default_rng(
        1
    ).standard_normal((3, 3))

    def run(T):
        x = T.tensor(a, requires_grad=True)
        vecs = T.linalg.svd(x)[0] if which == "svd" else T.linalg.eig(x)[1]
        vecs.sum().abs().backward()

    (_, tm_exc), (_, th_exc) = _both(run)
    assert th_exc is not None and tm_exc is not None
    assert type(tm_exc).__name__ == "RuntimeError" and str(tm_exc) == str(th_exc)


def test_legacy_svd_returns_v_with_pytorchs_graph():
    a = np.random.default_rng(2).standard_normal((4, 3)) + 0.5j * np.random.default_rng(
        3
    ).standard_normal((4, 3))

    def names(T):
        x = T.tensor(a, requires_grad=True)
        U, _S, V = T.svd(x)
        fn = V.grad_fn
        chain = [type(fn).__name__]
        while fn.next_functions and fn.next_functions[0][0] is not None and len(chain) < 3:
            fn = fn.next_functions[0][0]
            chain.append(type(fn).__name__)
        return chain, tuple(U.shape), tuple(V.shape), np.abs(V.detach().resolve_conj().numpy())

    (tm, _), (th, _) = _both(names)
    assert tm[:3] == th[:3]
    np.testing.assert_allclose(tm[3], th[3], atol=1e-12)


def _jvp(fn, x, dx):
    with taimatsu.autograd.forward_ad.dual_level():
        y = fn(taimatsu.autograd.forward_ad.make_dual(x, dx))
        return taimatsu.autograd.forward_ad.unpack_dual(y).tangent.numpy()


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_tangent_is_the_derivative(upper):
    """PyTorch 2.13's forward-mode formula here is wrong (it fails its own forward-AD gradcheck);
    taimatsu's tangent must match central finite differences of the (oracle-checked) forward."""
    rng = np.random.default_rng(4)
    L = np.tril(rng.standard_normal((3, 3)), -1) + np.diag([2.0, 3.0, 2.5])
    L = L.T if upper else L
    dL = np.triu(rng.standard_normal((3, 3))) if upper else np.tril(rng.standard_normal((3, 3)))
    x, dx = taimatsu.tensor(L), taimatsu.tensor(dL)
    tangent = _jvp(lambda t: taimatsu.cholesky_inverse(t, upper), x, dx)
    eps = 1e-6
    f = lambda M: taimatsu.cholesky_inverse(taimatsu.tensor(M), upper).numpy()
    fd = (f(L + eps * dL) - f(L - eps * dL)) / (2 * eps)
    np.testing.assert_allclose(tangent, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(
        f(L), torch.cholesky_inverse(torch.tensor(L), upper).numpy(), rtol=1e-12
    )


def test_full_svd_tangent_keeps_u_unitary():
    """full_matrices=True, m > n: the reduced part of the tangent equals PyTorch's and the extra
    columns' tangent keeps U^H U = I to first order (U^H dU is skew-Hermitian)."""
    rng = np.random.default_rng(5)
    a, da = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    with taimatsu.autograd.forward_ad.dual_level():
        U, S, _Vh = taimatsu.linalg.svd(
            taimatsu.autograd.forward_ad.make_dual(taimatsu.tensor(a), taimatsu.tensor(da))
        )
        dU = taimatsu.autograd.forward_ad.unpack_dual(U).tangent.numpy()
        dS = taimatsu.autograd.forward_ad.unpack_dual(S).tangent.numpy()
    u = U.detach().numpy()
    skew = u.T @ dU
    np.testing.assert_allclose(skew, -skew.T, atol=1e-10)
    with torch.autograd.forward_ad.dual_level():
        _, tS, _ = torch.linalg.svd(
            torch.autograd.forward_ad.make_dual(torch.tensor(a), torch.tensor(da))
        )
        np.testing.assert_allclose(
            dS, torch.autograd.forward_ad.unpack_dual(tS).tangent.numpy(), rtol=1e-10
        )


_WARN_SCRIPT = """
import re, sys, warnings
import {lib} as T
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    a = T.eye(2, dtype=T.float64) * 2
    T.cholesky(a); T.cholesky(a); T.qr(a); T.qr(a)
for w in caught:
    print(repr(re.sub(r" \\(Triggered internally at .*\\)$", "", str(w.message), flags=re.S)))
"""


@pytest.mark.slow  # two fresh interpreters (the warnings are once per process)
def test_legacy_deprecation_warnings_like_pytorch():
    """torch.cholesky and torch.qr warn once per process (TORCH_WARN_ONCE), with PyTorch's text."""
    import subprocess
    import sys

    def run(lib):
        r = subprocess.run([sys.executable, "-c", _WARN_SCRIPT.format(lib=lib)], capture_output=True, text=True,
                           check=True)  # fmt: skip
        return [line for line in r.stdout.splitlines() if "deprecated" in line]

    tm, th = run("taimatsu"), run("torch")
    assert len(th) == 2 and tm == th


def test_which_outputs_carry_history():
    a = np.random.default_rng(6).standard_normal((3, 3))

    def flags(T):
        x = T.tensor(a, requires_grad=True)
        p = x @ x.mT + 3 * T.eye(3, dtype=x.dtype)
        z = T.zeros(
            2, 2, dtype=x.dtype, requires_grad=True
        )  # singular: info > 0, history all the same
        outs = [
            *T.linalg.lu_factor_ex(x),
            *T.linalg.cholesky_ex(p),
            *T.linalg.inv_ex(x),
            *T.linalg.qr(x, mode="r"),
            *T.linalg.inv_ex(z),
            *T.linalg.solve_ex(z, T.ones(2, dtype=x.dtype)),
        ]
        return [(type(o.grad_fn).__name__ if o.grad_fn is not None else None) for o in outs]

    (tm, _), (th, _) = _both(flags)
    assert tm == th
