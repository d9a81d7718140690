"""Known differences of the oracle fuzzer (tests/ops/test_fuzz_oracle.py): each call below is a strict
xfail with the reason of its group. Fixing one makes its test XPASS and fail: delete its line then.

Regenerate the list only after checking that every new entry is a real, accepted difference:
none of them may be a leaked internal error that a fix can remove, or a silent wrong answer.
"""

# fmt: off
KNOWN: dict[str, str] = {}

# (No call is left where both refuse with different exception types: 2-d pooling and
# cross_entropy/nll_loss check in PyTorch's order, fixed cases in test_fuzz_oracle.py's FIXED.
# No wrongly typed argument is left either: taimatsu/ops/arg_types.py and the ops' own parser
# checks raise PyTorch's TypeErrors; nor a Python int past int64/uint64 read as a number.)

# Both answer with different results: svd of a rank-deficient matrix picks another, equally
# valid, singular vector for the zero singular value (PyTorch's is MKL's choice).
# (No call is left where taimatsu answers and PyTorch raises, or the reverse, nor a wrongly
# typed argument taimatsu accepts.)
VALUES = "Both answer with different results: svd of a rank-deficient matrix picks another, equally valid, singular vector for the zero singular value."
KNOWN.update(dict.fromkeys([
    'T.linalg.svd(T.ones(2, 3))',
], VALUES))

# fmt: on
