"""diffusers' UNet2DModel (small), random weights: one denoising step's loss."""
import torch
from diffusers import UNet2DModel

from _common import Model, main


def build():
    torch.manual_seed(0)
    model = UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
                        block_out_channels=(32, 64), norm_num_groups=8,
                        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                        up_block_types=("AttnUpBlock2D", "UpBlock2D"))
    sample = torch.randn(1, 3, 16, 16)
    timestep = torch.tensor([10])
    return Model("diffusers UNet2DModel", model, (sample, timestep), lambda out: out.sample.pow(2).mean())


if __name__ == "__main__":
    main(build)
