"""The error texts of torch.autograd.functional and torch.func, in PyTorch 2.13's exact
wording (its Python sources: autograd/functional.py, _functorch/*). They sit apart from
``_errors.py`` because they belong to these two families only; each constructor returns
the exception to raise."""


# ---------------------------------------------------------------------------------------
# torch.autograd.functional

def not_tensor_or_tuple(arg_name, fn_name, index, value_type, is_tuple):
    where = f"the value at index {index} has type" if is_tuple else f"the given {arg_name} has type"
    return TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but {where} "
                     f"{value_type}.")


def v_tuple_length(expected, got):
    return RuntimeError(f"v is a tuple of invalid length: should be {expected} but got {got}.")


def v_single_tensor():
    return RuntimeError("The given v should contain a single Tensor.")


def v_size(index, expected, got, is_tuple):
    prefix = f"Entry {index} in " if is_tuple else ""
    return RuntimeError(f"{prefix}v has invalid size: should be {expected} but got {got}.")


def v_none_needs_scalar_output():
    return RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor with a "
                        "single element.")


def v_none_needs_scalar_input():
    return RuntimeError("The vector v can only be None if the input to the user-provided function is a single Tensor "
                        "with a single element.")


# strict mode, _check_requires_grad
def strict_output_no_grad(i):
    return RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs must be "
                        "computed in a differentiable manner from the input when running in strict mode.")


def strict_independent_output(i):
    return RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not allowed "
                        "in strict mode.")


def strict_grad_inputs(i):
    return RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the user-provided "
                        "function. This is not allowed in strict mode.")


def strict_jacobian_of_hessian(i):
    return RuntimeError("While computing the hessian, found that the jacobian of the user-provided function with "
                        f"respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                        "should ensure that your function is twice differentiable and that the jacobian depends on "
                        "the inputs (this would be violated by a linear function for example).")


def strict_hessian_independent(i):
    return RuntimeError(f"The hessian of the user-provided function with respect to input {i} is independent of the "
                        "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                        "differentiable and that the hessian depends on the inputs.")


# strict mode, _fill_in_zeros (per stage)
def strict_back_trick(i):
    return RuntimeError(f"The gradient with respect to the input is independent of entry {i} in the grad_outputs "
                        "when using the double backward trick to compute forward mode gradients. This is not allowed "
                        "in strict mode.")


def strict_double_back(i):
    return RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. This is not "
                        "allowed in strict mode.")


def strict_double_back_trick(i):
    return RuntimeError(f"The hessian of the user-provided function is independent of entry {i} in the "
                        "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                        "backward trick to replace forward mode AD.")


def strict_jacobian_create_graph(i):
    return RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. This is not "
                        "allowed in strict mode when create_graph=True.")


def strict_hessian_create_graph(i):
    return RuntimeError(f"The hessian of the user-provided function is independent of input {i}. This is not "
                        "allowed in strict mode when create_graph=True.")


def strict_output_independent_of_input(i, j):
    return RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. This is not allowed "
                        "in strict mode.")


def single_tensor_function(fn_name):
    return RuntimeError(f"The function given to {fn_name} should return a single Tensor")


def single_element_function(fn_name):
    return RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


def jacobian_strategy():
    return AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                          'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                          'prefer to use "reverse-mode".')


def hessian_strategy():
    return AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')


def forward_mode_create_graph():
    return NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                               '`strategy="forward-mode"` are not supported together (yet). Please either set '
                               '`create_graph=False` or `strategy="reverse-mode"`.')


def forward_mode_strict():
    return RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are not "
                        "supported together (yet). Please either set `strict=False` or "
                        "`strategy=\"reverse-mode\"`.")


def forward_mode_needs_vectorize():
    # PyTorch's two string pieces join without a space ("isonly").
    return NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                               "only implemented for `vectorize=True`.")


def vectorize_strict():
    return RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                        "together. Please either set `strict=False` or `vectorize=False`.")


# ---------------------------------------------------------------------------------------
# torch.func: argnums, outputs, pytrees

def argnums_type(argnums):
    return RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def argnum_type(argnum):
    return RuntimeError(f"argnum must be int, got: {type(argnum)}")


def argnum_range(argnum, num_args):
    return RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def argnums_empty():
    return RuntimeError("argnums must be non-empty")


def argnums_unique(argnums):
    return RuntimeError(f"argnums elements must be unique, got {argnums}")


def transform_input_not_tensor(value):
    return ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")


def has_aux_not_pair(api):
    return RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")


def grad_output_not_tensor(output):
    return RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")


def grad_output_not_scalar(ndim):
    return RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                        f"{ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")


def empty_output(api, output):
    return RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {output})")


def output_not_tensor(api, value):
    return RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(value)}")


def vjp_output_dtype(dtype):
    return RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with "
                        f"dtype {dtype}")


def cotangents_structure(cotangents_pretty, outputs_pretty):
    return RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs to "
                        f"the function. cotangents: {cotangents_pretty}, primal output: {outputs_pretty}")


def complex_not_allowed(api, idx, is_input):
    kind = "inputs" if is_input else "outputs"
    return RuntimeError(f"{api}: Expected all {kind} to be real but received complex tensor at flattened input idx: "
                        f"{idx}")


def jacrev_chunk_size():
    return ValueError("jacrev: `chunk_size` should be greater than 0.")


JVP = "jvp(f, primals, tangents)"


def jvp_primals_not_tuple():
    return RuntimeError(f"{JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")


def jvp_structure(primals_spec, tangents_spec):
    return RuntimeError(f"{JVP}: Expected primals and tangents to have the same python structure. For example, if "
                        "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                        f"{primals_spec} and tangents with structure {tangents_spec}")


def jvp_empty(argname):
    return RuntimeError(f"{JVP}: Expected {argname} to contain at least one Tensor.")


def jvp_not_tensors(argname, value):
    return RuntimeError(f"{JVP}: Expected {argname} to only contain Tensors, got {type(value)}")


def jvp_tangent_size(primal_shape, tangent_shape):
    return RuntimeError("Trying to set a forward gradient that has a different size than that of the original Tensor, "
                        f"this is not supported. Tensor is of size {list(primal_shape)} while the given forward "
                        f"gradient is of size {list(tangent_shape)}.")


def jvp_strict_independent():
    return RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. This "
                        "is not allowed with strict=True.")


# ---------------------------------------------------------------------------------------
# torch.func.vmap

def vmap_randomness(value):
    return RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {value}")


def vmap_chunk_size(chunk_size):
    return ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")


def vmap_in_dims_type(name, in_dims):
    return ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                      f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")


def vmap_no_inputs(name):
    return ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to "
                      "vmap over a function with no inputs. The latter is unsupported.")


def vmap_in_dims_structure(name, in_dims, in_dims_spec, args_spec):
    return ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure "
                      f"of `inputs`. in_dims has structure {in_dims_spec} but inputs has structure {args_spec}.")


def vmap_in_dim_type(name, in_dims, in_dim):
    return ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but in_dim "
                      "must be either an integer dimension or None.")


def vmap_in_dim_not_tensor(name, in_dims, in_dim, arg):
    return ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but the "
                      f"input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as "
                      "the respective in_dim")


def vmap_in_dim_range(name, in_dims, in_dim, ndim):
    return ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some input, but that "
                      f"input is a Tensor of dimensionality {ndim} so expected in_dim to satisfy -{ndim} <= in_dim < "
                      f"{ndim}.")


def vmap_nothing_to_map():
    return ValueError("vmap: Expected at least one Tensor to vmap over")


def vmap_batch_sizes(sizes):
    return ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                      f"{sizes} for the mapped dimension")


def vmap_out_dims_type(name, out_dims):
    return ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                      "collection of ints representing where in the outputs the vmapped dimension should appear.")


def vmap_out_dims_structure(name, out_dims, out_dims_spec, outputs_spec):
    return ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                      f"structure of `outputs`. out_dims has structure {out_dims_spec} but outputs has structure "
                      f"{outputs_spec}.")


def vmap_output_not_tensor(name, value):
    return ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(value)}. Did you mean "
                      "to set out_dims= to None for output?")


def vmap_batched_with_none_out_dim(name):
    return ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")


def vmap_random_in_error_mode():
    return RuntimeError("vmap: called random operation while in randomness error mode. Please either use the 'same' "
                        "or 'different' randomness flags on vmap or perform the randomness operation out of vmap")


# ---------------------------------------------------------------------------------------
# torch.func.functional_call

def functional_call_dicts_type(value):
    return ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                      f"{type(value)}")


def functional_call_not_all_dicts():
    return ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")


def functional_call_repeated_keys(keys):
    return ValueError(f"{keys} appeared in multiple dictionaries; behavior of functional call is ambiguous")


def functional_call_tied(names):
    return ValueError(f"functional_call got multiple values for keys {names}, which are tied. Consider using "
                      "tie_weights=False")


def reparametrize_keys(module_name, messages):
    return RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module_name, "\n\t".join(messages)))


def not_a_tensor(value):
    return TypeError(f"{value} is not an instance of torch.Tensor")


def attribute_not_tensor(name, value):
    return TypeError(f"attribute `{name}`: {value} is not an instance of torch.Tensor")


def no_attribute(module_name, name):
    return AttributeError(f"{module_name} has no attribute `{name}`")


def not_a_submodule(name, value):
    return TypeError(f"submodule `{name}`: {value} is not an instance of torch.nn.Module")


def unwrap_not_tensor(value):
    return RuntimeError(f"Expected tensors, got unsupported type {type(value)}")


def stack_module_state_empty():
    return RuntimeError("stack_module_state: Expected at least one model, got 0.")


def stack_module_state_modes():
    return RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")


def stack_module_state_classes():
    return RuntimeError("stack_module_state: Expected all models to be of the same class.")


def stack_module_state_requires_grad(name):
    return RuntimeError(f"Expected {name} from each model to have the same .requires_grad")


# ----- torch.distributions ------------------------------------------------------------------
def distribution_broadcast_types():
    return ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                      "__torch_function__.")


def distribution_probs_or_logits():
    return ValueError("Either `probs` or `logits` must be specified, but not both.")


def distribution_parameter_dim(name):
    return ValueError(f"`{name}` parameter must be at least one-dimensional.")


def distribution_invalid_parameter(name, value, distribution, constraint):
    return ValueError(f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                      f"distribution {distribution!r} to satisfy the constraint {constraint!r}, but found invalid "
                      f"values:\n{value}")


def distribution_value_not_tensor():
    return ValueError("The value argument to log_prob must be a Tensor")


def distribution_event_shape(value_size, event_shape):
    return ValueError(f"The right-most size of value must match event_shape: {value_size} vs {event_shape}.")


def distribution_value_not_broadcastable(actual_shape, expected_shape):
    return ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs {expected_shape}.")


def distribution_value_outside_support(value, support, distribution):
    return ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within "
                      f"the support ({support!r}) of the distribution {distribution!r}, but found invalid "
                      f"values:\n{value}")


def distribution_expand_needs_override(subclass, cls):
    return NotImplementedError(f"Subclass {subclass} of {cls} that defines a custom __init__ method must also "
                               "define a custom .expand() method.")


def distribution_no_arg_constraints_warning(cls):
    return (f"{cls} does not define `arg_constraints`. Please set `arg_constraints = {{}}` or initialize the "
            "distribution with `validate_args=False` to turn off validation.")


def distribution_no_support_warning(cls):
    return (f"{cls} does not define `support` to enable sample validation. Please initialize the distribution "
            "with `validate_args=False` to turn off validation.")


def kl_not_implemented(p, q):
    return NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                               f"{type(q).__name__}")


def kl_between_exponential_families():
    # PyTorch's message carries the indentation of its source's line continuation.
    return NotImplementedError("The cross KL-divergence between different exponential families cannot "
                               "                            be computed using Bregman divergences")


def kl_ambiguous_warning(type_p, type_q, left_p, right_q):
    return (f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl({left_p.__name__}, "
            f"{right_q.__name__})")


SAMPLE_N_DEPRECATED = "`sample_n(n)` will be deprecated. Use `sample((n,))` instead."


# ---------------------------------------------------------------------------------------
# torch.autograd.forward_ad (its Python module, and ATen's checks of dual tensors)

def fwad_nested_level():
    return RuntimeError("Nested forward mode AD is not supported at the moment")


def fwad_exit_not_last():
    return RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is not "
                        "supported.")


def fwad_level_negative():
    return RuntimeError("Dual level must be a positive number.")


def fwad_make_dual_no_level():
    return RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                        "enter_dual_level() first.")


def fwad_not_floating(which, dtype):
    return ValueError(f"Expected {which} to be floating point or complex, but got: {dtype}")


def fwad_invalid_level(function):
    return RuntimeError(f"Invalid level given to {function}")


def fwad_already_dual(level):
    return RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                        f"level {level} is not supported.")


def fwad_tangent_size(primal_shape, tangent_shape):
    return RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                        f"Tensor, this is not supported. Tensor is of size [{', '.join(map(str, primal_shape))}] "
                        f"while the given forward gradient is of size [{', '.join(map(str, tangent_shape))}].")


def fwad_function_no_jvp():
    return NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                               "forward mode AD.")


# ----- torch.distributions: transforms, Independent, TransformedDistribution, constraint registries --
def transform_cache_size():
    return ValueError("cache_size must be 0 or 1")


def transform_event_dim_ambiguous():
    return ValueError("Please use either .domain.event_dim or .codomain.event_dim")


def transform_with_cache_not_implemented(cls):
    return NotImplementedError(f"{cls}.with_cache is not implemented")


def transform_too_few_dims():
    return ValueError("Too few dimensions on input")


def transform_reshape_numel():
    return ValueError("in_shape, out_shape have different numbers of elements")


def transform_shape_mismatch(got, expected):
    return ValueError(f"Shape mismatch: expected {got} but got {expected}")


def transform_not_tril_number():
    return ValueError("Input is not a flattened lower-diagonal number")


def transform_not_square():
    return ValueError("Input is not square")


def transformed_distribution_transforms(transforms):
    if transforms is None:
        return ValueError("transforms must be a Transform or a list of Transforms")
    return ValueError(f"transforms must be a Transform or list, but was {transforms}")


def transformed_distribution_base_shape(event_dim, base_shape):
    return ValueError(f"base_distribution needs to have shape with size at least {event_dim}, but got {base_shape}.")


def independent_ndims(ndims, batch_ndims):
    return ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual {ndims} vs "
                      f"{batch_ndims}")


def independent_enumeration():
    return NotImplementedError("Enumeration over cartesian product is not implemented")


def constraint_registry_type(constraint):
    return TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")


def constraint_registry_missing(constraint):
    return NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")


def constraint_expected_dim(expected, got):
    return ValueError(f"Expected value.dim() >= {expected} but got {got}")


def tril_diag_out_of_range(diag, n):
    return ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")


def vec_not_tril(size):
    return ValueError(f"The size of last dimension is {size} which cannot be expressed as the lower triangular part "
                      "of a square D x D matrix.")


def geometric_probs_not_positive(value, distribution, invalid):
    return ValueError(f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) of "
                      f"distribution {distribution!r} to be positive but found invalid values:\n{invalid}")


# Tensor.H / Tensor.mH of a 0-D tensor (ATen's TensorShape.cpp): a deprecation warning
H_ZERO_DIM_WARNING = "Tensor.H is deprecated on 0-D tensors. Consider using x.conj()."
MH_ZERO_DIM_WARNING = "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj()."


def autograd_variable_removed():
    return RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


def linearize_argspec(tangents_spec, primals_spec):
    return RuntimeError(f"Expected the tangents {tangents_spec!r} to have the same argspec as the primals "
                        f"{primals_spec!r}")


def linearize_mismatch(index, what, tangent_value, primal_value):
    return RuntimeError(f"tangent:{index} with {what} {tangent_value} in flattened pytree doesn't match the {what} "
                        f"{primal_value} of the corresponding primal.")


def functionalize_remove(remove):
    return RuntimeError(
        f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options are:\n"
        "     remove='mutations': all inplace and out= operators will be removed from the program, and replaced with "
        "their out-of-place equivalents.\n     remove='mutations_and_views': In addition to the above, all aliasing "
        "operators {view} will be replaced with their non-aliasing counterparts, {view}_copy.\n")


def binomial_inhomogeneous(what):
    """Binomial.entropy / enumerate_support when the total counts differ."""
    return NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")


def kl_binomial_total_count():
    return NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")


def multinomial_inhomogeneous_total_count():
    """torch.distributions.Multinomial given a total_count that is not a Python int."""
    return NotImplementedError("inhomogeneous total_count is not supported")


def continuous_bernoulli_invalid_probs():
    """ContinuousBernoulli(probs, validate_args=...) with probs outside [0, 1]: checked before
    the clamp, whatever validate_args says, once it is given."""
    return ValueError("The parameter probs has invalid values")


def lkj_cholesky_dim(dim):
    return ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
