"""Top-level functions added to complete torch's namespace (taimatsu/ops/introspection.py, calculus.py,
ops/reduction/histogram.py, windows, global flags, the ``*_copy`` family, special functions) against PyTorch.

Each snippet runs under both libraries through ``oracle_expr.same`` (values, dtypes, reprs,
error types and messages); differentiable ones also pass float64 gradcheck.
"""

from __future__ import annotations

import pytest
from oracle_expr import same

import taimatsu
from taimatsu.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

A = "a = T.tensor([[1, 2], [3, 4]]); "
MISC = [
    A + "T.isin(a, T.tensor([2, 3]))", A + "T.isin(a, 2)", A + "T.isin(2, a)", A + "T.isin(a, T.tensor([2., 3.5]))",
    A + "T.isin(a.float(), T.tensor([2, 3]), invert=True)", A + "T.isin(a, T.tensor([2+0j]))",
    A + "T.isin(a, T.tensor([True]))", "T.isin(2, 3)", "T.isin(T.tensor([float('nan')]), T.tensor([float('nan')]))",
    A + "T.isin(a.float().requires_grad_(), T.tensor([2.]))", A + "T.isin(a.bool(), a)", A + "T.isin(a, 2.5)",
    A + "T.isin(a, 2.0)", A + "T.isin(a.to(T.uint8), T.tensor([258]))", A + "T.isin(a.to(T.uint8), 258)",
    A + "T.isin(a.half(), T.tensor([2.]))", A + "T.isin(a.bfloat16(), T.tensor([2.]))", A + "T.isin(True, a)",
    A + "T.isin(2.0, a)", A + "T.isin(1j, a)", A + "T.isin(a, T.tensor([[2], [9]]))",
    "T.isin(T.tensor(2), T.tensor([[2], [9]]))", "T.isin(T.tensor([]), T.tensor([1.]))",
    A + "T.isin(a, T.tensor([], dtype=T.long))", A + "T.isin(a, a.double()).dtype",
    A + "T.isin(a, T.tensor([4, 1]), assume_unique=True)", A + "T.isin(elements=a, test_element=2, invert=True)",
    "T.unravel_index(T.tensor([4, 1]), (2, 3))", "T.unravel_index(T.tensor(4), (2, 3))",
    "T.unravel_index(T.tensor([6]), (2, 3))", "T.unravel_index(T.tensor([-1]), (2, 3))",
    "T.unravel_index(T.tensor([1.]), (2, 3))", "T.unravel_index(T.tensor([1]), (2, -3))",
    "T.unravel_index(T.tensor([1]), ())", "T.unravel_index(T.tensor([1], dtype=T.int32), 3)",
    "T.unravel_index(T.tensor([True]), 3)", "T.unravel_index(T.tensor([[1234], [5678]]), (10, 10, 10, 10))",
    "T.unravel_index(T.tensor([1]), (2, 3.0))", "T.unravel_index(T.tensor([1]), 'ab')",
    A + "T.is_same_size(a, a.T)", A + "T.is_same_size(a, T.ones(3))", A + "T.is_signed(a)",
    A + "T.is_signed(a.bool())", A + "T.is_signed(a.to(T.uint8))", A + "T.is_inference(a)",
    "with T.inference_mode(): x = T.ones(2)\nT.is_inference(x)", "T.is_inference(3)",
    A + "T.typename(a)", A + "T.typename(a.float())", "T.typename(3)", "T.typename(T.nn.Linear(1, 1))",
    "T.typename(T.nn.Parameter(T.ones(1)))", "T.typename(T.nn.Parameter)", "T.typename('x')",
    A + "T.resolve_conj(a)", A + "T.resolve_neg(a)", "T.is_conj(T.tensor([1j]))", "T.is_neg(T.tensor([1.]))",
    "T.is_conj(3)", "T.is_same_size(T.ones(2), 3)", "T.resolve_conj(T.tensor([1+2j])).is_conj()",
    "T.fill(T.ones(2, 3), 2)", "T.fill(T.ones(2, dtype=T.int32), 2.7)", "T.fill(T.ones(2, dtype=T.int32), T.tensor(2.7))",
    "T.fill(T.ones(2), T.ones(2))",
    ("x = T.ones(2, 3, requires_grad=True); v = T.tensor(2., requires_grad=True); r = T.fill(x, v); "
    "r.backward(T.ones(2, 3)); (r.grad_fn.name(), x.grad, v.grad)"),
    "x = T.ones(2, 3, requires_grad=True); r = T.fill(x, 5.); (r, len(r.grad_fn.next_functions))",
]  # fmt: skip

EXTRAS = [
    "x = T.ones(2); T.cond(T.tensor(True), lambda x: x + 1, lambda x: x - 1, (x,))",
    "x = T.ones(2); T.cond(False, lambda x: x + 1, lambda x: x - 1, [x])",
    "x = T.ones(2); T.cond(T.tensor([True, False]), lambda x: x + 1, lambda x: x - 1, (x,))",
    "x = T.ones(2); T.cond(True, lambda: x + 1, lambda: x - 1)", "x = T.ones(2); T.cond(1, lambda x: x + 1, lambda x: x - 1, (x,))",
    "T.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2), (T.tensor(0), T.ones(2)))",
    "T.while_loop(lambda i: i < 3, lambda i: (i + 1,), (T.tensor(0),))",
    A + "T.nonzero_static(a - 1, size=4)", A + "T.nonzero_static(a - 1, size=1, fill_value=-5)",
    A + "T.nonzero_static(a - 1, size=0)", A + "T.nonzero_static(a, size=-1)", "T.nonzero_static(T.tensor(3), size=2)",
    "T.nonzero_static(T.tensor([0., 2., 0., 1.]), size=3)",
    "T.empty_permuted((2, 3, 4), (2, 0, 1)).stride()", "T.empty_permuted((2, 3, 4), (2, 0))",
    "t = T.empty_permuted((2, 3, 4), (2, 0, 1), dtype=T.int32); (t.dtype, t.shape, t.is_contiguous())",
    "T.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad",
    "T.get_device(T.ones(1))", "T.get_device(3)", "T.newaxis",
    ("(T.sym_int(3.7), T.sym_int(-3.7), T.sym_float(3), T.sym_max(2, 5), T.sym_min(2., 5), T.sym_not(True), "
    "T.sym_sqrt(4), T.sym_ite(True, 1, 2), T.sym_sum([1, 2, 3]))"),
]  # fmt: skip

IR = "x = T.tensor([[1., 2], [3, 4], [5, 6]]); s = T.tensor([[10., 20], [30, 40], [50, 60], [70, 80]]); i = T.tensor([0, 2, 0, 1]); "
INDEX_REDUCE = [
    IR + f"T.index_reduce(x, 0, i, s, '{red}', include_self={inc})"
    for red in ("prod", "mean", "amax", "amin") for inc in (True, False)
] + [
    IR + "x.long().index_reduce(0, i, s.long(), 'mean')", IR + "x.index_reduce(0, i, s, 'sum')",
    IR + "x.index_reduce(0, i.int(), s, 'prod')", IR + "x.index_reduce(0, i.float(), s, 'prod')",
    IR + "x.index_reduce(0, i[:3], s, 'prod')", IR + "x.index_reduce(0, i.reshape(2, 2), s, 'prod')",
    IR + "x.index_reduce(0, T.tensor([0, 5, 0, 1]), s, 'prod')", IR + "x.index_reduce(0, i, s.double(), 'prod')",
    IR + "x.index_reduce(1, T.tensor([1, 1]), x * 3, 'amax')", IR + "x.index_reduce(-1, T.tensor([1, 0]), x * 3, 'amin')",
    IR + "x.index_reduce(0, i, s[:, :1], 'prod')", IR + "x.index_reduce_(0, i, s, 'amax'); x",
    IR + "a = x.requires_grad_(); b = s.requires_grad_(); r = a.index_reduce(0, i, b, 'prod'); "
    "r.backward(T.tensor([[1., -2], [3, 0.5], [2, 1]])); (r.grad_fn.name(), len(r.grad_fn.next_functions), a.grad, b.grad)",
    IR + "a = x.requires_grad_(); b = s.requires_grad_(); r = a.index_reduce(0, i, b, 'mean', include_self=False); "
    "r.backward(T.tensor([[1., -2], [3, 0.5], [2, 1]])); (a.grad, b.grad)",
]  # fmt: skip

CALCULUS = [
    ("y = T.arange(12.).reshape(3, 4).requires_grad_(); r = T.trapezoid(y, T.tensor([0., 1., 3., 7.])); "
    "(r.grad_fn.name(), len(r.grad_fn.next_functions))"),
    ("y = T.arange(12.).reshape(3, 4).requires_grad_(); r = T.trapezoid(y, dx=2); "
    "(r.grad_fn.name(), len(r.grad_fn.next_functions))"),
    "T.cumulative_trapezoid(T.arange(12.).reshape(3, 4).requires_grad_(), T.tensor([0., 1., 3., 7.])).grad_fn.name()",
    "T.cumulative_trapezoid(T.arange(12.).reshape(3, 4).requires_grad_()).grad_fn.name()",
    "T.gradient(T.arange(12.).reshape(3, 4).requires_grad_())[0].grad_fn.name()",
    'T.trapezoid(T.arange(12.).reshape(3,4))',
    'T.trapezoid(T.arange(12.).reshape(3,4), dx=2)',
    'T.trapezoid(T.arange(12.).reshape(3,4), T.tensor([0.,1.,3.,7.]))',
    'T.trapezoid(T.arange(12.).reshape(3,4), T.tensor([0.,1.,3.]), dim=0)',
    'T.trapezoid(T.arange(12.).reshape(3,4), T.tensor([0.,1.,3.,7.]).expand(3,4))',
    'T.trapezoid(T.arange(12.).reshape(3,4), T.tensor([0.,1.,3.]))',
    'T.trapezoid(T.arange(12.).reshape(3,4), T.tensor([0.,1.,3.,7.]), dx=2)',
    'T.trapezoid(T.arange(4))',
    'T.trapezoid(T.arange(4), T.arange(4))',
    'T.trapezoid(T.arange(4), dx=2)',
    'T.trapezoid(T.ones(3,0))',
    'T.trapezoid(T.ones(3,0), T.ones(0))',
    'T.trapezoid(T.tensor(3.))',
    'T.trapz(T.arange(12.).reshape(3,4), T.tensor([0.,1.,3.,7.]))',
    'T.trapz(T.arange(12.).reshape(3,4), dx=3)',
    'T.cumulative_trapezoid(T.arange(12.).reshape(3,4))',
    'T.cumulative_trapezoid(T.arange(12.).reshape(3,4), T.tensor([0.,1.,3.,7.]))',
    'T.cumulative_trapezoid(T.arange(12.).reshape(3,4), dx=2, dim=0)',
    'T.cumulative_trapezoid(T.arange(4))',
    'T.cumulative_trapezoid(T.ones(3,0))',
    'T.cumulative_trapezoid(T.ones(3,1))',
    'T.trapezoid(T.arange(12.).reshape(3,4), T.ones(2,2))',
    'T.cumulative_trapezoid(T.tensor(3.))',
    'T.trapezoid(T.arange(12.).reshape(3,4).double(), T.tensor([0.,1.,3.,7.]))',
    'T.trapezoid(T.arange(12.).reshape(3,4).half(), T.tensor([0.,1.,3.,7.])).dtype',
    'T.trapezoid(T.arange(4), T.tensor([0.,1.,3.,7.]))',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y)',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, spacing=2.)',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, spacing=[2.,3.])',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, spacing=(T.tensor([0.,1,3]),T.tensor([0.,2,3,7])))',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, spacing=(T.tensor([0.,1,3]),T.tensor([0.,2,3,7])), edge_order=2)',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, dim=1, edge_order=2)',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, dim=[1])',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, dim=1, spacing=[T.tensor([0.,2,3,7])])',
    'y=T.tensor([[1.,2,4,8],[10,20,40,80],[3,5,9,1]]); T.gradient(y, dim=1, spacing=2)',
    'T.gradient(T.tensor([1,2,4,8]))',
    'T.gradient(T.tensor([1,2,4,8]), spacing=2)',
    'T.gradient(T.ones(3,4), edge_order=3)',
    'T.gradient(T.tensor([1.,2]), edge_order=2)',
    'T.gradient(T.tensor([1.]), edge_order=1)',
    'T.gradient(T.ones(3,4), spacing=[2.])',
    'T.gradient(T.ones(3,4), spacing=[T.tensor([0.,1,3])])',
    'T.gradient(T.ones(3,4), dim=1, spacing=[T.tensor([[0.,1,3,4]])])',
    'T.gradient(T.tensor(1.))',
    'T.gradient(T.ones(3,4), dim=(0,0))',
    'T.gradient(T.ones(3,4), spacing=T.tensor(2.))',
    'T.gradient(T.ones(3,4), spacing=[T.tensor(2.), T.tensor(3.)])',
    'T.gradient(T.ones(3,4), dim=1, spacing=[2.,3.])',
    'T.gradient(T.ones(3,4), dim=5)',
    'T.gradient(T.ones(3,4), spacing=[T.tensor([0.,1,3]),2.])',
    'T.gradient(T.arange(24.).reshape(2,3,4)**2, spacing=[T.tensor([0.,2]), 2, T.tensor([1.,2.,4.,8.])][:3], edge_order=1)',
    'T.gradient((T.arange(24.).reshape(2,3,4)**2).double(), dim=(-1,1), edge_order=2)',
]  # fmt: skip


X = "x = T.tensor([1., 2, 1, 2.5, 4, 0.3]); "
P = "p = T.tensor([[0., 1], [1, 0], [2, 2]]); "
HISTOGRAM = [
    X + "T.histogram(x, 3)",
    X + "T.histogram(x, bins=4, range=(0., 3.), weight=T.tensor([1., 2, 3, 4, 5, 6]), density=True)",
    X + "T.histogram(x, T.tensor([0., 1., 2.5, 5.]))",
    X + "T.histogram(x, T.tensor([0., 1., 2.5, 5.]), density=True)",
    X + "T.histogram(x.double(), 2)",
    X + "T.histogram(x.long(), 2)",
    X + "T.histogram(x, 0)",
    X + "T.histogram(x, 3, range=(3., 1.))",
    "T.histogram(T.tensor([]), 3)",
    "T.histogram(T.ones(3), 2)",
    X + "T.histogram(x, T.tensor([1., 0.]))",
    X + "T.histogram(x, T.tensor([[1., 0.]]))",
    X + "T.histogram(x, 2, weight=T.ones(2))",
    X + "T.histogram(x, 2, weight=T.ones(6).double())",
    X + "T.histogram(x.reshape(2, 3), 2).hist",
    X + "T.histogram(x, 2, range=(0., float('inf')))",
    "T.histogram(T.tensor([1., float('nan')]), 2)",
    X + "T.histogram(x, T.tensor([0., 1., 2.5, 5.]).double())",
    X + "T.histogram(x, 3, range=(1., 1.))",
    X + "T.histogram(x.half(), T.tensor([0., 1.]))",
    X + "T.histogram(x.half(), 2)",
    X + "T.histogram(x.reshape(2, 3), 2, weight=T.ones(3, 2))",
    X + "T.histogram(x, 3, range=(0, 3))",
    X + "T.histogram(x, 3, range=(0., 1e-8))",
    X + "h = T.histogram(x, 3); (h.hist, h.bin_edges, type(h).__name__)",
    P + "T.histogramdd(p, bins=[2, 2])",
    P + "T.histogramdd(p, bins=2, range=[0., 2., 0., 4.], density=True)",
    P + "T.histogramdd(p, bins=[T.tensor([0., 1., 2.]), T.tensor([0., 3.])])",
    P + "T.histogramdd(p, bins=[2])",
    P + "T.histogramdd(p, bins=[2, 0])",
    P + "T.histogramdd(p, bins=2, range=[0., 1.])",
    "T.histogramdd(T.tensor([0., 1]), bins=2)",
    P + "T.histogramdd(p, bins=[2, 2], weight=T.tensor([1., 2., 3.]))",
    P + "T.histogramdd(p, bins=[2, 2], weight=T.tensor([1., 2.]))",
    "T.histogramdd(T.tensor([]).reshape(0, 2), bins=[2, 2])",
    P + "T.histogramdd(p, bins=[T.tensor([0., 1., 2.])])",
    P + "T.histogramdd(p, bins=[3, 2], density=True)",
    "T.manual_seed(0); T.histogramdd(T.rand(50, 3), bins=[2, 3, 4], weight=T.rand(50)).hist.sum()",
]  # fmt: skip


WINDOWS = [
    f"T.{w}_window({args})"
    for w in ("hann", "hamming", "blackman", "bartlett", "kaiser")
    for args in ("-1", "0", "1", "2", "7", "8, False", "3, dtype=T.long", "4, periodic=False, dtype=T.float64",
                 "2, requires_grad=True", "5, dtype=T.half", "6, dtype=T.bfloat16", "5, dtype=T.complex64",
                 "5.0", "5, layout=T.strided")
] + [
    "T.hamming_window(5, False, 0.3, 0.4)", "T.kaiser_window(5, False, 3.)", "T.kaiser_window(5, periodic=False)",
    "T.kaiser_window(5, beta=3.)", "T.hann_window(4, dtype=T.float64).requires_grad",
]  # fmt: skip


OFF = "; T.use_deterministic_algorithms(False)"
FLAGS = [
    ("(T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled(), "
    "T.get_deterministic_debug_mode())"),
    "T.use_deterministic_algorithms(True, warn_only=True); r = (T.are_deterministic_algorithms_enabled(), "
    "T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode())" + OFF + "; r",
    "T.use_deterministic_algorithms(True); r = T.get_deterministic_debug_mode()" + OFF + "; r",
    "T.use_deterministic_algorithms(1)", "T.use_deterministic_algorithms('x')",
    "T.use_deterministic_algorithms(True, warn_only=1)",
    "T.set_deterministic_debug_mode('warn'); r = (T.are_deterministic_algorithms_enabled(), "
    "T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode())" + OFF + "; r",
    "T.set_deterministic_debug_mode('error'); r = T.get_deterministic_debug_mode()" + OFF + "; r",
    "T.set_deterministic_debug_mode(2); T.set_deterministic_debug_mode(0); T.are_deterministic_algorithms_enabled()",
    "T.set_deterministic_debug_mode('bad')", "T.set_deterministic_debug_mode(5)", "T.set_deterministic_debug_mode(1.0)",
    "T.get_float32_matmul_precision()",
    ("T.set_float32_matmul_precision('high'); r = T.get_float32_matmul_precision(); "
    "T.set_float32_matmul_precision('highest'); r"),
    ("T.set_float32_matmul_precision('medium'); r = T.get_float32_matmul_precision(); "
    "T.set_float32_matmul_precision('highest'); r"),
    "T.set_float32_matmul_precision(3)",
    ("import warnings\nwith warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
    "    T.set_float32_matmul_precision('bad')\n[str(x.message) for x in w], T.get_float32_matmul_precision()"),
    "T.is_warn_always_enabled()", "T.set_warn_always(True); r = T.is_warn_always_enabled(); T.set_warn_always(False); r",
    "T.set_warn_always(1)", "T.set_flush_denormal(1)", "isinstance(T.set_flush_denormal(False), bool)",
    "T.get_default_device()", "T.set_default_device('cpu'); T.get_default_device()",
    "T.set_default_device(None); T.get_default_device()", "T.set_default_device('bad')",
    ("T.set_default_tensor_type(T.DoubleTensor); r = (T.get_default_dtype(), T.tensor([1.]).dtype, T.ones(1).dtype); "
    "T.set_default_tensor_type(T.FloatTensor); r"),
    "T.set_default_tensor_type('torch.HalfTensor'); r = T.get_default_dtype(); T.set_default_tensor_type('torch.FloatTensor'); r",
    "T.set_default_tensor_type(T.IntTensor)", "T.set_default_tensor_type('torch.IntTensor')",
    "T.set_default_tensor_type('bad')", "T.set_default_tensor_type(3)", "T.set_default_tensor_type(T.float64)",
    "T.get_default_dtype()",
    ("T.set_anomaly_enabled(True); r = (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()); "
    "T.set_anomaly_enabled(True, False); r2 = (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()); "
    "T.set_anomaly_enabled(False); (r, r2, T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled())"),
    "T.set_anomaly_enabled(1)", "T.set_anomaly_enabled(True, 0)",
    "T.from_dlpack(T.to_dlpack(T.arange(3.)))",
]  # fmt: skip


X6 = "x = T.arange(6.).reshape(2, 3).requires_grad_(); "


def _one(call: str, cot: str) -> str:
    return (X6 + f"r = {call}; r.backward({cot}); "
            "(r, r.grad_fn.name(), r.is_contiguous(), r.stride(), x.grad, r.data_ptr() == x.data_ptr())")  # fmt: skip


def _many(call: str) -> str:
    return (X6 + f"rs = {call}; sum((o * (i + 2)).sum() for i, o in enumerate(rs)).backward(); "
            "(type(rs).__name__, rs, [o.grad_fn.name() for o in rs], [o.stride() for o in rs], x.grad)")  # fmt: skip


COPIES = [
    _one("T.view_copy(x, [3, 2])", "T.arange(6.).reshape(3, 2)"),
    _one("T.view_copy(x, (6,))", "T.arange(6.)"),
    _one("T.permute_copy(x, [1, 0])", "T.arange(6.).reshape(3, 2)"),
    _one("T.transpose_copy(x, 0, 1)", "T.arange(6.).reshape(3, 2)"),
    _one("T.t_copy(x)", "T.arange(6.).reshape(3, 2)"),
    _one("T.squeeze_copy(x.reshape(1, 2, 3))", "T.arange(6.).reshape(2, 3)"),
    _one("T.squeeze_copy(x.reshape(1, 2, 3), 0)", "T.arange(6.).reshape(2, 3)"),
    _one("T.unsqueeze_copy(x, 1)", "T.arange(6.).reshape(2, 1, 3)"),
    _one("T.expand_copy(x, [2, 2, 3])", "T.arange(12.).reshape(2, 2, 3)"),
    _one("T.diagonal_copy(x)", "T.tensor([5., 7.])"),
    _one("T.diagonal_copy(x, 1)", "T.tensor([5., 7.])"),
    _one("T.select_copy(x, 1, 2)", "T.tensor([5., 7.])"),
    _one("T.slice_copy(x, 1, 0, 3, 2)", "T.arange(4.).reshape(2, 2)"),
    _one("T.slice_copy(x)", "T.arange(6.).reshape(2, 3)"),
    _one("T.unfold_copy(x, 1, 2, 1)", "T.arange(8.).reshape(2, 2, 2)"),
    _one("T.as_strided_copy(x, [2, 2], [1, 2])", "T.arange(4.).reshape(2, 2)"),
    _one("T.as_strided_copy(x, [2, 2], [1, 1], 1)", "T.arange(4.).reshape(2, 2)"),
    _one("T.alias_copy(x)", "T.arange(6.).reshape(2, 3)"),
    _many("T.split_copy(x, 1)"), _many("T.split_copy(x, 2, 1)"), _many("T.split_with_sizes_copy(x, [1, 2], 1)"),
    _many("T.unbind_copy(x)"), _many("T.unbind_copy(x, 1)"),
    _many("T.unsafe_split(x, 2, 1)"), _many("T.unsafe_chunk(x, 2, 1)"), _many("T.unsafe_chunk(x, 3)"),
    _many("T.unsafe_split_with_sizes(x, [1, 2], 1)"),
    X6 + "y = x * 2; r = T.permute_copy(y, [1, 0]); r.backward(T.arange(6.).reshape(3, 2)); "
    "(r.grad_fn.name(), r.grad_fn.next_functions[0][0].name(), x.grad)",
    X6 + "T.view_copy(x, [4, 2])", X6 + "T.permute_copy(x, [0])", X6 + "T.select_copy(x, 0, 5)",
    X6 + "T.expand_copy(x, [3, 2])", X6 + "T.split_with_sizes_copy(x, [1, 1], 1)", X6 + "T.unsafe_split(x, 0)",
    X6 + "T.diagonal_copy(x, 0, 0, 0)", X6 + "T.unfold_copy(x, 1, 4, 1)",
    "x = T.ones(2, 3); r = T.t_copy(x); r[0, 0] = 5; (x, r.requires_grad, r.grad_fn)",
    "x = T.randn(2, 3, requires_grad=True); r = T.detach_copy(x); (r.is_contiguous(), r.data_ptr() == x.data_ptr())",
    "x = T.tensor([1+2j, 3-4j]); r = T.view_as_real_copy(x); (r, r.is_contiguous())",
    "T.view_as_complex_copy(T.tensor([[1., 2.], [3., 4.]]))",
    "T.view_as_complex_copy(T.tensor([[1., 2.], [3., 4.]], requires_grad=True))",
    ("x = T.tensor([1+2j, 3-4j], requires_grad=True); r = T.view_as_real_copy(x); r.backward(T.ones(2, 2)); "
    "(r.grad_fn.name(), x.grad)"),
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int32)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int32, count=2, offset=4)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int16)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int64)",
    "T.frombuffer(b'', dtype=T.int32)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int32, count=0)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int32, offset=12)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int32, offset=-1)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int32, count=4)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.int32, count=-5)",
    "import array\na = array.array('i', [1, 2, 3]); T.frombuffer(a, dtype=T.float32, requires_grad=True)",
    "T.frombuffer(b'abcd', dtype=T.uint8)", "T.frombuffer(3, dtype=T.uint8)",
    "import array\na = array.array('i', [1, 2, 3]); t = T.frombuffer(a, dtype=T.int32); t[0] = 9; a",
]  # fmt: skip


AB = "a = T.tensor([1., 2., 3.]); b = T.tensor([0.5, 2., 4.]); "
SPECIAL = [
    AB + "T.igamma(a, b)", AB + "T.igammac(a, b)", AB + "T.special.gammainc(a, b)", AB + "T.special.gammaincc(a, b)",
    AB + "a.igamma(b)", AB + "a.igammac(b)", AB + "a.igamma_(b); a", AB + "a.igammac_(b); a",
    AB + "T.igamma(a.requires_grad_(), b)", AB + "T.igamma(a.requires_grad_(), b).sum().backward()",
    AB + "b.requires_grad_(); r = T.igamma(a, b); r.backward(T.tensor([1., -2., 3.])); (r.grad_fn.name(), b.grad)",
    AB + "b.requires_grad_(); r = T.igammac(a, b); r.backward(T.tensor([1., -2., 3.])); (r.grad_fn.name(), b.grad)",
    "T.igamma(T.tensor([1, 2]), T.tensor([1, 2]))", "T.igamma(T.tensor([1., 2]), 2.)", "T.igamma(2., T.tensor([1., 2]))",
    "T.igamma(T.tensor([1., 2]).double(), T.tensor([1., 2]))",
    "T.igamma(T.tensor([1., -2, 0., 0.]), T.tensor([1., 2, 0., 1.]))",
    "T.igammac(T.tensor([1., -2, 0., 0.]), T.tensor([1., 2, 0., 1.]))",
    "T.igamma(T.tensor([1., 2]), T.tensor([-1., float('inf')]))",
    "T.igamma(T.tensor([1., 2]).half(), T.tensor([1., 3]).half())", "T.igamma(T.tensor([1., 2]), T.tensor([1, 2]))",
    "T.igamma(T.tensor([1., 2]).bfloat16(), T.tensor([1, 2.]).bfloat16())", "T.igamma(T.tensor([1., 2]), T.tensor([True]))",
    "T.igamma(T.tensor([1., 2]).cfloat(), T.tensor([1., 2]))", "T.igamma(T.ones(3), 2 * T.ones(2, 1))",
    "T.igamma(T.ones(3), T.ones(2))",
    X6 + "T.nuclear_norm(x)", X6 + "T.nuclear_norm(x, keepdim=True)", X6 + "T.nuclear_norm(x.reshape(1, 2, 3), dim=(1, 2))",
    X6 + "T.nuclear_norm(x.reshape(1, 2, 3))", X6 + "T.nuclear_norm(x.reshape(1, 2, 3), dim=(0,))",
    "T.nuclear_norm(T.ones(3))", "T.nuclear_norm(T.ones(2, 2, dtype=T.long))",
    X6 + "r = T.nuclear_norm(x); r.backward(); x.grad",
    X6 + "T.frobenius_norm(x, dim=(0, 1))", X6 + "T.frobenius_norm(x, dim=(1,))", X6 + "T.frobenius_norm(x, dim=1)",
    X6 + "T.frobenius_norm(x, dim=(0, 1), keepdim=True)", X6 + "T.frobenius_norm(x, dim=(0, 1, 1))",
    "T.frobenius_norm(T.ones(2, 2, dtype=T.long), dim=(0, 1))",
    X6 + "r = T.frobenius_norm(x, (0, 1)); r.backward(); x.grad",
    "T.binomial(T.tensor([10., 20]).long(), T.tensor([0.5, 0.1]).long())",
    "T.binomial(T.tensor([10., 20]), T.tensor([0.5, 0.1]).double())",
    "T.binomial(T.tensor([10., 20]).half(), T.tensor([0.5, 0.1]).half())",
    "T.binomial(T.tensor([10., 20, 7]), T.tensor([1., 0., 0.]))", "T.binomial(T.tensor([-1., 0.]), T.tensor([0.5, 0.5]))",
    "T.binomial(T.tensor([10., 20]), T.tensor([0.5, 0.1])).dtype",
    "T.binomial(T.tensor([10., 20]).double(), T.tensor([0.5, 0.1]).double()).dtype",
    "T.binomial(T.tensor([10., 20, 5]), T.tensor([1.])).shape",
    "x = T.tensor([1., 2., 3.]); x.histogram(2)", "T.ones(2).is_same_size(T.ones(2))",
    "T.arange(6.).unsafe_chunk(4)", "T.arange(6.).unsafe_split(4)", "T.arange(6.).unsafe_split_with_sizes([2, 4])",
]  # fmt: skip


SD = "d = T.tensor([1., 2, 3, 4, 5, 6]); L = T.tensor([2, 0, 3, 1]); "
SEGMENT = [
    SD + f"T.segment_reduce(d, '{r}', lengths=L{ini})"
    for r in ("sum", "mean", "max", "min", "prod", "amax", "amin") for ini in ("", ", initial=10.")
] + [
    SD + "T.segment_reduce(d, 'sum', offsets=T.tensor([0, 2, 2, 5, 6]))",
    SD + "T.segment_reduce(d.reshape(3, 2), 'sum', lengths=T.tensor([1, 2]))",
    SD + "T.segment_reduce(d.reshape(3, 2), 'max', lengths=T.tensor([1, 2]))",
    SD + "T.segment_reduce(d.reshape(2, 3), 'sum', lengths=T.tensor([1, 2]), axis=1)",
    SD + "T.segment_reduce(d, 'sum', lengths=T.tensor([2, 2]))", SD + "T.segment_reduce(d, 'foo', lengths=L)",
    SD + "T.segment_reduce(d, 'sum')", SD + "T.segment_reduce(d.long(), 'sum', lengths=L)",
    SD + "T.segment_reduce(d, 'sum', lengths=L.int())", SD + "T.segment_reduce(d, 'sum', lengths=L.float())",
    SD + "T.segment_reduce(d, 'sum', indices=L)", SD + "T.segment_reduce(d, 'sum', lengths=T.tensor([2, -1, 5]))",
    SD + "T.segment_reduce(d.double(), 'mean', lengths=T.tensor([6, 0]), initial=2)",
] + [
    f"x = {x}.requires_grad_(); r = T.segment_reduce(x, '{red}', lengths=T.tensor([3, 1, 0, 2, 2]){ini}); "
    "r.backward(T.tensor([1., -2, 3, 0.5, 2])); (r, r.grad_fn.name(), len(r.grad_fn.next_functions), x.grad)"
    for red in ("sum", "mean", "max", "min", "prod")
    for x in ("T.tensor([1., 3, 3, 2, 0, 5, 0, 4])", "T.tensor([1., 0, 3, 2, 2, 5, 7, 4])")
    for ini in ("", ", initial=2.")
]  # fmt: skip


SNIPPETS = (
    MISC
    + EXTRAS
    + INDEX_REDUCE
    + SEGMENT
    + CALCULUS
    + HISTOGRAM
    + WINDOWS
    + FLAGS
    + COPIES
    + SPECIAL
)


# Top-level kernels and helpers test_opdb.py lists as TESTED_ELSEWHERE that no other test called.
# Float results are compared as lists of exact values, not through a 4-decimal repr.
TOP_LEVEL = [
    "T.adaptive_avg_pool1d(T.arange(12.).view(1, 2, 6) / 7, 4).tolist()",
    "T.broadcast_shapes((2, 1), (1, 3), (3,))", "T.broadcast_shapes(2, (1,))", "T.broadcast_shapes()",
    "T.broadcast_shapes((2,), (3,))", "T.broadcast_shapes((2, 1), (3, 4), (5,))",
    "T.broadcast_shapes((2,), (4, 3))", "T.broadcast_shapes((0,), (2,))",
    "T.constant_pad_nd(T.arange(6.).view(2, 3), (1, 2), 0.5).tolist()",
    "T.constant_pad_nd(T.arange(6.).view(2, 3), (-1, 1, 1, 0))",
    # a product's last bits follow the BLAS kernel (MKL and OpenBLAS on an AMD Zen 5 differ): repr
    "T.conv_transpose1d(T.arange(6.).view(1, 2, 3) / 5, T.arange(12.).view(2, 3, 2) / 7, stride=2)",
    "x = T.ones(3); r = T.dropout_(x, 0.0, True); (r is x, x)", "x = T.ones(3); T.dropout_(x, 1.0, True); x",
    "T.feature_dropout(T.ones(2, 3, 4), 1.0, True)", "T.feature_dropout(T.ones(2, 3), 0.0, False)",
    "e = T.empty_strided((2, 3), (1, 2)); (e.shape, e.stride(), e.dtype)",
    "T.empty_strided((2, 3), (1, 2), dtype=T.int64).stride()",
    "isinstance(T.get_num_interop_threads(), int) and T.get_num_interop_threads() >= 1",
    "T.set_num_interop_threads(0)",
    ("T.instance_norm(T.arange(24., dtype=T.float64).view(2, 3, 4) / 5, None, None, None, None, True, 0.1, 1e-5,"
     " False).mul(1e9).round().tolist()"),
    "T.pixel_unshuffle(T.arange(16.).view(1, 1, 4, 4), 2)",
    "T.manual_seed(0); T.randint_like(T.ones(2, 3), 10)",
    "T.manual_seed(0); T.randint_like(T.ones(2, 3, dtype=T.int64), 3, 10)",
    "T.rms_norm(T.arange(6.).view(2, 3), [3]).tolist()",
    "T.rms_norm(T.arange(6.).view(2, 3), (3,), T.tensor([1., 2., 3.]), 0.5).tolist()",
    "T.row_stack([T.arange(3), T.arange(3.)])",
    "(T.is_complex(T.ones(1, dtype=T.complex64)), T.is_complex(T.ones(1)))", "T.is_complex(1j)",
    "T.celu(T.tensor([-1., 0.5]), 2.0).tolist()", "T.hardshrink(T.tensor([-1., 0.2, 0.7]), 0.5).tolist()",
    "T.threshold(T.tensor([-1., 0.2, 0.7]), 0.5, -2.).tolist()",
    # torch.* spellings of losses: reduction as ATen's int (left out: none, PyTorch's quirk)
    *['x = T.tensor([0.3, -1.2, 2.0], requires_grad=True); t = T.tensor([0.2, 0.5, 0.9]); y = T.tensor([1., -1., 1.]); ' + c for c in [
        "[(r.detach(), type(r.grad_fn).__name__) for r in (T.kl_div(x, t), T.kl_div(x, t, 1), T.kl_div(x, t, 2), T.kl_div(x, t, 3), T.kl_div(x, t, 0, log_target=True))]",
        "[(r.detach(), type(r.grad_fn).__name__) for r in (T.binary_cross_entropy_with_logits(x, t), T.binary_cross_entropy_with_logits(x, t, t, T.tensor(2.), 1), T.binary_cross_entropy_with_logits(x, t, reduction=2))]",
        "[(r.detach(), type(r.grad_fn).__name__) for r in (T.hinge_embedding_loss(x, y), T.hinge_embedding_loss(x, y, 0.5, 1), T.margin_ranking_loss(x, t, y), T.margin_ranking_loss(x, t, y, 0.1, 2))]",
        "[(r.detach(), type(r.grad_fn).__name__) for r in (T.poisson_nll_loss(x, t, True, False, 1e-8, 1), T.poisson_nll_loss(x.exp(), t, False, True, 1e-8, 0))]",
        "a = x.view(1, 3).expand(2, 3); [(r.detach(), type(r.grad_fn).__name__) for r in (T.cosine_embedding_loss(a, a * 2 + 1, T.tensor([1., -1.])), T.triplet_margin_loss(a, a + 1, a * 2), T.triplet_margin_loss(a, a + 1, a * 2, 1.0, 2, 1e-6, True, 1))]",
        "T.kl_div(x, t, 'mean')", "T.kl_div(x, t, True)", "T.kl_div(x, t, 0.5)",
        "T.hinge_embedding_loss(x, y, 1.0, None)",
    ]],
    "lp = T.arange(40.).view(5, 2, 4).div(9).log_softmax(2); tg = T.tensor([[1, 2], [1, 1]]); (T.ctc_loss(lp, tg, (5, 5), (2, 2)), T.ctc_loss(lp, tg, (5, 5), (2, 2), 0, 1), T.ctc_loss(lp, tg, T.tensor([5, 5]), T.tensor([2, 2]), 0, 2, True))",
    # dropout spellings: ATen's RuntimeError for p, a bool train
    "x = T.ones(2, 3); (T.alpha_dropout(x, 0.5, False) is x, T.feature_alpha_dropout(x, 0.5, False) is x, T.alpha_dropout_(x, 0.0, True) is x)",
    "T.manual_seed(0); T.alpha_dropout(T.ones(2, 3), 1.0, True)", "T.manual_seed(0); T.feature_alpha_dropout_(T.ones(2, 3, 2), 1.0, True)",
    "x = T.ones(2, 3, 2); T.feature_dropout_(x, 1.0, True); x", "T.alpha_dropout(T.ones(2), 1.5, True)",
    "T.dropout(T.ones(2), 1.5, True)", "T.dropout(T.ones(2), 0.5, 1)", "T.feature_dropout(T.ones(2, 2), -0.5, True)",
    "T.feature_alpha_dropout_(T.ones(2), 0.5, 1)", "T.dropout_(T.ones(2), 2.0, False)",
    "x = T.tensor([-1., 0.5, 2.]); (T.celu_(x, 2.0) is x, x, T.selu_(x) is x, x, T.threshold_(x, 1.0, -3.) is x, x)",
    # hash_tensor: xor of the elements' 64-bit patterns
    *[f"T.hash_tensor(T.tensor([1, 0, 3]).to(T.{d})), T.hash_tensor(T.tensor([-1, 2]).to(T.{d}))" for d in
      "float32 float64 float16 bfloat16 int8 uint8 int16 int32 int64 bool complex64 uint16 uint32 uint64".split()],
    "T.hash_tensor(T.tensor([]))", "T.hash_tensor(T.ones(2, 0), 1)", "T.hash_tensor(T.ones(2, 3), (0, 1))",
    "T.hash_tensor(T.ones(2, 3), 1, keepdim=True)", "T.hash_tensor(T.tensor([float('nan'), -0.0, float('inf')]))",
    "T.hash_tensor(T.ones(2), mode=1)", "T.hash_tensor(T.ones(2), 2)", "T.hash_tensor(T.ones(2, requires_grad=True))",
    "T.ones(2, 3).hash_tensor(0)", "T.hash_tensor(T.tensor(5.))", "T.hash_tensor(T.ones(2, 3), dim=None)",
    "T.hash_tensor(T.ones(2, 3), [])", "T.arange(24.).view(2, 3, 4).hash_tensor((0, 2))",
    "o = T.empty(0, dtype=T.uint64); (T.hash_tensor(T.ones(3), out=o), o)", "T.hash_tensor(T.ones(3), out=T.empty(0))",
]  # fmt: skip


@pytest.mark.parametrize("code", SNIPPETS + TOP_LEVEL)
def test_against_pytorch(code):
    same(code, torch, taimatsu)


def _f64(*shape):
    taimatsu.manual_seed(0)
    return taimatsu.randn(*shape, dtype=taimatsu.float64, requires_grad=True)


GRADCHECKS = {
    "trapezoid_dx": (lambda y: taimatsu.trapezoid(y, dx=0.7, dim=0), (3, 4)),
    "trapezoid_x": (lambda y: taimatsu.trapezoid(y, taimatsu.tensor([0.0, 1.0, 3.0, 7.5], dtype=taimatsu.float64)), (3, 4)),
    "trapezoid_x_grad": (lambda y, x: taimatsu.trapezoid(y, x), (3, 4), (3, 4)),
    "cumulative_trapezoid": (lambda y: taimatsu.cumulative_trapezoid(y, dx=2.0), (3, 4)),
    "cumulative_trapezoid_x": (lambda y, x: taimatsu.cumulative_trapezoid(y, x, dim=0), (3, 4), (3,)),
    "gradient": (lambda y: taimatsu.gradient(y, edge_order=2), (3, 4)),
    "gradient_coords": (lambda y, x: taimatsu.gradient(y, spacing=[x], dim=1, edge_order=2), (3, 4), (4,)),
    "permute_copy": (lambda x: taimatsu.permute_copy(x, [2, 0, 1]), (2, 3, 4)),
    "expand_copy": (lambda x: taimatsu.expand_copy(x, [2, 3, 4]), (3, 1)),
    "diagonal_copy": (lambda x: taimatsu.diagonal_copy(x, -1, 1, 2), (2, 3, 4)),
    "unfold_copy": (lambda x: taimatsu.unfold_copy(x, 1, 2, 1), (2, 5)),
    "split_copy": (lambda x: taimatsu.split_copy(x, 2, 1), (2, 5)),
    "unsafe_chunk": (lambda x: taimatsu.unsafe_chunk(x, 3, 1), (2, 5)),
    "as_strided_copy": (lambda x: taimatsu.as_strided_copy(x, [3, 3], [1, 1]), (6,)),
    "igamma": (lambda x: taimatsu.igamma(taimatsu.tensor([0.5, 1.5, 3.0], dtype=taimatsu.float64), x.abs() + 0.2), (3,)),
    "igammac": (lambda x: taimatsu.igammac(taimatsu.tensor([0.5, 1.5, 3.0], dtype=taimatsu.float64), x.abs() + 0.2), (3,)),
    "nuclear_norm": (lambda x: taimatsu.nuclear_norm(x), (3, 2)),
    **{
        f"segment_{r}": (lambda x, r=r: taimatsu.segment_reduce(x, r, lengths=taimatsu.tensor([2, 0, 3, 1]), initial=0.5), (6, 2))
        for r in ("sum", "mean", "max", "min", "prod")
    },
    "index_reduce_prod": (lambda x, s: x.index_reduce(0, taimatsu.tensor([0, 2, 0, 1]), s, "prod"), (3, 2), (4, 2)),
    "index_reduce_mean": (lambda x, s: x.index_reduce(1, taimatsu.tensor([1, 1]), s, "mean", include_self=False), (3, 2), (3, 2)),
    "frobenius_norm": (lambda x: taimatsu.frobenius_norm(x, (0, 2)), (2, 3, 2)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, *shapes = GRADCHECKS[name]
    inputs = [_f64(*s) for s in shapes]
    if name in (
        "gradient_coords",
        "cumulative_trapezoid_x",
    ):  # coordinates must be strictly increasing
        inputs[1] = (
            taimatsu.tensor(sorted(range(shapes[1][0])), dtype=taimatsu.float64)
            .mul(1.3)
            .add(inputs[1].detach().abs() * 0.1)
            .cumsum(0)
            .requires_grad_()
        )
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("kind", ["hann", "hamming", "blackman", "bartlett", "kaiser"])
def test_window_values(kind):
    """float64, half and bfloat16 windows are bit-exact; float32 within PyTorch's cos/I0 rounding
    (see taimatsu/ops/creation/windows.py): one ulp for the cosine windows, ~1e-6 for kaiser."""
    import numpy as np

    ours, theirs = getattr(taimatsu, kind + "_window"), getattr(torch, kind + "_window")
    for n in (2, 3, 10, 31, 64, 101):
        for periodic in (True, False):
            for dt in ("float64", "float16", "bfloat16"):
                a = ours(n, periodic, dtype=getattr(taimatsu, dt)).float().numpy()
                b = theirs(n, periodic, dtype=getattr(torch, dt)).float().numpy()
                assert np.array_equal(a, b), (n, periodic, dt)
            a, b = ours(n, periodic).numpy(), theirs(n, periodic).numpy()
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-6 if kind == "kaiser" else 1.2e-7)


def test_set_default_tensor_type_warns_once_unless_warn_always():
    import warnings

    from taimatsu import _flags

    _flags._warned_once.discard("set_default_tensor_type")
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            taimatsu.set_default_tensor_type(taimatsu.FloatTensor)
            taimatsu.set_default_tensor_type(taimatsu.FloatTensor)
            taimatsu.set_warn_always(True)
            taimatsu.set_default_tensor_type(taimatsu.FloatTensor)
        assert [str(x.message)[:55] for x in w] == [
            "torch.set_default_tensor_type() is deprecated as of PyT"
        ] * 2
    finally:
        taimatsu.set_warn_always(False)
        taimatsu.set_default_dtype(taimatsu.float32)


def test_set_default_device_reaches_factories():
    try:
        taimatsu.set_default_device("cpu")
        assert taimatsu.ones(2).device == taimatsu.device("cpu")
    finally:
        taimatsu.set_default_device(None)
    assert taimatsu.get_default_device() == taimatsu.device("cpu")


def test_binomial_distribution_and_seeding():
    """Not PyTorch's stream (see ops/pointwise/incomplete_gamma.py), but Binomial(n, p) moments and reproducible."""
    count, prob = taimatsu.full((20000,), 30.0), taimatsu.full((20000,), 0.3)
    taimatsu.manual_seed(7)
    a = taimatsu.binomial(count, prob)
    taimatsu.manual_seed(7)
    assert taimatsu.equal(a, taimatsu.binomial(count, prob))
    assert abs(a.mean().item() - 9.0) < 0.1 and abs(a.var().item() - 6.3) < 0.3
    assert (a == a.round()).all() and a.min() >= 0 and a.max() <= 30


def test_frombuffer_read_only_warning():
    import warnings

    from taimatsu import _flags

    _flags._warned_once.discard("frombuffer_readonly")
    for lib in (torch, taimatsu):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.frombuffer(bytearray(b"abcd"), dtype=lib.uint8)
            assert not w
            lib.frombuffer(b"abcd", dtype=lib.uint8)
        assert [str(x.message)[:40] for x in w] in (
            [],
            ["The given buffer is not writable, and Py"],
        )
    assert len(w) == 1  # taimatsu's first warning (torch's may have fired earlier in the session)


JVPS = {
    "view_copy": lambda T, x: T.view_copy(x, [4, 3]),
    "permute_copy": lambda T, x: T.permute_copy(x, [1, 0]),
    "split_copy": lambda T, x: T.split_copy(x, 2, 1)[1],
    "unsafe_chunk": lambda T, x: T.unsafe_chunk(x, 2, 1)[0],
    "fill": lambda T, x: T.fill(x, x[0, 0]),
    "trapezoid": lambda T, x: T.trapezoid(x, dx=0.5),
    "cumulative_trapezoid": lambda T, x: T.cumulative_trapezoid(x, dim=0),
    "gradient": lambda T, x: T.gradient(x, edge_order=2)[1],
    "igamma": lambda T, x: T.igamma(T.full_like(x, 1.5), x.abs() + 0.1),
    "frobenius_norm": lambda T, x: T.frobenius_norm(x, (0, 1)),
    "index_reduce": lambda T, x: x.index_reduce(0, T.tensor([0, 0, 2]), x * 2, "amax"),
    "segment_reduce": lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2, 1])),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(JVPS))
def test_forward_ad_against_torch_func_jvp(name):
    import numpy as np

    fn = JVPS[name]
    x = np.random.default_rng(0).standard_normal((3, 4))
    t = np.random.default_rng(1).standard_normal((3, 4))
    fwAD = taimatsu.autograd.forward_ad
    try:
        _, expected = torch.func.jvp(lambda a: fn(torch, a), (torch.tensor(x),), (torch.tensor(t),))
    except NotImplementedError as e:  # PyTorch has no forward formula: the same refusal
        with fwAD.dual_level(), pytest.raises(NotImplementedError) as ours:
            fn(taimatsu, fwAD.make_dual(taimatsu.tensor(x), taimatsu.tensor(t)))
        assert str(ours.value) == str(e)
        return
    with fwAD.dual_level():
        dual = fwAD.make_dual(taimatsu.tensor(x), taimatsu.tensor(t))
        got = fwAD.unpack_dual(fn(taimatsu, dual)).tangent
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "call", ["nuclear_norm(T.ones(2, 2))", "frobenius_norm(T.ones(2, 2), (0, 1))"]
)
def test_deprecated_norms_warn_once(call):
    import warnings

    from taimatsu import _flags

    _flags._warned_once.discard(call.split("(")[0])
    texts = []
    for lib in (torch, taimatsu):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            eval("T." + call, {"T": lib})
            eval("T." + call, {"T": lib})
        texts.append([str(x.message) for x in w])
    assert len(texts[1]) == 1 and texts[0] in ([], texts[1])  # torch's may have fired earlier


def test_set_printoptions_default_restores_pytorch_defaults():
    # taimatsu's own shorthand (PyTorch has no such name) for set_printoptions(profile="default").
    x = [1 / 3, 1e-5, 12345.678]
    taimatsu.set_printoptions(precision=2, sci_mode=False, linewidth=20)
    taimatsu.set_printoptions_default()
    assert repr(taimatsu.tensor(x)) == repr(torch.tensor(x))
    assert taimatsu.get_printoptions() == torch._tensor_str.get_printoptions()
