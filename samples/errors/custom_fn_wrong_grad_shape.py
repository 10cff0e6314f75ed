# gradviz explain sample: custom_fn_wrong_grad_shape
import torch


class Total(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t.sum(0)

    @staticmethod
    def backward(ctx, grad):
        return grad.unsqueeze(1).expand(4, 2)   # input was [2, 4]


x = torch.randn(2, 4, requires_grad=True)
Total.apply(x).sum().backward()
