"""Error texts of torch.nn's losses, norms, convolutions and layers added with them, in
PyTorch 2.13's exact words (ATen's TORCH_CHECKs and torch/nn's Python raises); each
constructor returns the exception to raise."""


def _sizes(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _torch_size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def multi_target_not_supported():
    return RuntimeError("0D or 1D target tensor expected, multi-target not supported")


def bce_out_of_range(argument):
    """binary_cross_entropy's kernel checks each element's input, then its target, in turn."""
    return RuntimeError(f"all elements of {argument} should be between 0 and 1")


def cosine_embedding_input_dims(target_kind, input_kind, shape1, shape2):
    return RuntimeError(f"{target_kind} target tensor expects {input_kind} input tensors, but found inputs with sizes "
                        f"{_sizes(shape1)} and {_sizes(shape2)}.")


def margin_ranking_dims(shape1, shape2, target_shape):
    return RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
                        f"{_torch_size(shape1)}, input2: {_torch_size(shape2)}, target: {_torch_size(target_shape)} ")


def not_differentiable(function, argument):
    return RuntimeError(f"The function '{function}' is not differentiable with respect to argument '{argument}'. "
                        "This input cannot have requires_grad True.")


def margin_input_shape(shape):
    return RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {_sizes(shape)}")


def multi_margin_target_size(nframe, target_shape, input_shape):
    return RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                        f"samples (batch size). Expected target size [{nframe}], but got {_sizes(target_shape)}. "
                        f"Input has shape {_sizes(input_shape)}.")


def multi_margin_weight_size(dim, weight_shape):
    return RuntimeError(f"inconsistent weight size, expected {dim} but got {_sizes(weight_shape)}")


def multilabel_target_size(target_shape, input_shape):
    return RuntimeError(f"inconsistent target size: {_sizes(target_shape)} for input of size: {_sizes(input_shape)}")


def multilabel_target_range():
    return RuntimeError("argument #2 'target' is out of range")


def triplet_dims(anchor, positive, negative):
    return RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                        f"dimensions, but got: anchor {anchor}D, positive {positive}D, and negative {negative}D inputs")


def spatial_size(shape):
    return ValueError(f"Expected more than 1 spatial element when training, got input size {_torch_size(shape)}")


def rms_norm_shape(normalized_shape, input_shape):
    return RuntimeError(f"Given normalized_shape={_sizes(normalized_shape)}, expected input with shape "
                        f"[*{', '.join(map(str, normalized_shape))}], but got input of size{_sizes(input_shape)}")


def instance_norm_features(feature_dim, num_features, got):
    return ValueError(f"expected input's size at dim={feature_dim} to match num_features ({num_features}), but got: "
                      f"{got}.")


def instance_norm_features_warning(feature_dim):
    return (f"input's size at dim={feature_dim} does not match num_features. You can silence this warning by not "
            "passing in num_features, which is not used because affine=False")


def conv_input_rank(n, name, shape):
    return RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                        f"size: {_sizes(shape)}")


def conv_transposed_channels(weight_shape, input_shape, want, got):
    return RuntimeError(f"Given transposed=1, weight of size {_sizes(weight_shape)}, expected input"
                        f"{_sizes(input_shape)} to have {want} channels, but got {got} channels instead")


def conv_weight_groups(groups, weight_shape):
    return RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
                        f"weight of size [{_sizes(weight_shape)}] instead")


def conv_output_padding(output_padding, stride, dilation):
    """ATen names the dims (depth,) height, width; a 1-D convolution runs as 2-D with height 1."""
    if len(stride) == 1:
        output_padding, stride, dilation = (0,) + output_padding, (1,) + stride, (1,) + dilation
    names = ("depth", "height", "width")[3 - len(stride):]
    parts = [f"{what}_{name}: {value}" for what, values in (("output_padding", output_padding), ("stride", stride),
                                                             ("dilation", dilation))
             for name, value in zip(names, values)]
    return RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))


def conv_output_too_small(in_size, out_size):
    return RuntimeError(f"Given input size per channel: ({' x '.join(map(str, in_size))}). Calculated output size per "
                        f"channel: ({' x '.join(map(str, out_size))}). Output size is too small")


# pooling of 3-D, adaptive max pooling, unpooling
def pool3d_rank():
    return RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def pool3d_kernel_arity(name):
    verb = "must either be" if name == "max_pool3d" else "must be"
    return RuntimeError(f"{name}: kernel_size {verb} a single int, or a tuple of three ints")


def pool_stride_zero():
    return RuntimeError("stride should not be zero")


def pool_pad_half(pad, kernel, dilation):
    return RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                        f"kernel_size={kernel} and dilation={dilation}")


def avg_pool3d_input_smaller(sizes, kernel):
    return RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
                        f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")


def pool_output_too_small(channels, in_sizes, out_sizes):
    given = "x".join(str(s) for s in (channels,) + tuple(in_sizes))
    calculated = "x".join(str(s) for s in (channels,) + tuple(out_sizes))
    return RuntimeError(f"Given input size: ({given}). Calculated output size: ({calculated}). "
                        "Output size is too small")


def adaptive_rank(name, ranks, shape, colon):
    return RuntimeError(f"{name}(): Expected {ranks[0]}D or {ranks[1]}D tensor, but got{':' if colon else ''} "
                        f"{_sizes(shape)}")


def adaptive_empty_dim(name, shape, dim):
    return RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                        f"sizes {_sizes(shape)} with dimension {dim} being empty")


def adaptive_output_arity(name, rank):
    return RuntimeError(f"{name}(): internal error: output_size.size() must be {rank}")


def adaptive_max_pool1d_output_size(count):
    return RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int (got {count})")


def unpool_rank(rank, ndim):
    return RuntimeError(f"Input to max_unpooling{rank}d should be a {rank + 1}d or {rank + 2}d Tensor, but got a "
                        f"tensor with {ndim} dimensions.")


def unpool_indices_dtype(dtype_name):
    return RuntimeError(f"elements in indices should be type int64 but got: {dtype_name}")


def unpool_indices_shape(input_shape, indices_shape):
    return RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({_sizes(input_shape)}) "
                        f"but got indices tensor with shape: {_sizes(indices_shape)}")


def unpool_invalid_index(index, output_size):
    return RuntimeError(f"Found an invalid max index: {index} (output volumes are of size "
                        f"{'x'.join(str(s) for s in output_size)})")


def unpool_output_arity(rank, count):
    return ValueError(f"output_size should be a sequence containing {rank} or {rank + 2} elements, but it has a "
                      f"length of '{count}'")


def unpool_output_range(output_size, dim, low, high):
    return ValueError(f'invalid output_size "{output_size}" (dim {dim} must be between {low} and {high})')


# bilinear
def bilinear_dims(dim1, dim2):
    return RuntimeError(f"bilinear(): input dimensions do not match: got {dim1} and {dim2}")


def bilinear_batch(dim, size1, size2):
    return RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: got {size1} and {size2}")


# C++'s type names, as caffe2's TypeMeta prints them in ATen's messages
_CPP_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                   "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                   "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>"}


def bilinear_dtypes(named_dtypes):
    listed = ", ".join(f"{name}: {_CPP_TYPE_NAMES[dtype.name]}" for name, dtype in named_dtypes)
    return RuntimeError(f"All tensors must have the same dtype, got {listed}")


def bilinear_size(which, got, expected):
    return RuntimeError(f"bilinear(): {which} size does not match weight size: got {got} but expected {expected}")


def bilinear_in1_features(in1_features):
    return ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")


# embedding_bag (torch/nn/functional.py's raises)
def _torch_size_repr(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def embedding_bag_psw_shape(psw_shape, input_shape):
    return ValueError(f"embedding_bag: If per_sample_weights ({_torch_size_repr(psw_shape)}) is not None, then it "
                      f"must have the same shape as the input ({_torch_size_repr(input_shape)})")


def embedding_bag_weight_rank(ndim):
    return ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {ndim}")


def embedding_bag_2d_offsets(type_str):
    return ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                      f"length sequences. However, found offsets of type {type_str}")


def embedding_bag_offsets_none():
    return ValueError("offsets has to be a 1D Tensor but got None")


def embedding_bag_offsets_rank():
    return ValueError("offsets has to be a 1D Tensor")


def embedding_bag_input_rank(ndim):
    return ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {ndim}")


def embedding_bag_mode():
    return ValueError("mode has to be one of sum, mean or max")


def embedding_bag_max_scale():
    return ValueError("max mode does not support scaling the gradient by the frequency")


def embedding_bag_max_sparse():
    return ValueError("max mode does not support sparse weights")


def embedding_bag_psw_mode(mode):
    return NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
                               f"for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")


# ---------------------------------------------------------------------------------------
# ctc_loss: ATen's checks (LossCTC.cpp's ctc_loss_allocate_outputs and the Tensor overload)
# and the argument parser's refusal of torch.ctc_loss's two overloads
_CTC_CHECKING = " (while checking arguments for ctc_loss_allocate_outputs)"
_CTC_OVERLOADS = (
    ("Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, "
     "int reduction = at::Reduction::Mean, bool zero_infinity = False"),
    ("Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, "
     "int reduction = at::Reduction::Mean, bool zero_infinity = False"),
)


def ctc_invalid_arguments(got, marks):
    """``got``: each argument's type word; ``marks``: per overload, each argument's match
    word, marked with ! from the first one the overload cannot take."""
    lines = "".join(f" * ({signature})\n      didn't match because some of the arguments have invalid types: "
                    f"({', '.join(words)})\n" for signature, words in zip(_CTC_OVERLOADS, marks))
    return TypeError(f"ctc_loss() received an invalid combination of arguments - got ({', '.join(got)}), but "
                     f"expected one of:\n{lines}")


def ctc_lengths_not_integral(name):
    return RuntimeError(f"{name} must be integral")


def ctc_empty_log_probs():
    return RuntimeError("log_probs tensor must not be empty")


def ctc_log_probs_dim(dim):
    return RuntimeError(f"Expected 3-dimensional tensor, but got {dim}-dimensional tensor for argument #1 "
                        f"'log_probs'{_CTC_CHECKING}")


def ctc_targets_dim(dim):
    return RuntimeError(f"Expected 1 to 2 dimensions, but got {dim}-dimensional tensor for argument #2 "
                        f"'targets'{_CTC_CHECKING}")


def ctc_blank_range():
    return RuntimeError("blank must be in label range")


def ctc_lengths_size(name):
    return RuntimeError(f"{name} must be of size batch_size")


def ctc_length_at_least_zero(name, value):
    return RuntimeError(f"Expected {name} to have value at least 0, but got value {value}{_CTC_CHECKING}")


def ctc_input_length_at_most(most, value):
    return RuntimeError(f"Expected input_lengths to have value at most {most}, but got value {value}{_CTC_CHECKING}")


def ctc_targets_size(expected, dim, got):
    return RuntimeError(f"Expected tensor to have size {expected} at dimension {dim}, but got size {got} for "
                        f"argument #2 'targets'{_CTC_CHECKING}")


def ctc_targets_too_short(longest, got):
    return RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size {got} for "
                        f"argument #2 'targets'{_CTC_CHECKING}")
