"""torch.tensor of sequences mixing NumPy arrays, tensors and numbers, as PyTorch's copy loop
reads them: arrays at any depth, a tensor in a scalar's place is its item() (more than one
element raises), a leading 0-d array has no length, and the 'list of numpy.ndarrays is
extremely slow' warning at the first array met (on the caller's line)."""

import warnings

import numpy as np
import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")

CASES = [
    "[np.ones(3), np.zeros(3)]",
    "[np.ones(2), [1, 2]]",
    "[[1, 2], np.ones(2, dtype=np.float32)]",
    "[1.0, np.ones(())]",
    "[[1.0, np.ones(())]]",
    "[np.float32(1), np.ones(())]",
    "[np.ones(()), np.float32(1)]",
    "[np.ones(2, dtype=np.int32), [True, False]]",
    "[np.ones((2, 0)), [[], []]]",
    "[np.ones(2), [1, 2, 3]]",
    "[[1, 2], [1, 2, 3], np.ones(2)]",
    "[L.ones(2), L.ones(2)]",
    "[L.ones(1), L.ones(1)]",
    "[[L.ones(2)]]",
    "[L.ones(2), np.ones(2)]",
    "[np.ones(2), L.ones(2)]",
    "[[1, 2], L.ones(2)]",
    "[L.ones(1, 1), 2.0]",
    "[L.ones(1, dtype=L.int32), 2]",
]


def _run(L, case):
    L.set_warn_always(True)  # TORCH_WARN_ONCE warns each time then
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                t = L.tensor(eval(case, {"np": np, "L": L}))  # the cases above
                res = (str(t.dtype).replace("torch.", ""), t.tolist())
            except Exception as e:  # noqa: BLE001
                res = (type(e).__name__, str(e))
    finally:
        L.set_warn_always(False)
    return res, [(str(x.message), x.lineno) for x in w]


@pytest.mark.parametrize("case", CASES)
def test_tensor_from_mixed_sequences_matches_pytorch(case):
    assert _run(tm, case) == _run(torch, case)


RANGE_CASES = {
    "range": lambda lib: lib.tensor(range(3)),
    "ranges": lambda lib: lib.tensor([range(3), range(3)]),
    "tuple_of_ranges": lambda lib: lib.tensor((range(2), range(2))),
    "empty_range": lambda lib: lib.tensor(range(0)),
    "as_tensor": lambda lib: lib.as_tensor(range(3)),
    "dtype": lambda lib: lib.tensor(range(3), dtype=lib.float32),
    "Tensor": lambda lib: lib.Tensor(range(3)),
    "LongTensor": lambda lib: lib.LongTensor(range(3)),
    "requires_grad": lambda lib: lib.tensor(range(2), dtype=lib.float64, requires_grad=True),
}


@pytest.mark.parametrize("case", RANGE_CASES)
def test_tensor_from_a_range_as_pytorch_reads_any_sequence(torch_oracle, case):
    mine, theirs = RANGE_CASES[case](tm), RANGE_CASES[case](torch_oracle)
    assert repr(mine) == repr(theirs)


SEQUENCE_CASES = {
    "array_f": "import array; L.tensor(array.array('f', [1, 2]))",
    "array_i": "import array; L.tensor(array.array('i', [1, 2]))",
    "array_d": "import array; L.tensor(array.array('d', [1.5]))",
    "nested_array": "import array; L.tensor([array.array('f', [1, 2])])",
    "as_tensor_array": "import array; L.as_tensor(array.array('f', [1, 2]))",
    "memoryview": "L.tensor(memoryview(b'ab'))",
    "bytearray": "L.tensor(bytearray(b'ab'))",
    "deque": "import collections; L.tensor(collections.deque([1.0, 2.0]))",
    "bytes": "L.tensor(b'ab')",
    "fraction": "from fractions import Fraction; L.tensor(Fraction(1, 2))",
    "fraction_in_list": "from fractions import Fraction; L.tensor([Fraction(1, 2)])",
    "decimal": "from decimal import Decimal; L.tensor(Decimal('1.5'))",
    "generator": "L.tensor(x for x in range(3))",
    "list_as_int": "L.tensor([1, [2]])",
    "list_as_float": "L.tensor([1.0, [2]])",
    "list_as_float_dtype": "L.tensor([1, [2]], dtype=L.float32)",
    "list_as_bool": "L.tensor([True, [2]])",
    "tuple_as_int": "L.tensor([1, (2,)])",
    "complex_as_float": "L.tensor([1 + 1j], dtype=L.float32)",
    "complex_as_int": "L.tensor([1 + 1j], dtype=L.int64)",
    "complex_as_bool": "L.tensor([1 + 1j], dtype=L.bool)",
}


@pytest.mark.parametrize("case", SEQUENCE_CASES)
def test_python_sequences_and_numbers(torch_oracle, case):
    shown = []
    for lib in (tm, torch_oracle):
        code = SEQUENCE_CASES[case]
        *setup, last = code.split("; ")
        env = {"L": lib}
        try:
            for line in setup:
                exec(line, env)
            shown.append(repr(eval(last, env)))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            shown.append(f"{type(e).__name__}: {e}")
    assert shown[0] == shown[1]
