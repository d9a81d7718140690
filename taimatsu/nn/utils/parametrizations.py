"""``torch.nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and ``orthogonal`` as
parametrizations."""

from __future__ import annotations

from enum import Enum, auto

from ..._tensor.core import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.nn.weight_norm import _weight_norm, norm_except_dim
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """``module.<name> = g * v / ||v||`` with ``g`` and ``v`` stored as ``original0`` / ``original1``.

    A state_dict saved with the older ``nn.utils.weight_norm`` (``<name>_g``, ``<name>_v``) loads
    into the parametrization, as in PyTorch."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def old_keys(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        g, v = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g in state_dict and v in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v)

    module._register_load_state_dict_pre_hook(old_keys)
    return module


class _SpectralNorm(Module):
    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place, as PyTorch's (``out=``): the buffers keep their identity across calls.
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.t().conj().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.conj().dot(weight_mat.mv(v)) if not u.is_complex() else u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim=None) -> Module:  # fmt: skip
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration."""
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d

    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")  # noqa: TRY004 - PyTorch raises ValueError
    if dim is None:
        transposed = [ConvTranspose1d, ConvTranspose2d]
        try:
            from ..modules.conv import ConvTranspose3d

            transposed.append(ConvTranspose3d)
        except ImportError:
            pass
        dim = 1 if isinstance(module, tuple(transposed)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


# ---- orthogonal --------------------------------------------------------------------------------------
class _OrthMaps(Enum):
    """orthogonal()'s maps (PyTorch's enum: pickled parametrized modules name it)."""

    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _q_factor(a: Tensor) -> Tensor:
    """The Q of ``a = QR`` (``a`` tall) with diag(R) made non-negative, through geqrf as PyTorch."""
    from ...linalg import householder_product

    reflectors, tau = a.geqrf()
    signs = reflectors.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return householder_product(reflectors, tau) * signs


class _Orthogonal(Module):
    """Maps an unconstrained (tall, after a transpose if wide) matrix to an orthogonal one: the
    exponential or Cayley transform of the skew part of its lower triangle, or a product of
    Householder reflections. With ``use_trivialization`` the result multiplies a ``base`` buffer
    (set when a value is assigned), so that any orthogonal matrix can be reached."""

    def __init__(
        self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True
    ) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        from ... import linalg
        from ...ops.creation.ranges import eye

        wide = X.size(-2) < X.size(-1)
        if wide:
            X = X.mT
        n, k = X.size(-2), X.size(-1)
        if self.orthogonal_map == _OrthMaps.householder:
            reflectors = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (reflectors * reflectors).sum(dim=-2))
            # the diagonal of X holds the signs (+-1) of the columns, not differentiated
            Q = linalg.householder_product(reflectors, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            L = X.tril()
            if n != k:  # the square matrix whose first k columns are L
                L = _cat_columns(L, L.new_zeros(n, n - k).expand(*L.shape[:-2], -1, -1))
            A = L - L.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = A.matrix_exp()
            else:  # Cayley: (I - A/2)^-1 (I + A/2)
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        if "base" in self._buffers:
            Q = self.base @ Q
        return Q.mT if wide else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        from ...ops.creation.factories import zeros_like
        from ...ops.creation.random import randn
        from ...ops.creation.ranges import eye

        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape {Q.shape}."
            )
        given = Q
        wide = Q.size(-2) < Q.size(-1)
        if wide:
            Q = Q.mT
        n, k = Q.size(-2), Q.size(-1)
        if "base" not in self._buffers:
            if self.orthogonal_map != _OrthMaps.householder:
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley parametrizations when "
                    "use_trivialization=False."
                )
            # Householder reflectors of Q, the diagonal holding the signs that give diag(R) > 0
            # (a zero tau means LAPACK used no reflection there: its sign flips)
            A, tau = Q.geqrf()
            diag = A.diagonal(dim1=-2, dim2=-1)
            diag.sign_()
            diag[tau == 0.0] *= -1
            return A.mT if wide else A
        if n == k:
            tol = 10.0 * n * _eps(Q.dtype)
            square_ok = (Q.mH @ Q).allclose(eye(k, dtype=Q.dtype, device=Q.device), atol=tol)
            Q = Q.clone() if square_ok else _q_factor(Q)
        else:  # completed to a square orthogonal matrix by random columns
            extra = randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
            Q = _q_factor(_cat_columns(Q, extra))
        self.base = Q
        # -I: the Householder map sends it (and the exponential/Cayley maps send it) to I
        neg_id = zeros_like(given)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def _cat_columns(a: Tensor, b: Tensor) -> Tensor:
    from ...ops.shape.copies import cat

    return cat([a, b], dim=-1)


def _eps(dtype) -> float:
    from ..._dtype import _finfo_of

    return _finfo_of(dtype).eps


def orthogonal(module: Module, name: str = "weight", orthogonal_map=None, *,
               use_trivialization: bool = True) -> Module:  # fmt: skip
    """Constrain ``module.<name>`` (a matrix or batch of matrices) to be orthogonal (unitary).

    ``orthogonal_map``: "matrix_exp" (default for square or complex), "cayley" or "householder"
    (default otherwise), as in PyTorch."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")  # noqa: TRY004 - PyTorch raises ValueError
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_map = getattr(_OrthMaps, orthogonal_map, None)
    if orth_map is None:
        raise ValueError(
            f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}'
        )
    orth = _Orthogonal(weight, orth_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
