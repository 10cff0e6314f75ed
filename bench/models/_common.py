"""Real models for the side-by-side benchmark (bench/peers.py) and for trying gradviz by hand:
each module is a plain script (``gradviz run bench/models/gpt2_12.py``) and offers
``build() -> Model`` to the benchmark. All are built from their configs with random weights:
nothing is downloaded.

This module is what they share: the Model each hands bench/peers.py (which imports them
with this folder on sys.path, as Python and ``gradviz run`` do for a script), and main()."""
from dataclasses import dataclass
from typing import Callable, Tuple


@dataclass
class Model:
    name: str
    module: object  # the nn.Module
    inputs: Tuple  # positional inputs of module(*inputs)
    loss: Callable  # loss(output) -> a scalar tensor


def main(build):
    """What the script does when run (``gradviz run``, ``python``): forward, loss, backward."""
    model = build()
    loss = model.loss(model.module(*model.inputs))
    loss.backward()
    return loss
