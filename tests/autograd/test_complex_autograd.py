"""Complex gradcheck: real and imaginary parts are both checked (PyTorch's convention).

A custom Function whose backward forgets the conjugate (g * 2z instead of g * conj(2z)) passes
a real-part-only check; both libraries' gradcheck must reject it, and accept the correct one.
"""

from __future__ import annotations

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _square(T, conj: bool):
    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * (2 * z).conj() if conj else g * 2 * z

    return Square.apply


@pytest.mark.parametrize("conj", [True, False])
def test_gradcheck_sees_the_imaginary_part(conj):
    z = np.array([1 + 2j, 0.5 - 1j, -0.3 + 0.2j])
    results = []
    for T in (taimatsu, torch):
        x = T.tensor(z, dtype=T.complex128, requires_grad=True)
        results.append(T.autograd.gradcheck(_square(T, conj), (x,), raise_exception=False))
    assert results == [conj, conj]


@pytest.mark.parametrize(
    "fn",
    [
        lambda T, x, y: (x * y).abs(),  # complex -> real
        lambda T, x, y: x * y.exp(),  # real and complex inputs -> complex
        lambda T, x, y: T.view_as_real(y * y.conj() + x),  # complex -> real view
        lambda T, x, y: (y.angle() * x, y.sgn()),  # two outputs, one real and one complex
    ],
)
def test_gradcheck_mixed_real_complex(fn):
    rng = np.random.default_rng(0)
    xr, yc = rng.standard_normal(3), rng.standard_normal(3) + 1j * rng.standard_normal(3)
    for T in (taimatsu, torch):
        x = T.tensor(xr, requires_grad=True)
        y = T.tensor(yc, requires_grad=True)
        assert T.autograd.gradcheck(lambda a, b, T=T: fn(T, a, b), (x, y)), T.__name__


def test_real_imag_setters_write_into_the_tensor():
    res = []
    for T in (taimatsu, torch):
        x = T.tensor([1 + 2j, 3 - 1j])
        x.real = T.tensor([5.0, 6.0])
        x.imag = T.tensor([-1.0, 0.5])
        x.imag.mul_(2)
        res.append(np.asarray(x.numpy()))
    np.testing.assert_array_equal(res[0], res[1])


@pytest.mark.parametrize("out_dtype", ["complex64", "float64", "int64"])
def test_abs_of_complex_into_out(out_dtype):
    """abs of a complex tensor is real: any out its real dtype casts to takes it."""
    res = []
    for T in (taimatsu, torch):
        out = T.empty(2, dtype=getattr(T, out_dtype))
        try:
            res.append(np.asarray(T.abs(T.tensor([3 + 4j, -1j]), out=out).numpy()))
        except RuntimeError as e:
            res.append(str(e))
    if isinstance(res[1], str):
        assert res[0] == res[1]
    else:
        np.testing.assert_array_equal(res[0], res[1])


def test_real_input_of_complex_arithmetic_gets_the_real_part_silently():
    """add/sub/mul/div keep the real part of a complex gradient for a real input in their own
    formula (PyTorch's handle_r_to_c): no 'discards the imaginary part' warning."""
    import warnings

    res = []
    for T in (taimatsu, torch):
        p = T.tensor([1 + 2j, -0.5 + 1j], requires_grad=True)
        q = T.tensor([2.0, 3.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            (p * q + q - q / p + p / q - 2 * q).abs().sum().backward()
        res.append((q.grad.dtype == T.float32, q.grad.numpy(), p.grad.numpy()))
    assert res[0][0] and res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-6)
