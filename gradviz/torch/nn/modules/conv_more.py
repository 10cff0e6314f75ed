"""Conv3d and ConvTranspose1d/2d/3d, on conv.py's _ConvNd (PyTorch's parameter shapes,
initialisation stream and reprs)."""
from .. import functional as F
from .conv import _ConvNd, _ntuple
from .module import torch_module_name


class Conv3d(_ConvNd):
    _n = 3

    def forward(self, input):
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)
        self.output_padding = _ntuple(output_padding, self._n)

    def _output_padding(self, input, output_size):
        """PyTorch's choice of output_padding that makes the output ``output_size`` long."""
        if output_size is None:
            return self.output_padding
        n = self._n
        output_size = list(output_size)[-n:] if len(output_size) > n else list(output_size)
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{n + 2} elements (got {len(output_size)})")
        spatial = input.shape[input.dim() - n:]
        result = []
        for d in range(n):
            smallest = ((spatial[d] - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            largest = smallest + self.stride[d] - 1
            if not smallest <= output_size[d] <= largest:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{[smallest]} to {[largest]} (for an input of {list(spatial)})")
            result.append(output_size[d] - smallest)
        return tuple(result)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return self._function(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                              self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1
    _function = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2
    _function = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3
    _function = staticmethod(F.conv_transpose3d)


torch_module_name(globals(), "torch.nn.modules.conv")
