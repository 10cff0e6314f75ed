# gradviz explain sample: custom_fn_wrong_num_grads
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, factor):
        ctx.factor = factor
        return t * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor          # forward had 2 inputs: return (grad * f, None)


x = torch.randn(3, requires_grad=True)
Scale.apply(x, 2.0).sum().backward()
