"""Derivatives of the linear-algebra decompositions, written in Tensor ops (so double backward
works): VJPs (``*_vjp``) and forward-mode tangents (``*_jvp``).

Conventions follow PyTorch's: the gradient of a real-valued loss with respect to a complex input is
the conjugate Wirtinger form ``dL/d(re) + i dL/d(im)``; ``<X, Y>`` below is ``Re tr(X^H Y)``.
The formulas are the standard ones (derived in the comments), not transcribed code.
"""

from __future__ import annotations

from ..ops.contraction.matmul import matmul


# ---- small helpers --------------------------------------------------------------------------------------
def _h(t):
    m = t.mT
    return m.conj() if t.is_complex() else m


def _eye_like(t, n):
    from ..ops.creation.ranges import eye

    return eye(n, dtype=t.dtype, device=t.device)


def _diag(t):
    return t.diagonal(0, -2, -1)


def _diag_embed(v):
    return v.unsqueeze(-1) * _eye_like(v, v.shape[-1])


def _solve(A, B):
    from . import solve

    return solve(A, B)


def _right_solve(B, A):
    """``B A^{-1}``."""
    return _h(_solve(_h(A), _h(B)))


def _tri_left(A, B, upper: bool, unit: bool = False):
    """``A^{-1} B`` for a triangular ``A``: no singularity check, a zero pivot gives inf/NaN
    as in PyTorch's backward formulas (a general solve would raise)."""
    from .structured import solve_triangular

    return solve_triangular(A, B, upper=upper, unitriangular=unit)


def _tri_right(B, A, upper: bool, unit: bool = False):
    """``B A^{-1}`` for a triangular ``A`` (see ``_tri_left``)."""
    from .structured import solve_triangular

    return solve_triangular(A, B, upper=upper, left=False, unitriangular=unit)


def _mm(*ms):
    out = ms[0]
    for m in ms[1:]:
        out = matmul(out, m)
    return out


def _im_diag_as_complex(x):
    """``i * Im(diag(x))`` as a diagonal matrix of x's complex dtype."""
    return _diag_embed(_diag(x).imag * 1j).to(x.dtype)


def _zero_like(t):
    return t.detach() * 0


# ---- Cholesky:  A = L L^H ------------------------------------------------------------------------------
def _phi(X):
    """Lower triangle of X with the diagonal halved."""
    return X.tril() - 0.5 * _diag_embed(_diag(X))


def cholesky_vjp(L, gL):
    # dA = dL L^H + L dL^H  =>  L^{-1} dA L^{-H} = Phi^{-1}-sym, dL = L Phi(L^{-1} dA L^{-H}).
    # Adjoint: gA = L^{-H} Phi(L^H gL) L^{-1}, Hermitian part (A is Hermitian). Like PyTorch, the
    # imaginary part of Phi's diagonal is kept (it only matters for non-Hermitian perturbations).
    P = _phi(matmul(_h(L), gL.tril()))
    P2 = (P + _h(P)) * 0.5
    if P.is_complex():
        P2 = P2 + _im_diag_as_complex(P)
    return _right_solve(_solve(_h(L), P2), L)


def cholesky_jvp(L, dA):
    X = _right_solve(_solve(L, dA), _h(L))
    return matmul(L, _phi(X))


# ---- QR:  A = Q R ----------------------------------------------------------------------------------------
def _qr_square_vjp(Q, R, gQ, gR):
    # With X = Q^H dA R^{-1}: dR = Psi(X) R, dQ = dA R^{-1} - Q Psi(X), Psi(X) = triu(X) + triu(X^H, 1)
    # - i Im diag(X). Adjoint: gA = (gQ + Q Psi*(N)) R^{-H}, N = gR R^H - Q^H gQ.
    N = None
    if gR is not None:
        N = matmul(gR, _h(R))
    if gQ is not None:
        t = matmul(_h(Q), gQ)
        N = -t if N is None else N - t
    S = N.triu() + _h(N.triu(1))
    if S.is_complex():
        S = S - _im_diag_as_complex(N)
    b = matmul(Q, S) if gQ is None else gQ + matmul(Q, S)
    return _right_solve(b, _h(R))


def qr_vjp(A_shape, Q, R, gQ, gR):
    m, n = A_shape[-2], A_shape[-1]
    if m >= n:
        return _qr_square_vjp(Q, R, gQ, gR)
    # Wide: A = [X | Y], R = [U | V], X = Q U, V = Q^H Y.
    from ..ops.shape.copies import cat

    U, V = R[..., :, :m], R[..., :, m:]
    Y = None
    gU = gR[..., :, :m] if gR is not None else None
    gV = gR[..., :, m:] if gR is not None else None
    if gV is not None:
        # A's trailing columns: recompute Y = Q V (A itself is not saved).
        Y = matmul(Q, V)
        extra = matmul(Y, _h(gV))
        gQ = extra if gQ is None else gQ + extra
    gX = _qr_square_vjp(Q, U, gQ, gU) if (gQ is not None or gU is not None) else None
    gY = matmul(Q, gV) if gV is not None else None
    if gX is None:
        gX = _zero_like(Q).expand(*Q.shape[:-1], m) * 0
    if gY is None:
        gY = _zero_like(V)
        gY = matmul(Q, gY)
    return cat([gX, gY], -1)


def _qr_square_jvp(Q, R, dA):
    Z = _right_solve(dA, R)  # dA R^{-1}
    X = matmul(_h(Q), Z)
    M = X.triu() + _h(X.tril(-1))
    if M.is_complex():
        M = M - _im_diag_as_complex(X)
    return Z - matmul(Q, M), matmul(M, R)


def qr_jvp(Q, R, dA):
    m, n = dA.shape[-2], dA.shape[-1]
    if m >= n:
        return _qr_square_jvp(Q, R, dA)
    from ..ops.shape.copies import cat

    U, V = R[..., :, :m], R[..., :, m:]
    dQ, dU = _qr_square_jvp(Q, U, dA[..., :, :m])
    Y = matmul(Q, V)
    dV = matmul(_h(dQ), Y) + matmul(_h(Q), dA[..., :, m:])
    return dQ, cat([dU, dV], -1)


# ---- SVD:  A = U diag(S) V^H ------------------------------------------------------------------------------
_SVD_GAUGE = (
    "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i phi}. "
    "The specified loss function depends on this phase term, making it ill-defined."
)


def svd_vjp(U, S, Vh, gU, gS, gVh):
    """Reduced SVD (U: m x k, Vh: k x n); full_matrices outputs are narrowed by the caller."""
    cdt = U.dtype
    if gU is None and gVh is None:
        return _mm(U, _diag_embed(gS.to(cdt)), Vh)
    m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
    V = _h(Vh)
    gV = _h(gVh) if gVh is not None else None
    UhgU = matmul(_h(U), gU) if gU is not None else None
    VhgV = matmul(Vh, gV) if gV is not None else None
    if U.is_complex():
        parts = [p for p in (UhgU, VhgV) if p is not None]
        im = _diag(parts[0]).imag if len(parts) == 1 else _diag(parts[0] + parts[1]).imag
        if im.numel() and float(im.detach().abs().max()) > 1e-2 * max(
            1.0, float(S.detach().abs().max()) if S.numel() else 1.0
        ):
            raise RuntimeError(_SVD_GAUGE)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)  # E_ij = s_j^2 - s_i^2
    eye = _eye_like(S, k)
    F = (1 - eye) / (E + eye)
    inner = None
    if UhgU is not None:
        inner = (UhgU - _h(UhgU)) * S.unsqueeze(-2).to(cdt)
    if VhgV is not None:
        t = S.unsqueeze(-1).to(cdt) * (VhgV - _h(VhgV))
        inner = t if inner is None else inner + t
    inner = inner * F.to(cdt)
    if gS is not None:
        inner = inner + _diag_embed(gS.to(cdt))
    if U.is_complex() and UhgU is not None:
        inner = inner + _im_diag_as_complex(UhgU) / S.unsqueeze(-2).to(cdt)
    gA = _mm(U, inner, Vh)
    Sinv = (1 / S).to(cdt)
    if m > k and gU is not None:
        gA = gA + matmul((gU - matmul(U, UhgU)) * Sinv.unsqueeze(-2), Vh)
    if n > k and gV is not None:
        gA = gA + matmul(U * Sinv.unsqueeze(-2), _h(gV - matmul(V, VhgV)))
    return gA


def svd_jvp(U, S, Vh, dA):
    """Tangents of the reduced (U, S, Vh); the phase of the singular vectors is put on U."""
    cdt = U.dtype
    m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
    V = _h(Vh)
    dP = _mm(_h(U), dA, V)
    dS = _diag(dP).real if dP.is_complex() else _diag(dP)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    eye = _eye_like(S, k)
    F = ((1 - eye) / (E + eye)).to(cdt)
    Sr, Sc = S.unsqueeze(-2).to(cdt), S.unsqueeze(-1).to(cdt)
    dU = matmul(U, F * (dP * Sr + Sc * _h(dP)))
    dV = matmul(V, F * (Sc * dP + _h(dP) * Sr))
    if dP.is_complex():
        dU = dU + matmul(U, _im_diag_as_complex(dP) / Sr)
    Sinv = (1 / S).to(cdt).unsqueeze(-2)
    if m > k:
        dU = dU + (matmul(dA, V) - matmul(U, dP)) * Sinv
    if n > k:
        dV = dV + (matmul(_h(dA), U) - matmul(V, _h(dP))) * Sinv
    return dU, dS, _h(dV)


# ---- eig:  A = V diag(L) V^{-1} --------------------------------------------------------------------------
_EIG_GAUGE = (
    "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. "
    "The specified loss function depends on this quantity, so it is ill-defined."
)


def eig_vjp(real_input, L, V, gL, gV):
    cdt = V.dtype
    Vh = _h(V)
    if gV is None:
        inner = _diag_embed(gL)
    else:
        VhgV = matmul(Vh, gV)
        im = _diag(VhgV).imag
        if im.numel() and float(im.detach().abs().max()) > 1e-2:
            raise RuntimeError(_EIG_GAUGE)
        n = L.shape[-1]
        eye = _eye_like(L, n)
        E = L.unsqueeze(-2) - L.unsqueeze(-1)  # E_ij = L_j - L_i
        inner = VhgV - matmul(Vh, V) * _diag(VhgV).real.unsqueeze(-2).to(cdt)
        inner = inner * ((1 - eye) / (E + eye)).conj()
        if gL is not None:
            inner = inner + _diag_embed(gL)
    gA = _solve(Vh, matmul(inner, Vh))
    return gA.real if real_input else gA


def eig_jvp(L, V, dA):
    X = _solve(V, matmul(dA.to(V.dtype), V))  # V^{-1} dA V
    dL = _diag(X)
    n = L.shape[-1]
    eye = _eye_like(L, n)
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    dV = matmul(V, X * ((1 - eye) / (E + eye)))
    # Keep the columns at unit norm: remove the real part of v^H dv along v.
    dV = dV - V * _diag(matmul(_h(V), dV)).real.unsqueeze(-2).to(V.dtype)
    return dL, dV


# ---- LU:  A = P L U -------------------------------------------------------------------------------------------
def _lu_square_vjp(L, U, gL, gU):
    # X = L^{-1} P^T dA U^{-1}: dL = L tril(X, -1), dU = triu(X) U.
    inner = matmul(_h(L), gL).tril(-1) + matmul(gU, _h(U)).triu()
    return _tri_right(_tri_left(_h(L), inner, True, unit=True), _h(U), False)


def lu_factor_vjp(P, L, U, gLU):
    """Gradient of the packed LU (L strictly below the diagonal, U on and above) w.r.t. A = P L U."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        g = _lu_square_vjp(L, U, gLU.tril(-1), gLU.triu())
    elif m < n:
        from ..ops.shape.copies import cat

        U1, U2 = U[..., :, :k], U[..., :, k:]
        gU1, gU2 = gLU[..., :, :k].triu(), gLU[..., :, k:]
        LgU2 = _tri_left(_h(L), gU2, True, unit=True)
        gL = (gLU[..., :, :k] - matmul(LgU2, _h(U2))).tril(-1)
        g = cat([_lu_square_vjp(L, U1, gL, gU1), LgU2], -1)
    else:
        from ..ops.shape.copies import cat

        L1, L2 = L[..., :k, :], L[..., k:, :]
        gL1, gL2 = gLU[..., :k, :].tril(-1), gLU[..., k:, :]
        gL2U = _tri_right(gL2, _h(U), False)
        gU = (gLU[..., :k, :] - matmul(_h(L2), gL2U)).triu()
        g = cat([_lu_square_vjp(L1, U, gL1, gU), gL2U], -2)
    return matmul(P, g)


def lu_factor_jvp(P, L, U, dA):
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    dA = matmul(P.mT, dA)
    from ..ops.shape.copies import cat

    if m <= n:
        X = _tri_right(_tri_left(L, dA[..., :, :k], False, unit=True), U[..., :, :k], True)
        dL = matmul(L, X.tril(-1))
        dU1 = matmul(X.triu(), U[..., :, :k])
        if m == n:
            return dL + dU1
        dU2 = _tri_left(L, dA[..., :, k:] - matmul(dL, U[..., :, k:]), False, unit=True)
        return cat([dL + dU1, dU2], -1)
    L1 = L[..., :k, :]
    X = _tri_right(_tri_left(L1, dA[..., :k, :], False, unit=True), U, True)
    dL1 = matmul(L1, X.tril(-1))
    dU = matmul(X.triu(), U)
    dL2 = _tri_right(dA[..., k:, :] - matmul(L[..., k:, :], dU), U, True)
    return cat([dL1 + dU, dL2], -2)


def lu_grad_from_A(P, L, U, gA):
    """Map a gradient w.r.t. A = P L U onto the packed LU (dA = P (dL U + L dU))."""
    PtG = matmul(P.mT, gA)
    return matmul(PtG, _h(U)).tril(-1) + matmul(_h(L), PtG).triu()


def lu_tangent_to_A(P, L, U, dLU):
    return matmul(P, matmul(dLU.tril(-1), U) + matmul(L, dLU.triu()))


# ---- pinv ---------------------------------------------------------------------------------------------------
def pinv_vjp(A, Pi, g):
    # dPi = -Pi dA Pi + Pi Pi^H dA^H (I - A Pi) + (I - Pi A) dA^H Pi^H Pi  (constant rank).
    m, n = A.shape[-2], A.shape[-1]
    Ph, gh = _h(Pi), _h(g)
    IAP = _eye_like(A, m) - matmul(A, Pi)
    IPA = _eye_like(A, n) - matmul(Pi, A)
    return -_mm(Ph, g, Ph) + _mm(IAP, gh, Pi, Ph) + _mm(Ph, Pi, gh, IPA)


def pinv_jvp(A, Pi, dA):
    m, n = A.shape[-2], A.shape[-1]
    dAh = _h(dA)
    IAP = _eye_like(A, m) - matmul(A, Pi)
    IPA = _eye_like(A, n) - matmul(Pi, A)
    return -_mm(Pi, dA, Pi) + _mm(Pi, _h(Pi), dAh, IAP) + _mm(IPA, dAh, _h(Pi), Pi)
