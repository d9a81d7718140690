"""``torch.optim`` (filled by the nn/optim issue)."""
