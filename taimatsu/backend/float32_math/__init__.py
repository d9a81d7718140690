"""float32 maths computed the way PyTorch's CPU kernels compute it, so results agree bit for bit.

PyTorch's vectorised float32 CPU kernels are not correctly rounded: ``Vectorized<float>`` calls
SLEEF's ``*_u10`` functions (built with FMA), and activations such as sigmoid are float32
arithmetic around them. Correctly rounded results (float64, rounded once) therefore differ from
PyTorch's in 1-7% of elements. The modules here re-implement those algorithms in NumPy:

- ``primitives``: float32 building blocks (fused multiply-add, round-to-nearest-even, exact
  scaling by a power of two) emulated in float64;
- ``exp``: the exp family (exp, expm1, sinh, cosh, tanh, pow) and the activations built on it.

Only float32 NumPy arrays take these paths; CuPy arrays keep their own kernels.
"""
