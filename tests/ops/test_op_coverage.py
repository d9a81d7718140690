"""Issue #3's scope, checked: every op it lists exists in taimatsu where PyTorch has it (``torch.X``,
``torch.linalg.X``, ``torch.fft.X``, ``torch.special.X``), has its Tensor method and in-place method
where PyTorch has them, and has an entry in the op database (tests/opdb_*.py). Prints the count."""

from __future__ import annotations

import pytest
from opdb import REGISTRY, implementation, load_all

import taimatsu

torch = pytest.importorskip("torch")
load_all()

SCOPE = {
    "pointwise": """abs absolute acos acosh add addcdiv addcmul angle asin asinh atan atan2 atanh
        bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift ceil clamp
        clamp_min clamp_max clip copysign cos cosh deg2rad div erf erfc erfinv exp exp2 expm1 float_power
        floor floor_divide fmax fmin fmod frac frexp gcd heaviside hypot i0 isclose isfinite isinf isnan
        isneginf isposinf isreal lcm ldexp lerp lgamma digamma polygamma log log10 log1p log2 logaddexp
        logaddexp2 logical_and logical_or logical_xor logical_not logit maximum minimum mul mvlgamma
        nan_to_num neg nextafter positive pow rad2deg real imag conj reciprocal remainder round rsqrt
        sigmoid sign sgn signbit sin sinc sinh sqrt square sub tan tanh trunc xlogy""",
    "special": """special.expit special.logit special.erf special.erfc special.erfinv special.xlogy
        special.xlog1py special.entr special.gammaln special.digamma special.polygamma special.i0
        special.i0e special.i1 special.i1e special.log_softmax special.softmax special.logsumexp
        special.ndtr special.ndtri special.log_ndtr special.sinc special.round special.multigammaln
        special.zeta""",
    "reductions": """all any amax amin aminmax argmax argmin count_nonzero cummax cummin cumprod cumsum
        logcumsumexp logsumexp max min mean median nanmean nanmedian nansum mode norm prod quantile
        nanquantile std std_mean sum unique unique_consecutive var var_mean sort argsort topk kthvalue
        msort searchsorted bucketize histc bincount""",
    "shape": """as_strided atleast_1d atleast_2d atleast_3d broadcast_to broadcast_tensors broadcast_shapes
        cat concat chunk column_stack dsplit dstack expand expand_as flatten unflatten flip fliplr flipud
        hsplit hstack movedim moveaxis narrow permute ravel repeat repeat_interleave reshape roll rot90
        select split squeeze stack swapaxes swapdims t take take_along_dim tensor_split tile transpose
        tril triu unbind unfold unsqueeze view view_as vsplit vstack diag diag_embed diagflat diagonal
        block_diag cartesian_prod combinations meshgrid tril_indices triu_indices""",
    "indexing": """gather scatter scatter_add scatter_reduce index_select index_add index_copy index_fill
        index_put masked_fill masked_scatter masked_select nonzero argwhere where put take""",
    "linalg": """matmul mm mv dot vdot inner outer ger bmm baddbmm addbmm addmm addmv addr chain_matmul
        einsum tensordot kron cross cdist trace det logdet slogdet inverse pinverse matrix_power
        matrix_exp cholesky linalg.norm linalg.vector_norm linalg.matrix_norm linalg.inv linalg.inv_ex
        linalg.det linalg.slogdet linalg.solve linalg.solve_triangular linalg.lstsq linalg.cholesky
        linalg.cholesky_ex linalg.qr linalg.eig linalg.eigvals linalg.eigh linalg.eigvalsh linalg.svd
        linalg.svdvals linalg.pinv linalg.matrix_rank linalg.matrix_power linalg.multi_dot linalg.cross
        linalg.vecdot linalg.lu linalg.lu_factor linalg.lu_solve linalg.householder_product
        linalg.tensorinv linalg.tensorsolve linalg.cond""",
    "fft": """fft.fft fft.ifft fft.rfft fft.irfft fft.fft2 fft.ifft2 fft.rfft2 fft.irfft2 fft.fftn fft.ifftn
        fft.rfftn fft.irfftn fft.hfft fft.ihfft fft.fftfreq fft.rfftfreq fft.fftshift fft.ifftshift""",
    "complex": "view_as_real view_as_complex complex polar",
}
NAMES = list(
    dict.fromkeys(n for block in SCOPE.values() for n in block.split())
)  # "take" is listed twice

# Scope names that are not functions of the op database, with where they are tested instead.
NOT_OPS = {
    "broadcast_shapes": "returns a torch.Size, no tensor: tests/tensor/test_tensor_core.py (broadcast group)",
}


def _get(root, dotted):
    for part in dotted.split("."):
        root = getattr(root, part, None)
        if root is None:
            return None
    return root


def _base(key: str) -> str:
    parts = key.split(".")
    return ".".join(parts[:2]) if parts[0] in ("special", "linalg", "fft") else parts[0]


def _covered() -> set:
    keys = {_base(k) for k in REGISTRY}
    # torch.fft.fft's entries are named "fft", "rfft2", ...: the namespace is implied
    keys |= {"fft." + k for k in keys if _get(taimatsu.fft, k) is not None}
    objs = {id(implementation(_get(taimatsu, k))) for k in keys if _get(taimatsu, k) is not None}
    return {
        n
        for n in NAMES
        if n in keys
        or (_get(taimatsu, n) is not None and id(implementation(_get(taimatsu, n))) in objs)
    }


def test_scope_functions_exist():
    missing = [n for n in NAMES if _get(torch, n) is not None and _get(taimatsu, n) is None]
    assert not missing, "in torch but not in taimatsu: " + ", ".join(missing)


def test_scope_methods_exist():
    plain = [n for n in NAMES if "." not in n]
    missing = [n for n in plain if hasattr(torch.Tensor, n) and not hasattr(taimatsu.Tensor, n)]
    missing += [
        n + "_"
        for n in plain
        if hasattr(torch.Tensor, n + "_") and not hasattr(taimatsu.Tensor, n + "_")
    ]
    missing += [
        n + "_" for n in plain if hasattr(torch, n + "_") and not hasattr(taimatsu, n + "_")
    ]
    assert not missing, "Tensor methods / in-place forms missing: " + ", ".join(missing)


def test_scope_is_in_the_op_database(capsys):
    covered = _covered()
    missing = [n for n in NAMES if n not in covered and n not in NOT_OPS]
    with capsys.disabled():
        print(
            f"\nissue #3 scope: {len(covered)}/{len(NAMES)} listed ops have op-database entries; "
            f"{len(NOT_OPS)} not a tensor op, tested elsewhere: {', '.join(NOT_OPS)}"
        )
    assert not missing, "listed in issue #3 but not in the op database: " + ", ".join(missing)
