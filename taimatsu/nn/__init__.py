"""``torch.nn``: modules and functional ops (filled by the nn issue)."""
