"""The error texts of torch.special's functions (and their torch.* twins), in PyTorch 2.13's
exact wording; each constructor returns the exception to raise."""


def mvlgamma_order(p):
    """torch.mvlgamma / special.multigammaln with an order p below 1."""
    return RuntimeError("p has to be greater than or equal to 1")


def round_integer_input(type_name):
    """special.round on an integer tensor: it passes decimals, which integer kernels lack."""
    return NotImplementedError(f"\"round_vml_cpu\" not implemented for '{type_name}'")
