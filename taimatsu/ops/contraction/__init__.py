"""Contractions on BLAS: the matmul family, cross products, kron, tensordot and einsum."""
