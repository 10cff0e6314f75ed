"""torch.nn (being written)."""
