"""Every op, declared once, in the package of its kind.

``pointwise`` (unary, binary, comparison, power, special, complex, select, fused), ``reduction``
(sums and statistics, extrema, norms, scans, histograms, distances), ``shape`` (views and view
ops, copies, splits, diagonals, grids), ``indexing`` (subscripts, index ops, gather/scatter, put,
fills), ``sorting`` (sort, unique, search), ``creation`` (factories, random, windows),
``contraction`` (matmul family, einsum) and ``nn`` (the neural-network kernels); ``calculus``,
``introspection`` and ``symbolic`` hold the rest of the ``torch.*`` functions. ``_dispatch`` is
the path every op call takes and the factories that declare ops. Tensor methods reach all of
them through ``_tensor/op_namespace.py``.
"""
