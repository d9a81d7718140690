"""opdb entries for taimatsu/fft.py (torch.fft): values, dtypes, gradients, JVPs, errors.

Real and complex inputs are separate entries ("fft" / "fft.complex") so both the R2C and the
C2C gradients are checked (the grad checks run in float64, or complex128 when only complex
dtypes are listed).
"""

from __future__ import annotations

from opdb import OpInfo, Sample, register

REAL = ("float32", "float64")
CPLX = ("complex64", "complex128")


def _fft(fn):
    return lambda T, x, *a, **k: getattr(T.fft, fn)(x, *a, **k)


def one_d(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((6,))),
        Sample(n((3, 5))),
        Sample(n((3, 5)), kwargs={"norm": "ortho"}),
        Sample(n((3, 5)), kwargs={"norm": "forward", "dim": 0}),
        Sample(n((2, 5)), 8),  # zero-padded
        Sample(n((2, 5)), 3, 1, "backward"),  # cropped
        Sample(n((4, 3)), noncontig=True),
    ]


def c2r_d(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((4,))),
        Sample(n((3, 5))),
        Sample(n((3, 5)), 9),
        Sample(n((3, 5)), 4, kwargs={"norm": "ortho"}),
        Sample(n((3, 4)), kwargs={"norm": "forward", "dim": 0}),
        Sample(n((4, 3)), noncontig=True),
    ]


def n_d(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n((2, 3, 4)), kwargs={"norm": "ortho"}),
        Sample(n((2, 3, 4)), kwargs={"dim": (0, 2), "norm": "forward"}),
        Sample(n((3, 4)), (4, 6)),
        Sample(n((4, 3)), noncontig=True),
    ]


def c2r_nd(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((3, 4))),
        Sample(n((2, 3, 4)), kwargs={"norm": "ortho"}),
        Sample(n((3, 4)), (4, 7)),
        Sample(n((2, 3, 3)), kwargs={"dim": (0, 1), "norm": "forward"}),
    ]


def _reg(name, fn, samples, dtypes, **kw):
    register(OpInfo(name=name, op=_fft(fn), samples=samples, dtypes=dtypes, **kw))


for fn in ("fft", "ifft"):
    _reg(fn, fn, one_d, REAL + ("int64",))
    _reg(fn + ".complex", fn, one_d, CPLX)
_reg("rfft", "rfft", one_d, REAL + ("int64",), errors=lambda T: [
    (lambda: T.fft.rfft(T.ones(3, dtype=T.complex64)), RuntimeError),
    (lambda: T.fft.rfft(T.ones(3), 0), RuntimeError),
    (lambda: T.fft.fft(T.ones(3), norm="bad"), RuntimeError),
    (lambda: T.fft.fft(T.ones(3, dtype=T.float16)), RuntimeError),
])  # fmt: skip
_reg("ihfft", "ihfft", one_d, REAL)
for fn in ("irfft", "hfft"):
    _reg(fn, fn, c2r_d, CPLX)
    _reg(fn + ".real", fn, c2r_d, REAL)
for fn in ("fft2", "ifft2", "fftn", "ifftn"):
    _reg(fn, fn, n_d, REAL)
    _reg(fn + ".complex", fn, n_d, CPLX)
for fn in ("rfft2", "rfftn"):
    _reg(fn, fn, n_d, REAL)
for fn in ("irfft2", "irfftn", "hfft2", "hfftn"):
    _reg(fn, fn, c2r_nd, CPLX)
for fn in ("ihfft2", "ihfftn"):
    _reg(fn, fn, n_d, REAL)

register(OpInfo(
    name="fftfreq", op=lambda T, *a, **k: T.fft.fftfreq(*a, **k), grad=False,
    samples=lambda rng, dtype: [Sample(5), Sample(6, 0.25), Sample(1), Sample(7, kwargs={"d": 3.0})],
    dtypes=("float32",),
))  # fmt: skip
register(OpInfo(
    name="rfftfreq", op=lambda T, *a, **k: T.fft.rfftfreq(*a, **k), grad=False,
    samples=lambda rng, dtype: [Sample(5), Sample(6, 0.25), Sample(1)],
    dtypes=("float32",),
))  # fmt: skip


def shift_samples(rng, dtype):
    n = rng.standard_normal
    return [
        Sample(n((5,))),
        Sample(n((3, 4))),
        Sample(n((3, 5)), 1),
        Sample(n((3, 5)), kwargs={"dim": (0, 1)}),
    ]


register(
    OpInfo(name="fftshift", op=_fft("fftshift"), samples=shift_samples, dtypes=REAL + ("int64",))
)
register(
    OpInfo(name="ifftshift", op=_fft("ifftshift"), samples=shift_samples, dtypes=REAL + ("int64",))
)
