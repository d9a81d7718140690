"""Op database entries that do not run on "cuda" yet (CuPy test double), with where they fail.

"host array": the op hands a CUDA array to a NumPy-only routine (``np.asarray`` of the data,
a SciPy function, a host-side loop); each one would fail the same way on a real GPU. Ops that
run through host memory on purpose (taimatsu/ops/on_host.py: linalg's LAPACK paths, topk, mode,
quantile, cummax, unique...) pass. The test is a strict xfail, so fixing an op fails it until
its line here goes.
"""

# Empty: every entry runs on the double (an op that breaks on "cuda" goes here, with its place).
KNOWN_FAILURES: dict[str, str] = {}

# Entries whose PyTorch CUDA behaviour differs from its CPU behaviour by design: the CPU
# comparison does not apply (check_entry skips them); test_device_specific_ops.py checks what
# CUDA does instead.
DEVICE_SPECIFIC: dict[str, str] = {
    "histogram": "no CUDA kernel in PyTorch: NotImplementedError",
    **{
        name: "CUDA solves by QR only (driver 'gels', with its residuals; others refused)"
        for name in (
            "linalg.lstsq",
            "linalg.lstsq.rank_deficient",
            "linalg.lstsq.grad",
            "linalg.lstsq.rank_deficient_grad",
        )
    },
}
