"""Module backward hooks, as PyTorch runs them.

Full hooks (``register_full_backward_hook`` / ``register_full_backward_pre_hook``) pass a
module's tensor inputs and outputs through an identity Function, BackwardHookFunction, so
that the graph has one node where the outputs' gradients arrive and one where the inputs'
leave; hooks on those two nodes call the user's hooks with whole tuples. A script sees
those nodes (``y.grad_fn`` is ``BackwardHookFunctionBackward``), so they are real nodes here
too. The deprecated ``register_backward_hook`` hooks the output's grad_fn alone, and warns
when that node's gradients cannot be the module's."""
from ... import _errors
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import STATE


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """One call of a module with full backward hooks: the gradients seen at its outputs
    wait here until those at its inputs are known."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def setup_input_hook(self, args):
        result, self.input_tensors_index = self._through_identity(self._hook_inputs, args)
        self.n_inputs = len(args)
        return result

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        wrapped, self.output_tensors_index = self._through_identity(self._hook_outputs, args)
        self.n_outputs = len(args)
        return wrapped if is_tuple else wrapped[0]

    def _through_identity(self, hook_node, args):
        """args with their tensors replaced by BackwardHookFunction's outputs, and where the
        tensors were; args unchanged (and None) when no gradient will flow."""
        positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and STATE.enabled):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if not new_tensors:
            raise _errors.module_hook_no_input_tensors()
        node = next(t.grad_fn for t in new_tensors if t.grad_fn is not None)
        hook_node(node)
        replaced = list(args)
        for i, t in zip(positions, new_tensors):
            replaced[i] = t
        return (tuple(replaced) if type(args) is tuple else type(args)(*replaced)), positions

    def _hook_inputs(self, node):
        def at_inputs(grad_inputs, _):
            if self.grad_outputs is None:
                return None  # reached without passing the module's outputs (double backward)
            grads = _spread(self.input_tensors_index, grad_inputs, self.n_inputs)
            for hook in self.user_hooks:
                out = hook(self.module, grads, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(grads):
                    raise _errors.module_hook_grad_input_count(len(out), len(grads))
                grads = out
            self.grad_outputs = None
            return tuple(grads[i] for i in self.input_tensors_index)
        node.register_hook(at_inputs)

    def _hook_outputs(self, node):
        def at_outputs(_, grad_outputs):
            self.grad_outputs = _spread(self.output_tensors_index, grad_outputs, self.n_outputs)
            for pre_hook in self.user_pre_hooks:
                out = pre_hook(self.module, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(self.grad_outputs):
                    raise _errors.module_pre_hook_grad_output_count(len(out), len(self.grad_outputs))
                self.grad_outputs = out
            grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:  # no input needs a gradient: the hooks fire here
                _errors.warn_at_user(_errors.FULL_HOOK_ON_OUTPUTS_WARNING)
                no_grads = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    out = hook(self.module, no_grads, self.grad_outputs)
                    if out is not None and not (isinstance(out, tuple) and all(g is None for g in out)):
                        raise _errors.module_hook_no_input_grad_returned()
                self.grad_outputs = None
            if grad_outputs is not None:
                return tuple(grad_outputs[i] for i in self.output_tensors_index)
            return None
        node.register_hook(at_outputs)


def _spread(positions, values, size):
    """values put back at their positions among size arguments, None elsewhere."""
    spread = [None] * size
    for i, value in zip(positions, values):
        spread[i] = value
    return tuple(spread)


def hook_output_node(module, args, result, hooks):
    """The deprecated register_backward_hook: the hooks go on the grad_fn of the first
    tensor in the result, which sees that one node's gradients."""
    first = result
    while not isinstance(first, Tensor):
        first = next(v for v in first.values() if isinstance(v, Tensor)) if isinstance(first, dict) else first[0]
    node = first.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(lambda grad_inputs, grad_outputs, hook=hook: hook(module, grad_inputs, grad_outputs))
    reason = _incomplete_because(args, result, node)
    if reason is not None:
        _errors.warn_at_user(_errors.NON_FULL_HOOK_WARNINGS[reason], FutureWarning)


def _incomplete_because(inputs, result, node):
    """Why the gradients a non-full hook gets are not the module's, if they are not."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return "output"
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return "input"
    output_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not output_nodes or (len(output_nodes) == 1 and node not in output_nodes):
        return "nested"
    if len(output_nodes) > 1:
        return "many_outputs"
    input_nodes = {i.grad_fn for i in inputs if i.grad_fn is not None}
    if input_nodes != {fn for fn, _ in node.next_functions}:
        return "many_nodes"
    return None
