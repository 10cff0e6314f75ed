"""torch.utils: the data-loading utilities tutorial training loops use."""
from . import data  # noqa: F401
