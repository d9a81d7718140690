"""Indexing: subscripts (``x[i]``), the index_* / masked ops, gather/scatter and in-place
fills and copies."""
