"""A float64 (or Python float, or 32/64-bit integer) value stored as float16 or bfloat16 is
rounded as PyTorch rounds it: to float32 first, then to the half type (c10's Half and BFloat16
take a float). NumPy rounds once, which differs where the float32 rounding lands on a tie of
the half type: 192.50000000000003 is 192 as PyTorch's bfloat16, 193 as ml_dtypes'; about one
random float64 in 2^13 as float16, one in 2^16 as bfloat16. Every way a value gets in is checked
against PyTorch: creation, conversion, copies, fills and the ops that take a scalar."""

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

V, W = 192.50000000000003, 1 + 2**-11 + 2**-40  # ties after float32 rounding: bfloat16, float16
BIG = 16777217 + 2**16  # an int whose float32 rounding makes a bfloat16 tie


def _set(T, z):
    a = z.clone()
    a[0], a[1] = V, W
    return a


def _set_advanced(T, z):
    a = z.clone()
    a[T.tensor([0, 1])] = V
    a[a == 0] = W
    return a


def _set_recorded(T, z):
    b = z.clone().requires_grad_() * 1
    b[0] = V
    return b.detach()


# fmt: off
ENTRIES = {
    "tensor": lambda T, d, z: T.tensor([V, W, -V], dtype=d),
    "tensor_scalar": lambda T, d, z: T.tensor(V, dtype=d).view(1),
    "tensor_ints": lambda T, d, z: T.tensor([BIG, -BIG], dtype=d),
    "tensor_of_tensors": lambda T, d, z: T.tensor([T.tensor(V, dtype=T.float64), T.tensor(W, dtype=T.float64)], dtype=d),
    "to": lambda T, d, z: T.tensor([V, W], dtype=T.float64).to(d),
    "to_from_int64": lambda T, d, z: T.tensor([BIG, 3]).to(d),
    "type": lambda T, d, z: T.tensor([V, W], dtype=T.float64).type(d),
    "as_tensor": lambda T, d, z: T.as_tensor(np.array([V, W]), dtype=d),
    "from_numpy_to": lambda T, d, z: T.from_numpy(np.array([V, W])).to(d),
    "copy_": lambda T, d, z: z.clone().copy_(T.tensor([V, W, V], dtype=T.float64)),
    "full": lambda T, d, z: T.full((2,), V, dtype=d),
    "full_like": lambda T, d, z: T.full_like(z, W),
    "new_full": lambda T, d, z: z.new_full((2,), V),
    "new_tensor": lambda T, d, z: z.new_tensor([V, W]),
    "scalar_tensor": lambda T, d, z: T.scalar_tensor(V, dtype=d).view(1),
    "fill_": lambda T, d, z: z.clone().fill_(V),
    "fill_tensor": lambda T, d, z: z.clone().fill_(T.tensor(V, dtype=T.float64)),
    "setitem": lambda T, d, z: _set(T, z),
    "setitem_advanced": lambda T, d, z: _set_advanced(T, z),
    "setitem_recorded": lambda T, d, z: _set_recorded(T, z),
    "masked_fill": lambda T, d, z: z.masked_fill(T.tensor([True, False, True]), V),
    "index_fill": lambda T, d, z: z.index_fill(0, T.tensor([1]), W),
    "where": lambda T, d, z: T.where(T.tensor([True, False, True]), z, V),
    "where_first": lambda T, d, z: T.where(T.tensor([True, False, True]), W, z),
    "scatter": lambda T, d, z: z.scatter(0, T.tensor([0]), V),
    "linspace": lambda T, d, z: T.linspace(0, V, 7, dtype=d),
    # a 0-d float64 operand takes the half tensor's dtype: converted as above
    "add_0d_float64": lambda T, d, z: z + T.tensor(V, dtype=T.float64),
    "mul_0d_float64": lambda T, d, z: (z + 1) * T.tensor(W, dtype=T.float64),
}
# fmt: on


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_values_enter_half_types_as_in_pytorch(entry, dtype):
    f = ENTRIES[entry]
    theirs = f(torch, getattr(torch, dtype), torch.zeros(3, dtype=getattr(torch, dtype)))
    mine = f(tm, getattr(tm, dtype), tm.zeros(3, dtype=getattr(tm, dtype)))
    assert mine.dtype == getattr(tm, dtype)
    assert mine.tolist() == theirs.tolist()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_random_float64_to_half_is_bit_identical(dtype):
    rng = np.random.default_rng(0)
    # spread over the type's range: 7 (float16) and 3 (bfloat16) of these round otherwise once
    x = rng.standard_normal(200_000) * np.exp2(rng.integers(-20, 15, 200_000))
    mine = tm.tensor(x).to(getattr(tm, dtype)).float().numpy()
    theirs = torch.tensor(x).to(getattr(torch, dtype)).float().numpy()
    np.testing.assert_array_equal(mine.view(np.uint32), theirs.view(np.uint32))
