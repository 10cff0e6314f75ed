"""What torch.autograd keeps of its pre-0.4 API: ``variable`` (a function that only says it
is gone) and NestedIOFunction, the old instance-style Function with nested inputs and
outputs. Neither works any more in PyTorch 2.13: NestedIOFunction's call reaches for the
legacy ``Function._do_forward``, which modern Function lacks, and fails as PyTorch's does."""
from .. import _errors_func as E
from .function import Function


def variable(*args, **kwargs):
    raise E.autograd_variable_removed()


def _tensors_of(value):
    """The tensors in a nested structure of tuples and lists, depth first, without recursion."""
    from .._tensor import Tensor
    stack, found = [value], []
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            found.append(item)
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
    return tuple(found)


class NestedIOFunction(Function):
    """Kept for backward compatibility only; use Function. Subclasses define
    ``forward_extended`` / ``backward_extended`` on nested structures."""
    __module__ = "torch.autograd.function"

    def _do_forward(self, *input):
        self._nested_input = input
        return super()._do_forward(*_tensors_of(input))  # gone from Function: an AttributeError, as in PyTorch

    __call__ = _do_forward

    def forward(self, *args):
        result = self.forward_extended(*self._nested_input)
        del self._nested_input
        self._nested_output = result
        return _tensors_of(result)

    def save_for_backward(self, *args):
        self.to_save = _tensors_of(args)
        self._to_save_nested = args

    def mark_dirty(self, *args, **kwargs):
        self.dirty_tensors = _tensors_of((args, kwargs))

    def mark_non_differentiable(self, *args, **kwargs):
        self.non_differentiable = _tensors_of((args, kwargs))

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError
