"""The knowledge base behind ``gradviz explain``: one entry per id of
``shared/errors/catalog.json``.

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
   """Reduce the output to one number first (sum() or mean()), or pass the seed yourself with
   gradient=torch.ones_like(output).""",
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
   """Ask for every gradient in a single call (torch.autograd.grad(y, [a, b])), or keep the graph alive with
   retain_graph=True on all calls but the last.""",
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
   """Read the saved tensors before calling backward(), or call backward(retain_graph=True) when you need to
   inspect the graph afterwards.""",
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
   """register_hooks() was called on a node's raw saved tensor (grad_fn._raw_saved_*) after backward had emptied
   that slot.""",
   """Pack/unpack hooks act on the saved value; once backward released it there is nothing left to hook.""",
   """Register the hooks before backward, or better, wrap the forward pass in
   torch.autograd.graph.saved_tensors_hooks(pack, unpack) so every saved tensor gets them when it is saved.""",
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
   """A tensor you carry from one iteration to the next (an RNN hidden state h, an LSTM (h, c), a running
   average ...) is still attached to the graph of the iteration that produced it. The previous backward freed
   that graph, and this iteration's backward walks from the new loss through the carried state into it.""",
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
   in-place operation (mul_, +=, x[i] = ..., relu_(), ...) changed that tensor. Its version counter moved past the
   version recorded when it was saved, so backward stopped instead of using the changed values.""",
   """Gradient formulas need the values as they were in the forward pass (sigmoid's derivative is y * (1 - y) of
   the original y). Every in-place op bumps a tensor's version, and backward compares versions to catch exactly
   this.""",
   """Use the out-of-place form (y = y * 2 instead of y.mul_(2), x = x + 1 instead of x += 1,
   nn.ReLU(inplace=False)), or clone() the tensor before changing it.""",
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
   formula (for w @ x, x is needed to compute dL/dw), and then modified in place before backward ran.""",
   """The saved tensor and the one you modified share storage; its version counter no longer matches the one
   recorded at save time, so the gradient would be computed from the wrong values.""",
   """Do not mutate inputs between the forward pass and backward: write x = x + 1 (or x = x.clone() first), or move
   the mutation before the forward pass.""",
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
   """Do manual updates and initialisation under torch.no_grad() (or let an optimizer / torch.nn.init do them).
   If you wanted a modified copy, build it out of place.""",
   """w -= lr * w.grad""",
   """with torch.no_grad():
    w -= lr * w.grad""",
   """Was the tensor a leaf with requires_grad=True modified directly (w -= ..., w.zero_(), w.add_(...)) outside
   torch.no_grad()?""",
   ("a leaf Variable that requires grad is being used in an in-place operation.",
    # PyTorch 0.4 - 1.4
    "a leaf Variable that requires grad has been used in an in-place operation.",
    # PyTorch 0.3
    "leaf variable has been moved into the graph interior"))

_e("inplace_view_of_leaf", "In-place write into a slice/view of a leaf that requires grad", "exception",
   "RuntimeError",
   """An in-place op, often an item assignment like w[0] = 1 or w[:, 1].fill_(0), wrote into a view of a leaf that
   requires grad. Writing into the view writes into the leaf itself.""",
   """It is the same rule as for the leaf: autograd cannot record an in-place change of a leaf, and a view is just
   a window onto the leaf's memory.""",
   """Do the write under torch.no_grad() if it is initialisation; otherwise build the new values out of place
   (torch.where, torch.cat) or write into a clone.""",
   """w = torch.zeros(3, requires_grad=True)
w[0] = 1.0""",
   """w = torch.zeros(3, requires_grad=True)
with torch.no_grad():
    w[0] = 1.0""",
   "Was the write an item/slice assignment (w[i] = ...) or an in-place op on a slice of a parameter?",
   ("a view of a leaf Variable that requires grad is being used in an in-place operation.",))

_e("custom_fn_mark_dirty_leaf", "Custom Function modified a leaf in place (mark_dirty)", "exception",
   "RuntimeError",
   """Your autograd.Function's forward changed an input in place and declared it with ctx.mark_dirty(), but that
   input is a leaf that requires grad.""",
   """mark_dirty rewrites the input's history so it becomes an output of your Function; a leaf cannot get a
   history, so the call is refused.""",
   """Pass a non-leaf copy (MyFn.apply(x.clone())), or make forward out of place (return x + 1 rather than
   x.add_(1)).""",
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
   """To stop gradients, take a detached copy: y_const = y.detach(). To make something trainable, set requires_grad
   on the leaf it is computed from.""",
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
   """Convert to a float dtype first (x = x.float().requires_grad_()), or create it as float. Indices, labels and
   masks should not require grad at all.""",
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
   """Write float literals or give the dtype: torch.tensor([1., 2., 3.], requires_grad=True).""",
   """x = torch.tensor([1, 2, 3], requires_grad=True)""",
   """x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)""",
   """Was requires_grad=True passed to torch.tensor / nn.Parameter with integer data (or an int dtype)?""",
   ("Only Tensors of floating point and complex dtype can require gradients",
    "Only Tensors of floating point dtype can require gradients"))

_e("numpy_requires_grad", "numpy() on a tensor that requires grad", "exception", "RuntimeError",
   """Tensor.numpy() (also reached through np.asarray / np.array / matplotlib on a tensor) was called on a tensor
   that is part of a graph.""",
   """The numpy array would share memory with the tensor but be invisible to autograd, so changes through it
   would corrupt gradients silently. PyTorch makes you detach explicitly.""",
   """Call t.detach().numpy() (t.detach().cpu().numpy() on a GPU), or t.item() for a single number.""",
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
   """Call y.retain_grad() before backward() if you need the intermediate gradient, or read .grad of the leaf you
   meant. torch.autograd.grad(loss, y) also returns it.""",
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
   """You seeded backward (backward(gradient=...) or autograd.grad(grad_outputs=...)) with a tensor whose shape is
   not the output's shape.""",
   """The seed is dLoss/dOutput, one number per output element; autograd does not broadcast it.""",
   """Pass a gradient of exactly the output's shape (torch.ones_like(y)), or reduce the output to a scalar and call
   backward() without one.""",
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
   """One of the inputs given to torch.autograd.grad has requires_grad=False, so it is not a node of any graph and
   has no gradient to return.""",
   """Autograd only tracks tensors that require grad; it cannot differentiate with respect to a constant.""",
   """Call x.requires_grad_() before the forward pass (then recompute the output), or drop it from inputs.""",
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
   """Pass grad_outputs=torch.ones_like(y) (gradient of y.sum()), reduce y to a scalar, or use
   torch.autograd.functional.jacobian / torch.func.jacrev for the full Jacobian.""",
   """y = x * 2
torch.autograd.grad(y, x)""",
   """y = x * 2
torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))""",
   "Was it torch.autograd.grad(...) on an output with more than one element?",
   ("grad can be implicitly created only for scalar outputs",))

_e("item_multi_element", ".item() on a tensor with several elements", "exception", "RuntimeError",
   """.item() was called on a tensor with more than one element, for example an unreduced per-sample loss.""",
   """.item() returns one Python number; there is no single number to return.""",
   """Reduce first (loss.mean().item()), pick one element (t[0].item()), or use t.tolist() for all values.""",
   """print(loss.item())        # loss has shape [3]""",
   """print(loss.mean().item())""",
   "Was .item() called on a tensor with more than one element?",
   ("a Tensor with 3 elements cannot be converted to Scalar",))

_e("detach_inplace_needed", "A detached alias was modified in place", "exception", "RuntimeError",
   """You made z = y.detach() and then changed z in place. detach() does not copy: z shares y's memory and its
   version counter, and y had been saved for backward, so the change hit the saved tensor.""",
   """detach() only cuts the graph, not the storage. The version check notices that the saved y changed and
   refuses to use it.""",
   """Copy when you intend to modify: z = y.detach().clone(), or use out-of-place ops on z.""",
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
   """Do not use .data. Use torch.no_grad() for updates, .detach() (which at least raises the version error), and
   .clone() when you want an independent copy.""",
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
   """The loss was computed inside torch.no_grad() or torch.inference_mode() (or in a function decorated with
   them), so no graph was recorded for it and it has no grad_fn.""",
   """Inside those blocks autograd records nothing, whatever requires_grad says on the inputs.""",
   """Run the forward pass with grad mode on; keep no_grad for evaluation and manual parameter updates. Calling
   backward() inside no_grad is fine when the graph was built outside.""",
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
   """Compute the first gradient with create_graph=True (torch.autograd.grad(y, x, create_graph=True) or
   y.backward(create_graph=True)) when you need second derivatives or a gradient penalty.""",
   """g, = torch.autograd.grad(y, x)
g.sum().backward()""",
   """g, = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward()""",
   """Is the tensor you called backward() on built from a gradient (autograd.grad result or x.grad), as in a
   Hessian or gradient penalty?""",
   (NO_GRAD_FN,) + NO_GRAD_FN_OLD)

_e("once_differentiable_double_backward", "Double backward through a @once_differentiable Function", "exception",
   "RuntimeError",
   """A custom autograd.Function's backward is decorated with @once_differentiable, and a second-order pass
   (create_graph=True, then another backward) needed to differentiate through it.""",
   """@once_differentiable runs the backward under no_grad, so its result has no graph; autograd puts a node in
   place that raises if anything tries to go through it.""",
   """Write backward with differentiable torch ops and drop the decorator, or avoid higher-order gradients through
   this Function.""",
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
   """retain_grad() was called on a tensor that is not part of any graph (made under no_grad, or from inputs that
   do not require grad).""",
   """There will never be a gradient flowing into it, so there is nothing to retain.""",
   """Make sure the tensor is computed with grad mode on from something that requires grad before calling
   retain_grad().""",
   """with torch.no_grad():
    h = layer(x)
h.retain_grad()""",
   """h = layer(x)
h.retain_grad()""",
   "Was retain_grad() called on a tensor with requires_grad=False?",
   ("can't retain_grad on Tensor that has requires_grad=False",))

# ----------------------------------------------------------------------------- shapes

_e("mm_shape_mismatch", "Matrix multiply with incompatible inner dimensions", "exception", "RuntimeError",
   """A matrix product (mm, @, nn.Linear) got operands whose inner dimensions differ: the columns of the first do
   not match the rows of the second.""",
   """(a x b) @ (c x d) needs b == c. With nn.Linear the second operand is weight.T (in_features x
   out_features), so the input's last dimension must equal in_features.""",
   """Fix the shapes: transpose one operand (a @ b.T), or build nn.Linear with in_features equal to the input's
   last dimension (often the flattened size before the first Linear).""",
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
   """An element-wise op got two tensors whose sizes differ in a dimension where neither is 1.""",
   """Broadcasting lines shapes up from the right and only stretches dimensions of size 1.""",
   """Reshape/unsqueeze/transpose one side so the dimensions line up, or fix the upstream shape (a classic is
   prediction [N, 1] vs target [N], or swapped dimensions).""",
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
   """Use .reshape(...) (copies only when needed) or .contiguous().view(...).""",
   """x.t().view(-1)""",
   """x.t().reshape(-1)""",
   "Was .view() used after transpose/permute?",
   ("view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Use .reshape(...) instead.",
    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Call .contiguous() before .view()."))

# ----------------------------------------------------------------------------- inference mode and views

_e("inference_tensor_saved", "Inference-mode tensor used in a recorded computation", "exception", "RuntimeError",
   """A tensor created under torch.inference_mode() was used by an op that autograd records, and the op needs to
   save it for backward.""",
   """Inference tensors skip version counting, so autograd could never check that the saved value is still
   valid; it refuses to save them.""",
   """Create the tensor outside inference_mode, clone it outside (x = x.clone()), or use torch.no_grad() instead of
   inference_mode for data you later train on.""",
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
   """A tensor made under torch.inference_mode() was modified in place after the block ended.""",
   """Outside inference mode every in-place op must bump a version counter, and inference tensors do not have
   one.""",
   """Clone it first (x = x.clone()), do the update inside inference_mode, or create it under torch.no_grad().""",
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
   """register_hook() was called on a tensor that is not part of any graph.""",
   """A hook runs when a gradient arrives at the tensor; this tensor will never receive one.""",
   """Register hooks only on tensors that require grad (check t.requires_grad), and build them with grad mode
   on.""",
   """x = torch.randn(3)
x.register_hook(lambda g: g * 2)""",
   """x = torch.randn(3, requires_grad=True)
x.register_hook(lambda g: g * 2)""",
   "Was register_hook() called on a tensor with requires_grad=False?",
   ("cannot register a hook on a tensor that doesn't require gradient",))

_e("multi_output_view_inplace", "In-place change of an output of unbind/split/chunk", "exception", "RuntimeError",
   """A tensor returned by unbind/split/chunk (several views of one base returned together) was modified in
   place.""",
   """Autograd cannot rewrite the history of one of several sibling views of the same base.""",
   """Use out-of-place ops on the pieces (a = a * 2), clone them first, or index the base instead of
   unbinding.""",
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
   """A view of a tensor that requires grad was taken inside torch.no_grad(), and later modified in place with
   grad mode enabled.""",
   """Autograd cannot tell whether that change should be part of the graph (the view was untracked) or not (the
   in-place op is tracked), so it forbids the mix.""",
   """Keep the view and the in-place op together: both inside no_grad (untracked) or both outside (tracked); or
   clone the view.""",
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
   """resize_() was called on a tensor that requires grad.""",
   """Resizing changes the number of elements in place; there is no gradient formula for that.""",
   """Use reshape/view/expand, or create a new tensor; if you only need the storage, resize a detached tensor under
   no_grad.""",
   """x.resize_(6)""",
   """x = x.reshape(6)        # or build a new tensor""",
   "Was resize_() / resize_as_() called on a tensor that requires grad?",
   ("cannot resize variables that require grad",))

# ----------------------------------------------------------------------------- custom Functions

_e("custom_fn_wrong_num_grads", "Custom Function backward returned the wrong number of gradients", "exception",
   "RuntimeError",
   """Your autograd.Function's backward returned a different number of values than forward had inputs.""",
   """Autograd pairs the returned gradients with forward's inputs one to one.""",
   """Return one entry per forward argument, with None for arguments that are not tensors or need no
   gradient.""",
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
   """A gradient returned by your autograd.Function's backward does not have (and cannot be summed down to) the
   shape of the matching forward input.""",
   """Each gradient must describe its input element by element.""",
   """Give every returned gradient its input's shape: reduce over broadcast dimensions, fix transposes.""",
   """def backward(ctx, g):
    return g[:2] * 2""",
   """def backward(ctx, g):
    return g * 2""",
   "Does a custom Function's backward return a gradient with a different shape than its input?",
   ("Function DoubleBackward returned an invalid gradient at index 0 - got [2] but expected shape compatible with "
    "[3]",
    "Function DoubleBackward returned an invalid gradient at index 0 - expected shape [3] but got [2]"))

_e("anomaly_nan", "Anomaly detection: a backward node produced NaN", "exception", "RuntimeError",
   """With anomaly detection on, a node of the backward pass returned NaN in one of its gradients.""",
   """The forward computation hit a point where the derivative is undefined or infinite: sqrt or log of 0 or a
   negative number, 0/0, pow with a negative base, ...""",
   """Guard the forward computation: clamp inputs (x.clamp_min(eps)), add an epsilon, avoid 0/0, and beware that
   torch.where still differentiates the branch it did not pick.""",
   """y = torch.sqrt(x).sum()""",
   """y = torch.sqrt(x.clamp_min(1e-12)).sum()""",
   "Is anomaly detection on and did the forward pass compute sqrt/log/division of invalid values?",
   ("Function 'SqrtBackward0' returned nan values in its 0th output.",
    "Function 'SqrtBackward' returned nan values in its 0th output."))

_e("detach_inplace_view", "detach_() called on a view", "exception", "RuntimeError",
   """detach_() (the in-place detach) was called on a view: a slice, a transpose, or a DDP gradient bucket
   view.""",
   """A view shares its base's history; it cannot be detached alone in place.""",
   """Use the out-of-place v = v.detach(). For DDP with gradient_as_bucket_view, zero gradients with
   optimizer.zero_grad().""",
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
   """backward() without a gradient was called on a complex-valued output.""",
   """The implicit seed 1.0 only makes sense for a real loss; for a complex output the derivative depends on
   which real function of it you minimise.""",
   """Turn it into a real loss first (z.abs(), z.real, (z * z.conj()).real.sum()), or pass an explicit complex
   gradient.""",
   """z = (x * 1j).sum()
z.backward()""",
   """z = (x * 1j).sum()
z.abs().backward()""",
   "Is the output complex?",
   ("grad can be implicitly created only for real scalar outputs but got torch.complex64",))

_e("out_arg_requires_grad", "out= used with inputs that require grad", "exception", "RuntimeError",
   """An op was called with out=... while one of its inputs requires grad.""",
   """Writing into a preallocated tensor cannot be recorded in the graph, so out= variants are not
   differentiable.""",
   """Drop out= and assign the result (c = torch.add(a, 1)), or run it under torch.no_grad() if no gradient is
   needed.""",
   """torch.add(a, 1, out=out)""",
   """out = torch.add(a, 1)""",
   "Was an out= argument used?",
   ("add(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
    "requires grad.",))

_e("deepcopy_nonleaf", "copy.deepcopy of a non-leaf tensor", "exception", "RuntimeError",
   """copy.deepcopy reached a tensor that is the result of an op requiring grad (directly, or inside a dict, a
   list, a module attribute).""",
   """Copying a tensor would mean copying its graph too; PyTorch only supports deep copies of leaves.""",
   """Deep-copy a detached copy (t.detach().clone()) or store detached values; modules using weight_norm should use
   torch.nn.utils.parametrizations.weight_norm.""",
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
   """An optimizer received a tensor produced by an op (w * 2, or randn(..., requires_grad=True).float() /
   .to(device)), not a leaf.""",
   """The optimizer reads .grad and updates in place; a non-leaf never gets .grad and cannot be updated in
   place.""",
   """Create the tensor with its final dtype/device and then require grad
   (torch.randn(..., dtype=dt, device=d, requires_grad=True)), or wrap it in nn.Parameter.""",
   """w = torch.randn(3, requires_grad=True).float()
opt = torch.optim.SGD([w], lr=0.1)""",
   """w = torch.randn(3, dtype=torch.float32, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)""",
   "Was the tensor given to the optimizer produced by an operation (cast, .to(), arithmetic)?",
   ("can't optimize a non-leaf Tensor",))

_e("grad_assign_wrong_shape", "A gradient of the wrong shape assigned to .grad", "exception", "RuntimeError",
   """Your code assigned to tensor.grad a tensor whose shape differs from the tensor's.""",
   """The optimizer and autograd treat .grad as element-by-element gradients of the tensor.""",
   """Assign a gradient of exactly the tensor's shape, e.g. torch.zeros_like(p).""",
   """w.grad = torch.zeros(4)       # w has shape [3]""",
   """w.grad = torch.zeros_like(w)""",
   "Was .grad assigned manually?",
   ("attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please ensure that the gradient and "
    "the tensor are the same size",
    "assigned grad has data of a different size"))

_e("saved_tensor_detached_inplace", "A saved tensor was detached in place", "exception", "RuntimeError",
   """A tensor that an op saved for backward was later detached in place with .detach_(), which cut it out of the
   graph that the saved value belongs to.""",
   """detach_() rewrites the tensor's history; the node that saved it can no longer rely on it.""",
   """Use the out-of-place h_const = h.detach() instead of h.detach_().""",
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
   """backward reached an op that has no gradient formula for the argument that requires grad (for example
   igamma with respect to its first argument, special.zeta).""",
   """Some special functions are only differentiable with respect to some of their arguments in PyTorch.""",
   """Do not require grad for that argument (detach it), reformulate with differentiable ops, or write a custom
   autograd.Function with your own backward.""",
   """torch.igamma(a, x).sum().backward()     # a requires grad""",
   """torch.igamma(a.detach(), x).sum().backward()""",
   "Does an argument of a special function (igamma, zeta, ...) require grad?",
   ("the derivative for 'igamma: input' is not implemented.", "derivative for aten::igamma is not implemented"))

_e("tensor_copy_construct_warning", "torch.tensor() applied to an existing tensor", "warning", "UserWarning",
   """torch.tensor(t) copied the values of a tensor into a brand-new leaf. The copy has no history: the graph is
   cut there.""",
   """It looks like a conversion but behaves like detach().clone(), which silently stops gradients.""",
   """Say what you mean: t.detach().clone() for a copy without history, t.clone() for a copy that keeps it, and
   torch.stack / torch.cat to combine tensors while keeping gradients.""",
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
   """Guard with `if p.grad is not None:`, let optimizer.zero_grad() manage gradients, and check that the tensor
   really takes part in the loss.""",
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
   """Compute every loss and call backward (once, on their sum, or on each) before optimizer.step(). In GAN-style
   loops recompute the forward pass after the step, or detach the generator output for the discriminator
   update.""",
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
   """Return a scalar (.sum(), .mean()), or use torch.func.vjp / jacrev / jacfwd.""",
   """grad(lambda t: t * 2)(x)""",
   """grad(lambda t: (t * 2).sum())(x)""",
   "Was the function given to torch.func.grad returning more than one element?",
   ("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. Maybe you "
    "wanted to use the vjp or jacrev APIs instead?",))

_e("checkpoint_no_input_requires_grad", "Reentrant checkpoint with no input requiring grad", "warning",
   "UserWarning",
   """torch.utils.checkpoint with use_reentrant=True was called with inputs none of which require grad. Its
   output then does not require grad either, and the wrapped module's parameters get no gradient.""",
   """The reentrant implementation decides whether to record anything from its inputs only, not from the
   parameters inside.""",
   """Use use_reentrant=False (recommended), or make an input require grad (x.requires_grad_()) for the first
   checkpointed block.""",
   """out = checkpoint(block, x, use_reentrant=True)""",
   """out = checkpoint(block, x, use_reentrant=False)""",
   "Was torch.utils.checkpoint called with use_reentrant=True and inputs that do not require grad?",
   ("None of the inputs have requires_grad=True. Gradients will be None",))

_e("float_of_multi_element", "float()/int() of a tensor with several elements", "exception", "ValueError",
   """float(t), int(t) or a Python scalar conversion (also .item() on old PyTorch) was applied to a tensor with
   more than one element.""",
   """Only a one-element tensor has a single Python value.""",
   """Reduce first (float(t.mean())), index one element, or use t.tolist().""",
   """float(x)                  # x has shape [3]""",
   """float(x.mean())""",
   """Was it float()/int()/a format string applied to a multi-element tensor (or .item() on an old PyTorch)?""",
   ("only one element tensors can be converted to Python scalars",))

_e("grad_outputs_mismatch_masked", "Ambiguous truth value of a multi-element tensor", "exception",
   "RuntimeError",
   """Python needed a single True/False from a tensor with several elements. In autograd this happens when
   several outputs are given grad_outputs/grad_tensors and one of them has the wrong shape: PyTorch's own shape
   check compares tensors with == while building its error message, and that comparison raises this instead. In
   plain code it comes from `if t:`, `while t:`, `and`/`or`, or `t in list`.""",
   """A multi-element tensor has no single truth value (any? all?), so Python refuses to guess.""",
   """For autograd: give every grad_output exactly its output's shape (torch.ones_like(out_i)). In your own code:
   use t.any() / t.all() / torch.equal(a, b) explicitly.""",
   """torch.autograd.grad([a, b], x, grad_outputs=[torch.tensor(1.0), torch.ones(4, 1)])""",
   """torch.autograd.grad([a, b], x, grad_outputs=[torch.ones_like(a), torch.ones_like(b)])""",
   """Was it raised inside torch.autograd.grad/backward with several outputs and grad_outputs? (Otherwise it is a
   tensor used as a condition.)""",
   ("Boolean value of Tensor with more than one value is ambiguous",
    "bool value of Tensor with more than one value is ambiguous"))

_e("grad_output_complex_dtype_mismatch", "Real gradient for a complex output (or the reverse)", "exception",
   "RuntimeError",
   """The gradient passed to backward()/autograd.grad is real while the output is complex, or the other way
   round.""",
   """For complex tensors the seed must have the output's dtype.""",
   """Pass a gradient with the output's dtype, e.g. torch.ones_like(y).""",
   """y.backward(gradient=torch.ones(3))        # y is complex64""",
   """y.backward(gradient=torch.ones_like(y))""",
   "Is one of the output / the gradient complex and the other real?",
   ("For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in dtype: "
    "grad_output[0] has a dtype of torch.float32 and output[0] has a dtype of torch.complex64.",))

_e("scalar_conversion_requires_grad_warning", "float() of a tensor that requires grad", "warning", "UserWarning",
   """float(t) turned a tensor that is part of a graph into a plain Python number. Whatever you compute from that
   number is disconnected from the graph: no gradient flows back through it.""",
   """Fine for logging; a silent bug when the number is used to build the loss.""",
   """Use t.item() or t.detach() when you only need the value, and keep it as a tensor when it must be
   differentiated.""",
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
   """Pass use_reentrant=False (recommended), or use_reentrant=True to keep the old behaviour.""",
   """out = checkpoint(block, x)""",
   """out = checkpoint(block, x, use_reentrant=False)""",
   "Was checkpoint() called without use_reentrant=?",
   ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.",))


ENTRIES = {e.id: e for e in _ENTRIES}
ORDER = [e.id for e in _ENTRIES]


def get(entry_id: str) -> Entry:
    return ENTRIES[entry_id]


def list_entries() -> list:
    """Every known id, as plain dicts (id, title, kind, exc_type), in catalog order."""
    return [{"id": e.id, "title": e.title, "kind": e.kind, "exc_type": e.exc_type} for e in _ENTRIES]
