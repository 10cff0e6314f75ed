"""nn.Sequential of 50 x (Linear, LayerNorm, GELU): runs on gradviz's own engine too."""
import torch
from torch import nn

from _common import Model, main


def build(blocks=50, width=32):
    torch.manual_seed(0)
    layers = []
    for _ in range(blocks):
        layers += [nn.Linear(width, width), nn.LayerNorm(width), nn.GELU()]
    return Model(f"MLP, {blocks} x (Linear, LayerNorm, GELU)", nn.Sequential(*layers), (torch.randn(8, width),),
                 lambda out: out.pow(2).mean())


if __name__ == "__main__":
    main(build)
