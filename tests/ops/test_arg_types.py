"""PyTorch's argument-parser TypeErrors (taimatsu/ops/arg_types.py), text for text."""

import pytest
from oracle_expr import same

import taimatsu

F = "T.nn.functional."
CALLS = [
    "max_pool2d(T.ones(1, 1, 4, 4), 2.5)", "max_pool2d(T.ones(1, 1, 4, 4), (2, 2.5))",
    "max_pool2d(T.ones(1, 1, 4, 4), (2.5, 2))", "max_pool2d(T.ones(1, 1, 4, 4), (True, 2))",
    "max_pool2d(T.ones(1, 1, 4, 4), (2, True))", "max_pool2d(T.ones(1, 1, 4, 4), None)",
    "max_pool2d(T.ones(1, 1, 4, 4), '2')", "max_pool2d(T.ones(1, 1, 4, 4), 2, padding=1.)",
    "max_pool2d(T.ones(1, 1, 4, 4), 2, dilation=True)", "max_pool2d(T.ones(1, 1, 4, 4), 2, 1, 0, 1, 0)",
    "max_pool2d(T.ones(1, 1, 4, 4), 2.5, return_indices=True)", "max_pool2d_with_indices(T.ones(1, 1, 4, 4), 2, 1.5)",
    "max_pool1d(T.ones(1, 1, 4), 2.5)", "max_pool1d(T.ones(1, 1, 4), 2, stride=True, return_indices=True)",
    "avg_pool1d(T.ones(1, 1, 4), 2.5)", "avg_pool1d(T.ones(1, 1, 4), 2, 1, 0, 0)",
    "avg_pool2d(T.ones(1, 1, 4, 4), True)", "avg_pool2d(T.ones(1, 1, 4, 4), 2, 2.5)",
    "avg_pool2d(T.ones(1, 1, 4, 4), 2, 1, 0, False, 1)", "avg_pool2d(T.ones(1, 1, 4, 4), 2, divisor_override=1.5)",
    "avg_pool2d(T.ones(1, 1, 4, 4), 2, divisor_override=True)", "avg_pool2d(T.ones(1, 1, 4, 4), 2, None, 0, 0)",
    "layer_norm(T.ones(2, 3), 3)", "layer_norm(T.ones(2, 3), (3.0,))", "layer_norm(T.ones(2, 3), (3, 2.0))",
    "layer_norm(T.ones(2, 3), T.tensor([3]))", "layer_norm(T.ones(2, 3), '3')",
    "batch_norm(T.ones(2, 3), None, None, training=1)", "batch_norm(T.ones(1, 3), None, None, training=1)",
    "batch_norm(T.ones(2, 3), None, None, training=None)", "batch_norm(T.ones(1, 3), T.ones(3), None, training=True)",
]  # fmt: skip


@pytest.mark.parametrize("call", CALLS)
def test_parser_type_errors(torch_oracle, call):
    same(F + call, torch_oracle, taimatsu)


SHAPE_CALLS = [
    "T.stack([T.ones(2), T.ones(2)], 1.5)", "T.stack([T.ones(2), T.ones(2)], True)", "T.stack([T.ones(2), T.ones(2)], None)",
    "T.stack([T.ones(2), T.ones(2)], T.tensor(1))", "T.flatten(T.ones(2, 3), 0.5)", "T.flatten(T.ones(2, 3), 0, True)",
    "T.index_select(None, 0, T.tensor([0]))", "T.index_select(T.ones(2), True, T.tensor([0]))",
    "T.gather(None, 0, T.tensor([[0]]))", "T.gather(T.ones(2, 3), 1.5, T.tensor([[0]]))",
    "T.full(3, 0)", "T.full((2,), None)", "T.full((2,), 'a')", "T.full(T.Size([2]), 1)", "T.full([2], 1.5)",
    "T.div(T.ones(2), T.ones(2), rounding_mode=2.5)", "T.div(T.ones(2), 2, rounding_mode=True)",
    "T.softmax(T.ones(2), 'a')", "T.log_softmax(T.arange(3), None)", "T.nn.functional.softmax(T.ones(2), (0, 1))",
    "T.nn.functional.softmax(T.ones(2, 3))", "T.nn.functional.softmin(T.ones(2), 1.5)",
    "T.nn.functional.cross_entropy(T.zeros(2, 3), T.zeros(2, dtype=T.long), ignore_index=2.5)",
    "T.arange(10**20)", "T.arange(3j)", "T.arange(1 + 0j)", "T.arange(None)", "T.arange(2**63)", "T.arange(-2**63 - 1, 0)",
    "T.ones(2, 3).transpose(0, 1.5)", "T.ones(2, 3).transpose(None, 1)", "T.ones(4).chunk(2.5)",
    "T.ones(4).chunk(2, 0.5)",
    "T.nn.functional.one_hot(T.arange(3), True)", "T.nn.functional.one_hot(T.arange(3), None)",
    "T.zeros(2).to(10**20)", "T.randint(0, -1)", "T.ones(4).split(2.5)", "T.ones(4).split(T.tensor(2))",
    "T.cat([T.ones(2), T.ones(2)], 1.5)", "T.add(T.ones(2), 1, alpha=None)", "T.ones(1, 2).squeeze()", "T.randint(True, ())", "T.randint(5, (True,))", "T.randint(None, (2,))",
    "T.nn.functional.cross_entropy(T.zeros(2, 3), T.zeros(2, dtype=T.long), ignore_index=True)",
]  # fmt: skip


@pytest.mark.parametrize("call", SHAPE_CALLS)
def test_int_argument_type_errors(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


# A Tensor where a sequence of tensors belongs, integer tensors in float-only kernels, index
# tensors of the wrong dtype or rank, non-int shapes: PyTorch refuses them (taimatsu iterated
# over the tensor's rows or computed in float)
REFUSED_CALLS = [
    "T.cat(T.ones(2, 2))", "T.stack(T.ones(2, 2))", "T.hstack(T.ones(2, 2))", "T.vstack(T.ones(2))",
    "T.row_stack(T.ones(2))", "T.dstack(T.ones(2))", "T.column_stack(T.arange(4))",
    "T.hypot(T.arange(3), T.arange(3))", "T.hypot(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))",
    "T.hypot(T.arange(3, dtype=T.uint8), T.arange(3, dtype=T.uint8))", "T.hypot(T.arange(3), T.ones(3))",
    "T.chain_matmul(T.ones(2))", "T.chain_matmul(T.ones(2, 2), T.ones(2))", "T.chain_matmul(T.ones(2, 3), T.ones(3, 2))",
    "T.tensor_split(T.arange(8), T.tensor([2, 5], dtype=T.int32))", "T.tensor_split(T.arange(8), T.tensor([[2, 5]]))",
    "T.tensor_split(T.arange(8), T.tensor(3, dtype=T.int8))", "T.tensor_split(T.arange(8), T.tensor([2, 5]))",
    "T.gradient(T.arange(4, dtype=T.uint8))", "T.broadcast_shapes(T.tensor([2, 3]))", "T.broadcast_shapes(T.tensor(3))",
    "T.broadcast_shapes(2.0)", "T.broadcast_shapes((2, 1), [3], 1)",
    # a 0-d tensor split (Python's IndexError before)
    "T.split(T.tensor(3.), 1)", "T.tensor(3.).split([1])", "T.unsafe_split(T.tensor(3.), 1)",
    "T.split_with_sizes(T.tensor(3.), [1])", "T.tensor_split(T.tensor(3.), 2)", "T.tensor_split(T.tensor(3.), [1])",
]  # fmt: skip


@pytest.mark.parametrize("call", REFUSED_CALLS)
def test_refused_arguments(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


# A dim given as a tensor: PyTorch's parser takes a 0-d integer tensor as its value and refuses
# other tensors with a TypeError (taimatsu compared the tensor and raised RuntimeError's
# "Boolean value of Tensor ... is ambiguous"); the messages name argument positions taimatsu
# does not know, so the type is compared
TENSOR_DIMS = [
    "T.unsqueeze(T.ones(4), T.tensor([0, 1]))", "T.softmax(T.ones(4), T.tensor([0, 1]))",
    "T.cumsum(T.ones(4), T.tensor([0, 1]))", "T.argmax(T.ones(4), T.tensor([0, 1]))",
    "T.squeeze(T.ones(4), T.tensor([0, 1]))", "T.unbind(T.ones(4), T.tensor([0, 1]))",
    "T.sum(T.ones(4), T.tensor([0, 1]))", "T.sort(T.ones(4), T.tensor([0, 1]))",
    "T.unsqueeze(T.ones(4), T.tensor(0.0))", "T.cumsum(T.ones(4), T.tensor(True))",
    "T.unsqueeze(T.ones(4), T.tensor(0))", "T.sum(T.ones(2, 3), T.tensor([1]))", "T.prod(T.ones(2, 3), T.tensor(1))",
    "T.cumsum(T.ones(4), T.tensor(0))", "T.transpose(T.ones(2, 3), T.tensor(0), 1)",
]  # fmt: skip


@pytest.mark.parametrize("call", TENSOR_DIMS)
def test_tensor_dims(torch_oracle, call):
    def run(T):
        try:
            return "ok", eval(call, {"T": T}).tolist()
        except Exception as e:  # noqa: BLE001  the exception's type is compared
            return type(e).__name__, None

    assert run(taimatsu) == run(torch_oracle)


# A tensor where an int belongs: PyTorch's parser takes an integer tensor of one element (any
# dims) through __index__ and refuses a float tensor or one of several elements with its
# TypeError (taimatsu raised RuntimeError/ValueError/IndexError, or took a float tensor)
X = "T.arange(12.).reshape(3, 4)"
INT_TENSOR_ARGS = {
    "T.topk(X, {})": "k", "T.kthvalue(X, {})": "k", "T.tril(X, {})": "diagonal",
    "T.triu(X, {})": "diagonal", "T.diag(X, {})": "diagonal", "T.diagonal(X, {})": "offset",
    "X.unfold(0, {}, 1)": "size", "X.unfold(0, 2, {})": "step", "T.select(X, 0, {})": "index",
    "T.combinations(X[0], {})": "r", "T.rot90(X, {})": "k", "T.roll(X, {})": "shifts",
    "T.multinomial(T.tensor([0.0, 1.0]), {}, True)": "num_samples", "T.histc(X, {})": "bins",
    "T.bincount(T.tensor([1, 2]), minlength={})": "minlength", "T.vander(X[0], {})": "N",
    "T.tril_indices({}, 3)": "row", "T.triu_indices(3, {})": "col", "T.eye({})": "n",
    "T.nn.functional.pixel_shuffle(T.zeros(1, 4, 2, 2), {})": "upscale_factor",
    "T.nn.functional.pixel_unshuffle(T.zeros(1, 1, 4, 4), {})": "downscale_factor",
}  # fmt: skip
INT_TENSORS = [
    "T.tensor(2)",
    "T.tensor([2])",
    "T.tensor([[2]])",
    "T.tensor(2.0)",
    "T.tensor([1, 2])",
]


@pytest.mark.parametrize("value", INT_TENSORS)
@pytest.mark.parametrize("call", sorted(INT_TENSOR_ARGS))
def test_tensor_for_an_int_argument(torch_oracle, call, value):
    same(call.replace("X", X).format(value), torch_oracle, taimatsu)


TENSOR_SIZE_CALLS = [
    "T.split(T.arange(6.), T.tensor([1, 2]))", "T.arange(6.).split([T.tensor(2.0), 4])",
    "T.arange(6.).split([T.tensor(2), 4])", "T.arange(6.).split(T.tensor([2]))",
    "T.fft.fft(T.arange(6.), T.tensor([1, 2]))", "T.fft.rfft(T.arange(6.), T.tensor([4]))",
    "T.fft.ihfft(T.arange(6.), T.tensor(3.0))", "T.fft.irfft(T.arange(6.), T.tensor(4))",
    F + "interpolate(T.zeros(1, 1, 6), size=T.tensor(2))", F + "interpolate(T.zeros(1, 1, 6), size=T.tensor([2]))",
    F + "interpolate(T.zeros(1, 1, 6), size=[T.tensor(3)])",
    F + "avg_pool1d(T.ones(1, 1, 6), T.tensor(2))", F + "max_pool1d(T.ones(1, 1, 6), T.tensor(2))",
    F + "avg_pool2d(T.ones(1, 1, 4, 4), T.tensor(2))", F + "max_pool2d(T.ones(1, 1, 4, 4), [T.tensor(2), 2])",
    F + "max_pool3d(T.ones(1, 1, 4, 4, 4), T.tensor(2))", F + "avg_pool3d(T.ones(1, 1, 4, 4, 4), [T.tensor(2)])",
    # int lists take an integer (or bool) tensor of one element, of any dims, alone or as an element
    F + "max_pool1d(T.arange(8.).reshape(1, 2, 4), T.tensor([2]))", F + "avg_pool1d(T.ones(1, 1, 6), T.tensor([2]))",
    F + "max_pool1d(T.arange(8.).reshape(1, 2, 4), 2, T.tensor([1]))", F + "max_pool2d(T.ones(1, 4, 4), T.tensor([True]))",
    F + "max_pool2d(T.arange(16.).reshape(1, 4, 4), [T.tensor([[2]]), 2])", F + "max_pool2d(T.ones(1, 4, 4), [2, T.tensor([2])])",
    F + "max_pool2d(T.ones(1, 4, 4), T.tensor([2], dtype=T.uint8))", F + "max_pool2d(T.ones(1, 4, 4), 2, 2, T.tensor([0]))",
    F + "max_pool2d(T.ones(1, 4, 4), T.tensor([1, 2]))", F + "max_pool2d(T.ones(1, 4, 4), [2, T.tensor(2.0)])",
    F + "max_pool2d(T.ones(1, 4, 4), [T.tensor(2.0), 2])", F + "max_pool2d(T.ones(1, 4, 4), T.tensor([2.0]))",
    F + "avg_pool2d(T.arange(16.).reshape(1, 4, 4), T.tensor([2]))", "T.nn.MaxPool2d(T.tensor([2]))(T.ones(1, 4, 4))",
    F + "conv1d(T.ones(1, 2, 4), T.ones(1, 2, 2), stride=T.tensor([2]))",
    F + "conv2d(T.ones(1, 1, 4, 4), T.ones(1, 1, 2, 2), padding=T.tensor([1]))",
    F + "conv2d(T.ones(1, 1, 4, 4), T.ones(1, 1, 2, 2), stride=[T.tensor([2]), 1])",
    # Number arguments take a tensor without dims only; linspace's steps too
    "T.arange(T.tensor(3))", "T.arange(T.tensor([3]))", "T.arange(0, T.tensor([3]))", "T.arange(0, 3, T.tensor([1]))",
    "T.arange(0, None)", "T.linspace(T.tensor([0.0]), 1, 3)", "T.linspace(0, T.tensor([[1.0]]), 3)",
    "T.linspace(0, 1, T.tensor([3]))", "T.linspace(0, 1, T.tensor(3))", "T.linspace(0, 1, None)",
    "T.logspace(T.tensor([0.0]), 1, 3)", "T.logspace(0, T.tensor([1.0, 2.0]), 3)", "T.logspace(0, 1, None)",
    # narrow's tensor start: integer and without dims; its length an int (a tensor of one element)
    "T.arange(5.).narrow(0, T.tensor(1.0), 2)", "T.arange(5.).narrow(0, T.tensor([1]), 2)",
    "T.arange(5.).narrow(0, T.tensor(True), 2)", "T.arange(5.).narrow(0, T.tensor(1), 2)",
    "T.arange(5.).narrow(0, 1, T.tensor([2]))", "T.arange(5.).narrow(T.tensor([0]), 1, 2)",
    "T.arange(5.).narrow(0, 1, True)", "T.arange(5.).narrow(0, T.tensor(1), T.tensor(2.0))",
]  # fmt: skip


@pytest.mark.parametrize("call", TENSOR_SIZE_CALLS)
def test_tensor_sizes(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


@pytest.mark.parametrize(
    "size,mode",
    [("T.tensor(2.0)", "nearest"), ("T.tensor([2, 3])", "nearest"), ("T.tensor(2.0)", "linear")],
)
def test_interpolate_size_tensor_refused(torch_oracle, size, mode):
    # PyTorch's TypeError lists the kernel's overloads after this first line; taimatsu gives the
    # first line (its argument types are those of nearest's overloads)
    lines = []
    for T in (torch_oracle, taimatsu):
        x = T.zeros(1, 1, 6) if size == "T.tensor(2.0)" else T.zeros(1, 1, 6, 6)
        with pytest.raises(TypeError) as info:
            T.nn.functional.interpolate(x, size=eval(size), mode=mode)
        lines.append(str(info.value).split(" - got ")[0])
    assert lines[1] == lines[0]


DIM_TENSOR_CALLS = [
    "T.roll(T.arange(12.).reshape(3, 4), 1, T.tensor(1))", "T.roll(T.arange(12.).reshape(3, 4), 1, T.tensor([0, 1]))",
    "T.roll(T.arange(12.).reshape(3, 4), [1, 2], [T.tensor(0), 1])", "T.roll(T.arange(12.).reshape(3, 4), 1, 1.5)",
    "T.movedim(T.arange(12.).reshape(3, 4), T.tensor(1), 0)", "T.movedim(T.arange(12.).reshape(3, 4), 1, T.tensor(0))",
    "T.movedim(T.arange(12.).reshape(3, 4), T.tensor([1]), 0)", "T.movedim(T.arange(12.).reshape(3, 4), T.tensor([0, 1]), 0)",
    "T.movedim(T.arange(24.).reshape(2, 3, 4), (T.tensor(1), 0), (0, 1))", "T.movedim(T.arange(12.).reshape(3, 4), 1.5, 0)",
]  # fmt: skip


@pytest.mark.parametrize("call", DIM_TENSOR_CALLS)
def test_tensor_dims_of_roll_and_movedim(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


# Python's types where a dtype belongs (float64, int64, bool, complex128), as PyTorch's parser
# reads them; a string or a NumPy type is its TypeError (taimatsu raised AttributeError)
PYTHON_DTYPES = [
    "T.zeros(2, dtype=float)", "T.ones(2, dtype=int)", "T.empty(2, dtype=bool).dtype", "T.zeros(2, dtype=complex)",
    "T.tensor([1.5]).to(float)", "T.tensor([1.5]).to(int)", "T.tensor([1.5]).to(bool)", "T.tensor([1.5]).to(complex)",
    "T.tensor([1.5]).to(dtype=float)", "T.zeros(2, dtype='float32')", "T.zeros(2, dtype=np.float32)",
    "T.zeros(2, dtype=str)", "T.arange(3, dtype=float)", "T.tensor([1], dtype=float)", "T.tensor([1], dtype='float')",
    "T.as_tensor([1.7], dtype=int)", "T.full((2,), 1, dtype=float)", "T.linspace(0, 1, 3, dtype=float)",
    "T.logspace(0, 1, 2, dtype=float)", "T.eye(2, dtype=int)", "T.randn(2, dtype=float).dtype", "T.rand(2, dtype=float).dtype",
    "T.randint(0, 3, (2,), dtype=float).dtype", "T.zeros_like(T.ones(2), dtype=int)", "T.full_like(T.ones(2), 2, dtype=int)",
    "T.rand_like(T.ones(2), dtype=float).dtype", "T.ones(2).new_zeros(2, dtype=int)", "T.ones(2).new_tensor([1.5], dtype=int)",
    "T.ones(2).new_full((2,), 1, dtype=float)", "T.ones_like(T.ones(2), dtype='x')", "T.tensor([1.5, 2.5]).sum(dtype=float)",
    "T.tensor([1, 2]).mean(dtype=float)", "T.tensor([1.5, 2.5]).prod(dtype=int)",
    # the other reductions and scans with a dtype (taimatsu raised AttributeError), and their checks
    "T.arange(6.).reshape(2, 3).nansum(dtype=float)", "T.arange(6.).nansum(dtype=complex)",
    "T.arange(6.).nanmean(dtype=float)", "T.arange(6.).nanmean(dtype=int)", "T.arange(6.).nanmean(dtype=complex)",
    "T.nanmean(T.arange(6.), dtype=bool)", "T.arange(6.).cumsum(0, dtype=float)", "T.arange(6.).cumprod(0, dtype=int)",
    "T.cumsum(T.arange(6.), 0, dtype=complex)", "T.arange(6.).cumsum(0, dtype='float32')",
    "T.arange(6.).norm(dtype=float)", "T.arange(6.).norm(dtype=int)", "T.arange(6.).norm(dtype=bool)",
    "T.arange(6.).norm(dtype=T.float64)", "T.arange(6.).norm(2, 0, False, T.float64)", "T.norm(T.arange(6.), dtype=T.float64)",
    "T.arange(6.).reshape(2, 3).norm(p='nuc', dtype=T.float64)", "T.arange(6.).norm(dtype='float32')",
    "T.linalg.vector_norm(T.arange(6.), dtype=float)", "T.linalg.vector_norm(T.arange(6.), dtype=complex)",
    "T.linalg.matrix_norm(T.ones(2, 3), dtype=float)", "T.linalg.matrix_norm(T.ones(2, 3), dtype=complex)",
    "T.linalg.matrix_norm(T.ones(2, 3), 'nuc', dtype=T.complex64)", "T.linalg.norm(T.ones(2, 3), dtype=float)",
    "T.linalg.norm(T.ones(2, 3), dtype=T.complex64)", "T.linalg.matrix_norm(T.ones(2, 3), dtype=T.int64)",
    "T.softmax(T.ones(2, 3), 0, dtype=float)", "T.ones(2, 3).log_softmax(1, dtype=float)",
    "T.softmax(T.ones(2, 3), 0, dtype='float32')", "T.nn.functional.softmin(T.ones(2, 3), 0, dtype='float32')",
    "T.special.softmax(T.ones(2, 3), 0, dtype='float32')", "T.special.log_softmax(T.ones(2, 3), 0, dtype=float)",
    "T.softmax(T.arange(6).reshape(2, 3), 0)", "T.log_softmax(T.arange(6).reshape(2, 3), 1)",
    "T.softmax(T.zeros(2, 0, dtype=T.long), 0)", "T.softmax(T.ones(2, 3), 0, dtype=int)",
    "T.arange(6.).cumsum_(0, dtype=T.float64)", "T.arange(6.).cumprod_(0, dtype=int)",
    "T.arange(6.).cumsum_(0, dtype=T.float32)", "T.arange(3).cumsum_(0, dtype=T.float32)",
    "T.ones(2, 3).to_sparse().to_dense(dtype=T.float32)", "T.ones(2, 3).to_sparse_csr().to_dense(dtype=float)",
    "T.ones(2, 3).to_dense(dtype=float)",
]  # fmt: skip


@pytest.mark.parametrize("call", PYTHON_DTYPES)
def test_python_types_as_dtypes(torch_oracle, call):
    same(call, torch_oracle, taimatsu)


# Device strings by c10's grammar, and Tensor.to / Module.to arguments that fit none of the
# parser's overloads (taimatsu read any string as a device, anywhere)
DEVICE_AND_TO = [
    "T.device('float64')", "T.device('float')", "T.device('')", "T.device('cuda:01')", "T.device('cpu:0')",
    "T.device('cuda_x')", "T.device(':0')", "T.device('cpu:')", "T.zeros(2, device='float64')",
    "T.ones(2).to('float64')", "T.ones(2).to('cpu', 'float64')", "T.ones(2).to(T.device('cpu'), 'float64')",
    "T.ones(2).to('cpu', 'float64', copy=True)", "T.ones(2).to(T.float32, 'cpu')", "T.ones(2).to(T.ones(2), 'cpu')",
    "T.ones(2).to('cpu', 3)", "T.ones(2).to('cpu', None)", "T.ones(2).to(None, 'cpu')", "T.ones(2).to([1])",
    "T.ones(2).to(0.5, 'cpu')", "T.ones(2).to('cpu', T.float64, True, True)", "T.ones(2).to('cpu', T.float64, True, True, True)",
    "T.ones(2).to('cpu', float)", "T.ones(2).to(T.float64, T.float32)", "T.ones(2).to(T.float64, True, False)",
    "T.nn.Linear(2, 2).to('float64')", "T.nn.Linear(2, 2).to('cpu', 'float64')", "T.nn.Linear(2, 2).to('cpu', T.float64).weight.dtype",
]  # fmt: skip


@pytest.mark.parametrize("call", DEVICE_AND_TO)
def test_device_strings_and_to_arguments(torch_oracle, call):
    same(call, torch_oracle, taimatsu)
