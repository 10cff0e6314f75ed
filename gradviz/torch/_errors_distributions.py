"""The messages of torch.distributions' multivariate and relaxed distributions, in PyTorch
2.13's words (its ValueErrors and NotImplementedErrors, raised by the distributions' __init__)."""


def at_least_one_dimensional(name):
    return ValueError(f"{name} must be at least one-dimensional.")


def exactly_one_matrix():
    return ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")


def matrix_at_least_two_dimensional(name):
    kind = "matrix " if name == "scale_tril" else ""
    return ValueError(f"{name} {kind}must be at least two-dimensional, with optional leading batch dimensions")


def cov_factor_shape(n):
    return ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")


def cov_diag_shape(event_shape):
    return ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")


def lowrank_incompatible_batch(loc_shape, factor_shape, diag_shape):
    return ValueError(f"Incompatible batch shapes: loc {loc_shape}, cov_factor {factor_shape}, cov_diag {diag_shape}")


def inhomogeneous_total_count():
    return NotImplementedError("inhomogeneous total_count is not supported")


def mixture_not_categorical():
    return ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")


def component_not_distribution():
    return ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")


def mixture_batch_incompatible(mixture_batch, component_batch):
    return ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible with "
                      f"`component_distribution.batch_shape`({component_batch})")


def mixture_component_count(km, kc):
    return ValueError(f"`mixture_distribution component` ({km}) does not equal "
                      f"`component_distribution.batch_shape[-1]` ({kc})")


def kl_event_shapes_differ(kind):
    # PyTorch's message keeps the indentation of its source's line continuation
    return ValueError(f"KL-divergence between two {kind} with{' ' * 26}different event shapes cannot be computed")
