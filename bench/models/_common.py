"""What every model script of the benchmark shares: the Model it hands bench/peers.py."""
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
