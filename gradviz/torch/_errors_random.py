"""The error texts of torch's counting and gamma samplers (poisson, binomial, _standard_gamma,
_sample_dirichlet and their gradients), in PyTorch 2.13's exact wording; each constructor
returns the exception to raise."""


def poisson_rate():
    """torch.poisson with a negative (or NaN) rate, raised at that element."""
    return RuntimeError("invalid Poisson rate, expected rate to be non-negative")


def binomial_dtype(argument, type_name):
    """torch.binomial with an integer count or prob (ATen's TORCH_CHECK_VALUE)."""
    return ValueError(f"binomial only supports floating-point dtypes for {argument}, got: {type_name}")


def operand_dtype(found, expected):
    """TensorIterator's check that every input has the first one's dtype."""
    return RuntimeError(f"Found dtype {found} but expected {expected}")
