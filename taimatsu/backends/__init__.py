"""``torch.backends``: switches and availability queries for the libraries PyTorch can call
(cuDNN, cuBLAS, oneDNN, MKL, OpenMP, MPS, opt_einsum) and the CPU's SIMD level.

taimatsu computes through NumPy and CuPy, so most switches cannot change a result here: they are
stored and read back as in PyTorch, with its defaults and type checks, and each module's
docstring says so. Availability answers are those of PyTorch's CPU wheel where they describe
PyTorch's build (cudnn, mps: False; mkldnn, mkl, openmp: True).
"""

from __future__ import annotations

from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401
