"""Every op, declared once, grouped by family (pointwise, reduction, shape, indexing,
linalg, creation, random). ``_dispatch`` holds the shared machinery."""

from . import creation, indexing, linalg, pointwise, random, reduction, shape  # noqa: F401
