"""More op-table entries for torch.nn (the ``Op`` rules of ``_ops``): the margin losses
ATen writes as kernels of their own, embedding_bag and _trilinear (bilinear's core).

A loss whose backward PyTorch cannot differentiate again records, under create_graph, a
``NotImplemented`` node whose formulas raise ATen's message, as PyTorch's does."""
from . import _kernels as K, _kernels_conv as KC, _kernels_ctc as KCTC, _kernels_loss_more as KM
from . import _ops_nn
from ._namespace import F
from ._ops import Op, not_implemented
from .autograd import graph


def _apply(op, inputs, **params):
    return graph.apply(op, inputs, params)


# ---------------------------------------------------------------------------------------
# at::norm(self, p, dim, keepdim), as ATen's C++ composites call it (pairwise_distance): the
# vector norm's kernel and gradient under the older node, which saves ``p`` by that name
norm_p_dim = Op("NormBackward1",
                lambda self, *, p, dim, keepdim: K.vector_norm(self, p, dim, keepdim),
                self=lambda grad, self, p, dim, keepdim, result: F.norm_backward(grad, self, p, dim, keepdim, result))


# ---------------------------------------------------------------------------------------
# soft margin: log(1 + exp(-y x)), differentiable twice through its backward op
soft_margin_loss_backward = Op(
    "SoftMarginLossBackwardBackward0",
    lambda grad_output, self, target, *, reduction: KM.soft_margin_backward(grad_output, self, target, reduction),
    grad_output=lambda grad, self, target, reduction: _soft_margin_grad_output(grad, self, target, reduction),
    self=lambda grad, grad_output, self, target, reduction: _soft_margin_second(grad, grad_output, self, target,
                                                                                 reduction))


def _soft_margin_scale(x, reduction):
    return 1.0 / x.numel() if reduction == KM.MEAN and x.numel() else 1.0


def _soft_margin_grad_output(grad, self, target, reduction):
    """The backward is linear in grad_output: its adjoint, summed for a reduced loss."""
    coef = -target * (-target * self).sigmoid() * _soft_margin_scale(self, reduction)
    product = grad * coef
    return product if reduction == KM.NONE else product.sum()


def _soft_margin_second(grad, grad_output, self, target, reduction):
    """d/dx of -y * sigmoid(-y x): y^2 * s * (1 - s) with s = sigmoid(-y x)."""
    s = (-target * self).sigmoid()
    return grad * grad_output * target * target * s * (1 - s) * _soft_margin_scale(self, reduction)


soft_margin_loss = Op(
    "SoftMarginLossBackward0",
    lambda self, target, *, reduction: KM.soft_margin(self, target, reduction),
    self=lambda grad, self, target, reduction: _apply(soft_margin_loss_backward, (grad, self, target),
                                                      reduction=reduction))

# ---------------------------------------------------------------------------------------
# multi margin and multilabel margin: their backward ops have no derivative in ATen
multi_margin_loss_backward = Op(
    "NotImplemented",
    lambda grad_output, self, target, weight, *, p, margin, reduction: KM.multi_margin_backward(
        grad_output, self, target, weight, p, margin, reduction),
    grad_output=lambda grad: not_implemented("multi_margin_loss_backward"),
    self=lambda grad: not_implemented("multi_margin_loss_backward"),
    weight=lambda grad: not_implemented("multi_margin_loss_backward"))

multi_margin_loss = Op(
    "MultiMarginLossBackward0",
    lambda self, target, weight, *, p, margin, reduction: KM.multi_margin(self, target, weight, p, margin, reduction),
    self=lambda grad, self, target, weight, p, margin, reduction: _apply(
        multi_margin_loss_backward, (grad, self, target, weight), p=p, margin=margin, reduction=reduction))

multilabel_margin_loss_backward = Op(
    "NotImplemented",
    lambda grad_output, self, target, is_target, *, reduction: KM.multilabel_margin_backward(
        grad_output, self, target, is_target, reduction),
    grad_output=lambda grad: not_implemented("multilabel_margin_loss_backward"),
    self=lambda grad: not_implemented("multilabel_margin_loss_backward"))

multilabel_margin_loss = Op(
    "MultilabelMarginLossBackward0",
    lambda self, target, *, reduction: KM.multilabel_margin(self, target, reduction),
    multi_output=True, outputs=("result", "is_target"),
    self=lambda grads, self, target, reduction, is_target: _apply(
        multilabel_margin_loss_backward, (grads[0], self, target, is_target), reduction=reduction))

# ---------------------------------------------------------------------------------------
# the CTC loss: ATen's _ctc_loss returns the losses and the log alphas, which its backward
# reads with the log probabilities; that backward has no derivative of its own
ctc_loss_backward = Op(
    "NotImplemented",
    lambda grad, log_probs, targets, neg_log_likelihood, log_alpha, *, input_lengths, target_lengths, blank,
    zero_infinity: KCTC.ctc_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood,
                                     log_alpha, blank, zero_infinity),
    grad=lambda grad: not_implemented("_ctc_loss_backward"),
    log_probs=lambda grad: not_implemented("_ctc_loss_backward"),
    neg_log_likelihood=lambda grad: not_implemented("_ctc_loss_backward"))

ctc_loss = Op(
    "CtcLossBackward0",
    lambda log_probs, targets, *, input_lengths, target_lengths, blank, zero_infinity: KCTC.ctc_forward(
        log_probs, targets, input_lengths, target_lengths, blank),
    multi_output=True, outputs=("result0", "result1"),
    log_probs=lambda grads, log_probs, targets, input_lengths, target_lengths, result0, result1, blank,
    zero_infinity: _apply(ctc_loss_backward, (grads[0], log_probs, targets, result0, result1),
                          input_lengths=input_lengths, target_lengths=target_lengths, blank=blank,
                          zero_infinity=zero_infinity))

# ---------------------------------------------------------------------------------------
# transposed convolution: ATen's convolution with transposed=True, the same node as the
# ordinary one; its input gradient is the ordinary convolution of grad, its weight gradient
# the ordinary weight gradient with grad and input in swapped roles
def _transposed_forward(input, weight, bias, *, stride, padding, dilation, transposed, output_padding, groups,
                        bias_sym_sizes_opt):
    return KC.conv_transpose(input, weight, bias, stride, padding, output_padding, dilation, groups)


convolution_transpose = Op(
    "ConvolutionBackward0", _transposed_forward,
    input=lambda grad, weight, stride, padding, dilation, groups: _ops_nn.conv(
        grad, weight, None, stride, padding, dilation, groups),
    weight=lambda grad, input, weight, stride, padding, dilation, groups: _ops_nn._conv_weight_grad(
        grad, input, weight.shape, stride, padding, dilation, groups),
    bias=lambda grad: grad.sum([0] + list(range(2, grad.dim()))),
    keeps=("bias_sym_sizes_opt", "output_padding", "transposed", "input"))


def conv_transpose(input, weight, bias, stride, padding, output_padding, dilation, groups):
    return _apply(convolution_transpose, (input, weight, bias), stride=stride, padding=padding, dilation=dilation,
                  transposed=True, output_padding=output_padding, groups=groups,
                  bias_sym_sizes_opt=(0,) if bias is None else tuple(bias.shape))


__all__ = ["F"]
