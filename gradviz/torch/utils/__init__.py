"""torch.utils: the data-loading utilities tutorial training loops use, and activation
checkpointing (torch.utils.checkpoint)."""
from . import data  # noqa: F401
from . import checkpoint  # noqa: F401
