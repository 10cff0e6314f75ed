"""Error texts of torch.nn's losses, norms, convolutions and layers added with them, in
PyTorch 2.13's exact words (ATen's TORCH_CHECKs and torch/nn's Python raises); each
constructor returns the exception to raise."""


def _sizes(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _torch_size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def multi_target_not_supported():
    return RuntimeError("0D or 1D target tensor expected, multi-target not supported")


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
