"""Op database entries that do not run on "cuda" yet (CuPy test double), with where they fail.

"host array": the op hands a CUDA array to a NumPy-only routine (``np.asarray`` of the data,
a SciPy function, a host-side loop); each one would fail the same way on a real GPU. Ops that
run through host memory on purpose (taimatsu/ops/on_host.py: linalg's LAPACK paths, topk, mode,
quantile, cummax, unique...) pass. The test is a strict xfail, so fixing an op fails it until
its line here goes.
"""

KNOWN_FAILURES = {
    "nextafter": "host array at taimatsu/ops/pointwise/special.py:_nextafter_fwd()",
    "put": "host array at taimatsu/ops/indexing/put.py:_put_checks()",
    "special.zeta": "host array at taimatsu/ops/pointwise/special.py:compute()",
    "special.zeta.q": "host array at taimatsu/ops/pointwise/special.py:compute()",
}
