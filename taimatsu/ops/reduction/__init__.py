"""Reductions and scans: sums and statistics, extrema, norms, cumulative ops, histograms,
segment reductions, covariance and distances."""
