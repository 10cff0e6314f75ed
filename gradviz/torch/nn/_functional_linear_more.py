"""torch.nn.functional's bilinear, as ATen composes it: both inputs flattened to 2-D
(reshape: ViewBackward0), one _trilinear (TrilinearBackward0), the result reshaped to the
batch shape (ViewBackward0) and the bias added."""
from .. import _errors_nn_more as _errors_nn
from .. import _ops_nn_linear as _ops


def bilinear(input1, input2, weight, bias=None):
    named = [("input1", input1), ("input2", input2), ("weight", weight)]
    named += [("bias", bias)] if bias is not None else []
    if any(t.dtype is not input1.dtype for _, t in named):
        raise _errors_nn.bilinear_dtypes([(name, t.dtype) for name, t in named])
    if input1.dim() != input2.dim():
        raise _errors_nn.bilinear_dims(input1.dim(), input2.dim())
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise _errors_nn.bilinear_batch(i, input1.shape[i], input2.shape[i])
    for which, input, axis in (("input1", input1, 1), ("input2", input2, 2)):
        if input.shape[-1] != weight.shape[axis]:
            raise _errors_nn.bilinear_size(which, input.shape[-1], weight.shape[axis])
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise _errors_nn.bilinear_size("bias", bias.shape[0], weight.shape[0])
    output_size = tuple(input1.shape[:-1]) + (weight.shape[0],)
    flat1 = input1.reshape(-1, input1.shape[-1])
    flat2 = input2.reshape(-1, input2.shape[-1])
    output = _ops.trilinear(flat1, weight, flat2, (1, 3), (0,), (1, 2), (2, 3)).reshape(output_size)
    return output + bias if bias is not None else output
