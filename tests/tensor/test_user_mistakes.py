"""What a user's slips and edge cases show, against PyTorch (found by running tutorial-style
programs both ways): argument types the parser refuses, index tensors of the wrong type,
shape checks of index ops, NumPy interplay, and PyTorch's texts for common mistakes."""

import pytest
from oracle_expr import same

import taimatsu

CALLS = [
    # a list where an index tensor belongs: the parser's TypeError (position counts after self)
    "T.index_select(T.ones(3, 4), 0, [1])", "T.ones(3, 4).index_select(0, [1])",
    "T.gather(T.ones(3, 4), 1, [[0]])", "T.ones(3, 4).gather(1, [[0]])",
    "T.ones(3, 4).index_add(0, [0], T.ones(1, 4))", "T.ones(3, 4).index_copy(0, [0], T.ones(1, 4))",
    "T.index_add(T.ones(3, 4), 0, index=[0], source=T.ones(1, 4))",
    # index tensors: long, int, byte or bool (a 0-d tensor of any integer type is a number)
    "T.arange(3)[T.tensor([1, 0], dtype=T.int8)]", "T.arange(3)[T.tensor([1], dtype=T.int16)]",
    "T.arange(3)[T.tensor(1, dtype=T.int8)]", "T.arange(3)[T.tensor([1, 0], dtype=T.int32)]",
    "T.arange(5)[np.array([1, 0], dtype=np.int8)]", "T.arange(3)[np.bool_(True)]",
    "x = T.arange(5); x[T.tensor([1], dtype=T.int8)] = 7; x",
    "T.arange(5).index_put_((T.tensor([1], dtype=T.int8),), T.tensor(9))",
    # index_fill takes negative indices; index_add / index_fill check shapes
    "T.zeros(2).index_fill(0, T.tensor([-1]), 7.0)", "T.zeros(2, 3).index_fill(1, T.tensor([-1, -3]), 7.0)",
    "T.zeros(3).index_fill(0, T.tensor([-4]), 7.0)", "T.zeros(3).index_fill(0, T.tensor([3]), 7.0)",
    "T.zeros(3).index_fill(0, T.tensor([[0]]), 1)", "T.zeros(()).index_fill(0, T.tensor([-1]), 7.0)",
    "T.zeros(()).index_add(0, T.tensor([0]), T.tensor([3.0]))", "T.zeros(3).index_add(0, T.tensor(1), T.tensor(5.0))",
    "T.zeros(()).index_add(0, T.tensor([0]), T.tensor(3.0))",
    "T.tensor([1, 2]).repeat_interleave(T.tensor([2, 3]), output_size=4)",
    "T.tensor([1, 2]).repeat_interleave(T.tensor([2, 3]), output_size=5)",
    "T.tensor([1, 2]).repeat_interleave(2, output_size=3)", "T.repeat_interleave(T.tensor([2, 1]), output_size=2)",
    "T.tensor([1, 2]).repeat_interleave(T.tensor([2]), output_size=3)", "T.tensor([[1, 2]]).repeat_interleave(2, dim=1, output_size=4)",
    # sequences of tensors
    "x = T.ones(2); T.cat(x, x)", "T.cat(T.ones(2))", "x = T.ones(2); T.stack(x, x)", "T.cat(5)",
    "T.cat((T.ones(2), 5))", "T.cat([T.ones(2)], 'a')",
    # nn.functional's own checks
    "T.nn.functional.softmax([1.0], dim=0)", "T.nn.functional.log_softmax([1.0], dim=0)",
    "T.nn.functional.leaky_relu(T.ones(3), 'x')", "T.nn.functional.leaky_relu(T.ones(3), 0.2, True)",
    "T.nn.functional.celu(T.ones(4), alpha=0.0)",
    "T.nn.Linear(1, 2)(T.tensor(1.0))", "T.nn.functional.linear(T.tensor(1.0), T.ones(2, 1))",
    "T.nn.LSTM(10, 20)(T.ones(5, 3, 10, 1))", "T.nn.GRU(10, 20)(T.ones(5, 3, 10, 1))",
    "T.nn.RNN(10, 20)(T.ones(5, 3, 10, 1))",
    "T.nn.GroupNorm(2, 4)(T.ones(2, 6, 3))", "T.nn.functional.group_norm(T.ones(2, 4, 3), 0)",
    "T.group_norm(T.ones(2, 4, 3), 0)", "T.nn.functional.group_norm(T.ones(1, 2), 2)",
    "T.nn.functional.group_norm(T.ones(2, 4, 3), 2, T.ones(4), T.ones(2))",
    "T.nn.functional.group_norm(T.ones(2, 4, 3), 2, None, T.ones(2))",
    "T.nn.functional.group_norm(T.ones(2, 4, 3), 2, T.ones(2, 2))",
    # NumPy interplay: ufunc results come back as tensors (bool as uint8); ndarray @ tensor is refused
    "np.greater(T.ones(2), 0)", "np.sin(T.tensor(1.0))", "T.ones(2) @ np.ones(2)", "np.ones(2) @ T.ones(2)",
    # devices, random overloads, autograd's first complaint
    "T.device('cpu') == 'cpu'", "T.device('cpu') == T.device('cpu')",
    "T.normal(0.0, -1.0, (2,))", "T.normal(0.0, 1.0)", "T.normal(0.0, -1.5, (2,))",
    "T.manual_seed(0); T.empty(3, dtype=T.int64).random_(5, None)",
    "T.manual_seed(0); T.empty(3).random_(5, None)", "T.manual_seed(0); T.empty(3, dtype=T.int8).random_(-3, None)",
    "T.manual_seed(0); T.empty(3, dtype=T.int32).random_(to=4)", "T.empty(3).random_(None, None)",
    "T.autograd.grad(T.ones(1) * 2, T.ones(1))",
    # complex reciprocal as c10::complex divides: 1 / 0 is inf + nan j
    "T.tensor([1 + 2j, 0j, complex(float('inf'), 0), complex(-0.0, 2)]).reciprocal()",
    "T.tensor([0j, complex(1e-320, 0), complex(3, 4)], dtype=T.complex128).reciprocal()",
]  # fmt: skip


def test_complex_reciprocal_bits(torch_oracle):
    """The scale's denominator as one fused multiply-add, as PyTorch's build computes it."""
    import numpy as np

    for dt, bits in (("complex64", np.uint32), ("complex128", np.uint64)):
        torch_oracle.manual_seed(1)
        w = torch_oracle.randn(100000, dtype=getattr(torch_oracle, dt))
        w = w * torch_oracle.exp(torch_oracle.randn(100000) * 20)
        theirs = torch_oracle.view_as_real(w.reciprocal()).numpy()
        mine = taimatsu.view_as_real(taimatsu.tensor(w.numpy()).reciprocal()).numpy()
        finite = np.isfinite(theirs)
        assert (mine[finite].view(bits) == theirs[finite].view(bits)).all()
        assert (np.isnan(mine) == np.isnan(theirs)).all()


# a float where a size belongs (``x.view(-1, n / 2)``): the parser's texts, whose form depends on
# where the float sits and on the function's overloads
SIZE_CALLS = [
    "T.arange(12.0).view(-1, 12 / 2)", "T.arange(12.0).view(12 / 2, 2)", "T.arange(12.0).view(6.0)",
    "T.arange(12.0).view((6.0, 2))", "T.arange(12.0).view([-1, 6.0])", "T.arange(12.0).view('a')",
    "T.arange(12.0).reshape(12 / 4, -1)", "T.arange(12.0).reshape(3.0)", "T.arange(12.0).reshape((3.0, 4))",
    "T.arange(12.0).reshape(3, 4.0)", "T.arange(12.0).repeat(2.0)", "T.arange(12.0).repeat(2, 2.0)",
    "T.arange(12.0).view(3, 4).permute(1.0, 0)", "T.arange(12.0).permute(0.0)", "T.arange(12.0).view(3, 4).permute(0, 1.0)",
    "T.arange(12.0).expand('x')", "T.arange(12.0).expand(2.0, 12)", "T.arange(12.0).view(3, 4).expand(3, 4.0)",
    "T.arange(12.0).tile('x')", "T.arange(12.0).tile((2.0,))",
    "T.zeros(12 / 2)", "T.randn(2.5)", "T.empty(6.0)", "T.zeros(2, 3.0)", "T.zeros(2.0, 3)", "T.zeros((2, 3.0))",
    "T.ones([2.0])", "T.rand(2, 'a')", "T.rand('a')",
    "T.nn.Linear(3, 6.0)", "T.nn.Conv2d(3, 6.0, 3)",
    "T.ones(2).new_zeros(2.0)", "T.ones(2).new_zeros(2, 2.0)", "T.ones(2).new_ones((2.0,))",
]  # fmt: skip


# NaN in searchsorted's boundaries or values: PyTorch's binary search just compares (NumPy's
# sorts NaN last)
SEARCH_CALLS = [
    "T.searchsorted(T.tensor([1.0, 3.0, float('nan')]), T.tensor([float('nan'), 4.0, 0.0, 3.0]))",
    "T.searchsorted(T.tensor([1.0, 3.0, float('nan')]), T.tensor([float('nan'), 4.0, 3.0]), right=True)",
    "T.bucketize(T.tensor([float('nan'), 1.0, 5.0]), T.tensor([1.0, 2.0, float('nan')]))",
    "T.bucketize(T.tensor([float('nan'), 1.0, 5.0]), T.tensor([1.0, 2.0, float('nan')]), right=True)",
    "T.searchsorted(T.tensor([[1.0, float('nan')], [2.0, 3.0]]), T.tensor([[float('nan')], [float('nan')]]))",
    "T.searchsorted(T.tensor([float('nan'), float('nan')]), T.tensor([float('nan'), 1.0]))",
    "T.searchsorted(T.tensor(1), T.tensor([2]))",
]  # fmt: skip


# bool tensors: no floor division, remainder or fmod kernel; pow only to a bool power
BOOL_CALLS = [
    "b = T.tensor([True, False]); b // True", "b = T.tensor([True, False]); b % True", "b = T.tensor([True, False]); b // b",
    "b = T.tensor([True, False]); b % b", "b = T.tensor([True, False]); T.fmod(b, True)", "b = T.tensor([True, False]); T.fmod(b, b)",
    "b = T.tensor([True, False]); T.div(b, b, rounding_mode='trunc')", "b = T.tensor([True, False]); T.div(b, b, rounding_mode='floor')",
    "b = T.tensor([True, False]); b.remainder_(True)", "b = T.tensor([True, False]); b.floor_divide_(b)",
    "b = T.tensor([True, False]); b ** True", "b = T.tensor([True, False]); b ** False", "b = T.tensor([True, False]); b ** b",
    "b = T.tensor([True, False]); True ** b", "b = T.tensor([True, False]); T.pow(True, b)", "b = T.tensor([True, False]); b.pow_(True)",
    "b = T.tensor([True, False]); b ** 2", "b = T.tensor([True, False]); 2 ** b", "b = T.tensor([True, False]); b // 2",
]  # fmt: skip


# random factories' arguments, generators and *_like streams
RANDOM_CALLS = [
    "T.randint(0, 10.5, (2,))", "T.randint(0, 5, 3)", "T.randint(0.5, 5, (2,))", "T.rand(2, generator=5)",
    "T.randn(2, 3, generator='x')", "T.Generator().manual_seed(2.0)", "T.Generator().manual_seed(True)",
    "T.Generator().get_offset()", "T.Generator().set_offset(3)", "T.Generator().graphsafe_get_state()",
    "T.set_rng_state(T.zeros(3))", "T.Generator().set_state(T.zeros(3))", "T.set_rng_state(5)",
    "T.manual_seed(2.5); T.rand(2)",
    "T.randint_like(T.zeros(3), 10, generator=T.Generator().manual_seed(1))",
    "T.manual_seed(0); T.randint_like(T.zeros(2, 3).t(), 10)", "T.manual_seed(0); T.randint_like(T.zeros(2, 3).t(), 3, 10)",
    "T.randint_like(T.zeros(2, 3).t(), 10).stride()", "T.manual_seed(0); T.randint_like(T.zeros(2), 10, requires_grad=True)",
    "T.randint_like(T.zeros(2, dtype=T.int32), 5).dtype", "T.randint_like(T.zeros(2), 5, 5)",
    "T.rand_like(T.zeros(2, 3).t(), generator=T.Generator().manual_seed(1))",
    "T.randn_like(T.zeros(2, 3).t(), generator=T.Generator().manual_seed(1))",
]  # fmt: skip


MISC_CALLS = [
    "T.sort(T.tensor([3.0, 1.0]), True)", "T.sort(T.ones(2, 2), True)",
    "T.where(T.tensor([True, False]), T.ones(2, dtype=T.int8), 300)", "T.where(T.tensor([True, False]), 300, T.ones(2, dtype=T.int8))",
    "T.where(T.tensor([True, False]), T.ones(2, dtype=T.uint8), -1)", "T.where(T.tensor([True, False]), T.ones(2, dtype=T.uint8), -300)",
    "T.where(T.tensor([True, False]), T.ones(2, dtype=T.int32), 2 ** 40)", "T.where(T.tensor([True, False]), T.ones(2, dtype=T.float16), 1e6)",
    "T.unique(T.tensor([[1, 1, 2], [3, 3, 0]]), dim=1).stride()",
    "x = T.tensor([[[1, 1, 2], [3, 3, 0]], [[1, 1, 2], [3, 3, 0]]]); [T.unique(x, dim=d).stride() for d in range(3)]",
    "x = T.tensor([[[1, 1, 2], [3, 3, 0]], [[1, 1, 2], [3, 3, 0]]]); [T.unique_consecutive(x, dim=d).stride() for d in range(3)]",
    "sorted(n for n in T.distributions.__all__ if n.islower())",
    # a non-tensor in a tensor list, named by its type as PyTorch's C++ parser names it
    "x = T.ones(2, 3); T.cat([x, x.shape])", "x = T.ones(2, 3); T.stack([x, T.float32])",
    "x = T.ones(2, 3); T.hstack([x, T.device('cpu')])", "x = T.ones(2, 3); T.vstack([x, np.ones(3)])",
    "x = T.ones(2, 3); T.column_stack([x, T.strided])", "x = T.ones(2, 3); T.dstack([x, T.finfo(T.float32)])",
    "T.add(T.ones(2), T.float32)", "T.ones(2).mul(T.Size([2]))",
    "T.ones(1, 1, 3).squeeze(0, 1).shape", "T.ones(1, 1, 3).squeeze(0, 5)",
    "T.ones(1, 1, 3).squeeze_(0, 1).shape",
]  # fmt: skip


# legacy constructors: an array of their dtype is shared (writes show on both sides), a tensor
# comes back as an alias; numbers are no data; .type() takes types, strings and dtypes only
LEGACY_CALLS = [
    "a = np.array([1.0, 2.0, 3.0], dtype=np.float32); t = T.Tensor(a); a[0] = 100; t.add_(1); (t, a.tolist())",
    "a = np.array([1.0, 2.0], dtype=np.float64); t = T.Tensor(a); a[0] = 50; t",
    "a = np.array([1.0, 2.0], dtype=np.float32); t = T.FloatTensor(a); a[1] = 9; t",
    "a = np.array([1, 2]); t = T.LongTensor(a); a[0] = 7; t",
    "a = np.array([1.0, 2.0], dtype=np.float32); t = T.DoubleTensor(a); a[0] = 5; t",
    "x = T.tensor([1.0, 2.0]); y = T.Tensor(x); (y is x, y.data_ptr() == x.data_ptr(), y._base is x)",
    "x = T.tensor([1.0, 2.0]); (T.FloatTensor(x) is x, x.new(x) is x)",
    "T.Tensor(T.tensor([1, 2]))", "T.FloatTensor(T.tensor([1, 2]))", "T.LongTensor(T.tensor([1.0, 2.0]))",
    "T.Tensor(3.5)", "T.Tensor(True)", "T.Tensor(None)", "T.Tensor('a')", "T.Tensor(2, 3.0)", "T.Tensor(2, 'a')",
    "T.FloatTensor(size=(2,)).shape", "T.ones(2).new(3.5)", "T.ones(2).new(2, 3.0)",
    "T.ones(1, requires_grad=1)", "T.zeros(2, requires_grad=0)", "T.tensor([1.0], requires_grad=1)",
    "T.ones(1).type(int)", "T.ones(1).type(float)", "T.ones(1).type(1.5)", "T.ones(1).type('float')",
    "T.ones(1).type('torch.float32')", "T.ones(1).type(T.float64)", "T.ones(1).type('torch.IntTensor')",
    "T.ones(1).type(T.LongTensor)", "T.ones(1).type(object)",
]  # fmt: skip


NN_MISC_CALLS = [
    "m = T.nn.MultiheadAttention(16, 4, batch_first=True); m(T.ones(2, 5, 16), T.ones(2, 7, 16), T.ones(2, 7, 16), key_padding_mask=T.zeros(2, 5, dtype=T.bool))",
    "m = T.nn.MultiheadAttention(16, 4, batch_first=True); m(T.ones(2, 5, 16), T.ones(2, 7, 16), T.ones(2, 7, 16), key_padding_mask=T.zeros(3, 7, dtype=T.bool))",
    "m = T.nn.MultiheadAttention(16, 4, add_zero_attn=True); m(T.ones(5, 2, 16), T.ones(7, 2, 16), T.ones(7, 2, 16), key_padding_mask=T.zeros(2, 5, dtype=T.bool))",
]  # fmt: skip


def test_warnings_of_copies(torch_oracle):
    """new_tensor(tensor) names itself in its copy-construct warning, on the caller's line;
    np.array(tensor) gets NumPy 2's copy-keyword DeprecationWarning, as PyTorch's __array__."""
    import warnings

    import numpy as np

    seen = []
    for lib in (taimatsu, torch_oracle):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.ones(2).new_tensor(lib.tensor([1.0, 2.0]))
            np.array(lib.ones(2))
            np.asarray(lib.ones(2))
        seen.append(
            [(w.category.__name__, str(w.message)[:60], w.filename == __file__) for w in caught]
        )
    assert seen[0] == seen[1]


CUDA_LEGACY_CALLS = [
    "T.cuda.FloatTensor([1.0])",
    "T.cuda.LongTensor(2)",
    "T.ones(1).type('torch.cuda.FloatTensor')",
]


@pytest.mark.skipif(taimatsu.cuda.is_available(), reason="a CPU build's answers")
@pytest.mark.parametrize("call", CUDA_LEGACY_CALLS)
def test_cuda_legacy_types_on_a_cpu_build(torch_oracle, call):
    if torch_oracle.cuda.is_available():
        pytest.skip("the oracle has CUDA")
    same(call, torch_oracle, taimatsu)


SIZE_ADD_CALLS = [
    "T.Size([2, 3]) + [1]",
    "T.Size([2, 3]) + 1",
    "T.Size([2, 3]) + (4,)",
    "(1,) + T.Size([2])",
]


# every group above, one call per test
ALL_CALLS = [
    call
    for group in (
        CALLS,
        SIZE_CALLS,
        SEARCH_CALLS,
        BOOL_CALLS,
        RANDOM_CALLS,
        MISC_CALLS,
        LEGACY_CALLS,
        NN_MISC_CALLS,
        SIZE_ADD_CALLS,
    )
    for call in group
]


@pytest.mark.parametrize("call", ALL_CALLS)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # NumPy 2 on PyTorch's __array_wrap__
def test_same_as_pytorch(torch_oracle, call):
    same(call, torch_oracle, taimatsu)
