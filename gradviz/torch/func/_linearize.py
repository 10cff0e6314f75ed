"""torch.func's linearize, functionalize, debug_unwrap and replace_all_batch_norm_modules_.

gradviz's engine has no functionalization pass and no wrapper tensors: functionalize runs
the function as it is (its results and any input mutations are the ones PyTorch's
functionalized program gives: it replays input mutations onto the inputs), and
debug_unwrap has nothing to unwrap. linearize is jvp at fixed primals, PyTorch's checks of
the tangents included."""
import functools

from .. import _errors_func as E
from ._pytree import tree_flatten
from ._transforms import jvp

_REMOVE = ("mutations", "mutations_and_views")


def linearize(func, *primals):
    output = func(*primals)
    flat_primals, primals_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise E.linearize_argspec(tangents_spec, primals_spec)
        for index, (tangent, primal) in enumerate(zip(flat_tangents, flat_primals)):
            if tuple(tangent.shape) != tuple(primal.shape):
                raise E.linearize_mismatch(index, "shape", tangent.shape, primal.shape)
            if tangent.dtype != primal.dtype:
                raise E.linearize_mismatch(index, "dtype", tangent.dtype, primal.dtype)
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def functionalize(func, *, remove="mutations"):
    if remove not in _REMOVE:
        raise E.functionalize_remove(remove)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    return tensor


def replace_all_batch_norm_modules_(root):
    """Every BatchNorm in ``root`` (itself included) stops tracking running statistics."""
    from ..nn.modules.batchnorm import _BatchNorm
    for module in (root, *root.modules()):
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
