"""``torch.utils.data`` (filled by the nn/optim/data issue)."""
