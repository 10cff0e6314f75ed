"""The warning and error texts of torch.nn.utils (clip_grad.py, weight_norm.py,
spectral_norm.py, fusion.py, init.py), in PyTorch 2.13's exact words."""

CLIP_GRAD_NORM_DEPRECATED = ("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                             "`torch.nn.utils.clip_grad_norm_`.")
EMPTY_GENERATOR = "`parameters` is an empty generator, no gradient clipping will occur."
WEIGHT_NORM_DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
                          "`torch.nn.utils.parametrizations.weight_norm`.")
FUSION_ONLY_FOR_EVAL = "Fusion only for eval!"
BN_STATS_NONE = "bn.running_mean and bn.running_var must not be None"
SKIP_INIT_NO_DEVICE = "Module must support a 'device' arg to skip initialization"


def nonfinite_total_norm(norm_type):
    return RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                        "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                        "anyway, set `error_if_nonfinite=False`")


def two_hooks(kind, name):
    return RuntimeError(f"Cannot register two {kind} hooks on the same parameter {name}")


def hook_not_found(kind, name, module):
    return ValueError(f"{kind} of '{name}' not found in {module}")


def power_iterations(n):
    return ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations={n}")


def spectral_norm_none(name):
    return ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")


def linear_bn_features(out_features, num_features):
    return AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                          f"linear.out_features={out_features} and bn.num_features={num_features}")


def skip_init_not_module(module_cls):
    return RuntimeError(f"Expected a Module; got {module_cls}")


# -- parametrize.py, parametrizations.py, stateless.py ---------------------------------
STATELESS_DEPRECATED = ("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
                        "removed in a future version of PyTorch. Please use `torch.func.functional_call` instead "
                        "which is a drop-in replacement.")
SERIALIZE_PARAMETRIZED = ("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                          "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                          "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def parametrization_list_empty():
    return ValueError("ParametrizationList requires one or more modules.")


def right_inverse_not_sequence(value):
    return ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                      f"Got {type(value).__name__}")


def right_inverse_element(i, value):
    return ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                      f"Got element {i} of the sequence with type {type(value).__name__}.")


def right_inverse_changes(what, original, new):
    """what: 'dtype' or 'device'."""
    return ValueError(f"When `right_inverse` outputs one tensor, it may not change the {what}.\n"
                      f"original.{what}: {getattr(original, what)}\n"
                      f"right_inverse(original).{what}: {getattr(new, what)}")


def parametrization_not_tensor(value):
    return ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")


def first_parametrization_changes(what, before, after):
    """what: 'dtype' or 'shape' (ParametrizationList's consistency check)."""
    return ValueError(f"Registering a parametrization may not change the {what} of the tensor, unless `unsafe` flag "
                      f"is enabled.\nunparametrized {what}: {before}\nparametrized {what}: {after}")


def next_parametrization_changes(what, tensor_name, before, after):
    return ValueError(f"Registering a parametrization may not change the {what} of the tensor, unless the `unsafe` "
                      f"flag is enabled.\nmodule.{tensor_name}.{what}: {before}\n"
                      f"parametrization(module.{tensor_name}).{what}: {after}")


def next_right_inverse_not_tensor(value):
    return ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(value).__name__}")


def next_right_inverse_changes(what, tensor_name, before, after):
    return ValueError(f"The tensor returned by parametrization.right_inverse must have the same {what} as "
                      f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                      f"module.{tensor_name}.{what}: {before}\nreturned {what}: {after}")


def no_right_inverse(parametrization):
    return RuntimeError(f"parametrization {type(parametrization).__name__} does not implement right_inverse.")


def right_inverse_not_a_tensor(value):
    return ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")


def right_inverse_dtype(value, original):
    return ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` has dtype "
                      f"{original.dtype}")


def right_inverse_not_a_sequence(value):
    return ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")


def right_inverse_length(ntensors, got):
    return ValueError(f"'right_inverse' must return a sequence of tensors of length {ntensors}. Got a sequence of "
                      f"length {got}.")


def right_inverse_dtype_at(i, value, original):
    return ValueError(f"Tensor {i} returned by `right_inverse` has dtype {value.dtype} while `original{i}` has dtype "
                      f"{original.dtype}")


def right_inverse_element_at(i, value):
    return ValueError("'right_inverse' must return a sequence of tensors or reference-type opaques. Got element "
                      f"{i} of type {type(value).__name__}.")


def nothing_to_parametrize(module, tensor_name):
    return ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                      f"'{tensor_name}'")


def not_parametrized(module, tensor_name):
    return ValueError(f"Module {module} does not have a parametrization on {tensor_name}")


def cannot_leave_unparametrized():
    return ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
                      "terms of a sequence of tensors.")


def attribute_exists(tensor_name):
    return AssertionError(f"Module already has an attribute named '{tensor_name}'")


def no_tensor_named(module, name):
    return ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")


def not_a_matrix(ndim):
    return ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {ndim} dimensions.")


def unknown_orthogonal_map(name):
    return ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {name}')


def householder_complex():
    return ValueError("The householder parametrization does not support complex tensors.")


def orthogonal_shape(expected, got):
    return ValueError(f"Expected a matrix or batch of matrices of shape {expected}. Got a tensor of shape {got}.")


def orthogonal_no_assign():
    return NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                               "parametrizations when use_trivialization=False.")


def spectral_dim(ndim, dim):
    return IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
