"""numpy's floating-point RuntimeWarnings ("overflow encountered in exp"), silenced in the
engine: PyTorch computes the same inf and nan without a word. The filter names the engine's
modules only, so numpy called from the user's own code keeps its warnings. It lives outside
the engine package so the script runner can install it without importing the engine."""
import warnings

MESSAGE = r"(overflow|divide by zero|invalid value|underflow) encountered"
ENGINE_MODULES = r"gradviz\.torch(\.|$)"


def silence_in_engine() -> None:
    """Put the filter first in the current filter list."""
    warnings.filterwarnings("ignore", message=MESSAGE, category=RuntimeWarning, module=ENGINE_MODULES)
