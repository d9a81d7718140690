"""An oracle fuzzer: common functions called with hostile arguments, PyTorch's answer is the spec.

A seeded generator fills call templates (creation, shape, pointwise, reductions, nn.functional,
Tensor.to/.item, linalg) from pools of hostile arguments: negative, zero and huge sizes, every
dtype kind, out-of-range dims, NaN/inf scalars, empty tensors, mismatched shapes, device strings,
None where a tensor belongs. Each call runs in PyTorch and in taimatsu:

- PyTorch raises: taimatsu raises the same exception type (the class of the same name; for
  ``torch._C._LinAlgError``, ``taimatsu.linalg.LinAlgError``);
- PyTorch answers: taimatsu answers with the same type, dtype, shape and values;
- taimatsu never raises an internal error (AttributeError, ZeroDivisionError, NumPy's AxisError
  or LinAlgError, MemoryError, OverflowError, AssertionError...) that PyTorch does not.

The calls are plain expressions over ``T`` (the module under test), so a failure prints a line to
paste into a shell. ``python tests/ops/test_fuzz_oracle.py`` prints every difference at once, known or
not; tests/ops/fuzz_oracle_known.py lists the accepted ones (strict xfails, grouped by reason).
"""

import math
import random
import warnings

import numpy as np
import pytest
from fuzz_oracle_known import KNOWN  # the accepted differences, each a strict xfail with its reason

SEED = 0
CALLS_PER_TEMPLATE = 18

# fmt: off
# ---- argument pools ---------------------------------------------------------------------------------
SIZES = ["0", "-1", "3", "(2, 3)", "(2, -3)", "()", "(0, 3)", "10**12", "(2**40, 2**40)", "2.5", "None", "'3'", "[2, 0]"]
INTS = ["0", "1", "2", "-1", "3", "-3", "7", "10**12", "2.5", "None", "True"]
DIMS = ["0", "1", "-1", "2", "-3", "5", "None", "(0, 0)", "(0, 1)", "1.5", "'a'"]
SCALARS = ["0", "1", "-1", "2.5", "-0.5", "math.nan", "math.inf", "-math.inf", "True", "10**20", "3j", "None"]
DTYPES = [
    "None", "T.float32", "T.float64", "T.float16", "T.int64", "T.int32", "T.uint8", "T.int8",
    "T.bool", "T.complex64", "T.bfloat16",
]
DEVICES = ["'cpu'", "'meta'", "'cuda'", "'cuda:0'", "3", "-1", "'xyz'", "None", "T.device('cpu')"]
TENSORS = [
    "T.arange(6.).reshape(2, 3)",
    "(T.arange(24.).reshape(2, 3, 4) - 11) / 4",
    "T.ones(3)",
    "T.zeros(0)",
    "T.zeros(2, 0)",
    "T.tensor(2.5)",
    "T.arange(-3, 3)",
    "T.arange(6).reshape(2, 3)",
    "T.tensor([True, False, True])",
    "T.tensor([1 + 2j, -3j])",
    "T.tensor([math.nan, 1., -math.inf, math.inf])",
    "T.ones(2, 3, dtype=T.float64)",
    "T.ones(2, 3, dtype=T.float16)",
    "T.tensor([0, 1, 2, 0])",
    "T.tensor([[0, 5], [1, -1]])",
    "None",
]
IMAGES = [  # (N, C, H, W)-ish inputs for conv/pool/interpolate
    "T.arange(32.).reshape(1, 2, 4, 4)",
    "T.arange(16.).reshape(1, 4, 4)",
    "T.arange(4.).reshape(1, 1, 2, 2)",
    "T.zeros(0, 1, 4, 4)",
    "T.ones(1, 1, 4, 4, dtype=T.float64)",
    "T.arange(16).reshape(1, 1, 4, 4)",
    "T.ones(4)",
]
MATRICES = [
    "T.eye(3)",
    "T.zeros(2, 2)",
    "-T.eye(2, dtype=T.float64)",
    "T.ones(2, 3)",
    "T.arange(4.).reshape(2, 2) + 1",
    "T.ones(3)",
    "T.zeros(0, 0)",
    "T.eye(2, dtype=T.int64)",
    "T.tensor([[1., math.nan], [0., 1.]])",
    "T.eye(2, dtype=T.complex128)",
]
POOLS = {
    "S": SIZES, "I": INTS, "D": DIMS, "X": SCALARS, "DT": DTYPES, "DEV": DEVICES,
    "A": TENSORS, "B": TENSORS, "IMG": IMAGES, "M": MATRICES, "N": MATRICES,
}

F = "T.nn.functional."
# Templates whose results are random compare dtype and shape only.
RANDOM_TEMPLATES = {"T.rand({S})", "T.randn({S}, dtype={DT})", "T.randint({I}, {S})", "T.empty({S}, device={DEV})",
                    F + "dropout({A}, {X})", "T.rand({S}, device={DEV})"}
TEMPLATES = [
    # creation
    "T.zeros({S}, dtype={DT})", "T.ones({S})", "T.full({S}, {X}, dtype={DT})", "T.full({S}, {X})",
    "T.arange({X})", "T.arange({X}, {X}, {X})", "T.arange({I}, dtype={DT})", "T.linspace({X}, {X}, {I})",
    "T.empty({S}, device={DEV})", "T.eye({I}, {I})", "T.eye({I}, dtype={DT})", "T.zeros_like({A}, dtype={DT})",
    "T.rand({S})", "T.randn({S}, dtype={DT})", "T.randint({I}, {S})", "T.rand({S}, device={DEV})",
    "T.tensor({X}, dtype={DT})",
    # shape
    "{A}.view({S})", "{A}.reshape({S})", "{A}.squeeze({D})", "{A}.unsqueeze({D})", "{A}.permute({S})",
    "{A}.transpose({D}, {D})", "T.cat([{A}, {B}], {D})", "T.cat([{A}, {B}])", "T.stack([{A}, {B}], {D})",
    "{A}.split({I})", "{A}.split({I}, {D})", "{A}.chunk({I}, {D})", "{A}.narrow({D}, {I}, {I})", "{A}.expand({S})",
    "T.index_select({A}, {D}, {B})", "T.gather({A}, {D}, {B})", "T.flatten({A}, {D}, {D})",
    # pointwise and reductions
    "T.add({A}, {B})", "T.add({A}, {X}, alpha={X})", "T.div({A}, {B}, rounding_mode='trunc')",
    "T.div({A}, {X}, rounding_mode='floor')", "T.div({A}, {B}, rounding_mode={X})", "{A} // {B}", "{A} % {X}",
    "T.pow({A}, {X})", "T.pow({A}, {B})", "T.clamp({A}, {X}, {X})", "T.clamp({A}, {B})", "T.sum({A}, {D})",
    "T.sum({A}, dtype={DT})", "T.mean({A}, {D})", "T.max({A}, {D})", "T.max({A})", "T.argmax({A}, {D})",
    "T.softmax({A}, {D})", "T.cumsum({A}, {D})", "T.where({A} > 0, {A}, {X})",
    # nn.functional
    F + "linear({A}, {B})", F + "linear({A}, {M}, {B})", F + "conv1d({IMG}, {A})", F + "conv2d({IMG}, {IMG})",
    F + "conv2d({IMG}, T.ones(1, 2, 2, 2), stride={I}, padding={I})", F + "max_pool2d({IMG}, {I}, {I})",
    F + "max_pool2d({IMG}, {I}, {I}, {I})", F + "avg_pool2d({IMG}, {I}, {I})", F + "avg_pool2d({IMG}, {I}, {I}, {I})",
    F + "embedding({B}, {A})", F + "embedding({B}, {A}, max_norm={X})",
    F + "batch_norm({A}, {B}, {B}, training={X})", F + "batch_norm({A}, None, None, {B}, {B}, training=True)",
    F + "layer_norm({A}, {S})", F + "layer_norm({A}, {S}, {B}, {B})", F + "dropout({A}, {X})",
    F + "cross_entropy({A}, {B})", F + "cross_entropy({A}, {B}, ignore_index={I})", F + "nll_loss({A}, {B})",
    F + "mse_loss({A}, {B})", F + "pad({A}, {S})", F + "pad({A}, {S}, value={X})", F + "pad({A}, (1, 1), mode='reflect')",
    F + "interpolate({IMG}, scale_factor={X})", F + "interpolate({IMG}, size={S})", F + "one_hot({B}, {I})",
    F + "hardtanh({A})", F + "hardtanh({A}, {X}, {X})", F + "softmin({A}, {D})", F + "log_softmax({A}, {D})",
    # pooling, bitwise, Tensor-only and linspace neighbours
    F + "max_pool1d({IMG}, {I}, {I})", F + "max_pool1d({A}, {I}, {I}, {I})", F + "avg_pool1d({A}, {I})",
    F + "adaptive_avg_pool2d({IMG}, {S})", F + "adaptive_max_pool2d({IMG}, {S})", F + "adaptive_avg_pool1d({A}, {I})",
    F + "adaptive_max_pool1d({A}, {S})", F + "max_pool3d({IMG}, {I}, {I})", F + "avg_pool3d({IMG}, {I})",
    "T.bitwise_and({A}, {B})", "{A} << {B}", "{A} ^ {X}", "T.hypot({A}, {B})", "{A}.hypot({X})", "T.maximum({A}, {B})",
    "T.gcd({A}, {B})", "T.linspace({X}, {X}, {I}, dtype={DT})",
    # Tensor methods
    "{A}.to({DEV})", "{A}.to({DT})", "{A}.to({A})", "{A}.view({DT})", "{A}.item()", "{A}.to({X})",
    # linalg
    "T.linalg.inv({M})", "T.linalg.solve({M}, {N})", "T.linalg.cholesky({M})", "T.linalg.det({M})",
    "T.linalg.eigh({M})", "T.linalg.svd({M})", "T.linalg.norm({M}, {X})", "T.matmul({M}, {N})",
]



def _fill(template: str, rng: random.Random) -> str:
    out, i = [], 0
    while (j := template.find("{", i)) >= 0:
        k = template.index("}", j)
        out += [template[i:j], rng.choice(POOLS[template[j + 1 : k]])]
        i = k + 1
    return "".join(out + [template[i:]])


def cases() -> list[tuple[str, bool]]:
    """(expression, values_random) pairs, the same on every run."""
    rng, seen, out = random.Random(SEED), set(), []
    for template in TEMPLATES:
        for _ in range(CALLS_PER_TEMPLATE):
            expr = _fill(template, rng)
            if expr not in seen:
                seen.add(expr)
                out.append((expr, template in RANDOM_TEMPLATES))
    return out


def _run(T, expr: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", eval(expr, {"T": T, "math": math})
        except Exception as e:  # noqa: BLE001 - every exception is an answer to compare
            return "raised", e


def _exc_name(e: BaseException) -> str:
    name = type(e).__name__
    return "LinAlgError" if name == "_LinAlgError" else name


def _describe(T, r, random_values: bool):
    """A comparable summary of a result: type, and for tensors dtype, shape, device and values."""
    if isinstance(r, T.Tensor):
        head = ("Tensor", str(r.dtype).split(".")[-1], tuple(r.shape), r.device.type)
        if random_values or r.device.type == "meta":
            return head
        return head + (r.detach().cpu().resolve_conj().tolist(),)
    if isinstance(r, (tuple, list)):
        return (type(r).__name__ if type(r) in (tuple, list) else "namedtuple",) + tuple(
            _describe(T, x, random_values) for x in r
        )
    if isinstance(r, (bool, int, float, complex)):
        return (type(r).__name__, r)
    return (type(r).__name__, str(r))


def _same(a, b) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (float, complex)) or isinstance(b, (float, complex)):
        if not isinstance(a, (int, float, complex)) or not isinstance(b, (int, float, complex)):
            return False
        return bool(np.isclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
    return a == b


def _said(kind: str, r) -> str:
    if kind == "raised":
        return f"{_exc_name(r)}: " + " ".join(str(r).split())[:160]
    return f"returned {str(r)[:80]!r}"


def compare(torch, tm, expr: str, random_values: bool):
    """None when taimatsu behaves as PyTorch does, else a line saying how they differ."""
    (tk, tr), (mk, mr) = _run(torch, expr), _run(tm, expr)
    if tk == "raised" or mk == "raised":
        if tk == mk and _exc_name(tr) == _exc_name(mr):
            return None
        return f"{expr}\n    torch: {_said(tk, tr)}\n    taimatsu: {_said(mk, mr)}"
    dt, dm = _describe(torch, tr, random_values), _describe(tm, mr, random_values)
    if _same(dt, dm):
        return None
    return f"{expr}\n    torch: {str(dt)[:300]}\n    taimatsu: {str(dm)[:300]}"


CASES = cases()


def _params():
    for expr, rand in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[expr])] if expr in KNOWN else []
        yield pytest.param(expr, rand, marks=marks, id=expr)


def test_enough_calls():
    assert 1000 <= len(CASES) <= 2500


# The list (and their neighbours): the exception type and PyTorch's message, or the answer.
FIXED = [
    "T.zeros(10**12)", "T.ones((2**40, 2**40))", "T.full((10**12,), 1.)", "T.rand(10**12)", "T.eye(10**7)",
    "T.arange(10**12)", "T.arange(math.inf, 10)", "T.arange(0, math.nan)", "T.arange(0., 1e30, 1.)",
    "T.arange(0, 10, math.nan)", "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2, 0)",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 0, 1)", "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), 2, -1)",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2, 1, 0, 0)", "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2, 1, -1)",
    "T.nn.functional.embedding(T.tensor([0, 1]), T.ones(3), max_norm=1.)",
    "T.nn.functional.embedding(T.tensor([0, 1]), T.ones(3))",
    "T.nn.functional.batch_norm(T.ones(2, 3), T.zeros(3), None, training=True)",
    "T.nn.functional.batch_norm(T.ones(2, 3), T.zeros(3), None)",
    "T.ones(2).to(3)", "T.empty(2, device=3)", "T.ones(2).to(-1)",
    "T.linalg.inv(T.zeros(2, 2))", "T.linalg.cholesky(-T.eye(2))", "T.linalg.solve(T.zeros(2, 2), T.ones(2))",
    "T.div(T.tensor([1, 2]), 0, rounding_mode='trunc')", "T.div(T.tensor([1, 2]), T.tensor([0, 1]), rounding_mode='floor')",
    "T.tensor([1, 2]) // 0", "T.tensor([1, 2]) % 0",
    "T.nn.functional.nll_loss(T.ones(3), T.tensor([0, 1]))", "T.nn.functional.nll_loss(T.ones(3), T.tensor([[1]]))",
    "T.nn.functional.nll_loss(T.ones(3), T.tensor([1]), reduction='none')",
    "T.nn.functional.cross_entropy(T.ones(3), T.tensor([0, 1]))",
    "T.full((2,), math.nan, dtype=T.uint8)", "T.full((2,), 300, dtype=T.uint8)", "T.full((2,), -1, dtype=T.uint8)",
    "T.full((2,), math.inf, dtype=T.int32)", "T.full((2,), 3j, dtype=T.int32)", "T.tensor([300], dtype=T.uint8)",
    "T.tensor(math.nan, dtype=T.int64)", "T.tensor(3j, dtype=T.float64)", "T.tensor(10**20, dtype=T.int64)",
    "T.nn.functional.layer_norm(T.ones(2, 3), ())", "T.ones(1, 2).squeeze((0, 0))", "T.ones(1, 2).squeeze((0, -2))",
    "T.nn.BatchNorm1d(3)(T.ones(2, 3, dtype=T.float64))",
    "T.nn.functional.layer_norm(T.ones(2, 3), (3,), T.ones(3, dtype=T.float64))",
    "T.nn.functional.group_norm(T.ones(2, 4, dtype=T.float64), 2, T.ones(4))",
    "T.nn.functional.hardtanh(T.ones(2, dtype=T.complex64))", "T.nn.functional.relu6(T.ones(2, dtype=T.bool))",
    "T.ones(0).split(2)", "T.ones(3).split(-1)", "T.cat([T.ones(2), T.ones(0, dtype=T.float64)])",
    "T.nn.functional.softmin(T.tensor([math.inf, 1.]), 0)",
    "T.nn.functional.interpolate(T.ones(1, 1, 2, 2), scale_factor=0)",
    "T.nn.functional.interpolate(T.ones(1, 1, 2, 2), scale_factor=math.inf)",
    "T.nn.functional.pad(T.zeros(0), (2**40, 2**40))", "T.nn.functional.pad(T.ones(2, 2), (2, -3))",
    "T.nn.functional.pad(T.arange(6).reshape(2, 3), (1, 1), value=math.nan)", "T.add(None, T.ones(2))",
    "T.linspace(None, 1, 3)", "T.randn(2, dtype=T.int64)",
    "T.sum(None)", "T.mean(None)", "T.prod(None)", "T.max(None)", "T.min(None)", "T.argmax(None)",
    "T.argmin(None, 0)", "T.cumsum(None, 0)", "T.cumprod(None, 0)", "T.clamp(None, 0, 1)",
    "T.sum(T.ones(2, 3, dtype=T.float16), dtype=T.bool)", "T.sum(T.tensor([[3, 0], [0, 0]]), 1, dtype=T.bool)",
    "T.sum(T.tensor([200, 100], dtype=T.uint8), dtype=T.uint8)", "T.sum(T.tensor([-1.5, 300.7]), dtype=T.uint8)",
    "T.sum(T.full((1000,), 300.7), dtype=T.int8)", "T.tensor([2**31 - 1, 5], dtype=T.int32).sum(dtype=T.int32)",
    "T.tensor([[100, 100], [100, 1]], dtype=T.int8).sum(0, dtype=T.int8)",
    "T.clamp(T.ones(2), 1, 3j)", "T.clamp(T.ones(2), 3 + 0j)", "T.clamp(T.arange(2), 3j)", "T.clamp_min(T.ones(2), 3j)",
    "T.ones(2).clamp_(3 + 0j)", "T.clamp(T.ones(2), 1e300, 3j)", "T.clamp(T.ones(2), 1, 1e300)",
    "T.clamp(T.ones(2, dtype=T.float16), 1, 65519.)", "T.clamp(T.ones(2, dtype=T.bfloat16), 1, 1e300)",
    "T.clamp(T.arange(3, dtype=T.int8), 1000)", "T.clamp(T.arange(3, dtype=T.int32), 10**10)", "T.clamp(T.arange(3), 2**63)",
    "T.clamp(T.arange(3, dtype=T.uint8), -1)", "T.clamp(T.arange(3, dtype=T.uint8), -256)",
    "T.clamp(T.tensor([True]), True, True)", "T.clamp(T.tensor([True]), None, False)", "T.clamp(T.ones(2), 10**20)",
    "T.clamp(T.ones(2), -2**63 - 1)", "T.clamp(T.ones(2), 2**64 - 1)", "T.clamp(T.arange(2), 2**64 - 1)",
    "T.sum(T.ones(2), 1.5)", "T.sum(T.ones(2), True)", "T.sum(T.ones(2, 2), (0, 1.5))", "T.sum(T.ones(2, 2), (0, True))",
    "T.mean(T.arange(3), 1.5)", "T.nansum(T.ones(2), 1.5)", "T.std(T.ones(2), 1.5)", "T.std(T.ones(2), True)",
    "T.min(T.ones(2), 1.5)", "T.argmin(T.ones(2), 0.)", "T.cumsum(T.ones(2), True)", "T.cumprod(T.ones(2), 1.5)",
    "T.amax(T.ones(2), 1.5)", "T.amax(T.ones(2), None)", "T.logsumexp(T.ones(2), 1.5)", "T.amin(T.ones(2, 2), (0, True))",
    "T.amax(T.arange(6.).reshape(2, 3), (True,))", "T.mean(T.arange(6.).reshape(2, 3), [True])",
    "T.linalg.matrix_norm(T.zeros(0, 3), math.inf)", "T.linalg.matrix_norm(T.zeros(2, 0, 0), 1, keepdim=True)",
    "T.linalg.matrix_norm(T.zeros(0, 3, dtype=T.complex64), math.inf)", "T.linalg.matrix_norm(T.zeros(0, 0), -1)",
    "T.linalg.eig(T.tensor([[1., math.nan], [0., 1.]]))",
    "T.linalg.eigvals(T.tensor([[1., math.nan], [0., 1.]], requires_grad=True))",
    "T.linalg.eigvals(T.tensor([[math.inf, 1.], [1., 1.]], dtype=T.complex128, requires_grad=True))",
    "T.arange(3).to(2.5)", "T.arange(3).to(True)", "T.ones(2).to(3j, True)", "T.arange(3).to(2.5, T.float32)",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 3, 2**31)", "T.nn.functional.avg_pool1d(T.ones(1, 1, 4), 3, 10**12)",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2, 1, 0, 2**31)", "T.nn.functional.max_pool1d(T.ones(1, 1, 9), 3, 10**12, 1)",
    "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 3, 10**12, return_indices=True)",
    "T.gather(T.zeros(2, 3), 0, T.zeros(0, 0, 0))", "T.gather(T.zeros(2, 3), 5, T.zeros(0))",
    "T.gather(T.zeros(2, 3), 0, T.zeros(2, 0))", "T.gather(T.zeros(2, 0), 0, T.zeros(2, 3))",
    "T.nn.functional.conv2d(T.zeros(0, 1, 4, 4), T.ones(1, 1, 4, 4, dtype=T.float64), T.ones(1))",
    "T.nn.functional.conv1d(T.zeros(0, 1, 4), T.ones(1, 1, 4, dtype=T.float64))",
    "T.nn.functional.batch_norm(T.zeros(0, 3), T.ones(2), None, T.ones(3, dtype=T.float64), training=True)",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2.5)", "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), (2, 2.5))",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2, return_indices=True, padding=1.)",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2, 1, 0, 1, 0)", "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), True)",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), 2, divisor_override=1.5)", "T.nn.functional.avg_pool1d(T.ones(1, 1, 4), 2, None, 0, 0)",
    "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 2.5, return_indices=True)", "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), (2, True))",
    # Python ints past int64/uint64 as Scalars (PyTorch's OverflowError), wrapping ints in uint64's range
    "T.ones(2) + 10**20", "T.ones(2) * (-2**63 - 1)", "T.ones(2) * (2**64 - 1)", "T.ones(2) < 10**20", "10**20 - T.ones(2)",
    "T.ones(2).add_(10**20)", "T.add(T.ones(2), 1.5, alpha=2**64)", "T.arange(2) + 10**20", "T.arange(2) + 2**63",
    "T.arange(2, dtype=T.uint8) + 2**63", "T.pow(10**20, T.ones(2))", "T.where(T.ones(2) > 0, 10**20, 1.)",
    "T.lerp(T.ones(2), T.ones(2), 10**20)", "T.ones(2).fill_(10**20)", "T.linalg.matrix_norm(T.eye(2), 10**20)",
    "T.linalg.vector_norm(T.ones(3), -2**63 - 1)", "T.add(T.zeros(2), 1, alpha=3j)", "T.add(T.arange(2), 1, alpha=3j)",
    "T.atan2(T.ones(2), 2)", "T.hypot(T.ones(2), 10**20)", "T.ones(2).atan2_(2)",
    # linspace's checked conversion of its ends (two steps or more)
    "T.linspace(0, 70000, 2, dtype=T.float16)", "T.linspace(70000, 0, 1, dtype=T.float16)",
    "T.linspace(0, 65519, 2, dtype=T.float16)", "T.linspace(0, math.inf, 2, dtype=T.float16)",
    "T.linspace(0, 1e39, 2, dtype=T.bfloat16)", "T.linspace(0, 1e39, 3)", "T.linspace(0, 1e39, 3, dtype=T.float64)",
    "T.linspace(0, 300, 2, dtype=T.uint8)", "T.linspace(0, math.nan, 3, dtype=T.int64)", "T.linspace(0, 2**63, 3, dtype=T.int64)",
    "T.linspace(0, 1e39j, 3)", "T.linspace(T.tensor(70000.), 0, 2, dtype=T.float16)", "T.linspace(0, 1, 2.)",
    "T.linspace(0, 1, True)", "T.linspace(0, 1, T.tensor(3))",
    # PyTorch's order of checks: dims first, the index's rank before its dtype, the kernel's dtype last
    "T.index_select(T.ones(2, 3), 5, T.zeros(2))", "T.index_select(T.ones(2, 3), 0, T.zeros(2, 2))",
    "T.index_select(T.ones(2, 3, dtype=T.uint16), 5, T.zeros(2, dtype=T.long))",
    "T.index_select(T.tensor(1.), 0, T.tensor([0, 0]))", "T.index_select(T.tensor(1.), 0, T.tensor([0]))",
    "T.gather(T.zeros(2, 3, dtype=T.uint16), 5, T.ones(2, 3, dtype=T.long))",
    "T.gather(T.zeros(2, 3, dtype=T.uint16), 0, T.ones(2, 3, 3, dtype=T.long))",
    "T.gather(T.zeros(2, 3, dtype=T.uint16), 0, T.ones(2, 4, dtype=T.long))", "T.stack([T.ones(3), T.ones(2)], 5)",
    "T.split(T.arange(6).reshape(2, 3), -1, -3)", "T.split(T.arange(6).reshape(2, 3), 2.5)", "T.ones(4).split(1, 1.5)",
    "T.ones(4).split(-1, (0, 0))", "T.split(T.arange(6).reshape(2, 3), T.tensor(1), 0)",
    "T.div(T.ones(2, 4), T.tensor([1 + 2j, -3j]), rounding_mode='floor')", "T.atan2(T.ones(2, 4, dtype=T.complex64), T.ones(3))",
    "T.maximum(T.ones(2, 4, dtype=T.complex64), T.ones(3))",
    # arange's and eye's overloads: no None, no bool, no float where an int belongs
    "T.arange(5, None)", "T.arange(5, step=2)", "T.arange(end=5)", "T.arange(start=1, end=5, step=2)", "T.eye(2, None)",
    "T.eye(None)", "T.eye(T.tensor(2))", "T.eye(T.tensor(2.))", "T.eye(2, -1)", "T.eye(2, m=True)", "T.eye(2.5)",
    # F.embedding checks as PyTorch's does: torch.embedding(weight, indices)'s parser, its Python code's AttributeErrors
    "T.nn.functional.embedding(T.tensor([[3, -1]]), T.zeros(2, 0))", "T.nn.functional.embedding(T.tensor([[0, 1]]), T.zeros(2, 0))",
    "T.nn.functional.embedding(T.tensor([0, 5]), T.zeros(2, 0), max_norm=1.)",
    "T.nn.functional.embedding(T.tensor([0, 1]), T.ones(2, 2), max_norm=1, norm_type=None)",
    "T.nn.functional.embedding(None, T.ones(2, 2), padding_idx=0)", "T.nn.functional.embedding(T.tensor([0]), None, padding_idx=1)",
    "T.nn.functional.embedding(T.tensor([0, 1]), T.ones(2, 2), max_norm=True)",
    # linear/conv/pad's parsers (non-tensors leaked AttributeErrors, a float pad was truncated)
    "T.nn.functional.linear(T.ones(2, 2), None)", "T.nn.functional.linear(T.ones(2, 2), T.ones(2, 2), 3)",
    "T.nn.functional.conv1d(None, T.ones(1, 1, 2))", "T.nn.functional.conv2d(T.ones(1, 1, 4, 4), None)",
    "T.nn.functional.conv1d(T.ones(1, 1, 4), T.ones(1, 1, 2), 3)", "T.nn.functional.pad(T.ones(2), 3)",
    "T.nn.functional.pad(T.ones(2), (1.5, 1))", "T.nn.functional.pad(T.ones(2), (1, 1.5))",
    "T.nn.functional.pad(T.ones(2), [True, 1])", "T.nn.functional.pad(T.ones(2), T.tensor([1, 1]))",
    "T.nn.functional.pad(T.ones(1, 2), '33', mode='reflect')",
    # full/full_like/new_full/fill_: c10's checked conversion (C++ type names, float overflow), parser texts
    "T.full((2,), 3j)", "T.full((2,), 1e39)", "T.full((2,), -70000, dtype=T.float16)", "T.full((2,), 10**19, dtype=T.float16)",
    "T.full((2,), 1e39, dtype=T.complex64)", "T.full((2,), math.inf, dtype=T.float16)", "T.full_like(T.ones(2), None)",
    "T.full_like(T.ones(2, dtype=T.bfloat16), 3j)", "T.full_like(T.ones(2, dtype=T.float16), 1e6)", "T.full_like(None, 1)",
    "T.ones(2).new_full((2,), None)", "T.ones(2).new_full(2, 1.)", "T.ones(2, dtype=T.int32).new_full((2,), 3j)",
    "T.zeros(2).fill_(1e39)", "T.zeros(2, dtype=T.int32).fill_(1e10)", "T.zeros(2, dtype=T.uint8).fill_(-1)",
    "T.zeros(2, dtype=T.uint8).fill_(300)", "T.zeros(2, dtype=T.int64).fill_(math.nan)", "T.zeros(2).fill_(3j)",
    "T.zeros(2, dtype=T.int8).fill_(-2.7)", "T.zeros(2).fill_(None)", "T.zeros(2).fill_('a')", "T.zeros(2).fill_(-2**63 - 1)",
    "T.nn.functional.pad(T.ones(2), (1, 1), value=1e39)",
    "T.full((1,), 1e6, dtype=T.float16)", "T.zeros(1, dtype=T.bfloat16).fill_(1e39)", "T.zeros(1).fill_(1e39)",
    # integer linspace: ends converted to the type, a double step, both halves as PyTorch's kernel computes them
    "T.linspace(-20, 4, 10, dtype=T.int64)", "T.linspace(-1, 3, 3, dtype=T.uint8)", "T.linspace(211, 217, 1, dtype=T.int8)",
    "T.linspace(1.5, 2, 1, dtype=T.int64)", "T.linspace(1e39, 0, 1)", "T.linspace(70000, 0, 1, dtype=T.float16)",
    # lstsq's gelsd refuses inf/NaN (PyTorch's internal assert, not NumPy's ValueError)
    "T.linalg.lstsq(T.tensor([[1., math.inf], [0., 1.]]), T.ones(2, 1), driver='gelsd')",
    # 2-d pooling in PyTorch's order: argument lengths, C++ int range, divisor, size(-3) (a dim-range
    # IndexError below 3-D), per dim stride/pad, window signs, the input's sizes, the kernel's dtypes
    "T.nn.functional.avg_pool2d(T.ones(()), 1)", "T.nn.functional.avg_pool2d(T.ones(2, 4), 3, 1, 2)",
    "T.nn.functional.avg_pool2d(T.ones(4), 2**40)", "T.nn.functional.avg_pool2d(T.ones(4), 1, divisor_override=0)",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 4), 1, 0, divisor_override=0)",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 1, 1, 4), 1, 0)", "T.nn.functional.avg_pool2d(T.ones(1, 1, 1, 1, 4), 1, -1)",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 1, 1, 4), 1)", "T.nn.functional.avg_pool2d(T.ones(0, 1, 4), 5)",
    "T.nn.functional.avg_pool2d(T.ones(1, 0, 1, 4), 1)", "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 0), 1)",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 1, 4), -1)", "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), 1, (1, 0), (-1, 0))",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), (1, 3), (1, 0), (0, 2))",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), (1, 2, 3))", "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), 1, (1, 2, 3))",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), 1, 1, ())", "T.nn.functional.avg_pool2d(T.ones(1, 1, 1, 1, dtype=T.bool), 2)",
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4, dtype=T.int8), 2)", "T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4, dtype=T.int64), 2)",
    "T.nn.functional.max_pool2d(T.ones(2, 4), 2**40)", "T.nn.functional.max_pool2d(T.ones(0, 1, 4), 1)",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 1, 1, 0, (1, 2, 3))", "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 3, 1, 2, 2)",
    # cross_entropy/nll_loss in PyTorch's order: input rank, batch sizes, (N, d1, ...) target size, target rank,
    # target dtype, 1-d target size, weight classes, spatial size, kernel dtypes; same sizes: class probabilities
    "T.nn.functional.cross_entropy(T.zeros(2, 0), T.tensor([[0, 5], [1, -1]]))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.float64), T.zeros(0))",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.ones(3))",
    "T.nn.functional.cross_entropy(T.zeros(2, 0), T.tensor(2.5), ignore_index=1)",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.tensor([True, False, True]), ignore_index=7)",
    "T.nn.functional.nll_loss(T.zeros(2, 0), T.tensor([math.nan, 1., -math.inf, math.inf]))",
    "T.nn.functional.nll_loss(T.tensor([[0, 5], [1, -1]]), T.tensor([True, False, True]))",
    "T.nn.functional.nll_loss(T.arange(6).reshape(2, 3), T.tensor([True, False, True]))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.float16), T.tensor([[0, 5], [1, -1]]))",
    "T.nn.functional.nll_loss(T.arange(6.).reshape(2, 3), T.tensor([True, False, True]))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int32))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.bool))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, 1, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, 1))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3, 1))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3, 1, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(()))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones((), dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(0))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(()))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(2))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(2, 1))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(1, 1, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(1, 1))",
    "T.nn.functional.nll_loss(T.ones(()), T.ones(()))",
    "T.nn.functional.nll_loss(T.ones(()), T.ones((), dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(()), T.ones(2))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 5, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 5))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(3, 4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 4, 1))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(()))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4, 5))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4, 6, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5, 2), T.ones(2, 4, 5))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2), weight=T.ones(3))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3), weight=T.ones(3))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int64), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2), reduction='none')",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2), reduction='sum')",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3), reduction='none')",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2), ignore_index=1)",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, 2), ignore_index=1)",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, 2, dtype=T.int64), ignore_index=1)",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.tensor([0, 5]))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.int64), T.tensor([0, 2]))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, dtype=T.int32))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, dtype=T.bool))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 1))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 1, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3, 1))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 4))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3, 3))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(()))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones((), dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(3), T.ones(()))",
    "T.nn.functional.cross_entropy(T.ones(3), T.ones(1))",
    "T.nn.functional.cross_entropy(T.ones(3), T.ones(2))",
    "T.nn.functional.cross_entropy(T.ones(3), T.ones(2, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(3), T.ones(1, 1))",
    "T.nn.functional.cross_entropy(T.ones(()), T.ones(()))",
    "T.nn.functional.cross_entropy(T.ones(()), T.ones((), dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, 4), T.ones(2, 4))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, 4), T.ones(3, 4))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, 4), T.ones(2, 5, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2), label_smoothing=0.1)",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3), label_smoothing=0.1)",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 1), label_smoothing=0.1)",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, dtype=T.int32), label_smoothing=0.1)",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2), weight=T.ones(3))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3), weight=T.ones(4))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2), reduction='none')",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3), reduction='sum')",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2), ignore_index=0)",
    "T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.int64), T.ones(2))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.int64), T.ones(2, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.int64), T.ones(3, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 0), T.ones(2, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 0), T.ones(2))",
    "T.nn.functional.cross_entropy(T.ones(0, 3), T.ones(0))",
    "T.nn.functional.nll_loss(T.ones(0, 3), T.ones(0))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.int64), T.ones(2))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.int64), T.ones(2, dtype=T.int64), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2), weight=T.ones(3, dtype=T.float64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int64), weight=T.ones(3, dtype=T.float64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int64), weight=T.ones(3, 1))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int64), weight=T.ones(1, 3))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(2), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(2, dtype=T.int64), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(3), T.ones(2, 2), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5, dtype=T.int64), T.ones(2, 4, 5))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5, dtype=T.int64), T.ones(2, 4, 5, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4, 5, dtype=T.int64), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4, 5), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4, 6), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4, 5), T.ones(2, 4), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 4, dtype=T.int64), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 4), weight=T.ones(4))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 4, dtype=T.int32))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 4, dtype=T.uint8))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.complex64), T.ones(2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.bool), T.ones(2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 2, 2, dtype=T.bool), T.ones(2, 2, 2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 2, 2, dtype=T.int64), T.ones(2, 2, 2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 2, dtype=T.int64), T.ones(2, 2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int64), reduction='bad')",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(3), reduction='bad')",
    "T.nn.functional.nll_loss(T.ones(0), T.tensor(1))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3), ignore_index=1)",
    "T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.int64), T.ones(2, 3, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.int64), T.ones(2, 3))",
    "T.nn.functional.cross_entropy(T.ones(()), T.ones(2))",
    "T.nn.functional.cross_entropy(T.ones(()), T.ones(2, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(()), T.ones((), dtype=T.bool))",
    "T.nn.functional.cross_entropy(T.ones(3), T.ones(3, dtype=T.bool))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3, dtype=T.bool))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3), weight=T.ones(4))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, dtype=T.int64), weight=T.ones(4))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, dtype=T.int64), weight=T.ones(4), label_smoothing=0.2)",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3), label_smoothing=1.2)",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(3), label_smoothing=1.2)",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3, dtype=T.int64), label_smoothing=1.2)",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.uint8))",
    "T.nn.functional.nll_loss(T.ones(2, 3, 4), T.ones(2, 4, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.float64), T.tensor([0, 2]))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3, dtype=T.float16))",
    "T.nn.functional.cross_entropy(T.ones(2, 3, 4), T.ones(2, 4, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.float16), T.ones(2, dtype=T.int64))",
    "T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int64), ignore_index=1)",
    "T.nn.functional.nll_loss(T.ones(3), T.tensor(1))",
    "T.nn.functional.nll_loss(T.ones(0, 3), T.ones(0, dtype=T.int64))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3), label_smoothing=0.2)",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.tensor([0, 1]), weight=T.tensor([1., 2., 3.]), reduction='sum')",
    "T.nn.functional.cross_entropy(T.arange(3.), T.tensor([2]))",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.tensor([0, 2]), label_smoothing=math.nan)",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.tensor([0, 2]), label_smoothing=-0.5)",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.tensor([0, 2]), label_smoothing=1.0)",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.softmax(T.arange(6.).reshape(2, 3), 1), label_smoothing=math.nan)",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.softmax(T.arange(6.).reshape(2, 3), 1), label_smoothing=-0.5)",
    "T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.tensor([0, 2]), label_smoothing=0.25, ignore_index=2)",
    # max_pool1d without indices checks as a 1-d op (its own texts, in its order: the input's sizes,
    # argument lengths, kernel, stride, padding, dilation, the output length, the kernel's dtypes);
    # with indices, as max_pool2d (which refuses bool and complex)
    "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 0)", "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 2, -1)",
    "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 2, 1, -1)", "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 2, 1, 2)",
    "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 2, 1, 0, 0)", "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 3, 1, 0, 2)",
    "T.nn.functional.max_pool1d(T.ones(1, 4), 0, 1, -1)", "T.nn.functional.max_pool1d(T.ones(1, 4), 3, 1, 1, 0)",
    "T.nn.functional.max_pool1d(T.ones(4), (2, 2))", "T.nn.functional.max_pool1d(T.ones(0, 4), 2)",
    "T.nn.functional.max_pool1d(T.ones(1, 1, 0), 1)", "T.nn.functional.max_pool1d(T.ones(1, 0, 4), 2)",
    "T.nn.functional.max_pool1d(T.ones(0, 1, 4), 5)", "T.nn.functional.max_pool1d(T.ones(1, 4), (2, 2), (1, 1))",
    "T.nn.functional.max_pool1d(T.ones(1, 4), 2, (1, 1), (1, 1))", "T.nn.functional.max_pool1d(T.ones(1, 4), 2, 1, ())",
    "T.nn.functional.max_pool1d(T.ones(1, 4), 2, 1, 0, (1, 1))", "T.nn.functional.max_pool1d(T.ones(1, 4), 2**31)",
    "T.nn.functional.max_pool1d(T.ones(1, 4), 2, 1, 2**40)", "T.nn.functional.max_pool1d(T.ones(1, 4, requires_grad=True), 0)",
    "T.nn.functional.max_pool1d(T.ones(1, 4, dtype=T.int64), 5)", "T.nn.functional.max_pool1d(T.ones(1, 4, dtype=T.int64), 2)",
    "T.nn.functional.max_pool1d(T.ones(1, 4, dtype=T.bool), 2)", "T.nn.functional.max_pool1d(T.ones(1, 4, dtype=T.uint8), 2)",
    "T.nn.functional.max_pool1d(T.ones(1, 4, dtype=T.float16), 2)", "T.nn.functional.max_pool1d(T.ones(1, 4, dtype=T.int64), 2, return_indices=True)",
    "T.nn.functional.max_pool1d(T.ones(1, 4, dtype=T.bool), 2, return_indices=True)", "T.nn.functional.max_pool1d(T.ones(1, 1, 4), 5, return_indices=True)",
    "T.nn.functional.max_pool1d(T.tensor([[1., math.nan, 3., 2.]]), 3, 1, 1)", "T.nn.MaxPool1d(2, 0)(T.ones(1, 4))",
    "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4, dtype=T.bool), 2)", "T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4, dtype=T.complex64), 2)",
    "T.nn.functional.avg_pool1d(T.ones(1, 4), (2, 2))", "T.nn.functional.avg_pool1d(T.ones(1, 4), 2, (1, 1))",
    "T.nn.functional.avg_pool1d(T.ones(1, 4), 2, 1, ())",
    # adaptive pooling: F's Python step (_list_with_default: ValueError, len()'s TypeError), the parser,
    # the output size's length and signs, the input's rank and sizes; an empty output skips the kernel
    "T.nn.functional.adaptive_avg_pool2d(T.ones(4), 2)", "T.nn.functional.adaptive_avg_pool2d(T.ones(()), 1)",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(4), -1)", "T.nn.functional.adaptive_avg_pool2d(T.ones(4), (2, 2))",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 2, 4), (2, 2, 2))", "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4), (2, 2, 2))",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4), (None,))", "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4), (None, -1))",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4), (2, 2.5))", "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4), True)",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4), -1.5)", "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 4, 4), None)",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 0, 2, 4), 2)", "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 0, 2, 4), -1)",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 2, 4, dtype=T.int64), 0)", "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4, dtype=T.int64), -1)",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 1, 2, 4), 1)", "T.nn.functional.adaptive_avg_pool2d(None, 1)",
    "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 2, 4), 10**12)", "T.nn.AdaptiveAvgPool2d(-1)(T.ones(1, 4, 4))",
    "T.nn.functional.adaptive_avg_pool1d(T.ones(4), 2)", "T.nn.functional.adaptive_avg_pool1d(T.ones(1, 4), -1)",
    "T.nn.functional.adaptive_avg_pool1d(T.ones(1, 4), (2, 2))", "T.nn.functional.adaptive_avg_pool1d(T.ones(1, 4), None)",
    "T.nn.functional.adaptive_avg_pool1d(None, 1)", "T.nn.functional.adaptive_avg_pool1d(T.ones(1, 0), 2)",
    "T.nn.functional.adaptive_avg_pool3d(T.ones(1, 4, 4, 4), -1)", "T.nn.functional.adaptive_avg_pool3d(T.ones(1, 4, 4, 4), (2, 2))",
    "T.nn.functional.adaptive_avg_pool3d(T.ones(1, 4, 4, 4), 2.5)", "T.nn.functional.adaptive_avg_pool3d(T.ones(1, 0, 4, 4), 2)",
    "T.nn.functional.adaptive_max_pool1d(T.ones(4), 2)", "T.nn.functional.adaptive_max_pool1d(T.ones(1, 4), -1)",
    "T.nn.functional.adaptive_max_pool1d(T.ones(0, 4), -1)", "T.nn.functional.adaptive_max_pool1d(T.ones(1, 0), 2)",
    "T.nn.functional.adaptive_max_pool1d(T.ones(1, 4), (2, 2))", "T.nn.functional.adaptive_max_pool1d(T.ones(1, 4), 2.5)",
    "T.nn.functional.adaptive_max_pool1d(T.ones(1, 4, dtype=T.int64), -1)", "T.nn.functional.adaptive_max_pool1d(None, 2)",
    "T.nn.functional.adaptive_max_pool1d(T.ones(1, 4), 0)", "T.nn.functional.adaptive_max_pool2d(T.ones(4), 2, return_indices=True)",
    "T.nn.functional.adaptive_max_pool2d(T.ones(1, 4, 4), (2, 2, 2))", "T.nn.functional.adaptive_max_pool2d(T.ones(1, 4, 4), (2,))",
    "T.nn.functional.adaptive_max_pool2d(T.ones(1, 4, 4), (-1, 2))", "T.nn.functional.adaptive_max_pool2d(T.ones(1, 0, 4), -1)",
    "T.nn.functional.adaptive_max_pool2d(T.ones(1, 4, 0, dtype=T.int64), 2)", "T.nn.functional.adaptive_max_pool2d(T.ones(1, 4, 4), (0, 2))",
    "T.nn.functional.adaptive_max_pool2d(None, 2)", "T.nn.functional.adaptive_max_pool3d(T.ones(1, 4, 4, 4), -1)",
    "T.nn.functional.adaptive_max_pool3d(T.ones(1, 4, 4, 4), None)", "T.nn.functional.adaptive_max_pool3d(T.ones(1, 4, 4, 4), 0)",
    # bitwise ops, gcd/lcm/ldexp: the broadcast shape before the kernel's dtype; in place, the shape, then
    # the cast to self's type; shifts refuse bool; gcd/lcm/ldexp take two tensors
    "T.bitwise_and(T.ones(2), T.ones(3))", "T.bitwise_or(T.ones(2), T.ones(3))", "T.bitwise_xor(T.ones(2), T.ones(3))",
    "T.bitwise_left_shift(T.ones(2), T.ones(3))", "T.bitwise_right_shift(T.ones(2), T.ones(3))", "T.ones(2) & T.ones(3)",
    "T.ones(2) >> T.ones(3)", "T.bitwise_left_shift(T.ones(2, dtype=T.uint16), T.ones(3, dtype=T.uint16))",
    "T.bitwise_and(T.ones(2, dtype=T.uint32), T.ones(3, dtype=T.uint32))", "T.arange(2).bitwise_and_(T.ones(2))",
    "T.arange(2).bitwise_or_(1.5)", "T.ones(2).bitwise_and_(T.ones(3))", "T.tensor([True]).bitwise_and_(1)",
    "T.tensor([True, False]) << T.tensor([True, True])", "T.ones(2).__ilshift__(T.ones(3))", "T.arange(3).__irshift__(T.ones(3))",
    "1 << T.arange(2)", "1 >> T.arange(2)", "T.gcd(T.ones(2), T.ones(3))", "T.lcm(T.ones(2), T.ones(3))",
    "T.gcd(T.ones(2, dtype=T.uint16), T.ones(2, dtype=T.uint16))", "T.arange(2).gcd_(T.ones(2))",
    "T.gcd(T.tensor([-4, 6]), T.tensor([6, 0]))", "T.ldexp(T.ones(2), T.ones(3))", "T.ones(2).ldexp_(T.ones(3))",
    # float64 linspace with an infinite or NaN end: the fused multiply-adds' own inf/NaN; bool (and
    # uint16) linspace/logspace with 0 or 1 steps: no kernel, no dtype error
    "T.linspace(-math.inf, 0, 3, dtype=T.float64)", "T.linspace(0, math.inf, 4, dtype=T.float64)",
    "T.linspace(0, math.inf, 7, dtype=T.float64)", "T.linspace(-math.inf, math.inf, 5, dtype=T.float64)",
    "T.linspace(math.nan, 0, 3, dtype=T.float64)", "T.linspace(-1.7e308, 1.7e308, 4, dtype=T.float64)",
    "T.linspace(1e300, 1.5e300, 5, dtype=T.float64)", "T.linspace(0, math.inf, 3, dtype=T.complex128)",
    "T.logspace(0, math.inf, 4, dtype=T.float64)", "T.linspace(0, 1, 0, dtype=T.bool)", "T.linspace(0, 1, 1, dtype=T.bool)",
    "T.linspace(math.nan, 0, 1, dtype=T.bool)", "T.linspace(0, 1, 5, dtype=T.bool)", "T.linspace(0, 1, 1, dtype=T.uint16)",
    "T.logspace(0, 1, 0, dtype=T.bool)", "T.logspace(-math.inf, 1, 1, dtype=T.bool)", "T.logspace(0, 1, 2, dtype=T.bool)",
    "T.logspace(0, 1, 2, dtype=T.uint16)",
    # 3-d pooling in PyTorch's order: argument lengths, int range, rank, divisor, per dim (T, H, W) stride/pad,
    # window signs, non-batch sizes, (average) kernel within the input, pad, output size, the kernel's dtypes
    "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), 0)", "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), -1)",
    "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), (5, 2, 2))", "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), 2, -1)",
    "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), 3, 1, 2, 2)", "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), 2, 1, 0, -1)",
    "T.nn.functional.max_pool3d(T.ones(4, 4), 0)", "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), (2, 2))",
    "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), 2, 1, 0, (1, 1))", "T.nn.functional.max_pool3d(T.ones(1, 0, 4, 4, 4), 2)",
    "T.nn.functional.max_pool3d(T.ones(0, 4, 4, 4), 2)", "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4), 2, 2**31)",
    "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4, dtype=T.uint8), 2, 1, 1)", "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4, dtype=T.bool), 2)",
    "T.nn.functional.max_pool3d(T.ones(1, 1, 4, 4, 4, dtype=T.uint16), 2)", "T.nn.functional.max_pool3d(T.arange(-32, 32).reshape(1, 4, 4, 4), 3, 2, 1)",
    "T.nn.functional.max_pool3d(T.arange(64.).reshape(1, 4, 4, 4), 2, 3, 1, 1, True, return_indices=True)",
    "T.nn.functional.max_pool3d(None, 2)", "T.max_pool3d(T.ones(1, 1, 4, 4, 4), 2, 0)", "T.nn.MaxPool3d(0)(T.ones(1, 4, 4, 4))",
    "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4), 0)", "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4), 5)",
    "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4), 3, 1, 2)", "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4), 2, (2, 2))",
    "T.nn.functional.avg_pool3d(T.ones(1, 0, 4, 4, 4), 2)", "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4), 2, divisor_override=0)",
    "T.nn.functional.avg_pool3d(T.ones(4, 4), 2, divisor_override=0)", "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4), 0, divisor_override=0)",
    "T.nn.functional.avg_pool3d(T.arange(-32, 32).reshape(1, 1, 4, 4, 4), 3, 1, 1)",
    "T.nn.functional.avg_pool3d(T.arange(-32, 32).reshape(1, 4, 4, 4), 2, divisor_override=3)",
    "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4, dtype=T.float16), 2)", "T.nn.functional.avg_pool3d(T.ones(1, 1, 4, 4, 4, dtype=T.uint8), 2)",
    "T.nn.functional.avg_pool3d(None, 2)", "T.nn.AvgPool3d(5)(T.ones(1, 4, 4, 4))",
    # adaptive max pooling: the last NaN of a window wins (PyTorch's loop), an empty batch, grad_fn names
    "T.nn.functional.adaptive_max_pool2d(T.tensor([[[1., math.nan, 2.], [math.nan, 3., 0.], [1., 2., 3.]]]), 2, return_indices=True)",
    "T.nn.functional.adaptive_max_pool1d(T.tensor([[1., math.nan, math.nan, 2.]]), 3, return_indices=True)",
    "T.nn.functional.adaptive_max_pool3d(T.tensor([[[[1., math.nan], [math.nan, 2.]]]]), 1, return_indices=True)",
    "T.nn.functional.adaptive_max_pool2d(T.arange(-30., 30).reshape(3, 4, 5).sin(), (None, 3), return_indices=True)",
    "T.nn.functional.adaptive_max_pool1d(T.arange(-30., 30).reshape(3, 20).cos(), 7, return_indices=True)",
    "T.nn.functional.adaptive_max_pool1d(T.ones(0, 3, 4), 2, return_indices=True)",
    "T.nn.functional.adaptive_max_pool2d(T.ones(0, 3, 4, 4), 2, return_indices=True)",
    "T.nn.functional.adaptive_max_pool2d(T.ones(1, 4, 4, requires_grad=True), 2).grad_fn.name()",
    "T.nn.functional.adaptive_max_pool1d(T.ones(1, 4, requires_grad=True), 2).grad_fn.name()",
    # max_unpool's checks (indices dtype, rank, shapes, sizes, the index range: the last bad one), 1-d as 2-d;
    # fractional max pooling's empty-window and empty-output answers, its non-batch size check
    "T.nn.functional.max_unpool1d(T.ones(1, 2), T.tensor([[0, 5]]), 2)", "T.nn.functional.max_unpool1d(T.ones(1, 2), T.tensor([[0, -1]]), 2)",
    "T.nn.functional.max_unpool2d(T.ones(1, 2, 2), T.tensor([[[0, 1], [2, 30]]]), 2)",
    "T.nn.functional.max_unpool2d(T.ones(1, 2, 2), T.tensor([[0, 1], [2, 3]]), 2)",
    "T.nn.functional.max_unpool2d(T.ones(1, 2, 2), T.tensor([[[0., 1], [2, 3]]]), 2)",
    "T.nn.functional.max_unpool2d(T.ones(2, 2), T.tensor([[0, 1], [2, 3]]), 2)",
    "T.nn.functional.max_unpool3d(T.ones(1, 1, 2, 2), T.tensor([[[[0, 1], [2, 99]]]]), 2)",
    "T.nn.functional.max_unpool3d(T.ones(1, 1, 2, 2), T.tensor([[[[0, 1], [2, 3]]]], dtype=T.int32), 2)",
    "T.nn.functional.max_unpool3d(T.ones(1, 2, 2), T.tensor([[[0, 1], [2, 3]]]), 2)",
    "T.nn.functional.max_unpool3d(T.ones(1, 0, 2, 2), T.ones(1, 0, 2, 2, dtype=T.int64), 2)",
    "T.nn.functional.max_unpool2d(T.ones(0, 1, 2, 2), T.ones(0, 1, 2, 2, dtype=T.int64), 2)",
    "T.nn.functional.max_unpool1d(T.ones(1, 1, 1, 2), T.tensor([[[[0, 3]]]]), 2)",
    "T.nn.functional.max_unpool2d(T.arange(1., 5).reshape(1, 2, 2), T.tensor([[[0, 3], [-9, 24]]]), 2)",
    "T.nn.functional.max_unpool2d(T.arange(1., 5).reshape(1, 2, 2), T.tensor([[[0, 3], [9, 24]]]), 2, output_size=(5, 5))",
    "T.nn.functional.max_unpool1d(T.ones(1, 2, requires_grad=True), T.tensor([[0, 3]]), 2).grad_fn.name()",
    "T.nn.functional.fractional_max_pool2d(T.ones(2, 3, 5, 6), (0, 2), output_size=(2, 3), return_indices=True, _random_samples=T.full((2, 3, 2), 0.7))",
    "T.nn.functional.fractional_max_pool2d(T.ones(1, 4, 4), -1, output_size=2, return_indices=True, _random_samples=T.full((1, 1, 2), 0.3))",
    "T.nn.functional.fractional_max_pool2d(T.ones(1, 4, 4), 2, output_size=(0, 2), return_indices=True, _random_samples=T.full((1, 1, 2), 0.3))",
    "T.nn.functional.fractional_max_pool3d(T.ones(1, 4, 4, 4), (0, 2, 2), output_size=2, return_indices=True, _random_samples=T.full((1, 1, 3), 0.3))",
    "T.nn.functional.fractional_max_pool2d(T.ones(1, 0, 4), 9, output_size=2)", "T.nn.functional.fractional_max_pool3d(T.ones(1, 0, 4, 4), 2, output_size=2)",
    "T.nn.functional.fractional_max_pool2d(T.ones(0, 1, 4, 4), 2, output_size=2)",
    # adaptive pooling's output-size arithmetic (numel, strides of an empty output, storage bytes) before any work
    "T.nn.functional.adaptive_avg_pool2d(T.zeros(0, 1, 4, 4), (2**40, 2**40))", "T.nn.functional.adaptive_avg_pool2d(T.zeros(1, 1, 4, 4), (2**40, 2**40))",
    "T.nn.functional.adaptive_avg_pool2d(T.zeros(1, 1, 4, 4), (2**31, 2**31))", "T.nn.functional.adaptive_avg_pool2d(T.zeros(0, 4, 4), (2**40, 2**40))",
    "T.nn.functional.adaptive_avg_pool1d(T.zeros(1, 4), 2**62)", "T.nn.functional.adaptive_max_pool2d(T.arange(32.).reshape(1, 2, 4, 4), 10**12)",
    "T.nn.functional.adaptive_max_pool2d(T.arange(16).reshape(1, 1, 4, 4), 10**12)", "T.nn.functional.adaptive_max_pool2d(T.ones(0, 1, 4, 4), (2**40, 2**40))",
    "T.nn.functional.adaptive_max_pool1d(T.ones(1, 4), 2**62)", "T.nn.functional.adaptive_max_pool3d(T.ones(1, 4, 4, 4), 2**30)",
    "T.nn.functional.adaptive_avg_pool3d(T.ones(1, 4, 4, 4), 2**30)",
    # complex to bool is x != 0 (the imaginary part counts), not the real part's truth
    "T.tensor([1 + 2j, -3j, 0j]).to(True)", "T.tensor([1 + 2j, -3j, 0j], dtype=T.complex128).to(T.bool)",
    "T.tensor([math.nan * 1j, 0j]).bool()", "T.tensor([1 + 2j, -3j, 0j]).to(T.uint8)",
    "T.special.zeta(T.ones(2), T.ones(3))", "T.special.xlog1py(T.ones(2, dtype=T.complex64), T.ones(3))",
    "T.special.zeta(T.ones(2, 1), T.ones(3))",
    # copysign/xlogy/igamma: PyTorch's size error before its kernel's dtype error
    "T.copysign(T.ones(2, dtype=T.complex64), T.ones(3))", "T.copysign(T.ones(2), T.ones(3))",
    "T.xlogy(T.ones(2, dtype=T.complex64), T.ones(3))", "T.igamma(T.ones(2, dtype=T.int64), T.ones(3))",
    "T.igammac(T.ones(2, dtype=T.complex64), T.ones(3))", "T.special.xlogy(T.ones(2), T.ones(3, dtype=T.complex64))",
    "T.logaddexp2(T.ones(2, dtype=T.complex64), T.ones(3))", "T.logaddexp2(T.arange(2), T.ones(2))",
    "T.logaddexp2(T.arange(2), T.arange(2))", "T.logaddexp2(T.tensor([True, False]), T.ones(2, dtype=T.float64))",
    "T.logaddexp2(T.ones(2, dtype=T.bfloat16), T.ones(2, dtype=T.float16))",
]

# PyTorch's parser counts a method's arguments after self: ``x.hypot(2)``'s 'other' is position 1.
PARSER_TEXTS = [
    "T.ones(2).hypot(2)", "T.hypot(T.ones(2), 2)", "T.ones(2).atan2(2)", "T.ones(2).hypot_(2)", "T.arange(2).gcd(2.5)",
    "T.gcd(T.arange(2), 2.5)", "T.arange(2).lcm_(2)", "T.ones(2).ldexp(2)", "T.ldexp(T.ones(2), 2)",
    "T.nn.functional.adaptive_avg_pool1d(T.ones(1, 4), (None,))", "T.nn.functional.adaptive_avg_pool2d(T.ones(1, 1, 2, 4), (2, '2'))",
    # two tensors only (no Scalar overload): a number is the parser's TypeError, not an answer
    "T.maximum(T.ones(2), 2)", "T.minimum(2, T.ones(2))", "T.ones(2).fmax(2)", "T.ones(2).fmin(None)", "T.ones(2).maximum('a')",
    "T.nextafter(T.ones(2), 2)", "T.ones(2).nextafter_(2)", "T.heaviside(T.ones(2), 2)", "T.ones(2).heaviside(2)",
    "T.ones(2).heaviside_(2)", "T.logical_and(T.ones(2), 2)", "T.ones(2).logical_or(2.5j)", "T.ones(2).logical_xor_(2)",
    "T.logaddexp2(T.ones(2), 2)", "T.ones(2).logaddexp2(2)",
]


@pytest.mark.parametrize("expr", PARSER_TEXTS)
def test_parser_type_errors_match_texts(torch_oracle, expr):
    import taimatsu

    (tk, tr), (mk, mr) = _run(torch_oracle, expr), _run(taimatsu, expr)
    assert tk == mk == "raised" and type(tr) is type(mr) is TypeError and str(mr) == str(tr)


@pytest.mark.parametrize("expr", FIXED)
def test_fixed_calls_match_messages(torch_oracle, expr):
    import taimatsu

    assert compare(torch_oracle, taimatsu, expr, False) is None
    (tk, tr), (_, mr) = _run(torch_oracle, expr), _run(taimatsu, expr)
    if tk == "raised" and not isinstance(tr, TypeError):  # TypeError texts: PyTorch's parser
        assert str(mr) == str(tr)


@pytest.mark.parametrize("m", ["[[1., math.nan], [0., 1.]]", "[[math.inf, 1.], [1., 1.]]"])
def test_eigvals_of_non_finite_input_raises_eigs_error(torch_oracle, m):
    """A known deviation: without a gradient PyTorch's eigvals hands NaN/inf to LAPACK (an
    undefined answer, or a crash); taimatsu raises the error PyTorch's eig (and its eigvals with
    a gradient) raise for the same matrix, never NumPy's LinAlgError."""
    import taimatsu

    (tk, tr), (mk, mr) = _run(torch_oracle, f"T.linalg.eig(T.tensor({m}))"), _run(
        taimatsu, f"T.linalg.eigvals(T.tensor({m}))"
    )
    assert tk == mk == "raised" and type(mr) is RuntimeError and str(mr) == str(tr)


@pytest.mark.parametrize("expr,random_values", list(_params()))
def test_fuzz_oracle(torch_oracle, expr, random_values):
    import taimatsu

    diff = compare(torch_oracle, taimatsu, expr, random_values)
    assert diff is None, diff


if __name__ == "__main__":
    import torch

    import taimatsu

    diffs = [d for e, r in CASES if (d := compare(torch, taimatsu, e, r))]
    print("\n".join(diffs))
    print(f"{len(diffs)} of {len(CASES)} calls differ")
