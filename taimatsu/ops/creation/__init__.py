"""Creating tensors: factories, random sampling and window functions."""
