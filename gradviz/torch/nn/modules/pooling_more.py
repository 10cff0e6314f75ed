"""AvgPool1d and AdaptiveAvgPool1d (the 2-D kernels on an unsqueezed input, as PyTorch
runs them), in PyTorch's torch.nn.modules.pooling."""
from .. import functional as F
from .module import Module, torch_module_name
from .pooling import _AdaptiveAvgPoolNd


def _single(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


torch_module_name(globals(), "torch.nn.modules.pooling")
