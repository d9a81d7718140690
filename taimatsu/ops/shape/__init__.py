"""Shape ops: the view machinery, view ops, copying shape ops, splits, diagonals, grids
and the view scatters."""
