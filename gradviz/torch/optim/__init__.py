"""torch.optim (being written)."""
