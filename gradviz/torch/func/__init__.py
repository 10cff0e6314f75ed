"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian,
vmap, linearize, functionalize) and functional_call, on gradviz's engine."""
from ._functional_call import functional_call, stack_module_state  # noqa: F401
from ._linearize import debug_unwrap, functionalize, linearize, replace_all_batch_norm_modules_  # noqa: F401
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp  # noqa: F401
from ._vmap import vmap  # noqa: F401

__all__ = ["debug_unwrap", "functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev",
           "jvp", "linearize", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]


from .. import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
