"""Known differences of the oracle fuzzer (tests/ops/test_fuzz_oracle.py): each call below is a strict
xfail with the reason of its group. Fixing one makes its test XPASS and fail: delete its line then.

Regenerate the list only after checking that every new entry is a real, accepted difference:
none of them may be a leaked internal error that a fix can remove, or a silent wrong answer.
"""

# fmt: off
KNOWN: dict[str, str] = {}

# Both refuse the call with different exception types: PyTorch usually runs another check
# first (dim range, sizes, target shape), or its kernel dispatch raises NotImplementedError
# where taimatsu's own check raises RuntimeError (or the reverse). Left: cross_entropy/nll_loss
# checking the target's dtype before its rank and batch size (PyTorch: RuntimeError "0D or 1D
# target tensor expected", ValueError "Expected input batch_size ... to match target batch_size ...").
# (No wrongly typed argument is left: taimatsu/ops/arg_types.py and the ops' own parser checks
# raise PyTorch's TypeErrors; nor a Python int past int64/uint64 read as a number.)
CHECK_ORDER = "Both refuse the call with different exception types: PyTorch usually runs another check first (dim range, sizes, target shape), or its kernel dispatch raises NotImplementedError where taimatsu's own check raises RuntimeError (or the reverse)."
KNOWN.update(dict.fromkeys([
    'T.nn.functional.cross_entropy(T.zeros(2, 0), T.tensor([[0, 5], [1, -1]]))',
    'T.nn.functional.cross_entropy(T.ones(2, 3, dtype=T.float64), T.zeros(0))',
    'T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.ones(3))',
    'T.nn.functional.cross_entropy(T.zeros(2, 0), T.tensor(2.5), ignore_index=1)',
    'T.nn.functional.cross_entropy(T.arange(6.).reshape(2, 3), T.tensor([True, False, True]), ignore_index=7)',
    'T.nn.functional.nll_loss(T.zeros(2, 0), T.tensor([math.nan, 1., -math.inf, math.inf]))',
    'T.nn.functional.nll_loss(T.tensor([[0, 5], [1, -1]]), T.tensor([True, False, True]))',
    'T.nn.functional.nll_loss(T.arange(6).reshape(2, 3), T.tensor([True, False, True]))',
    'T.nn.functional.nll_loss(T.ones(2, 3, dtype=T.float16), T.tensor([[0, 5], [1, -1]]))',
    'T.nn.functional.nll_loss(T.arange(6.).reshape(2, 3), T.tensor([True, False, True]))',
], CHECK_ORDER))

# Both answer with different results: svd of a rank-deficient matrix picks another, equally
# valid, singular vector for the zero singular value (PyTorch's is MKL's choice).
# (No call is left where taimatsu answers and PyTorch raises, or the reverse, nor a wrongly
# typed argument taimatsu accepts.)
VALUES = "Both answer with different results: svd of a rank-deficient matrix picks another, equally valid, singular vector for the zero singular value."
KNOWN.update(dict.fromkeys([
    'T.linalg.svd(T.ones(2, 3))',
], VALUES))

# fmt: on
