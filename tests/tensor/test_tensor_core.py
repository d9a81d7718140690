"""The tensor core against PyTorch: creation, dtype inference and promotion, conversions,
metadata, legacy constructors, NumPy sharing, printing of common tensors, and errors."""

from __future__ import annotations

import numpy as np
import pytest
from oracle_expr import same

import taimatsu

torch = pytest.importorskip("torch")

CREATION = [
    "T.tensor([1, 2])", "T.tensor(3)", "T.tensor(3.)", "T.tensor(True)", "T.tensor(1+2j)",
    "T.tensor([1, 2.5])", "T.tensor([True, 2])", "T.tensor([[1., 2.], [3., 4.]])",
    "T.tensor([])", "T.tensor([[]])", "T.tensor(np.float32(1.0)).dtype",
    "T.tensor(np.array([1, 2], dtype=np.int32))", "T.tensor([1, 2], dtype=T.float64)",
    "T.tensor([[1, 2], [3]])", "T.tensor([[1, 2], 3])", "T.tensor('a')",
    "T.tensor([1., 2.], requires_grad=True)", "T.tensor([1, 2], requires_grad=True)",
    "T.zeros(2, 3)", "T.zeros((2, 3))", "T.zeros([2])", "T.ones(T.Size([2, 2]))", "T.ones(2, dtype=T.int32)",
    "T.empty(0).shape", "T.zeros(-1)", "T.zeros(2, 3.0)", "T.full((2,), 3)", "T.full((2,), 3.)",
    "T.full((2,), True)", "T.full((2, 2), 7, dtype=T.float16)", "T.arange(5)", "T.arange(1, 2.5, 0.5)",
    "T.arange(0, 1, 0.1)", "T.arange(10, 0, -3)", "T.arange(0, 5, 0)", "T.linspace(0, 1, 5)",
    "T.arange(3, dtype=T.complex64)", "T.arange(3, dtype=T.bool)", "T.linspace(0, 1, 3, dtype=T.complex64)",
    "T.linspace(-3, 7, 11)", "T.linspace(0, 1, 1)", "T.logspace(0, 2, 3)", "T.eye(3)", "T.eye(2, 3)",
    "T.zeros_like(T.ones(2, dtype=T.int64))", "T.ones_like(T.ones(2, 2), dtype=T.float64)",
    "T.full_like(T.ones(3), 5)", "T.empty_like(T.ones(2)).shape", "T.Tensor(2, 3).shape", "T.Tensor()",
    "T.Tensor([1, 2])", "T.FloatTensor([1, 2])", "T.IntTensor([[1, 2], [3, 4]])", "T.LongTensor(2).dtype",
    "T.ByteTensor([1, 2])", "T.DoubleTensor([1.5])", "T.HalfTensor([1.5])", "T.CharTensor([-1])",
    "T.ShortTensor([3])", "T.BoolTensor([1, 0])", "T.FloatTensor()", "T.IntTensor([[1, 2], [3]])",
    "T.FloatTensor", "isinstance(T.ones(2), T.FloatTensor)", "isinstance(T.ones(2), T.LongTensor)",
    "T.ones(2).new_zeros(3)", "T.ones(2, dtype=T.int32).new_tensor([1, 2])", "T.ones(2).new_full((2,), 4)",
    "T.scalar_tensor(3)", "T.as_tensor([1, 2])", "T.autograd.Variable(T.ones(2), requires_grad=True)",
    "T.tensor(['a'])", "T.tensor([['a', 'b']])", "T.tensor(['a'], dtype=T.float32)", "T.tensor([1, 'a'])",
    "T.tensor([None])", "T.tensor(None)", "T.tensor(object())", "T.tensor([1, {}])", "T.tensor([[1, 2], None])",
    "T.tensor([[1, 2], 'ab'])", "T.tensor([1, None], dtype=T.float32)", "T.tensor([1, 'a'], dtype=T.int8)",
    "T.tensor([1, {}], dtype=T.bool)", "T.tensor(None, dtype=T.float64)", "T.as_tensor([1.5, None])",
]  # fmt: skip

PROMOTION = [
    "T.promote_types(T.int32, T.float16)", "T.promote_types(T.uint8, T.int8)",
    "T.promote_types(T.bool, T.int8)", "T.promote_types(T.bfloat16, T.float16)",
    "T.promote_types(T.complex64, T.float64)", "T.promote_types(T.int64, T.complex64)",
    "T.result_type(T.tensor([1, 2]), 1.0)", "T.result_type(T.tensor([1, 2], dtype=T.uint8), 1000)",
    "T.result_type(T.tensor([1.], dtype=T.float16), T.tensor(1., dtype=T.float64))",
    "T.result_type(T.tensor(1, dtype=T.int32), T.tensor([1], dtype=T.int8))",
    "T.can_cast(T.float32, T.int32)", "T.can_cast(T.int32, T.float32)", "T.can_cast(T.bool, T.uint8)",
    "T.can_cast(T.int8, T.bool)", "T.tensor([1, 2, 3], dtype=T.uint8) + 300",
    "T.tensor([1, 2]) + 1.5", "T.tensor([1, 2]) / T.tensor([2, 4])", "T.tensor([1, 2], dtype=T.int8) * True",
    "T.ones(2, dtype=T.float16) + T.tensor(1., dtype=T.float64)", "T.ones(2) + T.ones(2, dtype=T.float64)",
    "T.ones(2, dtype=T.int32) + T.ones(2, dtype=T.int64)", "T.tensor([True, False]) + T.tensor([True, True])",
    "T.tensor([True]) + 1", "T.ones(2, dtype=T.bfloat16) + T.ones(2, dtype=T.float16)",
    "T.ones(2, dtype=T.complex64) * 2.5", "T.ones(2, dtype=T.int64) * (1 + 1j)",
    "x = T.ones(3, dtype=T.long); x.add_(1.5)", "x = T.ones(3, dtype=T.int32); x /= 2",
    "x = T.ones(3); x += T.ones(3, dtype=T.float64); x", "T.get_default_dtype()",
    "T.finfo(T.float32)", "T.finfo(T.float16).eps", "T.iinfo(T.int32)", "T.iinfo(T.uint8).max",
    "T.finfo(T.bfloat16)", "T.finfo(T.complex64)",
    "[(f.resolution, f.eps, f.tiny, f.max) for f in map(T.finfo, (T.float16, T.bfloat16, T.float32, T.float64))]",
]  # fmt: skip

METADATA = [
    "x = T.zeros(2, 3); (x.size(0), x.size(-1), x.size(-2))", "T.zeros(2, 3).size(2)",
    "T.zeros(2, 3).size(-3)", "T.tensor(1.).size(0)", "T.tensor(1.).size(-1)", "T.zeros(2).size(True)",
    "T.zeros(2).size(1.0)", "T.zeros(2, 3).size(np.int64(1))", "T.zeros(2, 3).size(T.tensor(-1))",
    "T.zeros(2, 3).stride()", "T.zeros(2, 3).t().stride()", "T.zeros(2, 3).t().is_contiguous()",
    "T.zeros(2, 3).stride(-1)", "T.zeros(2, 3).size()", "T.zeros(2, 3).size(1)", "T.zeros(2, 3).size(2)",
    "T.zeros(2, 3).shape[1:]", "T.zeros(2, 3).dim()", "T.zeros(2, 3).ndim", "T.zeros(2, 3).numel()",
    "T.zeros(2, 3).element_size()", "T.zeros(2, dtype=T.float16).element_size()", "T.zeros(2, 3).nbytes",
    "T.zeros(2, 3).dtype", "T.zeros(2, 3).device", "T.zeros(2).is_cuda", "T.zeros(2).layout",
    "T.zeros(2).type()", "T.zeros(2, dtype=T.int64).type()", "T.zeros(2).type(T.int32)",
    "T.zeros(2).type('torch.DoubleTensor')", "T.zeros(2).get_device()", "len(T.zeros(4, 2))",
    "len(T.tensor(1.))", "T.zeros(3)[1:].storage_offset()", "T.zeros(3).is_floating_point()",
    "T.zeros(3, dtype=T.int8).is_signed()", "T.zeros(3, dtype=T.uint8).is_signed()",
    "T.zeros(2).requires_grad", "T.zeros(2).is_leaf", "T.zeros(2).grad", "T.ones(2).data",
    "x = T.arange(6.); x.data_ptr() + 8 == x[2:].data_ptr()", "T.ones(2, 2).is_contiguous()",
    "T.device('cuda', 1)", "T.device('cpu')", "str(T.device('cuda:0'))", "T.device('cuda:0').index",
    "T.device('cpu') == T.device('cpu')", "T.device('tpu')", "T.float32", "T.Size([2, 3])",
    "T.Size([2, 3]).numel()", "T.Size([2]) + (3,)", "T.zeros(2, 3).size(dim=1)", "T.zeros(2).size(dim=True)",
    "T.zeros(2).size(dim=None)", "T.zeros(2).size(foo=1)", "T.zeros(2).size(0, dim=0)", "T.zeros(2).size(0, 1)",
    "T.tensor(1.).size(dim=0)",
    "T.Size([2.5, 2.5])", "T.Size([2, 'a'])", "T.Size([None])", "T.Size([T.tensor(2.)])",
    "[type(s).__name__ for s in T.Size([True, T.tensor(3), np.int64(2), -1])]",
]  # fmt: skip

CONVERSION = [
    "T.tensor([1.5, -2.7]).long()", "T.tensor([1.5, -2.7]).int().type()", "T.tensor([1, 0, 2]).bool()",
    "T.tensor([1, 2]).float()", "T.tensor([1, 2]).double()", "T.tensor([1., 2.]).half()",
    "T.tensor([1., 2.]).bfloat16()", "T.tensor([1, 2]).byte()", "T.tensor([1, 2]).char()",
    "T.tensor([1, 2]).short()", "T.tensor([1., 2.]).to(T.float64)", "T.tensor([1., 2.]).to('cpu')",
    "x = T.ones(2); x.to(T.float32) is x", "x = T.ones(2); x.float() is x", "x = T.ones(2); x.cpu() is x",
    "T.tensor([1., 2.]).to(T.ones(1, dtype=T.int32))", "T.tensor([1, 2]).type_as(T.ones(1))",
    "T.tensor([[1, 2], [3, 4]]).tolist()", "T.tensor(2.5).item()", "type(T.tensor(2).item())",
    "T.ones(2).item()", "bool(T.ones(2))", "bool(T.tensor([]))", "bool(T.tensor([0.]))", "int(T.tensor(3.7))",
    "float(T.tensor([2]))", "float(T.ones(2))", "T.tensor(5)[None]", "'%.2f' % T.tensor(1.2345)",
    "f'{T.tensor(1.2345):.3f}'", "f'{T.tensor(1.5)}'", "'{}'.format(T.ones(2))", "f'{T.tensor(2) * 3}'", "x = T.ones(2, requires_grad=True); x.numpy()",
    "x = T.ones(2, requires_grad=True); x.detach().numpy()", "T.tensor([1., 2.], dtype=T.bfloat16).tolist()",
    "T.ones(2, dtype=T.bfloat16).numpy()", "np.asarray(T.arange(3))", "T.arange(3).numpy().dtype",
    "T.ones(2, dtype=T.long).requires_grad_()", "T.ones(2).to(T.complex64)", "T.tensor([1.7]).to(T.uint8)",
]  # fmt: skip

MISC = [
    "T.zeros(2, 3).T.shape", "x = T.ones(2, 3); y = x.view(3, 2); y[0, 0] = 5; x",
    "x = T.ones(2, 2); arr = x.numpy(); x[:] = 4; arr", "a = np.ones(3); b = T.from_numpy(a); b.sub_(b); a",
    "a = np.ones(3, dtype=np.float32); b = T.from_numpy(a); a[0] = 7; b",
    "T.from_numpy(np.arange(4)[::-1])", "T.from_numpy([1, 2])",
    "T.tensor([np.int16(1), np.int16(2)])", "T.tensor([np.float64(1), np.float32(1)])",
    "T.tensor([np.float16(1), 2])", "T.tensor([[np.uint8(1)], [np.int8(-1)]])",
    "T.from_numpy(np.array(['a']))", "T.tensor(np.array(['a']), dtype=T.float32)",
    "T.from_numpy(np.zeros(2, np.longdouble))", "T.as_tensor(np.array([None]))",
    "T.from_numpy(np.zeros(2, __import__('ml_dtypes').bfloat16))",
    "T.tensor(np.zeros(2, __import__('ml_dtypes').bfloat16))", "T.as_tensor(np.zeros(2, __import__('ml_dtypes').bfloat16))",
    "T.asarray(np.ones(2, __import__('ml_dtypes').bfloat16), dtype=T.float32)",
    "T.tensor([np.zeros(2, __import__('ml_dtypes').bfloat16)[0]])", "T.tensor(np.zeros(2, __import__('ml_dtypes').bfloat16)[0])",
    "T.hann_window(5, dtype=T.bfloat16)", "T.kaiser_window(6, dtype=T.bfloat16)",
    "x = T.ones(2); y = x.detach(); y.add_(1); (x, x._version)", "x = T.ones(2); x.data.add_(1); (x, x._version)",
    "x = T.ones(2); x.add_(1); x.mul_(2); x._version", "x = T.ones(3); y = x[1:]; y.add_(1); (x._version, y._version)",
    "T.ones(2, 3) @ T.ones(2, 3)", "T.ones(3).mm(T.ones(3))", "T.ones(3)[5]", "T.ones(3).sum(2)",
    "T.ones(3).as_strided((4,), (1,))", "T.cat([T.ones(2, 3), T.ones(2, 4)])", "T.tensor(1.)[0]",
    "T.ones(2, 3) + T.ones(4)", "x = T.FloatTensor(1, 3, 1); x.add_(T.ones(3, 1, 7))", "T.ones(2, 3).view(-1, 4)",
    "T.ones(2, 3).t().view(6)", "T.is_tensor(T.ones(1))", "T.numel(T.ones(2, 3))", "T.is_nonzero(T.tensor([1]))",
    "T.manual_seed(0); T.randn(3)", "T.manual_seed(0); T.rand(2, 3)", "T.manual_seed(3); T.randint(0, 10, (5,))",
    "T.manual_seed(1); T.randperm(6)", "T.manual_seed(0); T.ones(5).uniform_(-1, 1)", "T.initial_seed() > 0",
    "g = T.Generator().manual_seed(5); T.randn(2, generator=g)", "T.manual_seed(0); T.normal(2., 3., (3,))",
    "m = T.zeros(2, requires_grad=True); T.manual_seed(0); y = T.normal(m, T.ones(2)); y.sum().backward(); (y, y.grad_fn.name(), m.grad)",
    "s = T.ones(2, requires_grad=True); y = T.normal(1., s); y.sum().backward(); (y.grad_fn.name(), s.grad)",
    "m = T.zeros(2, requires_grad=True); s = T.ones(1, requires_grad=True); y = T.normal(m, s); y.sum().backward(); (y.grad_fn.name(), m.grad, s.grad)",
    "m = T.zeros(2, requires_grad=True); (T.normal(m.detach(), 1.).grad_fn, T.normal(m, 2.).grad_fn.name())",
    "x = T.arange(9.).view(3, 3).requires_grad_(); y = x.clone(); z = y.fill_diagonal_(5.); z.pow(2).sum().backward(); (z is y, z, z.grad_fn.name(), x.grad)",
    "(T.zeros(5, 3).fill_diagonal_(1, wrap=True), T.zeros(7, 3).fill_diagonal_(1, wrap=True), T.zeros(7, 3).fill_diagonal_(2))",
    "(T.zeros(2, 2, 2).fill_diagonal_(3), T.zeros(3, 5).fill_diagonal_(4, wrap=True), T.zeros(2, 2, dtype=T.int64).fill_diagonal_(1.7))",
    "(T.zeros(3, 3).t().fill_diagonal_(1), T.zeros(4, 4)[::2].fill_diagonal_(1), T.zeros(6, 6)[1:, ::2].fill_diagonal_(7, wrap=True))",
    "T.zeros(2, 2).fill_diagonal_(T.tensor(1.))", "T.zeros(3).fill_diagonal_(1)", "T.zeros(2, 3, 2).fill_diagonal_(1)",
    "T.randn(2, 2, requires_grad=True).fill_diagonal_(0)", "T.zeros(2, 2).fill_diagonal_(T.ones(2))",
]  # fmt: skip

COMPLEX = [
    "z = T.tensor([1+2j, 3-1j], requires_grad=True); (z.conj() * T.tensor([2+1j, 1-1j])).real.sum().backward(); z.grad",
    "z = T.tensor([1+2j, 3-1j], requires_grad=True); (z.real * 2 + z.imag * 3).sum().backward(); z.grad",
    "z = T.tensor([1+2j, 3-1j], requires_grad=True); (z.conj_physical() * z).real.sum().backward(); z.grad",
    "T.view_as_real(T.tensor([1+2j, 3-1j]))", "T.view_as_complex(T.tensor([[1., 2.], [3., 4.]]))",
    "T.view_as_complex(T.ones(3))", "T.view_as_complex(T.ones(2, 2).t())", "T.view_as_real(T.ones(2))",
    "z = T.tensor([1+2j]); z.imag.add_(1); z", "T.ones(2).imag", "x = T.ones(2); x.real is x",
    "z = T.tensor([1+2j], requires_grad=True); (z.real.grad_fn.name(), z.conj().grad_fn.name())",
    "T.tensor([1+2j, -3j]).abs()", "T.tensor([1+2j, -3j]).angle()", "T.tensor([1+2j]) * 2.5",
]  # fmt: skip


# API corners that third-party programs hit (issue 10, section 5)
API = [
    "t = T.ones(2); v = T.autograd.Variable(t, requires_grad=True); (v is t, t.requires_grad, v.requires_grad, v.is_leaf)",
    "t = T.ones(2); v = T.autograd.Variable(t); t.add_(1); (v, v._version, v.data_ptr() == t.data_ptr())",
    "a = T.ones(2, requires_grad=True); v = T.autograd.Variable(a * 2); (v.requires_grad, v.is_leaf, v.grad_fn)",
    "T.autograd.Variable(T.ones(2, dtype=T.long), requires_grad=True)", "T.autograd.Variable()",
    "T.autograd.Variable([1.])",
    "x = T.arange(6, dtype=T.int16); s = x.untyped_storage(); (type(s).__name__, s.nbytes(), s.size(), len(s), s.element_size(), s.tolist())",
    "x = T.arange(6.); s = x[2:].t().untyped_storage(); (s.data_ptr() == x.data_ptr(), s == x.untyped_storage(), s.nbytes(), x[2:].storage_offset())",
    "x = T.arange(4.).view(2, 2).t(); (x.untyped_storage().data_ptr() == x.data_ptr(), x.storage_offset(), x[1].storage_offset())",
    "x = T.arange(3, dtype=T.int16); s = x.untyped_storage(); s[0] = 300; s[2] = -1; (x, s[0], s[-1], s.device, s.is_cuda, s.type())",
    "x = T.arange(3, dtype=T.uint8); x.untyped_storage()", "T.tensor([]).untyped_storage()",
    "T.tensor([]).untyped_storage().data_ptr()", "T.arange(4, dtype=T.uint8).untyped_storage()[1:3]",
    "x = T.arange(4.); [(t.untyped_storage().nbytes(), t.untyped_storage().data_ptr() == x.data_ptr()) for t in (x.view(T.int16), x.view(T.float64), x.view(T.uint8)[5:], x[4:])]", "T.arange(4, dtype=T.uint8).untyped_storage()[1:3]",
    "s = T.arange(4, dtype=T.uint8).untyped_storage(); s[1:3].data_ptr() - s.data_ptr()",
    "T.ones(2).untyped_storage()[8]", "T.ones(2).untyped_storage()[-9]", "T.ones(2).untyped_storage()[1.0]",
    "T.ones(2).untyped_storage()[::2]", "s = T.ones(2).untyped_storage(); s[0] = 1.5",
    "x = T.zeros(2, dtype=T.uint8); s = x.untyped_storage(); c = s.clone(); c.fill_(7); (x, c.tolist(), c.data_ptr() == s.data_ptr())",
    "x = T.zeros(2, dtype=T.uint8); x.untyped_storage().copy_(T.tensor([3, 4], dtype=T.uint8).untyped_storage()); x",
    "T.zeros(2, dtype=T.uint8).untyped_storage().copy_(T.ones(1).untyped_storage())",
    "(T.UntypedStorage(3).nbytes(), T.UntypedStorage([1, 258]).tolist())",
    "T.ones(2, 3, 4).sum_to_size(3, 1)", "T.ones(2, 3, 4).sum_to_size((1, 3, 1))", "T.ones(2, 3, 4).sum_to_size(T.Size([4]))",
    "T.ones(2, 3, 4).sum_to_size([1, 4])", "x = T.ones(2, 3); x.sum_to_size(2, 3) is x", "T.ones(2, 3).sum_to_size(3, 2)",
    "T.ones(2, 3).sum_to_size(1, 1, 1)", "T.ones(2, 3).sum_to_size(-1)", "T.ones(2, 3).sum_to_size()",
    "T.ones(3, dtype=T.int32).sum_to_size(1)", "T.ones(3, dtype=T.bool).sum_to_size(1)", "T.ones(3, dtype=T.float16).sum_to_size(1)",
    "x = T.ones(2, 3, 4, requires_grad=True); (x.sum_to_size(3, 1).grad_fn.name(), x.sum_to_size(1, 3, 1).grad_fn.name())",
    "T.manual_seed(0); x = T.randn(2, 3, 4, dtype=T.float64, requires_grad=True); g = T.randn(3, 1, dtype=T.float64); y = x.sum_to_size(3, 1); y.backward(g); (y, x.grad)",
    "a = T.tensor([-4., -2., -0., 0., 2., 3.]); (a % 2, a % -2, T.remainder(a, 2.), T.remainder(2., a), 4 % a, -4. % a)",
    "a = T.tensor([-4., -2., -0., 0., 2., 3.]); (T.fmod(a, 2), T.fmod(a, -2.), a.fmod(T.tensor(-2.)))",
    "a = T.tensor([-4., -2., 0., 2.], dtype=T.float64); T.remainder(a[:, None], T.tensor([2., -2., float('inf')], dtype=T.float64))",
    "a = T.tensor([-2., 2.]); a %= 2; b = T.tensor([-2., 2.]); b.remainder_(-2); (a, b)",
    "(T.remainder(T.tensor([-2., 2.], dtype=T.float16), 2), T.remainder(T.tensor([-2., 2.], dtype=T.bfloat16), -2))",
    "a = T.tensor([-4, -2, 0, 3]); (a % 2, a % -2, 4 % T.tensor([-2, 3]), T.fmod(a, -3), T.remainder(-7, a[3:]))",
    "T.remainder(1e-30, T.tensor([3., -3.], dtype=T.float64)).tolist()",
    "(T.mul(1e-30, T.tensor([3.], dtype=T.float64)).tolist(), T.add(5, T.tensor([3, -4], dtype=T.int8)), T.remainder(5, T.tensor([3, -4], dtype=T.int8)))",
    "T.bitwise_and(5, T.tensor([3, -4], dtype=T.int8))", "T.sub(True, T.tensor([1, 2]))",
    "t = T.ones(1); [getattr(t, a) for a in 'is_xpu is_mps is_meta is_ipu is_vulkan is_mkldnn is_quantized is_nested is_sparse is_sparse_csr is_xla is_mtia is_maia'.split()]",
    "(T.tensor(2).is_nonzero(), T.tensor([0.]).is_nonzero(), T.tensor([]).is_nonzero())",
    "T.ones(2, 3).is_nonzero()", "T.tensor([]).is_nonzero()",
    "t = T.ones(2, 3); (t.const_data_ptr() == t.data_ptr(), t[1:].const_data_ptr() == t[1:].data_ptr(), t.is_distributed())",
    "x = T.ones(3, requires_grad=True); a, b, c = (x * 2).unbind(); [t.output_nr for t in (x, a, b, c, x * 2)]",
    "(T.tensor([0, 1, 0, 2]).nonzero_static(size=3), T.tensor([[0, 1], [2, 0]]).nonzero_static(size=1, fill_value=-5))",
    "t = T.arange(6.).new_empty_strided((2, 2), (1, 2)); (t.shape, t.stride(), t.dtype, T.ones(2).new_empty_strided((3,), (2,), dtype=T.int32).dtype)",
    "T.ones(2, requires_grad=True).new_empty_strided((2,), (1,), requires_grad=True).requires_grad",
    "g = T.Generator(); g.manual_seed(3); T.rand(3, generator=g); c = g.clone_state(); (c.initial_seed(), T.rand(2, generator=g), T.rand(2, generator=c), c.device)",
    "d = T.default_generator.clone_state(); T.equal(T.rand(3), T.rand(3, generator=d))",
    "p = T.nn.utils.rnn.pack_sequence([T.tensor([1., 2.]), T.tensor([3.])]); (p.byte(), p.char(), p.short())",
]  # fmt: skip

GROUPS = {
    "creation": CREATION, "promotion": PROMOTION, "metadata": METADATA, "conversion": CONVERSION,
    "misc": MISC, "complex": COMPLEX, "api": API,
}  # fmt: skip


@pytest.mark.parametrize(
    "code",
    [pytest.param(code, id=f"{group}-{code}") for group, codes in GROUPS.items() for code in codes],
)
def test_same_as_pytorch(code):
    same(code, torch, taimatsu)


def test_default_dtype_roundtrip():
    for mod in (torch, taimatsu):
        mod.set_default_dtype(mod.float64)
        try:
            assert repr(mod.tensor([1.5]).dtype).endswith("float64")
            assert repr(mod.tensor([1 + 1j]).dtype).endswith("complex128")
            assert repr(mod.tensor([1.5])) == "tensor([1.5000])"
        finally:
            mod.set_default_dtype(mod.float32)


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = taimatsu.from_numpy(a)
    t[0, 0] = 100
    assert a[0, 0] == 100
    a[1, 2] = -1
    assert t[1, 2].item() == -1
    assert t.numpy() is a or np.shares_memory(t.numpy(), a)


@pytest.mark.slow  # two fresh interpreters (the warning is once per process)
def test_scalar_of_a_tensor_that_requires_grad_warns_once():
    """PyTorch 2.13: float()/complex() of a tensor that requires grad warn once per process, not
    under no_grad (LBFGS's step reads its loss so); int(), .item() and bool() never do (checked
    in fresh interpreters: the flag is global)."""
    import subprocess
    import sys

    script = (
        "import warnings, sys\n"
        "warnings.simplefilter('always')\n"
        "lib = __import__(sys.argv[1])\n"
        "t = lib.tensor(1.0, requires_grad=True)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    int(t); t.item(); bool(t); float(t.detach())\n"
        "    with lib.no_grad(): float(t); complex(t)\n"  # silent, and the once is not spent
        "    silent = len(w)\n"
        "    complex(t); float(t); float(t * 2)\n"
        "print(silent, [(x.category.__name__, str(x.message)) for x in w])\n"
    )
    pytest.importorskip("torch")
    out = [
        subprocess.run(
            [sys.executable, "-c", script, lib],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        for lib in ("taimatsu", "torch")
    ]
    assert out[0] == out[1] and "requires_grad=True to a scalar" in out[0]


def _subclass_program(T):
    """Tensor.as_subclass (an alias of the tensor: AliasBackward0, the same memory and graph),
    Tensor._make_subclass, and a user subclass's repr (its own name as the prefix)."""

    class My(T.Tensor):
        pass

    x = T.ones(2, requires_grad=True)
    y = x.as_subclass(My)
    out = [type(y).__name__, y.requires_grad, y.is_leaf, type(y.grad_fn).__name__, y._base is x]
    (y * 2).sum().backward()
    out.append(x.grad.tolist())
    try:
        x.as_subclass(int)
    except TypeError as e:
        out.append(str(e))
    w = T.Tensor._make_subclass(My, T.ones(2), True)
    out += [type(w).__name__, w.requires_grad, w.is_leaf]
    out += [repr(y), repr(T.ones(2, 3).as_subclass(My)), repr(T.tensor(3.0).as_subclass(My))]
    out += [repr(T.nn.Parameter(T.ones(2))), repr(T.nn.Buffer(T.ones(1)))]
    return out


def test_user_subclasses_match_pytorch(torch_oracle):
    assert _subclass_program(taimatsu) == _subclass_program(torch_oracle)
