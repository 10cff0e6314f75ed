"""The knowledge base behind ``gradviz explain``: one entry per id of
``tests/errors/catalog.json`` (PyTorch's autograd errors, verbatim, with a reproducer each).

Every entry says, in gradviz's own words:

- ``title``    -- one line;
- ``happened`` -- what happened, in terms of the autograd graph;
- ``why``      -- why autograd refuses (or, for warnings, why it is suspicious);
- ``fix``      -- what to do, and a ``before`` / ``after`` code pair;
- ``question`` -- when several ids share one message: the question that tells this one
  apart from the others;
- ``messages`` -- the wordings PyTorch uses for it (2.13 first, then older releases).
  These are PyTorch's texts, kept only so that message mode can match and rank them.

Plain keyword data (:func:`.catalog_entry.entry`), no engine import: ``gradviz explain --list`` is
instant.  The catalog is ``BASE`` (backward, versions, flags, gradients) followed by
``catalog_ops.OPS`` (ops and modules); nothing is registered by importing a module.
"""
from .catalog_entry import (FREED_213, FREED_OLD, NO_GRAD_FN, NO_GRAD_FN_OLD, VERSION_HINT,  # noqa: F401
                            VERSION_OLD_HINT, Entry, entry)
from .catalog_ops import OPS


def _version_msgs(with_output):
    out = ", which is output 0 of SigmoidBackward0," if with_output else ""
    t213 = "[torch.FloatTensor [3]]" + (", which is output 0 of Sigmoid," if with_output else "")
    return (
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"{t213} is at version 1; expected version 0 instead. {VERSION_HINT}",
        # PyTorch 1.x
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[torch.cuda.FloatTensor [3]]{out} is at version 1; expected version 0 instead. Hint: enable anomaly "
        f"detection to find the operation that failed to compute its gradient, with "
        f"torch.autograd.set_detect_anomaly(True).",
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[torch.FloatTensor [3]]{', which is output 0 of TBackward,' if with_output else ''} is at version 2; "
        f"expected version 1 instead. {VERSION_OLD_HINT}",
        # PyTorch 0.x
        "one of the variables needed for gradient computation has been modified by an inplace operation",
    )


BASE = (
    # ----------------------------------------------------------------------------- backward basics

    entry(
        id="backward_no_grad_fn",
        title="backward() called on a tensor that is not part of any graph",
        kind="exception", exc_type="RuntimeError",
        happened="""The tensor you started backward from has requires_grad=False and no grad_fn: it is a lone leaf, so
        there is no recorded node to walk back from and nothing that could receive a gradient.""",
        why="""Autograd records an operation only when one of its inputs requires grad while grad mode is on. None of
        the tensors that produced this one did: they were plain tensors, frozen parameters, or the chain was cut by
        detach(), .data, .item() or a copy into a fresh tensor.""",
        fix="""Turn on requires_grad for what you want gradients of (or wrap it in nn.Parameter) before the forward
        pass, and keep the path from it to the loss free of detach()/.data/no_grad.""",
        before="""x = torch.ones(3)
loss = (x * 2).sum()
loss.backward()""",
        after="""x = torch.ones(3, requires_grad=True)
loss = (x * 2).sum()
loss.backward()""",
        question="""Did any input of this computation have requires_grad=True (or is it an nn.Parameter that is not
        frozen)? If none did, this is the cause.""",
        messages=(
            NO_GRAD_FN, "element 1 of tensors does not require grad and does not have a grad_fn") + NO_GRAD_FN_OLD),

    entry(
        id="backward_nonscalar",
        title="backward() on a non-scalar output without a gradient",
        kind="exception", exc_type="RuntimeError",
        happened="""backward() starts the backward pass by seeding the root of the graph with dLoss/dOutput. You called
        it on an output with several elements and passed no gradient, so there is no seed to start from.""",
        why="""For a single number the seed is simply 1.0; for a tensor with many elements autograd would have to guess
        how the elements combine into one loss, and it refuses to guess.""",
        fix="""Turn the output into a single number before starting backward, usually by summing or averaging it, or
        hand backward() the starting gradient yourself: one value per element (a tensor of ones shaped like the output
        stands for plain summation).""",
        before="""y = x * 2
y.backward()""",
        after="""y = x * 2
y.sum().backward()          # or: y.backward(gradient=torch.ones_like(y))""",
        question="""Was it tensor.backward() / torch.autograd.backward()? (torch.autograd.grad on a non-scalar output is
        grad_nonscalar_no_grad_outputs.)""",
        messages=("grad can be implicitly created only for scalar outputs",)),

    entry(
        id="backward_twice",
        title="Second backward through a graph whose buffers were already freed",
        kind="exception", exc_type="RuntimeError",
        happened="""A backward pass already went through this graph. After a node runs, autograd throws away the tensors
        it saved for its gradient formula (unless retain_graph=True). The second backward reached such a node and found
        its saved tensors gone.""",
        why="""Freeing the saved tensors right after use is what keeps memory flat during training; the price is that
        each graph can be walked once.""",
        fix="""Do one backward per forward: build the loss again (re-run the forward) before the next backward, or add
        the losses and call backward() once. Only if you really need two passes over the same graph, pass
        retain_graph=True to every backward except the last.""",
        before="""loss = model(x).sum()
loss.backward()
loss.backward()""",
        after="""loss = model(x).sum()
loss.backward()
loss = model(x).sum()       # a fresh graph for the second pass
loss.backward()""",
        question="""Did you call .backward() twice on the same loss (or on two losses that share part of one graph)
        without retain_graph=True?""",
        messages=(FREED_213,) + FREED_OLD),

    entry(
        id="autograd_grad_twice",
        title="torch.autograd.grad through a graph that was already used",
        kind="exception", exc_type="RuntimeError",
        happened="""torch.autograd.grad (or a backward() before it) already walked this graph and released the tensors
        its nodes had saved. The next autograd.grad call needs those same saved tensors and finds them freed.""",
        why="""autograd.grad frees buffers exactly like backward() does, unless you ask for retain_graph=True (or
        create_graph=True).""",
        fix="""Ask for every gradient in a single call (one torch.autograd.grad call with a list of inputs), or keep the
        graph alive with retain_graph=True on all calls but the last.""",
        before="""g1, = torch.autograd.grad(y, x)
g2, = torch.autograd.grad(y, x)""",
        after="""g1, = torch.autograd.grad(y, x, retain_graph=True)
g2, = torch.autograd.grad(y, x)""",
        question="""Was one of the two passes torch.autograd.grad(...) (for example a gradient penalty computed after
        backward(), or autograd.grad called twice on the same output)?""",
        messages=(FREED_213,) + FREED_OLD),

    entry(
        id="saved_tensor_after_free",
        title="A node's saved tensor read after backward freed it",
        kind="exception", exc_type="RuntimeError",
        happened="""Your code read a tensor that a grad_fn node saved for its gradient formula (grad_fn._saved_self,
        _saved_result, ctx.saved_tensors ...) after a backward pass had already released it.""",
        why="""A node keeps its saved tensors only until its gradient has been computed; after that the slot is empty
        and reading it is an error, not a None.""",
        fix="""Look at a node's saved values while the graph is still intact, that is before the backward pass runs; if
        you must look afterwards, ask that earlier backward to keep its buffers (retain_graph=True).""",
        before="""y = x.sin()
y.sum().backward()
print(y.grad_fn._saved_self)""",
        after="""y = x.sin()
print(y.grad_fn._saved_self)   # inspect before the graph is freed
y.sum().backward()""",
        question="""Did the failing line read a grad_fn attribute (grad_fn._saved_*) or ctx.saved_tensors rather than
        call backward()?""",
        messages=(FREED_213,) + FREED_OLD),

    entry(
        id="saved_tensor_hooks_after_free",
        title="Hooks registered on a saved tensor that was already freed",
        kind="exception", exc_type="RuntimeError",
        happened="""Your code reached into a graph node's raw saved-value object (a _raw_saved_* attribute) to attach
        pack/unpack hooks, but a backward pass had already emptied it.""",
        why="""Pack/unpack hooks act on the saved value; once backward released it there is nothing left to hook.""",
        fix="""Attach the hooks while the value is still stored, before backward. The robust way is the context manager
        torch.autograd.graph.saved_tensors_hooks(pack, unpack) around the forward pass, which applies them to everything
        saved inside it.""",
        before="""y = x.sin()
y.sum().backward()
y.grad_fn._raw_saved_self.register_hooks(pack, unpack)""",
        after="""with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x.sin()
y.sum().backward()""",
        question="Did you call register_hooks() on a grad_fn._raw_saved_* object after backward()?",
        messages=(
            "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph are "
            "freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through "
            "the graph a second time or if you need to access saved variables after calling backward.",)),

    entry(
        id="rnn_hidden_not_detached",
        title="Recurrent state carries the previous iteration's (freed) graph",
        kind="exception", exc_type="RuntimeError",
        happened="""A tensor you carry from one iteration to the next (the hidden state of an RNN, an LSTM's hidden and
        cell states, a running average ...) is still attached to the graph of the iteration that produced it. The
        previous backward freed that graph, and this iteration's backward walks from the new loss through the carried
        state into it.""",
        why="""Each iteration builds a new graph, but the carried tensor links it to all earlier ones: backward tries to
        continue into the old, already-freed part.""",
        fix="""Cut the link at the iteration boundary with .detach() (truncated backpropagation through time). Do not
        use retain_graph=True as the fix: the graph would grow with every step and so would time and memory.""",
        before="""h = torch.zeros(1, 8)
for x in batches:
    h = rnn(x, h)
    loss = h.pow(2).sum()
    loss.backward()""",
        after="""h = torch.zeros(1, 8)
for x in batches:
    h = h.detach()          # LSTM: state = tuple(s.detach() for s in state)
    h = rnn(x, h)
    loss = h.pow(2).sum()
    loss.backward()""",
        question="""Does this happen in the second iteration of a loop, with a state (h, (h, c), a running statistic)
        that is computed from the previous iteration's value and never detached?""",
        messages=(FREED_213,) + FREED_OLD),

    # ----------------------------------------------------------------------------- in-place and versions

    entry(
        id="inplace_modified_saved",
        title="A tensor saved for backward was modified in place",
        kind="exception", exc_type="RuntimeError",
        happened="""An op saved one of its tensors (here an output of another op) for its gradient formula, and later an
        in-place operation (mul_, +=, an item assignment, relu_(), ...) changed that tensor. Its version counter moved
        past the version recorded when it was saved, so backward stopped instead of using the changed values.""",
        why="""Gradient formulas need the values as they were in the forward pass (sigmoid's gradient, for instance, is
        computed from its own output). Every in-place op bumps a tensor's version, and backward compares versions to
        catch exactly this.""",
        fix="""Use the out-of-place form (mul instead of mul_, + instead of +=, nn.ReLU(inplace=False)), or clone() the
        tensor before changing it.""",
        before="""y = x.sigmoid()
y.mul_(2)
y.sum().backward()""",
        after="""y = x.sigmoid()
y = y * 2                  # a new tensor; the saved one is untouched
y.sum().backward()""",
        question="""Was the tensor changed in place by your own code after the op that used it (rather than through a
        detached alias or by optimizer.step())?""",
        messages=_version_msgs(True)),

    entry(
        id="inplace_modified_input",
        title="An input saved for backward was modified in place",
        kind="exception", exc_type="RuntimeError",
        happened="""A plain tensor with no grad_fn (a data batch, a constant, a parameter) was saved by an op for its
        gradient formula (a matrix product needs each operand to compute the other's gradient), and then modified in
        place before backward ran.""",
        why="""The saved tensor and the one you modified share storage; its version counter no longer matches the one
        recorded at save time, so the gradient would be computed from the wrong values.""",
        fix="""Leave tensors that the forward pass consumed untouched until backward has run. Rebind the name to a new
        tensor instead (an out-of-place op, or start from a clone()), or do the data mutation before the tensor enters
        the model.""",
        before="""y = w @ x
x.add_(1)
y.sum().backward()""",
        after="""y = w @ x
x = x + 1                  # new tensor; the x saved by w @ x is unchanged
y.sum().backward()""",
        question="""Is the tensor named in the message a plain input (data, constant) that your code modified in place
        after using it?""",
        messages=_version_msgs(False)),

    entry(
        id="inplace_leaf",
        title="In-place change of a leaf that requires grad",
        kind="exception", exc_type="RuntimeError",
        happened="""You modified a leaf tensor that requires grad (a parameter, or a tensor created with
        requires_grad=True) in place while grad mode was on.""",
        why="""A leaf is where gradients are accumulated; autograd has no node that could represent "the leaf before the
        change", so it forbids recording an in-place op on it.""",
        fix="""Parameter updates and initialisation are bookkeeping, not part of the model: put them inside a
        torch.no_grad() block, or leave them to an optimizer or torch.nn.init. If you meant to compute a changed version
        of the tensor, create a new tensor from it instead.""",
        before="""w -= lr * w.grad""",
        after="""with torch.no_grad():
    w -= lr * w.grad""",
        question="""Was the tensor a leaf with requires_grad=True modified directly (-=, zero_(), add_(...)) outside
        torch.no_grad()?""",
        messages=("a leaf Variable that requires grad is being used in an in-place operation.",
         # PyTorch 0.4 - 1.4
         "a leaf Variable that requires grad has been used in an in-place operation.",
         # PyTorch 0.3
         "leaf variable has been moved into the graph interior")),

    entry(
        id="inplace_view_of_leaf",
        title="In-place write into a slice/view of a leaf that requires grad",
        kind="exception", exc_type="RuntimeError",
        happened="""An in-place op, often an item or slice assignment or a fill_() on a slice, wrote into a view of a
        leaf that requires grad. Writing into the view writes into the leaf itself.""",
        why="""It is the same rule as for the leaf: autograd cannot record an in-place change of a leaf, and a view is
        just a window onto the leaf's memory.""",
        fix="""If the write is initialisation, wrap it in torch.no_grad(). If it is part of the computation, assemble
        the result as a new tensor (torch.where, torch.cat, or writing into a clone of the parameter) so that the leaf
        itself stays untouched.""",
        before="""w = torch.zeros(3, requires_grad=True)
w[0] = 1.0""",
        after="""w = torch.zeros(3, requires_grad=True)
with torch.no_grad():
    w[0] = 1.0""",
        question="Was the write an item/slice assignment or an in-place op on a slice of a parameter?",
        messages=("a view of a leaf Variable that requires grad is being used in an in-place operation.",)),

    entry(
        id="custom_fn_mark_dirty_leaf",
        title="Custom Function modified a leaf in place (mark_dirty)",
        kind="exception", exc_type="RuntimeError",
        happened="""Inside forward, your custom autograd.Function mutated one of its arguments and reported that with
        ctx.mark_dirty(); the argument it mutated is a leaf with requires_grad=True.""",
        why="""mark_dirty rewrites the input's history so it becomes an output of your Function; a leaf cannot get a
        history, so the call is refused.""",
        fix="""Hand the Function something it may overwrite, a clone of the leaf, or rewrite forward so that it builds
        and returns a new tensor instead of changing its argument.""",
        before="""class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1); ctx.mark_dirty(x); return x
AddOne.apply(w)""",
        after="""class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + 1
AddOne.apply(w)""",
        question="""Did this come from a custom autograd.Function that calls ctx.mark_dirty()? (On PyTorch before 1.5
        the same text was raised for any in-place change of a leaf: inplace_leaf.)""",
        messages=("a leaf Variable that requires grad has been used in an in-place operation.",)),

    # ----------------------------------------------------------------------------- requires_grad flags

    entry(
        id="requires_grad_nonleaf",
        title="requires_grad changed on a computed (non-leaf) tensor",
        kind="exception", exc_type="RuntimeError",
        happened="""You set requires_grad (attribute or requires_grad_()) on a tensor that an op produced. Such a tensor
        has a grad_fn; whether it requires grad follows from its inputs, not from a flag you can set.""",
        why="""Switching the flag off would silently cut the graph in the middle; autograd makes you say so explicitly
        with detach().""",
        fix="""To stop gradients, take a detached copy with .detach() and use it in its place. To make something
        trainable, set requires_grad on the leaf it is computed from.""",
        before="""y = x * 2
y.requires_grad = False""",
        after="""y = x * 2
y_const = y.detach()""",
        question="Was requires_grad set on a tensor that has a grad_fn?",
        messages=(
            "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
            "subgraph that doesn't require differentiation use var_no_grad = var.detach().",
            "you can only change requires_grad flags of leaf variables.")),

    entry(
        id="requires_grad_int_tensor",
        title="requires_grad turned on for an integer/bool tensor",
        kind="exception", exc_type="RuntimeError",
        happened="""requires_grad was switched on for a tensor of an integer or bool dtype.""",
        why="""Gradients are derivatives of continuous functions; only floating point (and complex) tensors can hold
        them.""",
        fix="""Cast the tensor to a floating dtype before asking for gradients (.float(), .double()), or build it as
        floating point in the first place. Integer tensors such as class labels, indices and boolean masks carry no
        gradient and should be left as they are.""",
        before="""x = torch.arange(3)
x.requires_grad_()""",
        after="""x = torch.arange(3).float()
x.requires_grad_()""",
        question="""Was requires_grad_() / .requires_grad = True applied to an existing integer tensor (rather than
        passed to a factory like torch.tensor)?""",
        messages=("only Tensors of floating point dtype can require gradients",
         "only Tensors of floating point and complex dtype can require gradients",
         "Only Tensors of floating point dtype can require gradients")),

    entry(
        id="tensor_int_list_requires_grad",
        title="Integer tensor created with requires_grad=True",
        kind="exception", exc_type="RuntimeError",
        happened="""A factory (torch.tensor([1, 2, 3], requires_grad=True), nn.Parameter over an int tensor) was asked
        for a tensor that requires grad, but the data made it an integer tensor: Python ints infer int64.""",
        why="""Only floating point and complex tensors can carry gradients.""",
        fix="""Make the data floating point: write the numbers with a decimal point (1.0 rather than 1), or pass a
        floating dtype such as torch.float32 together with requires_grad=True.""",
        before="""x = torch.tensor([1, 2, 3], requires_grad=True)""",
        after="""x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)""",
        question="""Was requires_grad=True passed to torch.tensor / nn.Parameter with integer data (or an int dtype)?
        """,
        messages=("Only Tensors of floating point and complex dtype can require gradients",
         "Only Tensors of floating point dtype can require gradients")),

    entry(
        id="numpy_requires_grad",
        title="numpy() on a tensor that requires grad",
        kind="exception", exc_type="RuntimeError",
        happened="""You asked for a NumPy view of a tensor that belongs to an autograd graph, directly with .numpy() or
        implicitly by passing the tensor to np.array / np.asarray or a plotting library.""",
        why="""The numpy array would share memory with the tensor but be invisible to autograd, so changes through it
        would corrupt gradients silently. PyTorch makes you detach explicitly.""",
        fix="""Convert a graph-free alias instead: .detach().numpy() (with .cpu() in between for GPU tensors). For a
        single value, .item() is simpler.""",
        before="""arr = out.numpy()""",
        after="""arr = out.detach().numpy()""",
        question="Was .numpy() (or np.asarray) applied to a tensor with requires_grad=True?",
        messages=("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
         "Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead.")),

    entry(
        id="nonleaf_grad_access",
        title=".grad read on a non-leaf tensor",
        kind="warning", exc_type="UserWarning",
        happened="""Your code read .grad of a tensor that an op produced (it has a grad_fn). backward() only stores
        gradients in leaves (parameters and tensors you created with requires_grad=True), so this .grad is None.""",
        why="""Keeping the gradient of every intermediate tensor would cost a lot of memory, so autograd passes it
        through and drops it unless asked to keep it.""",
        fix="""If you really want that intermediate gradient, tell autograd to keep it with .retain_grad() on the tensor
        before backward, or ask for it directly with torch.autograd.grad. If you meant a parameter's gradient, read
        .grad on the parameter.""",
        before="""y = x * 2
y.sum().backward()
print(y.grad)""",
        after="""y = x * 2
y.retain_grad()
y.sum().backward()
print(y.grad)""",
        question="Was .grad read on a tensor that is the result of an operation (has a grad_fn)?",
        messages=(
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
            "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
            "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
            "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.",
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
            "populated during autograd.backward(). If you indeed want the gradient for a non-leaf Tensor, use "
            ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the "
            "leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations.")),

    # ----------------------------------------------------------------------------- gradients passed in / asked for

    entry(
        id="backward_gradient_shape_mismatch",
        title="The gradient passed to backward has the wrong shape",
        kind="exception", exc_type="RuntimeError",
        happened="""The explicit starting gradient you supplied (gradient= in backward, grad_outputs= in autograd.grad)
        is shaped differently from the tensor it belongs to.""",
        why="""The seed is dLoss/dOutput, one number per output element; autograd does not broadcast it.""",
        fix="""Build the starting gradient from the output itself, e.g. torch.ones_like(output), so that the shapes
        agree; or reduce the output to one number and let backward() start from 1.""",
        before="""y = x * 2                 # shape [3]
y.backward(gradient=torch.ones(2))""",
        after="""y = x * 2
y.backward(gradient=torch.ones_like(y))""",
        question="Did you pass gradient= / grad_outputs= explicitly?",
        messages=("Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of "
         "torch.Size([3]).",)),

    entry(
        id="grad_unused_input",
        title="autograd.grad asked for a tensor the output does not depend on",
        kind="exception", exc_type="RuntimeError",
        happened="""One of the inputs you passed to torch.autograd.grad is not reachable from the output: walking the
        graph back from the output never arrives at it.""",
        why="""By default autograd treats "no path" as a mistake in your code rather than returning a silent None.""",
        fix="""Remove the tensor from inputs, check that the forward really uses it (not a copy, a detach() or a
        re-created tensor), or pass allow_unused=True (None comes back; materialize_grads=True gives zeros).""",
        before="""y = (x ** 2).sum()
torch.autograd.grad(y, [x, z])""",
        after="""y = (x ** 2).sum()
gx, gz = torch.autograd.grad(y, [x, z], allow_unused=True)   # gz is None""",
        question="Did you call torch.autograd.grad with an input that the output was not computed from?",
        messages=(
            "The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if "
            "this is the desired behavior.",
            "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this "
            "is the desired behavior.")),

    entry(
        id="grad_input_no_requires_grad",
        title="autograd.grad asked for a tensor that does not require grad",
        kind="exception", exc_type="RuntimeError",
        happened="""You asked torch.autograd.grad for the gradient with respect to a tensor whose requires_grad is
        False: autograd never tracked it, so it is not part of the graph.""",
        why="""Autograd only tracks tensors that require grad; it cannot differentiate with respect to a constant.""",
        fix="""Switch on requires_grad for that tensor before the output is computed from it (and recompute the output
        afterwards), or stop asking for its gradient.""",
        before="""z = torch.randn(3)
y = (x * z).sum()
torch.autograd.grad(y, z)""",
        after="""z = torch.randn(3, requires_grad=True)
y = (x * z).sum()
torch.autograd.grad(y, z)""",
        question="Does one of the inputs of autograd.grad have requires_grad=False?",
        messages=("One of the differentiated Tensors does not require grad",
         "One of the differentiated Variables does not require grad")),

    entry(
        id="grad_nonscalar_no_grad_outputs",
        title="autograd.grad on a non-scalar output without grad_outputs",
        kind="exception", exc_type="RuntimeError",
        happened="""torch.autograd.grad was called on an output with several elements and no grad_outputs, so the
        backward pass has no seed.""",
        why="""autograd.grad computes a vector-Jacobian product; with a non-scalar output it needs the vector.""",
        fix="""Supply the missing vector with grad_outputs (torch.ones_like(output) gives the gradient of the output's
        sum) or reduce the output first. When you need every partial derivative, use a Jacobian helper such as
        torch.autograd.functional.jacobian or torch.func.jacrev.""",
        before="""y = x * 2
torch.autograd.grad(y, x)""",
        after="""y = x * 2
torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))""",
        question="Was it torch.autograd.grad(...) on an output with more than one element?",
        messages=("grad can be implicitly created only for scalar outputs",)),

    entry(
        id="item_multi_element",
        title=".item() on a tensor with several elements",
        kind="exception", exc_type="RuntimeError",
        happened="""You called .item() on a tensor holding several values, typically a loss that was never averaged or
        summed over the batch.""",
        why=""".item() returns one Python number; there is no single number to return.""",
        fix="""Collapse the tensor to one value first (mean(), sum()), select a single element by index, or use
        .tolist() when you want all of them as Python numbers.""",
        before="""print(loss.item())        # loss has shape [3]""",
        after="""print(loss.mean().item())""",
        question="Was .item() called on a tensor with more than one element?",
        messages=("a Tensor with 3 elements cannot be converted to Scalar",)),

    entry(
        id="detach_inplace_needed",
        title="A detached alias was modified in place",
        kind="exception", exc_type="RuntimeError",
        happened="""A tensor made with .detach() was changed in place. detach() does not copy: the detached tensor
        shares the original's memory and its version counter, and the original had been saved for backward, so the
        change hit the saved tensor.""",
        why="""detach() only cuts the graph, not the storage. The version check notices that the saved tensor changed
        and refuses to use it.""",
        fix="""If you intend to edit the detached tensor, give it memory of its own with .clone() right after detach();
        otherwise use operations that return a new tensor.""",
        before="""y = x.exp()
z = y.detach()
z.zero_()
y.sum().backward()""",
        after="""y = x.exp()
z = y.detach().clone()
z.zero_()
y.sum().backward()""",
        question="""Did you modify in place a tensor obtained with .detach() from one that backward needs?""",
        messages=_version_msgs(True)),

    entry(
        id="data_silent_wrong",
        title="A saved tensor was changed through .data: gradients are silently wrong",
        kind="silent", exc_type="",
        happened="""A tensor that backward needs was modified through .data (or another alias that autograd does not
        track). .data has its own version counter, so the change is invisible: backward runs and uses the modified
        values.""",
        why="""There is no error at all, just wrong gradients. This is why .data is discouraged.""",
        fix="""Avoid .data entirely. Update parameters under torch.no_grad(); when you need a graph-free alias use
        .detach(), whose shared version counter turns this silent corruption into a loud error; use .clone() to get
        memory of your own.""",
        before="""y = x.exp()
y.data.zero_()
y.sum().backward()""",
        after="""y = x.exp()
z = y.detach().clone()
z.zero_()
y.sum().backward()""",
        question="Did you modify .data of a tensor that had been used in the forward pass?",
        messages=()),

    entry(
        id="backward_in_no_grad",
        title="The loss was computed without grad mode",
        kind="exception", exc_type="RuntimeError",
        happened="""The tensor you started backward from was produced while gradient recording was switched off (inside
        torch.no_grad(), torch.inference_mode(), or a function decorated with one of them), so no graph and no grad_fn
        exist for it.""",
        why="""Inside those blocks autograd records nothing, whatever requires_grad says on the inputs.""",
        fix="""Do the training forward pass with recording switched on, and reserve no_grad / inference_mode for
        evaluation and manual weight updates. The backward() call itself may sit inside no_grad: what matters is where
        the graph was built.""",
        before="""with torch.no_grad():
    loss = (x ** 2).sum()
    loss.backward()""",
        after="""loss = (x ** 2).sum()
loss.backward()""",
        question="""Was the loss (or the model output) computed inside with torch.no_grad(): / torch.inference_mode(),
        or in a function decorated with @torch.no_grad()?""",
        messages=(NO_GRAD_FN,) + NO_GRAD_FN_OLD),

    entry(
        id="double_backward_no_create_graph",
        title="Differentiating a gradient that was computed without a graph",
        kind="exception", exc_type="RuntimeError",
        happened="""You differentiated a gradient (the result of torch.autograd.grad or a .grad) a second time, but the
        first gradient was computed without create_graph=True, so it is a plain tensor with no grad_fn.""",
        why="""Autograd records the backward pass itself only when asked to; without create_graph the gradient is a
        constant.""",
        fix="""Ask for a differentiable first gradient by passing create_graph=True to the call that computes it
        (autograd.grad or backward); Hessian-vector products and gradient penalties need exactly that.""",
        before="""g, = torch.autograd.grad(y, x)
g.sum().backward()""",
        after="""g, = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward()""",
        question="""Is the tensor you called backward() on built from a gradient (an autograd.grad result or a .grad),
        as in a Hessian or gradient penalty?""",
        messages=(NO_GRAD_FN,) + NO_GRAD_FN_OLD),

    entry(
        id="once_differentiable_double_backward",
        title="Double backward through a @once_differentiable Function",
        kind="exception", exc_type="RuntimeError",
        happened="""Your custom Function marks its backward with @once_differentiable, and later a higher-order pass
        (create_graph=True followed by another backward) tried to differentiate that backward.""",
        why="""@once_differentiable runs the backward under no_grad, so its result has no graph; autograd puts a node in
        place that raises if anything tries to go through it.""",
        fix="""Either express the backward with ordinary differentiable torch operations and remove the decorator, or
        keep higher-order gradients away from this Function.""",
        before="""@staticmethod
@once_differentiable
def backward(ctx, g): ...""",
        after="""@staticmethod
def backward(ctx, g):      # differentiable torch ops only
    x, = ctx.saved_tensors
    return 2 * x * g""",
        question="Does a custom Function on the path use @once_differentiable?",
        messages=("trying to differentiate twice a function that was marked with @once_differentiable",)),

    entry(
        id="retain_grad_no_requires_grad",
        title="retain_grad() on a tensor that does not require grad",
        kind="exception", exc_type="RuntimeError",
        happened="""retain_grad() asks autograd to keep the gradient that will flow into a tensor, but this tensor lies
        outside any graph (created under no_grad, or from inputs that never required grad), so no gradient will ever
        reach it.""",
        why="""With no gradient to keep, retain_grad() has nothing to do, and PyTorch reports it instead of ignoring it.
        """,
        fix="""Call retain_grad() only on tensors produced with grad mode on from something that requires grad; the
        tensor's requires_grad attribute tells you.""",
        before="""with torch.no_grad():
    h = layer(x)
h.retain_grad()""",
        after="""h = layer(x)
h.retain_grad()""",
        question="Was retain_grad() called on a tensor with requires_grad=False?",
        messages=("can't retain_grad on Tensor that has requires_grad=False",)),
)

# the catalog: the entries above, then those about ops and modules (catalog_ops.OPS), in that order
ALL = BASE + OPS
ENTRIES = {e.id: e for e in ALL}
ORDER = [e.id for e in ALL]


def get(entry_id: str) -> Entry:
    return ENTRIES[entry_id]


def list_entries() -> list:
    """Every known id, as plain dicts (id, title, kind, exc_type), in catalog order."""
    return [{"id": e.id, "title": e.title, "kind": e.kind, "exc_type": e.exc_type} for e in ALL]
