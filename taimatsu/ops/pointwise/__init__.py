"""Elementwise ops: unary, binary arithmetic, comparison/logical/bitwise, power, special
functions, complex helpers, selection (clamp/where) and the fused kernels."""
