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

Plain data, no engine import: ``gradviz explain --list`` is instant.
"""
from dataclasses import dataclass, field
from typing import Tuple

FREED_213 = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
             "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
             "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
             "or if you need to access saved tensors after calling backward.")
FREED_OLD = (
    # PyTorch 0.4 - 1.x
    "Trying to backward through the graph a second time, but the buffers have already been freed. Specify "
    "retain_graph=True when calling backward the first time.",
    # PyTorch 1.x (late)
    "Trying to backward through the graph a second time, but the saved intermediate results have already been "
    "freed. Specify retain_graph=True when calling backward the first time.",
    "Trying to backward through the graph a second time, but the saved intermediate results have already been "
    "freed. Specify retain_graph=True when calling .backward() or autograd.grad() the first time.",
    # PyTorch 0.1 - 0.3
    "Trying to backward through the graph second time, but the buffers have already been freed. Please specify "
    "retain_variables=True when calling backward for the first time.",
)
VERSION_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
VERSION_OLD_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                    "The variable in question was changed in there or anywhere later. Good luck!")
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
NO_GRAD_FN_OLD = ("element 0 of variables does not require grad and does not have a grad_fn",)


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    kind: str  # "exception" | "warning" | "silent"
    exc_type: str  # "RuntimeError", "UserWarning", ... ("" for silent pitfalls)
    happened: str
    why: str
    fix: str
    before: str
    after: str
    question: str
    messages: Tuple[str, ...] = field(default=())

    @property
    def cause(self) -> str:
        return f"{self.happened} {self.why}"

    def as_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "kind": self.kind, "exc_type": self.exc_type,
                "happened": self.happened, "why": self.why,
                "fix": {"text": self.fix, "before": self.before, "after": self.after},
                "question": self.question, "messages": list(self.messages)}


_ENTRIES = []


def _e(id, title, kind, exc_type, happened, why, fix, before, after, question, messages=()):
    _ENTRIES.append(Entry(id, title, kind, exc_type, " ".join(happened.split()), " ".join(why.split()),
                          " ".join(fix.split()), before.strip("\n"), after.strip("\n"),
                          " ".join(question.split()), tuple(messages)))


# ----------------------------------------------------------------------------- backward basics

_e("backward_no_grad_fn", "backward() called on a tensor that is not part of any graph", "exception", "RuntimeError",
   """The tensor you started backward from has requires_grad=False and no grad_fn: it is a lone leaf, so there is
   no recorded node to walk back from and nothing that could receive a gradient.""",
   """Autograd records an operation only when one of its inputs requires grad while grad mode is on. None of the
   tensors that produced this one did: they were plain tensors, frozen parameters, or the chain was cut by
   detach(), .data, .item() or a copy into a fresh tensor.""",
   """Turn on requires_grad for what you want gradients of (or wrap it in nn.Parameter) before the forward pass,
   and keep the path from it to the loss free of detach()/.data/no_grad.""",
   """x = torch.ones(3)
loss = (x * 2).sum()
loss.backward()""",
   """x = torch.ones(3, requires_grad=True)
loss = (x * 2).sum()
loss.backward()""",
   """Did any input of this computation have requires_grad=True (or is it an nn.Parameter that is not frozen)?
   If none did, this is the cause.""",
   (NO_GRAD_FN, "element 1 of tensors does not require grad and does not have a grad_fn") + NO_GRAD_FN_OLD)

_e("backward_nonscalar", "backward() on a non-scalar output without a gradient", "exception", "RuntimeError",
   """backward() starts the backward pass by seeding the root of the graph with dLoss/dOutput. You called it on
   an output with several elements and passed no gradient, so there is no seed to start from.""",
   """For a single number the seed is simply 1.0; for a tensor with many elements autograd would have to guess
   how the elements combine into one loss, and it refuses to guess.""",
   """Turn the output into a single number before starting backward, usually by summing or averaging it, or hand
   backward() the starting gradient yourself: one value per element (a tensor of ones shaped like the output
   stands for plain summation).""",
   """y = x * 2
y.backward()""",
   """y = x * 2
y.sum().backward()          # or: y.backward(gradient=torch.ones_like(y))""",
   """Was it tensor.backward() / torch.autograd.backward()? (torch.autograd.grad on a non-scalar output is
   grad_nonscalar_no_grad_outputs.)""",
   ("grad can be implicitly created only for scalar outputs",))

_e("backward_twice", "Second backward through a graph whose buffers were already freed", "exception", "RuntimeError",
   """A backward pass already went through this graph. After a node runs, autograd throws away the tensors it
   saved for its gradient formula (unless retain_graph=True). The second backward reached such a node and found
   its saved tensors gone.""",
   """Freeing the saved tensors right after use is what keeps memory flat during training; the price is that
   each graph can be walked once.""",
   """Do one backward per forward: build the loss again (re-run the forward) before the next backward, or add the
   losses and call backward() once. Only if you really need two passes over the same graph, pass
   retain_graph=True to every backward except the last.""",
   """loss = model(x).sum()
loss.backward()
loss.backward()""",
   """loss = model(x).sum()
loss.backward()
loss = model(x).sum()       # a fresh graph for the second pass
loss.backward()""",
   """Did you call .backward() twice on the same loss (or on two losses that share part of one graph) without
   retain_graph=True?""",
   (FREED_213,) + FREED_OLD)

_e("autograd_grad_twice", "torch.autograd.grad through a graph that was already used", "exception", "RuntimeError",
   """torch.autograd.grad (or a backward() before it) already walked this graph and released the tensors its
   nodes had saved. The next autograd.grad call needs those same saved tensors and finds them freed.""",
   """autograd.grad frees buffers exactly like backward() does, unless you ask for retain_graph=True (or
   create_graph=True).""",
   """Ask for every gradient in a single call (one torch.autograd.grad call with a list of inputs), or keep the graph
   alive with retain_graph=True on all calls but the last.""",
   """g1, = torch.autograd.grad(y, x)
g2, = torch.autograd.grad(y, x)""",
   """g1, = torch.autograd.grad(y, x, retain_graph=True)
g2, = torch.autograd.grad(y, x)""",
   """Was one of the two passes torch.autograd.grad(...) (for example a gradient penalty computed after
   backward(), or autograd.grad called twice on the same output)?""",
   (FREED_213,) + FREED_OLD)

_e("saved_tensor_after_free", "A node's saved tensor read after backward freed it", "exception", "RuntimeError",
   """Your code read a tensor that a grad_fn node saved for its gradient formula (grad_fn._saved_self,
   _saved_result, ctx.saved_tensors ...) after a backward pass had already released it.""",
   """A node keeps its saved tensors only until its gradient has been computed; after that the slot is empty and
   reading it is an error, not a None.""",
   """Look at a node's saved values while the graph is still intact, that is before the backward pass runs; if you
   must look afterwards, ask that earlier backward to keep its buffers (retain_graph=True).""",
   """y = x.sin()
y.sum().backward()
print(y.grad_fn._saved_self)""",
   """y = x.sin()
print(y.grad_fn._saved_self)   # inspect before the graph is freed
y.sum().backward()""",
   """Did the failing line read a grad_fn attribute (grad_fn._saved_*) or ctx.saved_tensors rather than call
   backward()?""",
   (FREED_213,) + FREED_OLD)

_e("saved_tensor_hooks_after_free", "Hooks registered on a saved tensor that was already freed", "exception",
   "RuntimeError",
   """Your code reached into a graph node's raw saved-value object (a _raw_saved_* attribute) to attach pack/unpack
   hooks, but a backward pass had already emptied it.""",
   """Pack/unpack hooks act on the saved value; once backward released it there is nothing left to hook.""",
   """Attach the hooks while the value is still stored, before backward. The robust way is the context manager
   torch.autograd.graph.saved_tensors_hooks(pack, unpack) around the forward pass, which applies them to
   everything saved inside it.""",
   """y = x.sin()
y.sum().backward()
y.grad_fn._raw_saved_self.register_hooks(pack, unpack)""",
   """with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x.sin()
y.sum().backward()""",
   "Did you call register_hooks() on a grad_fn._raw_saved_* object after backward()?",
   ("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph are "
    "freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through "
    "the graph a second time or if you need to access saved variables after calling backward.",))

_e("rnn_hidden_not_detached", "Recurrent state carries the previous iteration's (freed) graph", "exception",
   "RuntimeError",
   """A tensor you carry from one iteration to the next (the hidden state of an RNN, an LSTM's hidden and
   cell states, a running average ...) is still attached to the graph of the iteration that produced it. The
   previous backward freed that graph, and this iteration's backward walks from the new loss through the carried
   state into it.""",
   """Each iteration builds a new graph, but the carried tensor links it to all earlier ones: backward tries to
   continue into the old, already-freed part.""",
   """Cut the link at the iteration boundary with .detach() (truncated backpropagation through time). Do not use
   retain_graph=True as the fix: the graph would grow with every step and so would time and memory.""",
   """h = torch.zeros(1, 8)
for x in batches:
    h = rnn(x, h)
    loss = h.pow(2).sum()
    loss.backward()""",
   """h = torch.zeros(1, 8)
for x in batches:
    h = h.detach()          # LSTM: state = tuple(s.detach() for s in state)
    h = rnn(x, h)
    loss = h.pow(2).sum()
    loss.backward()""",
   """Does this happen in the second iteration of a loop, with a state (h, (h, c), a running statistic) that is
   computed from the previous iteration's value and never detached?""",
   (FREED_213,) + FREED_OLD)

# ----------------------------------------------------------------------------- in-place and versions


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


_e("inplace_modified_saved", "A tensor saved for backward was modified in place", "exception", "RuntimeError",
   """An op saved one of its tensors (here an output of another op) for its gradient formula, and later an
   in-place operation (mul_, +=, an item assignment, relu_(), ...) changed that tensor. Its version counter moved
   past the version recorded when it was saved, so backward stopped instead of using the changed values.""",
   """Gradient formulas need the values as they were in the forward pass (sigmoid's gradient, for instance, is
   computed from its own output). Every in-place op bumps a tensor's version, and backward compares versions to
   catch exactly this.""",
   """Use the out-of-place form (mul instead of mul_, + instead of +=, nn.ReLU(inplace=False)), or clone() the
   tensor before changing it.""",
   """y = x.sigmoid()
y.mul_(2)
y.sum().backward()""",
   """y = x.sigmoid()
y = y * 2                  # a new tensor; the saved one is untouched
y.sum().backward()""",
   """Was the tensor changed in place by your own code after the op that used it (rather than through a detached
   alias or by optimizer.step())?""",
   _version_msgs(True))

_e("inplace_modified_input", "An input saved for backward was modified in place", "exception", "RuntimeError",
   """A plain tensor with no grad_fn (a data batch, a constant, a parameter) was saved by an op for its gradient
   formula (a matrix product needs each operand to compute the other's gradient), and then modified in place
   before backward ran.""",
   """The saved tensor and the one you modified share storage; its version counter no longer matches the one
   recorded at save time, so the gradient would be computed from the wrong values.""",
   """Leave tensors that the forward pass consumed untouched until backward has run. Rebind the name to a new tensor
   instead (an out-of-place op, or start from a clone()), or do the data mutation before the tensor enters the
   model.""",
   """y = w @ x
x.add_(1)
y.sum().backward()""",
   """y = w @ x
x = x + 1                  # new tensor; the x saved by w @ x is unchanged
y.sum().backward()""",
   """Is the tensor named in the message a plain input (data, constant) that your code modified in place after
   using it?""",
   _version_msgs(False))

_e("inplace_leaf", "In-place change of a leaf that requires grad", "exception", "RuntimeError",
   """You modified a leaf tensor that requires grad (a parameter, or a tensor created with requires_grad=True) in
   place while grad mode was on.""",
   """A leaf is where gradients are accumulated; autograd has no node that could represent "the leaf before the
   change", so it forbids recording an in-place op on it.""",
   """Parameter updates and initialisation are bookkeeping, not part of the model: put them inside a torch.no_grad()
   block, or leave them to an optimizer or torch.nn.init. If you meant to compute a changed version of the
   tensor, create a new tensor from it instead.""",
   """w -= lr * w.grad""",
   """with torch.no_grad():
    w -= lr * w.grad""",
   """Was the tensor a leaf with requires_grad=True modified directly (-=, zero_(), add_(...)) outside
   torch.no_grad()?""",
   ("a leaf Variable that requires grad is being used in an in-place operation.",
    # PyTorch 0.4 - 1.4
    "a leaf Variable that requires grad has been used in an in-place operation.",
    # PyTorch 0.3
    "leaf variable has been moved into the graph interior"))

_e("inplace_view_of_leaf", "In-place write into a slice/view of a leaf that requires grad", "exception",
   "RuntimeError",
   """An in-place op, often an item or slice assignment or a fill_() on a slice, wrote into a view of a leaf that
   requires grad. Writing into the view writes into the leaf itself.""",
   """It is the same rule as for the leaf: autograd cannot record an in-place change of a leaf, and a view is just
   a window onto the leaf's memory.""",
   """If the write is initialisation, wrap it in torch.no_grad(). If it is part of the computation, assemble the
   result as a new tensor (torch.where, torch.cat, or writing into a clone of the parameter) so that the leaf
   itself stays untouched.""",
   """w = torch.zeros(3, requires_grad=True)
w[0] = 1.0""",
   """w = torch.zeros(3, requires_grad=True)
with torch.no_grad():
    w[0] = 1.0""",
   "Was the write an item/slice assignment or an in-place op on a slice of a parameter?",
   ("a view of a leaf Variable that requires grad is being used in an in-place operation.",))

_e("custom_fn_mark_dirty_leaf", "Custom Function modified a leaf in place (mark_dirty)", "exception",
   "RuntimeError",
   """Inside forward, your custom autograd.Function mutated one of its arguments and reported that with
   ctx.mark_dirty(); the argument it mutated is a leaf with requires_grad=True.""",
   """mark_dirty rewrites the input's history so it becomes an output of your Function; a leaf cannot get a
   history, so the call is refused.""",
   """Hand the Function something it may overwrite, a clone of the leaf, or rewrite forward so that it builds and
   returns a new tensor instead of changing its argument.""",
   """class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1); ctx.mark_dirty(x); return x
AddOne.apply(w)""",
   """class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + 1
AddOne.apply(w)""",
   """Did this come from a custom autograd.Function that calls ctx.mark_dirty()? (On PyTorch before 1.5 the same
   text was raised for any in-place change of a leaf: inplace_leaf.)""",
   ("a leaf Variable that requires grad has been used in an in-place operation.",))

# ----------------------------------------------------------------------------- requires_grad flags

_e("requires_grad_nonleaf", "requires_grad changed on a computed (non-leaf) tensor", "exception", "RuntimeError",
   """You set requires_grad (attribute or requires_grad_()) on a tensor that an op produced. Such a tensor has a
   grad_fn; whether it requires grad follows from its inputs, not from a flag you can set.""",
   """Switching the flag off would silently cut the graph in the middle; autograd makes you say so explicitly with
   detach().""",
   """To stop gradients, take a detached copy with .detach() and use it in its place. To make something trainable,
   set requires_grad on the leaf it is computed from.""",
   """y = x * 2
y.requires_grad = False""",
   """y = x * 2
y_const = y.detach()""",
   "Was requires_grad set on a tensor that has a grad_fn?",
   ("you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
    "subgraph that doesn't require differentiation use var_no_grad = var.detach().",
    "you can only change requires_grad flags of leaf variables."))

_e("requires_grad_int_tensor", "requires_grad turned on for an integer/bool tensor", "exception", "RuntimeError",
   """requires_grad was switched on for a tensor of an integer or bool dtype.""",
   """Gradients are derivatives of continuous functions; only floating point (and complex) tensors can hold
   them.""",
   """Cast the tensor to a floating dtype before asking for gradients (.float(), .double()), or build it as floating
   point in the first place. Integer tensors such as class labels, indices and boolean masks carry no gradient
   and should be left as they are.""",
   """x = torch.arange(3)
x.requires_grad_()""",
   """x = torch.arange(3).float()
x.requires_grad_()""",
   """Was requires_grad_() / .requires_grad = True applied to an existing integer tensor (rather than passed to a
   factory like torch.tensor)?""",
   ("only Tensors of floating point dtype can require gradients",
    "only Tensors of floating point and complex dtype can require gradients",
    "Only Tensors of floating point dtype can require gradients"))

_e("tensor_int_list_requires_grad", "Integer tensor created with requires_grad=True", "exception", "RuntimeError",
   """A factory (torch.tensor([1, 2, 3], requires_grad=True), nn.Parameter over an int tensor) was asked for a
   tensor that requires grad, but the data made it an integer tensor: Python ints infer int64.""",
   """Only floating point and complex tensors can carry gradients.""",
   """Make the data floating point: write the numbers with a decimal point (1.0 rather than 1), or pass a floating
   dtype such as torch.float32 together with requires_grad=True.""",
   """x = torch.tensor([1, 2, 3], requires_grad=True)""",
   """x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)""",
   """Was requires_grad=True passed to torch.tensor / nn.Parameter with integer data (or an int dtype)?""",
   ("Only Tensors of floating point and complex dtype can require gradients",
    "Only Tensors of floating point dtype can require gradients"))

_e("numpy_requires_grad", "numpy() on a tensor that requires grad", "exception", "RuntimeError",
   """You asked for a NumPy view of a tensor that belongs to an autograd graph, directly with .numpy() or implicitly
   by passing the tensor to np.array / np.asarray or a plotting library.""",
   """The numpy array would share memory with the tensor but be invisible to autograd, so changes through it
   would corrupt gradients silently. PyTorch makes you detach explicitly.""",
   """Convert a graph-free alias instead: .detach().numpy() (with .cpu() in between for GPU tensors). For a single
   value, .item() is simpler.""",
   """arr = out.numpy()""",
   """arr = out.detach().numpy()""",
   "Was .numpy() (or np.asarray) applied to a tensor with requires_grad=True?",
   ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
    "Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead."))

_e("nonleaf_grad_access", ".grad read on a non-leaf tensor", "warning", "UserWarning",
   """Your code read .grad of a tensor that an op produced (it has a grad_fn). backward() only stores gradients in
   leaves (parameters and tensors you created with requires_grad=True), so this .grad is None.""",
   """Keeping the gradient of every intermediate tensor would cost a lot of memory, so autograd passes it through
   and drops it unless asked to keep it.""",
   """If you really want that intermediate gradient, tell autograd to keep it with .retain_grad() on the tensor before
   backward, or ask for it directly with torch.autograd.grad. If you meant a parameter's gradient,
   read .grad on the parameter.""",
   """y = x * 2
y.sum().backward()
print(y.grad)""",
   """y = x * 2
y.retain_grad()
y.sum().backward()
print(y.grad)""",
   "Was .grad read on a tensor that is the result of an operation (has a grad_fn)?",
   ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.",
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the gradient for a non-leaf Tensor, use "
    ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the "
    "leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations."))

# ----------------------------------------------------------------------------- gradients passed in / asked for

_e("backward_gradient_shape_mismatch", "The gradient passed to backward has the wrong shape", "exception",
   "RuntimeError",
   """The explicit starting gradient you supplied (gradient= in backward, grad_outputs= in autograd.grad) is shaped
   differently from the tensor it belongs to.""",
   """The seed is dLoss/dOutput, one number per output element; autograd does not broadcast it.""",
   """Build the starting gradient from the output itself, e.g. torch.ones_like(output), so that the shapes agree; or
   reduce the output to one number and let backward() start from 1.""",
   """y = x * 2                 # shape [3]
y.backward(gradient=torch.ones(2))""",
   """y = x * 2
y.backward(gradient=torch.ones_like(y))""",
   "Did you pass gradient= / grad_outputs= explicitly?",
   ("Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of "
    "torch.Size([3]).",))

_e("grad_unused_input", "autograd.grad asked for a tensor the output does not depend on", "exception",
   "RuntimeError",
   """One of the inputs you passed to torch.autograd.grad is not reachable from the output: walking the graph back
   from the output never arrives at it.""",
   """By default autograd treats "no path" as a mistake in your code rather than returning a silent None.""",
   """Remove the tensor from inputs, check that the forward really uses it (not a copy, a detach() or a re-created
   tensor), or pass allow_unused=True (None comes back; materialize_grads=True gives zeros).""",
   """y = (x ** 2).sum()
torch.autograd.grad(y, [x, z])""",
   """y = (x ** 2).sum()
gx, gz = torch.autograd.grad(y, [x, z], allow_unused=True)   # gz is None""",
   "Did you call torch.autograd.grad with an input that the output was not computed from?",
   ("The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if "
    "this is the desired behavior.",
    "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this "
    "is the desired behavior."))

_e("grad_input_no_requires_grad", "autograd.grad asked for a tensor that does not require grad", "exception",
   "RuntimeError",
   """You asked torch.autograd.grad for the gradient with respect to a tensor whose requires_grad is False: autograd
   never tracked it, so it is not part of the graph.""",
   """Autograd only tracks tensors that require grad; it cannot differentiate with respect to a constant.""",
   """Switch on requires_grad for that tensor before the output is computed from it (and recompute the output
   afterwards), or stop asking for its gradient.""",
   """z = torch.randn(3)
y = (x * z).sum()
torch.autograd.grad(y, z)""",
   """z = torch.randn(3, requires_grad=True)
y = (x * z).sum()
torch.autograd.grad(y, z)""",
   "Does one of the inputs of autograd.grad have requires_grad=False?",
   ("One of the differentiated Tensors does not require grad",
    "One of the differentiated Variables does not require grad"))

_e("grad_nonscalar_no_grad_outputs", "autograd.grad on a non-scalar output without grad_outputs", "exception",
   "RuntimeError",
   """torch.autograd.grad was called on an output with several elements and no grad_outputs, so the backward pass
   has no seed.""",
   """autograd.grad computes a vector-Jacobian product; with a non-scalar output it needs the vector.""",
   """Supply the missing vector with grad_outputs (torch.ones_like(output) gives the gradient of the output's sum) or
   reduce the output first. When you need every partial derivative, use a Jacobian helper such as
   torch.autograd.functional.jacobian or torch.func.jacrev.""",
   """y = x * 2
torch.autograd.grad(y, x)""",
   """y = x * 2
torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))""",
   "Was it torch.autograd.grad(...) on an output with more than one element?",
   ("grad can be implicitly created only for scalar outputs",))

_e("item_multi_element", ".item() on a tensor with several elements", "exception", "RuntimeError",
   """You called .item() on a tensor holding several values, typically a loss that was never averaged or summed over
   the batch.""",
   """.item() returns one Python number; there is no single number to return.""",
   """Collapse the tensor to one value first (mean(), sum()), select a single element by index, or use .tolist() when
   you want all of them as Python numbers.""",
   """print(loss.item())        # loss has shape [3]""",
   """print(loss.mean().item())""",
   "Was .item() called on a tensor with more than one element?",
   ("a Tensor with 3 elements cannot be converted to Scalar",))

_e("detach_inplace_needed", "A detached alias was modified in place", "exception", "RuntimeError",
   """A tensor made with .detach() was changed in place. detach() does not copy: the detached tensor shares the
   original's memory and its version counter, and the original had been saved for backward, so the change hit the
   saved tensor.""",
   """detach() only cuts the graph, not the storage. The version check notices that the saved tensor changed and
   refuses to use it.""",
   """If you intend to edit the detached tensor, give it memory of its own with .clone() right after detach();
   otherwise use operations that return a new tensor.""",
   """y = x.exp()
z = y.detach()
z.zero_()
y.sum().backward()""",
   """y = x.exp()
z = y.detach().clone()
z.zero_()
y.sum().backward()""",
   """Did you modify in place a tensor obtained with .detach() from one that backward needs?""",
   _version_msgs(True))

_e("data_silent_wrong", "A saved tensor was changed through .data: gradients are silently wrong", "silent", "",
   """A tensor that backward needs was modified through .data (or another alias that autograd does not track).
   .data has its own version counter, so the change is invisible: backward runs and uses the modified values.""",
   """There is no error at all, just wrong gradients. This is why .data is discouraged.""",
   """Avoid .data entirely. Update parameters under torch.no_grad(); when you need a graph-free alias use .detach(),
   whose shared version counter turns this silent corruption into a loud error; use .clone() to get memory of
   your own.""",
   """y = x.exp()
y.data.zero_()
y.sum().backward()""",
   """y = x.exp()
z = y.detach().clone()
z.zero_()
y.sum().backward()""",
   "Did you modify .data of a tensor that had been used in the forward pass?",
   ())

_e("backward_in_no_grad", "The loss was computed without grad mode", "exception", "RuntimeError",
   """The tensor you started backward from was produced while gradient recording was switched off (inside
   torch.no_grad(), torch.inference_mode(), or a function decorated with one of them), so no graph and no
   grad_fn exist for it.""",
   """Inside those blocks autograd records nothing, whatever requires_grad says on the inputs.""",
   """Do the training forward pass with recording switched on, and reserve no_grad / inference_mode for evaluation and
   manual weight updates. The backward() call itself may sit inside no_grad: what matters is where the graph was
   built.""",
   """with torch.no_grad():
    loss = (x ** 2).sum()
    loss.backward()""",
   """loss = (x ** 2).sum()
loss.backward()""",
   """Was the loss (or the model output) computed inside with torch.no_grad(): / torch.inference_mode(), or in a
   function decorated with @torch.no_grad()?""",
   (NO_GRAD_FN,) + NO_GRAD_FN_OLD)

_e("double_backward_no_create_graph", "Differentiating a gradient that was computed without a graph", "exception",
   "RuntimeError",
   """You differentiated a gradient (the result of torch.autograd.grad or a .grad) a second time, but the first
   gradient was computed without create_graph=True, so it is a plain tensor with no grad_fn.""",
   """Autograd records the backward pass itself only when asked to; without create_graph the gradient is a
   constant.""",
   """Ask for a differentiable first gradient by passing create_graph=True to the call that computes it (autograd.grad
   or backward); Hessian-vector products and gradient penalties need exactly that.""",
   """g, = torch.autograd.grad(y, x)
g.sum().backward()""",
   """g, = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward()""",
   """Is the tensor you called backward() on built from a gradient (an autograd.grad result or a .grad), as in a
   Hessian or gradient penalty?""",
   (NO_GRAD_FN,) + NO_GRAD_FN_OLD)

_e("once_differentiable_double_backward", "Double backward through a @once_differentiable Function", "exception",
   "RuntimeError",
   """Your custom Function marks its backward with @once_differentiable, and later a higher-order pass
   (create_graph=True followed by another backward) tried to differentiate that backward.""",
   """@once_differentiable runs the backward under no_grad, so its result has no graph; autograd puts a node in
   place that raises if anything tries to go through it.""",
   """Either express the backward with ordinary differentiable torch operations and remove the decorator, or keep
   higher-order gradients away from this Function.""",
   """@staticmethod
@once_differentiable
def backward(ctx, g): ...""",
   """@staticmethod
def backward(ctx, g):      # differentiable torch ops only
    x, = ctx.saved_tensors
    return 2 * x * g""",
   "Does a custom Function on the path use @once_differentiable?",
   ("trying to differentiate twice a function that was marked with @once_differentiable",))

_e("retain_grad_no_requires_grad", "retain_grad() on a tensor that does not require grad", "exception",
   "RuntimeError",
   """retain_grad() asks autograd to keep the gradient that will flow into a tensor, but this tensor lies outside any
   graph (created under no_grad, or from inputs that never required grad), so no gradient will ever reach it.""",
   """With no gradient to keep, retain_grad() has nothing to do, and PyTorch reports it instead of ignoring it.""",
   """Call retain_grad() only on tensors produced with grad mode on from something that requires grad; the
   tensor's requires_grad attribute tells you.""",
   """with torch.no_grad():
    h = layer(x)
h.retain_grad()""",
   """h = layer(x)
h.retain_grad()""",
   "Was retain_grad() called on a tensor with requires_grad=False?",
   ("can't retain_grad on Tensor that has requires_grad=False",))


# the entries about ops and modules, in their own file; importing it registers them in order
from . import catalog_ops  # noqa: E402,F401

ENTRIES = {e.id: e for e in _ENTRIES}
ORDER = [e.id for e in _ENTRIES]


def get(entry_id: str) -> Entry:
    return ENTRIES[entry_id]


def list_entries() -> list:
    """Every known id, as plain dicts (id, title, kind, exc_type), in catalog order."""
    return [{"id": e.id, "title": e.title, "kind": e.kind, "exc_type": e.exc_type} for e in _ENTRIES]
