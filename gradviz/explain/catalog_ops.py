"""The catalog's entries about ops and modules: shapes, views and inference mode, custom
Functions, optimizers, checkpointing and conversions, as keyword data; catalog.py puts them
after its own (``catalog.ALL = BASE + OPS``)."""
from .catalog_entry import VERSION_HINT, VERSION_OLD_HINT, entry


OPS = (
    # ----------------------------------------------------------------------------- shapes

    entry(
        id="mm_shape_mismatch",
        title="Matrix multiply with incompatible inner dimensions",
        kind="exception", exc_type="RuntimeError",
        happened="""A matrix product (mm, @, nn.Linear) got operands whose inner dimensions differ: the columns of the
        first do not match the rows of the second.""",
        why="""(a x b) @ (c x d) needs b == c. With nn.Linear the second operand is weight.T (in_features x
        out_features), so the input's last dimension must equal in_features.""",
        fix="""Make the inner sizes agree: transpose one of the operands, or construct the nn.Linear with in_features
        equal to the size of the input's last dimension (commonly the number of features after flattening).""",
        before="""a = torch.randn(5, 3)
b = torch.randn(5, 3)
a @ b""",
        after="""a = torch.randn(5, 3)
b = torch.randn(5, 3)
a @ b.T""",
        question="Is this a matrix product or nn.Linear whose input size does not match?",
        messages=("mat1 and mat2 shapes cannot be multiplied (5x3 and 5x3)",
         "size mismatch, m1: [5 x 3], m2: [5 x 3] at /pytorch/aten/src/TH/generic/THTensorMath.cpp:41",
         "mat1 dim 1 must match mat2 dim 0")),

    entry(
        id="broadcast_mismatch",
        title="Element-wise op on shapes that do not broadcast",
        kind="exception", exc_type="RuntimeError",
        happened="""Two tensors combined element by element disagree in some dimension where neither of them has size 1,
        so they cannot be broadcast together.""",
        why="""Broadcasting lines shapes up from the right and only stretches dimensions of size 1.""",
        fix="""Bring the shapes into line with unsqueeze / reshape / transpose, or correct whichever step produced the
        wrong shape: predictions of shape [N, 1] against targets of shape [N], and swapped axes, are frequent culprits.
        """,
        before="""a = torch.randn(2, 3)
b = torch.randn(2, 4)
a + b""",
        after="""a = torch.randn(2, 3)
b = torch.randn(2, 4)
a + b[:, :3]               # or fix how b is built""",
        question="Do the two operands have different sizes in one dimension, neither of them 1?",
        messages=("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",)),

    entry(
        id="view_noncontiguous",
        title=".view() on a non-contiguous tensor",
        kind="exception", exc_type="RuntimeError",
        happened=""".view() was asked for a shape that the tensor's current memory layout cannot express, typically
        after transpose()/permute()/t().""",
        why="""view never copies; it only reinterprets strides, which is impossible when the elements of the new
        dimension are not evenly spaced in memory.""",
        fix="""Call .reshape(...) instead, which copies only when it has to, or make the memory contiguous first with
        .contiguous() and then view.""",
        before="""x.t().view(-1)""",
        after="""x.t().reshape(-1)""",
        question="Was .view() used after transpose/permute?",
        messages=(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
            "contiguous subspaces). Use .reshape(...) instead.",
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
            "contiguous subspaces). Call .contiguous() before .view().")),

    # ----------------------------------------------------------------------------- inference mode and views

    entry(
        id="inference_tensor_saved",
        title="Inference-mode tensor used in a recorded computation",
        kind="exception", exc_type="RuntimeError",
        happened="""An operation that autograd records had to keep one of its inputs for backward, and that input was
        made inside torch.inference_mode().""",
        why="""Inference tensors skip version counting, so autograd could never check that the saved value is still
        valid; it refuses to save them.""",
        fix="""Produce the tensor outside inference mode, make a normal copy of it with .clone() after the block, or use
        torch.no_grad() for data you will later feed into training.""",
        before="""with torch.inference_mode():
    x = torch.randn(3)
(w * x).sum().backward()""",
        after="""with torch.no_grad():
    x = torch.randn(3)
(w * x).sum().backward()""",
        question="Was the tensor created inside torch.inference_mode()?",
        messages=(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
            "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
            "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.",)),

    entry(
        id="inference_tensor_inplace",
        title="In-place update of an inference tensor outside inference mode",
        kind="exception", exc_type="RuntimeError",
        happened="""After leaving torch.inference_mode(), your code modified in place a tensor that had been created
        inside it.""",
        why="""Outside inference mode every in-place op must bump a version counter, and inference tensors do not have
        one.""",
        fix="""Work on a normal copy (.clone() it after the block), perform the update while still inside inference
        mode, or create the tensor under torch.no_grad() to begin with.""",
        before="""with torch.inference_mode():
    x = torch.zeros(3)
x.add_(1)""",
        after="""with torch.inference_mode():
    x = torch.zeros(3)
x = x.clone()
x.add_(1)""",
        question="Was the tensor created inside torch.inference_mode() and changed in place after it?",
        messages=(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
            "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.",)),

    entry(
        id="hook_no_requires_grad",
        title="register_hook() on a tensor that does not require grad",
        kind="exception", exc_type="RuntimeError",
        happened="""register_hook() was called on a tensor outside any graph: it does not require grad.""",
        why="""A tensor hook runs when a gradient arrives at the tensor, and no gradient will ever reach this one.""",
        fix="""Attach hooks only to tensors that take part in a graph (their requires_grad is True), created with grad
        mode enabled.""",
        before="""x = torch.randn(3)
x.register_hook(lambda g: g * 2)""",
        after="""x = torch.randn(3, requires_grad=True)
x.register_hook(lambda g: g * 2)""",
        question="Was register_hook() called on a tensor with requires_grad=False?",
        messages=("cannot register a hook on a tensor that doesn't require gradient",)),

    entry(
        id="multi_output_view_inplace",
        title="In-place change of an output of unbind/split/chunk",
        kind="exception", exc_type="RuntimeError",
        happened="""You changed in place one of the pieces returned by unbind, split or chunk. Those pieces are views of
        the same underlying tensor produced together by one operation.""",
        why="""Autograd cannot rewrite the history of one of several sibling views of the same base.""",
        fix="""Compute new tensors from the pieces instead of mutating them (out-of-place ops), clone a piece before
        editing it, or index the original tensor directly.""",
        before="""a, b = y.unbind(0)
a.mul_(2)""",
        after="""a, b = y.unbind(0)
a = a * 2""",
        question="Did the tensor come from unbind/split/chunk?",
        messages=(
            "Output 0 of Unbind is a view and is being modified inplace. This view is the output of a function that "
            "returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
            "replace the inplace operation by an out-of-place one.",
            "Output 0 of UnbindBackward is a view and is being modified inplace. This view is the output of a function "
            "that returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
            "replace the inplace operation by an out-of-place one.")),

    entry(
        id="view_in_no_grad_inplace",
        title="View made under no_grad modified with grad mode on",
        kind="exception", exc_type="RuntimeError",
        happened="""A view of a tensor that requires grad was taken while torch.no_grad() was active and changed in
        place later, after grad mode was back on.""",
        why="""Autograd cannot tell whether that change should be part of the graph (the view was untracked) or not (the
        in-place op is tracked), so it forbids the mix.""",
        fix="""Keep the view and its in-place change on the same side of the no_grad boundary: both inside (not tracked)
        or both outside (tracked). Cloning the view also resolves it.""",
        before="""with torch.no_grad():
    v = x[:2]
v.mul_(2)""",
        after="""with torch.no_grad():
    v = x[:2]
    v.mul_(2)""",
        question="Was the view created inside torch.no_grad() and modified outside it?",
        messages=(
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
            "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
            "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside "
            "(if you want the inplace to be tracked).",)),

    entry(
        id="resize_requires_grad",
        title="resize_() on a tensor that requires grad",
        kind="exception", exc_type="RuntimeError",
        happened="""resize_() was used on a tensor that requires grad.""",
        why="""Resizing changes the number of elements in place; there is no gradient formula for that.""",
        fix="""Get the new shape with reshape / view / expand or create a fresh tensor; if raw storage is all you need,
        resize a detached copy inside torch.no_grad().""",
        before="""x.resize_(6)""",
        after="""x = x.reshape(6)        # or build a new tensor""",
        question="Was resize_() / resize_as_() called on a tensor that requires grad?",
        messages=("cannot resize variables that require grad",)),

    # ----------------------------------------------------------------------------- custom Functions

    entry(
        id="custom_fn_wrong_num_grads",
        title="Custom Function backward returned the wrong number of gradients",
        kind="exception", exc_type="RuntimeError",
        happened="""Your autograd.Function's backward returned a different number of values than forward had inputs.""",
        why="""Autograd pairs the returned gradients with forward's inputs one to one.""",
        fix="""Make backward return a tuple with exactly as many items as forward received arguments (ctx excluded); put
        None where an argument is not a tensor or needs no gradient.""",
        before="""@staticmethod
def backward(ctx, g):
    return g                 # forward(ctx, a, b) has two inputs""",
        after="""@staticmethod
def backward(ctx, g):
    a, b = ctx.saved_tensors
    return g * b, g * a""",
        question="Does a custom Function's backward return fewer or more values than forward takes?",
        messages=("function MulBackward returned an incorrect number of gradients (expected 2, got 1)",)),

    entry(
        id="custom_fn_wrong_grad_shape",
        title="Custom Function backward returned a gradient of the wrong shape",
        kind="exception", exc_type="RuntimeError",
        happened="""One of the gradients your custom Function's backward returned has a shape that neither equals nor
        can be reduced to the shape of the matching forward argument.""",
        why="""Each gradient must describe its input element by element.""",
        fix="""Shape each returned gradient like its forward argument: sum over the dimensions that were broadcast, and
        look for accidental transposes.""",
        before="""def backward(ctx, g):
    return g[:2] * 2""",
        after="""def backward(ctx, g):
    return g * 2""",
        question="Does a custom Function's backward return a gradient with a different shape than its input?",
        messages=(
            "Function DoubleBackward returned an invalid gradient at index 0 - got [2] but expected shape compatible with "
            "[3]",
            "Function DoubleBackward returned an invalid gradient at index 0 - expected shape [3] but got [2]")),

    entry(
        id="anomaly_nan",
        title="Anomaly detection: a backward node produced NaN",
        kind="exception", exc_type="RuntimeError",
        happened="""Anomaly detection is on, and one of the backward nodes produced a gradient containing NaN.""",
        why="""The forward computation hit a point where the derivative is undefined or infinite: sqrt or log of 0 or a
        negative number, 0/0, pow with a negative base, ...""",
        fix="""Keep the forward pass away from points where the derivative blows up: clamp arguments before sqrt/log
        (clamp_min(eps)), add a small epsilon to denominators, and remember that both branches of torch.where are
        differentiated, so the discarded branch must be safe too.""",
        before="""y = torch.sqrt(x).sum()""",
        after="""y = torch.sqrt(x.clamp_min(1e-12)).sum()""",
        question="Is anomaly detection on and did the forward pass compute sqrt/log/division of invalid values?",
        messages=("Function 'SqrtBackward0' returned nan values in its 0th output.",
         "Function 'SqrtBackward' returned nan values in its 0th output.")),

    entry(
        id="detach_inplace_view",
        title="detach_() called on a view",
        kind="exception", exc_type="RuntimeError",
        happened="""detach_() (the in-place detach) was called on a view: a slice, a transpose, or a DDP gradient bucket
        view.""",
        why="""A view shares its base's history; it cannot be detached alone in place.""",
        fix="""Detach out of place instead: .detach() returns a new tensor to assign. For DDP gradients that are bucket
        views, clear them through optimizer.zero_grad().""",
        before="""v = x[:2]
v.detach_()""",
        after="""v = x[:2].detach()""",
        question="Was detach_() called on a slice/transposed tensor or a DDP gradient?",
        messages=(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
            "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() "
            "cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
            "torch/optim/optimizer.py as the solution.",
            "Can't detach views in-place. Use detach() instead")),

    entry(
        id="backward_complex_output",
        title="backward() on a complex scalar without a gradient",
        kind="exception", exc_type="RuntimeError",
        happened="""backward() was called with no gradient argument on an output holding complex numbers.""",
        why="""The implicit seed 1.0 only makes sense for a real loss; for a complex output the derivative depends on
        which real function of it you minimise.""",
        fix="""Derive a real-valued loss from the complex result (its magnitude abs(), its real part, or its squared
        magnitude summed) and differentiate that, or pass a complex starting gradient explicitly.""",
        before="""z = (x * 1j).sum()
z.backward()""",
        after="""z = (x * 1j).sum()
z.abs().backward()""",
        question="Is the output complex?",
        messages=("grad can be implicitly created only for real scalar outputs but got torch.complex64",)),

    entry(
        id="out_arg_requires_grad",
        title="out= used with inputs that require grad",
        kind="exception", exc_type="RuntimeError",
        happened="""A function was given an out= tensor to write its result into, while one of its inputs requires grad.
        """,
        why="""Writing into a preallocated tensor cannot be recorded in the graph, so out= variants are not
        differentiable.""",
        fix="""Let the function return a new tensor and assign it instead of using out=; if no gradient is wanted, do it
        inside torch.no_grad().""",
        before="""torch.add(a, 1, out=out)""",
        after="""out = torch.add(a, 1)""",
        question="Was an out= argument used?",
        messages=(
            "add(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
            "requires grad.",)),

    entry(
        id="deepcopy_nonleaf",
        title="copy.deepcopy of a non-leaf tensor",
        kind="exception", exc_type="RuntimeError",
        happened="""copy.deepcopy met a tensor that was computed by an operation requiring grad, directly or nested
        inside a list, a dict or an object's attributes.""",
        why="""Copying a tensor would mean copying its graph too; PyTorch only supports deep copies of leaves.""",
        fix="""Store and copy graph-free values (.detach().clone()); modules built with the old
        torch.nn.utils.weight_norm should move to torch.nn.utils.parametrizations.weight_norm.""",
        before="""state = {"logits": logits}
copy.deepcopy(state)""",
        after="""state = {"logits": logits.detach()}
copy.deepcopy(state)""",
        question="Did copy.deepcopy reach a tensor with a grad_fn?",
        messages=(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If "
            "you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001",
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment")),

    entry(
        id="optimizer_nonleaf",
        title="Optimizer given a non-leaf tensor",
        kind="exception", exc_type="ValueError",
        happened="""The list given to the optimizer contains a tensor that an operation produced (an arithmetic result,
        a cast like .float() or a move like .to(device) applied after requires_grad=True) rather than a leaf.""",
        why="""The optimizer reads .grad and updates in place; a non-leaf never gets .grad and cannot be updated in
        place.""",
        fix="""Create each parameter directly in its final dtype and on its final device and only then enable
        requires_grad, e.g. torch.randn(3, dtype=torch.float64, requires_grad=True); or wrap it in nn.Parameter.""",
        before="""w = torch.randn(3, requires_grad=True).float()
opt = torch.optim.SGD([w], lr=0.1)""",
        after="""w = torch.randn(3, dtype=torch.float32, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)""",
        question="Was the tensor given to the optimizer produced by an operation (cast, .to(), arithmetic)?",
        messages=("can't optimize a non-leaf Tensor",)),

    entry(
        id="grad_assign_wrong_shape",
        title="A gradient of the wrong shape assigned to .grad",
        kind="exception", exc_type="RuntimeError",
        happened="""Your code assigned to tensor.grad a tensor whose shape differs from the tensor's.""",
        why="""The optimizer and autograd treat .grad as element-by-element gradients of the tensor.""",
        fix="""Only assign to .grad a tensor shaped exactly like the tensor itself; zeros_like() of the tensor is the
        safe starting point.""",
        before="""w.grad = torch.zeros(4)       # w has shape [3]""",
        after="""w.grad = torch.zeros_like(w)""",
        question="Was .grad assigned manually?",
        messages=(
            "attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please ensure that the gradient and "
            "the tensor are the same size",
            "assigned grad has data of a different size")),

    entry(
        id="saved_tensor_detached_inplace",
        title="A saved tensor was detached in place",
        kind="exception", exc_type="RuntimeError",
        happened="""After an op saved a tensor for its backward, the code called .detach_() on that tensor, removing its
        history in place while the graph still refers to it.""",
        why="""detach_() rewrites the tensor's history; the node that saved it can no longer rely on it.""",
        fix="""Take a detached alias with .detach() (out of place) and leave the original tensor's history alone.""",
        before="""loss = h.pow(2).sum()
h.detach_()
loss.backward()""",
        after="""loss = h.pow(2).sum()
h_const = h.detach()
loss.backward()""",
        question="Was .detach_() called on a tensor used earlier in the forward pass?",
        messages=(
            "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not supported, "
            "please use out-of-place `.detach()` instead",)),

    entry(
        id="derivative_not_implemented",
        title="The op has no derivative for that argument",
        kind="exception", exc_type="NotImplementedError",
        happened="""The backward pass hit an operation for which PyTorch has no derivative formula with respect to the
        argument that requires grad (igamma with respect to its first argument, special.zeta, floor_divide, ...).""",
        why="""Some special functions are only differentiable with respect to some of their arguments in PyTorch.""",
        fix="""Stop gradients at that argument with .detach(), rewrite the computation with differentiable operations,
        or provide your own backward in a custom autograd.Function.""",
        before="""torch.igamma(a, x).sum().backward()     # a requires grad""",
        after="""torch.igamma(a.detach(), x).sum().backward()""",
        question="Does an argument of a special function (igamma, zeta, ...) require grad?",
        messages=(
            "the derivative for 'igamma: input' is not implemented.", "derivative for aten::igamma is not implemented")),

    entry(
        id="tensor_copy_construct_warning",
        title="torch.tensor() applied to an existing tensor",
        kind="warning", exc_type="UserWarning",
        happened="""torch.tensor(t) copied the values of a tensor into a brand-new leaf. The copy has no history: the
        graph is cut there.""",
        why="""It looks like a conversion but behaves like detach().clone(), which silently stops gradients.""",
        fix="""Pick the call that matches your intent: .detach().clone() for a history-free copy, .clone() for a copy
        that stays in the graph, torch.stack or torch.cat to assemble several tensors without cutting their history.""",
        before="""y = torch.tensor(x * 2)""",
        after="""y = (x * 2).clone()          # or (x * 2).detach().clone() if no gradient is wanted""",
        question="Was torch.tensor(...) called on something that is already a tensor (or a list of tensors)?",
        messages=("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
         "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
         "To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
         "sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor).")),

    entry(
        id="grad_is_none_zero",
        title="tensor.grad is None",
        kind="exception", exc_type="AttributeError",
        happened="""Your code called a method on tensor.grad (zero_(), norm(), ...), but .grad is None.""",
        why=""".grad is only filled in for leaves that require grad and that a backward pass actually reached. It is
        None before the first backward(), for tensors that do not require grad or are not leaves, for tensors that were
        not used in the loss (or only through a detach()), and after optimizer.zero_grad() (which sets it to None).""",
        fix="""Test for None before using a gradient (`if ... .grad is not None`), let optimizer.zero_grad() handle
        resetting, and make sure the tensor actually contributes to the loss.""",
        before="""w.grad.zero_()""",
        after="""if w.grad is not None:
    w.grad.zero_()""",
        question="Was the error raised by a method call on .grad?",
        messages=("'NoneType' object has no attribute 'zero_'", "'NoneType' object has no attribute 'norm'")),

    entry(
        id="optimizer_step_between_backwards",
        title="optimizer.step() between two backward passes through one graph",
        kind="exception", exc_type="RuntimeError",
        happened="""The graph was kept with retain_graph=True and optimizer.step() ran before the second backward.
        step() updates the parameters in place, bumping their version counters, but the graph had saved the old
        parameters (for example a Linear weight, needed for the gradient with respect to its input).""",
        why="""The second backward would combine gradients from old activations with new weights; the version check
        stops it.""",
        fix="""Run every backward pass that shares this forward output before the optimizer touches the weights (ideally
        one backward on the summed losses), then call step(). When a later loss must see the updated weights, as in
        alternating GAN updates, run the forward pass again after the step, or detach the generator's output for the
        discriminator's loss.""",
        before="""out = net(x)
out.mean().backward(retain_graph=True)
opt.step()
out.pow(2).mean().backward()""",
        after="""out = net(x)
loss = out.mean() + out.pow(2).mean()
loss.backward()
opt.step()""",
        question="""Did optimizer.step() (or any in-place parameter update) run between two backward passes over the
        same forward output?""",
        messages=("one of the variables needed for gradient computation has been modified by an inplace operation: "
         "[torch.FloatTensor [4, 1]], which is output 0 of AsStrided, is at version 2; expected version 1 instead. "
         + VERSION_HINT,
         "one of the variables needed for gradient computation has been modified by an inplace operation: "
         "[torch.cuda.FloatTensor [64, 1]], which is output 0 of TBackward, is at version 2; expected version 1 "
         "instead. " + VERSION_OLD_HINT)),

    entry(
        id="func_grad_nonscalar",
        title="torch.func.grad of a function that does not return a scalar",
        kind="exception", exc_type="RuntimeError",
        happened="""torch.func.grad (or grad_and_value) differentiated a function whose result is not a 0-dim tensor.
        """,
        why="""grad is defined for scalar functions; for other outputs you need a vector-Jacobian product or a Jacobian.
        """,
        fix="""Have the function return a 0-dim tensor (sum or mean it), or switch to vjp, jacrev or jacfwd from
        torch.func when the output has several elements.""",
        before="""grad(lambda t: t * 2)(x)""",
        after="""grad(lambda t: (t * 2).sum())(x)""",
        question="Was the function given to torch.func.grad returning more than one element?",
        messages=(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. Maybe you "
            "wanted to use the vjp or jacrev APIs instead?",)),

    entry(
        id="checkpoint_no_input_requires_grad",
        title="Reentrant checkpoint with no input requiring grad",
        kind="warning", exc_type="UserWarning",
        happened="""torch.utils.checkpoint in its reentrant mode was called where no input requires grad, so its output
        does not require grad and the checkpointed module's parameters never receive gradients.""",
        why="""The reentrant implementation decides whether to record anything from its inputs only, not from the
        parameters inside.""",
        fix="""Switch to use_reentrant=False, which handles this case, or give the first checkpointed block an input
        that requires grad.""",
        before="""out = checkpoint(block, x, use_reentrant=True)""",
        after="""out = checkpoint(block, x, use_reentrant=False)""",
        question="Was torch.utils.checkpoint called with use_reentrant=True and inputs that do not require grad?",
        messages=("None of the inputs have requires_grad=True. Gradients will be None",)),

    entry(
        id="float_of_multi_element",
        title="float()/int() of a tensor with several elements",
        kind="exception", exc_type="ValueError",
        happened="""A tensor holding several values was converted to a single Python number, with float(), int(), a
        format string or (on old PyTorch) .item().""",
        why="""Only a one-element tensor has a single Python value.""",
        fix="""Reduce the tensor to one value first (its mean() or sum() before float()), select one element, or get all
        the values with .tolist().""",
        before="""float(x)                  # x has shape [3]""",
        after="""float(x.mean())""",
        question="""Was it float()/int()/a format string applied to a multi-element tensor (or .item() on an old
        PyTorch)?""",
        messages=("only one element tensors can be converted to Python scalars",)),

    entry(
        id="grad_outputs_mismatch_masked",
        title="Ambiguous truth value of a multi-element tensor",
        kind="exception", exc_type="RuntimeError",
        happened="""Python needed a single True/False from a tensor with several elements. In autograd this happens when
        several outputs are given grad_outputs/grad_tensors and one of them has the wrong shape: PyTorch's own shape
        check compares tensors with == while building its error message, and that comparison raises this instead. In
        plain code it comes from using a tensor in `if`, `while`, `and`/`or`, or `in`.""",
        why="""A multi-element tensor has no single truth value (any? all?), so Python refuses to guess.""",
        fix="""Inside autograd: make each entry of grad_outputs / grad_tensors shaped like its own output (ones_like()
        of that output); comparing the shapes pair by pair shows which one is off. In your own code, say which truth
        value you mean with .any(), .all() or torch.equal().""",
        before="""torch.autograd.grad([a, b], x, grad_outputs=[torch.tensor(1.0), torch.ones(4, 1)])""",
        after="""torch.autograd.grad([a, b], x, grad_outputs=[torch.ones_like(a), torch.ones_like(b)])""",
        question="""Was it raised inside torch.autograd.grad/backward with several outputs and grad_outputs? (Otherwise
        it is a tensor used as a condition.)""",
        messages=("Boolean value of Tensor with more than one value is ambiguous",
         "bool value of Tensor with more than one value is ambiguous")),

    entry(
        id="grad_output_complex_dtype_mismatch",
        title="Real gradient for a complex output (or the reverse)",
        kind="exception", exc_type="RuntimeError",
        happened="""The starting gradient handed to backward() / autograd.grad is real-valued while the output is
        complex, or complex while the output is real.""",
        why="""For complex tensors the seed must have the output's dtype.""",
        fix="""Give the starting gradient the same dtype as the output; torch.ones_like(output) does that.""",
        before="""y.backward(gradient=torch.ones(3))        # y is complex64""",
        after="""y.backward(gradient=torch.ones_like(y))""",
        question="Is one of the output / the gradient complex and the other real?",
        messages=(
            "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in dtype: "
            "grad_output[0] has a dtype of torch.float32 and output[0] has a dtype of torch.complex64.",)),

    entry(
        id="scalar_conversion_requires_grad_warning",
        title="float() of a tensor that requires grad",
        kind="warning", exc_type="UserWarning",
        happened="""float() converted a tensor that belongs to an autograd graph into a Python number, which carries no
        history: anything built from it is invisible to backward.""",
        why="""Fine for logging; a silent bug when the number is used to build the loss.""",
        fix="""For logging, .item() (or .detach()) states that you only want the value; where the quantity must be
        differentiated, keep it a tensor.""",
        before="""total = float(loss)""",
        after="""total = loss.item()        # logging only; keep `loss` (a tensor) for backward""",
        question="Was float()/int() applied to a tensor with requires_grad=True?",
        messages=(
            "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\nConsider using "
            "tensor.detach() first.",)),

    entry(
        id="checkpoint_use_reentrant_unspecified",
        title="torch.utils.checkpoint called without use_reentrant",
        kind="warning", exc_type="UserWarning",
        happened="""torch.utils.checkpoint.checkpoint was called without saying which implementation to use.""",
        why="""The default is changing; the two implementations behave differently (for example with inputs that do not
        require grad).""",
        fix="""State the implementation explicitly: use_reentrant=False is the recommended one, use_reentrant=True keeps
        the old behaviour.""",
        before="""out = checkpoint(block, x)""",
        after="""out = checkpoint(block, x, use_reentrant=False)""",
        question="Was checkpoint() called without use_reentrant=?",
        messages=(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
            "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
            "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",)),
)
