"""The catalog's entries about ops and modules: shapes, views and inference mode, custom
Functions, optimizers, checkpointing and conversions. Registered in catalog order by
importing this module from catalog.py."""
from .catalog import VERSION_HINT, VERSION_OLD_HINT, _e


# ----------------------------------------------------------------------------- shapes

_e("mm_shape_mismatch", "Matrix multiply with incompatible inner dimensions", "exception", "RuntimeError",
   """A matrix product (mm, @, nn.Linear) got operands whose inner dimensions differ: the columns of the first do
   not match the rows of the second.""",
   """(a x b) @ (c x d) needs b == c. With nn.Linear the second operand is weight.T (in_features x
   out_features), so the input's last dimension must equal in_features.""",
   """Make the inner sizes agree: transpose one of the operands, or construct the nn.Linear with in_features equal to
   the size of the input's last dimension (commonly the number of features after flattening).""",
   """a = torch.randn(5, 3)
b = torch.randn(5, 3)
a @ b""",
   """a = torch.randn(5, 3)
b = torch.randn(5, 3)
a @ b.T""",
   "Is this a matrix product or nn.Linear whose input size does not match?",
   ("mat1 and mat2 shapes cannot be multiplied (5x3 and 5x3)",
    "size mismatch, m1: [5 x 3], m2: [5 x 3] at /pytorch/aten/src/TH/generic/THTensorMath.cpp:41",
    "mat1 dim 1 must match mat2 dim 0"))

_e("broadcast_mismatch", "Element-wise op on shapes that do not broadcast", "exception", "RuntimeError",
   """Two tensors combined element by element disagree in some dimension where neither of them has size 1, so they
   cannot be broadcast together.""",
   """Broadcasting lines shapes up from the right and only stretches dimensions of size 1.""",
   """Bring the shapes into line with unsqueeze / reshape / transpose, or correct whichever step produced the wrong
   shape: predictions of shape [N, 1] against targets of shape [N], and swapped axes, are frequent culprits.""",
   """a = torch.randn(2, 3)
b = torch.randn(2, 4)
a + b""",
   """a = torch.randn(2, 3)
b = torch.randn(2, 4)
a + b[:, :3]               # or fix how b is built""",
   "Do the two operands have different sizes in one dimension, neither of them 1?",
   ("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",))

_e("view_noncontiguous", ".view() on a non-contiguous tensor", "exception", "RuntimeError",
   """.view() was asked for a shape that the tensor's current memory layout cannot express, typically after
   transpose()/permute()/t().""",
   """view never copies; it only reinterprets strides, which is impossible when the elements of the new
   dimension are not evenly spaced in memory.""",
   """Call .reshape(...) instead, which copies only when it has to, or make the memory contiguous first with
   .contiguous() and then view.""",
   """x.t().view(-1)""",
   """x.t().reshape(-1)""",
   "Was .view() used after transpose/permute?",
   ("view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Use .reshape(...) instead.",
    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Call .contiguous() before .view()."))

# ----------------------------------------------------------------------------- inference mode and views

_e("inference_tensor_saved", "Inference-mode tensor used in a recorded computation", "exception", "RuntimeError",
   """An operation that autograd records had to keep one of its inputs for backward, and that input was made inside
   torch.inference_mode().""",
   """Inference tensors skip version counting, so autograd could never check that the saved value is still
   valid; it refuses to save them.""",
   """Produce the tensor outside inference mode, make a normal copy of it with .clone() after the block, or use
   torch.no_grad() for data you will later feed into training.""",
   """with torch.inference_mode():
    x = torch.randn(3)
(w * x).sum().backward()""",
   """with torch.no_grad():
    x = torch.randn(3)
(w * x).sum().backward()""",
   "Was the tensor created inside torch.inference_mode()?",
   ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.",))

_e("inference_tensor_inplace", "In-place update of an inference tensor outside inference mode", "exception",
   "RuntimeError",
   """After leaving torch.inference_mode(), your code modified in place a tensor that had been created inside it.""",
   """Outside inference mode every in-place op must bump a version counter, and inference tensors do not have
   one.""",
   """Work on a normal copy (.clone() it after the block), perform the update while still inside inference mode, or
   create the tensor under torch.no_grad() to begin with.""",
   """with torch.inference_mode():
    x = torch.zeros(3)
x.add_(1)""",
   """with torch.inference_mode():
    x = torch.zeros(3)
x = x.clone()
x.add_(1)""",
   "Was the tensor created inside torch.inference_mode() and changed in place after it?",
   ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.",))

_e("hook_no_requires_grad", "register_hook() on a tensor that does not require grad", "exception", "RuntimeError",
   """register_hook() was called on a tensor outside any graph: it does not require grad.""",
   """A tensor hook runs when a gradient arrives at the tensor, and no gradient will ever reach this one.""",
   """Attach hooks only to tensors that take part in a graph (their requires_grad is True), created with grad mode
   enabled.""",
   """x = torch.randn(3)
x.register_hook(lambda g: g * 2)""",
   """x = torch.randn(3, requires_grad=True)
x.register_hook(lambda g: g * 2)""",
   "Was register_hook() called on a tensor with requires_grad=False?",
   ("cannot register a hook on a tensor that doesn't require gradient",))

_e("multi_output_view_inplace", "In-place change of an output of unbind/split/chunk", "exception", "RuntimeError",
   """You changed in place one of the pieces returned by unbind, split or chunk. Those pieces are views of the same
   underlying tensor produced together by one operation.""",
   """Autograd cannot rewrite the history of one of several sibling views of the same base.""",
   """Compute new tensors from the pieces instead of mutating them (out-of-place ops), clone a piece before editing
   it, or index the original tensor directly.""",
   """a, b = y.unbind(0)
a.mul_(2)""",
   """a, b = y.unbind(0)
a = a * 2""",
   "Did the tensor come from unbind/split/chunk?",
   ("Output 0 of Unbind is a view and is being modified inplace. This view is the output of a function that "
    "returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one.",
    "Output 0 of UnbindBackward is a view and is being modified inplace. This view is the output of a function "
    "that returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one."))

_e("view_in_no_grad_inplace", "View made under no_grad modified with grad mode on", "exception", "RuntimeError",
   """A view of a tensor that requires grad was taken while torch.no_grad() was active and changed in place later,
   after grad mode was back on.""",
   """Autograd cannot tell whether that change should be part of the graph (the view was untracked) or not (the
   in-place op is tracked), so it forbids the mix.""",
   """Keep the view and its in-place change on the same side of the no_grad boundary: both inside (not tracked) or
   both outside (tracked). Cloning the view also resolves it.""",
   """with torch.no_grad():
    v = x[:2]
v.mul_(2)""",
   """with torch.no_grad():
    v = x[:2]
    v.mul_(2)""",
   "Was the view created inside torch.no_grad() and modified outside it?",
   ("A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside "
    "(if you want the inplace to be tracked).",))

_e("resize_requires_grad", "resize_() on a tensor that requires grad", "exception", "RuntimeError",
   """resize_() was used on a tensor that requires grad.""",
   """Resizing changes the number of elements in place; there is no gradient formula for that.""",
   """Get the new shape with reshape / view / expand or create a fresh tensor; if raw storage is all you need, resize
   a detached copy inside torch.no_grad().""",
   """x.resize_(6)""",
   """x = x.reshape(6)        # or build a new tensor""",
   "Was resize_() / resize_as_() called on a tensor that requires grad?",
   ("cannot resize variables that require grad",))

# ----------------------------------------------------------------------------- custom Functions

_e("custom_fn_wrong_num_grads", "Custom Function backward returned the wrong number of gradients", "exception",
   "RuntimeError",
   """Your autograd.Function's backward returned a different number of values than forward had inputs.""",
   """Autograd pairs the returned gradients with forward's inputs one to one.""",
   """Make backward return a tuple with exactly as many items as forward received arguments (ctx excluded); put None
   where an argument is not a tensor or needs no gradient.""",
   """@staticmethod
def backward(ctx, g):
    return g                 # forward(ctx, a, b) has two inputs""",
   """@staticmethod
def backward(ctx, g):
    a, b = ctx.saved_tensors
    return g * b, g * a""",
   "Does a custom Function's backward return fewer or more values than forward takes?",
   ("function MulBackward returned an incorrect number of gradients (expected 2, got 1)",))

_e("custom_fn_wrong_grad_shape", "Custom Function backward returned a gradient of the wrong shape", "exception",
   "RuntimeError",
   """One of the gradients your custom Function's backward returned has a shape that neither equals nor can be reduced
   to the shape of the matching forward argument.""",
   """Each gradient must describe its input element by element.""",
   """Shape each returned gradient like its forward argument: sum over the dimensions that were broadcast, and look
   for accidental transposes.""",
   """def backward(ctx, g):
    return g[:2] * 2""",
   """def backward(ctx, g):
    return g * 2""",
   "Does a custom Function's backward return a gradient with a different shape than its input?",
   ("Function DoubleBackward returned an invalid gradient at index 0 - got [2] but expected shape compatible with "
    "[3]",
    "Function DoubleBackward returned an invalid gradient at index 0 - expected shape [3] but got [2]"))

_e("anomaly_nan", "Anomaly detection: a backward node produced NaN", "exception", "RuntimeError",
   """Anomaly detection is on, and one of the backward nodes produced a gradient containing NaN.""",
   """The forward computation hit a point where the derivative is undefined or infinite: sqrt or log of 0 or a
   negative number, 0/0, pow with a negative base, ...""",
   """Keep the forward pass away from points where the derivative blows up: clamp arguments before sqrt/log
   (clamp_min(eps)), add a small epsilon to denominators, and remember that both branches of torch.where are
   differentiated, so the discarded branch must be safe too.""",
   """y = torch.sqrt(x).sum()""",
   """y = torch.sqrt(x.clamp_min(1e-12)).sum()""",
   "Is anomaly detection on and did the forward pass compute sqrt/log/division of invalid values?",
   ("Function 'SqrtBackward0' returned nan values in its 0th output.",
    "Function 'SqrtBackward' returned nan values in its 0th output."))

_e("detach_inplace_view", "detach_() called on a view", "exception", "RuntimeError",
   """detach_() (the in-place detach) was called on a view: a slice, a transpose, or a DDP gradient bucket
   view.""",
   """A view shares its base's history; it cannot be detached alone in place.""",
   """Detach out of place instead: .detach() returns a new tensor to assign. For DDP gradients that are bucket views,
   clear them through optimizer.zero_grad().""",
   """v = x[:2]
v.detach_()""",
   """v = x[:2].detach()""",
   "Was detach_() called on a slice/transposed tensor or a DDP gradient?",
   ("Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
    "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() "
    "cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
    "torch/optim/optimizer.py as the solution.",
    "Can't detach views in-place. Use detach() instead"))

_e("backward_complex_output", "backward() on a complex scalar without a gradient", "exception", "RuntimeError",
   """backward() was called with no gradient argument on an output holding complex numbers.""",
   """The implicit seed 1.0 only makes sense for a real loss; for a complex output the derivative depends on
   which real function of it you minimise.""",
   """Derive a real-valued loss from the complex result (its magnitude abs(), its real part, or its squared magnitude
   summed) and differentiate that, or pass a complex starting gradient explicitly.""",
   """z = (x * 1j).sum()
z.backward()""",
   """z = (x * 1j).sum()
z.abs().backward()""",
   "Is the output complex?",
   ("grad can be implicitly created only for real scalar outputs but got torch.complex64",))

_e("out_arg_requires_grad", "out= used with inputs that require grad", "exception", "RuntimeError",
   """A function was given an out= tensor to write its result into, while one of its inputs requires grad.""",
   """Writing into a preallocated tensor cannot be recorded in the graph, so out= variants are not
   differentiable.""",
   """Let the function return a new tensor and assign it instead of using out=; if no gradient
   is wanted, do it inside torch.no_grad().""",
   """torch.add(a, 1, out=out)""",
   """out = torch.add(a, 1)""",
   "Was an out= argument used?",
   ("add(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
    "requires grad.",))

_e("deepcopy_nonleaf", "copy.deepcopy of a non-leaf tensor", "exception", "RuntimeError",
   """copy.deepcopy met a tensor that was computed by an operation requiring grad, directly or nested inside a list, a
   dict or an object's attributes.""",
   """Copying a tensor would mean copying its graph too; PyTorch only supports deep copies of leaves.""",
   """Store and copy graph-free values (.detach().clone()); modules built with the old torch.nn.utils.weight_norm
   should move to torch.nn.utils.parametrizations.weight_norm.""",
   """state = {"logits": logits}
copy.deepcopy(state)""",
   """state = {"logits": logits.detach()}
copy.deepcopy(state)""",
   "Did copy.deepcopy reach a tensor with a grad_fn?",
   ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If "
    "you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see "
    "https://github.com/pytorch/pytorch/pull/103001",
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment"))

_e("optimizer_nonleaf", "Optimizer given a non-leaf tensor", "exception", "ValueError",
   """The list given to the optimizer contains a tensor that an operation produced (an arithmetic result, a cast
   like .float() or a move like .to(device) applied after requires_grad=True) rather than a leaf.""",
   """The optimizer reads .grad and updates in place; a non-leaf never gets .grad and cannot be updated in
   place.""",
   """Create each parameter directly in its final dtype and on its final device and only then enable requires_grad,
   e.g. torch.randn(3, dtype=torch.float64, requires_grad=True); or wrap it in nn.Parameter.""",
   """w = torch.randn(3, requires_grad=True).float()
opt = torch.optim.SGD([w], lr=0.1)""",
   """w = torch.randn(3, dtype=torch.float32, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)""",
   "Was the tensor given to the optimizer produced by an operation (cast, .to(), arithmetic)?",
   ("can't optimize a non-leaf Tensor",))

_e("grad_assign_wrong_shape", "A gradient of the wrong shape assigned to .grad", "exception", "RuntimeError",
   """Your code assigned to tensor.grad a tensor whose shape differs from the tensor's.""",
   """The optimizer and autograd treat .grad as element-by-element gradients of the tensor.""",
   """Only assign to .grad a tensor shaped exactly like the tensor itself; zeros_like() of the tensor is the safe
   starting point.""",
   """w.grad = torch.zeros(4)       # w has shape [3]""",
   """w.grad = torch.zeros_like(w)""",
   "Was .grad assigned manually?",
   ("attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please ensure that the gradient and "
    "the tensor are the same size",
    "assigned grad has data of a different size"))

_e("saved_tensor_detached_inplace", "A saved tensor was detached in place", "exception", "RuntimeError",
   """After an op saved a tensor for its backward, the code called .detach_() on that tensor, removing its history in
   place while the graph still refers to it.""",
   """detach_() rewrites the tensor's history; the node that saved it can no longer rely on it.""",
   """Take a detached alias with .detach() (out of place) and leave the original tensor's history alone.""",
   """loss = h.pow(2).sum()
h.detach_()
loss.backward()""",
   """loss = h.pow(2).sum()
h_const = h.detach()
loss.backward()""",
   "Was .detach_() called on a tensor used earlier in the forward pass?",
   ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not supported, "
    "please use out-of-place `.detach()` instead",))

_e("derivative_not_implemented", "The op has no derivative for that argument", "exception", "NotImplementedError",
   """The backward pass hit an operation for which PyTorch has no derivative formula with respect to the argument that
   requires grad (igamma with respect to its first argument, special.zeta, floor_divide, ...).""",
   """Some special functions are only differentiable with respect to some of their arguments in PyTorch.""",
   """Stop gradients at that argument with .detach(), rewrite the computation with differentiable operations, or
   provide your own backward in a custom autograd.Function.""",
   """torch.igamma(a, x).sum().backward()     # a requires grad""",
   """torch.igamma(a.detach(), x).sum().backward()""",
   "Does an argument of a special function (igamma, zeta, ...) require grad?",
   ("the derivative for 'igamma: input' is not implemented.", "derivative for aten::igamma is not implemented"))

_e("tensor_copy_construct_warning", "torch.tensor() applied to an existing tensor", "warning", "UserWarning",
   """torch.tensor(t) copied the values of a tensor into a brand-new leaf. The copy has no history: the graph is
   cut there.""",
   """It looks like a conversion but behaves like detach().clone(), which silently stops gradients.""",
   """Pick the call that matches your intent: .detach().clone() for a history-free copy, .clone() for a copy that
   stays in the graph, torch.stack or torch.cat to assemble several tensors without cutting their history.""",
   """y = torch.tensor(x * 2)""",
   """y = (x * 2).clone()          # or (x * 2).detach().clone() if no gradient is wanted""",
   "Was torch.tensor(...) called on something that is already a tensor (or a list of tensors)?",
   ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
    "To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
    "sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor)."))

_e("grad_is_none_zero", "tensor.grad is None", "exception", "AttributeError",
   """Your code called a method on tensor.grad (zero_(), norm(), ...), but .grad is None.""",
   """.grad is only filled in for leaves that require grad and that a backward pass actually reached. It is None
   before the first backward(), for tensors that do not require grad or are not leaves, for tensors that were not
   used in the loss (or only through a detach()), and after optimizer.zero_grad() (which sets it to None).""",
   """Test for None before using a gradient (`if ... .grad is not None`), let optimizer.zero_grad() handle resetting,
   and make sure the tensor actually contributes to the loss.""",
   """w.grad.zero_()""",
   """if w.grad is not None:
    w.grad.zero_()""",
   "Was the error raised by a method call on .grad?",
   ("'NoneType' object has no attribute 'zero_'", "'NoneType' object has no attribute 'norm'"))

_e("optimizer_step_between_backwards", "optimizer.step() between two backward passes through one graph",
   "exception", "RuntimeError",
   """The graph was kept with retain_graph=True and optimizer.step() ran before the second backward. step()
   updates the parameters in place, bumping their version counters, but the graph had saved the old parameters
   (for example a Linear weight, needed for the gradient with respect to its input).""",
   """The second backward would combine gradients from old activations with new weights; the version check stops
   it.""",
   """Run every backward pass that shares this forward output before the optimizer touches the weights (ideally one
   backward on the summed losses), then call step(). When a later loss must see the updated weights, as in
   alternating GAN updates, run the forward pass again after the step, or detach the generator's output for the
   discriminator's loss.""",
   """out = net(x)
out.mean().backward(retain_graph=True)
opt.step()
out.pow(2).mean().backward()""",
   """out = net(x)
loss = out.mean() + out.pow(2).mean()
loss.backward()
opt.step()""",
   """Did optimizer.step() (or any in-place parameter update) run between two backward passes over the same
   forward output?""",
   ("one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[torch.FloatTensor [4, 1]], which is output 0 of AsStrided, is at version 2; expected version 1 instead. "
    + VERSION_HINT,
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[torch.cuda.FloatTensor [64, 1]], which is output 0 of TBackward, is at version 2; expected version 1 "
    "instead. " + VERSION_OLD_HINT))

_e("func_grad_nonscalar", "torch.func.grad of a function that does not return a scalar", "exception",
   "RuntimeError",
   """torch.func.grad (or grad_and_value) differentiated a function whose result is not a 0-dim tensor.""",
   """grad is defined for scalar functions; for other outputs you need a vector-Jacobian product or a
   Jacobian.""",
   """Have the function return a 0-dim tensor (sum or mean it), or switch to vjp, jacrev or jacfwd from torch.func
   when the output has several elements.""",
   """grad(lambda t: t * 2)(x)""",
   """grad(lambda t: (t * 2).sum())(x)""",
   "Was the function given to torch.func.grad returning more than one element?",
   ("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. Maybe you "
    "wanted to use the vjp or jacrev APIs instead?",))

_e("checkpoint_no_input_requires_grad", "Reentrant checkpoint with no input requiring grad", "warning",
   "UserWarning",
   """torch.utils.checkpoint in its reentrant mode was called where no input requires grad, so its output does not
   require grad and the checkpointed module's parameters never receive gradients.""",
   """The reentrant implementation decides whether to record anything from its inputs only, not from the
   parameters inside.""",
   """Switch to use_reentrant=False, which handles this case, or give the first checkpointed block an input that
   requires grad.""",
   """out = checkpoint(block, x, use_reentrant=True)""",
   """out = checkpoint(block, x, use_reentrant=False)""",
   "Was torch.utils.checkpoint called with use_reentrant=True and inputs that do not require grad?",
   ("None of the inputs have requires_grad=True. Gradients will be None",))

_e("float_of_multi_element", "float()/int() of a tensor with several elements", "exception", "ValueError",
   """A tensor holding several values was converted to a single Python number, with float(), int(), a format string or
   (on old PyTorch) .item().""",
   """Only a one-element tensor has a single Python value.""",
   """Reduce the tensor to one value first (its mean() or sum() before float()), select one element, or get all the
   values with .tolist().""",
   """float(x)                  # x has shape [3]""",
   """float(x.mean())""",
   """Was it float()/int()/a format string applied to a multi-element tensor (or .item() on an old PyTorch)?""",
   ("only one element tensors can be converted to Python scalars",))

_e("grad_outputs_mismatch_masked", "Ambiguous truth value of a multi-element tensor", "exception",
   "RuntimeError",
   """Python needed a single True/False from a tensor with several elements. In autograd this happens when
   several outputs are given grad_outputs/grad_tensors and one of them has the wrong shape: PyTorch's own shape
   check compares tensors with == while building its error message, and that comparison raises this instead. In
   plain code it comes from using a tensor in `if`, `while`, `and`/`or`, or `in`.""",
   """A multi-element tensor has no single truth value (any? all?), so Python refuses to guess.""",
   """Inside autograd: make each entry of grad_outputs / grad_tensors shaped like its own output
   (ones_like() of that output); comparing the shapes pair by pair shows which one is off. In your own code, say
   which truth value you mean with .any(), .all() or torch.equal().""",
   """torch.autograd.grad([a, b], x, grad_outputs=[torch.tensor(1.0), torch.ones(4, 1)])""",
   """torch.autograd.grad([a, b], x, grad_outputs=[torch.ones_like(a), torch.ones_like(b)])""",
   """Was it raised inside torch.autograd.grad/backward with several outputs and grad_outputs? (Otherwise it is a
   tensor used as a condition.)""",
   ("Boolean value of Tensor with more than one value is ambiguous",
    "bool value of Tensor with more than one value is ambiguous"))

_e("grad_output_complex_dtype_mismatch", "Real gradient for a complex output (or the reverse)", "exception",
   "RuntimeError",
   """The starting gradient handed to backward() / autograd.grad is real-valued while the output is complex, or
   complex while the output is real.""",
   """For complex tensors the seed must have the output's dtype.""",
   """Give the starting gradient the same dtype as the output; torch.ones_like(output) does that.""",
   """y.backward(gradient=torch.ones(3))        # y is complex64""",
   """y.backward(gradient=torch.ones_like(y))""",
   "Is one of the output / the gradient complex and the other real?",
   ("For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in dtype: "
    "grad_output[0] has a dtype of torch.float32 and output[0] has a dtype of torch.complex64.",))

_e("scalar_conversion_requires_grad_warning", "float() of a tensor that requires grad", "warning", "UserWarning",
   """float() converted a tensor that belongs to an autograd graph into a Python number, which carries no history:
   anything built from it is invisible to backward.""",
   """Fine for logging; a silent bug when the number is used to build the loss.""",
   """For logging, .item() (or .detach()) states that you only want the value; where the quantity must be
   differentiated, keep it a tensor.""",
   """total = float(loss)""",
   """total = loss.item()        # logging only; keep `loss` (a tensor) for backward""",
   "Was float()/int() applied to a tensor with requires_grad=True?",
   ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\nConsider using "
    "tensor.detach() first.",))

_e("checkpoint_use_reentrant_unspecified", "torch.utils.checkpoint called without use_reentrant", "warning",
   "UserWarning",
   """torch.utils.checkpoint.checkpoint was called without saying which implementation to use.""",
   """The default is changing; the two implementations behave differently (for example with inputs that do not
   require grad).""",
   """State the implementation explicitly: use_reentrant=False is the recommended one, use_reentrant=True keeps the
   old behaviour.""",
   """out = checkpoint(block, x)""",
   """out = checkpoint(block, x, use_reentrant=False)""",
   "Was checkpoint() called without use_reentrant=?",
   ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.",))
