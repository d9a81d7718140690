"""Tensor printing compared with PyTorch's repr (the oracle), plus cases a CPU build cannot show."""

import importlib.util
import math
import pathlib
import sys

import numpy as np
import pytest

try:
    from taimatsu._tensor import printing as _tensor_str
except Exception:  # noqa: BLE001 - the package may not import yet; this module only needs numpy
    _path = pathlib.Path(__file__).parents[2] / "taimatsu" / "_tensor/printing.py"
    _spec = importlib.util.spec_from_file_location("_taimatsu_tensor_str", _path)
    _tensor_str = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = _tensor_str  # dataclasses looks the module up by name
    _spec.loader.exec_module(_tensor_str)

format_tensor = _tensor_str.format_tensor
set_printoptions = _tensor_str.set_printoptions
get_printoptions = _tensor_str.get_printoptions
printoptions = _tensor_str.printoptions

ml_dtypes = pytest.importorskip("ml_dtypes")

DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
]  # fmt: skip
FLOATS = ["float16", "bfloat16", "float32", "float64"]


@pytest.fixture(autouse=True)
def _restore_options():
    yield
    set_printoptions(profile="default")
    torch = _torch_if_present()
    if torch is not None:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)


def _torch_if_present():
    try:
        import torch
    except ImportError:
        return None
    return torch


def np_dtype(name):
    return ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


def to_torch(torch, arr, name):
    arr = np.array(arr, order="C")  # torch.from_numpy rejects negative strides
    if name == "bfloat16":
        return torch.from_numpy(arr.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(arr)


def check(arr, name, *, requires_grad=False, **options):
    """Compare our repr of ``arr`` with PyTorch's under the same print options."""
    torch = pytest.importorskip("torch")
    torch.set_printoptions(**options)
    set_printoptions(**options)
    t = to_torch(torch, arr, name)
    tail = ()
    if requires_grad:
        t.requires_grad_()
        tail = ("requires_grad=True",)
    default = str(torch.get_default_dtype()).removeprefix("torch.")
    expected = repr(t)
    assert format_tensor(arr, name, default_dtype_name=default, tail=tail) == expected
    assert str(t) == expected


def make(rng, name, shape, kind="normal"):
    """Random values of a dtype; ``kind`` picks the magnitudes."""
    if name == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if name in ("uint8", "int8", "int16", "int32", "int64"):
        info = np.iinfo(name)
        hi = {"small": 10, "normal": 1000}.get(kind, info.max)
        return rng.integers(max(info.min, -hi), min(info.max, hi), shape, endpoint=True).astype(
            name
        )
    if kind == "ints":
        real = rng.integers(-100, 100, shape).astype(np.float64)
    elif kind == "bigints":
        real = rng.integers(-(10**12), 10**12, shape).astype(np.float64)
    elif kind == "mixed":
        real = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 11, shape)
    elif kind == "special":
        real = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 1e-5], shape)
    else:
        exponent = {"normal": 0, "small": -1, "big": 10}.get(kind, kind)
        real = rng.standard_normal(shape) * 10.0**exponent
    if name.startswith("complex"):
        # inf * 0 in the imaginary part gives nan: fine, one more special value
        with np.errstate(invalid="ignore"):
            real = real + 1j * np.roll(real, 1) * (rng.random(shape) < 0.7)
    with np.errstate(over="ignore"):
        return np.asarray(real).astype(np_dtype(name))


SHAPES = [
    (),
    (0,),
    (0, 3),
    (3, 0, 2),
    (5,),
    (2, 3),
    (2, 3, 4),
    (1000,),
    (40, 40),
    (3, 200),
    (2, 2, 2, 2),
]
KINDS = ["normal", "ints", "bigints", "mixed", "special", -8, -5, -3, 2, 5, 8, 10]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_dtypes_and_shapes(name, shape):
    check(make(np.random.default_rng(0), name, shape), name)


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16", "float64", "complex64"])
@pytest.mark.parametrize("kind", KINDS, ids=str)
@pytest.mark.parametrize("shape", [(), (7,), (3, 4)], ids=str)
def test_magnitudes(name, kind, shape):
    check(make(np.random.default_rng(1), name, shape, kind), name)


@pytest.mark.parametrize("name", ["int8", "int32", "int64", "uint8"])
@pytest.mark.parametrize("kind", ["small", "normal", "big"])
def test_integers(name, kind):
    check(make(np.random.default_rng(2), name, (4, 6), kind), name)


OPTIONS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"sci_mode": True},
    {"sci_mode": False},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 0},
    {"threshold": 0},
    {"linewidth": 40},
    {"linewidth": 10},
    {"profile": "full"},
    {"profile": "short"},
    {"profile": "short", "precision": 6, "sci_mode": True},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("name", ["float32", "int64", "complex128", "bfloat16", "bool"])
@pytest.mark.parametrize("shape", [(), (8,), (5, 7), (2, 3, 4), (1200,), (2, 1, 9)], ids=str)
@pytest.mark.parametrize("kind", ["normal", "mixed", "ints"])
def test_printoptions(options, name, shape, kind):
    check(make(np.random.default_rng(3), name, shape, kind), name, **options)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4), (2, 5, 6), (0, 2)], ids=str)
def test_non_contiguous(name, shape):
    arr = make(np.random.default_rng(4), name, shape)
    check(arr.T, name)
    check(arr[..., ::-2], name)


@pytest.mark.parametrize("name", FLOATS + ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 40), (0,), (0, 2)], ids=str)
@pytest.mark.parametrize("linewidth", [80, 30, 40])
def test_requires_grad_tail(name, shape, linewidth):
    check(
        make(np.random.default_rng(5), name, shape),
        name,
        requires_grad=True,
        linewidth=linewidth,
    )


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 2)], ids=str)
def test_default_dtype_float64(name, shape):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    check(make(np.random.default_rng(6), name, shape), name)


@pytest.mark.parametrize(
    "values",
    [[0.0, -0.0], [-0.0], [0.0], [np.nan], [np.inf, -np.inf, np.nan], [1.0, -0.0, np.nan],
     [1e-5, np.nan], [0.5, -np.inf], [1e20, 1.0], [123456789.0], [9.99999, 1.0], [-1e-300, 1e300]],
    ids=str,
)  # fmt: skip
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "complex64"])
def test_special_values(values, name):
    with np.errstate(over="ignore"):
        check(np.array(values).astype(name), name)
        check(np.array(values[0]).astype(name), name)


def test_complex_parts():
    values = [
        1 + 2j,
        -1 - 2j,
        complex(0, -0.0),
        complex(np.nan, np.inf),
        complex(-np.inf, np.nan),
        1e9j,
    ]
    check(np.array(values, dtype=np.complex128), "complex128")
    check(np.array(values[:3], dtype=np.complex64), "complex64")


def test_fuzz():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1234)
    option_pool = OPTIONS + [{}, {}, {}, {"linewidth": 60, "precision": 3}]
    for _ in range(400):
        name = str(rng.choice(DTYPES))
        ndim = int(rng.integers(0, 5))
        shape = tuple(
            int(rng.choice([0, 1, 2, 3, 5, 9, 13])) if rng.random() < 0.9 else 0
            for _ in range(ndim)
        )
        pool = KINDS + ["small", "big"]
        kind = pool[int(rng.integers(len(pool)))]
        options = option_pool[int(rng.integers(len(option_pool)))]
        if rng.random() < 0.2:
            torch.set_default_dtype(torch.float64)
        grad = name in FLOATS + ["complex64", "complex128"] and rng.random() < 0.3
        arr = make(rng, name, shape, kind)
        check(arr, name, requires_grad=grad, **options)
        torch.set_default_dtype(torch.float32)


def test_device_and_suffix_order():
    arr = np.array([1.0, 2.0], dtype=np.float64)
    got = format_tensor(arr, "float64", device="cuda:0", tail=("grad_fn=<AddBackward0>",))
    assert got == "tensor([1., 2.], device='cuda:0', dtype=torch.float64, grad_fn=<AddBackward0>)"
    empty = np.zeros((0, 2), dtype=np.int64)
    got = format_tensor(empty, "int64", device="cuda:1")
    assert got == "tensor([], device='cuda:1', size=(0, 2), dtype=torch.int64)"
    long = np.arange(8, dtype=np.float32) + 0.5
    got = format_tensor(long, "float32", device="cuda:0", tail=("grad_fn=<MulBackward0>",))
    assert got == (
        "tensor([0.5000, 1.5000, 2.5000, 3.5000, 4.5000, 5.5000, 6.5000, 7.5000],\n"
        "       device='cuda:0', grad_fn=<MulBackward0>)"
    )


def test_printoptions_api():
    defaults = {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    assert get_printoptions() == defaults
    with printoptions(precision=2, sci_mode=True):
        assert get_printoptions() == dict(defaults, precision=2, sci_mode=True)
    assert get_printoptions() == defaults
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    set_printoptions(profile="short", linewidth=50)
    assert get_printoptions() == dict(defaults, precision=2, edgeitems=2, linewidth=50)
    torch = _torch_if_present()
    if torch is not None:
        torch.set_printoptions(profile="short", linewidth=50)
        assert get_printoptions() == torch._tensor_str.get_printoptions()
