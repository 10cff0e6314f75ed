"""torch.random: the default generator's seeding and state, and fork_rng."""
import contextlib

from ._namespace import F
from ._random import default_generator  # noqa: F401

# Read from F, which _functions.build() fills before gradviz.torch imports this module.
get_rng_state, initial_seed, manual_seed, seed, set_rng_state = (
    F.get_rng_state, F.initial_seed, F.manual_seed, F.seed, F.set_rng_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Restores the default generator's state when the block ends (CPU only: there are no
    other devices here)."""
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
