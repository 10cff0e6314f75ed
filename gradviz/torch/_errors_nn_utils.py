"""The warning and error texts of torch.nn.utils (clip_grad.py, weight_norm.py,
spectral_norm.py, fusion.py, init.py), in PyTorch 2.13's exact words."""

CLIP_GRAD_NORM_DEPRECATED = ("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                             "`torch.nn.utils.clip_grad_norm_`.")
EMPTY_GENERATOR = "`parameters` is an empty generator, no gradient clipping will occur."
WEIGHT_NORM_DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
                          "`torch.nn.utils.parametrizations.weight_norm`.")
FUSION_ONLY_FOR_EVAL = "Fusion only for eval!"
BN_STATS_NONE = "bn.running_mean and bn.running_var must not be None"
SKIP_INIT_NO_DEVICE = "Module must support a 'device' arg to skip initialization"


def nonfinite_total_norm(norm_type):
    return RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                        "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                        "anyway, set `error_if_nonfinite=False`")


def two_hooks(kind, name):
    return RuntimeError(f"Cannot register two {kind} hooks on the same parameter {name}")


def hook_not_found(kind, name, module):
    return ValueError(f"{kind} of '{name}' not found in {module}")


def power_iterations(n):
    return ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations={n}")


def spectral_norm_none(name):
    return ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")


def linear_bn_features(out_features, num_features):
    return AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                          f"linear.out_features={out_features} and bn.num_features={num_features}")


def skip_init_not_module(module_cls):
    return RuntimeError(f"Expected a Module; got {module_cls}")
