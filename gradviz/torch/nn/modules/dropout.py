"""Dropout (seeded by gradviz.torch.manual_seed; a no-op in eval mode)."""
from .. import functional as F
from .module import Module, torch_module_name


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


torch_module_name(globals(), "torch.nn.modules.dropout")
