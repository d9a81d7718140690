"""Every op database entry (tests/ops/opdb*.py), forward and backward with a random cotangent,
and every in-place form, on the CuPy test double's "cuda" device against the same entry on the
CPU. Entries that reach for host memory are listed, with the place they fail, in
cuda_known_failures.py (strict xfail)."""

import pytest
from cuda_known_failures import KNOWN_FAILURES
from cuda_opdb_run import REGISTRY, check_entry, entry_dtype

_PARAMS = [
    pytest.param(
        name,
        marks=[pytest.mark.xfail(reason=KNOWN_FAILURES[name], strict=True)]
        if name in KNOWN_FAILURES
        else [],
    )
    for name in sorted(REGISTRY)
]


def test_known_failures_are_entries():
    assert set(KNOWN_FAILURES) <= set(REGISTRY)


@pytest.mark.parametrize("name", _PARAMS)
def test_op_on_cuda_matches_cpu(name, fake_cupy):
    check_entry(name)


@pytest.mark.parametrize("name", sorted(n for n, i in REGISTRY.items() if i.inplace is not None))
def test_inplace_op_on_cuda_matches_cpu(name, fake_cupy):
    check_entry(name, inplace=True)


_OTHER_DTYPES = [
    pytest.param(n, d, id=f"{n}-{d}", marks=pytest.mark.slow)
    for n, info in sorted(REGISTRY.items())
    for d in info.dtypes
    if d != entry_dtype(n)
]


@pytest.mark.parametrize(("name", "dtype"), _OTHER_DTYPES)
def test_op_on_cuda_matches_cpu_in_every_dtype(name, dtype, fake_cupy):
    check_entry(name, dtype=dtype)
