"""torch.nn.utils: gradient clipping and norms, parameter/vector conversion, the hook-based
weight and spectral norms, parametrizations (parametrize, parametrizations), stateless, BatchNorm fusion, skip_init and packed sequences (rnn)."""
from . import parametrizations, parametrize, rnn, stateless  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,  # noqa: F401
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                     fuse_linear_bn_weights)
from .init import skip_init  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401


from ... import _missing as _missing_names  # noqa: E402

__getattr__ = _missing_names.module_getattr(__name__)  # a missing name, in PyTorch's words
