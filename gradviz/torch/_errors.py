"""Every error and warning text the engine produces, in PyTorch 2.13's exact wording.

Each constructor returns the exception to raise, tagged with the id that
``gradviz explain`` uses (the ids of tests/errors/catalog.json) and with the
facts of the run (``gradviz_context``) that explain can show.
"""

# With anomaly detection on, PyTorch points at the traceback it printed instead.
ANOMALY_ON_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                   "The variable in question was changed in there or anywhere later. Good luck!")
ANOMALY_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
         "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
         "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
         "or if you need to access saved tensors after calling backward.")
NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. "
    "(Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")
SCALAR_CONVERSION_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")
SEQUENCE_INDEX_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:349.)")
T_NOT_2D_WARNING = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an "
    "error in a future release. Consider `x.mT` to transpose batches of matrices or "
    "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")
TYPED_STORAGE_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage "
    "class. This should only matter to you if you are using storages directly.  To access UntypedStorage "
    "directly, use tensor.untyped_storage() instead of tensor.storage()")
T_ZERO_DIM_WARNING = (
    "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)")
CREATE_GRAPH_BACKWARD_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")

MESHGRID_INDEXING_WARNING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)")

# Texts of PyTorch's TORCH_WARN_ONCE warnings already shown in this process.
_WARNED_ONCE = set()


def reset_warnings_once():
    """Forget which once-per-process warnings were shown: for a runner that gives each
    script the fresh process PyTorch would have (gradviz run, explain)."""
    _WARNED_ONCE.clear()


def warn_once(text):
    """A warning PyTorch gives once per process (TORCH_WARN_ONCE), shown at the user's line."""
    if text in _WARNED_ONCE:
        return
    _WARNED_ONCE.add(text)
    warn_at_user(text)


def warn_at_user(text, category=UserWarning):
    """A warning shown at the user's line: the innermost frame outside gradviz.torch."""
    import os
    import sys
    import warnings
    engine_dir = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(engine_dir):
        frame, level = frame.f_back, level + 1
    warnings.warn(text, category, stacklevel=level)


def _tag(exc, error_id, **context):
    exc.gradviz_id = error_id
    exc.gradviz_context = context
    return exc


def tensor_type_name(dtype, shape):
    """The '[torch.FloatTensor [3]]' form PyTorch uses in version errors."""
    return f"[torch.{dtype.legacy_name} [{', '.join(map(str, shape))}]]"


def size_repr(shape):
    return f"torch.Size([{', '.join(map(str, shape))}])"


def no_grad_fn(index, **context):
    return _tag(RuntimeError(f"element {index} of tensors does not require grad and does not have a grad_fn"),
                "backward_no_grad_fn", **context)


def nonscalar_implicit_grad(**context):
    return _tag(RuntimeError("grad can be implicitly created only for scalar outputs"), "backward_nonscalar", **context)


def hook_changed_size(hook):
    return RuntimeError(f"hook '{getattr(hook, '__name__', type(hook).__name__)}' has changed the size of value")


def inference_requires_grad():
    return _tag(RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."),
                "inference_tensor_saved")


def complex_grad_dtype(index, grad_dtype, out_dtype):
    return _tag(RuntimeError(
        "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in dtype: "
        f"grad_output[{index}] has a dtype of {grad_dtype!r} and output[{index}] has a dtype of {out_dtype!r}."),
        "grad_output_complex_dtype_mismatch")


def complex_implicit_grad(dtype):
    return _tag(RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {dtype!r}"),
                "backward_complex_output")


def freed(**context):
    return _tag(RuntimeError(FREED), "backward_twice", **context)


def version_mismatch(dtype, shape, output_of, saved_version, current_version, anomaly=False, **context):
    where = f", which is output {output_of[1]} of {output_of[0]}," if output_of else ""
    return _tag(RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"{tensor_type_name(dtype, shape)}{where} is at version {current_version}; expected version "
        f"{saved_version} instead. {ANOMALY_ON_HINT if anomaly else ANOMALY_HINT}"),
        "inplace_modified_saved" if output_of else "inplace_modified_input",
        saved_version=saved_version, current_version=current_version, **context)


def inplace_on_leaf():
    return _tag(RuntimeError("a leaf Variable that requires grad is being used in an in-place operation."),
                "inplace_leaf")


def inplace_on_view_of_leaf():
    return _tag(RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation."),
                "inplace_view_of_leaf")


def mark_dirty_leaf():
    return _tag(RuntimeError("a leaf Variable that requires grad has been used in an in-place operation."),
                "custom_fn_mark_dirty_leaf")


def requires_grad_nonleaf():
    return _tag(RuntimeError(
        "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
        "subgraph that doesn't require differentiation use var_no_grad = var.detach()."), "requires_grad_nonleaf")


def requires_grad_not_float():
    return _tag(RuntimeError("only Tensors of floating point dtype can require gradients"), "requires_grad_int_tensor")


def factory_requires_grad_not_float():
    return _tag(RuntimeError("Only Tensors of floating point and complex dtype can require gradients"),
                "tensor_int_list_requires_grad")


def numpy_unsupported_dtype(dtype):
    names = {"bfloat16": "BFloat16"}
    return TypeError(f"Got unsupported ScalarType {names.get(dtype.name, dtype.name)}")


def numpy_requires_grad():
    return _tag(RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
                "numpy_requires_grad")


def grad_shape_mismatch(index, grad_shape, output_shape, output_index=None):
    output_index = index if output_index is None else output_index
    return _tag(RuntimeError(
        f"Mismatch in shape: grad_output[{index}] has a shape of {size_repr(grad_shape)} and output[{output_index}] "
        f"has a shape of {size_repr(output_shape)}."), "backward_gradient_shape_mismatch")


def unused_input(index):
    return _tag(RuntimeError(
        f"The differentiated Tensor at index {index} appears to not have been used in the graph. "
        "Set allow_unused=True if this is the desired behavior."), "grad_unused_input")


def input_no_requires_grad():
    return _tag(RuntimeError("One of the differentiated Tensors does not require grad"), "grad_input_no_requires_grad")


def item_multi_element(numel):
    return _tag(RuntimeError(f"a Tensor with {numel} elements cannot be converted to Scalar"), "item_multi_element")


# The meta device (shape and dtype, no data): what reads its values, and ops mixing devices.
def meta_item():
    return RuntimeError("Tensor.item() cannot be called on meta tensors")


def meta_no_data():
    return NotImplementedError("Cannot copy out of meta tensor; no data!")


def meta_module_to(error):
    """nn.Module.to() rewording the refusal of a meta parameter (nn/modules/module.py)."""
    return NotImplementedError(f"{error} Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() "
                               "when moving module from meta to a different device.")


def meta_numpy():
    return TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
                     "memory first.")


def device_mismatch(found, expected):
    """TensorIterator's check (elementwise ops, cat): every operand on the first's device."""
    return RuntimeError(f"Tensor on device {found} is not on the expected device {expected}!")


def meta_broadcast(length, dim, index, shape, common):
    return RuntimeError(f"Attempting to broadcast a dimension of length {length} at {dim}! Mismatching argument at "
                        f"index {index} had torch.Size([{', '.join(map(str, shape))}]); but expected shape should be "
                        f"broadcastable to {list(common)}")


def python_scalar_multi_element():
    return _tag(ValueError("only one element tensors can be converted to Python scalars"), "float_of_multi_element")


def bool_ambiguous():
    return _tag(RuntimeError("Boolean value of Tensor with more than one value is ambiguous"),
                "grad_outputs_mismatch_masked")


def bool_ambiguous_empty():
    return RuntimeError("Boolean value of Tensor with no values is ambiguous")


def once_differentiable_twice():
    return _tag(RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable"),
                "once_differentiable_double_backward")


def retain_grad_no_requires_grad():
    return _tag(RuntimeError("can't retain_grad on Tensor that has requires_grad=False"),
                "retain_grad_no_requires_grad")


def hook_no_requires_grad():
    return _tag(RuntimeError("cannot register a hook on a tensor that doesn't require gradient"),
                "hook_no_requires_grad")


def mm_shapes(a_shape, b_shape):
    return _tag(RuntimeError(
        f"mat1 and mat2 shapes cannot be multiplied ({a_shape[0]}x{a_shape[1]} and {b_shape[0]}x{b_shape[1]})"),
        "mm_shape_mismatch")


def broadcast_sizes(size_a, size_b, dim):
    return _tag(RuntimeError(
        f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at non-singleton dimension {dim}"),
        "broadcast_mismatch")


def view_noncontiguous():
    return _tag(RuntimeError(
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead."), "view_noncontiguous")


def view_invalid_shape(shape, numel):
    return RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")


def inference_tensor_saved():
    return _tag(RuntimeError(
        "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
        "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
        "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."), "inference_tensor_saved")


def inference_tensor_inplace():
    return _tag(RuntimeError(
        "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
        "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."),
        "inference_tensor_inplace")


def multi_output_view_inplace(output_nr, op_name):
    return _tag(RuntimeError(
        f"Output {output_nr} of {op_name} is a view and is being modified inplace. This view is the output of a "
        "function that returns multiple views. Such functions do not allow the output views to be modified "
        "inplace. You should replace the inplace operation by an out-of-place one."), "multi_output_view_inplace")


def view_in_no_grad_inplace():
    return _tag(RuntimeError(
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this "
        "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view "
        "and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both "
        "outside (if you want the inplace to be tracked)."), "view_in_no_grad_inplace")


def view_of_no_grad_view_inplace(output_nr, op_name):
    return _tag(RuntimeError(
        f"Output {output_nr} of {op_name} is a view of a view which was created in no_grad mode and is being modified "
        "inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
        "can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you "
        "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."),
        "view_in_no_grad_inplace")


def view_in_no_grad_rebased():
    return _tag(RuntimeError(
        "A view was created in no_grad mode and its base or another view of its base has been modified inplace with "
        "grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
        "your code by moving both the view and the inplace either both inside the no_grad block (if you don't want "
        "the inplace to be tracked) or both outside (if you want the inplace to be tracked)."),
        "view_in_no_grad_inplace")


def partial_overlap():
    return RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                        "a single memory location. Please clone() the tensor before performing the operation.")


def resize_requires_grad():
    return _tag(RuntimeError("cannot resize variables that require grad"), "resize_requires_grad")


def wrong_number_of_grads(node_name, expected, got):
    return _tag(RuntimeError(
        f"function {node_name} returned an incorrect number of gradients (expected {expected}, got {got})"),
        "custom_fn_wrong_num_grads")


def wrong_grad_shape(node_name, index, got_shape, expected_shape):
    return _tag(RuntimeError(
        f"Function {node_name} returned an invalid gradient at index {index} - got [{', '.join(map(str, got_shape))}] "
        f"but expected shape compatible with [{', '.join(map(str, expected_shape))}]"), "custom_fn_wrong_grad_shape")


def bad_matmul_precision(precision):
    return (f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)")


def bool_argument(function, argument, value, position=None):
    """A binding's type error for a bool argument given something else."""
    where = f" (position {position})" if position is not None else ""
    return TypeError(f"{function}(): argument '{argument}'{where} must be bool, not {type(value).__name__}")


def anomaly_mode_enabled():
    return ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.")


def anomaly_nan(node_name, index):
    return _tag(RuntimeError(f"Function '{node_name}' returned nan values in its {index}th output."), "anomaly_nan")


def detach_inplace_view():
    return _tag(RuntimeError(
        "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
        "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
        "detach_() cannot be called on these gradients. To fix this error, please refer to the "
        "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."), "detach_inplace_view")


def out_requires_grad(op_name):
    return _tag(RuntimeError(
        f"{op_name}(): functions with out=... arguments don't support automatic differentiation, but one of the "
        "arguments requires grad."), "out_arg_requires_grad")


def deepcopy_nonleaf():
    return _tag(RuntimeError(
        "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
        "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
        "see https://github.com/pytorch/pytorch/pull/103001"), "deepcopy_nonleaf")


def optimize_nonleaf():
    return _tag(ValueError("can't optimize a non-leaf Tensor"), "optimizer_nonleaf")


def grad_assign_size(grad_shape, shape):
    return _tag(RuntimeError(
        f"attempting to assign a gradient of size '[{', '.join(map(str, grad_shape))}]' to a tensor of size "
        f"'[{', '.join(map(str, shape))}]'. Please ensure that the gradient and the tensor are the same size"),
        "grad_assign_wrong_shape")


def saved_detached_inplace():
    return _tag(RuntimeError(
        "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not supported, "
        "please use out-of-place `.detach()` instead"), "saved_tensor_detached_inplace")


def saved_hooks_after_free():
    return _tag(RuntimeError(
        "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph are "
        "freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through "
        "the graph a second time or if you need to access saved variables after calling backward."),
        "saved_tensor_hooks_after_free")


def degrees_of_freedom_warning(name):
    return (f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")


def takes_no_arguments(name, args, kwargs):
    """CPython's refusal for a builtin function of no arguments (METH_NOARGS) given some."""
    if kwargs:
        return TypeError(f"{name}() takes no keyword arguments")
    return TypeError(f"{name}() takes no arguments ({len(args)} given)")


def saved_hooks_on_none():
    return RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")


def saved_hooks_already_set():
    return RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one "
                        "pair of hooks is allowed at a time.")


def pack_hook_modified_input():
    return RuntimeError(
        "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be "
        "modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you "
        "need to perform in-place operations on the input to a pack hook.")


def unpack_hook_not_tensor(result):
    # THPUtils_typename: the type's tp_name, a Python class's bare name (``int``, ``NoneType``,
    # ``MyBox``), a C type's as its module set it (``numpy.ndarray``)
    kind = type(result)
    heap_type = kind.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement
    name = kind.__name__ if heap_type or kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    return TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {name}")


def derivative_not_implemented(what):
    return _tag(NotImplementedError(f"the derivative for '{what}' is not implemented."), "derivative_not_implemented")


def aten_derivative_not_implemented(op_name):
    return _tag(RuntimeError(f"derivative for aten::{op_name} is not implemented"), "derivative_not_implemented")


def grad_assign_dtype(grad_type, tensor_type):
    return _tag(RuntimeError(
        f"attempting to assign a gradient with dtype '{grad_type}' to a tensor with grad_dtype '{tensor_type}'. The "
        "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
        "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
        "Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match."),
        "grad_assign_wrong_shape")


def masked_fill_mask_dtype(c_type_name):
    return RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {c_type_name}")


def masked_fill_value_dim(ndim):
    return RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {ndim} "
                        "dimension(s).")


def result_type_cast(result_word, out_word):
    return RuntimeError(f"result type {result_word} can't be cast to the desired output type {out_word}")


def out_resized_warning(old_shape, new_shape):
    return (f"An output with one or more elements was resized since it had shape [{', '.join(map(str, old_shape))}], "
            f"which does not match the required output shape [{', '.join(map(str, new_shape))}]. This behavior is "
            "deprecated, and in a future PyTorch release outputs will not be resized unless they have zero elements. "
            "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). "
            "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


def mv_dims(mat_ndim, vec_ndim):
    return RuntimeError(f"vector + matrix @ vector expected, got 1, {mat_ndim}, {vec_ndim}")


def addmv_dtypes(result_word, mat_word, vec_word):
    return RuntimeError(f"addmv input tensors must have the same dtype, but got {result_word}, {mat_word}, and "
                        f"{vec_word}")


def dot_dims(ndim_a, ndim_b):
    return RuntimeError(f"1D tensors expected, but got {ndim_a}D and {ndim_b}D tensors")


def dot_dtypes(word_a, word_b):
    return RuntimeError(f"dot : expected both vectors to have same dtype, but found {word_a} and {word_b}")


def bmm_not_3d(name):
    return RuntimeError(f"{name} must be a 3D tensor")


def bmm_batch2_size(expected, got):
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{expected[0]}, {expected[1]}] "
                        f"but got: [{got[0]}, {got[1]}].")


def scalar_type_mismatch(expected_word, found_word):
    return RuntimeError(f"expected scalar type {expected_word} but found {found_word}")


def not_a_matrix(name, ndim):
    return RuntimeError(f"{name} must be a matrix, got {ndim}-D tensor")


def same_dtype(name_a, name_b, word_a, word_b):
    return RuntimeError(f"{name_a} and {name_b} must have the same dtype, but got {word_a} and {word_b}")


def expand_size(size, existing, dim, target, sizes):
    return RuntimeError(f"The expanded size of the tensor ({size}) must match the existing size ({existing}) at "
                        f"non-singleton dimension {dim}.  Target sizes: [{', '.join(map(str, target))}].  Tensor "
                        f"sizes: [{', '.join(map(str, sizes))}]")


def expand_leading_minus_one(dim):
    return RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {dim}")


def index_dtype():
    return IndexError("tensors used as indices must be long, int, byte or bool tensors")


def index_mask_shape(mask_shape, mask_dim, shape, dim):
    return IndexError(f"The shape of the mask [{', '.join(map(str, mask_shape))}] at index {mask_dim} does not match "
                      f"the shape of the indexed tensor [{', '.join(map(str, shape))}] at index {dim}")


def index_out_of_bounds(index, position, size):
    return IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")


def index_broadcast(shapes):
    listed = ", ".join("[" + ", ".join(map(str, s)) + "]" for s in shapes)
    return IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}")


def index_put_shape(value_shape, result_shape):
    return RuntimeError(f"shape mismatch: value tensor of shape [{', '.join(map(str, value_shape))}] cannot be "
                        f"broadcast to indexing result of shape [{', '.join(map(str, result_shape))}]")


def fill_value_dim(ndim):
    return RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {ndim} dimensions.")


def bool_subtraction(both):
    if both:
        return RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                            "`logical_xor()` operator instead.")
    return RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                        "invert a mask, use the `~` or `logical_not()` operator instead.")


def bool_negation():
    return RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                        "mask, use the `~` or `logical_not()` operator instead.")


# ----- random numbers ------------------------------------------------------------------
def c_number(x):
    """A number as C++'s ostream prints it in ATen's messages (1, 0.5, 1e-07)."""
    return "%g" % x if isinstance(x, float) else str(x)


def kernel_not_implemented(kernel, dtype_word):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype_word}\'')


def normal_std(std):
    return RuntimeError(f"normal expects std >= 0.0, but found std {c_number(std)}")


def normal_std_tensor():
    return RuntimeError("normal expects all elements of std >= 0.0")


def uniform_range(low, high):
    return RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={c_number(low)} > "
                        f"to={c_number(high)}")


def random_from_to(low, to):
    return RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={to}")


def random_from_to_cast(low, to):
    return RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                        f"from={low} >= to={to}")


def random_from_to_inclusive(low, to_inclusive):
    return RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
                        f"dtype, but got from={low} > to_inc={to_inclusive}")


def random_out_of_bounds(name, type_name):
    return RuntimeError(f"{name} is out of bounds for {type_name}")


def init_deprecated_text(old_name, new_name):
    """nn.init's old spellings (``nn.init.normal``): PyTorch's FutureWarning."""
    return f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`."


def random_precision_warning(name, digits, type_name):
    return (f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {type_name} can support "
            "discrete uniform distribution only within this range. This warning will become an error in version 1.7 "
            "release, please fix the code in advance (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/DistributionTemplates.h:111.)")


def positive_parameter(method, name, value):
    return RuntimeError(f"{method} expects {name} > 0.0, but found {name}={c_number(value)}")


def continuous_only(distribution, dtype_word):
    return RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                        f"floating point but you specified {dtype_word}")


def geometric_p(p):
    return RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={c_number(p)}")


def bernoulli_p(p):
    return RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={c_number(p)}")


def bernoulli_p_tensor():
    return RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
                        "improved?  If so, please report an enhancement request to PyTorch.)")


def multinomial(what):
    texts = {"dim": "prob_dist must be 1 or 2 dim", "samples": "cannot sample n_sample <= 0 samples",
             "too_many": "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
             "invalid": "probability tensor contains either `inf`, `nan` or element < 0",
             "sum": "invalid multinomial distribution (sum of probabilities <= 0)",
             "negative": "invalid multinomial distribution (encountering probability entry < 0)",
             "infinite": "invalid multinomial distribution (encountering probability entry = infinity or NaN)",
             "categories": "number of categories cannot exceed 2^24"}
    return RuntimeError(texts[what])


def multinomial_dtype(dtype_word):
    return RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {dtype_word}")


def argument_type(function, name, position, expected, got):
    return TypeError(f"{function}(): argument '{name}' (position {position}) must be {expected}, not {got}")


def seed_type(type_name):
    return RuntimeError(f"manual_seed expected a long, but got {type_name}")


def seed_overflow():
    return unpack_long_overflow()


# ----- Python numbers unpacked for a tensor (torch.tensor's data, manual_seed) ----------
def unpack_long_overflow():
    """THPUtils_unpackLong on an int beyond int64."""
    return ValueError("Overflow when unpacking long long")


def value_overflow(type_word):
    """c10::checked_convert refusing a number the tensor's dtype cannot hold."""
    return RuntimeError(f"value cannot be converted to type {type_word} without overflow")


def python_type_name(value):
    """CPython's tp_name, which PyTorch's messages print: bare for Python classes, module-
    qualified for numpy's scalars (C types that name their module)."""
    kind = type(value)
    return f"numpy.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__


def not_an_integer(value):
    return TypeError(f"'{python_type_name(value)}' object cannot be interpreted as an integer")


def not_a_real_number(value):
    """PyFloat_AsDouble's words, which are not those of Python's float()."""
    return TypeError(f"must be real number, not {python_type_name(value)}")


def generator_offset():
    return RuntimeError("CPU Generator does not use offset")


def rng_state_type(type_name):
    return TypeError(f"expected a torch.ByteTensor, but got {type_name}")


def rng_state_dtype():
    return TypeError("RNG state must be a torch.ByteTensor")


def rng_state_size(expected, got):
    return RuntimeError(f"Expected a CPUGeneratorImplState of size {expected} but found the input RNG state size to be "
                        f"{got}")


def rng_state_invalid():
    return RuntimeError("Invalid mt19937 state")


_FACTORY_OPTIONS = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
                    "None, bool pin_memory = False, bool requires_grad = False")
_LIKE_OPTIONS = ("torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, "
                 "torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_ARANGE_OPTIONS = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
                   "bool pin_memory = False, bool requires_grad = False")
_OVERLOADS = {
    "arange": [f"(Number end, *, Tensor out = None, {_ARANGE_OPTIONS})",
               f"(Number start, Number end, *, {_ARANGE_OPTIONS})",
               f"(Number start, Number end, Number step = 1, *, Tensor out = None, {_ARANGE_OPTIONS})"],
    "randint": [f"(int high, tuple of ints size, *, torch.Generator generator, {_FACTORY_OPTIONS})",
                f"(int high, tuple of ints size, *, {_FACTORY_OPTIONS})",
                f"(int low, int high, tuple of ints size, *, torch.Generator generator, {_FACTORY_OPTIONS})",
                f"(int low, int high, tuple of ints size, *, {_FACTORY_OPTIONS})"],
    "normal": ["(Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)",
               "(Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)",
               "(float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)",
               "(float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
               f"{_FACTORY_OPTIONS})"],
    "randint_like": [f"({first}, *, {generator}{_LIKE_OPTIONS})" for first in (
        "Tensor input, int low, int high", "Tensor input, Tensor high", "Tensor input, int high")
        for generator in ("torch.Generator generator, ", "")],
}


_WHERE_OVERLOADS = (((), "Tensor condition"),
                    ((), "Tensor condition, Tensor input, Tensor other, *, Tensor out = None"),
                    (("Tensor", "Number", "Tensor"), "Tensor condition, Number self, Tensor other"),
                    (("Tensor", "Tensor", "Number"), "Tensor condition, Tensor input, Number other"),
                    (("Tensor", "Number", "Number"), "Tensor condition, Number self, Number other"))


def where_invalid_arguments(args):
    """where() given three positional arguments it cannot take. ``args`` holds, for each,
    (type word, the word PyTorch uses when matching: 'list of [int, float]', 'Tensor' when it
    is one). PyTorch says why only for the overloads that take numbers, and its matcher
    accepts no value in a Number slot: each is marked."""
    got = ", ".join(word for word, _, _ in args)
    lines = []
    for slots, signature in _WHERE_OVERLOADS:
        lines.append(f" * ({signature})\n")
        if slots and len(args) == len(slots):
            marked = ", ".join(match if kind == slot == "Tensor" else f"!{match}!"
                               for (_, match, kind), slot in zip(args, slots))
            lines.append(f"      didn't match because some of the arguments have invalid types: ({marked})\n")
    return TypeError(f"where() received an invalid combination of arguments - got ({got}), but expected one "
                     f"of:\n{''.join(lines)}")


def parser_got(args, keywords):
    """What PyTorch's parser says it got: the positional types, then the keywords in reverse
    order, each keyword followed by a comma when nothing positional came first."""
    words = [_parser_type(v) for v in args]
    named = [f"{k}={_parser_type(v)}" for k, v in reversed(list(keywords.items()))]
    if words:
        return words + named
    return ["".join(f"{w}, " for w in named)] if named else []


def _parser_type(value):
    # tensors and dtypes are named by what they are to the parser, not by their classes
    kind = type(value).__name__
    return {"Tensor": "Tensor", "dtype": "torch.dtype"}.get(kind, python_type_name(value))


def invalid_arguments(function, got):
    """PyTorch's argument parser refusing a call: what it got, then each overload."""
    overloads = "".join(f" * {o}\n" for o in _OVERLOADS[function])
    return TypeError(f"{function}() received an invalid combination of arguments - got ({', '.join(got)}), but "
                     f"expected one of:\n{overloads}")
# ---------------------------------------------------------------------------------------
# recurrent layers and packed sequences (ATen's checks)
LSTM_PROJECTIONS_ONEDNN_WARNING = (
    "LSTM with projections is not supported with oneDNN. Using default implementation. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)")


def rnn_empty_sequence():
    return RuntimeError("Expected sequence length to be larger than 0 in RNN")


def pack_lengths_type(lengths):
    return RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                        f"{lengths.dim()}D cpu {lengths.dtype.legacy_name[:-len('Tensor')]} tensor")


def pack_empty():
    return RuntimeError("Cannot pack empty tensors.")


def pack_lengths_count(count, batch_size):
    return RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {count} (batch_size={batch_size})")


def pack_length_not_positive():
    return RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is "
                        "<= 0")


def pack_lengths_unsorted():
    return RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                        "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                        "requirement if you do not need ONNX exportability.")


# ----- movedim -------------------------------------------------------------------------
def movedim_count_mismatch(source, destination):
    return RuntimeError(f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain "
                        f"the same number of dims as destination ({list(destination)} dims)")


def movedim_repeated(which, dims):
    return RuntimeError(f"movedim: repeated dim in `{which}` ({list(dims)})")


# ----- memory ----------------------------------------------------------------------------
def out_of_memory(nbytes):
    """PyTorch's CPU allocator refusing a request (numpy's MemoryError, or our guard)."""
    size = "" if nbytes is None else f" you tried to allocate {nbytes} bytes."
    return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory:"
                        f"{size} Error code 12 (Cannot allocate memory)")


def from_memory_error(exc):
    """numpy's MemoryError as PyTorch's RuntimeError (numpy's own error knows the size)."""
    return out_of_memory(getattr(exc, "_total_size", None))


# ----- complex numbers -------------------------------------------------------------------
def complex_parts_dtype(expected_word, got_word):
    return RuntimeError(f"Expected object of scalar type {expected_word} but got scalar type {got_word} for second "
                        "argument")


def complex_parts_not_float(word_a, word_b):
    return RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {word_a} and {word_b}")


def view_as_real_not_complex():
    return RuntimeError("view_as_real is only supported for complex tensors")


def view_as_complex_dtype(word):
    return RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor of "
                        f"scalar type: {word}")


def imag_of_real():
    return RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


# ---------------------------------------------------------------------------------------
# nn.Module backward hooks (torch/nn/modules/module.py and torch/utils/hooks.py)

def mixed_backward_hooks():
    return RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. Please "
                        "use only one of them.")


def module_hook_no_input_tensors():
    return RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")


def module_hook_grad_input_count(got, expected):
    return RuntimeError(f"Backward hook returned an invalid number of grad_input, got {got}, but expected {expected}")


def module_pre_hook_grad_output_count(got, expected):
    return RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got {got}, but expected "
                        f"{expected}")


def module_hook_no_input_grad_returned():
    return RuntimeError("Backward hook for Modules where no input requires gradient should always return None or "
                        "None for all gradients.")


FULL_HOOK_ON_OUTPUTS_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


def module_output_not_tensor_warning(result_type):
    return ("For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but received "
            f"{result_type}")


# What the deprecated register_backward_hook warns, by what makes its gradients incomplete.
NON_FULL_HOOK_WARNINGS = {
    "output": "Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of Tensors "
              "is deprecated and will be removed in future versions. This hook will be missing some of the "
              "grad_output. Please use register_full_backward_hook to get the documented behavior.",
    "input": "Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple of "
             "Tensors is deprecated and will be removed in future versions. This hook will be missing some of the "
             "grad_input. Please use register_full_backward_hook to get the documented behavior.",
    "nested": "Using a non-full backward hook when outputs are nested in python data structure is deprecated and "
              "will be removed in future versions. This hook will be missing some grad_output.",
    "many_outputs": "Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                    "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
                    "Please use register_full_backward_hook to get the documented behavior.",
    "many_nodes": "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
                  "and will be removed in future versions. This hook will be missing some grad_input. Please use "
                  "register_full_backward_hook to get the documented behavior.",
}


def broadcast_shapes_not_sequence(shape):
    return RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")


def broadcast_shapes_mismatch(length, idx, arg_idx, shape, common_shape):
    return RuntimeError(f"Attempting to broadcast a dimension of length {length} at {idx}! Mismatching argument at "
                        f"index {arg_idx} had {shape}; but expected shape should be broadcastable to {common_shape}")
