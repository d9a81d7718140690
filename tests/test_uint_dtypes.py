"""PyTorch's "shell" unsigned dtypes torch.uint16 / uint32 / uint64, checked against PyTorch.

They exist, are created, cast, indexed, viewed, printed and saved like any dtype, but PyTorch
2.13 has few kernels for them (add, lt, max, neg... raise '"add_stub" not implemented for
'UInt32'') and promotes them only with themselves and floating types (anything else raises
"Promotion for uint16, uint32, uint64 types is not supported, ..."). Each line below runs
under both libraries and must show the same value, or the same error type and message.
"""

from __future__ import annotations

import pytest

import taimatsu
from oracle_expr import same

torch = pytest.importorskip("torch")

# The same checks for each of the three dtypes.
PER_DTYPE = [
    'T.{d}',
    'str(T.{d})',
    'T.{d}.is_signed',
    'T.{d}.itemsize',
    'T.{d}.is_floating_point',
    'T.{d}.is_complex',
    'T.{d}.to_real()',
    'T.{d}.to_complex()',
    'T.iinfo(T.{d})',
    '(T.iinfo(T.{d}).min, T.iinfo(T.{d}).max, T.iinfo(T.{d}).bits)',
    'T.finfo(T.{d})',
    "hasattr(T, 'UInt{bits}Tensor')",
    'T.tensor([1, 2, 3], dtype=T.{d})',
    'T.tensor(7, dtype=T.{d})',
    'T.tensor([], dtype=T.{d})',
    'T.zeros(2, 3, dtype=T.{d})',
    'T.ones(2, dtype=T.{d})',
    'T.full((2,), 7, dtype=T.{d})',
    'T.empty(2, dtype=T.{d}).dtype',
    'T.arange(5, dtype=T.{d})',
    'T.randint(0, 10, (3,), dtype=T.{d}).dtype',
    'T.tensor([1, 2], dtype=T.{d}).type()',
    'T.from_numpy(np.array([1, 2], dtype=np.{d}))',
    'T.tensor([1, 2], dtype=T.{d}).numpy()',
    'T.tensor(np.array([3], dtype=np.{d}))',
    'T.tensor([3, 1, 2], dtype=T.{d}).sort()',
    'T.tensor([1, 2], dtype=T.{d}).sum()',
    'T.tensor([6, 5], dtype=T.{d}) & T.tensor([3, 3], dtype=T.{d})',
    'T.tensor([1, 2], dtype=T.{d}) * 3',
    'T.tensor([1, 2], dtype=T.{d}) + 1',
    'T.tensor([1, 2], dtype=T.{d}) + T.tensor([1, 2])',
    'T.tensor([1, 2], dtype=T.{d}).element_size()',
    'T.tensor([1, 2], dtype=T.{d}).is_signed()',
    'T.arange(3).to(T.{d})',
    'T.tensor([1, 2], dtype=T.{d}).max()',
    'T.tensor([1, 2], dtype=T.{d}) < 2',
    'T.tensor([1, 2], dtype=T.{d}) == 2',
]
EACH = [s.format(d=d, bits=d[4:]) for d in ("uint16", "uint32", "uint64") for s in PER_DTYPE]

# Mostly uint32 (the three behave alike): creation edge cases, conversions, item/tolist/numpy,
# indexing and views, comparisons, arithmetic, reductions, sorting, bitwise ops, promotion.
CASES = [
    'T.tensor([1, 2**63], dtype=T.uint64)',
    'T.tensor([2**64 - 1], dtype=T.uint64)',
    'T.tensor([2**64 - 1], dtype=T.uint64).item()',
    'T.tensor([2**64 - 1], dtype=T.uint64).tolist()',
    'T.tensor([5, 2**32 - 1], dtype=T.uint32)',
    'T.tensor([-1], dtype=T.uint32)',
    'T.tensor([1.5, 2], dtype=T.uint32)',
    'T.tensor(2**32, dtype=T.uint32)',
    'T.tensor([70000], dtype=T.uint16)',
    'T.tensor(2**64, dtype=T.uint64)',
    'T.tensor([-1], dtype=T.uint64)',
    'T.full((2,), -1, dtype=T.uint32)',
    'T.full((2,), 2.5, dtype=T.uint32)',
    'T.zeros_like(T.tensor([1, 2], dtype=T.uint32))',
    'T.ones_like(T.tensor([1, 2], dtype=T.uint32))',
    'T.full_like(T.tensor([1, 2], dtype=T.uint32), 5)',
    'T.empty_like(T.tensor([1, 2], dtype=T.uint32)).dtype',
    'T.linspace(0, 4, 5, dtype=T.uint32)',
    'T.eye(2, dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32).new_zeros(2)',
    'T.tensor([1, 2], dtype=T.uint32).new_tensor([3])',
    'T.tensor([1, 2], dtype=T.uint32).to(T.float32)',
    'T.tensor([1, 2], dtype=T.uint32).float()',
    'T.tensor([1, 2], dtype=T.uint32).double()',
    'T.tensor([1, 2], dtype=T.uint32).half()',
    'T.tensor([1, 2], dtype=T.uint32).long()',
    'T.tensor([1, 2], dtype=T.uint32).int()',
    'T.tensor([1, 0], dtype=T.uint32).bool()',
    'T.tensor([1, 300], dtype=T.uint32).byte()',
    'T.tensor([-1]).to(T.uint32)',
    'T.tensor([-1]).to(T.uint64)',
    'T.tensor([1.7, -1.0]).to(T.uint32)',
    'T.tensor([3e9]).to(T.uint32)',
    'T.tensor([True]).to(T.uint16)',
    'T.tensor([1, 2], dtype=T.uint32).to(T.uint64)',
    'T.tensor([1, 70000], dtype=T.uint32).to(T.uint16)',
    "T.tensor([1, 2], dtype=T.uint32).to('cpu', T.uint64)",
    'T.tensor([1, 2], dtype=T.uint32).type(T.uint16)',
    "T.tensor([1, 2], dtype=T.uint32).type('torch.UInt32Tensor')",
    'T.tensor([1, 2], dtype=T.uint32).view(T.int32)',
    'T.tensor([1, 2], dtype=T.uint32).view(T.uint8)',
    'T.tensor([1, 2], dtype=T.int32).view(T.uint32)',
    'T.tensor([1, 2], dtype=T.uint64).view(T.uint16)',
    'T.tensor([3], dtype=T.uint32).item()',
    'type(T.tensor([3], dtype=T.uint32).item())',
    'T.tensor([3, 2], dtype=T.uint64).tolist()',
    'T.tensor([[3], [2]], dtype=T.uint16).tolist()',
    'T.tensor([3, 2], dtype=T.uint64).numpy().dtype',
    'a = np.array([1, 2], dtype=np.uint32); t = T.from_numpy(a); a[0] = 9; t',
    't = T.tensor([1, 2], dtype=T.uint32); t.numpy()[1] = 7; t',
    'T.tensor([1, 2, 3], dtype=T.uint32)[1:]',
    'T.tensor([1, 2, 3], dtype=T.uint32)[0]',
    'T.tensor([1, 2, 3], dtype=T.uint32)[T.tensor([2, 0])]',
    'T.tensor([1, 2, 3], dtype=T.uint32)[T.tensor([True, False, True])]',
    'T.tensor([1, 2, 3], dtype=T.uint32).view(3, 1)',
    'T.tensor([1, 2], dtype=T.uint32).unsqueeze(0)',
    'T.tensor([1, 2], dtype=T.uint32).expand(2, 2)',
    'T.tensor([[1, 2]], dtype=T.uint32).transpose(0, 1).contiguous()',
    'T.tensor([[1, 2]], dtype=T.uint32).t()',
    'T.tensor([1, 2], dtype=T.uint32).repeat(2)',
    'T.tensor([1, 2], dtype=T.uint32).chunk(2)',
    'T.tensor([1, 2], dtype=T.uint32).split(1)',
    'T.tensor([1, 2], dtype=T.uint32).narrow(0, 0, 1)',
    'T.tensor([1, 2], dtype=T.uint32).roll(1)',
    'T.tensor([1, 2], dtype=T.uint32).flip(0)',
    'T.cat([T.tensor([1], dtype=T.uint32), T.tensor([2], dtype=T.uint32)])',
    'T.stack([T.tensor([1], dtype=T.uint32)] * 2)',
    'T.cat([T.tensor([1], dtype=T.uint32), T.tensor([2])])',
    'T.cat([T.tensor([1], dtype=T.uint32), T.tensor([2.5])])',
    'T.tensor([1, 2, 3], dtype=T.uint32).clone()',
    'T.zeros(2, dtype=T.uint32).copy_(T.tensor([5, 6]))',
    'T.zeros(2, dtype=T.uint32).copy_(T.tensor([-1]))',
    'T.zeros(2).copy_(T.tensor([5, 6], dtype=T.uint64))',
    'T.tensor([1, 2], dtype=T.uint32).fill_(3)',
    'T.tensor([1, 2], dtype=T.uint32).zero_()',
    't = T.zeros(3, dtype=T.uint32); t[1] = 5; t',
    't = T.zeros(3, dtype=T.uint32); t[1:] = T.tensor([7, 8], dtype=T.uint32); t',
    'T.tensor([1, 2], dtype=T.uint32) == T.tensor([1, 3], dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32) != 1',
    'T.tensor([1, 2], dtype=T.uint32).eq(1)',
    'T.tensor([1, 2], dtype=T.uint32).ne(T.tensor([1, 3], dtype=T.uint32))',
    'T.equal(T.tensor([1, 2], dtype=T.uint32), T.tensor([1, 2], dtype=T.uint32))',
    'T.tensor([1, 2], dtype=T.uint32) < T.tensor([1, 3], dtype=T.uint32)',
    'T.tensor([5], dtype=T.uint32) > T.tensor([3], dtype=T.uint32)',
    'T.tensor([5], dtype=T.uint32) <= 3',
    'T.tensor([5], dtype=T.uint32) >= 3',
    'T.tensor([1, 2], dtype=T.uint32) == T.tensor([1, 2])',
    'T.tensor([1, 2], dtype=T.uint32) + T.tensor([1, 3], dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32) - 5',
    'T.tensor([1, 2], dtype=T.uint32).sub(1)',
    'T.tensor([1, 2], dtype=T.uint32) * T.tensor([3, 4], dtype=T.uint32)',
    'T.tensor([2**32 - 1], dtype=T.uint32) * 2',
    'T.tensor([1, 2], dtype=T.uint32) * True',
    'T.tensor([1, 2], dtype=T.uint32) * 2.5',
    'T.tensor([1, 2], dtype=T.uint32) * T.tensor([1, 2])',
    'T.tensor([1, 2], dtype=T.uint32) / 2',
    'T.tensor([4, 2], dtype=T.uint32) / T.tensor([2, 2], dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32) // 2',
    'T.tensor([1, 2], dtype=T.uint32) % 2',
    "T.div(T.tensor([5], dtype=T.uint32), 2, rounding_mode='trunc')",
    'T.tensor([5], dtype=T.uint32) ** 2',
    'T.tensor([1, 2], dtype=T.uint32) + T.tensor([1, 3], dtype=T.uint8)',
    'T.tensor([1, 2], dtype=T.uint32) + T.tensor([1.0, 3])',
    'T.tensor([1, 2], dtype=T.uint32) + 1.5',
    'T.tensor([1, 2], dtype=T.uint32).abs()',
    'T.tensor([1, 2], dtype=T.uint32).neg()',
    '-T.tensor([1, 2], dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32).sum().dtype',
    'T.tensor([[1, 2]], dtype=T.uint32).sum(0)',
    'T.tensor([1, 2], dtype=T.uint32).sum(dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32).prod()',
    'T.tensor([1, 2], dtype=T.uint32).cumsum(0)',
    'T.tensor([1, 2], dtype=T.uint32).mean()',
    'T.tensor([1, 2], dtype=T.uint32).min()',
    'T.tensor([3, 1], dtype=T.uint32).amax()',
    'T.tensor([3, 1], dtype=T.uint32).max(0)',
    'T.tensor([1, 2], dtype=T.uint32).argmax()',
    'T.maximum(T.tensor([1], dtype=T.uint32), T.tensor([2], dtype=T.uint32))',
    'T.tensor([3, 1], dtype=T.uint32).sort(descending=True)',
    'T.tensor([3, 1], dtype=T.uint32).argsort()',
    'T.topk(T.tensor([3, 1], dtype=T.uint32), 1)',
    'T.tensor([2**32 - 1, 0], dtype=T.uint32).sort()',
    'T.tensor([2**64 - 1, 1], dtype=T.uint64).sort()',
    'T.tensor([1, 2, 1], dtype=T.uint32).unique()',
    'T.tensor([1, 2], dtype=T.uint32).any()',
    'T.tensor([1, 0], dtype=T.uint32).all()',
    'T.tensor([6], dtype=T.uint32) | 2',
    'T.tensor([6], dtype=T.uint32) ^ 2',
    'T.tensor([3, 2], dtype=T.uint32) & 1',
    'T.bitwise_and(T.tensor([6], dtype=T.uint32), T.tensor([3], dtype=T.uint32))',
    'T.bitwise_xor(T.tensor([6], dtype=T.uint64), T.tensor([3], dtype=T.uint64))',
    '~T.tensor([3, 2], dtype=T.uint32)',
    'T.tensor([3, 2], dtype=T.uint32) << 1',
    'T.tensor([6], dtype=T.uint32) >> 1',
    'T.tensor([6], dtype=T.uint32) & T.tensor([3])',
    'T.promote_types(T.uint32, T.int64)',
    'T.promote_types(T.uint32, T.uint8)',
    'T.promote_types(T.uint32, T.uint16)',
    'T.promote_types(T.uint64, T.uint32)',
    'T.promote_types(T.uint32, T.float32)',
    'T.promote_types(T.uint32, T.float16)',
    'T.promote_types(T.uint64, T.bfloat16)',
    'T.promote_types(T.float64, T.uint16)',
    'T.promote_types(T.uint32, T.bool)',
    'T.promote_types(T.bool, T.uint64)',
    'T.promote_types(T.uint16, T.complex64)',
    'T.promote_types(T.int8, T.uint64)',
    'T.promote_types(T.uint32, T.uint32)',
    'T.promote_types(T.int32, T.uint16)',
    'T.result_type(T.tensor([1], dtype=T.uint32), T.tensor([1]))',
    'T.result_type(T.tensor([1], dtype=T.uint32), 1)',
    'T.result_type(T.tensor([1], dtype=T.uint32), 1.0)',
    'T.result_type(T.tensor([1], dtype=T.uint32), True)',
    'T.result_type(T.tensor([1], dtype=T.uint32), T.tensor(1))',
    'T.result_type(T.tensor(1, dtype=T.uint32), T.tensor([1]))',
    'T.result_type(T.tensor([1.0]), T.tensor(1, dtype=T.uint32))',
    'T.result_type(T.tensor([1], dtype=T.uint8), T.tensor(1, dtype=T.uint32))',
    'T.result_type(T.tensor([True]), T.tensor(1, dtype=T.uint32))',
    'T.result_type(T.tensor(1, dtype=T.uint32), 2.0)',
    'T.result_type(T.tensor([1], dtype=T.uint32), 1j)',
    'T.can_cast(T.uint32, T.int64)',
    'T.can_cast(T.int64, T.uint32)',
    'T.can_cast(T.uint32, T.bool)',
    'T.can_cast(T.float32, T.uint32)',
]


# Range checks of torch.tensor / torch.full, and more of the kernels PyTorch refuses.
MORE = [
    'T.tensor([1.5], dtype=T.uint64)',
    'T.tensor(1.5, dtype=T.uint64)',
    'T.tensor(-1, dtype=T.uint64)',
    'T.tensor(2**64, dtype=T.uint32)',
    'T.full((1,), 2**32, dtype=T.uint32)',
    'T.full((1,), -2**32, dtype=T.uint32)',
    'T.full((1,), 2**64, dtype=T.uint64)',
    'T.full((1,), -2**63-1, dtype=T.uint64)',
    'T.full((1,), 1.5, dtype=T.uint64)',
    'T.full((1,), -1.5, dtype=T.uint32)',
    'T.full((1,), 70000, dtype=T.uint16)',
    'T.full((1,), 2**64-1, dtype=T.uint64)',
    'T.full((1,), -1, dtype=T.uint64)',
    'T.tensor(np.array([-1]), dtype=T.uint32)',
    'T.tensor([[1, 2], [3, -1]], dtype=T.uint64)',
    'T.tensor([[1, 2], [3, -1]], dtype=T.uint16)',
    'T.tensor([-65535], dtype=T.uint16)',
    'T.tensor([-65536], dtype=T.uint16)',
    'T.tensor([-2**31-1], dtype=T.uint32)',
    'T.tensor([-2**32], dtype=T.uint32)',
    'T.tensor([2**63], dtype=T.uint32)',
    'T.tensor([1.5, -1.5], dtype=T.uint16)',
    'T.tensor([1e10], dtype=T.uint32)',
    'T.tensor([True, False], dtype=T.uint64)',
    'T.tensor([2**63, 1], dtype=T.uint64)',
    'T.full((2,), True, dtype=T.uint32)',
    'T.tensor([], dtype=T.uint64)',
    'T.tensor([[]], dtype=T.uint32)',
    'T.arange(0, 5, 2, dtype=T.uint32)',
    'T.arange(5.5, dtype=T.uint32)',
    'T.eye(0, dtype=T.uint16)',
    'T.linspace(0, 1, 0, dtype=T.uint32)',
    'T.linspace(0, 1, 1, dtype=T.uint32)',
    'T.flip(T.tensor([1, 2], dtype=T.uint32), [0])',
    'T.tensor([[1, 2]], dtype=T.uint32).fliplr()',
    'T.neg(T.tensor([1, 2], dtype=T.uint32))',
    'T.tensor(1, dtype=T.uint64).abs()',
    'T.tensor([1], dtype=T.uint16) ** T.tensor([2], dtype=T.uint16)',
    'T.tensor([1, 2], dtype=T.uint32).pow(2.0)',
    'T.tensor([1, 2], dtype=T.uint32).add_(1)',
    'T.tensor([1, 2], dtype=T.uint32).mul_(2)',
    'T.tensor([1, 2], dtype=T.uint32).sub_(1)',
    'T.tensor([1, 2], dtype=T.uint32).lt_(1)',
    'T.tensor([1, 2], dtype=T.uint32).neg_()',
    'T.tensor([1, 2], dtype=T.uint32).abs_()',
    'T.tensor([1, 2], dtype=T.uint32) // T.tensor([1, 2], dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32) % T.tensor([1, 2], dtype=T.uint32)',
    'T.tensor([1, 2], dtype=T.uint32).bitwise_not_()',
    'T.tensor([1, 2], dtype=T.uint32).square()',
    'T.tensor([1, 2], dtype=T.uint32).sqrt()',
    'T.tensor([1, 2], dtype=T.uint32).exp()',
    'T.tensor([1, 2], dtype=T.uint32).float() ** 2',
    'T.tensor([1, 2], dtype=T.uint32).bitwise_left_shift(1)',
    'T.tensor([1, 2], dtype=T.uint32) <= T.tensor([1, 2], dtype=T.uint32)',
    'T.minimum(T.tensor([1], dtype=T.uint64), T.tensor([2], dtype=T.uint64))',
    'T.tensor([1, 2], dtype=T.uint32).fmod(2)',
    'T.tensor([[3, 1]], dtype=T.uint32).max(1)',
    'T.tensor([[3, 1]], dtype=T.uint32).min()',
    'T.tensor([[3, 1]], dtype=T.uint32).amin(0)',
    'T.tensor([[3, 1]], dtype=T.uint32).argmin(1)',
    'T.aminmax(T.tensor([[3, 1]], dtype=T.uint32))',
    'T.tensor([[3, 1]], dtype=T.uint32).max(T.tensor([[3, 1]], dtype=T.uint32))',
    'T.max(T.tensor([], dtype=T.uint32))',
    'T.tensor([], dtype=T.uint32).max(0)',
    'T.tensor([], dtype=T.uint32).argmax()',
    'T.tensor([[3, 1]], dtype=T.uint32).median()',
    'T.tensor([[3, 1]], dtype=T.uint32).median(0)',
    'T.topk(T.tensor([[3, 1]], dtype=T.uint32), 0)',
    'T.topk(T.tensor(3, dtype=T.uint32), 1)',
    'T.tensor([[3, 1]], dtype=T.uint32).sum(dtype=T.uint64)',
    'T.tensor([[3, 1]], dtype=T.uint32).sum(0, dtype=T.uint16)',
    'T.tensor([], dtype=T.uint32).sum(dtype=T.uint32)',
    'T.tensor([1, 2]).sum(dtype=T.uint32)',
    'T.tensor([[3, 1]], dtype=T.uint16).sum(1)',
]


@pytest.mark.parametrize("code", EACH + CASES + MORE)
def test_uint_snippet(code):
    same(code, torch, taimatsu)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_save_load_interop(name):
    """torch.save/torch.load both ways: PyTorch writes these dtypes as a byte UntypedStorage
    plus _rebuild_tensor_v3(..., dtype); each library must read the other's file."""
    import io

    big = (1 << (8 * getattr(taimatsu, name).itemsize)) - 1
    values = [[1, big], [3, 4]]
    ours = taimatsu.tensor(values, dtype=getattr(taimatsu, name))
    buf = io.BytesIO()
    taimatsu.save({"a": ours, "col": ours[:, 1], "f": taimatsu.ones(2)}, buf)
    buf.seek(0)
    theirs = torch.load(buf)  # weights_only=True by default: only PyTorch's allowed globals
    assert theirs["a"].dtype == getattr(torch, name) and theirs["a"].tolist() == values
    assert theirs["col"].tolist() == [big, 4] and theirs["f"].tolist() == [1.0, 1.0]

    buf = io.BytesIO()
    t = torch.tensor(values, dtype=getattr(torch, name))
    torch.save({"a": t, "col": t[:, 1]}, buf)
    buf.seek(0)
    back = taimatsu.load(buf)
    assert repr(back) == repr({"a": t, "col": t[:, 1]})
    back["a"][1, 1] = 9  # the view still shares the loaded storage, as in PyTorch
    assert back["col"].tolist() == [big, 9]

    buf.seek(0)
    again = taimatsu.load(buf)
    buf2 = io.BytesIO()
    taimatsu.save(again, buf2)
    buf2.seek(0)
    assert repr(taimatsu.load(buf2)) == repr({"a": t, "col": t[:, 1]})
